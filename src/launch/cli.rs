//! `simt-run`'s command line: clap flags with typed values, each parsed by
//! its key's grammar ([`super::values`], the same a launch file's values are
//! read with), and layered over a launch file as [`Settings`]. A value clap
//! rejects is reported as the launch file's are: `error: --KEY 'TEXT': why`
//! ([`usage_error`]), a usage error (exit 2).

use super::model::{ArgSpec, Engine, Policy, StatsFormat};
use super::settings::{Given, Settings};
use super::values;
use crate::diag::ToolError;
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::Parser;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The syntax of `--arg`, the fills and the launch file, for `--help`.
pub const LAUNCH_HELP: &str = "\
EXAMPLE (a reduction in 256 work-groups of 256 on all cores, then the same
launch on the SIMT emulator, checked for races and compared with the first):
  simt-run test-ir/examples/reduce.ll --kernel reduce_sum --global 65536 \\
    --local 256 --arg buf:f32:65536=rand:1 --arg buf:f32:256 \\
    --arg local:f32:256 --dump out/
  simt-run test-ir/examples/reduce.ll --kernel reduce_sum --global 65536 \\
    --local 256 --arg buf:f32:65536=rand:1 --arg buf:f32:256 \\
    --arg local:f32:256 --engine emu --check all --compare out/

