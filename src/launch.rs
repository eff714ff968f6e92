//! What `simt-run` runs, independent of the engine that runs it: the module,
//! the kernel, the grid (global and local sizes, global offset) and the
//! kernel's arguments; plus the run options (engine, repeat, dump, compare…).
//!
//! Both come from [`Settings`]: `key = value` pairs taken from a launch file
//! (`--launch FILE`) and from the command line, which overrides the file. The
//! values have the same syntax in both places; see [`LAUNCH_HELP`].
//!
//! Mistakes in the text itself (malformed `--arg`, sizes that do not divide,
//! an unknown key) are usage errors (exit 2). Whether the arguments fit the
//! kernel is checked against the module by `kernel_sig`.

use crate::diag::ToolError;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// The syntax of `--arg`, the fills and the launch file, for `--help`.
pub const LAUNCH_HELP: &str = "\
ARGUMENTS (--arg, one per kernel parameter, in parameter order):
  buf:TYPE:COUNT[=FILL]   global buffer of COUNT elements of TYPE
  local:TYPE:COUNT        __local pointer argument: COUNT elements of TYPE in
                          the work-group's local memory (uninitialised)
  TYPE:VALUE              scalar, e.g. i32:-3, u32:0xff, f32:0.5, f64:1e-3
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
updates a buffer in place sees its own output of the previous run. --dump and
--compare use the buffers after the last run. Files are DIR/argN.bin, N the
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
--check LIST (emu; alone it selects emu) checks the kernel while it runs, LIST
a comma-separated list of: races (two work-items touch a byte of __local or
__global memory, one with a plain (non-atomic) write, with no barrier between,
or in different work-groups), uninit (a read of __local or private memory no
work-item of the work-group wrote), bounds and barriers (always on in the
emulator), uniformity (= --check-uniformity), all (all but uniformity).
Findings are reported on stderr, each pair of instructions once, and make the
exit status 1; the checks watch the first run of --repeat.

LAUNCH FILE (--launch FILE): one `key = value` per line, `#` starts a comment.
Keys are the long flag names without dashes (module, kernel, global, local,
global-offset, arg, repeat, engine, interleave, local-mem-limit, dump, compare,
tolerance, stats, policy, warp-width, aot, trace, check), values as on the command line; `arg`
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

// ---------------------------------------------------------------------------
// Element types and scalar values

/// An element or scalar type of an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarType {
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F32,
    F64,
}

impl ScalarType {
    pub const ALL: [ScalarType; 10] = [
        ScalarType::I8,
        ScalarType::I16,
        ScalarType::I32,
        ScalarType::I64,
        ScalarType::U8,
        ScalarType::U16,
        ScalarType::U32,
        ScalarType::U64,
        ScalarType::F32,
        ScalarType::F64,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ScalarType::I8 => "i8",
            ScalarType::I16 => "i16",
            ScalarType::I32 => "i32",
            ScalarType::I64 => "i64",
            ScalarType::U8 => "u8",
            ScalarType::U16 => "u16",
            ScalarType::U32 => "u32",
            ScalarType::U64 => "u64",
            ScalarType::F32 => "f32",
            ScalarType::F64 => "f64",
        }
    }

    pub fn parse(s: &str) -> Option<ScalarType> {
        ScalarType::ALL.into_iter().find(|t| t.name() == s)
    }

    /// Size in bytes.
    pub fn size(self) -> usize {
        self.bits() as usize / 8
    }

    pub fn bits(self) -> u32 {
        match self {
            ScalarType::I8 | ScalarType::U8 => 8,
            ScalarType::I16 | ScalarType::U16 => 16,
            ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => 32,
            ScalarType::I64 | ScalarType::U64 | ScalarType::F64 => 64,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, ScalarType::F32 | ScalarType::F64)
    }

    pub fn is_signed(self) -> bool {
        matches!(self, ScalarType::I8 | ScalarType::I16 | ScalarType::I32 | ScalarType::I64)
    }

    fn list() -> String {
        ScalarType::ALL.map(ScalarType::name).join(" ")
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A value of a [`ScalarType`], held as its little-endian bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scalar {
    pub ty: ScalarType,
    bytes: [u8; 8],
}

impl Scalar {
    /// The value whose little-endian encoding is the low `ty.size()` bytes of `bits`.
    pub fn from_bits(ty: ScalarType, bits: u64) -> Scalar {
        let mut bytes = bits.to_le_bytes();
        bytes[ty.size()..].fill(0);
        Scalar { ty, bytes }
    }

    pub fn from_le_bytes(ty: ScalarType, le: &[u8]) -> Scalar {
        let mut bytes = [0u8; 8];
        bytes[..ty.size()].copy_from_slice(&le[..ty.size()]);
        Scalar { ty, bytes }
    }

    /// The value's `ty.size()` little-endian bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.ty.size()]
    }

    pub fn bits(&self) -> u64 {
        u64::from_le_bytes(self.bytes)
    }

    /// Parses `text` as a value of `ty`: integers in decimal or `0x` hex (a
    /// leading `-` for signed types), within the type's range; floats as Rust
    /// reads them (`1.5`, `-2e-3`, `inf`, `nan`).
    pub fn parse(ty: ScalarType, text: &str) -> Result<Scalar, String> {
        let t = text.trim();
        if t.is_empty() {
            return Err(format!("missing {ty} value"));
        }
        if ty.is_float() {
            return match ty {
                ScalarType::F32 => {
                    t.parse::<f32>().map(|v| Scalar::from_bits(ty, v.to_bits() as u64)).map_err(|_| format!("'{t}' is not an f32 number"))
                }
                _ => t.parse::<f64>().map(|v| Scalar::from_bits(ty, v.to_bits())).map_err(|_| format!("'{t}' is not an f64 number")),
            };
        }
        let (negative, digits) = match t.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, t.strip_prefix('+').unwrap_or(t)),
        };
        let digits = digits.replace('_', "");
        let magnitude = match digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
            Some(hex) => u128::from_str_radix(hex, 16),
            None => digits.parse::<u128>(),
        }
        .map_err(|_| format!("'{t}' is not an integer"))?;
        let value: i128 = if negative { -(magnitude.min(1 << 100) as i128) } else { magnitude.min(1 << 100) as i128 };
        let (lo, hi): (i128, i128) =
            if ty.is_signed() { (-(1i128 << (ty.bits() - 1)), (1i128 << (ty.bits() - 1)) - 1) } else { (0, (1i128 << ty.bits()) - 1) };
        if value < lo || value > hi {
            return Err(format!("{t} is out of range for {ty} ({lo}..={hi})"));
        }
        Ok(Scalar::from_bits(ty, value as u64))
    }
}

