//! Typed handles on values and instructions, and the walks over them that
//! inkwell does not offer (users with operand positions, phi incomings,
//! pointer address spaces of any type).
//!
//! A handle is a raw `LLVMValueRef` tagged with the lifetime `'ctx` of the
//! LLVM context that owns it, like inkwell's own values; it is `Copy`, and
//! compares and hashes by identity. The invariant every method relies on:
//! **a handle points to a live value of its kind.** Handles are made only
//! from inkwell values (which hold the same invariant), from other handles'
//! operands, users and parents, or through the `unsafe` [`Value::from_raw`],
//! whose caller promises it. A value must not be used after its instruction
//! or function is erased, as with inkwell.

use inkwell::basic_block::BasicBlock;
use inkwell::values::{AsValueRef, FunctionValue, InstructionValue};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMOpcode, LLVMTypeKind};
use std::marker::PhantomData;

/// Any value: an instruction, argument, constant, global or basic block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value<'ctx> {
    raw: LLVMValueRef,
    _ctx: PhantomData<&'ctx ()>,
}

/// An instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Inst<'ctx> {
    raw: LLVMValueRef,
    _ctx: PhantomData<&'ctx ()>,
}

impl<'ctx> Value<'ctx> {
    /// # Safety
    /// `raw` must be a live value of a module whose context lives for `'ctx`.
    pub unsafe fn from_raw(raw: LLVMValueRef) -> Value<'ctx> {
        Value { raw, _ctx: PhantomData }
    }

    /// The raw handle, for LLVM-C calls inside `ir/` and for code not yet
    /// moved onto this layer.
    pub fn raw(self) -> LLVMValueRef {
        self.raw
    }

    pub fn as_inst(self) -> Option<Inst<'ctx>> {
        // SAFETY: `raw` is a live value (type invariant).
        (unsafe { !LLVMIsAInstruction(self.raw).is_null() }).then_some(Inst { raw: self.raw, _ctx: PhantomData })
    }

    pub fn is_argument(self) -> bool {
        // SAFETY: `raw` is a live value.
        unsafe { !LLVMIsAArgument(self.raw).is_null() }
    }

    pub fn is_global(self) -> bool {
        // SAFETY: `raw` is a live value.
        unsafe { !LLVMIsAGlobalValue(self.raw).is_null() }
    }

    /// `null` or `undef`/`poison` pointers and other values.
    pub fn is_null_or_undef(self) -> bool {
        // SAFETY: `raw` is a live value.
        unsafe { !LLVMIsAConstantPointerNull(self.raw).is_null() || !LLVMIsAUndefValue(self.raw).is_null() }
    }

    /// The opcode of an instruction or of a constant expression.
    pub fn opcode(self) -> Option<LLVMOpcode> {
        // SAFETY: `raw` is a live value; each call is made on the kind it asks for.
        unsafe {
            if !LLVMIsAInstruction(self.raw).is_null() {
                Some(LLVMGetInstructionOpcode(self.raw))
            } else if !LLVMIsAConstantExpr(self.raw).is_null() {
                Some(LLVMGetConstOpcode(self.raw))
            } else {
                None
            }
        }
    }

    /// Operand `i` of an instruction or constant expression (`i` below
    /// [`Value::num_operands`]).
    pub fn operand(self, i: u32) -> Value<'ctx> {
        assert!(i < self.num_operands(), "operand {i} out of range");
        // SAFETY: `raw` is a live user with more than `i` operands.
        Value { raw: unsafe { LLVMGetOperand(self.raw, i) }, _ctx: PhantomData }
    }

    pub fn num_operands(self) -> u32 {
        // SAFETY: `raw` is a live value; LLVM returns -1 for non-users.
        unsafe { LLVMGetNumOperands(self.raw).max(0) as u32 }
    }

    pub fn type_kind(self) -> LLVMTypeKind {
        // SAFETY: `raw` is a live value with a type.
        unsafe { LLVMGetTypeKind(LLVMTypeOf(self.raw)) }
    }

    pub fn is_void(self) -> bool {
        self.type_kind() == LLVMTypeKind::LLVMVoidTypeKind
    }

    /// The address space of a pointer, or of the elements of a vector of
    /// pointers; `None` for other types.
    pub fn address_space(self) -> Option<u32> {
        // SAFETY: `raw` is live; the element type is asked of vectors only.
        unsafe {
            let mut ty = LLVMTypeOf(self.raw);
            if LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMVectorTypeKind {
                ty = LLVMGetElementType(ty);
            }
            (LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMPointerTypeKind).then(|| LLVMGetPointerAddressSpace(ty))
        }
    }

    /// The value of an integer constant, zero-extended (`None` for anything
    /// else, and for constants wider than 64 bits).
    pub fn const_u64(self) -> Option<u64> {
        // SAFETY: `raw` is live; the value is read from integer constants only.
        unsafe {
            if LLVMIsAConstantInt(self.raw).is_null() || LLVMGetIntTypeWidth(LLVMTypeOf(self.raw)) > 64 {
                return None;
            }
            Some(LLVMConstIntGetZExtValue(self.raw))
        }
    }

    /// Every use of the value by an instruction, with the operand position,
    /// each once, ordered by user.
    pub fn uses(self) -> Vec<(Inst<'ctx>, u32)> {
        let mut out = Vec::new();
        for user in self.users() {
            for k in 0..user.num_operands() {
                if user.operand(k) == self {
                    out.push((user, k));
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The instructions using the value, in use-list order; an instruction
    /// using it twice may appear twice.
    pub fn users(self) -> Vec<Inst<'ctx>> {
        let mut out: Vec<Inst<'ctx>> = Vec::new();
        // SAFETY: `raw` is live; the use list is walked with LLVM's own links
        // and nothing is changed while walking.
        unsafe {
            let mut u = LLVMGetFirstUse(self.raw);
            while !u.is_null() {
                let user = LLVMGetUser(u);
                u = LLVMGetNextUse(u);
                if !LLVMIsAInstruction(user).is_null() {
                    out.push(Inst { raw: user, _ctx: PhantomData });
                }
            }
        }
        out
    }

    /// The name without sigil or quoting ("" when unnamed).
    pub fn name(self) -> String {
        // SAFETY: `raw` is a live value (type invariant).
        unsafe { super::names::value_name(self.raw) }
    }

    /// The value as LLVM prints it, without leading indentation.
    pub fn print(self) -> String {
        // SAFETY: `raw` is a live value (type invariant).
        unsafe { super::names::print_value(self.raw) }
    }
}

impl<'ctx> Inst<'ctx> {
    /// # Safety
    /// `raw` must be a live instruction of a module whose context lives for
    /// `'ctx`.
    pub unsafe fn from_raw(raw: LLVMValueRef) -> Inst<'ctx> {
        Inst { raw, _ctx: PhantomData }
    }

    pub fn value(self) -> Value<'ctx> {
        Value { raw: self.raw, _ctx: PhantomData }
    }

    pub fn raw(self) -> LLVMValueRef {
        self.raw
    }

    pub fn opcode(self) -> LLVMOpcode {
        // SAFETY: `raw` is a live instruction.
        unsafe { LLVMGetInstructionOpcode(self.raw) }
    }

    pub fn operand(self, i: u32) -> Value<'ctx> {
        self.value().operand(i)
    }

    pub fn num_operands(self) -> u32 {
        self.value().num_operands()
    }

    pub fn operands(self) -> impl Iterator<Item = Value<'ctx>> {
        (0..self.num_operands()).map(move |i| self.operand(i))
    }

    pub fn users(self) -> Vec<Inst<'ctx>> {
        self.value().users()
    }

    /// The block the instruction is in.
    pub fn block(self) -> BasicBlock<'ctx> {
        // SAFETY: `raw` is a live instruction (type invariant), so it may be
        // wrapped as inkwell's instruction handle of the same context.
        let i = unsafe { InstructionValue::new(self.raw) };
        i.get_parent().expect("instructions handed out by this layer are in a block")
    }

    pub fn is_void(self) -> bool {
        self.value().is_void()
    }

    pub fn is_terminator(self) -> bool {
        // SAFETY: `raw` is a live instruction.
        unsafe { !LLVMIsATerminatorInst(self.raw).is_null() }
    }

    /// A terminator that can go more than one way depending on an operand:
    /// conditional `br`, `switch`, `indirectbr`, `callbr`.
    pub fn is_conditional_terminator(self) -> bool {
        match self.opcode() {
            // SAFETY: `raw` is a live `br`.
            LLVMOpcode::LLVMBr => unsafe { LLVMIsConditional(self.raw) != 0 },
            LLVMOpcode::LLVMSwitch | LLVMOpcode::LLVMIndirectBr | LLVMOpcode::LLVMCallBr => true,
            _ => false,
        }
    }

    pub fn is_phi(self) -> bool {
        self.opcode() == LLVMOpcode::LLVMPHI
    }

    /// A phi's incoming values, in order.
    pub fn incoming_values(self) -> Vec<Value<'ctx>> {
        assert!(self.is_phi(), "incoming values of a non-phi");
        // SAFETY: `raw` is a live phi; indices are below its incoming count.
        unsafe { (0..LLVMCountIncoming(self.raw)).map(|k| Value::from_raw(LLVMGetIncomingValue(self.raw, k))).collect() }
    }

    /// Whether a load, store, `atomicrmw` or `cmpxchg` is volatile (false
    /// for other instructions).
    pub fn is_volatile(self) -> bool {
        use LLVMOpcode::*;
        // SAFETY: `raw` is a live instruction of a kind LLVMGetVolatile takes.
        matches!(self.opcode(), LLVMLoad | LLVMStore | LLVMAtomicRMW | LLVMAtomicCmpXchg) && unsafe { LLVMGetVolatile(self.raw) != 0 }
    }

    /// Whether the instruction is atomic (an atomic load or store, `atomicrmw`,
    /// `cmpxchg`, `fence`).
    pub fn is_atomic(self) -> bool {
        // SAFETY: `raw` is a live instruction.
        unsafe { LLVMIsAtomic(self.raw) != 0 }
    }

    /// For a call, invoke or callbr to a function named in the IR: its name.
    pub fn called_function_name(self) -> Option<String> {
        matches!(self.opcode(), LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr)
            // SAFETY: `raw` is a live call site (checked just above).
            .then(|| unsafe { super::names::called_function_name(self.raw) })
            .flatten()
    }

    /// For a call to an LLVM intrinsic (`llvm.*`): its name.
    pub fn intrinsic_name(self) -> Option<String> {
        if !matches!(self.opcode(), LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr) {
            return None;
        }
        // SAFETY: `raw` is a live call site; the callee is asked for its
        // intrinsic id only when it is a function.
        let intrinsic = unsafe {
            let callee = LLVMGetCalledValue(self.raw);
            !callee.is_null() && !LLVMIsAFunction(callee).is_null() && LLVMGetIntrinsicID(callee) != 0
        };
        if intrinsic {
            self.called_function_name()
        } else {
            None
        }
    }

    /// The arguments of a call site (its operands but the callee and bundles).
    pub fn num_call_args(self) -> u32 {
        assert!(matches!(self.opcode(), LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr));
        // SAFETY: `raw` is a live call site (checked).
        unsafe { LLVMGetNumArgOperands(self.raw) }
    }

    /// A phi's incoming entries: each value with the block it comes from.
    pub fn incoming(self) -> Vec<(Value<'ctx>, BasicBlock<'ctx>)> {
        assert!(self.is_phi(), "incoming entries of a non-phi");
        // SAFETY: `raw` is a live phi; indices are below its incoming count,
        // and its incoming blocks are live blocks of the same context.
        unsafe {
            (0..LLVMCountIncoming(self.raw))
                .map(|k| {
                    let bb = BasicBlock::new(LLVMGetIncomingBlock(self.raw, k)).expect("a phi's incoming block is not null");
                    (Value::from_raw(LLVMGetIncomingValue(self.raw, k)), bb)
                })
                .collect()
        }
    }
}

