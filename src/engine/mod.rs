//! Engines that execute kernels: `host` compiles work-group functions for this
//! CPU and calls them from the runner.

pub mod gpu;
pub mod host;
