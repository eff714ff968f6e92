//! simt's passes as an LLVM pass plugin:
//!
//! ```text
//! opt-22 -load-pass-plugin=libsimt_plugin.so -passes='simt-wiloops<local-size=64>,default<O3>' in.ll
//! clang-22 -fpass-plugin=libsimt_plugin.so -mllvm -simt-nvptx ...   (NVPTX modules)
//! ```
//!
//! The C++ shim (shim.cpp) registers a pipeline-parsing callback with LLVM's
//! pass builder; each element simt knows becomes a module pass that calls
//! [`simt_plugin_run`] with the module. Here the module is lent to simt's
//! pass manager ([`simt_passes::pipeline::run_by_name`]) without taking it over,
//! each pass with a fresh analysis cache (LLVM's analysis manager knows
//! nothing of simt's), followed by the verifier as in `simt-opt`.
//!
//! Errors become LLVM diagnostics (the shim's `emitError`), so `opt` and
//! `clang` report them and fail. A panic is caught here and reported the same
//! way: unwinding into LLVM's C++ frames would be undefined behaviour.
//! Printers (`print<simt-uniformity>`) write to stderr, where `opt`'s own
//! `print<...>` passes write. `SIMT_VERIFY_ANALYSES=1` checks each pass's
//! preserved-analyses claim as `simt-opt` does. Remarks of simt's passes go
//! to LLVM's diagnostics (the shim builds `OptimizationRemark`s), so `opt`'s
//! `-pass-remarks=simt-swp` prints them and `-pass-remarks-output` writes
//! them with LLVM's own.
//!
//! The library links the same `libLLVM-22.so` as `opt-22` and `clang-22`
//! (llvm-sys's `prefer-dynamic`): with a second, static LLVM in the process
//! the module would belong to the other copy's types.

use llvm_sys::prelude::LLVMModuleRef;
use simt_passes::remarks::{Remark, RemarkKind, RemarkSink};
use std::ffi::{c_char, c_int, c_void, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// `llvm::PassPluginLibraryInfo` (llvm/Plugins/PassPlugin.h), which
/// `llvmGetPassPluginInfo` returns by value; the shim asserts its size.
#[repr(C)]
pub struct PassPluginLibraryInfo {
    api_version: u32,
    plugin_name: *const c_char,
    plugin_version: *const c_char,
    register_pass_builder_callbacks: Option<unsafe extern "C" fn(*mut c_void)>,
    pre_codegen_callback: Option<unsafe extern "C" fn()>,
}

extern "C" {
    /// shim.cpp: registers the callbacks with a `llvm::PassBuilder`.
    fn simt_plugin_register(pass_builder: *mut c_void);
    /// shim.cpp: whether LLVM's diagnostics take a remark of `kind` from `pass`.
    fn simt_plugin_remark_wanted(module: LLVMModuleRef, kind: c_int, pass: *const c_char) -> bool;
    /// shim.cpp: hands a remark to LLVM's diagnostics.
    #[allow(clippy::too_many_arguments)]
    fn simt_plugin_remark_emit(
        module: LLVMModuleRef,
        kind: c_int,
        pass: *const c_char,
        name: *const c_char,
        function: *const c_char,
        keys: *const *const c_char,
        values: *const *const c_char,
        n: usize,
    );
}

/// Remarks of simt's passes, handed to LLVM's diagnostics: `opt`'s
/// `-pass-remarks*` flags and its `-pass-remarks-output` stream apply to
/// them as to LLVM's own passes.
struct LlvmRemarks {
    module: LLVMModuleRef,
}

fn kind_code(kind: RemarkKind) -> c_int {
    match kind {
        RemarkKind::Passed => 0,
        RemarkKind::Missed => 1,
        RemarkKind::Analysis => 2,
    }
}

/// Text for C; a NUL inside (no name of ours has one) becomes a space.
fn c_text(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).unwrap_or_default()
}

impl RemarkSink for LlvmRemarks {
    fn wants(&self, kind: RemarkKind, pass: &str) -> bool {
        // SAFETY: the module is the one LLVM lent for this pass's run.
        unsafe { simt_plugin_remark_wanted(self.module, kind_code(kind), c_text(pass).as_ptr()) }
    }

