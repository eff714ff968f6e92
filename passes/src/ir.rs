//! Thin, safe helpers over the LLVM C API for what inkwell lacks or gets wrong.
//!
//! - Parsing goes through `LLVMParseIRInContext2` with a buffer named after the
//!   file, so errors come out in LLVM's own `file:line:col: error:` form and the
//!   buffer is freed (inkwell's `create_module_from_ir` leaks it, and parsing a
//!   borrowed buffer without a NUL terminator crashes).
//! - Cloning goes through `LLVMCloneModule`: inkwell's `Clone` asserts the module
//!   verifies, a panic we must not hand to users.
//! - Operand names follow LLVM's slot numbering, so printers say `%3` where
//!   `opt` says `%3`.

use inkwell::basic_block::BasicBlock;
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::values::{AsValueRef, FunctionValue};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use std::collections::HashMap;
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

unsafe fn take_message(msg: *mut std::ffi::c_char) -> Option<String> {
    if msg.is_null() {
        return None;
    }
    let s = CStr::from_ptr(msg).to_string_lossy().into_owned();
    LLVMDisposeMessage(msg);
    Some(s)
}

/// Runs the IR verifier; the error text is LLVM's.
pub fn verify(module: &Module<'_>) -> Result<(), String> {
    module.verify().map_err(|e| e.to_string().trim_end().to_string())
}

/// A copy of `module` in the same context, whether or not it verifies.
pub fn clone_module<'ctx>(module: &Module<'ctx>) -> Module<'ctx> {
    unsafe { Module::new(LLVMCloneModule(module.as_mut_ptr())) }
}

/// Functions with a body, in module order.
pub fn defined_functions<'ctx>(module: &Module<'ctx>) -> Vec<FunctionValue<'ctx>> {
    module.get_functions().filter(|f| f.count_basic_blocks() > 0).collect()
}

/// The name as written in IR (`foo`, or `"a b"` quoted where needed), no sigil.
fn ir_identifier(name: &str) -> String {
    let plain = !name.is_empty()
        && !name.as_bytes()[0].is_ascii_digit()
        && name.bytes().all(|c| c.is_ascii_alphanumeric() || b"-$._".contains(&c));
    if plain {
        name.to_string()
    } else {
        let mut out = String::from("\"");
        for c in name.bytes() {
            if c == b'"' || c == b'\\' || !(0x20..0x7f).contains(&c) {
                out.push_str(&format!("\\{c:02X}"));
            } else {
                out.push(c as char);
            }
        }
        out.push('"');
        out
    }
}

/// The value's name, without sigil or quoting ("" when unnamed).
pub fn value_name_of(v: LLVMValueRef) -> String {
    value_name(v)
}

fn value_name(v: LLVMValueRef) -> String {
    unsafe {
        let mut len = 0usize;
        let p = LLVMGetValueName2(v, &mut len);
        if p.is_null() || len == 0 {
            String::new()
        } else {
            String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), len)).into_owned()
        }
    }
}

/// How `opt` refers to a function's arguments, blocks and instructions.
pub struct SlotNames {
    names: HashMap<LLVMValueRef, String>,
}

impl SlotNames {
    /// Numbers unnamed values the way LLVM's slot tracker does: arguments,
    /// then per block the block label and its non-void instructions.
    pub fn new(function: FunctionValue<'_>) -> SlotNames {
        let mut names = HashMap::new();
        let mut next = 0u32;
        let mut name_it = |v: LLVMValueRef, counts: bool, names: &mut HashMap<LLVMValueRef, String>| {
            let n = value_name(v);
            if !n.is_empty() {
                names.insert(v, format!("%{}", ir_identifier(&n)));
            } else if counts {
                names.insert(v, format!("%{next}"));
                next += 1;
            }
        };
        for p in params(function) {
            name_it(p, true, &mut names);
        }
        for bb in function.get_basic_block_iter() {
            name_it(unsafe { LLVMBasicBlockAsValue(bb.as_mut_ptr()) }, true, &mut names);
            for inst in bb.get_instructions() {
                let v = inst.as_value_ref();
                let non_void = unsafe { LLVMGetTypeKind(LLVMTypeOf(v)) } != llvm_sys::LLVMTypeKind::LLVMVoidTypeKind;
                name_it(v, non_void, &mut names);
            }
        }
        SlotNames { names }
    }

    pub fn of_value(&self, v: LLVMValueRef) -> &str {
        self.names.get(&v).map_or("<badref>", String::as_str)
    }

    pub fn of_block(&self, bb: BasicBlock<'_>) -> &str {
        self.of_value(unsafe { LLVMBasicBlockAsValue(bb.as_mut_ptr()) })
    }
}

/// A function's parameters. inkwell's `get_param_iter` panics ("not a basic
/// type") on parameters of target extension types such as OpenCL's
/// `target("spirv.Image", …)`; the C API takes any type.
pub fn params(function: FunctionValue<'_>) -> Vec<LLVMValueRef> {
    let f = function.as_value_ref();
    unsafe { (0..LLVMCountParams(f)).map(|i| LLVMGetParam(f, i)).collect() }
}

/// A type as LLVM prints it (`ptr addrspace(1)`, `target("spirv.Image", …)`):
/// works for every type, where inkwell's typed enums reject some.
///
/// # Safety
/// `ty` must be a live type.
pub unsafe fn print_type(ty: LLVMTypeRef) -> String {
    let s = LLVMPrintTypeToString(ty);
    let out = CStr::from_ptr(s).to_string_lossy().into_owned();
    LLVMDisposeMessage(s);
    out
}

/// The instruction as LLVM prints it, without leading indentation.
pub fn print_value(v: LLVMValueRef) -> String {
    unsafe {
        let p = LLVMPrintValueToString(v);
        let s = CStr::from_ptr(p).to_string_lossy().trim().to_string();
        LLVMDisposeMessage(p);
        s
    }
}

/// The name of the function called by `call`/`invoke`/`callbr`, if direct.
pub fn called_function_name(inst: LLVMValueRef) -> Option<String> {
    unsafe {
        let callee = LLVMGetCalledValue(inst);
        if callee.is_null() || LLVMIsAFunction(callee).is_null() {
            return None;
        }
        Some(value_name(callee))
    }
}

pub fn function_name(f: FunctionValue<'_>) -> String {
    value_name(f.as_value_ref())
}

/// Calling conventions of GPU dialects that a CPU backend does not know.
const GPU_CALLING_CONVENTIONS: [u32; 3] = [71 /* PTX_Kernel */, 75 /* SPIR_FUNC */, 76 /* SPIR_KERNEL */];

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
    unsafe {
        let mut f = LLVMGetFirstFunction(module.as_mut_ptr());
        while !f.is_null() {
            let next = LLVMGetNextFunction(f);
            if value_name(f).starts_with("__clang_ocl_kern_imp_") && LLVMGetFirstUse(f).is_null() {
                LLVMDeleteFunction(f);
            }
            f = next;
        }
    }
}