ARGUMENTS (--arg, one per kernel parameter, in parameter order):
  buf:TYPE:COUNT[=FILL]   global buffer of COUNT elements of TYPE
  local:TYPE:COUNT        __local pointer argument: COUNT elements of TYPE in
                          the work-group's local memory (uninitialised)
  TYPE:VALUE              scalar, e.g. i32:-3, u32:0xff, f32:0.5, f64:1e-3
  struct:TYPE:VALUE,...   struct passed by value: its fields in order, each at
                          a multiple of its size (C's layout), e.g.
                          struct:f32:1.5,i32:3 for struct { float a; int b; }
  TYPE is one of i8 i16 i32 i64 u8 u16 u32 u64 f32 f64. An integer parameter
  takes either signedness of its width; f32/f64 only floats of that width.

FILLS (buffer contents before the first run):
  zero        all zeros (the default)
  ramp        element i = i (integers wrap to the type's width)
  const:V     every element = V
  rand:SEED   deterministic: splitmix64 seeded with SEED, one 64-bit draw per
              element; floats uniform in [0,1) (top 24 bits for f32, top 53
              for f64), integers draw % 1000 (i8: % 128, u8: % 256)
  file:PATH   raw little-endian elements; the file must hold exactly COUNT

--repeat N fills the buffers once and runs the launch N times: a kernel that
updates a buffer in place sees its own output of the previous run, unless
--refill gives every run the first one's inputs again (copied back between
runs, untimed: how pocl_host and the native harness of scripts/bench time a
kernel). --dump and --compare use the buffers after the last run. Files are DIR/argN.bin, N the
parameter index from 0, raw little-endian. --compare checks integers exactly
and floats within --tolerance ULPs (NaN matches NaN, 0 matches -0); it reads
the reference files, and checks their sizes, before the kernel runs. --dump
and --compare may not name the same folder, however spelt (`out`, `./out/`, a
symbolic link to it): that is a usage error (exit 2), since the dump would
overwrite the references.

ENGINES (--engine): host (default) compiles the kernel for this CPU; emu runs
it on the SIMT emulator, the reference semantics: warps of --warp-width lanes
(default 32, at most 64) in lockstep, reconverging by --policy: ipdom (a stack,
at immediate post-dominators; the default), markers (seed 000: at convergence
checks the lanes earliest in PC order run, lanes at one PC merge) or none.
--trace FILE (emu only) writes, for the first run, a line per block each lane
group of a warp runs and per policy decision (split, check, reconverge,
barrier, exit): warp-instructions issued so far, warp, event, block, PC, and
the lanes (lane 0 first, # in the group); at most 200000 lines.
--profile FILE (emu only) writes the divergence profile of the last run: per
block of the kernel, the lane groups that ran it and the runs and splits of
its branch, with a hash of the kernel's IR (JSON; simt-ifconvert<profile=FILE>
prices branches by it). An existing profile in FILE is added to.
--check LIST (emu; alone it selects emu) checks the kernel while it runs, LIST
a comma-separated list of: races (two work-items touch a byte of __local or
__global memory, one with a plain (non-atomic) write, with no barrier between,
or in different work-groups), uninit (a read of __local or private memory no
work-item of the work-group wrote), bounds and barriers (always on in the
emulator), warp (a CUDA warp function whose mask leaves out the calling lane,
names a lane that is not calling it with that mask, or, for a shuffle, leaves
out the lane read), uniformity (= --check-uniformity), all (all but
uniformity).
Findings are reported on stderr, each pair of instructions once, and make the
exit status 1; the checks watch the first run of --repeat.

LAUNCH FILE (--launch FILE): one `key = value` per line, `#` starts a comment.
Keys are the long flag names without dashes (module, kernel, global, local,
global-offset, arg, repeat, refill, engine, interleave, local-mem-limit, shared-bytes, dump, compare,
tolerance, timeout, stats, policy, warp-width, aot, linear, no-cache, trace, profile, check), values as on the command line; `arg`
repeats, in parameter order. Relative paths in the file (module, dump, compare, file: fills) are
relative to the file's folder. Flags given on the command line override the
file's keys; if any --arg is given, the --arg flags replace all of the file's
`arg` lines. Example:
  # vadd.launch
  module = vadd.ll
  kernel = vadd
  global = 1048576
  local  = 256
  arg = buf:f32:1048576=rand:1
  arg = buf:f32:1048576=ramp
  arg = buf:f32:1048576
  arg = u32:1048576

EXIT STATUS: 0 success; 1 error (module, kernel, arguments that do not fit the
kernel, files, barrier divergence, --compare mismatch); 2 usage (malformed
command line or launch file).";

#[derive(Parser, Debug)]
#[command(
    name = "simt-run",
    version = crate::version(),
    about = "Run a SIMT kernel (OpenCL or CUDA LLVM IR) on this machine's cores",
    override_usage = "simt-run KERNEL.ll --kernel NAME --global X[,Y,Z] [--local X[,Y,Z]] --arg SPEC... [OPTIONS]\n       simt-run --launch FILE [KERNEL.ll] [OPTIONS]",
    after_help = LAUNCH_HELP
)]
pub struct Cli {
    /// The module (.ll or .bc) holding the kernel; `-` reads standard input
    /// (read once, so a pipe or FIFO works too).
    #[arg(value_name = "KERNEL.ll")]
    pub module: Option<PathBuf>,
    /// Kernel to run (default: the module's only kernel). A C++ kernel's
    /// plain name finds its mangled one (saxpy → _Z5saxpyifPKfPf, a static one's too: _ZL5saxpy…).
    #[arg(long, value_name = "NAME", help_heading = "Launch")]
    pub kernel: Option<String>,
    /// Global size: work-items per dimension, 1 to 3 dimensions.
    #[arg(long, value_name = "X[,Y,Z]", value_parser = sizes, help_heading = "Launch")]
    pub global: Option<Sizes>,
    /// Local size: work-items per work-group. Without it: the kernel's
    /// reqd_work_group_size, else pocl's choice (README). A global size it
    /// does not divide gives a smaller last work-group (OpenCL 2.0), except
    /// for kernels compiled for uniform work-groups (OpenCL 1.x, CUDA).
    #[arg(long, value_name = "X[,Y,Z]", value_parser = sizes, help_heading = "Launch")]
    pub local: Option<Sizes>,
    /// Global offset (get_global_offset); default 0.
    #[arg(long = "global-offset", value_name = "X[,Y,Z]", value_parser = sizes, help_heading = "Launch")]
    pub global_offset: Option<Sizes>,
    /// One kernel argument, in parameter order (repeat): buf:TYPE:COUNT[=FILL],
    /// local:TYPE:COUNT or TYPE:VALUE. See below.
    #[arg(long = "arg", value_name = "SPEC", allow_hyphen_values = true, value_parser = arg_specs(), help_heading = "Kernel arguments")]
    pub args: Vec<(String, ArgSpec)>,
    /// Read `key = value` settings from FILE; flags override them. See below.
    #[arg(long, value_name = "FILE", help_heading = "Launch")]
    pub launch: Option<PathBuf>,
    /// Engine that runs the kernel: host (this CPU), emu (the SIMT emulator)
    /// or gpu (an NVIDIA GPU; exits with 3 where none is present).
    #[arg(long, value_name = "host|emu|gpu", value_parser = values::engine, help_heading = "Engines")]
    pub engine: Option<Engine>,
    /// Host engine: link the kernel object with the system linker and load
    /// it, instead of the JIT (same object, same results).
    #[arg(long, help_heading = "Engines")]
    pub aot: bool,
    /// Host engine: emit the work-item loops in the linear form (one copy of
    /// the kernel entered through a resume switch; kernels whose region
    /// copies would exceed 4x their blocks get it anyway).
    #[arg(long, help_heading = "Engines")]
    pub linear: bool,
    /// Host engine: neither read nor write the kernel cache (compiled
    /// kernels kept in $SIMT_CACHE_DIR, else $XDG_CACHE_HOME/simt, else
    /// ~/.cache/simt; at most $SIMT_CACHE_MAX_SIZE, default 256M).
    #[arg(long = "no-cache", help_heading = "Engines")]
    pub no_cache: bool,
    /// Stop the launch with an error (exit 1) if it has not finished after
    /// SECONDS, compilation included (a kernel that never ends).
    #[arg(long, value_name = "SECONDS", value_parser = values::seconds, help_heading = "Launch")]
    pub timeout: Option<f64>,
    /// Run the launch N times (buffers filled once) and report best/median.
    #[arg(long, value_name = "N", value_parser = values::positive, help_heading = "Launch")]
    pub repeat: Option<u32>,
    /// With --repeat: copy the buffers' first contents back before each
    /// run (untimed), so that every run computes the same thing.
    #[arg(long, help_heading = "Launch")]
    pub refill: bool,
    /// `json`: one JSON object of timings, sizes and the engine's details
    /// on stdout; `text`: the same fields as `key: value` lines on stderr
    /// (without --stats: a two-line summary).
    #[arg(long, value_name = "json|text", value_parser = values::stats_format, help_heading = "Output")]
    pub stats: Option<StatsFormat>,
    /// Write each buffer argument after the last run to DIR/argN.bin. DIR may
    /// not be the --compare folder, however spelt (exit 2).
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    pub dump: Option<PathBuf>,
    /// Compare each buffer argument with DIR/argN.bin, where present. The
    /// files are read, and their sizes checked, before the kernel runs.
    #[arg(long, value_name = "DIR", help_heading = "Checks")]
    pub compare: Option<PathBuf>,
    /// Float tolerance of --compare, in ULPs (default 0).
    #[arg(long, value_name = "ULPS", value_parser = values::ulps, help_heading = "Checks")]
    pub tolerance: Option<u64>,
    /// Host engine: work-groups interleaved in balanced loop groups (seed 001; 1 = off).
    #[arg(long, value_name = "N", value_parser = values::positive, help_heading = "Engines")]
    pub interleave: Option<u32>,
    /// Emulator: reconvergence policy (default ipdom).
    #[arg(long, value_name = "ipdom|markers|none", value_parser = values::policy, help_heading = "Engines")]
    pub policy: Option<Policy>,
    /// Emulator: check at run time that every value the uniformity analysis
    /// calls uniform is the same in all lanes running it together (an error
    /// names the first violation).
    #[arg(long = "check-uniformity", help_heading = "Checks")]
    pub check_uniformity: bool,
    /// Emulator (selected by this flag alone): check the kernel as it runs:
    /// races, uninit, bounds, barriers, warp, uniformity, or all (see below).
    #[arg(long, value_name = "LIST", value_parser = values::checks, help_heading = "Checks")]
    pub check: Option<crate::launch::Checks>,
    /// Emulator: lanes per warp, 1 to 64 (default 32).
    #[arg(long = "warp-width", value_name = "N", value_parser = values::warp_width, help_heading = "Engines")]
    pub warp_width: Option<u32>,
    /// Emulator: write a trace of the first run to FILE: a line per block each
    /// lane group of a warp runs and per policy decision, with its lanes.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub trace: Option<PathBuf>,
    /// Emulator: write the divergence profile (per block: lane groups that ran
    /// it, runs and splits of its branch) of the last run to FILE, for
    /// simt-ifconvert<profile=FILE>.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub profile: Option<PathBuf>,
    /// Local memory allowed per work-group (default 256K); 65536, 64K, 1M.
    #[arg(long = "local-mem-limit", value_name = "BYTES", value_parser = values::parse_bytes, help_heading = "Launch")]
    pub local_mem_limit: Option<u64>,
    /// CUDA: bytes of dynamic shared memory per block for the kernel's
    /// `extern __shared__` arrays (<<<grid, block, BYTES>>>); 4096, 4K.
    #[arg(long = "shared-bytes", value_name = "BYTES", value_parser = values::parse_bytes, help_heading = "Launch")]
    pub shared_bytes: Option<u64>,
    /// Kernel sources (.cl, .cu): define a macro for clang-22.
    #[arg(short = 'D', value_name = "NAME[=VALUE]", help_heading = "Kernel sources")]
    pub defines: Vec<String>,
    /// Kernel sources: add an include folder for clang-22.
    #[arg(short = 'I', value_name = "DIR", help_heading = "Kernel sources")]
    pub include_dirs: Vec<PathBuf>,
    /// OpenCL C sources: the language version (default CL2.0).
    #[arg(long = "cl-std", value_name = "CL1.2|CL2.0|CL3.0", help_heading = "Kernel sources")]
    pub cl_std: Option<String>,
    /// Kernel sources: keep the module clang-22 made as DIR/NAME.ll.
    #[arg(long = "keep-ir", value_name = "DIR", help_heading = "Kernel sources")]
    pub keep_ir: Option<PathBuf>,
}

