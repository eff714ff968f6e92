//! `--engine emu`: the SIMT emulator, the project's reference semantics.
//!
//! The kernel is prepared as for the host engine's front end (helpers
//! inlined, OpenCL built-in calls lowered to IR by `simt-lower-ocl-builtins`),
//! decoded once into a compact instruction list over dense register slots
//! ([`program`], built by its decoder), then interpreted ([`exec`]):
//! work-groups one after another, each as warps of `--warp-width` lanes
//! that execute in lockstep, with
//! per-lane registers, the kernel's global buffers, per-work-group local
//! memory and per-work-item private memory ([`memory`]: every access is
//! bounds-checked), work-group barriers across the warps of a group, atomics
//! (the emulator is single-threaded, so every read-modify-write is atomic),
//! and the work-item builtins of both dialects. How the lanes of a warp
//! reconverge after a divergent branch is the `--policy` ([`policy`]); for
//! race-free kernels every policy gives the same memory contents.
//!
//! `--check races,uninit` ([`check`]) watches every memory access through
//! shadow memory and reports data races and uninitialised reads; `--check
//! warp` checks the member masks of CUDA warp functions.
//!
//! Statistics ([`stats`]): warp-instructions issued, lane-instructions, SIMD
//! efficiency, convergence checks, divergent branches per block.

pub mod check;
pub mod exec;
pub mod math;
pub mod memory;
pub mod objects;
pub mod policy;
pub mod profile;
pub mod program;
pub mod regfile;
pub mod regions;
pub mod stats;
pub mod trace;

use crate::diag::ToolError;
use crate::engine::buffers::KernelArgs;
use crate::frontend::EngineFront;
use crate::launch::{Grid, Policy};
use indicatif::ProgressBar;
use inkwell::context::Context;
use inkwell::module::Module;
use std::time::Instant;

pub use exec::Counters;
pub use program::Program;
pub use stats::EmuStats;
pub use trace::Trace;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmuOptions {
    pub policy: Policy,
    /// Lanes per warp, 1 to 64.
    pub warp_width: u32,
    /// `--check-uniformity`: run `simt-check-uniformity` on the prepared
    /// kernel, so that every value the analysis calls uniform is compared
    /// across the lanes running it together.
    pub check_uniformity: UniformityCheck,
}

/// Whether (and how) the emulator checks the uniformity analysis at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum UniformityCheck {
    #[default]
    Off,
    /// The analysis's verdicts.
    On,
    /// Every value claimed uniform (`<assume-uniform>`): for tests of the oracle.
    AssumeUniform,
}

impl Default for EmuOptions {
    fn default() -> Self {
        EmuOptions { policy: Policy::Ipdom, warp_width: crate::launch::DEFAULT_WARP_WIDTH, check_uniformity: UniformityCheck::Off }
    }
}

/// A decoded kernel, ready to run.
#[derive(Debug)]
pub struct EmuKernel {
    pub program: Program,
    pub compile_seconds: f64,
}

/// Parses the module `input` and decodes `kernel`.
pub fn compile(input: &crate::input::ModuleInput, kernel: &str, opts: &EmuOptions) -> Result<EmuKernel, ToolError> {
    crate::llvm_init::init();
    let start = Instant::now();
    let ctx = Context::create();
    let mut module = crate::frontend::load(&ctx, input)?;
    let program = compile_module(&mut module, kernel, opts)?;
    Ok(EmuKernel { program, compile_seconds: start.elapsed().as_secs_f64() })
}

/// Decodes `kernel` of `module` (which this changes: the emulator's front
/// end, [`crate::frontend`], inlines every helper and lowers OpenCL
/// built-ins).
pub fn compile_module(module: &mut Module<'_>, kernel: &str, opts: &EmuOptions) -> Result<Program, ToolError> {
    if !(1..=crate::launch::MAX_WARP_WIDTH).contains(&opts.warp_width) {
        return Err(ToolError::Usage(format!(
            "error: warp width {} is not between 1 and {}",
            opts.warp_width,
            crate::launch::MAX_WARP_WIDTH
        )));
    }
    // The oracle instruments the module exactly as it will be decoded.
    let check = match opts.check_uniformity {
        UniformityCheck::Off => None,
        UniformityCheck::On => Some("simt-check-uniformity"),
        UniformityCheck::AssumeUniform => Some("simt-check-uniformity<assume-uniform>"),
    };
    // The decoder's analyses (CFG, post-dominators, convergence points) are
    // those the front end's passes kept valid, or computed once here.
    let mut analyses = crate::frontend::prepare(module, kernel, &EngineFront::Emu { check })?;
    let f = crate::frontend::find_kernel(module, kernel)
        .map_err(|_| ToolError::Run(format!("kernel '{kernel}' disappeared while preparing it")))?;
    let analyses = analyses.get(f);
    program::decode::decode(program::decode::DecodeInput { module, function: f, analyses, width: opts.warp_width, policy: opts.policy })
        .map_err(|e| ToolError::Run(format!("kernel '{kernel}': the emulator cannot run it: {e}")))
}

/// Runs the launch once, advancing `progress` by one per work-group; returns
/// what it did and how long it took.
pub fn run(k: &EmuKernel, grid: Grid, args: &mut KernelArgs, progress: Option<&ProgressBar>) -> Result<(Counters, f64), ToolError> {
    let mut m = exec::Machine::new(&k.program, grid, args).map_err(ToolError::Run)?;
    m.progress = progress.cloned();
    let start = Instant::now();
    m.run().map_err(ToolError::Run)?;
    let seconds = start.elapsed().as_secs_f64();
    Ok((m.c.clone(), seconds))
}

/// What `--check` found in one launch: the reports kept, as text, and the
/// counts.
#[derive(Clone, Debug, Default)]
pub struct CheckReport {
    pub reports: Vec<String>,
    pub findings: check::Findings,
}

/// [`run`] with the checks of `checks` on and, if given, a
/// trace; the findings and the trace come back whether the launch succeeded
/// or not (a race can explain a fault; the trace shows how it got there).
pub fn run_observed(
    k: &EmuKernel,
    grid: Grid,
    args: &mut KernelArgs,
    trace: Option<Trace>,
    checks: crate::launch::Checks,
    progress: Option<&ProgressBar>,
) -> (Result<(Counters, f64), ToolError>, Option<Trace>, CheckReport) {
    let mut m = match exec::Machine::new(&k.program, grid, args) {
        Ok(m) => m,
        Err(e) => return (Err(ToolError::Run(e)), trace, CheckReport::default()),
    };
    m.progress = progress.cloned();
    m.trace = trace.map(Box::new);
    m.enable_checks(checks);
    let start = Instant::now();
    let r = m.run().map_err(ToolError::Run);
    let seconds = start.elapsed().as_secs_f64();
    let report = m.check_report().map(|(reports, findings)| CheckReport { reports, findings }).unwrap_or_default();
    let trace = m.trace.take().map(|t| *t);
    (r.map(|()| (m.c.clone(), seconds)), trace, report)
}

/// [`run`], writing what the lane groups do to `trace` (see [`trace`]); the
/// trace comes back whether the launch succeeded or not, so that it shows
/// how a failing launch got where it stopped.
pub fn run_traced(k: &EmuKernel, grid: Grid, args: &mut KernelArgs, trace: Trace) -> (Result<(Counters, f64), ToolError>, Trace) {
    let (r, t, _) = run_observed(k, grid, args, Some(trace), crate::launch::Checks::default(), None);
    (r, t.expect("the trace stays in the machine"))
}