    fn emit(&mut self, r: &Remark) {
        let keys: Vec<CString> = r.args.iter().map(|a| c_text(&a.key)).collect();
        let values: Vec<CString> = r.args.iter().map(|a| c_text(&a.value)).collect();
        let key_ptrs: Vec<*const c_char> = keys.iter().map(|k| k.as_ptr()).collect();
        let value_ptrs: Vec<*const c_char> = values.iter().map(|v| v.as_ptr()).collect();
        let (pass, name, function) = (c_text(&r.pass), c_text(&r.name), c_text(&r.function));
        // SAFETY: every pointer is to a live NUL-terminated string for the
        // call, the arrays hold `n` of them, and the module is LLVM's lent one.
        unsafe {
            simt_plugin_remark_emit(
                self.module,
                kind_code(r.kind),
                pass.as_ptr(),
                name.as_ptr(),
                function.as_ptr(),
                key_ptrs.as_ptr(),
                value_ptrs.as_ptr(),
                r.args.len(),
            )
        }
    }
}

/// The entry point LLVM's `PassPlugin::Load` looks up. Defined here, not in
/// the shim, because a cdylib exports only the Rust side's symbols.
#[no_mangle]
pub extern "C" fn llvmGetPassPluginInfo() -> PassPluginLibraryInfo {
    PassPluginLibraryInfo {
        api_version: 2,
        plugin_name: c"simt".as_ptr(),
        plugin_version: concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast(),
        register_pass_builder_callbacks: Some(simt_plugin_register),
        pre_codegen_callback: None,
    }
}

/// The element text the shim hands over (a `StringRef`: not NUL-terminated).
///
/// # Safety
/// `text` points to `len` readable bytes that outlive the returned borrow.
unsafe fn element<'a>(text: *const c_char, len: usize) -> &'a str {
    // SAFETY: the caller promises `len` readable bytes at `text`.
    let bytes = unsafe { std::slice::from_raw_parts(text.cast::<u8>(), len) };
    // A pipeline is command-line text; invalid UTF-8 names no pass of ours.
    std::str::from_utf8(bytes).unwrap_or("")
}

/// Whether the element names one of simt's passes. Bad options still count:
/// the pass is added and reports them when it runs, in simt's words, rather
/// than LLVM calling the whole element an unknown pass.
///
/// # Safety
/// `text` points to `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn simt_plugin_knows(text: *const c_char, len: usize) -> bool {
    // SAFETY: the shim passes a StringRef's data and size.
    let text = unsafe { element(text, len) };
    catch_unwind(|| simt_passes::registry::knows(text)).unwrap_or(false)
}

/// Runs the pass `text` names on `module`: 0 unchanged, 1 changed, 2 failed
/// with `*message` set to a string for [`simt_plugin_free_message`].
///
/// # Safety
/// `module` is a live module the caller (a running LLVM pass) lends for the
/// call; `text` points to `len` readable bytes; `message` is writable.
#[no_mangle]
pub unsafe extern "C" fn simt_plugin_run(module: LLVMModuleRef, text: *const c_char, len: usize, message: *mut *mut c_char) -> c_int {
    // SAFETY: the shim passes a StringRef's data and size.
    let text = unsafe { element(text, len) };
    let verify_analyses = simt_passes::pipeline::verify_analyses_from_env();
    // No sink when LLVM takes no remark of this pass: then a remark costs the
    // pass one check, as in simt-opt.
    let remarks = LlvmRemarks { module };
    let bare = text.split('<').next().unwrap_or_default();
    let wanted = [RemarkKind::Passed, RemarkKind::Missed, RemarkKind::Analysis].into_iter().any(|k| remarks.wants(k, bare));
    let sink: Option<Box<dyn RemarkSink>> = if wanted { Some(Box::new(remarks)) } else { None };
    let run = || {
        // SAFETY: LLVM's pass manager lends the module to this pass alone
        // for the duration of the call.
        unsafe {
            simt_passes::ir::with_borrowed_module(module, |m| {
                simt_passes::pipeline::run_by_name_with_remarks(m, text, verify_analyses, &mut std::io::stderr(), sink)
                    .map_err(|e| e.to_string())
            })
        }
    };
    let error = match catch_unwind(AssertUnwindSafe(run)) {
        Ok(Ok(changed)) => return c_int::from(changed),
        Ok(Err(e)) => e,
        Err(panic) => {
            let what = panic.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| panic.downcast_ref::<String>().cloned());
            format!("{text}: internal error (a panic in simt): {}", what.unwrap_or_else(|| "no message".into()))
        }
    };
    // SAFETY: the shim passes a pointer to its local `char *`.
    unsafe { *message = CString::new(error.replace('\0', " ")).unwrap_or_default().into_raw() };
    2
}

/// Frees a message [`simt_plugin_run`] returned.
///
/// # Safety
/// `message` came from [`simt_plugin_run`] and is freed once.
#[no_mangle]
pub unsafe extern "C" fn simt_plugin_free_message(message: *mut c_char) {
    if !message.is_null() {
        // SAFETY: made by `CString::into_raw` in `simt_plugin_run`.
        drop(unsafe { CString::from_raw(message) });
    }
}
