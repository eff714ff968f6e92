//! Editing IR through the typed handles of [`value`](super::value): types,
//! an instruction builder, and the in-place edits transforms need that
//! inkwell lacks or guards behind `unsafe` (setting operands and successors,
//! moving instructions between blocks with their names, rebuilding phis,
//! inserting and deleting blocks).
//!
//! The invariant is the handles' own: every handle points to a live value,
//! block or type of a context that lives for `'ctx`. Edits that would break
//! LLVM's own invariants in ways its C API does not check (an operand or a
//! replacement of another type, a load through a non-pointer) are asserted
//! here, so a bug in a pass panics instead of corrupting memory. Erasing an
//! instruction or deleting a block ends its handles' life, as with inkwell:
//! callers must not use them afterwards.

use super::ty::Ty;
use super::value::{Inst, Value};
use inkwell::basic_block::BasicBlock;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use std::ffi::CString;
use std::marker::PhantomData;

/// Copies a value's name out of LLVM (empty for unnamed values).
fn raw_name(v: LLVMValueRef) -> Vec<u8> {
    let mut len = 0usize;
    // SAFETY: `v` is a live value (callers pass handles' raw values); the
    // name is `len` bytes owned by the value, copied at once.
    unsafe {
        let p = LLVMGetValueName2(v, &mut len);
        if p.is_null() {
            return Vec::new();
        }
        std::slice::from_raw_parts(p.cast::<u8>(), len).to_vec()
    }
}

fn c_string(bytes: Vec<u8>) -> CString {
    CString::new(bytes.into_iter().filter(|&b| b != 0).collect::<Vec<u8>>()).expect("NULs removed")
}

fn block<'ctx>(raw: LLVMBasicBlockRef) -> BasicBlock<'ctx> {
    // SAFETY: callers pass blocks LLVM just handed out for live handles of `'ctx`.
    unsafe { BasicBlock::new(raw) }.expect("a live block is not null")
}

impl<'ctx> Value<'ctx> {
    pub fn ty(self) -> Ty<'ctx> {
        // SAFETY: `raw` is a live value (type invariant).
        Ty { raw: unsafe { LLVMTypeOf(self.raw()) }, _ctx: PhantomData }
    }

    pub fn is_constant(self) -> bool {
        // SAFETY: `raw` is a live value.
        unsafe { !LLVMIsAConstant(self.raw()).is_null() }
    }

    pub fn is_constant_int(self) -> bool {
        // SAFETY: `raw` is a live value.
        unsafe { !LLVMIsAConstantInt(self.raw()).is_null() }
    }

    pub fn is_global_variable(self) -> bool {
        // SAFETY: `raw` is a live value.
        unsafe { !LLVMIsAGlobalVariable(self.raw()).is_null() }
    }

    pub fn is_constant_expr(self) -> bool {
        // SAFETY: `raw` is a live value.
        unsafe { !LLVMIsAConstantExpr(self.raw()).is_null() }
    }

    /// A global's value type (what it holds, not the pointer type).
    pub fn global_value_type(self) -> Ty<'ctx> {
        assert!(self.is_global(), "the value type of a non-global");
        // SAFETY: `raw` is a live global.
        Ty { raw: unsafe { LLVMGlobalGetValueType(self.raw()) }, _ctx: PhantomData }
    }

    /// Whether a global is only declared here (defined elsewhere).
    pub fn is_declaration(self) -> bool {
        assert!(self.is_global(), "declaration status of a non-global");
        // SAFETY: `raw` is a live global.
        unsafe { LLVMIsDeclaration(self.raw()) != 0 }
    }

    /// The alignment of a global, `alloca`, load, store, `atomicrmw` or
    /// `cmpxchg` (0: unspecified).
    pub fn alignment(self) -> u32 {
        use llvm_sys::LLVMOpcode::*;
        let is_aligned = self.is_global()
            || self.as_inst().is_some_and(|i| matches!(i.opcode(), LLVMAlloca | LLVMLoad | LLVMStore | LLVMAtomicRMW | LLVMAtomicCmpXchg));
        assert!(is_aligned, "alignment of a value that has none");
        // SAFETY: `raw` is a live value of a kind LLVMGetAlignment takes.
        unsafe { LLVMGetAlignment(self.raw()) }
    }

    /// Replaces every use of `self` by `new`, of the same type.
    pub fn replace_all_uses_with(self, new: Value<'ctx>) {
        assert_eq!(self.ty(), new.ty(), "replacement of another type");
        // SAFETY: both are live values of one type.
        unsafe { LLVMReplaceAllUsesWith(self.raw(), new.raw()) }
    }

    /// Whether anything uses the value (instructions, constants, globals).
    pub fn has_uses(self) -> bool {
        // SAFETY: `raw` is a live value.
        unsafe { !LLVMGetFirstUse(self.raw()).is_null() }
    }

    /// Sets the name (LLVM makes it unique in the function).
    pub fn set_name(self, name: &[u8]) {
        // SAFETY: `raw` is live; the name is passed with its length.
        unsafe { LLVMSetValueName2(self.raw(), name.as_ptr().cast(), name.len()) }
    }

    pub fn name_bytes(self) -> Vec<u8> {
        raw_name(self.raw())
    }
}

