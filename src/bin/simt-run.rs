//! simt-run: runs a SIMT kernel (OpenCL `spir_kernel` or CUDA `ptx_kernel`
//! IR) on this machine: fills the arguments, runs every work-group on all
//! cores, and reports timings, dumps buffers or compares them with reference
//! files.

use clap::Parser;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use simt::buffers::{KernelArgs, LocalLayout};
use simt::diag::{self, report, ToolError};
use simt::input::ModuleInput;
use simt::launch::{Engine, Launch, Origin, RunOptions, Settings, StatsFormat, LAUNCH_HELP};
use simt::runner::{Runner, WgKernel};
use simt::stats::RunStats;
use simt::{kernel_sig, llvm_init};
use std::io::IsTerminal;
use std::path::Path;
use std::time::Instant;

const TOOL: &str = "simt-run";

/// Launches with at least this many work-groups (over all runs) get a
/// progress bar, when stderr is a terminal.
const PROGRESS_MIN_GROUPS: u64 = 1 << 14;

#[derive(Parser, Debug)]
#[command(
    name = TOOL,
    version = simt::version(),
    about = "Run a SIMT kernel (OpenCL or CUDA LLVM IR) on this machine's cores",
    override_usage = "simt-run KERNEL.ll --kernel NAME --global X[,Y,Z] --local X[,Y,Z] --arg SPEC... [OPTIONS]\n       simt-run --launch FILE [KERNEL.ll] [OPTIONS]",
    after_help = LAUNCH_HELP
)]
struct Cli {
    /// The module (.ll or .bc) holding the kernel; `-` reads standard input
    /// (read once, so a pipe or FIFO works too).
    #[arg(value_name = "KERNEL.ll")]
    module: Option<String>,
    /// Kernel to run (default: the module's only kernel). A C++ kernel's
    /// plain name finds its mangled one (saxpy → _Z5saxpyifPKfPf).
    #[arg(long, value_name = "NAME")]
    kernel: Option<String>,
    /// Global size: work-items per dimension, 1 to 3 dimensions.
    #[arg(long, value_name = "X[,Y,Z]")]
    global: Option<String>,
    /// Local size: work-items per work-group; must divide the global size.
    #[arg(long, value_name = "X[,Y,Z]")]
    local: Option<String>,
    /// Global offset (get_global_offset); default 0.
    #[arg(long = "global-offset", value_name = "X[,Y,Z]")]
    global_offset: Option<String>,
    /// One kernel argument, in parameter order (repeat): buf:TYPE:COUNT[=FILL],
    /// local:TYPE:COUNT or TYPE:VALUE. See below.
    #[arg(long = "arg", value_name = "SPEC", allow_hyphen_values = true)]
    args: Vec<String>,
    /// Read `key = value` settings from FILE; flags override them. See below.
    #[arg(long, value_name = "FILE")]
    launch: Option<String>,
    /// Engine that runs the kernel: host (this CPU), emu (the SIMT emulator)
    /// or gpu (an NVIDIA GPU; exits with 3 where none is present).
    #[arg(long, value_name = "host|emu|gpu")]
    engine: Option<String>,
    /// Host engine: link the kernel object with the system linker and load
    /// it, instead of the JIT (same object, same results).
    #[arg(long)]
    aot: bool,
    /// Run the launch N times (buffers filled once) and report best/median.
    #[arg(long, value_name = "N")]
    repeat: Option<String>,
    /// `json`: print one JSON object of timings and sizes on stdout.
    #[arg(long, value_name = "json|text")]
    stats: Option<String>,
    /// Write each buffer argument after the last run to DIR/argN.bin. DIR may
    /// not be the --compare folder, however spelt (exit 2).
    #[arg(long, value_name = "DIR")]
    dump: Option<String>,
    /// Compare each buffer argument with DIR/argN.bin, where present. The
    /// files are read, and their sizes checked, before the kernel runs.
    #[arg(long, value_name = "DIR")]
    compare: Option<String>,
    /// Float tolerance of --compare, in ULPs (default 0).
    #[arg(long, value_name = "ULPS")]
    tolerance: Option<String>,
    /// Host engine: work-groups interleaved in balanced loop groups (seed 001; 1 = off).
    #[arg(long, value_name = "N")]
    interleave: Option<String>,
    /// Emulator: reconvergence policy (default ipdom).
    #[arg(long, value_name = "ipdom|markers|none")]
    policy: Option<String>,
    /// Emulator: check at run time that every value the uniformity analysis
    /// calls uniform is the same in all lanes running it together (an error
    /// names the first violation).
    #[arg(long = "check-uniformity")]
    check_uniformity: bool,
    /// Emulator (selected by this flag alone): check the kernel as it runs:
    /// races, uninit, bounds, barriers, uniformity, or all (see below).
    #[arg(long, value_name = "LIST")]
    check: Option<String>,
    /// Emulator: lanes per warp, 1 to 64 (default 32).
    #[arg(long = "warp-width", value_name = "N")]
    warp_width: Option<String>,
    /// Emulator: write a trace of the first run to FILE: a line per block each
    /// lane group of a warp runs and per policy decision, with its lanes.
    #[arg(long, value_name = "FILE")]
    trace: Option<String>,
    /// Local memory allowed per work-group (default 256K); 65536, 64K, 1M.
    #[arg(long = "local-mem-limit", value_name = "BYTES")]
    local_mem_limit: Option<String>,
}

