//! What `simt-run` runs, in layers:
//!
//! - [`model`]: the launch as types (module, kernel, grid, arguments) and
//!   the run options (engine and its options, repeat, dump, compare…); no
//!   parsing;
//! - its grammar: [`values`] (one setting's value: `--arg` specs, sizes,
//!   byte counts, engine and policy names), [`cli`] (clap's typed flags) and
//!   [`launch_file`] (`key = value` lines), which both give [`Settings`];
//! - [`settings`]: the command line layered over the launch file, checked
//!   and resolved into the model;
//! - [`grid`]: the grid once the kernel is known (its `reqd_work_group_size`,
//!   launch bounds, uniform work-groups; a chosen local size without `--local`).
//!
//! Mistakes in the text itself (malformed `--arg`, a zero size,
//! an unknown key) are usage errors (exit 2). Whether the arguments fit the
//! kernel is checked against the module by `kernel_sig`.

pub mod cli;
pub mod grid;
pub mod launch_file;
pub mod model;
pub mod settings;
pub mod values;

pub use cli::{Cli, LAUNCH_HELP};
pub use model::*;
pub use settings::{Given, Origin, Settings, KEYS};
pub use values::{parse_bytes, parse_dims};
