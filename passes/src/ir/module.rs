//! Modules: parsing, verifying, cloning, retargeting.
//!
//! - Parsing goes through `LLVMParseIRInContext2` with a buffer named after the
//!   file, so errors come out in LLVM's own `file:line:col: error:` form and the
//!   buffer is freed (inkwell's `create_module_from_ir` leaks it, and parsing a
//!   borrowed buffer without a NUL terminator crashes).
//! - Cloning goes through `LLVMCloneModule`: inkwell's `Clone` asserts the module
//!   verifies, a panic we must not hand to users.

use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::values::{AsValueRef, FunctionValue};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use std::ffi::{CStr, CString};

/// Malformed IR: LLVM's diagnostic, already prefixed with `name:line:col:`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ParseError {
    pub message: String,
}

/// Parses textual IR or bitcode (detected by its magic) named `name` in errors.
pub fn parse_ir<'ctx>(ctx: &'ctx Context, name: &str, bytes: &[u8]) -> Result<Module<'ctx>, ParseError> {
    let c_name = CString::new(name.replace('\0', "")).expect("NULs removed");
    // SAFETY: the buffer is a copy LLVM owns until disposed of here (the
    // parser does not take it); `ctx` is live; on success the module is
    // handed to inkwell, which owns it from then on; messages are taken once.
    unsafe {
        // The copy is NUL-terminated, which the textual parser relies on.
        let buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(bytes.as_ptr().cast(), bytes.len(), c_name.as_ptr());
        let mut module: LLVMModuleRef = std::ptr::null_mut();
        let mut msg: *mut std::ffi::c_char = std::ptr::null_mut();
        let failed = llvm_sys::ir_reader::LLVMParseIRInContext2(ctx.raw(), buf, &mut module, &mut msg);
        LLVMDisposeMemoryBuffer(buf);
        if failed != 0 || module.is_null() {
            let message = take_message(msg).unwrap_or_else(|| format!("{name}: error: could not parse the module"));
            return Err(ParseError { message: first_diagnostic(&message) });
        }
        take_message(msg);
        Ok(Module::new(module))
    }
}

/// LLVM's SMDiagnostic output is "file:l:c: error: text\nsource\n   ^": keep it,
/// trimmed of trailing whitespace, since the source line and caret help.
fn first_diagnostic(message: &str) -> String {
    message.trim_end().to_string()
}

/// # Safety
/// `msg` is null or a NUL-terminated message LLVM allocated, not yet disposed of.
unsafe fn take_message(msg: *mut std::ffi::c_char) -> Option<String> {
    if msg.is_null() {
        return None;
    }
    // SAFETY: a live LLVM message (caller), copied, then disposed of once.
    unsafe {
        let s = CStr::from_ptr(msg).to_string_lossy().into_owned();
        LLVMDisposeMessage(msg);
        Some(s)
    }
}

/// Runs the IR verifier; the error text is LLVM's.
pub fn verify(module: &Module<'_>) -> Result<(), String> {
    module.verify().map_err(|e| e.to_string().trim_end().to_string())
}

/// A copy of `module` in the same context, whether or not it verifies.
pub fn clone_module<'ctx>(module: &Module<'ctx>) -> Module<'ctx> {
    // SAFETY: `module` is live; the clone is a new module inkwell then owns.
    unsafe { Module::new(LLVMCloneModule(module.as_mut_ptr())) }
}

/// Functions with a body, in module order.
pub fn defined_functions<'ctx>(module: &Module<'ctx>) -> Vec<FunctionValue<'ctx>> {
    module.get_functions().filter(|f| f.count_basic_blocks() > 0).collect()
}

/// Calling conventions of GPU dialects that a CPU backend does not know.
const GPU_CALLING_CONVENTIONS: [u32; 3] = [
    llvm_sys::LLVMCallConv::LLVMPTXKernelCallConv as u32,
    llvm_sys::LLVMCallConv::LLVMSPIRFUNCCallConv as u32,
    llvm_sys::LLVMCallConv::LLVMSPIRKERNELCallConv as u32,
];

