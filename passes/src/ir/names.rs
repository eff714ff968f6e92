//! Names and printed forms of values, the way `opt` shows them.
//!
//! Operand names follow LLVM's slot numbering, so printers say `%3` where
//! `opt` says `%3`.

use inkwell::basic_block::BasicBlock;
use inkwell::values::{AsValueRef, FunctionValue};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use std::collections::HashMap;
use std::ffi::CStr;

/// The name as written in IR (`foo`, or `"a b"` quoted where needed), no sigil.
fn ir_identifier(name: &str) -> String {
    let plain =
        !name.is_empty() && !name.as_bytes()[0].is_ascii_digit() && name.bytes().all(|c| c.is_ascii_alphanumeric() || b"-$._".contains(&c));
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

pub(crate) fn value_name(v: LLVMValueRef) -> String {
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