impl<'ctx> Inst<'ctx> {
    pub fn ty(self) -> Ty<'ctx> {
        self.value().ty()
    }

    pub fn is_alloca(self) -> bool {
        self.opcode() == llvm_sys::LLVMOpcode::LLVMAlloca
    }

    /// The type an `alloca` allocates.
    pub fn allocated_type(self) -> Ty<'ctx> {
        assert!(self.is_alloca(), "allocated type of a non-alloca");
        // SAFETY: `raw` is a live alloca.
        Ty { raw: unsafe { LLVMGetAllocatedType(self.raw()) }, _ctx: PhantomData }
    }

    /// The next instruction in the block.
    pub fn next(self) -> Option<Inst<'ctx>> {
        // SAFETY: `raw` is a live instruction in a block.
        let n = unsafe { LLVMGetNextInstruction(self.raw()) };
        // SAFETY: a non-null result is a live instruction of the same function.
        (!n.is_null()).then(|| unsafe { Value::from_raw(n) }.as_inst().expect("an instruction"))
    }

    /// Sets operand `i` (a value of the operand's current type).
    pub fn set_operand(self, i: u32, v: Value<'ctx>) {
        let old = self.operand(i);
        assert_eq!(old.ty(), v.ty(), "operand {i} replaced by a value of another type");
        // SAFETY: `raw` is a live user with more than `i` operands, `v` live.
        unsafe { LLVMSetOperand(self.raw(), i, v.raw()) }
    }

    /// A terminator's successors in slot order (duplicates kept).
    pub fn successors(self) -> Vec<BasicBlock<'ctx>> {
        assert!(self.is_terminator(), "successors of a non-terminator");
        // SAFETY: `raw` is a live terminator; slots are below its count.
        unsafe { (0..LLVMGetNumSuccessors(self.raw())).map(|k| block(LLVMGetSuccessor(self.raw(), k))).collect() }
    }

    pub fn set_successor(self, k: u32, to: BasicBlock<'ctx>) {
        assert!(self.is_terminator(), "successor of a non-terminator");
        // SAFETY: `raw` is a live terminator with more than `k` successors
        // (checked by LLVM's own bounds on the operand list below).
        unsafe {
            assert!(k < LLVMGetNumSuccessors(self.raw()), "successor {k} out of range");
            LLVMSetSuccessor(self.raw(), k, to.as_mut_ptr())
        }
    }

    /// Moves the instruction to the end of `to`, keeping its name.
    pub fn move_to_end(self, to: BasicBlock<'ctx>) {
        let name = c_string(raw_name(self.raw()));
        let b = Builder::new(self.value());
        // SAFETY: `raw` is a live instruction; after removal it is inserted
        // at once by a builder positioned in `to`, a live block.
        unsafe {
            LLVMInstructionRemoveFromParent(self.raw());
            LLVMPositionBuilderAtEnd(b.raw, to.as_mut_ptr());
            LLVMInsertIntoBuilderWithName(b.raw, self.raw(), name.as_ptr());
        }
    }

    /// Erases the instruction, which must have no uses left.
    pub fn erase(self) {
        assert!(self.users().is_empty(), "erasing an instruction still in use");
        // SAFETY: `raw` is a live instruction with no users; the handle (and
        // its copies) end here, as the module documentation says.
        unsafe { LLVMInstructionEraseFromParent(self.raw()) }
    }

    /// Keeps only a phi's entries from blocks `keep` accepts (the C API
    /// cannot remove an entry, so the phi is rebuilt in place under its
    /// name); returns the new phi, which has taken over every use of the
    /// old one.
    pub fn retain_incoming(self, keep: impl Fn(BasicBlock<'ctx>) -> bool) -> Inst<'ctx> {
        let entries: Vec<_> = self.incoming().into_iter().filter(|&(_, b)| keep(b)).collect();
        let mut b = Builder::new(self.value());
        b.position_before(self);
        let name = self.value().name_bytes();
        let new = b.phi(self.ty(), "");
        new.add_incoming(&entries);
        self.value().replace_all_uses_with(new.value());
        self.erase();
        new.value().set_name(&name);
        new
    }

    /// Adds incoming entries to a phi.
    pub fn add_incoming(self, entries: &[(Value<'ctx>, BasicBlock<'ctx>)]) {
        assert!(self.is_phi(), "incoming entries of a non-phi");
        let mut vals: Vec<LLVMValueRef> = entries.iter().map(|(v, _)| v.raw()).collect();
        let mut blocks: Vec<LLVMBasicBlockRef> = entries.iter().map(|(_, b)| b.as_mut_ptr()).collect();
        for (v, _) in entries {
            assert_eq!(v.ty(), self.ty(), "a phi's incoming value of another type");
        }
        // SAFETY: `raw` is a live phi; the arrays hold `len` live values and blocks.
        unsafe { LLVMAddIncoming(self.raw(), vals.as_mut_ptr(), blocks.as_mut_ptr(), vals.len() as u32) }
    }
}

/// The terminators that branch to `bb`, each once.
pub fn branches_to<'ctx>(bb: BasicBlock<'ctx>) -> Vec<Inst<'ctx>> {
    // SAFETY: a live block is a live value (inkwell invariant).
    let v: Value<'ctx> = unsafe { Value::from_raw(LLVMBasicBlockAsValue(bb.as_mut_ptr())) };
    let mut out: Vec<Inst<'ctx>> = Vec::new();
    for user in v.users() {
        if user.is_terminator() && !out.contains(&user) {
            out.push(user);
        }
    }
    out
}