/// Formats one little-endian element of `ty` (`bytes` holds at least `ty.size()`).
pub fn format_element(ty: ScalarType, bytes: &[u8]) -> String {
    let mut b = [0u8; 8];
    b[..ty.size()].copy_from_slice(&bytes[..ty.size()]);
    let bits = u64::from_le_bytes(b);
    match ty {
        ScalarType::I8 => (bits as u8 as i8).to_string(),
        ScalarType::I16 => (bits as u16 as i16).to_string(),
        ScalarType::I32 => (bits as u32 as i32).to_string(),
        ScalarType::I64 => (bits as i64).to_string(),
        ScalarType::U8 | ScalarType::U16 | ScalarType::U32 | ScalarType::U64 => bits.to_string(),
        ScalarType::F32 => format!("{:?}", f32::from_bits(bits as u32)),
        ScalarType::F64 => format!("{:?}", f64::from_bits(bits)),
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.ty, format_element(self.ty, &self.bytes))
    }
}

// ---------------------------------------------------------------------------
// Arguments

/// The initial contents of a buffer.
#[derive(Clone, Debug, PartialEq)]
pub enum Fill {
    Zero,
    /// Element i = i.
    Ramp,
    Const(Scalar),
    /// splitmix64 with this seed.
    Rand(u64),
    /// Raw little-endian elements, exactly COUNT of them.
    File(PathBuf),
}

impl fmt::Display for Fill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fill::Zero => f.write_str("zero"),
            Fill::Ramp => f.write_str("ramp"),
            Fill::Const(v) => write!(f, "const:{}", format_element(v.ty, v.as_bytes())),
            Fill::Rand(seed) => write!(f, "rand:{seed}"),
            Fill::File(p) => write!(f, "file:{}", p.display()),
        }
    }
}

/// One kernel argument, as `--arg` describes it.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgSpec {
    /// `buf:TYPE:COUNT[=FILL]`: a global buffer.
    Buffer { ty: ScalarType, count: u64, fill: Fill },
    /// `TYPE:VALUE`.
    Scalar(Scalar),
    /// `local:TYPE:COUNT`: a __local pointer argument.
    Local { ty: ScalarType, count: u64 },
}

impl ArgSpec {
    /// Parses one `--arg` value. Relative `file:` paths are taken relative to
    /// `base_dir` when given (a launch file's folder).
    pub fn parse(text: &str, base_dir: Option<&Path>) -> Result<ArgSpec, String> {
        let t = text.trim();
        if t.is_empty() {
            return Err("empty argument; expected buf:TYPE:COUNT[=FILL], local:TYPE:COUNT or TYPE:VALUE".into());
        }
        let (head, rest) =
            t.split_once(':').ok_or_else(|| format!("expected buf:TYPE:COUNT[=FILL], local:TYPE:COUNT or TYPE:VALUE, found no ':'"))?;
        match head {
            "buf" => {
                let (shape, fill) = match rest.split_once('=') {
                    Some((s, f)) => (s, Some(f)),
                    None => (rest, None),
                };
                let (ty, count) = parse_type_count(shape, "buf")?;
                let fill = match fill {
                    None => Fill::Zero,
                    Some(f) => parse_fill(ty, f, base_dir)?,
                };
                Ok(ArgSpec::Buffer { ty, count, fill })
            }
            "local" => {
                if rest.contains('=') {
                    return Err("a local argument has no fill (local memory starts uninitialised)".into());
                }
                let (ty, count) = parse_type_count(rest, "local")?;
                Ok(ArgSpec::Local { ty, count })
            }
            _ => match ScalarType::parse(head) {
                Some(ty) => Ok(ArgSpec::Scalar(Scalar::parse(ty, rest)?)),
                None => {
                    Err(format!("unknown argument kind or type '{head}': expected buf, local or a scalar type ({})", ScalarType::list()))
                }
            },
        }
    }

    /// "global buffer", "scalar" or "__local buffer", for messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            ArgSpec::Buffer { .. } => "global buffer",
            ArgSpec::Scalar(_) => "scalar",
            ArgSpec::Local { .. } => "__local buffer",
        }
    }

    /// Bytes of a buffer or local argument; 0 for a scalar.
    pub fn bytes(&self) -> u64 {
        match self {
            ArgSpec::Buffer { ty, count, .. } | ArgSpec::Local { ty, count } => count * ty.size() as u64,
            ArgSpec::Scalar(_) => 0,
        }
    }
}

impl fmt::Display for ArgSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgSpec::Buffer { ty, count, fill: Fill::Zero } => write!(f, "buf:{ty}:{count}"),
            ArgSpec::Buffer { ty, count, fill } => write!(f, "buf:{ty}:{count}={fill}"),
            ArgSpec::Scalar(v) => write!(f, "{v}"),
            ArgSpec::Local { ty, count } => write!(f, "local:{ty}:{count}"),
        }
    }
}

/// Largest buffer or local argument accepted (1 TiB): keeps byte sizes far
/// from overflowing and catches typos before an allocation does.
const MAX_ARG_BYTES: u64 = 1 << 40;

fn parse_type_count(text: &str, kind: &str) -> Result<(ScalarType, u64), String> {
    let (ty, count) = text.split_once(':').ok_or_else(|| format!("expected {kind}:TYPE:COUNT, found '{kind}:{text}'"))?;
    let ty = ScalarType::parse(ty).ok_or_else(|| format!("unknown element type '{ty}' (one of {})", ScalarType::list()))?;
    let count: u64 = parse_u64(count).map_err(|_| format!("COUNT '{count}' is not a whole number"))?;
    if count == 0 {
        return Err("COUNT must be at least 1".into());
    }
    if count.checked_mul(ty.size() as u64).is_none_or(|b| b > MAX_ARG_BYTES) {
        return Err(format!("{count} {ty} elements is more than the 1 TiB limit"));
    }
    Ok((ty, count))
}

