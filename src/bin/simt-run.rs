//! simt-run: runs a SIMT kernel (OpenCL `spir_kernel` or CUDA `ptx_kernel`
//! IR) on this machine: fills the arguments, runs every work-group on all
//! cores, and reports timings, dumps buffers or compares them with reference
//! files.

use clap::Parser;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use inkwell::context::Context;
use inkwell::module::Module;
use simt::diag::{self, report, ToolError};
use simt::engine::buffers::{KernelArgs, LocalLayout};
use simt::engine::host::runner::Runner;
use simt::input::ModuleInput;
use simt::launch::{Cli, Engine, Grid, RunOptions, Settings, StatsFormat};
use simt::stats::{EmuDetails, EngineDetails, GpuDetails, HostDetails, RunStats};
use simt::{frontend, kernel_sig, llvm_init};
use std::io::IsTerminal;
use std::path::Path;
use std::time::Instant;

const TOOL: &str = "simt-run";

/// Launches with at least this many work-groups (over all runs) get a
/// progress bar, when stderr is a terminal: on the host engine, and on the
/// emulator, which runs work-groups some thousand times slower.
const PROGRESS_MIN_GROUPS: u64 = 1 << 14;
const EMU_PROGRESS_MIN_GROUPS: u64 = 16;

/// A progress bar over `all_groups` work-groups, when stderr is a terminal
/// and the launch has at least `min_groups`.
/// Clears a progress bar however the launch ends, so that an error message
/// starts on a clean line.
struct ClearOnDrop(Option<ProgressBar>);

impl Drop for ClearOnDrop {
    fn drop(&mut self) {
        if let Some(pb) = &self.0 {
            pb.finish_and_clear();
        }
    }
}

