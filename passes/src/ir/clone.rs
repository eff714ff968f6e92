//! Cloning instructions: a copy of an instruction outside any block
//! ([`Detached`]), whose operands a pass remaps before a [`Builder`] inserts
//! it; call targets; dropping debug locations.
//!
//! A detached clone is owned: it is either inserted (becoming an [`Inst`])
//! or deleted when dropped, so no handle to an instruction outside a block
//! escapes, and nothing can use it before it is placed. Its operands are
//! the original's until set, and setting one checks its type as
//! [`Inst::set_operand`] does.

use super::edit::Builder;
use super::value::{Inst, Value};
use llvm_sys::core::*;
use llvm_sys::debuginfo::LLVMInstructionSetDebugLoc;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;
use std::ffi::CString;
use std::marker::PhantomData;

/// A clone of an instruction that is in no block yet.
pub struct Detached<'ctx> {
    /// Null once inserted.
    raw: LLVMValueRef,
    _ctx: PhantomData<&'ctx ()>,
}

impl<'ctx> Inst<'ctx> {
    /// A copy of the instruction, with the same operands, no name and no
    /// block.
    pub fn clone_detached(self) -> Detached<'ctx> {
        // SAFETY: `raw` is a live instruction; the clone is a new instruction
        // of the same context, owned by the `Detached` returned.
        let raw = unsafe { LLVMInstructionClone(self.raw()) };
        assert!(!raw.is_null(), "LLVM could not clone {}", self.value().print());
        Detached { raw, _ctx: PhantomData }
    }

    /// The value a call, invoke or callbr calls (a function, or any pointer
    /// for an indirect call).
    pub fn callee(self) -> Value<'ctx> {
        assert!(
            matches!(self.opcode(), LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr),
            "the callee of a non-call"
        );
        // SAFETY: `raw` is a live call site, whose callee is a live value.
        unsafe { Value::from_raw(LLVMGetCalledValue(self.raw())) }
    }

    /// Drops the instruction's debug location (`!dbg`).
    pub fn clear_debug_location(self) {
        // SAFETY: `raw` is a live instruction; a null location removes it.
        unsafe { LLVMInstructionSetDebugLoc(self.raw(), std::ptr::null_mut()) }
    }

    /// Gives the instruction `from`'s debug location (none if it has none).
    pub fn copy_debug_location(self, from: Inst<'ctx>) {
        // SAFETY: both are live instructions of one context; the location
        // is metadata of that context (or null, which removes it).
        unsafe { LLVMInstructionSetDebugLoc(self.raw(), llvm_sys::debuginfo::LLVMInstructionGetDebugLoc(from.raw())) }
    }
}

impl<'ctx> Detached<'ctx> {
    pub fn num_operands(&self) -> u32 {
        // SAFETY: `raw` is a live instruction (not yet inserted or dropped).
        unsafe { LLVMGetNumOperands(self.raw).max(0) as u32 }
    }

    pub fn operand(&self, i: u32) -> Value<'ctx> {
        assert!(i < self.num_operands(), "operand {i} out of range");
        // SAFETY: `raw` is a live instruction with more than `i` operands.
        unsafe { Value::from_raw(LLVMGetOperand(self.raw, i)) }
    }

    /// Sets operand `i` to a value of the operand's current type.
    pub fn set_operand(&mut self, i: u32, v: Value<'ctx>) {
        assert_eq!(self.operand(i).ty(), v.ty(), "operand {i} replaced by a value of another type");
        // SAFETY: `raw` is a live instruction with more than `i` operands, `v` live.
        unsafe { LLVMSetOperand(self.raw, i, v.raw()) }
    }
}

impl Drop for Detached<'_> {
    fn drop(&mut self) {
        if !self.raw.is_null() {
            // SAFETY: a clone never inserted: it is in no block, and nothing
            // uses it (no handle to it was handed out); deleting it drops its
            // own uses of its operands.
            unsafe { LLVMDeleteInstruction(self.raw) }
        }
    }
}

impl<'ctx> Builder<'ctx> {
    /// Inserts a detached clone at the builder's position, named `name`
    /// (unnamed if `name` holds a NUL byte).
    pub fn insert(&self, mut d: Detached<'ctx>, name: &[u8]) -> Inst<'ctx> {
        let b = self.positioned_raw();
        let name = CString::new(name).unwrap_or_default();
        let raw = std::mem::replace(&mut d.raw, std::ptr::null_mut());
        // SAFETY: a positioned builder and a live instruction in no block,
        // which the builder places; from here on the block owns it.
        unsafe {
            LLVMInsertIntoBuilderWithName(b, raw, name.as_ptr());
            Inst::from_raw(raw)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{instructions, parse_ir, terminator, AccessGroup};
    use inkwell::context::Context;

    const SRC: &str = "define i64 @f(i64 %a, i64 %b, ptr %p) {\nentry:\n  %s = add i64 %a, %b, !dbg !4\n  store i64 %s, ptr %p\n  ret i64 %s\n}\n\
        !llvm.module.flags = !{!0}\n!llvm.dbg.cu = !{!1}\n!0 = !{i32 2, !\"Debug Info Version\", i32 3}\n\
        !1 = distinct !DICompileUnit(language: DW_LANG_C99, file: !2)\n!2 = !DIFile(filename: \"t.c\", directory: \"/\")\n\
        !3 = distinct !DISubprogram(name: \"f\", scope: !2, file: !2, unit: !1, spFlags: DISPFlagDefinition)\n!4 = !DILocation(line: 1, scope: !3)\n";

    #[test]
    fn clones_remap_and_insert() {
        let ctx = Context::create();
        let m = parse_ir(&ctx, "t.ll", SRC.as_bytes()).expect("parses");
        let f = m.get_function("f").expect("@f");
        let entry = f.get_first_basic_block().expect("entry");
        let insts: Vec<Inst<'_>> = instructions(entry).collect();
        let (add, store) = (insts[0], insts[1]);
        let mut b = Builder::new(Value::from(f));
        b.position_before(terminator(entry).expect("ret"));
        let mut c = add.clone_detached();
        assert_eq!(c.num_operands(), 2);
        c.set_operand(1, c.operand(0));
        let c = b.insert(c, b"s2");
        assert!(c.value().print().starts_with("%s2 = add i64 %a, %a, !dbg"));
        c.clear_debug_location();
        assert_eq!(c.value().print(), "%s2 = add i64 %a, %a");
        // A clone never inserted is deleted, taking its uses with it.
        let a = add.operand(0);
        let uses_before = a.users().len();
        let d = add.clone_detached();
        assert_eq!(a.users().len(), uses_before + 1);
        drop(d);
        assert_eq!(a.users().len(), uses_before);
        let group = AccessGroup::new(&m);
        store.set_access_group(group);
        assert!(store.value().print().contains("!llvm.access.group"));
        assert!(crate::ir::verify(&m).is_ok());
    }

    #[test]
    #[should_panic(expected = "replaced by a value of another type")]
    fn clone_operand_of_another_type_panics() {
        let ctx = Context::create();
        let m = parse_ir(&ctx, "t.ll", SRC.as_bytes()).expect("parses");
        let f = m.get_function("f").expect("@f");
        let insts: Vec<Inst<'_>> = instructions(f.get_first_basic_block().expect("entry")).collect();
        let mut c = insts[1].clone_detached();
        c.set_operand(0, insts[1].operand(1));
    }
}
