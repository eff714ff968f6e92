//! The tools' shared driver code: how `simt-opt` (and later `simt-run`) read
//! modules, run pipelines, lower to machine code and report errors.

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
