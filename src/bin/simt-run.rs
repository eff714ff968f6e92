//! simt-run: runs a SIMT kernel (OpenCL `spir_kernel` or CUDA `ptx_kernel`
//! IR) on this machine: fills the arguments, runs every work-group on all
//! cores, and reports timings, dumps buffers or compares them with reference
//! files.

use clap::Parser;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use inkwell::context::Context;
use inkwell::module::Module;
use simt::buffers::{KernelArgs, LocalLayout};
use simt::diag::{self, report, ToolError};
use simt::input::ModuleInput;
use simt::launch::{Cli, Engine, Launch, RunOptions, Settings, StatsFormat};
use simt::runner::Runner;
use simt::stats::{EmuDetails, EngineDetails, GpuDetails, HostDetails, RunStats};
use simt::{frontend, kernel_sig, llvm_init};
use std::io::IsTerminal;
use std::path::Path;
use std::time::Instant;

const TOOL: &str = "simt-run";

/// Launches with at least this many work-groups (over all runs) get a
/// progress bar, when stderr is a terminal.
const PROGRESS_MIN_GROUPS: u64 = 1 << 14;

fn main() {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => match simt::launch::cli::usage_error(&e) {
            Some(usage) => std::process::exit(report(TOOL, &usage)),
            None => diag::exit_for_clap(TOOL, e),
        },
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
        Some(path) => Settings::from_launch_file(path)?,
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
    // Parsed and verified once; each engine's front end prepares it.
    let start = Instant::now();
    let ctx = Context::create();
    let mut loaded = Loaded { module: frontend::load(&ctx, &input)?, seconds: start.elapsed().as_secs_f64() };
    let sig = kernel_sig::select_kernel(kernel_sig::kernels(&loaded.module), launch.kernel.as_deref(), Path::new(&input.name))?;
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
        Engine::Host => run_host(&mut loaded, &launch, &opts, &sig.name, &mut args)?,
        Engine::Gpu => run_gpu(&mut loaded, &launch, &opts, &sig.name, &mut args)?,
        Engine::Emu => {
            let (stats, emu) = run_emu(&mut loaded, &launch, &opts, &sig.name, &mut args)?;
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
    if let Some((dir, r)) = compared {
        if !r.ok() {
            return Err(compare_failed(dir, &r));
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
    launch: &Launch,
    opts: &RunOptions,
    kernel: &str,
    args: &mut KernelArgs,
) -> Result<(RunStats, simt::engine::emu::EmuStats), ToolError> {
    use simt::engine::emu::{self, EmuOptions, EmuStats};
    let start = Instant::now();
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
    let grid = launch.grid;
    let mut kernel_seconds = Vec::with_capacity(opts.repeat as usize);
    let mut last = None;
    for run in 0..opts.repeat {
        let start = Instant::now();
        let (counters, seconds) = match (&opts.trace, run) {
            (Some(path), 0) => run_emu_traced(&k, launch, opts, path, args)?,
            _ => emu::run(&k, grid, args)?,
        };
        kernel_seconds.push(start.elapsed().as_secs_f64());
        last = Some((counters, seconds));
    }
    let (counters, seconds) = last.expect("repeat is at least 1");
    let emu = EmuStats::new(p, counters, seconds);
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

/// One run of the emulator with `--trace PATH`. The trace is written even
/// when the run fails (it shows how the lanes got there).
fn run_emu_traced(
    k: &simt::engine::emu::EmuKernel,
    launch: &Launch,
    opts: &RunOptions,
    path: &Path,
    args: &mut KernelArgs,
) -> Result<(simt::engine::emu::Counters, f64), ToolError> {
    use simt::engine::emu::{self, Trace};
    let io = |e: std::io::Error| ToolError::Io { path: path.display().to_string(), message: format!("cannot write the trace: {e}") };
    let file = std::fs::File::create(path).map_err(io)?;
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
    let (result, trace) = emu::run_traced(k, grid, args, trace);
    let written = trace.finish().map_err(io);
    let r = result?;
    written?;
    Ok(r)
}

/// Compiles the kernel for this CPU and runs it `opts.repeat` times.
fn run_host(
    loaded: &mut Loaded<'_>,
    launch: &Launch,
    opts: &RunOptions,
    kernel: &str,
    args: &mut KernelArgs,
) -> Result<RunStats, ToolError> {
    use simt::engine::host::{self, HostOptions};
    let hk = host::compile_module(
        &mut loaded.module,
        kernel,
        &HostOptions { interleave: opts.interleave, local_size: Some(launch.grid.local), aot: opts.aot },
    )?;
    let wg = hk.wg_kernel(kernel);
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

    // Whether the interleaved form ran, and why not when asked for.
    let interleaved = match (opts.interleave > 1, hk.interleaved(), runner.interleaving()) {
        (false, _, _) => "off".to_string(),
        (true, None, _) => "not applicable: barriers inside control flow (or none)".to_string(),
        (true, Some(_), None) => {
            format!("off: the ring of memory sets exceeds {} bytes per worker", simt::runner::INTERLEAVE_MEMORY_BUDGET)
        }
        (true, Some(_), Some(r)) => format!("on, ring of {r} work-groups"),
    };
    let details = HostDetails {
        workers: runner.workers(),
        interleave: opts.interleave,
        linked: (if opts.aot { "ahead of time (system linker, dlopen)" } else { "JIT (ORC LLJIT)" }).into(),
        interleaved,
        scratch_bytes_per_item: hk.scratch_per_item(),
        static_local_bytes: hk.local_bytes(),
        local_mem_bytes: runner.local_mem_bytes(),
        barriers: hk.barrier_names().len().saturating_sub(2),
    };
    Ok(RunStats {
        engine: Engine::Host.name().into(),
        kernel: kernel.into(),
        work_dim: grid.work_dim,
        global: grid.global,
        local: grid.local,
        work_groups: groups,
        threads: grid.total_items(),
        compile_seconds: loaded.seconds + hk.compile_seconds,
        kernel_seconds,
        engine_details: EngineDetails::Host(details),
    })
}

/// Lowers the kernel to PTX for the GPU present and runs it there.
fn run_gpu(
    loaded: &mut Loaded<'_>,
    launch: &Launch,
    opts: &RunOptions,
    kernel: &str,
    args: &mut KernelArgs,
) -> Result<RunStats, ToolError> {
    let grid = launch.grid;
    let run = simt::engine::gpu::run(&mut loaded.module, kernel, &grid, args, opts.repeat)?;
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