/// Moves a module onto another target: triple, data layout, with
/// `for_codegen` the C calling convention for GPU ones when the new target is
/// a CPU (passes before codegen still need to see which functions are
/// kernels), and no `target-cpu`/`target-features` attributes
/// of the old target (an x86 backend refuses `"target-cpu"="sm_70"`).
pub fn retarget(module: &Module<'_>, triple: &str, data_layout: &str, for_codegen: bool) {
    let old_arch = module.get_triple().as_str().to_string_lossy().split('-').next().unwrap_or("").to_string();
    let new_arch = triple.split('-').next().unwrap_or("");
    let to_cpu = for_codegen && !matches!(new_arch, "nvptx" | "nvptx64" | "spir" | "spir64" | "amdgcn");
    let triple_c = CString::new(triple).expect("no NUL in triple");
    let dl_c = CString::new(data_layout).expect("no NUL in data layout");
    // SAFETY: `module` is live; the strings are NUL-terminated copies;
    // functions and instructions are walked with LLVM's own links, the next
    // function taken before the current one is changed (nothing is deleted).
    unsafe {
        let m = module.as_mut_ptr();
        LLVMSetTarget(m, triple_c.as_ptr());
        LLVMSetDataLayout(m, dl_c.as_ptr());
        let mut f = LLVMGetFirstFunction(m);
        while !f.is_null() {
            if to_cpu && GPU_CALLING_CONVENTIONS.contains(&LLVMGetFunctionCallConv(f)) {
                LLVMSetFunctionCallConv(f, llvm_sys::LLVMCallConv::LLVMCCallConv as u32);
            }
            if old_arch != new_arch {
                for attr in ["target-cpu", "target-features", "target-abi"] {
                    LLVMRemoveStringAttributeAtIndex(f, llvm_sys::LLVMAttributeFunctionIndex, attr.as_ptr().cast(), attr.len() as u32);
                }
            }
            for bb in FunctionValue::new(f).into_iter().flat_map(|fv| fv.get_basic_block_iter()) {
                for inst in bb.get_instructions() {
                    let i = inst.as_value_ref();
                    if to_cpu && !LLVMIsACallInst(i).is_null() && GPU_CALLING_CONVENTIONS.contains(&LLVMGetInstructionCallConv(i)) {
                        LLVMSetInstructionCallConv(i, llvm_sys::LLVMCallConv::LLVMCCallConv as u32);
                    }
                }
            }
            f = LLVMGetNextFunction(f);
        }
    }
}

/// clang's OpenCL kernels come with an `__clang_ocl_kern_imp_K` twin that the
/// kernel inlines; once the kernel is lowered (to a CPU function or to PTX),
/// an unused twin only drags work-item builtins into the output.
pub fn remove_unused_kernel_twins(module: &Module<'_>) {
    // SAFETY: `module` is live; the next function is taken before the
    // current one may be deleted, and only functions nothing uses are.
    unsafe {
        let mut f = LLVMGetFirstFunction(module.as_mut_ptr());
        while !f.is_null() {
            let next = LLVMGetNextFunction(f);
            if super::value_name(f).starts_with("__clang_ocl_kern_imp_") && LLVMGetFirstUse(f).is_null() {
                LLVMDeleteFunction(f);
            }
            f = next;
        }
    }
}

/// Lends the module behind `raw` as an inkwell [`Module`] for the duration of
/// `f`, without taking ownership: the module belongs to whoever called us (an
/// LLVM pass manager, when simt runs as a pass plugin) and outlives the loan.
///
/// # Safety
/// `raw` must be a live module that nothing else reads or changes while `f`
/// runs. (The module's lifetime is generic in `f`, so nothing borrowed from
/// it can escape the call.)
pub unsafe fn with_borrowed_module<R>(raw: LLVMModuleRef, f: impl FnOnce(&mut Module<'_>) -> R) -> R {
    // SAFETY: the caller promises `raw` is live and ours alone for the call.
    // `ManuallyDrop` keeps inkwell's `Drop` (which disposes the module) from
    // running, also when `f` unwinds.
    let mut module = std::mem::ManuallyDrop::new(unsafe { Module::new(raw) });
    f(&mut module)
}
