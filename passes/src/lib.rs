//! simt-passes: the analyses and passes of the simt toolkit.
//!
//! Everything that reads or rewrites LLVM IR lives here, with the pass manager
//! that runs it (`pipeline`, shared by `simt-opt`, the engines and the LLVM
//! pass plugin); nothing here parses a command line or runs a kernel. The graph analyses (`cfg`, `analysis`) are
//! plain data so they can be checked against brute force without LLVM.

pub mod analysis;
pub mod cfg;
pub mod function_cfg;
pub mod ir;
pub mod kernel_model;
pub mod pass;
pub mod pipeline;
pub mod printers;
pub mod registry;
pub mod sched;
pub mod transform;
pub mod wg_abi;
