//! The tools' shared driver code: how `simt-opt` (and later `simt-run`) read
//! modules, run pipelines, lower to machine code and report errors.

pub mod argv;
pub mod diag;
pub mod engine;
pub mod frontend;
pub mod input;
pub mod llvm_init;
pub mod lower;
pub mod output;
pub mod pipeline;
pub mod buffers;
pub mod cmath;
pub mod regfile;
pub mod regions;
pub mod kernel_sig;
pub mod launch;
pub mod guard;
pub mod runner;
pub mod stats;