impl Cli {
    /// The command line's settings, for layering over a launch file.
    fn settings(&self) -> Settings {
        let mut s = Settings::new();
        let mut set = |key: &str, v: &Option<String>| {
            if let Some(v) = v {
                s.set(key, v, Origin::CommandLine).expect("a known key");
            }
        };
        set("module", &self.module);
        set("kernel", &self.kernel);
        set("global", &self.global);
        set("local", &self.local);
        set("global-offset", &self.global_offset);
        set("engine", &self.engine);
        set("repeat", &self.repeat);
        set("stats", &self.stats);
        set("dump", &self.dump);
        set("compare", &self.compare);
        set("tolerance", &self.tolerance);
        set("interleave", &self.interleave);
        set("local-mem-limit", &self.local_mem_limit);
        set("policy", &self.policy);
        set("warp-width", &self.warp_width);
        set("trace", &self.trace);
        set("check", &self.check);
        if self.aot {
            s.set("aot", "true", Origin::CommandLine).expect("a known key");
        }
        if self.check_uniformity {
            s.set("check-uniformity", "true", Origin::CommandLine).expect("a known key");
        }
        for a in &self.args {
            s.set("arg", a, Origin::CommandLine).expect("a known key");
        }
        s
    }
}

fn main() {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => diag::exit_for_clap(TOOL, e),
    };
    llvm_init::init();
    simt::guard::set_tool_name(TOOL);
    let code = match run(&cli) {
        Ok(()) => 0,
        Err(e) => report(TOOL, &e),
    };
    std::process::exit(code);
}

