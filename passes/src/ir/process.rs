//! Process-wide LLVM state: its version and where its code is, its
//! fatal-error handler, and the `cl::opt` command-line options its own
//! instrumentation reads (`-print-after-all`, `-time-passes`,
//! `-pass-remarks`).

use std::ffi::{c_char, CString};

/// The version of the LLVM this process runs on: (major, minor, patch).
pub fn llvm_version() -> (u32, u32, u32) {
    let (mut major, mut minor, mut patch) = (0u32, 0u32, 0u32);
    // SAFETY: LLVMGetVersion only writes the three integers it is given.
    unsafe { llvm_sys::core::LLVMGetVersion(&mut major, &mut minor, &mut patch) };
    (major, minor, patch)
}

/// An address in LLVM's code (one of its C API functions), for asking the
/// dynamic loader which file LLVM was loaded from (`dladdr`).
pub fn llvm_code_address() -> *const std::ffi::c_void {
    llvm_sys::core::LLVMGetVersion as *const std::ffi::c_void
}

/// Makes `handler` what LLVM calls on `report_fatal_error`, with the reason
/// as a NUL-terminated string that lives for the call. LLVM aborts if the
/// handler returns, so it should end the process itself.
pub fn install_fatal_error_handler(handler: extern "C" fn(reason: *const c_char)) {
    // SAFETY: `handler` is an `extern "C"` fn of the signature LLVM expects
    // and, being a fn item, lives for the whole program.
    unsafe { llvm_sys::error_handling::LLVMInstallFatalErrorHandler(Some(handler)) };
}

/// Hands `options` to LLVM's `cl::opt`s as if `tool` had been run with
/// them. Call once, before running LLVM passes. The options are
/// command-line text, which holds no NUL byte.
pub fn parse_command_line_options(tool: &str, options: &[String]) {
    if options.is_empty() {
        return;
    }
    let args: Vec<CString> =
        std::iter::once(tool).chain(options.iter().map(String::as_str)).map(|s| CString::new(s).expect("no NUL in options")).collect();
    let ptrs: Vec<*const c_char> = args.iter().map(|a| a.as_ptr()).collect();
    // SAFETY: `ptrs` holds `ptrs.len()` pointers to NUL-terminated strings
    // owned by `args`, both alive for the call (LLVM copies what it keeps);
    // a null overview is allowed.
    unsafe {
        llvm_sys::support::LLVMParseCommandLineOptions(ptrs.len() as i32, ptrs.as_ptr(), std::ptr::null());
    }
}