/// A new empty block named `name` just before `before`, in its function.
pub fn insert_block_before<'ctx>(before: BasicBlock<'ctx>, name: &str) -> BasicBlock<'ctx> {
    let name = c_string(name.as_bytes().to_vec());
    // SAFETY: `before` is a live block of a function; its context is live.
    unsafe {
        let ctx = LLVMGetTypeContext(LLVMTypeOf(LLVMBasicBlockAsValue(before.as_mut_ptr())));
        block(LLVMInsertBasicBlockInContext(ctx, before.as_mut_ptr(), name.as_ptr()))
    }
}

/// Deletes `bb` and its instructions, none of which may be used elsewhere.
pub fn delete_block(bb: BasicBlock<'_>) {
    // SAFETY: `bb` is a live block; LLVM removes it from its function and
    // frees it with its instructions. Its handles end here.
    unsafe { LLVMDeleteBasicBlock(bb.as_mut_ptr()) }
}

/// Deletes a function nothing uses any more. Its handles end here.
pub fn delete_function(f: inkwell::values::FunctionValue<'_>) {
    assert!(!Value::from(f).has_uses(), "deleting a function still in use");
    // SAFETY: `f` is a live function with no uses; LLVM frees it and its body.
    unsafe { LLVMDeleteFunction(inkwell::values::AsValueRef::as_value_ref(&f)) }
}

