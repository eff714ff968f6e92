//! What each instruction and terminator of a region is to the conversion:
//! speculable as is, needing a safe divisor or a guarded address, or
//! bounding the region.

use super::{GuardForm, Target};
use crate::cfg::BlockId;
use crate::ir::{has_fn_attribute, terminator, Inst, Ty, Value};
use crate::kernel_model::{builtin_of, Builtin};
use crate::transform::ocl_builtins::lane_local_size;
use inkwell::basic_block::BasicBlock;
use llvm_sys::LLVMOpcode;
/// What a speculated instruction needs when its block's predicate is false.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Guard {
    None,
    /// A division: divisor replaced by 1.
    Divisor,
    /// A load or store (pointer operand `idx`): address redirected.
    Address(u32),
}

/// Whether `i` may be speculated, and how; `Err` names what bounds the region.
pub(super) fn classify(i: Inst<'_>, target: Target) -> Result<Guard, &'static str> {
    use LLVMOpcode::*;
    let addressable = |idx: u32| {
        let space = i.operand(idx).ty().address_space();
        if target.guard == GuardForm::Branch || space.is_some_and(|s| target.castable.contains(&s)) {
            Ok(Guard::Address(idx))
        } else {
            Err("an access in an address space the scratch slot cannot stand in for")
        }
    };
    match i.opcode() {
        LLVMLoad if i.is_volatile() || i.is_atomic() => Err("a volatile or atomic load"),
        LLVMLoad => addressable(0),
        LLVMStore if i.is_volatile() || i.is_atomic() => Err("a volatile or atomic store"),
        LLVMStore => addressable(1),
        LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem => {
            if i.ty().is_vector() {
                return Err("a vector division");
            }
            let d = i.operand(1);
            let bits = d.ty().int_width();
            let minus_one = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
            match d.const_u64() {
                Some(c) if c != 0 && c != minus_one => Ok(Guard::None),
                _ => Ok(Guard::Divisor),
            }
        }
        LLVMCall if is_pure_call(i) => Ok(Guard::None),
        LLVMCall => Err("a call that may have side effects or is convergent"),
        LLVMAlloca => Err("an alloca"),
        LLVMFence | LLVMAtomicRMW | LLVMAtomicCmpXchg => Err("an atomic or fence"),
        LLVMInvoke | LLVMCallBr | LLVMLandingPad | LLVMCatchPad | LLVMCleanupPad | LLVMCatchSwitch | LLVMVAArg => {
            Err("exception handling or varargs")
        }
        LLVMRet | LLVMUnreachable | LLVMIndirectBr | LLVMResume | LLVMCleanupRet | LLVMCatchRet => Err("a terminator"),
        _ => Ok(Guard::None),
    }
}

/// Work-item queries, LLVM intrinsics that LLVM itself declares
/// `speculatable` (maths, bit counts, saturating arithmetic, `fptosi.sat`,
/// vector reductions, PTX's special registers: no memory, no side effects,
/// defined for every input) and the OpenCL C built-ins that lower to plain
/// IR (`ocl_builtins::lane_local_size`: clang marks them `convergent`, but
/// each lane's result is its own): nothing another lane's presence changes.
/// LLVM's attribute, not a list here, decides for intrinsics, so whatever
/// `simt-lower-ocl-builtins` makes of a built-in is recognised with it.
pub(crate) fn is_pure_call(i: Inst<'_>) -> bool {
    if let Some(b) = builtin_of(i) {
        return b != Builtin::Barrier;
    }
    if lane_local_size(i).is_some() {
        return true;
    }
    let Some(f) = i.called_function() else { return false };
    let intrinsic = i.called_function_name().is_some_and(|n| n.starts_with("llvm."));
    intrinsic && has_fn_attribute(f, "speculatable") && !has_fn_attribute(f, "convergent") && i.num_operand_bundles() == 0
}

pub(super) fn access_type<'ctx>(i: Inst<'ctx>) -> Ty<'ctx> {
    if i.opcode() == LLVMOpcode::LLVMStore {
        i.operand(0).ty()
    } else {
        i.ty()
    }
}

/// A block's terminator, as far as the predicates need it.
pub(super) enum Branch<'ctx> {
    Jump,
    Cond { c: Value<'ctx>, on_true: BlockId, on_false: BlockId },
    Switch { v: Value<'ctx>, default: BlockId, cases: Vec<(Value<'ctx>, BlockId)> },
}

pub(super) fn branch_kind<'ctx>(id: &dyn Fn(BasicBlock<'ctx>) -> BlockId, bb: BasicBlock<'ctx>) -> Option<Branch<'ctx>> {
    let t = terminator(bb)?;
    let succs = t.successors();
    match t.opcode() {
        LLVMOpcode::LLVMBr if succs.len() == 1 => Some(Branch::Jump),
        LLVMOpcode::LLVMBr => Some(Branch::Cond { c: t.branch_condition(), on_true: id(succs[0]), on_false: id(succs[1]) }),
        LLVMOpcode::LLVMSwitch => Some(Branch::Switch {
            v: t.operand(0),
            default: id(succs[0]),
            cases: t.switch_case_values().into_iter().zip(succs[1..].iter().map(|&s| id(s))).collect(),
        }),
        _ => None,
    }
}
