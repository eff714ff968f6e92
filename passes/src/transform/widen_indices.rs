//! `simt-widen-indices[<ids-fit-i32>]`: 64-bit index arithmetic for kernels
//! that index with `int`, so that `-O3` sees their addresses as affine in
//! the work-item loop's counter.
//!
//! An OpenCL kernel written `int x = get_global_id(0); … in[y * w + x]`
//! reaches the host engine as
//!
//! ```text
//!   %x = trunc i64 %gid to i32            (%gid: the work-item loop's i64 counter, after simt-wiloops)
//!   %i = add nsw i32 %yw, %x
//!   %p = getelementptr float, ptr %in, i64 (sext i32 %i to i64)
//! ```
//!
//! Scalar evolution sees `sext(trunc(counter) + c)`, which is not an affine
//! i64 recurrence, so the loop vectoriser adds 32-bit overflow checks and
//! every vector load re-derives its address (an `add`, a `sext`, a
//! `getelementptr`); native C indexing with `long` gets one pointer
//! induction variable and constant displacements. Two steps fix that:
//!
//! 1. With `ids-fit-i32` (the host engine asks for it when, in every
//!    dimension, global offset + global size and the local size are at most
//!    2^31 − 1, so that every work-item id, group id and size of the launch
//!    is in [0, 2^31)), a `trunc` to 32 bits or more of a work-item
//!    function's result (`get_global_id`, `get_local_id`, `get_group_id`,
//!    `get_global_size`, `get_local_size`, `get_enqueued_local_size`,
//!    `get_num_groups`, `get_global_offset`) is exact and gets `nuw nsw`.
//!    The fact is the launch's, not the kernel's: the engine puts it in its
//!    kernel cache key and refuses to run the code on a grid that breaks it.
//! 2. Every scalar `sext` (or `zext nneg`) whose operand is a tree of
//!    `nsw` `add`/`sub`/`mul`/`shl`-by-a-constant reaching a `trunc nsw` of
//!    a value of the extension's own type is rebuilt in that type, right
//!    before it: `sext(a op nsw b)` = `sext a op nsw sext b` and
//!    `sext(trunc nsw X)` = `X` wherever the narrow value is not poison, and
//!    where it is poison any value refines it; other leaves are
//!    sign-extended. The narrow tree stays for its other users (bounds
//!    checks) or dies in `-O3`, whose CSE also merges the trees that several
//!    extensions share (`y * w` of nine loads).
//!
//! Step 2 is LLVM IndVarSimplify's induction variable widening (`WidenIV`),
//! for the case it does not cover: the narrow value is no induction
//! variable of its own but a truncation of the work-item loop's i64
//! counter; and it runs before `simt-wiloops`, on the kernel, where the
//! work-item functions are still calls. Step 2 needs no launch fact and
//! runs always; without step 1 it rarely finds a `trunc nsw`.
//!
//! Limits: unsigned arithmetic (no `nsw`: it wraps, and the extension does
//! not distribute), `or disjoint`, `select`, phis (a kernel's own `int`
//! loop counter: IndVarSimplify widens those in `-O3`) and vector
//! extensions stay as they are; a tree is followed 8 operations deep.
//! CUDA's ids are 32-bit intrinsics, never truncated, and gain nothing
//! from step 1.

use crate::ir::{defined_functions, instructions, Builder, Inst, IntOp, LLVMOpcode, Ty, Value};
use crate::kernel_model::{builtin_of, Builtin};
use crate::pass::{DeclaredPass, ModulePass, PassContext, PassError, Preserved};
use inkwell::values::FunctionValue;
use std::collections::HashMap;

#[derive(Default)]
pub struct WidenIndices {
    ids_fit_i32: bool,
}

/// How many operations deep a tree is followed.
const DEPTH: u32 = 8;

impl DeclaredPass for WidenIndices {
    const NAME: &'static str = "simt-widen-indices";
    const SUMMARY: &'static str = "sign extensions of nsw int index arithmetic over exact truncations of 64-bit values rebuilt in 64 bits";
    const OPTIONS: &'static [(&'static str, &'static str)] = &[(
        "ids-fit-i32",
        "the launch's ids and sizes are below 2^31 in every dimension: truncations of work-item functions to i32 are exact",
    )];
    const HIDDEN: bool = true;

    fn set_option(&mut self, key: &str, value: Option<&str>) -> Result<(), String> {
        match (key, value) {
            ("ids-fit-i32", None) => self.ids_fit_i32 = true,
            _ => return Err(crate::pass::unknown_option::<Self>(key)),
        }
        Ok(())
    }
}

impl ModulePass for WidenIndices {
    fn name(&self) -> String {
        if self.ids_fit_i32 {
            format!("{}<ids-fit-i32>", Self::NAME)
        } else {
            Self::NAME.into()
        }
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        let mut changed = false;
        for f in defined_functions(cx.module_mut()) {
            if self.ids_fit_i32 {
                changed |= mark_exact_id_truncs(f);
            }
            changed |= widen_extensions(f);
        }
        // Blocks and edges stay; values changed.
        Ok(if changed { Preserved::cfg_analyses() } else { Preserved::all() })
    }
}