/// `X[,Y[,Z]]`: a newtype, since clap takes an `Option<Vec<_>>` field for
/// a flag with several values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sizes(pub Vec<u64>);

fn sizes(text: &str) -> Result<Sizes, String> {
    values::dims(text).map(Sizes)
}

/// `--arg`'s parser. A malformed argument's message names its position
/// (`argument 2: …`), which one value cannot know: clap parses the `--arg`
/// values in command-line order, so the parser counts them. `Cli::command()`
/// builds a new parser, and so a new count, for every parse.
fn arg_specs() -> impl Fn(&str) -> Result<(String, ArgSpec), String> + Clone + Send + Sync + 'static {
    let next = Arc::new(AtomicUsize::new(0));
    move |text: &str| {
        let i = next.fetch_add(1, Ordering::Relaxed);
        ArgSpec::parse(text, None).map(|a| (text.trim().to_string(), a)).map_err(|e| format!("argument {i}: {e}"))
    }
}

/// A value clap rejected, as the usage error the launch file's would be
/// (`error: --engine 'fpga': unknown engine …`); `None` for clap's own
/// errors (unknown flags, `--help`, …), which clap reports itself.
pub fn usage_error(e: &clap::Error) -> Option<ToolError> {
    if e.kind() != ErrorKind::ValueValidation {
        return None;
    }
    let text = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => Some(s.as_str()),
        _ => None,
    };
    // clap names the flag with its value: `--engine <host|emu|gpu>`.
    let flag = text(ContextKind::InvalidArg)?.split([' ', '=']).next()?;
    let value = text(ContextKind::InvalidValue)?;
    let why = std::error::Error::source(e)?;
    Some(ToolError::Usage(format!("error: {flag} '{}': {why}", value.trim())))
}

