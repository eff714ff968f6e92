//! Errors the tools report, in LLVM's format, with the exit codes `opt` users
//! expect: 1 for an error, 2 for a usage mistake.
//!
//! Everything the tools print goes through [`eprint()`] (stderr) and
//! [`write_stdout`] (stdout), never `println!`/`eprintln!`, which panic when
//! the stream is closed or full:
//!
//! - stdout that cannot be written (`>/dev/full`, a pipe whose reader has
//!   gone, as in `| head -1`) is an error: one `error:` line on stderr and
//!   exit 1; a closed pipe (EPIPE) exits 1 without a message, as quietly as
//!   `opt` dies of SIGPIPE. Rust ignores SIGPIPE, so EPIPE arrives as an
//!   error and is handled here; SIGPIPE keeps Rust's setting (ignored), so a
//!   worker thread's write can never kill the process half-way.
//! - stderr that cannot be written is ignored: there is nowhere left to say
//!   so, and the exit code still tells success from failure.
//! - A closed stdout or stderr (`>&-`) is reopened on `/dev/null` by Rust's
//!   runtime before `main`, so it behaves like `>/dev/null`.
//!
//! Durations in what they print: [`format_seconds`].

use simt_passes::ir::ParseError;
use simt_passes::pass::PassError;
use simt_passes::pipeline::PipelineError;

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
    Pass {
        #[from]
        err: PassError,
    },
    #[error("error: broken module after pass '{pass}':\n{message}")]
    BrokenAfter { pass: String, message: String },
    /// `SIMT_VERIFY_ANALYSES`: a pass changed what a cached analysis
    /// describes without saying so.
    #[error("error: after pass '{pass}': {message} (the pass under-reported what it changed)")]
    StaleAnalysis { pass: String, message: String },
    #[error("error: {0}")]
    Llvm(String),
    /// A launch that cannot run or failed while running.
    #[error("error: {0}")]
    Run(String),
    /// No NVIDIA driver or GPU here: not an error of the kernel or launch.
    #[error("{0}")]
    NoGpu(String),
    /// Standard output's reader has gone (EPIPE): reported by the exit code
    /// alone, as a SIGPIPE death would be.
    #[error("<stdout>: error: broken pipe")]
    BrokenPipe,
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

impl From<PipelineError> for ToolError {
    fn from(e: PipelineError) -> Self {
        match e {
            PipelineError::Invalid(message) => ToolError::Usage(message),
            PipelineError::Pass(err) => ToolError::Pass { err },
            PipelineError::BrokenAfter { pass, message } => ToolError::BrokenAfter { pass, message },
            PipelineError::StaleAnalysis { pass, message } => ToolError::StaleAnalysis { pass, message },
            PipelineError::Llvm(message) => ToolError::Llvm(message),
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

/// Prints `tool: message` on stderr (nothing for [`ToolError::BrokenPipe`])
/// and returns the exit code.
pub fn report(tool: &str, e: &ToolError) -> i32 {
    if !matches!(e, ToolError::BrokenPipe) {
        eprint(&format!("{tool}: {e}\n"));
    }
    e.exit_code()
}

/// Writes `text` to stderr, ignoring failure (stderr closed or full): the
/// non-panicking `eprint!`.
pub fn eprint(text: &str) {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes()).and_then(|_| err.flush());
}

/// Writes `bytes` to stdout and flushes it. EPIPE becomes
/// [`ToolError::BrokenPipe`]; any other failure (ENOSPC, EIO…) an I/O error
/// on `<stdout>`.
pub fn write_stdout(bytes: &[u8]) -> Result<(), ToolError> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(bytes).and_then(|_| out.flush()).map_err(stdout_error)
}

/// The error for a failed write to stdout.
pub fn stdout_error(e: std::io::Error) -> ToolError {
    match e.kind() {
        std::io::ErrorKind::BrokenPipe => ToolError::BrokenPipe,
        _ => ToolError::Io { path: "<stdout>".into(), message: e.to_string() },
    }
}

/// Ends the process for a command line clap did not accept, or for
/// `--help`/`--version`: clap's own text and exit code (2 for a usage
/// mistake, 0 for help), except that help or a version that cannot be written
/// to stdout exits 1 like any other output ([`write_stdout`]).
pub fn exit_for_clap(tool: &str, e: clap::Error) -> ! {
    use std::io::Write;
    let code = if e.use_stderr() {
        // Usage errors read like every other error of the tool
        // (`simt-opt: error: …`), so scripts and people match one prefix.
        let text = e.render().to_string();
        let text = text.strip_prefix("error: ").unwrap_or(&text);
        let _ = write!(std::io::stderr(), "{tool}: error: {text}");
        e.exit_code()
    } else {
        let printed = e.print();
        match printed.and_then(|_| std::io::stdout().lock().flush()) {
            Ok(()) => e.exit_code(),
            Err(err) => report(tool, &stdout_error(err)),
        }
    };
    std::process::exit(code)
}

/// Seconds as the tools print them (`--stats`, the emulator's summary):
/// `1.23 s`, `12.3 ms`, `456 µs`, `789 ns`.
pub fn format_seconds(s: f64) -> String {
    if !s.is_finite() {
        return "-".into();
    }
    let a = s.abs();
    if a >= 1.0 {
        format!("{s:.3} s")
    } else if a >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else if a >= 1e-6 {
        format!("{:.3} µs", s * 1e6)
    } else {
        format!("{:.0} ns", s * 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds() {
        assert_eq!(format_seconds(1.5), "1.500 s");
        assert_eq!(format_seconds(2.5e-5), "25.000 µs");
        assert_eq!(format_seconds(3e-8), "30 ns");
    }
}
