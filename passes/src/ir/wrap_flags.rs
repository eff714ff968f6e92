//! The poison-generating flags of integer instructions: `nsw`/`nuw` on
//! `add`, `sub`, `mul`, `shl` and (LLVM 19 on) `trunc`, and `nneg` on
//! `zext`; read, and set where a pass has proved them.

use super::value::Inst;
use llvm_sys::core::*;
use llvm_sys::LLVMOpcode;

fn has_wrap_flags(op: LLVMOpcode) -> bool {
    use LLVMOpcode::*;
    matches!(op, LLVMAdd | LLVMSub | LLVMMul | LLVMShl | LLVMTrunc)
}

impl Inst<'_> {
    /// Whether this `add`/`sub`/`mul`/`shl`/`trunc` carries `nsw` (false for
    /// any other instruction).
    pub fn has_nsw(self) -> bool {
        // SAFETY: a live instruction of a kind that has the flag.
        has_wrap_flags(self.opcode()) && unsafe { LLVMGetNSW(self.raw()) } != 0
    }

    /// Whether this `add`/`sub`/`mul`/`shl`/`trunc` carries `nuw`.
    pub fn has_nuw(self) -> bool {
        // SAFETY: as in `has_nsw`.
        has_wrap_flags(self.opcode()) && unsafe { LLVMGetNUW(self.raw()) } != 0
    }

    /// Sets `nsw` and `nuw` (true adds the flag, false removes it) on an
    /// `add`/`sub`/`mul`/`shl`/`trunc`: the caller vouches for them, since
    /// a wrong flag makes the value poison.
    pub fn set_wrap_flags(self, nuw: bool, nsw: bool) {
        assert!(has_wrap_flags(self.opcode()), "wrap flags on a {:?}", self.opcode());
        // SAFETY: a live instruction of a kind that has both flags.
        unsafe {
            LLVMSetNUW(self.raw(), nuw.into());
            LLVMSetNSW(self.raw(), nsw.into());
        }
    }

    /// Whether this is a `zext nneg` (its operand is non-negative, or the
    /// result is poison): then it equals a `sext`.
    pub fn is_zext_nneg(self) -> bool {
        // SAFETY: a live `zext`, which is the instruction the flag is on.
        self.opcode() == LLVMOpcode::LLVMZExt && unsafe { LLVMGetNNeg(self.raw()) } != 0
    }
}