impl Cli {
    /// The command line's settings, for layering over a launch file.
    pub fn settings(&self) -> Settings {
        fn path(p: &Option<PathBuf>) -> Option<Given<PathBuf>> {
            p.as_ref().map(|p| Given::command_line(p.display().to_string(), p.clone()))
        }
        fn dims(d: &Option<Sizes>) -> Option<Given<Vec<u64>>> {
            d.as_ref().map(|Sizes(d)| Given::command_line(d.iter().map(u64::to_string).collect::<Vec<_>>().join(","), d.clone()))
        }
        fn shown<T: Clone + std::fmt::Display>(v: &Option<T>) -> Option<Given<T>> {
            v.as_ref().map(|v| Given::command_line(v.to_string(), v.clone()))
        }
        let switch = |on: bool| on.then(|| Given::command_line("true", true));
        Settings {
            module: path(&self.module),
            kernel: self.kernel.as_ref().map(|k| Given::command_line(k.clone(), k.clone())),
            global: dims(&self.global),
            local: dims(&self.local),
            global_offset: dims(&self.global_offset),
            args: self.args.iter().map(|(text, a)| Given::command_line(text.clone(), a.clone())).collect(),
            engine: self.engine.map(|e| Given::command_line(e.name(), e)),
            repeat: shown(&self.repeat),
            refill: switch(self.refill),
            interleave: shown(&self.interleave),
            local_mem_limit: shown(&self.local_mem_limit),
            shared_bytes: shown(&self.shared_bytes),
            dump: path(&self.dump),
            compare: path(&self.compare),
            tolerance: shown(&self.tolerance),
            timeout: shown(&self.timeout),
            stats: shown(&self.stats),
            policy: self.policy.map(|p| Given::command_line(p.name(), p)),
            warp_width: shown(&self.warp_width),
            aot: switch(self.aot),
            linear: switch(self.linear),
            no_cache: switch(self.no_cache),
            trace: path(&self.trace),
            profile: path(&self.profile),
            check_uniformity: switch(self.check_uniformity),
            check: shown(&self.check),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("simt-run").chain(args.iter().copied()))
    }