fn function_instructions(f: FunctionValue<'_>) -> Vec<Inst<'_>> {
    f.get_basic_block_iter().flat_map(instructions).collect()
}

/// Step 1: `nuw nsw` on truncations (to 32 bits or more) of work-item
/// functions, whose results the launch keeps in [0, 2^31).
fn mark_exact_id_truncs(f: FunctionValue<'_>) -> bool {
    let mut changed = false;
    for t in function_instructions(f) {
        if t.opcode() != LLVMOpcode::LLVMTrunc || t.value().ty().is_vector() || t.value().ty().int_width() < 32 {
            continue;
        }
        let Some(call) = t.operand(0).as_inst() else { continue };
        let bounded = matches!(
            builtin_of(call),
            Some(
                Builtin::GlobalId(_)
                    | Builtin::LocalId(_)
                    | Builtin::GroupId(_)
                    | Builtin::LocalSize(_)
                    | Builtin::EnqueuedLocalSize(_)
                    | Builtin::NumGroups(_)
                    | Builtin::GlobalSize(_)
                    | Builtin::GlobalOffset(_)
            )
        );
        if bounded && !(t.has_nsw() && t.has_nuw()) {
            t.set_wrap_flags(true, true);
            changed = true;
        }
    }
    changed
}

/// The operations an extension distributes over when they carry `nsw`.
fn nsw_op(i: Inst<'_>) -> Option<IntOp> {
    if !i.has_nsw() {
        return None;
    }
    match i.opcode() {
        LLVMOpcode::LLVMAdd => Some(IntOp::Add),
        LLVMOpcode::LLVMSub => Some(IntOp::Sub),
        LLVMOpcode::LLVMMul => Some(IntOp::Mul),
        // A constant shift is a multiplication by a power of two.
        LLVMOpcode::LLVMShl if i.operand(1).const_u64().is_some_and(|c| c < u64::from(i.value().ty().int_width())) => Some(IntOp::Mul),
        _ => None,
    }
}

/// `X` when `v` is `trunc nsw X` with `X` of type `wide`.
fn exact_source<'ctx>(v: Value<'ctx>, wide: Ty<'ctx>) -> Option<Value<'ctx>> {
    let t = v.as_inst().filter(|t| t.opcode() == LLVMOpcode::LLVMTrunc && t.has_nsw())?;
    (t.operand(0).ty() == wide).then(|| t.operand(0))
}

/// Whether the `nsw` tree of `v` reaches an exact truncation from `wide`.
fn reaches_exact_trunc<'ctx>(v: Value<'ctx>, wide: Ty<'ctx>, depth: u32) -> bool {
    if exact_source(v, wide).is_some() {
        return true;
    }
    let Some(i) = v.as_inst().filter(|_| depth > 0) else { return false };
    nsw_op(i).is_some() && (0..2).any(|k| reaches_exact_trunc(i.operand(k), wide, depth - 1))
}

/// Step 2 on every extension of `f`.
fn widen_extensions(f: FunctionValue<'_>) -> bool {
    let mut changed = false;
    let mut b = Builder::new(Value::from(f));
    for s in function_instructions(f) {
        let extends = s.opcode() == LLVMOpcode::LLVMSExt || s.is_zext_nneg();
        let wide = s.value().ty();
        if !extends || wide.is_vector() || !reaches_exact_trunc(s.operand(0), wide, DEPTH) {
            continue;
        }
        b.position_before(s);
        let w = build_wide(&mut b, s.operand(0), wide, DEPTH, &mut HashMap::new());
        s.value().replace_all_uses_with(w);
        s.erase();
        changed = true;
    }
    changed
}

/// `v` (narrow) sign-extended to `wide`, rebuilt over its `nsw` tree, at
/// the builder's position (before the extension, where every node of the
/// tree is available).
fn build_wide<'ctx>(
    b: &mut Builder<'ctx>,
    v: Value<'ctx>,
    wide: Ty<'ctx>,
    depth: u32,
    memo: &mut HashMap<Value<'ctx>, Value<'ctx>>,
) -> Value<'ctx> {
    if let Some(x) = exact_source(v, wide) {
        return x;
    }
    if let Some(&w) = memo.get(&v) {
        return w;
    }
    let op = v.as_inst().filter(|_| depth > 0).and_then(|i| nsw_op(i).map(|op| (i, op)));
    let w = match op {
        Some((i, op)) => {
            let lhs = build_wide(b, i.operand(0), wide, depth - 1, memo);
            let rhs = if i.opcode() == LLVMOpcode::LLVMShl {
                // shl nsw x, c = x * 2^c exactly (c < the narrow width).
                let c = i.operand(1).const_u64().expect("a constant shift");
                wide.const_int(1u64 << c)
            } else {
                build_wide(b, i.operand(1), wide, depth - 1, memo)
            };
            let w = b.int_op(op, lhs, rhs, "");
            // The wide operation computes the narrow one's exact value,
            // which fits the narrow type: it cannot overflow the wide one.
            if let Some(wi) = w.as_inst() {
                wi.set_wrap_flags(false, true);
            }
            w
        }
        None => b.sext(v, wide, ""),
    };
    memo.insert(v, w);
    w
}