fn parse_fill(ty: ScalarType, text: &str, base_dir: Option<&Path>) -> Result<Fill, String> {
    let (name, value) = match text.split_once(':') {
        Some((n, v)) => (n, Some(v)),
        None => (text, None),
    };
    match (name, value) {
        ("zero", None) => Ok(Fill::Zero),
        ("ramp", None) => Ok(Fill::Ramp),
        ("const", Some(v)) => Scalar::parse(ty, v).map(Fill::Const).map_err(|e| format!("fill const: {e}")),
        ("rand", Some(v)) => parse_u64(v).map(Fill::Rand).map_err(|_| format!("fill rand: SEED '{v}' is not a whole number (0..=2^64-1)")),
        ("file", Some(p)) if !p.is_empty() => {
            let p = PathBuf::from(p);
            Ok(Fill::File(match base_dir {
                Some(dir) if p.is_relative() => dir.join(p),
                _ => p,
            }))
        }
        ("zero" | "ramp", Some(_)) => Err(format!("fill '{name}' takes no value")),
        ("const" | "rand" | "file", _) => {
            let what = match name {
                "const" => "const:V",
                "rand" => "rand:SEED",
                _ => "file:PATH",
            };
            Err(format!("fill '{name}' needs a value: {what}"))
        }
        _ => Err(format!("unknown fill '{text}' (one of zero, ramp, const:V, rand:SEED, file:PATH)")),
    }
}

fn parse_u64(text: &str) -> Result<u64, std::num::ParseIntError> {
    let t = text.trim().replace('_', "");
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse::<u64>(),
    }
}

// ---------------------------------------------------------------------------
// The grid

/// Global and local sizes of a launch, in 1 to 3 dimensions. Unused
/// dimensions hold size 1 and offset 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    pub work_dim: u32,
    pub global: [u64; 3],
    pub local: [u64; 3],
    pub global_offset: [u64; 3],
}

const DIM_NAMES: [char; 3] = ['x', 'y', 'z'];

impl Grid {
    /// Checks the sizes: 1 to 3 dimensions, the same number in each list,
    /// none 0, every global size a multiple of the local size.
    pub fn new(global: &[u64], local: &[u64], global_offset: Option<&[u64]>) -> Result<Grid, String> {
        let work_dim = global.len();
        if !(1..=3).contains(&work_dim) {
            return Err(format!("--global has {work_dim} dimensions; 1 to 3 are allowed"));
        }
        if local.len() != work_dim {
            return Err(format!(
                "--global has {work_dim} dimension{} but --local has {}",
                if work_dim == 1 { "" } else { "s" },
                local.len()
            ));
        }
        if let Some(o) = global_offset {
            if o.len() != work_dim {
                return Err(format!("--global has {work_dim} dimension(s) but --global-offset has {}", o.len()));
            }
        }
        let mut g = Grid { work_dim: work_dim as u32, global: [1; 3], local: [1; 3], global_offset: [0; 3] };
        for d in 0..work_dim {
            let axis = DIM_NAMES[d];
            if global[d] == 0 {
                return Err(format!("global size is 0 in dimension {d} ({axis})"));
            }
            if local[d] == 0 {
                return Err(format!("local size is 0 in dimension {d} ({axis})"));
            }
            if global[d] % local[d] != 0 {
                return Err(format!("global size {} is not a multiple of local size {} in dimension {d} ({axis})", global[d], local[d]));
            }
            g.global[d] = global[d];
            g.local[d] = local[d];
            if let Some(o) = global_offset {
                g.global_offset[d] = o[d];
            }
        }
        let items = g.local.iter().try_fold(1u64, |a, &b| a.checked_mul(b));
        let total = g.global.iter().try_fold(1u64, |a, &b| a.checked_mul(b));
        if items.is_none() || total.is_none() {
            return Err("the launch has more than 2^64 work-items".into());
        }
        for d in 0..3 {
            if g.global_offset[d].checked_add(g.global[d]).is_none() {
                return Err(format!("global offset + global size overflows in dimension {d} ({})", DIM_NAMES[d]));
            }
        }
        Ok(g)
    }

    /// Work-groups per dimension.
    pub fn num_groups(&self) -> [u64; 3] {
        [0, 1, 2].map(|d| self.global[d] / self.local[d])
    }

    pub fn total_groups(&self) -> u64 {
        self.num_groups().iter().product()
    }

    pub fn items_per_group(&self) -> u64 {
        self.local.iter().product()
    }

    /// Work-items in the launch.
    pub fn total_items(&self) -> u64 {
        self.global.iter().product()
    }

    /// The id of the work-group with linear index `linear` (x varies fastest).
    pub fn group_id(&self, linear: u64) -> [u64; 3] {
        let n = self.num_groups();
        [linear % n[0], (linear / n[0]) % n[1], linear / (n[0] * n[1])]
    }
}

/// Parses `X[,Y[,Z]]`.
pub fn parse_dims(text: &str) -> Result<Vec<u64>, String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() > 3 {
        return Err(format!("'{text}' has {} dimensions; 1 to 3 are allowed", parts.len()));
    }
    parts.iter().map(|p| parse_u64(p).map_err(|_| format!("'{p}' in '{text}' is not a whole number"))).collect()
}

// ---------------------------------------------------------------------------
// Launch and run options

/// What to run: engine-independent.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    pub module: PathBuf,
    /// `None`: the module's only kernel.
    pub kernel: Option<String>,
    pub grid: Grid,
    /// In kernel-parameter order.
    pub args: Vec<ArgSpec>,
}

/// Which engine runs the launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The host CPU: the kernel compiled to work-group functions (wg_abi).
    Host,
    /// The SIMT emulator: warps in lockstep, a reconvergence policy.
    Emu,
    /// An NVIDIA GPU through the CUDA driver (PTX), where one is present.
    Gpu,
}

impl Engine {
    pub const ALL: [Engine; 3] = [Engine::Host, Engine::Emu, Engine::Gpu];

    pub fn name(self) -> &'static str {
        match self {
            Engine::Host => "host",
            Engine::Emu => "emu",
            Engine::Gpu => "gpu",
        }
    }

    pub fn parse(s: &str) -> Option<Engine> {
        Engine::ALL.into_iter().find(|e| e.name() == s)
    }
}

/// How the SIMT emulator (`--engine emu`) reconverges the lanes of a warp
/// after a divergent branch (`--policy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// A reconvergence stack: the paths of a divergent branch run one after
    /// the other and meet again at the branch's immediate post-dominator.
    Ipdom,
    /// Seed 000's run side: at convergence checks (`@simt.converge` markers,
    /// or joins and loop exits when there are none) the group of lanes whose
    /// next instruction is earliest in PC order runs; lanes at one PC merge.
    Markers,
    /// No reconvergence: each path runs to the end (or a barrier) alone.
    None,
}

impl Policy {
    pub const ALL: [Policy; 3] = [Policy::Ipdom, Policy::Markers, Policy::None];

