//! Errors the tools report, in LLVM's format, with the exit codes `opt` users
//! expect: 1 for an error, 2 for a usage mistake.

use simt_passes::ir::ParseError;
use simt_passes::pass::PassError;

/// Exit code of `--engine gpu` where no NVIDIA driver or GPU is present, so
/// scripts and tests can skip rather than fail.
pub const EXIT_NO_GPU: i32 = 3;

#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("{0}")]
    Usage(String),
    #[error("{path}: error: {message}")]
    Io { path: String, message: String },
    #[error("{0}")]
    Parse(#[from] ParseError),
    #[error("{path}: error: input module is broken!\n{message}")]
    BrokenInput { path: String, message: String },
    #[error("error: {err}{}", valid_pass_list(err))]
    Pass { #[from] err: PassError },
    #[error("error: broken module after pass '{pass}':\n{message}")]
    BrokenAfter { pass: String, message: String },
    #[error("error: {0}")]
    Llvm(String),
    /// A launch that cannot run or failed while running.
    #[error("error: {0}")]
    Run(String),
    /// No NVIDIA driver or GPU here: not an error of the kernel or launch.
    #[error("{0}")]
    NoGpu(String),
}

impl ToolError {
    pub fn exit_code(&self) -> i32 {
        match self {
            ToolError::Usage(_) => 2,
            ToolError::NoGpu(_) => EXIT_NO_GPU,
            _ => 1,
        }
    }
}

fn valid_pass_list(e: &PassError) -> String {
    match e {
        PassError::UnknownPass { .. } => format!(
            "\nvalid simt passes: {}\n(any other name is handed to LLVM's pass builder; see `opt -print-passes`)",
            simt_passes::registry::listed_names().join(", ")
        ),
        _ => String::new(),
    }
}

/// Prints `tool: message` on stderr and returns the exit code.
pub fn report(tool: &str, e: &ToolError) -> i32 {
    eprintln!("{tool}: {e}");
    e.exit_code()
}