impl<'ctx> From<InstructionValue<'ctx>> for Inst<'ctx> {
    fn from(i: InstructionValue<'ctx>) -> Inst<'ctx> {
        Inst { raw: i.as_value_ref(), _ctx: PhantomData }
    }
}

impl<'ctx> From<InstructionValue<'ctx>> for Value<'ctx> {
    fn from(i: InstructionValue<'ctx>) -> Value<'ctx> {
        Inst::from(i).value()
    }
}

impl<'ctx> From<Inst<'ctx>> for Value<'ctx> {
    fn from(i: Inst<'ctx>) -> Value<'ctx> {
        i.value()
    }
}

impl<'ctx> From<FunctionValue<'ctx>> for Value<'ctx> {
    fn from(f: FunctionValue<'ctx>) -> Value<'ctx> {
        Value { raw: f.as_value_ref(), _ctx: PhantomData }
    }
}

/// The instructions of a block, in order.
pub fn instructions(bb: BasicBlock<'_>) -> impl Iterator<Item = Inst<'_>> {
    bb.get_instructions().map(Inst::from)
}

/// A function's parameters as values. inkwell's `get_param_iter` panics ("not
/// a basic type") on parameters of target extension types such as OpenCL's
/// `target("spirv.Image", …)`; the C API takes any type.
pub fn parameters(function: FunctionValue<'_>) -> Vec<Value<'_>> {
    let f = function.as_value_ref();
    // SAFETY: `f` is a live function (inkwell invariant); indices are below
    // its parameter count.
    unsafe { (0..LLVMCountParams(f)).map(|i| Value::from_raw(LLVMGetParam(f, i))).collect() }
}

/// The target triple of the module that holds `function`.
pub fn target_triple(function: FunctionValue<'_>) -> String {
    // SAFETY: `function` is live (inkwell invariant), so is its module; the
    // triple is a NUL-terminated string owned by the module, copied at once.
    unsafe {
        let triple = LLVMGetTarget(LLVMGetGlobalParent(function.as_value_ref()));
        if triple.is_null() {
            String::new()
        } else {
            std::ffi::CStr::from_ptr(triple).to_string_lossy().into_owned()
        }
    }
}