fn run(cli: &Cli) -> Result<(), ToolError> {
    let mut settings = match &cli.launch {
        Some(path) => Settings::from_launch_file(Path::new(path))?,
        None => Settings::new(),
    };
    settings.override_with(cli.settings());
    let (launch, opts) = settings.resolve()?;
    if let (Some(dump), Some(compare)) = (&opts.dump, &opts.compare) {
        if simt::buffers::same_folder(dump, compare) {
            return Err(ToolError::Usage(format!(
                "error: --dump {} and --compare {} name the same folder: the dump would overwrite the reference files; dump elsewhere",
                dump.display(),
                compare.display()
            )));
        }
    }

    // The module is read once (it may be a pipe: `-` is stdin), and every
    // parse below starts from these bytes.
    let input = ModuleInput::read(&launch.module)?;
    // Everything that can be checked without compiling, first.
    let sig = kernel_sig::select_kernel(kernel_sig::kernels_in(&input)?, launch.kernel.as_deref(), Path::new(&input.name))?;
    kernel_sig::check_args(&sig, &launch.args)?;
    LocalLayout::new(0, &launch.args).check_limit(&sig.name, opts.local_mem_limit)?;
    let mut args = KernelArgs::new(&launch.args)?;
    // The references are read (and their sizes checked) before the kernel
    // runs, so nothing the run writes can change what it is compared with.
    let references = match &opts.compare {
        Some(dir) => {
            let refs = args.read_references(dir)?;
            let sizes = args.check_reference_sizes(&refs);
            if !sizes.ok() {
                return Err(compare_failed(dir, &sizes));
            }
            Some((dir, refs))
        }
        None => None,
    };

    // Engine-specific fields of `--stats json` and lines of the summary.
    let mut emu_stats = None;
    let stats = match opts.engine {
        Engine::Host => run_host(&input, &launch, &opts, &sig.name, &mut args)?,
        Engine::Gpu => run_gpu(&input, &launch, &opts, &sig.name, &mut args)?,
        Engine::Emu => {
            let (stats, emu) = run_emu(&input, &launch, &opts, &sig.name, &mut args)?;
            emu_stats = Some(emu);
            stats
        }
    };

    let mut notes = Vec::new();
    if let Some(dir) = &opts.dump {
        let files = args.dump(dir)?;
        notes.push(format!("dumped {} buffer(s) to {}", files.len(), dir.display()));
    }
    let compared = references.map(|(dir, refs)| (dir, args.compare_with(&refs, opts.tolerance)));

    match opts.stats {
        StatsFormat::Json => {
            let mut v = stats.to_json();
            if let Some(e) = &emu_stats {
                for (k, x) in e.json_fields() {
                    v[k] = x;
                }
            }
            if let Some((_, r)) = &compared {
                v["compare"] = serde_json::json!({
                    "ok": r.ok(),
                    "buffers": r.compared.len(),
                    "mismatched_buffers": r.mismatches.len(),
                    "tolerance_ulps": r.tolerance_ulps,
                });
            }
            diag::write_stdout(format!("{v}\n").as_bytes())?;
        }
        StatsFormat::Text => {
            let mut lines: Vec<String> = stats.summary().lines().map(String::from).collect();
            if let Some(e) = &emu_stats {
                lines.extend(e.summary().lines().map(String::from));
            }
            lines.extend(notes);
            if let Some((dir, r)) = &compared {
                if r.ok() {
                    lines.push(format!("{} buffer(s) match {} (tolerance {} ULPs)", r.compared.len(), dir.display(), r.tolerance_ulps));
                }
            }
            diag::eprint(&lines.iter().map(|l| format!("{TOOL}: {l}\n")).collect::<String>());
        }
    }
    if let Some(found) = emu_stats.as_ref().and_then(|e| e.check.as_ref()).filter(|f| f.total() > 0) {
        return Err(ToolError::Run(format!("--check found {}", simt::engine::emu::check::report::summary(found))));
    }
    if let Some((dir, r)) = compared {
        if !r.ok() {
            let mut e = compare_failed(dir, &r);
            if !(opts.check.races && opts.check.uninit) {
                if let ToolError::Run(m) = &mut e {
                    m.push_str(
                        "\nhint: results that differ from a reference often come from a data race or an uninitialised read, \
                         which the engines expose differently; run the launch with --engine emu --check all to look for them",
                    );
                }
            }
            return Err(e);
        }
    }
    Ok(())
}

/// The error of a `--compare` that found differences.
fn compare_failed(dir: &Path, r: &simt::buffers::CompareReport) -> ToolError {
    ToolError::Run(format!(
        "{} of {} compared buffer(s) differ from {}:\n{}",
        r.mismatches.len(),
        r.compared.len(),
        dir.display(),
        r.render().trim_end()
    ))
}

