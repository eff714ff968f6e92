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

/// Each instruction of a function as `opt` prints it, from one print of the
/// whole function.
///
/// Printing instructions one at a time makes LLVM's slot tracker number the
/// whole function for each of them: quadratic, 5 s for a printer on a
/// 6,600-block function. One print of the function gives the same text: its
/// body lists the instructions in order, one a line (a `switch` goes on over
/// lines that are indented deeper or start with `]`), between block labels
/// (at column 0) and debug records (`#dbg_…`). Where the lines do not match
/// the instructions one to one, each instruction is printed on its own.
pub struct InstructionText {
    lines: HashMap<LLVMValueRef, String>,
}

impl InstructionText {
    pub fn new(function: FunctionValue<'_>) -> InstructionText {
        let insts: Vec<LLVMValueRef> =
            function.get_basic_block_iter().flat_map(|bb| super::instructions(bb).map(|i| i.value().raw()).collect::<Vec<_>>()).collect();
        // SAFETY: a function is a live value (inkwell invariant).
        let text = unsafe { print_value(function.as_value_ref()) };
        let mut lines: Vec<String> = Vec::with_capacity(insts.len());
        for line in text.lines() {
            let body = line.trim_start();
            let indent = line.len() - body.len();
            if indent == 0 || body.is_empty() || body.starts_with("#dbg_") || body.starts_with(';') {
                continue;
            }
            match lines.last_mut() {
                Some(last) if indent > 2 || body.starts_with(']') => {
                    last.push('\n');
                    last.push_str(line);
                }
                _ => lines.push(body.to_string()),
            }
        }
        let lines = if lines.len() == insts.len() {
            insts.into_iter().zip(lines).collect()
        } else {
            // SAFETY: the instructions of a live function are live.
            insts.into_iter().map(|i| (i, unsafe { print_value(i) })).collect()
        };
        InstructionText { lines }
    }

    /// The instruction as LLVM prints it, without leading indentation.
    pub fn of(&self, inst: super::Inst<'_>) -> String {
        self.lines.get(&inst.value().raw()).cloned().unwrap_or_else(|| inst.value().print())
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

#[cfg(test)]
mod tests {
    use super::*;
    use inkwell::context::Context;

    /// The text from one print of the function is what printing each
    /// instruction alone gives: unnamed and quoted names, a switch over
    /// several lines, a phi, metadata attachments and a debug record.
    #[test]
    fn instruction_text_matches_printing_each_instruction() {
        let ir = r#"
define i32 @f(i32 %0, ptr %"a b") !dbg !4 {
entry:
  %1 = add i32 %0, 1, !dbg !7
    #dbg_value(i32 %1, !8, !DIExpression(), !7)
  switch i32 %1, label %d [
    i32 0, label %a
    i32 7, label %d
  ]
a:
  store i32 %1, ptr %"a b", align 4
  br label %d
d:
  %r = phi i32 [ %1, %entry ], [ %1, %entry ], [ 2, %a ]
  ret i32 %r
}
!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3}
!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, emissionKind: FullDebug)
!1 = !DIFile(filename: "f.c", directory: "/")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 1, type: !5, unit: !0, retainedNodes: !6)
!5 = !DISubroutineType(types: !6)
!6 = !{}
!7 = !DILocation(line: 2, column: 3, scope: !4)
!8 = !DILocalVariable(name: "x", scope: !4, file: !1, line: 2, type: !9)
!9 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
"#;
        let ctx = Context::create();
        let m = super::super::parse_ir(&ctx, "t.ll", ir.as_bytes()).expect("valid IR");
        let f = m.get_function("f").unwrap();
        let text = InstructionText::new(f);
        let mut n = 0;
        for bb in f.get_basic_block_iter() {
            for i in super::super::instructions(bb) {
                assert_eq!(text.of(i), i.value().print());
                n += 1;
            }
        }
        assert_eq!(n, 6);
        // The lines were taken from the function's print, not the fallback.
        let switch = text.lines.values().find(|l| l.starts_with("switch")).unwrap();
        assert!(switch.contains("i32 7, label %d") && switch.ends_with(']'), "{switch}");
    }
}