    fn usage(args: &[&str]) -> String {
        match parse(args).map(|_| ()).map_err(|e| usage_error(&e)) {
            Err(Some(ToolError::Usage(m))) => m,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    /// The flags' values are typed by the same grammar as the launch file's,
    /// and a rejected value reads as a launch file's would.
    #[test]
    fn typed_flags_and_their_errors() {
        let c = parse(&[
            "k.ll",
            "--global",
            "64,2",
            "--local",
            "8,2",
            "--engine",
            "emu",
            "--warp-width",
            "16",
            "--arg",
            "i32:-3",
            "--arg",
            "buf:f32:4=rand:1",
        ])
        .unwrap();
        assert_eq!(c.global, Some(Sizes(vec![64, 2])));
        assert_eq!(c.engine, Some(Engine::Emu));
        assert_eq!(c.warp_width, Some(16));
        assert_eq!(c.args.len(), 2);
        assert_eq!(c.args[1].1.to_string(), "buf:f32:4=rand:1");
        let (l, o) = c.settings().resolve().unwrap();
        assert_eq!((l.grid.global.len(), o.engine, o.warp_width), (2, Engine::Emu, 16));

        assert_eq!(usage(&["--engine", "fpga"]), "error: --engine 'fpga': unknown engine (available: host, emu, gpu)");
        assert_eq!(usage(&["--repeat", "0"]), "error: --repeat '0': expected a whole number from 1 to 4294967295");
        assert_eq!(usage(&["--global=1,2,3,4"]), "error: --global '1,2,3,4': '1,2,3,4' has 4 dimensions; 1 to 3 are allowed");
        assert_eq!(
            usage(&["--arg", "i32:1", "--arg", "u8:2", "--arg", "buf:f33:8"]),
            "error: --arg 'buf:f33:8': argument 2: unknown element type 'f33' (one of i8 i16 i32 i64 u8 u16 u32 u64 f32 f64)"
        );
        assert!(usage(&["--stats", "xml"]).ends_with("expected 'json' or 'text'"));
        assert!(usage(&["--warp-width", "65"]).starts_with("error: --warp-width '65': expected a whole number from 1 to 64"));
        // Clap's own errors stay clap's.
        assert!(usage_error(&parse(&["--frobnicate"]).unwrap_err()).is_none());
    }
}