/// Decodes the kernel for the SIMT emulator and runs it `opts.repeat` times;
/// the emulator's counters are those of the last run.
fn run_emu(
    input: &ModuleInput,
    launch: &Launch,
    opts: &RunOptions,
    kernel: &str,
    args: &mut KernelArgs,
) -> Result<(RunStats, simt::engine::emu::EmuStats), ToolError> {
    use simt::engine::emu::{self, EmuOptions, EmuStats};
    let k = emu::compile(
        input,
        kernel,
        &EmuOptions {
            policy: opts.policy,
            warp_width: opts.warp_width,
            check_uniformity: if opts.check_uniformity { emu::UniformityCheck::On } else { emu::UniformityCheck::Off },
        },
    )?;
    let p = &k.program;
    LocalLayout::for_args(p.static_local_bytes(), args).check_limit(kernel, opts.local_mem_limit)?;
    let grid = launch.grid;
    let mut kernel_seconds = Vec::with_capacity(opts.repeat as usize);
    let mut last = None;
    let mut found = None;
    for run in 0..opts.repeat {
        let start = Instant::now();
        let (counters, seconds) = if run == 0 && (opts.trace.is_some() || opts.check.watches_memory()) {
            let (result, report) = run_emu_observed(&k, launch, opts, args);
            if opts.check.watches_memory() {
                let text: String = report.reports.iter().map(|r| format!("{TOOL}: {r}\n")).collect();
                diag::eprint(&text);
                found = Some(report.findings);
            }
            result?
        } else {
            emu::run(&k, grid, args)?
        };
        kernel_seconds.push(start.elapsed().as_secs_f64());
        last = Some((counters, seconds));
    }
    let (counters, seconds) = last.expect("repeat is at least 1");
    let emu = EmuStats { check: found, ..EmuStats::new(p, counters, seconds) };
    let mut details = serde_json::Map::new();
    details.insert("policy".into(), opts.policy.name().into());
    details.insert("warp_width".into(), opts.warp_width.into());
    details.insert("warps_per_group".into(), grid.items_per_group().div_ceil(opts.warp_width as u64).into());
    details.insert("registers_per_lane".into(), p.nslots().into());
    details.insert("instructions".into(), p.insts().len().into());
    details.insert("private_bytes_per_item".into(), p.private_bytes().into());
    details.insert("static_local_bytes".into(), p.static_local_bytes().into());
    details.insert("local_mem_bytes".into(), LocalLayout::for_args(p.static_local_bytes(), args).total.into());
    details.insert("barriers".into(), p.barrier_names().len().into());
    details.insert("convergence_markers".into(), p.explicit_markers().into());
    details.insert("check_blocks".into(), p.blocks().iter().filter(|b| b.check).count().into());
    let stats = RunStats {
        engine: Engine::Emu.name().into(),
        kernel: kernel.into(),
        work_dim: grid.work_dim,
        global: grid.global,
        local: grid.local,
        work_groups: grid.total_groups(),
        threads: grid.total_items(),
        compile_seconds: k.compile_seconds,
        kernel_seconds,
        engine_details: details,
    };
    Ok((stats, emu))
}

/// The first run of the emulator, with `--trace PATH` and `--check LIST`.
/// The trace is written, and the findings come back, even when the run
/// fails (they show how it got there).
fn run_emu_observed(
    k: &simt::engine::emu::EmuKernel,
    launch: &Launch,
    opts: &RunOptions,
    args: &mut KernelArgs,
) -> (Result<(simt::engine::emu::Counters, f64), ToolError>, simt::engine::emu::CheckReport) {
    use simt::engine::emu::{self, Trace};
    let Some(path) = &opts.trace else {
        let (r, _, report) = emu::run_observed(k, launch.grid, args, None, opts.check);
        return (r, report);
    };
    let io = |e: std::io::Error| ToolError::Io { path: path.display().to_string(), message: format!("cannot write the trace: {e}") };
    let file = match std::fs::File::create(path) {
        Ok(f) => f,
        Err(e) => return (Err(io(e)), Default::default()),
    };
    let grid = launch.grid;
    let dims = |d: [u64; 3]| d[..grid.work_dim as usize].iter().map(u64::to_string).collect::<Vec<_>>().join(",");
    let what = format!(
        "global {} local {}, {} work-group(s) of {} warp(s), repeat {} (this is the first run)",
        dims(grid.global),
        dims(grid.local),
        grid.total_groups(),
        grid.items_per_group().div_ceil(opts.warp_width as u64),
        opts.repeat
    );
    let trace = Trace::new(Box::new(std::io::BufWriter::new(file)), &k.program, &what);
    let (result, trace, report) = emu::run_observed(k, grid, args, Some(trace), opts.check);
    let written = trace.map_or(Ok(()), |t| t.finish().map(drop).map_err(io));
    (result.and_then(|r| written.map(|()| r)), report)
}

