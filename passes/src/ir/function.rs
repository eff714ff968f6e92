//! Running LLVM's own passes over a module (`Value::as_function` is in
//! `bridge.rs`).

use inkwell::module::Module;
use inkwell::targets::TargetMachine;

/// Runs LLVM's new-pass-manager pipeline `passes` (`opt -passes=` syntax) on
/// `module` with no target machine (target-independent cost and
/// compatibility answers); returns LLVM's error message on failure.
pub fn run_passes(module: &Module<'_>, passes: &str) -> Result<(), String> {
    run_pipeline(module, passes, None, false, false)
}

/// [`run_passes`] with `tm`'s target information when given, LLVM's
/// verifier after every pass when `verify_each` (`opt -verify-each`), and
/// LLVM's "Running pass: …" lines on stderr when `debug_logging`
/// (`opt -debug-pass-manager`).
pub fn run_pipeline(
    module: &Module<'_>,
    passes: &str,
    tm: Option<&TargetMachine>,
    verify_each: bool,
    debug_logging: bool,
) -> Result<(), String> {
    use llvm_sys::transforms::pass_builder::*;
    let text = std::ffi::CString::new(passes).map_err(|_| "a pass pipeline with a NUL byte".to_string())?;
    // SAFETY: `module` and `tm` are live (inkwell invariant); the options
    // are created and disposed of here; a null target machine is allowed;
    // the error, if any, is turned into its message, copied, and both
    // disposed of.
    unsafe {
        let opts = LLVMCreatePassBuilderOptions();
        LLVMPassBuilderOptionsSetVerifyEach(opts, verify_each.into());
        LLVMPassBuilderOptionsSetDebugLogging(opts, debug_logging.into());
        let tm = tm.map_or(std::ptr::null_mut(), |t| t.as_mut_ptr());
        let err = LLVMRunPasses(module.as_mut_ptr(), text.as_ptr(), tm, opts);
        LLVMDisposePassBuilderOptions(opts);
        if err.is_null() {
            return Ok(());
        }
        let msg = llvm_sys::error::LLVMGetErrorMessage(err);
        let s = std::ffi::CStr::from_ptr(msg).to_string_lossy().into_owned();
        llvm_sys::error::LLVMDisposeErrorMessage(msg);
        Err(s)
    }
}