    pub fn name(self) -> &'static str {
        match self {
            Policy::Ipdom => "ipdom",
            Policy::Markers => "markers",
            Policy::None => "none",
        }
    }

    pub fn parse(s: &str) -> Option<Policy> {
        Policy::ALL.into_iter().find(|p| p.name() == s)
    }
}

pub const DEFAULT_WARP_WIDTH: u32 = 32;
/// Lane masks are 64-bit words.
pub const MAX_WARP_WIDTH: u32 = 64;

/// `--stats`: a human summary on stderr, or one JSON object on stdout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatsFormat {
    Text,
    Json,
}

/// How to run it.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOptions {
    pub engine: Engine,
    /// Runs of the launch (buffers are filled once).
    pub repeat: u32,
    /// Host engine: work-groups interleaved in balanced loop groups (seed 001; 1 = off).
    pub interleave: u32,
    /// Bytes of local memory (static + __local arguments) allowed per work-group.
    pub local_mem_limit: u64,
    pub dump: Option<PathBuf>,
    pub compare: Option<PathBuf>,
    /// Float comparison tolerance in ULPs.
    pub tolerance: u64,
    pub stats: StatsFormat,
    /// Emulator: reconvergence policy.
    pub policy: Policy,
    /// Emulator: lanes per warp (1 to 64).
    pub warp_width: u32,
    /// Emulator: write what each warp's lane groups do to this file
    /// (`--trace`; the first run of the launch).
    pub trace: Option<PathBuf>,
    /// Host engine: link the kernel object with the system linker and load
    /// it (ahead of time) instead of using the JIT.
    pub aot: bool,
    /// Emulator: check the uniformity analysis at run time
    /// (`--check-uniformity`, `simt-check-uniformity`).
    pub check_uniformity: bool,
    /// Emulator: `--check LIST` (races, uninit, bounds, barriers, uniformity, all).
    pub check: crate::engine::emu::check::Checks,
}

pub const DEFAULT_LOCAL_MEM_LIMIT: u64 = 256 * 1024;

// ---------------------------------------------------------------------------
// Settings: key = value pairs from a launch file and the command line

/// Keys of the launch file; the long flag names.
pub const KEYS: &[&str] = &[
    "module",
    "kernel",
    "global",
    "local",
    "global-offset",
    "arg",
    "repeat",
    "engine",
    "interleave",
    "local-mem-limit",
    "dump",
    "compare",
    "tolerance",
    "stats",
    "policy",
    "warp-width",
    "aot",
    "trace",
    "check-uniformity",
    "check",
];

/// Where a setting came from, for messages and relative paths.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    CommandLine,
    File { path: PathBuf, line: usize },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    pub value: String,
    pub origin: Origin,
}

impl Setting {
    /// `--key 'value'` or `FILE:LINE: key 'value'`: the prefix of a message.
    fn describe(&self, key: &str) -> String {
        match &self.origin {
            Origin::CommandLine => format!("error: --{key} '{}'", self.value),
            Origin::File { path, line } => format!("{}:{line}: error: {key} '{}'", path.display(), self.value),
        }
    }

    fn usage(&self, key: &str, why: impl fmt::Display) -> ToolError {
        ToolError::Usage(format!("{}: {why}", self.describe(key)))
    }

    fn base_dir(&self) -> Option<PathBuf> {
        match &self.origin {
            Origin::CommandLine => None,
            Origin::File { path, .. } => Some(path.parent().map(Path::to_path_buf).unwrap_or_default()),
        }
    }

    fn path(&self) -> PathBuf {
        let p = PathBuf::from(&self.value);
        match self.base_dir() {
            Some(dir) if p.is_relative() => dir.join(p),
            _ => p,
        }
    }
}

/// Raw settings, before they are checked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    values: BTreeMap<&'static str, Setting>,
    args: Vec<Setting>,
}

fn canonical_key(key: &str) -> Option<&'static str> {
    let k = key.trim().replace('_', "-");
    KEYS.iter().copied().find(|&known| known == k)
}

impl Settings {
    pub fn new() -> Settings {
        Settings::default()
    }

    /// Sets `key` (`arg` appends). `key` may use `_` for `-`.
    pub fn set(&mut self, key: &str, value: &str, origin: Origin) -> Result<(), String> {
        let k = canonical_key(key).ok_or_else(|| format!("unknown key '{key}' (keys: {})", KEYS.join(", ")))?;
        let s = Setting { value: value.trim().to_string(), origin };
        if k == "arg" {
            self.args.push(s);
        } else {
            self.values.insert(k, s);
        }
        Ok(())
    }

    pub fn get(&self, key: &str) -> Option<&Setting> {
        canonical_key(key).and_then(|k| self.values.get(k))
    }

    pub fn args(&self) -> &[Setting] {
        &self.args
    }