/// An instruction builder; every instruction it makes goes where it was
/// positioned last (it must be positioned before building).
pub struct Builder<'ctx> {
    pub(super) raw: LLVMBuilderRef,
    pub(super) positioned: bool,
    _ctx: PhantomData<&'ctx ()>,
}

impl<'ctx> Builder<'ctx> {
    /// A builder in the context of `any` (any value of it).
    pub fn new(any: Value<'ctx>) -> Builder<'ctx> {
        // SAFETY: `any` is live, so is its type's context.
        let raw = unsafe { LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(any.raw()))) };
        Builder { raw, positioned: false, _ctx: PhantomData }
    }

    pub fn position_before(&mut self, i: Inst<'ctx>) {
        // SAFETY: `i` is a live instruction in a block.
        unsafe { LLVMPositionBuilderBefore(self.raw, i.raw()) };
        self.positioned = true;
    }

    pub fn position_at_end(&mut self, bb: BasicBlock<'ctx>) {
        // SAFETY: `bb` is a live block.
        unsafe { LLVMPositionBuilderAtEnd(self.raw, bb.as_mut_ptr()) };
        self.positioned = true;
    }

    fn made(&self, raw: LLVMValueRef) -> Inst<'ctx> {
        // SAFETY: LLVM just made `raw`, an instruction in the builder's block.
        unsafe { Value::from_raw(raw) }.as_inst().expect("builders make instructions")
    }

    pub fn phi(&mut self, ty: Ty<'ctx>, name: &str) -> Inst<'ctx> {
        assert!(self.positioned, "an unpositioned builder");
        let name = c_string(name.as_bytes().to_vec());
        // SAFETY: the builder is positioned in a live block; `ty` is live.
        self.made(unsafe { LLVMBuildPhi(self.raw, ty.raw, name.as_ptr()) })
    }

    pub fn br(&mut self, to: BasicBlock<'ctx>) -> Inst<'ctx> {
        assert!(self.positioned, "an unpositioned builder");
        // SAFETY: as above; `to` is a live block.
        self.made(unsafe { LLVMBuildBr(self.raw, to.as_mut_ptr()) })
    }

    pub fn alloca(&mut self, ty: Ty<'ctx>, name: &str) -> Inst<'ctx> {
        assert!(self.positioned, "an unpositioned builder");
        let name = c_string(name.as_bytes().to_vec());
        // SAFETY: as above.
        self.made(unsafe { LLVMBuildAlloca(self.raw, ty.raw, name.as_ptr()) })
    }

    pub fn load(&mut self, ty: Ty<'ctx>, ptr: Value<'ctx>, name: &str) -> Inst<'ctx> {
        assert!(self.positioned, "an unpositioned builder");
        assert!(ptr.ty().is_pointer(), "a load through a non-pointer");
        let name = c_string(name.as_bytes().to_vec());
        // SAFETY: as above; `ptr` is a live pointer value.
        self.made(unsafe { LLVMBuildLoad2(self.raw, ty.raw, ptr.raw(), name.as_ptr()) })
    }

    pub fn store(&mut self, v: Value<'ctx>, ptr: Value<'ctx>) -> Inst<'ctx> {
        assert!(self.positioned, "an unpositioned builder");
        assert!(ptr.ty().is_pointer(), "a store through a non-pointer");
        // SAFETY: as above.
        self.made(unsafe { LLVMBuildStore(self.raw, v.raw(), ptr.raw()) })
    }
}

impl<'ctx> Builder<'ctx> {
    /// The raw builder, for the other builder files of `ir/`; asserts that
    /// it is positioned, so what it builds goes into a block.
    pub(super) fn positioned_raw(&self) -> LLVMBuilderRef {
        assert!(self.positioned, "an unpositioned builder");
        self.raw
    }
}

impl Drop for Builder<'_> {
    fn drop(&mut self) {
        // SAFETY: `raw` was created by `new` and is disposed of once.
        unsafe { LLVMDisposeBuilder(self.raw) }
    }
}
