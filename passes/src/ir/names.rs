//! Names and printed forms of values, the way `opt` shows them.
//!
//! Operand names follow LLVM's slot numbering, so printers say `%3` where
//! `opt` says `%3`.

use inkwell::basic_block::BasicBlock;
use inkwell::values::FunctionValue;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use std::collections::HashMap;
use std::ffi::CStr;

use super::value::Value;

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
///
/// # Safety
/// `v` must be a live value.
pub(crate) unsafe fn value_name(v: LLVMValueRef) -> String {
    let mut len = 0usize;
    // SAFETY: `v` is live (caller); LLVM returns a pointer to `len` bytes it
    // owns, copied at once.
    unsafe {
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
        let mut name_it = |v: Value<'_>, counts: bool, names: &mut HashMap<LLVMValueRef, String>| {
            let n = v.name();
            let v = v.raw();
            if !n.is_empty() {
                names.insert(v, format!("%{}", ir_identifier(&n)));
            } else if counts {
                names.insert(v, format!("%{next}"));
                next += 1;
            }
        };
        for p in super::parameters(function) {
            name_it(p, true, &mut names);
        }
        for bb in function.get_basic_block_iter() {
            name_it(Value::of_block(bb), true, &mut names);
            for inst in super::instructions(bb) {
                name_it(inst.value(), !inst.is_void(), &mut names);
            }
        }
        SlotNames { names }
    }

    pub fn of_value(&self, v: LLVMValueRef) -> &str {
        self.names.get(&v).map_or("<badref>", String::as_str)
    }

    pub fn of_block(&self, bb: BasicBlock<'_>) -> &str {
        self.of_value(Value::of_block(bb).raw())
    }
}

/// The value as LLVM prints it, without leading indentation.
///
/// # Safety
/// `v` must be a live value.
pub(crate) unsafe fn print_value(v: LLVMValueRef) -> String {
    // SAFETY: `v` is live (caller); the message is NUL-terminated, ours,
    // copied and disposed of once.
    unsafe {
        let p = LLVMPrintValueToString(v);
        let s = CStr::from_ptr(p).to_string_lossy().trim().to_string();
        LLVMDisposeMessage(p);
        s
    }
}

/// The name of the function called by `call`/`invoke`/`callbr`, if direct.
///
/// # Safety
/// `inst` must be a live call site.
pub(crate) unsafe fn called_function_name(inst: LLVMValueRef) -> Option<String> {
    // SAFETY: `inst` is a live call site (caller); a non-null callee is a
    // live value, asked for its name only when it is a function.
    unsafe {
        let callee = LLVMGetCalledValue(inst);
        if callee.is_null() || LLVMIsAFunction(callee).is_null() {
            return None;
        }
        Some(value_name(callee))
    }
}

pub fn function_name(f: FunctionValue<'_>) -> String {
    Value::from(f).name()
}
