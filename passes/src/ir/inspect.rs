//! Reading what an instruction says beyond its operands: comparison
//! predicates, the `atomicrmw` operation, `extractvalue`/`insertvalue`
//! paths, shuffle masks, branch conditions, switch case values, whether a
//! call's target has a body.
//!
//! LLVM-C casts to the instruction class it expects without checking and
//! indexes masks and cases without bounds; each method checks the opcode
//! and the index first and panics with a message instead.

use super::value::{Inst, Value};
use llvm_sys::core::*;
use llvm_sys::{LLVMAtomicRMWBinOp, LLVMIntPredicate, LLVMOpcode, LLVMRealPredicate};

/// Integer arithmetic, logic, casts, compares and selects: the operations
/// that cannot trap, read no memory and decide no control, so that a value
/// built from them alone is a function of its operands anywhere.
pub fn is_plain_int_op(op: LLVMOpcode) -> bool {
    use LLVMOpcode::*;
    matches!(
        op,
        LLVMAdd
            | LLVMSub
            | LLVMMul
            | LLVMShl
            | LLVMLShr
            | LLVMAShr
            | LLVMAnd
            | LLVMOr
            | LLVMXor
            | LLVMTrunc
            | LLVMZExt
            | LLVMSExt
            | LLVMICmp
            | LLVMSelect
    )
}

/// The predicate that holds exactly when `p` does not (`ult` → `uge`).
pub fn negated_predicate(p: LLVMIntPredicate) -> LLVMIntPredicate {
    use LLVMIntPredicate::*;
    match p {
        LLVMIntEQ => LLVMIntNE,
        LLVMIntNE => LLVMIntEQ,
        LLVMIntUGT => LLVMIntULE,
        LLVMIntULE => LLVMIntUGT,
        LLVMIntUGE => LLVMIntULT,
        LLVMIntULT => LLVMIntUGE,
        LLVMIntSGT => LLVMIntSLE,
        LLVMIntSLE => LLVMIntSGT,
        LLVMIntSGE => LLVMIntSLT,
        LLVMIntSLT => LLVMIntSGE,
    }
}

/// The predicate of the same comparison with its operands swapped
/// (`a ult b` is `b ugt a`).
pub fn swapped_predicate(p: LLVMIntPredicate) -> LLVMIntPredicate {
    use LLVMIntPredicate::*;
    match p {
        LLVMIntUGT => LLVMIntULT,
        LLVMIntULT => LLVMIntUGT,
        LLVMIntUGE => LLVMIntULE,
        LLVMIntULE => LLVMIntUGE,
        LLVMIntSGT => LLVMIntSLT,
        LLVMIntSLT => LLVMIntSGT,
        LLVMIntSGE => LLVMIntSLE,
        LLVMIntSLE => LLVMIntSGE,
        LLVMIntEQ | LLVMIntNE => p,
    }
}

impl<'ctx> Inst<'ctx> {
    pub fn icmp_predicate(self) -> LLVMIntPredicate {
        assert_eq!(self.opcode(), LLVMOpcode::LLVMICmp, "icmp predicate of another instruction");
        // SAFETY: `raw` is a live icmp.
        unsafe { LLVMGetICmpPredicate(self.raw()) }
    }

    pub fn fcmp_predicate(self) -> LLVMRealPredicate {
        assert_eq!(self.opcode(), LLVMOpcode::LLVMFCmp, "fcmp predicate of another instruction");
        // SAFETY: `raw` is a live fcmp.
        unsafe { LLVMGetFCmpPredicate(self.raw()) }
    }

    pub fn atomic_rmw_op(self) -> LLVMAtomicRMWBinOp {
        assert_eq!(self.opcode(), LLVMOpcode::LLVMAtomicRMW, "atomicrmw operation of another instruction");
        // SAFETY: `raw` is a live atomicrmw.
        unsafe { LLVMGetAtomicRMWBinOp(self.raw()) }
    }

    /// The constant index path of an `extractvalue` or `insertvalue`.
    pub fn value_indices(self) -> Vec<u32> {
        assert!(
            matches!(self.opcode(), LLVMOpcode::LLVMExtractValue | LLVMOpcode::LLVMInsertValue),
            "aggregate indices of an instruction other than extractvalue/insertvalue"
        );
        // SAFETY: `raw` is a live extractvalue/insertvalue; its index array
        // holds LLVMGetNumIndices entries owned by the instruction, copied at once.
        unsafe {
            let n = LLVMGetNumIndices(self.raw()) as usize;
            if n == 0 {
                return Vec::new();
            }
            std::slice::from_raw_parts(LLVMGetIndices(self.raw()), n).to_vec()
        }
    }

    /// A `shufflevector`'s mask, `-1` for undefined elements.
    pub fn shuffle_mask(self) -> Vec<i32> {
        assert_eq!(self.opcode(), LLVMOpcode::LLVMShuffleVector, "shuffle mask of another instruction");
        // SAFETY: `raw` is a live shufflevector; elements are below its mask length.
        unsafe {
            let undef = LLVMGetUndefMaskElem();
            (0..LLVMGetNumMaskElements(self.raw()))
                .map(|k| {
                    let m = LLVMGetMaskValue(self.raw(), k);
                    if m == undef {
                        -1
                    } else {
                        m
                    }
                })
                .collect()
        }
    }

    /// The condition of a conditional `br`.
    pub fn branch_condition(self) -> Value<'ctx> {
        assert!(
            self.opcode() == LLVMOpcode::LLVMBr && self.is_conditional_terminator(),
            "branch condition of something other than a conditional br"
        );
        // SAFETY: `raw` is a live conditional br; its condition is a live value.
        unsafe { Value::from_raw(LLVMGetCondition(self.raw())) }
    }

    /// A `switch`'s case values, one per successor slot after the default
    /// (slot `k` ≥ 1 is case `k - 1`).
    pub fn switch_case_values(self) -> Vec<Value<'ctx>> {
        assert_eq!(self.opcode(), LLVMOpcode::LLVMSwitch, "case values of a non-switch");
        // SAFETY: `raw` is a live switch; slots 1..n are its cases, each
        // value a live constant integer.
        unsafe { (1..LLVMGetNumSuccessors(self.raw())).map(|k| Value::from_raw(LLVMGetSwitchCaseValue(self.raw(), k))).collect() }
    }

    /// Whether a call site's target is a function defined in the module
    /// (false for declarations and indirect calls).
    pub fn callee_has_body(self) -> bool {
        assert!(matches!(self.opcode(), LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr), "callee of a non-call");
        // SAFETY: `raw` is a live call site; the callee's blocks are counted
        // only when it is a function.
        unsafe {
            let callee = LLVMGetCalledValue(self.raw());
            !callee.is_null() && !LLVMIsAFunction(callee).is_null() && LLVMCountBasicBlocks(callee) > 0
        }
    }
}