fn progress_bar(all_groups: u64, min_groups: u64) -> Option<ProgressBar> {
    (std::io::stderr().is_terminal() && all_groups >= min_groups).then(|| {
        let pb = ProgressBar::with_draw_target(Some(all_groups), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template("{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} work-groups") {
            pb.set_style(style);
        }
        pb
    })
}

fn main() {
    // clang's spelling of its one long option (`-cl-std=CL1.2`) works too.
    let args = simt::argv::normalize(std::env::args().skip(1), &["cl-std", "keep-ir"]);
    let cli = match Cli::try_parse_from(std::iter::once(TOOL.to_string()).chain(args)) {
        Ok(c) => c,
        Err(e) => match simt::launch::cli::usage_error(&e) {
            Some(usage) => std::process::exit(report(TOOL, &usage)),
            None => diag::exit_for_clap(TOOL, e),
        },
    };
    llvm_init::init();
    simt::engine::guard::set_tool_name(TOOL);
    let code = match run(&cli) {
        Ok(()) => 0,
        Err(e) => report(TOOL, &e),
    };
    std::process::exit(code);
}

fn run(cli: &Cli) -> Result<(), ToolError> {
    let mut settings = match &cli.launch {
        Some(path) => Settings::from_launch_file(path)?,
        None => Settings::new(),
    };
    settings.override_with(cli.settings());
    let (launch, opts) = settings.resolve()?;
    if let Some(limit) = opts.timeout {
        simt::interrupt::stop_after(TOOL, limit);
    }
    if let (Some(dump), Some(compare)) = (&opts.dump, &opts.compare) {
        if simt::engine::buffers::same_folder(dump, compare) {
            return Err(ToolError::Usage(format!(
                "error: --dump {} and --compare {} name the same folder: the dump would overwrite the reference files; dump elsewhere",
                dump.display(),
                compare.display()
            )));
        }
    }
    if let Some(dump) = &opts.dump {
        if let Some(why) = dump_overwrites_input(dump, &launch.args) {
            return Err(ToolError::Usage(why));
        }
    }

    // The module is read once (it may be a pipe: `-` is stdin), and every
    // parse below starts from these bytes.
    // Kernel sources are compiled with debug info for --check, whose
    // reports then name source lines.
    let source = simt::source::SourceOptions {
        defines: cli.defines.clone(),
        include_dirs: cli.include_dirs.clone(),
        cl_std: cli.cl_std.clone(),
        keep_ir: cli.keep_ir.clone(),
        debug_info: opts.check.runs_checker(),
    };
    let input = ModuleInput::read_with(&launch.module, &source)?;
    // Everything that can be checked without compiling, first.
    // Parsed and verified once; each engine's front end prepares it.
    let start = Instant::now();
    let ctx = Context::create();
    let mut loaded = Loaded { module: frontend::load(&ctx, &input)?, seconds: start.elapsed().as_secs_f64() };
    let sig = kernel_sig::select_kernel(kernel_sig::kernels(&loaded.module), launch.kernel.as_deref(), Path::new(&input.name))?;
    kernel_sig::check_args(&sig, &launch.args)?;
    if let Some(bytes) = launch.shared_bytes {
        simt::dynamic_shared::size(&loaded.module, bytes)?;
    }
    // The local size: --local checked against the kernel, or chosen.
    let units = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
    let grid = simt::launch::grid::resolve(&launch.grid, &sig.bounds, &sig.name, units)?;
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
        Engine::Host => run_host(&mut loaded, grid, &opts, &sig.name, &mut args)?,
        Engine::Gpu => run_gpu(&mut loaded, grid, &opts, &sig.name, &mut args)?,
        Engine::Emu => {
            let (stats, emu) = run_emu(&mut loaded, grid, &opts, &sig.name, &mut args)?;
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
            let json = stats.json(emu_stats.as_ref(), compared.as_ref().map(|(_, r)| r));
            let text = serde_json::to_string(&json).map_err(|e| ToolError::Run(format!("writing the statistics: {e}")))?;
            diag::write_stdout(format!("{text}\n").as_bytes())?;
        }
        StatsFormat::Summary | StatsFormat::Text => {
            let mut lines: Vec<String> = stats.summary().lines().map(String::from).collect();
            if opts.stats == StatsFormat::Text {
                let json = serde_json::to_value(stats.json(emu_stats.as_ref(), compared.as_ref().map(|(_, r)| r)))
                    .map_err(|e| ToolError::Run(format!("writing the statistics: {e}")))?;
                lines.extend(simt::stats::key_value_lines(&json));
            }
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
            if let ToolError::Run(m) = &mut e {
                if r.only_rounding() {
                    m.push_str(&format!(
                        "\nhint: every difference is within {} ULPs: rounding, not a race (a fused multiply-add where the \
                         reference has two operations, a sum in another order); --tolerance {} accepts it",
                        r.max_ulps, r.max_ulps
                    ));
                } else if !(opts.check.races && opts.check.uninit) {
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

/// Why `--dump dir` would replace a `file:` fill of this run (the dump writes
/// `dir/argK.bin` for every buffer argument K, following links), if it would.
fn dump_overwrites_input(dir: &Path, args: &[simt::launch::ArgSpec]) -> Option<String> {
    use simt::launch::{ArgSpec, Fill};
    use std::os::unix::fs::MetadataExt;
    let id = |p: &Path| std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
    for (k, _) in args.iter().enumerate().filter(|(_, a)| matches!(a, ArgSpec::Buffer { .. })) {
        let out = simt::engine::buffers::arg_file(dir, k);
        let Some(written) = id(&out) else { continue };
        for (i, a) in args.iter().enumerate() {
            if let ArgSpec::Buffer { fill: Fill::File(input), .. } = a {
                if id(input) == Some(written) {
                    return Some(format!(
                        "error: --dump {} would overwrite {} with argument {k}, but it is the fill file of argument {i} ({a}); dump elsewhere",
                        dir.display(),
                        out.display(),
                    ));
                }
            }
        }
    }
    None
}

/// The error of a `--compare` that found differences.
fn compare_failed(dir: &Path, r: &simt::engine::buffers::CompareReport) -> ToolError {
    ToolError::Run(format!(
        "{} of {} compared buffer(s) differ from {}:\n{}",
        r.mismatches.len(),
        r.compared.len(),
        dir.display(),
        r.render().trim_end()
    ))
}

/// The launch's module, parsed and verified, and the seconds that took
/// (part of every engine's compile time).
struct Loaded<'ctx> {
    module: Module<'ctx>,
    seconds: f64,
}

/// Decodes the kernel for the SIMT emulator and runs it `opts.repeat` times;
/// the emulator's counters are those of the last run.
fn run_emu(
    loaded: &mut Loaded<'_>,
    grid: Grid,
    opts: &RunOptions,
    kernel: &str,
    args: &mut KernelArgs,
) -> Result<(RunStats, simt::engine::emu::EmuStats), ToolError> {
    use simt::engine::emu::{self, EmuOptions, EmuStats};
    let start = Instant::now();
    let tagged = opts.profile.as_ref().map(|_| emu::profile::tag(&loaded.module, kernel)).transpose()?;
    let program = emu::compile_module(
        &mut loaded.module,
        kernel,
        &EmuOptions {
            policy: opts.policy,
            warp_width: opts.warp_width,
            check_uniformity: if opts.check_uniformity { emu::UniformityCheck::On } else { emu::UniformityCheck::Off },
        },
    )?;
    let k = emu::EmuKernel { program, compile_seconds: loaded.seconds + start.elapsed().as_secs_f64() };
    let p = &k.program;
    LocalLayout::for_args(p.static_local_bytes(), args).check_limit(kernel, opts.local_mem_limit)?;
    let mut kernel_seconds = Vec::with_capacity(opts.repeat as usize);
    let mut last = None;
    let mut found = None;
    let progress = progress_bar(grid.total_groups().saturating_mul(opts.repeat as u64), EMU_PROGRESS_MIN_GROUPS);
    let _clear = ClearOnDrop(progress.clone());
    let initial = opts.refill.then(|| args.snapshot());
    for run in 0..opts.repeat {
        if let (Some(initial), true) = (&initial, run > 0) {
            args.restore(initial);
        }
        let start = Instant::now();
        let (counters, seconds) = if run == 0 && (opts.trace.is_some() || opts.check.runs_checker()) {
            let (result, report) = run_emu_observed(&k, grid, opts, args, progress.as_ref());
            if opts.check.runs_checker() {
                let text: String = report.reports.iter().map(|r| format!("{TOOL}: {r}\n")).collect();
                diag::eprint(&text);
                found = Some(report.findings);
            }
            result?
        } else {
            emu::run(&k, grid, args, progress.as_ref())?
        };
        kernel_seconds.push(start.elapsed().as_secs_f64());
        last = Some((counters, seconds));
    }
    let (counters, seconds) = last.expect("repeat is at least 1");
    if let (Some(path), Some(t)) = (&opts.profile, &tagged) {
        let map = emu::profile::block_map(&loaded.module, t, p)?;
        emu::profile::write(path, emu::profile::profile(t, &map, &counters), opts.policy.name(), opts.warp_width)?;
    }
    let emu = EmuStats { check: found, ..EmuStats::new(p, counters, seconds) };
    let details = EmuDetails {
        policy: opts.policy.name().into(),
        warp_width: opts.warp_width,
        warps_per_group: grid.items_per_group().div_ceil(opts.warp_width as u64),
        registers_per_lane: p.nslots(),
        instructions: p.insts().len(),
        private_bytes_per_item: p.private_bytes(),
        static_local_bytes: p.static_local_bytes(),
        local_mem_bytes: LocalLayout::for_args(p.static_local_bytes(), args).total,
        barriers: p.barrier_names().len(),
        convergence_markers: p.explicit_markers(),
        check_blocks: p.blocks().iter().filter(|b| b.check).count(),
    };
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
        engine_details: EngineDetails::Emu(details),
    };
    Ok((stats, emu))
}

/// The first run of the emulator, with `--trace PATH` and `--check LIST`.
/// The trace is written, and the findings come back, even when the run
/// fails (they show how it got there).
fn run_emu_observed(
    k: &simt::engine::emu::EmuKernel,
    grid: Grid,
    opts: &RunOptions,
    args: &mut KernelArgs,
    progress: Option<&ProgressBar>,
) -> (Result<(simt::engine::emu::Counters, f64), ToolError>, simt::engine::emu::CheckReport) {
    use simt::engine::emu::{self, Trace};
    let Some(path) = &opts.trace else {
        let (r, _, report) = emu::run_observed(k, grid, args, None, opts.check, progress);
        return (r, report);
    };
    let io = |e: std::io::Error| ToolError::Io { path: path.display().to_string(), message: format!("cannot write the trace: {e}") };
    // Written as every output is (atomically, or through the descriptor
    // `/dev/stdout` names); shared so that it can be committed after the
    // trace, which owns its writer, is finished.
    let file = match simt::output::OutputFile::create(path) {
        Ok(f) => std::sync::Arc::new(std::sync::Mutex::new(Some(f))),
        Err(ToolError::Io { message, .. }) => return (Err(io(std::io::Error::other(message))), Default::default()),
        Err(e) => return (Err(e), Default::default()),
    };
    let dims = |d: [u64; 3]| d[..grid.work_dim as usize].iter().map(u64::to_string).collect::<Vec<_>>().join(",");
    let what = format!(
        "global {} local {}, {} work-group(s) of {} warp(s), repeat {} (this is the first run)",
        dims(grid.global),
        dims(grid.local),
        grid.total_groups(),
        grid.items_per_group().div_ceil(opts.warp_width as u64),
        opts.repeat
    );
    let trace = Trace::new(Box::new(std::io::BufWriter::new(SharedOutput(file.clone()))), &k.program, &what);
    let (result, trace, report) = emu::run_observed(k, grid, args, Some(trace), opts.check, progress);
    let written = trace.map_or(Ok(()), |t| t.finish().map(drop).map_err(io));
    let out = file.lock().unwrap_or_else(|e| e.into_inner()).take();
    let committed = out.map_or(Ok(()), simt::output::OutputFile::commit);
    (result.and_then(|r| written.and(committed).map(|()| r)), report)
}

/// An output file the trace writes and [`run_emu_observed`] commits.
struct SharedOutput(std::sync::Arc<std::sync::Mutex<Option<simt::output::OutputFile>>>);

impl std::io::Write for SharedOutput {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self.0.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            Some(f) => f.write(buf),
            None => Err(std::io::Error::other("the trace file is already closed")),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).as_mut().map_or(Ok(()), |f| f.flush())
    }
}

/// Compiles the kernel for this CPU and runs it `opts.repeat` times.
fn run_host(loaded: &mut Loaded<'_>, grid: Grid, opts: &RunOptions, kernel: &str, args: &mut KernelArgs) -> Result<RunStats, ToolError> {
    use simt::engine::host::kernel_cache::KernelCache;
    use simt::engine::host::{self, HostOptions};
    // No folder named (no HOME: a minimal environment) is no cache, quietly.
    let cache = if opts.no_cache { None } else { KernelCache::from_env()? };
    // A non-uniform launch's smaller work-groups run a second compile of the
    // kernel, not specialised for the local size, so that the full ones keep
    // their constant trip counts.
    let remainder = if grid.is_uniform() {
        None
    } else {
        let mut copy = loaded.module.clone();
        let options = HostOptions { interleave: 1, local_size: None, aot: opts.aot, linear: opts.linear, ids_fit_i32: grid.ids_fit_i32() };
        Some(host::compile_module_cached(&mut copy, kernel, &options, cache.as_ref())?)
    };
    let hk = host::compile_module_cached(
        &mut loaded.module,
        kernel,
        &HostOptions {
            interleave: opts.interleave,
            local_size: Some(grid.local),
            aot: opts.aot,
            linear: opts.linear,
            ids_fit_i32: grid.ids_fit_i32(),
        },
        cache.as_ref(),
    )?;
    for w in hk.cache.warnings.iter().chain(remainder.iter().flat_map(|r| r.cache.warnings.iter())) {
        warn(w);
    }
    let wg = match &remainder {
        Some(r) => hk.wg_kernel(kernel).with_remainder(r.wg_kernel(kernel))?,
        None => hk.wg_kernel(kernel),
    };
    let initial = opts.refill.then(|| args.snapshot());
    let mut runner = Runner::new(wg, grid, args, opts.local_mem_limit)?;

    let groups = grid.total_groups();
    let all_groups = groups.saturating_mul(opts.repeat as u64);
    let progress = progress_bar(all_groups, PROGRESS_MIN_GROUPS);

    let mut kernel_seconds = Vec::with_capacity(opts.repeat as usize);
    for run in 0..opts.repeat {
        if let (Some(initial), true) = (&initial, run > 0) {
            runner.refill(initial);
        }
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

    // Whether the interleaved form ran, and why not when asked for.
    let interleaved = match (opts.interleave > 1, hk.interleaved(), runner.interleaving()) {
        (false, _, _) => "off".to_string(),
        (true, None, _) => "not applicable: barriers inside control flow (or none)".to_string(),
        (true, Some(_), None) if !grid.is_uniform() => "off: non-uniform work-groups (one call runs groups of one size)".to_string(),
        (true, Some(_), None) => {
            format!("off: the ring of memory sets exceeds {} bytes per worker", simt::engine::host::runner::INTERLEAVE_MEMORY_BUDGET)
        }
        (true, Some(_), Some(r)) => format!("on, ring of {r} work-groups"),
    };
    let details = HostDetails {
        workers: runner.workers(),
        interleave: opts.interleave,
        linked: (if opts.aot { "ahead of time (system linker, dlopen)" } else { "JIT (ORC LLJIT)" }).into(),
        interleaved,
        form: (if hk.linear() { "linear" } else { "regions" }).into(),
        scratch_bytes_per_item: hk.scratch_per_item(),
        static_local_bytes: hk.local_bytes(),
        local_mem_bytes: runner.local_mem_bytes(),
        barriers: hk.barrier_names().len().saturating_sub(2),
        cache: hk.cache.outcome.name().into(),
    };
    Ok(RunStats {
        engine: Engine::Host.name().into(),
        kernel: kernel.into(),
        work_dim: grid.work_dim,
        global: grid.global,
        local: grid.local,
        work_groups: groups,
        threads: grid.total_items(),
        compile_seconds: loaded.seconds + hk.compile_seconds + remainder.as_ref().map_or(0.0, |r| r.compile_seconds),
        kernel_seconds,
        engine_details: EngineDetails::Host(details),
    })
}

/// `simt-run: warning: …` on stderr.
fn warn(message: &str) {
    diag::eprint(&format!("{TOOL}: warning: {message}\n"));
}

/// Lowers the kernel to PTX for the GPU present and runs it there.
fn run_gpu(loaded: &mut Loaded<'_>, grid: Grid, opts: &RunOptions, kernel: &str, args: &mut KernelArgs) -> Result<RunStats, ToolError> {
    let run = simt::engine::gpu::run(&mut loaded.module, kernel, &grid, args, opts.repeat, opts.refill)?;
    Ok(RunStats {
        engine: Engine::Gpu.name().into(),
        kernel: kernel.into(),
        work_dim: grid.work_dim,
        global: grid.global,
        local: grid.local,
        work_groups: grid.total_groups(),
        threads: grid.total_items(),
        compile_seconds: loaded.seconds + run.compile_seconds,
        kernel_seconds: run.kernel_seconds,
        engine_details: EngineDetails::Gpu(GpuDetails { device: run.device, arch: run.arch }),
    })
}
