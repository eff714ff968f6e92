//! The tools' library: how `simt-opt` and `simt-run` read modules, run
//! pipelines, lower to machine code, run kernels and report.
//!
//! The modules follow a launch's data flow, left to right; each uses only
//! the stages to its left and the shared utilities below:
//!
//! ```text
//!  launch           front end          engines                 report
//!  launch/          input, source      engine/buffers, guard   stats
//!   cli, values,    kernel_sig         engine/host/ runner,    buffers' --dump
//!   launch_file,    dynamic_shared       kernel_cache           and --compare
//!   settings,       frontend           engine/emu/ regfile,
//!   model, grid     lower, target_cpu    regions, math, ...
//!                                      engine/gpu
//! ```
//!
//! - [`launch`]: the command line and launch file, resolved into the launch
//!   (kernel, grid, arguments) and the run options.
//! - front end: the module read ([`input`], [`source`] for `.cl`/`.cu`),
//!   the arguments checked against the kernel ([`kernel_sig`]), CUDA's
//!   dynamic shared memory sized ([`dynamic_shared`]), the kernel prepared
//!   for one engine ([`frontend`]); [`lower`] is the code generation that
//!   `simt-opt`, the host engine and the GPU share ([`target_cpu`] checks
//!   `simt-opt -mcpu`).
//! - [`engine`]: the arguments' storage all engines run on
//!   ([`engine::buffers`], in [`engine::guard`]ed memory), then each engine
//!   with its private parts under it.
//! - report: [`stats`] (`--stats`), buffers written out or compared.
//! - shared utilities: [`diag`] (errors, exit codes, printing), [`output`] and
//!   [`interrupt`] (output files written atomically, removed on a signal),
//!   [`argv`], [`llvm_init`], [`pipeline`].
//!
//! Nothing runs back: the engines read the launch's model (`launch::Policy`,
//! `launch::Checks`), never the other way round.

pub mod argv;
pub mod diag;
pub mod dynamic_shared;
pub mod engine;
pub mod frontend;
pub mod input;
pub mod interrupt;
pub mod kernel_sig;
pub mod launch;
pub mod llvm_init;
pub mod lower;
pub mod output;
pub mod source;
pub mod stats;
pub mod target_cpu;

// The pass manager lives in simt-passes, shared with the LLVM pass plugin;
// re-exported so `crate::pipeline` keeps naming it here.
pub use simt_passes::pipeline;

/// `--version` of both tools: simt's version and the LLVM it runs on.
pub fn version() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| {
        let (major, minor, patch) = simt_passes::ir::llvm_version();
        format!("{} (LLVM {major}.{minor}.{patch})", env!("CARGO_PKG_VERSION"))
    })
}
