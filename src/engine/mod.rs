//! Engines that execute kernels: `host` compiles work-group functions for this
//! CPU and calls them from the runner; `emu` interprets the kernel on a SIMT
//! emulator (lockstep warps, reconvergence policies), the reference semantics.

pub mod buffers;
pub mod emu;
pub mod gpu;
pub mod guard;
pub mod host;
