//! Process-wide LLVM set-up: targets, command-line options for LLVM's own
//! instrumentation, and a fatal-error handler so LLVM's `report_fatal_error`
//! ends in a one-line message and exit code 1 instead of an abort (its own
//! stderr stream failing at exit included).

use inkwell::targets::{InitializationConfig, Target};
use std::ffi::{c_char, CStr};
use std::sync::Once;

static INIT: Once = Once::new();

extern "C" fn fatal_error(reason: *const c_char) {
    // SAFETY: LLVM calls this handler with `reason`, a NUL-terminated
    // message that lives for the call (installed only in `init`).
    let msg = unsafe { CStr::from_ptr(reason) }.to_string_lossy();
    let tool = std::env::args().next().map(|a| a.rsplit('/').next().unwrap_or("simt").to_string());
    crate::diag::eprint(&format!("{}: error: LLVM: {msg}\n", tool.unwrap_or_else(|| "simt".into())));
    // `_exit`, not `exit`: LLVM also reports from its exit-time destructors
    // (`errs()` that could not be written: "IO failure on output stream",
    // after `-print-after-all` with stderr full or closed early), and
    // calling `exit` again from inside `exit` aborts. Everything the tools
    // write to stdout is flushed where it is written, so nothing is lost.
    // SAFETY: `_exit` has no preconditions; it does not return.
    unsafe { libc::_exit(1) }
}

/// Initializes the x86 and NVPTX targets and installs the fatal-error handler.
pub fn init() {
    INIT.call_once(|| {
        Target::initialize_x86(&InitializationConfig::default());
        Target::initialize_nvptx(&InitializationConfig::default());
        // `fatal_error` never returns to LLVM (it `_exit`s).
        simt_passes::ir::install_fatal_error_handler(fatal_error);
    });
}

/// Hands options such as `-print-after-all` to LLVM's `cl::opt`s, which its
/// pass instrumentation reads. Call once, before running LLVM passes.
pub fn set_llvm_options(tool: &str, options: &[String]) {
    simt_passes::ir::parse_command_line_options(tool, options);
}