/// Compiles the kernel for this CPU and runs it `opts.repeat` times.
fn run_host(input: &ModuleInput, launch: &Launch, opts: &RunOptions, kernel: &str, args: &mut KernelArgs) -> Result<RunStats, ToolError> {
    use simt::engine::host::{self, HostOptions};
    let hk =
        host::compile(input, kernel, &HostOptions { interleave: opts.interleave, local_size: Some(launch.grid.local), aot: opts.aot })?;
    let wg = WgKernel {
        name: kernel,
        wg_fn: hk.wg_fn,
        scratch_per_item: hk.scratch_per_item,
        local_bytes: hk.local_bytes,
        barrier_names: &hk.barrier_names,
        interleaved: hk.interleaved,
    };
    let grid = launch.grid;
    let runner = Runner::new(wg, grid, args, opts.local_mem_limit)?;

    let groups = grid.total_groups();
    let all_groups = groups.saturating_mul(opts.repeat as u64);
    let progress = (std::io::stderr().is_terminal() && all_groups >= PROGRESS_MIN_GROUPS).then(|| {
        let pb = ProgressBar::with_draw_target(Some(all_groups), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template("{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} work-groups") {
            pb.set_style(style);
        }
        pb
    });

    let mut kernel_seconds = Vec::with_capacity(opts.repeat as usize);
    for _ in 0..opts.repeat {
        let start = Instant::now();
        let result = runner.run(progress.as_ref());
        kernel_seconds.push(start.elapsed().as_secs_f64());
        if let Err(e) = result {
            if let Some(pb) = &progress {
                pb.finish_and_clear();
            }
            return Err(e);
        }
    }
    if let Some(pb) = &progress {
        pb.finish_and_clear();
    }

    let mut details = serde_json::Map::new();
    details.insert("workers".into(), runner.workers().into());
    details.insert("interleave".into(), opts.interleave.into());
    details.insert("linked".into(), (if opts.aot { "ahead of time (system linker, dlopen)" } else { "JIT (ORC LLJIT)" }).into());
    // Whether the interleaved form ran, and why not when asked for.
    let interleaved = match (opts.interleave > 1, hk.interleaved, runner.interleaving()) {
        (false, _, _) => "off".to_string(),
        (true, None, _) => "not applicable: barriers inside control flow (or none)".to_string(),
        (true, Some(_), None) => {
            format!("off: the ring of memory sets exceeds {} bytes per worker", simt::runner::INTERLEAVE_MEMORY_BUDGET)
        }
        (true, Some(_), Some(r)) => format!("on, ring of {r} work-groups"),
    };
    details.insert("interleaved".into(), interleaved.into());
    details.insert("scratch_bytes_per_item".into(), hk.scratch_per_item.into());
    details.insert("static_local_bytes".into(), hk.local_bytes.into());
    details.insert("local_mem_bytes".into(), runner.local_mem_bytes().into());
    details.insert("barriers".into(), hk.barrier_names.len().saturating_sub(2).into());
    Ok(RunStats {
        engine: Engine::Host.name().into(),
        kernel: kernel.into(),
        work_dim: grid.work_dim,
        global: grid.global,
        local: grid.local,
        work_groups: groups,
        threads: grid.total_items(),
        compile_seconds: hk.compile_seconds,
        kernel_seconds,
        engine_details: details,
    })
}

/// Lowers the kernel to PTX for the GPU present and runs it there.
fn run_gpu(input: &ModuleInput, launch: &Launch, opts: &RunOptions, kernel: &str, args: &mut KernelArgs) -> Result<RunStats, ToolError> {
    let grid = launch.grid;
    let run = simt::engine::gpu::run(input, kernel, &grid, args, opts.repeat)?;
    let mut details = serde_json::Map::new();
    details.insert("device".into(), run.device.into());
    details.insert("arch".into(), run.arch.into());
    Ok(RunStats {
        engine: Engine::Gpu.name().into(),
        kernel: kernel.into(),
        work_dim: grid.work_dim,
        global: grid.global,
        local: grid.local,
        work_groups: grid.total_groups(),
        threads: grid.total_items(),
        compile_seconds: run.compile_seconds,
        kernel_seconds: run.kernel_seconds,
        engine_details: details,
    })
}
