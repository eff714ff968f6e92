//! Engines that execute kernels: `host` compiles work-group functions for this
//! CPU and calls them from its runner; `emu` interprets the kernel on a SIMT
//! emulator (lockstep warps, reconvergence policies), the reference semantics;
//! `gpu` runs its PTX through the CUDA driver.
//!
//! What they share sits here: the launch's arguments ([`buffers`]), stored in
//! guarded reservations ([`guard`]) so that the host engine's native code
//! faults, with a message, when it runs off one. Each engine's own parts are
//! under it: the host's runner and kernel cache, the emulator's decoder,
//! register file, memory table and C math.

pub mod buffers;
pub mod emu;
pub mod gpu;
pub mod guard;
pub mod host;
