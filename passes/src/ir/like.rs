//! Building an instruction like another on new operands, which may be of
//! another shape (a vector of the original's scalars): what
//! `simt-warp-exchange`'s warp collapsing (`transform/warp_collapse.rs`)
//! needs to run one lane's code for a whole warp at once.
//!
//! The builder folds operations on constants (LLVM's `ConstantFolder`), so
//! an instruction rebuilt on constants is a constant: the collapsing reads
//! a loop's uniform control from that. Fast-math flags are copied, since
//! they change results (`contract` lets the backend fuse a multiply and an
//! add, which the emulator then must do too); integer poison flags
//! (`nsw`, `nuw`, `exact`, `disjoint`, `nneg`) are dropped, which can only
//! make fewer values poison.

use super::edit::Builder;
use super::ty::Ty;
use super::value::{Inst, Value};
use llvm_sys::core::*;
use llvm_sys::LLVMOpcode;
use std::ffi::CString;

impl<'ctx> Builder<'ctx> {
    /// `like`'s operation on `ops` (as many as `like` has, each of
    /// `like`'s operand type or a vector of it), giving `ty` (the result
    /// type, or the vector of it the operands make): for binary operators,
    /// casts, compares, `select`, `fneg` and `freeze`. `None` for any other
    /// instruction.
    pub fn rebuild_like(&mut self, like: Inst<'ctx>, ops: &[Value<'ctx>], ty: Ty<'ctx>) -> Option<Value<'ctx>> {
        use LLVMOpcode::*;
        let raw = self.positioned_raw();
        let name = CString::default();
        let op = like.opcode();
        // SAFETY: (all arms) a positioned builder; operands live in the
        // builder's context, checked against the operation's shape first.
        let v = unsafe {
            match op {
                LLVMAdd | LLVMSub | LLVMMul | LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem | LLVMShl | LLVMLShr | LLVMAShr | LLVMAnd
                | LLVMOr | LLVMXor | LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFDiv | LLVMFRem => {
                    let [a, b] = ops else { return None };
                    (a.ty() == b.ty()).then_some(())?;
                    LLVMBuildBinOp(raw, op, a.raw(), b.raw(), name.as_ptr())
                }
                LLVMTrunc | LLVMZExt | LLVMSExt | LLVMFPToUI | LLVMFPToSI | LLVMUIToFP | LLVMSIToFP | LLVMFPTrunc | LLVMFPExt
                | LLVMBitCast => {
                    let [a] = ops else { return None };
                    (a.ty().is_vector() == ty.is_vector()).then_some(())?;
                    LLVMBuildCast(raw, op, a.raw(), ty.raw(), name.as_ptr())
                }
                LLVMICmp => {
                    let [a, b] = ops else { return None };
                    (a.ty() == b.ty()).then_some(())?;
                    LLVMBuildICmp(raw, like.icmp_predicate(), a.raw(), b.raw(), name.as_ptr())
                }
                LLVMFCmp => {
                    let [a, b] = ops else { return None };
                    (a.ty() == b.ty()).then_some(())?;
                    LLVMBuildFCmp(raw, like.fcmp_predicate(), a.raw(), b.raw(), name.as_ptr())
                }
                LLVMSelect => {
                    let [c, a, b] = ops else { return None };
                    (a.ty() == b.ty()).then_some(())?;
                    LLVMBuildSelect(raw, c.raw(), a.raw(), b.raw(), name.as_ptr())
                }
                LLVMFNeg => {
                    let [a] = ops else { return None };
                    LLVMBuildFNeg(raw, a.raw(), name.as_ptr())
                }
                LLVMFreeze => {
                    let [a] = ops else { return None };
                    LLVMBuildFreeze(raw, a.raw(), name.as_ptr())
                }
                _ => return None,
            }
        };
        // SAFETY: the C API returned a live value (or folded constant).
        let v = unsafe { Value::from_raw(v) };
        self.copy_fast_math(like, v);
        Some(v)
    }

    /// Gives `to` (if an instruction that can have them) `from`'s
    /// fast-math flags.
    pub fn copy_fast_math(&self, from: Inst<'ctx>, to: Value<'ctx>) {
        let Some(to) = to.as_inst() else { return };
        // SAFETY: live instructions; the flags are read and set only on
        // instructions that can carry them.
        unsafe {
            if LLVMCanValueUseFastMathFlags(from.raw()) != 0 && LLVMCanValueUseFastMathFlags(to.raw()) != 0 {
                LLVMSetFastMathFlags(to.raw(), LLVMGetFastMathFlags(from.raw()));
            }
        }
    }
}

impl<'ctx> Builder<'ctx> {
    /// The vector whose element `k` is `v`'s element `idx[k]`.
    pub fn permute(&mut self, v: Value<'ctx>, idx: &[u32]) -> Value<'ctx> {
        let raw = self.positioned_raw();
        let ty = v.ty();
        assert!(ty.is_vector() && idx.iter().all(|&k| k < ty.vector_len()), "a permutation out of the vector");
        let i32t = ty.int_in_context_of(32);
        let mask = const_vector(&idx.iter().map(|&k| i32t.const_int(u64::from(k))).collect::<Vec<_>>());
        let name = CString::default();
        // SAFETY: a positioned builder; a live vector and a constant mask
        // of in-range lanes.
        unsafe { Value::from_raw(LLVMBuildShuffleVector(raw, v.raw(), LLVMGetPoison(ty.raw()), mask.raw(), name.as_ptr())) }
    }
}

/// The constant vector of `elems` (constants of one type, at least one).
pub fn const_vector<'ctx>(elems: &[Value<'ctx>]) -> Value<'ctx> {
    assert!(!elems.is_empty() && elems.iter().all(|e| e.is_constant() && e.ty() == elems[0].ty()), "a vector of non-constants");
    let mut raws: Vec<_> = elems.iter().map(|e| e.raw()).collect();
    // SAFETY: live constants of one type, passed with their count.
    unsafe { Value::from_raw(LLVMConstVector(raws.as_mut_ptr(), raws.len() as u32)) }
}