    /// Reads a launch file: an I/O error if it cannot be read, a usage error
    /// naming the line if it is malformed.
    pub fn from_launch_file(path: &Path) -> Result<Settings, ToolError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ToolError::Io { path: path.display().to_string(), message: format!("cannot read launch file: {e}") })?;
        Settings::from_launch_text(&text, path)
    }

    /// Parses launch-file text; `path` names it in messages and anchors relative paths.
    pub fn from_launch_text(text: &str, path: &Path) -> Result<Settings, ToolError> {
        let mut s = Settings::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let content = strip_comment(raw).trim();
            if content.is_empty() {
                continue;
            }
            let err = |why: String| ToolError::Usage(format!("{}:{line}: error: {why}", path.display()));
            let (key, value) = content.split_once('=').ok_or_else(|| err(format!("expected 'key = value', found '{content}'")))?;
            let (key, value) = (key.trim(), value.trim());
            if key.is_empty() {
                return Err(err(format!("missing key before '=' in '{content}'")));
            }
            if value.is_empty() {
                return Err(err(format!("missing value for '{key}'")));
            }
            s.set(key, value, Origin::File { path: path.to_path_buf(), line }).map_err(err)?;
        }
        Ok(s)
    }

    /// Applies `over` on top of `self`: its keys replace ours, and its `arg`s,
    /// if it has any, replace all of ours.
    pub fn override_with(&mut self, over: Settings) {
        self.values.extend(over.values);
        if !over.args.is_empty() {
            self.args = over.args;
        }
    }

    /// Checks everything and builds the launch and the run options.
    pub fn resolve(&self) -> Result<(Launch, RunOptions), ToolError> {
        // `-` (standard input) is no path, in a launch file either.
        let module = self
            .get("module")
            .map(|s| if s.value == "-" { PathBuf::from("-") } else { s.path() })
            .ok_or_else(|| ToolError::Usage("error: no input module (give KERNEL.ll, or `module = …` in a --launch file)".into()))?;
        let kernel = self.get("kernel").map(|s| s.value.clone());
        let dims = |key: &str| -> Result<Option<Vec<u64>>, ToolError> {
            self.get(key).map(|s| parse_dims(&s.value).map_err(|e| s.usage(key, e))).transpose()
        };
        let required = |key: &str| ToolError::Usage(format!("error: --{key} is required (or `{key} = …` in a --launch file)"));
        let global = dims("global")?.ok_or_else(|| required("global"))?;
        let local = dims("local")?.ok_or_else(|| required("local"))?;
        let offset = dims("global-offset")?;
        let grid = Grid::new(&global, &local, offset.as_deref()).map_err(|e| {
            // Name where the sizes came from when it was a launch file.
            let from = ["global", "local", "global-offset"].iter().filter_map(|k| self.get(k)).find_map(|s| match &s.origin {
                Origin::File { path, .. } => Some(path.display().to_string()),
                Origin::CommandLine => None,
            });
            ToolError::Usage(match from {
                Some(p) => format!("{p}: error: {e}"),
                None => format!("error: {e}"),
            })
        })?;
        let args = self
            .args
            .iter()
            .enumerate()
            .map(|(i, s)| ArgSpec::parse(&s.value, s.base_dir().as_deref()).map_err(|e| s.usage("arg", format!("argument {i}: {e}"))))
            .collect::<Result<Vec<_>, _>>()?;

        let engine = match self.get("engine") {
            // A checker runs on the emulator: `--check` alone picks it.
            None if self.get("check").is_some() => Engine::Emu,
            None => Engine::Host,
            Some(s) => Engine::parse(&s.value)
                .ok_or_else(|| s.usage("engine", format!("unknown engine (available: {})", Engine::ALL.map(Engine::name).join(", "))))?,
        };
        let positive = |key: &str, default: u32| -> Result<u32, ToolError> {
            match self.get(key) {
                None => Ok(default),
                Some(s) => match parse_u64(&s.value) {
                    Ok(v) if v >= 1 && v <= u32::MAX as u64 => Ok(v as u32),
                    _ => Err(s.usage(key, "expected a whole number from 1 to 4294967295")),
                },
            }
        };
        let repeat = positive("repeat", 1)?;
        let interleave = positive("interleave", 1)?;
        let local_mem_limit = match self.get("local-mem-limit") {
            None => DEFAULT_LOCAL_MEM_LIMIT,
            Some(s) => parse_bytes(&s.value).map_err(|e| s.usage("local-mem-limit", e))?,
        };
        let tolerance = match self.get("tolerance") {
            None => 0,
            Some(s) => parse_u64(&s.value).map_err(|_| s.usage("tolerance", "expected a whole number of ULPs"))?,
        };
        let stats = match self.get("stats").map(|s| (s, s.value.as_str())) {
            None | Some((_, "text")) => StatsFormat::Text,
            Some((_, "json")) => StatsFormat::Json,
            Some((s, _)) => return Err(s.usage("stats", "expected 'json' or 'text'")),
        };
        let policy = match self.get("policy") {
            None => Policy::Ipdom,
            Some(s) => Policy::parse(&s.value)
                .ok_or_else(|| s.usage("policy", format!("unknown policy (available: {})", Policy::ALL.map(Policy::name).join(", "))))?,
        };
        let warp_width = match self.get("warp-width") {
            None => DEFAULT_WARP_WIDTH,
            Some(s) => match parse_u64(&s.value) {
                Ok(v) if (1..=MAX_WARP_WIDTH as u64).contains(&v) => v as u32,
                _ => return Err(s.usage("warp-width", format!("expected a whole number from 1 to {MAX_WARP_WIDTH}"))),
            },
        };
        let aot = match self.get("aot").map(|s| (s, s.value.as_str())) {
            None | Some((_, "false")) => false,
            Some((_, "true")) => true,
            Some((s, _)) => return Err(s.usage("aot", "expected 'true' or 'false'")),
        };
        let check = match self.get("check") {
            None => crate::engine::emu::check::Checks::default(),
            Some(s) => crate::engine::emu::check::Checks::parse(&s.value).map_err(|e| s.usage("check", e))?,
        };
        if let (Some(s), false) = (self.get("check"), engine == Engine::Emu) {
            return Err(s.usage(
                "check",
                format!("the checks watch the emulator's work-items: they need --engine emu (the engine is {})", engine.name()),
            ));
        }
        let check_uniformity = match self.get("check-uniformity").map(|s| (s, s.value.as_str())) {
            None | Some((_, "false")) => check.uniformity,
            Some((_, "true")) => true,
            Some((s, _)) => return Err(s.usage("check-uniformity", "expected 'true' or 'false'")),
        };
        if let (Some(s), true, false) = (self.get("check-uniformity"), check_uniformity, engine == Engine::Emu) {
            return Err(s.usage(
                "check-uniformity",
                format!(
                    "the uniformity check compares the lanes of the emulator's warps: it needs --engine emu (the engine is {})",
                    engine.name()
                ),
            ));
        }
        let trace = self.get("trace").map(Setting::path);
        if let (Some(s), false) = (self.get("trace"), engine == Engine::Emu) {
            return Err(s.usage(
                "trace",
                format!("a trace shows the lanes of the emulator's warps: it needs --engine emu (the engine is {})", engine.name()),
            ));
        }
        Ok((
            Launch { module, kernel, grid, args },
            RunOptions {
                aot,
                engine,
                repeat,
                interleave,
                local_mem_limit,
                dump: self.get("dump").map(Setting::path),
                compare: self.get("compare").map(Setting::path),
                tolerance,
                stats,
                policy,
                warp_width,
                trace,
                check_uniformity,
                check,
            },
        ))
    }
}

/// Drops a `#` comment: one at the start of the line or after whitespace,
/// so `file:a#b` keeps its `#`.
fn strip_comment(line: &str) -> &str {
    let bytes = line.as_bytes();
    for (i, &c) in bytes.iter().enumerate() {
        if c == b'#' && (i == 0 || bytes[i - 1].is_ascii_whitespace()) {
            return &line[..i];
        }
    }
    line
}

/// Parses a byte count: `65536`, `64K`, `64KiB`, `1M`, `1MiB` (K = 1024).
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit() && c != '_').unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n = parse_u64(num).map_err(|_| format!("'{t}' is not a byte count (e.g. 65536, 64K, 1MiB)"))?;
    let mult: u64 = match unit.trim() {
        "" | "B" => 1,
        "K" | "k" | "KiB" | "KB" => 1 << 10,
        "M" | "MiB" | "MB" => 1 << 20,
        "G" | "GiB" | "GB" => 1 << 30,
        u => return Err(format!("unknown unit '{u}' in '{t}' (use K, M or G; K = 1024)")),
    };
    n.checked_mul(mult).ok_or_else(|| format!("'{t}' is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arg(t: &str) -> Result<ArgSpec, String> {
        ArgSpec::parse(t, None)
    }

    #[test]
    fn scalar_types() {
        for t in ScalarType::ALL {
            assert_eq!(ScalarType::parse(t.name()), Some(t));
            assert_eq!(t.size() * 8, t.bits() as usize);
        }
        assert_eq!(ScalarType::parse("f16"), None);
        assert!(ScalarType::F64.is_float() && !ScalarType::U8.is_float());
        assert!(ScalarType::I16.is_signed() && !ScalarType::U16.is_signed());
    }

    #[test]
    fn buffer_forms() {
        assert_eq!(arg("buf:f32:16").unwrap(), ArgSpec::Buffer { ty: ScalarType::F32, count: 16, fill: Fill::Zero });
        assert_eq!(arg("buf:u8:3=zero").unwrap(), ArgSpec::Buffer { ty: ScalarType::U8, count: 3, fill: Fill::Zero });
        assert_eq!(arg("buf:i64:8=ramp").unwrap(), ArgSpec::Buffer { ty: ScalarType::I64, count: 8, fill: Fill::Ramp });
        assert_eq!(
            arg("buf:f64:2=const:-1.5").unwrap(),
            ArgSpec::Buffer { ty: ScalarType::F64, count: 2, fill: Fill::Const(Scalar::parse(ScalarType::F64, "-1.5").unwrap()) }
        );
        assert_eq!(arg("buf:i16:4=rand:42").unwrap(), ArgSpec::Buffer { ty: ScalarType::I16, count: 4, fill: Fill::Rand(42) });
        assert_eq!(
            arg("buf:u32:4=file:in/a.bin").unwrap(),
            ArgSpec::Buffer { ty: ScalarType::U32, count: 4, fill: Fill::File("in/a.bin".into()) }
        );
        // Relative file paths follow the base folder; absolute ones do not.
        assert_eq!(
            ArgSpec::parse("buf:u32:4=file:a.bin", Some(Path::new("/x/y"))).unwrap(),
            ArgSpec::Buffer { ty: ScalarType::U32, count: 4, fill: Fill::File("/x/y/a.bin".into()) }
        );
        assert_eq!(
            ArgSpec::parse("buf:u32:4=file:/abs.bin", Some(Path::new("/x/y"))).unwrap(),
            ArgSpec::Buffer { ty: ScalarType::U32, count: 4, fill: Fill::File("/abs.bin".into()) }
        );
        assert_eq!(arg("buf:u32:0x10").unwrap().bytes(), 64);
    }

    #[test]
    fn scalar_and_local_forms() {
        assert_eq!(arg("i32:-3").unwrap(), ArgSpec::Scalar(Scalar::from_bits(ScalarType::I32, (-3i32) as u32 as u64)));
        assert_eq!(arg("u32:0xff").unwrap(), ArgSpec::Scalar(Scalar::from_bits(ScalarType::U32, 255)));
        assert_eq!(arg("f32:0.5").unwrap(), ArgSpec::Scalar(Scalar::from_bits(ScalarType::F32, 0.5f32.to_bits() as u64)));
        assert_eq!(arg("f64:1e-3").unwrap(), ArgSpec::Scalar(Scalar::from_bits(ScalarType::F64, 1e-3f64.to_bits())));
        assert_eq!(arg("local:f32:256").unwrap(), ArgSpec::Local { ty: ScalarType::F32, count: 256 });
        assert_eq!(arg("local:f32:256").unwrap().bytes(), 1024);
        match arg("i8:-128").unwrap() {
            ArgSpec::Scalar(s) => assert_eq!(s.as_bytes(), &[0x80]),
            other => panic!("{other:?}"),
        }
        match arg("i64:-1").unwrap() {
            ArgSpec::Scalar(s) => assert_eq!(s.as_bytes(), &[0xff; 8]),
            other => panic!("{other:?}"),
        }
        match arg("u16:65535").unwrap() {
            ArgSpec::Scalar(s) => assert_eq!(s.as_bytes(), &[0xff, 0xff]),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn display_round_trips() {
        for t in [
            "buf:f32:16",
            "buf:i64:8=ramp",
            "buf:u32:4=rand:7",
            "buf:f64:2=const:-1.5",
            "i32:-3",
            "f32:0.5",
            "local:u8:9",
            "buf:u8:1=file:x.bin",
        ] {
            let a = arg(t).unwrap();
            assert_eq!(a.to_string(), t);
            assert_eq!(arg(&a.to_string()).unwrap(), a);
        }
    }

    #[test]
    fn malformed_arguments_say_why() {
        let cases: &[(&str, &str)] = &[
            ("", "empty argument"),
            ("buf", "no ':'"),
            ("buf:f32", "expected buf:TYPE:COUNT"),
            ("buf:f33:4", "unknown element type 'f33'"),
            ("buf:f32:abc", "COUNT 'abc' is not a whole number"),
            ("buf:f32:-1", "COUNT '-1' is not a whole number"),
            ("buf:f32:0", "COUNT must be at least 1"),
            ("buf:f32:4=sine", "unknown fill 'sine'"),
            ("buf:f32:4=const", "fill 'const' needs a value"),
            ("buf:f32:4=const:x", "fill const: 'x' is not an f32 number"),
            ("buf:u8:4=const:256", "out of range for u8"),
            ("buf:f32:4=rand:-1", "SEED '-1' is not a whole number"),
            ("buf:f32:4=rand", "fill 'rand' needs a value"),
            ("buf:f32:4=file:", "fill 'file' needs a value"),
            ("buf:f32:4=ramp:3", "fill 'ramp' takes no value"),
            ("buf:u64:99999999999999999", "more than the 1 TiB limit"),
            ("local:f32:4=zero", "a local argument has no fill"),
            ("local:f32", "expected local:TYPE:COUNT"),
            ("local:bool:3", "unknown element type 'bool'"),
            ("i32:", "missing i32 value"),
            ("i32:1.5", "'1.5' is not an integer"),
            ("i32:2147483648", "out of range for i32"),
            ("u32:-1", "out of range for u32"),
            ("i8:128", "out of range for i8"),
            ("f32:one", "'one' is not an f32 number"),
            ("int:3", "unknown argument kind or type 'int'"),
        ];
        for (text, want) in cases {
            let e = arg(text).expect_err(text);
            assert!(e.contains(want), "{text}: '{e}' lacks '{want}'");
        }
    }

    #[test]
    fn grids() {
        let g = Grid::new(&[64, 8], &[16, 4], None).unwrap();
        assert_eq!(g.work_dim, 2);
        assert_eq!(g.num_groups(), [4, 2, 1]);
        assert_eq!(g.total_groups(), 8);
        assert_eq!(g.items_per_group(), 64);
        assert_eq!(g.total_items(), 512);
        assert_eq!(g.group_id(0), [0, 0, 0]);
        assert_eq!(g.group_id(5), [1, 1, 0]);
        let g3 = Grid::new(&[4, 6, 10], &[2, 3, 5], Some(&[1, 2, 3])).unwrap();
        assert_eq!(g3.num_groups(), [2, 2, 2]);
        assert_eq!(g3.group_id(7), [1, 1, 1]);
        assert_eq!(g3.global_offset, [1, 2, 3]);
        // Every linear index maps to a distinct id inside the grid.
        let mut seen = std::collections::HashSet::new();
        for i in 0..g3.total_groups() {
            let id = g3.group_id(i);
            assert!((0..3).all(|d| id[d] < g3.num_groups()[d]));
            assert!(seen.insert(id));
        }
    }

    #[test]
    fn grid_errors_name_the_dimension() {
        let e = Grid::new(&[64, 10], &[16, 4], None).unwrap_err();
        assert!(e.contains("global size 10 is not a multiple of local size 4 in dimension 1 (y)"), "{e}");
        let e = Grid::new(&[64, 8], &[16], None).unwrap_err();
        assert!(e.contains("--global has 2 dimensions but --local has 1"), "{e}");
        let e = Grid::new(&[64, 0], &[16, 1], None).unwrap_err();
        assert!(e.contains("global size is 0 in dimension 1 (y)"), "{e}");
        let e = Grid::new(&[64], &[0], None).unwrap_err();
        assert!(e.contains("local size is 0 in dimension 0 (x)"), "{e}");
        let e = Grid::new(&[64], &[16], Some(&[1, 2])).unwrap_err();
        assert!(e.contains("--global-offset has 2"), "{e}");
        assert!(parse_dims("1,2,3,4").unwrap_err().contains("4 dimensions"));
        assert!(parse_dims("1,x").unwrap_err().contains("'x'"));
        assert!(parse_dims("").is_err());
        assert_eq!(parse_dims(" 8, 4 ").unwrap(), vec![8, 4]);
        let e = Grid::new(&[1 << 32, 1 << 32, 1 << 32], &[1, 1, 1], None).unwrap_err();
        assert!(e.contains("2^64"), "{e}");
    }

    #[test]
    fn byte_counts() {
        assert_eq!(parse_bytes("65536").unwrap(), 65536);
        assert_eq!(parse_bytes("64K").unwrap(), 65536);
        assert_eq!(parse_bytes("64KiB").unwrap(), 65536);
        assert_eq!(parse_bytes("1M").unwrap(), 1 << 20);
        assert!(parse_bytes("12Q").unwrap_err().contains("unknown unit"));
        assert!(parse_bytes("K").is_err());
    }

    fn cli(pairs: &[(&str, &str)]) -> Settings {
        let mut s = Settings::new();
        for (k, v) in pairs {
            s.set(k, v, Origin::CommandLine).unwrap();
        }
        s
    }

    #[test]
    fn resolve_defaults_and_values() {
        let (l, o) =
            cli(&[("module", "k.ll"), ("global", "1024"), ("local", "64"), ("arg", "buf:f32:1024"), ("arg", "i32:5")]).resolve().unwrap();
        assert_eq!(l.module, PathBuf::from("k.ll"));
        assert_eq!(l.kernel, None);
        assert_eq!(l.grid.global, [1024, 1, 1]);
        assert_eq!(l.args.len(), 2);
        assert_eq!(
            o,
            RunOptions {
                engine: Engine::Host,
                repeat: 1,
                interleave: 1,
                local_mem_limit: DEFAULT_LOCAL_MEM_LIMIT,
                dump: None,
                compare: None,
                tolerance: 0,
                stats: StatsFormat::Text,
                policy: Policy::Ipdom,
                warp_width: DEFAULT_WARP_WIDTH,
                aot: false,
                trace: None,
                check_uniformity: false,
                check: Default::default(),
            }
        );
        let (_, o) = cli(&[
            ("module", "k.ll"),
            ("global", "8"),
            ("local", "8"),
            ("repeat", "5"),
            ("interleave", "4"),
            ("local-mem-limit", "32K"),
            ("dump", "out"),
            ("compare", "ref"),
            ("tolerance", "2"),
            ("stats", "json"),
            ("engine", "emu"),
            ("policy", "markers"),
            ("warp-width", "16"),
            ("trace", "t.txt"),
        ])
        .resolve()
        .unwrap();
        assert_eq!(o.trace, Some(PathBuf::from("t.txt")));
        assert_eq!(o.engine, Engine::Emu);
        assert_eq!(o.policy, Policy::Markers);
        assert_eq!(o.warp_width, 16);
        assert_eq!(o.repeat, 5);
        assert_eq!(o.interleave, 4);
        assert_eq!(o.local_mem_limit, 32768);
        assert_eq!(o.dump, Some(PathBuf::from("out")));
        assert_eq!(o.compare, Some(PathBuf::from("ref")));
        assert_eq!(o.tolerance, 2);
        assert_eq!(o.stats, StatsFormat::Json);
    }

    fn usage_of(r: Result<(Launch, RunOptions), ToolError>) -> String {
        match r {
            Err(ToolError::Usage(m)) => m,
            Err(other) => panic!("not a usage error: {other}"),
            Ok(_) => panic!("accepted"),
        }
    }

    #[test]
    fn resolve_errors_are_usage_errors() {
        let base = [("module", "k.ll"), ("global", "8"), ("local", "4")];
        let with = |extra: &[(&str, &str)]| {
            let mut v = base.to_vec();
            v.extend_from_slice(extra);
            cli(&v).resolve()
        };
        assert!(usage_of(cli(&[("global", "8"), ("local", "4")]).resolve()).contains("no input module"));
        assert!(usage_of(cli(&[("module", "k.ll"), ("local", "4")]).resolve()).contains("--global is required"));
        assert!(usage_of(cli(&[("module", "k.ll"), ("global", "4")]).resolve()).contains("--local is required"));
        assert!(usage_of(with(&[("local", "3")])).contains("not a multiple of local size 3 in dimension 0 (x)"));
        assert!(usage_of(with(&[("arg", "i32:1"), ("arg", "buf:q:1")])).contains("--arg 'buf:q:1': argument 1: unknown element type 'q'"));
        assert!(usage_of(with(&[("repeat", "0")])).contains("--repeat '0'"));
        assert!(usage_of(with(&[("interleave", "x")])).contains("--interleave 'x'"));
        assert!(usage_of(with(&[("engine", "fpga")])).contains("unknown engine (available: host, emu, gpu)"));
        assert!(usage_of(with(&[("policy", "simd")])).contains("--policy 'simd': unknown policy (available: ipdom, markers, none)"));
        assert!(usage_of(with(&[("warp-width", "65")])).contains("--warp-width '65': expected a whole number from 1 to 64"));
        assert!(usage_of(with(&[("warp-width", "0")])).contains("--warp-width '0'"));
        assert!(usage_of(with(&[("stats", "yaml")])).contains("expected 'json' or 'text'"));
        assert!(usage_of(with(&[("trace", "t.txt")]))
            .contains("--trace 't.txt': a trace shows the lanes of the emulator's warps: it needs --engine emu (the engine is host)"));
        assert!(usage_of(with(&[("trace", "t.txt"), ("engine", "gpu")])).contains("(the engine is gpu)"));
        assert!(usage_of(with(&[("tolerance", "-1")])).contains("--tolerance"));
        assert!(usage_of(with(&[("local-mem-limit", "lots")])).contains("--local-mem-limit"));
        assert!(usage_of(with(&[("global", "8,8")])).contains("--global has 2 dimensions but --local has 1"));
        assert!(Settings::new().set("colour", "red", Origin::CommandLine).unwrap_err().contains("unknown key 'colour'"));
    }

    #[test]
    fn launch_file_parsing() {
        let text = "\
# a launch file
module = vadd.ll
kernel=vadd   # trailing comment
global = 1024, 2
local = 64,2
global_offset = 0,0
arg = buf:f32:2048=rand:1
arg = buf:f32:2048=file:data/b.bin
arg = u32:2048

repeat = 3
dump = out
";
        let s = Settings::from_launch_text(text, Path::new("/runs/v.launch")).unwrap();
        assert_eq!(s.get("kernel").unwrap().value, "vadd");
        assert_eq!(s.get("kernel").unwrap().origin, Origin::File { path: "/runs/v.launch".into(), line: 3 });
        assert_eq!(s.args().len(), 3);
        let (l, o) = s.resolve().unwrap();
        assert_eq!(l.module, PathBuf::from("/runs/vadd.ll"));
        assert_eq!(l.kernel.as_deref(), Some("vadd"));
        assert_eq!(l.grid.global, [1024, 2, 1]);
        assert_eq!(l.grid.local, [64, 2, 1]);
        assert_eq!(l.args[1], ArgSpec::Buffer { ty: ScalarType::F32, count: 2048, fill: Fill::File("/runs/data/b.bin".into()) });
        assert_eq!(o.repeat, 3);
        assert_eq!(o.dump, Some(PathBuf::from("/runs/out")));
    }

    #[test]
    fn launch_file_errors_name_the_line() {
        let p = Path::new("bad.launch");
        let msg = |text: &str| match Settings::from_launch_text(text, p) {
            Err(ToolError::Usage(m)) => m,
            other => panic!("{other:?}"),
        };
        assert_eq!(msg("kernel = k\nglobal 64\n"), "bad.launch:2: error: expected 'key = value', found 'global 64'");
        assert!(msg("colour = red").starts_with("bad.launch:1: error: unknown key 'colour'"));
        assert_eq!(msg("\n\nkernel =\n"), "bad.launch:3: error: missing value for 'kernel'");
        assert_eq!(msg("= 3"), "bad.launch:1: error: missing key before '=' in '= 3'");
        // Values are checked when resolved, still naming the line.
        let s = Settings::from_launch_text("module = k.ll\nglobal = 8\nlocal = 8\narg = buf:f32:x\n", p).unwrap();
        assert!(usage_of(s.resolve()).starts_with("bad.launch:4: error: arg 'buf:f32:x': argument 0: COUNT 'x'"));
        let s = Settings::from_launch_text("module = k.ll\nglobal = 8\nlocal = 3\n", p).unwrap();
        assert!(usage_of(s.resolve()).starts_with("bad.launch: error: global size 8 is not a multiple"));
        match Settings::from_launch_file(Path::new("/nonexistent/x.launch")) {
            Err(ToolError::Io { path, message }) => {
                assert_eq!(path, "/nonexistent/x.launch");
                assert!(message.contains("cannot read launch file"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn command_line_overrides_the_file() {
        let mut s = Settings::from_launch_text(
            "module = k.ll\nkernel = a\nglobal = 64\nlocal = 8\nrepeat = 2\narg = buf:f32:64\narg = i32:1\n",
            Path::new("d/k.launch"),
        )
        .unwrap();
        // No --arg on the command line: the file's args stay.
        let mut s2 = s.clone();
        s2.override_with(cli(&[("kernel", "b"), ("local", "16")]));
        let (l, o) = s2.resolve().unwrap();
        assert_eq!(l.kernel.as_deref(), Some("b"));
        assert_eq!(l.grid.local, [16, 1, 1]);
        assert_eq!(l.grid.global, [64, 1, 1]);
        assert_eq!(o.repeat, 2);
        assert_eq!(l.args.len(), 2);
        assert_eq!(l.module, PathBuf::from("d/k.ll"));
        // Any --arg replaces all of the file's.
        s.override_with(cli(&[("arg", "u8:7"), ("module", "other.ll")]));
        let (l, _) = s.resolve().unwrap();
        assert_eq!(l.args, vec![ArgSpec::Scalar(Scalar::from_bits(ScalarType::U8, 7))]);
        assert_eq!(l.module, PathBuf::from("other.ll"));
    }

    #[test]
    fn comments() {
        assert_eq!(strip_comment("# all"), "");
        assert_eq!(strip_comment("a = 1 # c"), "a = 1 ");
        assert_eq!(strip_comment("arg = buf:u8:1=file:a#b"), "arg = buf:u8:1=file:a#b");
    }
}
