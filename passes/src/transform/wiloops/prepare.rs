//! Preparing a kernel for work-item loops, in place:
//!
//! 1. every barrier gets a block of its own (`head → barrier → tail`), so
//!    regions start and end at block boundaries;
//! 2. every SSA value live across a barrier is demoted to an `alloca` (store
//!    after the definition, load before each use), so that no SSA value
//!    crosses a region boundary and regions can be cloned freely.
//!
//! The kernel itself is consumed by the pass; these edits never reach output.

use crate::analysis::cache::FunctionAnalyses;
use crate::cfg::BlockId;
use crate::function_cfg::FunctionCfg;
use crate::ir::Value;
use crate::kernel_model::{builtin_of, Builtin};
use inkwell::values::AsValueRef;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;
use std::collections::HashSet;

/// A barrier block after splitting, and where it came from.
pub struct BarrierSite {
    pub block: LLVMBasicBlockRef,
    /// `file:line:col` when the call has a debug location, else the block.
    pub description: String,
}

pub(super) unsafe fn instructions(bb: LLVMBasicBlockRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    let mut i = LLVMGetFirstInstruction(bb);
    while !i.is_null() {
        out.push(i);
        i = LLVMGetNextInstruction(i);
    }
    out
}

pub(super) unsafe fn blocks(f: LLVMValueRef) -> Vec<LLVMBasicBlockRef> {
    let mut out = Vec::new();
    let mut b = LLVMGetFirstBasicBlock(f);
    while !b.is_null() {
        out.push(b);
        b = LLVMGetNextBasicBlock(b);
    }
    out
}

/// Deletes the blocks the entry cannot reach. No work-item runs them, yet a
/// barrier there would start a region and the analyses would see blocks
/// outside the CFG's traversal; clang and `llvm-stress` both emit such blocks.
/// Their values can only be used in other unreachable blocks or in phis of
/// reachable ones (for the dead edge), which lose that incoming entry.
pub unsafe fn remove_unreachable_blocks(fcfg: &FunctionCfg<'_>) {
    let cfg = &fcfg.cfg;
    let (live, dead): (Vec<BlockId>, Vec<BlockId>) = cfg.blocks().partition(|&b| cfg.is_reachable(b));
    let reachable: HashSet<LLVMBasicBlockRef> = live.into_iter().map(|b| fcfg.block(b).as_mut_ptr()).collect();
    let dead: Vec<LLVMBasicBlockRef> = dead.into_iter().map(|b| fcfg.block(b).as_mut_ptr()).collect();
    if dead.is_empty() {
        return;
    }
    for &b in &reachable {
        for phi in instructions(b).into_iter().take_while(|i| !LLVMIsAPHINode(*i).is_null()) {
            if (0..LLVMCountIncoming(phi)).any(|k| !reachable.contains(&LLVMGetIncomingBlock(phi, k))) {
                keep_incoming_from(phi, &reachable);
            }
        }
    }
    for &b in &dead {
        for i in instructions(b) {
            let ty = LLVMTypeOf(i);
            if LLVMGetTypeKind(ty) != llvm_sys::LLVMTypeKind::LLVMVoidTypeKind {
                LLVMReplaceAllUsesWith(i, LLVMGetPoison(ty));
            }
        }
    }
    for b in dead {
        LLVMDeleteBasicBlock(b);
    }
}

/// Rebuilds `phi` with only its entries from `keep` (the C API cannot
/// remove an incoming entry).
unsafe fn keep_incoming_from(phi: LLVMValueRef, keep: &HashSet<LLVMBasicBlockRef>) {
    let mut vals: Vec<LLVMValueRef> = Vec::new();
    let mut blocks: Vec<LLVMBasicBlockRef> = Vec::new();
    for j in 0..LLVMCountIncoming(phi) {
        if keep.contains(&LLVMGetIncomingBlock(phi, j)) {
            vals.push(LLVMGetIncomingValue(phi, j));
            blocks.push(LLVMGetIncomingBlock(phi, j));
        }
    }
    let builder = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(phi)));
    LLVMPositionBuilderBefore(builder, phi);
    let mut len = 0usize;
    let p = LLVMGetValueName2(phi, &mut len);
    let name = std::ffi::CString::new(std::slice::from_raw_parts(p.cast::<u8>(), len)).unwrap_or_default();
    let new = LLVMBuildPhi(builder, LLVMTypeOf(phi), c"".as_ptr());
    LLVMAddIncoming(new, vals.as_mut_ptr(), blocks.as_mut_ptr(), vals.len() as u32);
    LLVMReplaceAllUsesWith(phi, new);
    LLVMInstructionEraseFromParent(phi);
    LLVMSetValueName2(new, name.as_ptr(), len);
    LLVMDisposeBuilder(builder);
}

/// Splits every barrier into a block of its own; returns them in layout order.
pub unsafe fn split_at_barriers(f: LLVMValueRef, names: &crate::ir::SlotNames) -> Vec<BarrierSite> {
    let ctx = LLVMGetTypeContext(LLVMTypeOf(f));
    let builder = LLVMCreateBuilderInContext(ctx);
    let mut calls: Vec<(LLVMValueRef, String)> = Vec::new();
    for bb in blocks(f) {
        let name = names.of_value(LLVMBasicBlockAsValue(bb)).to_string();
        for i in instructions(bb) {
            if builtin_of(i) == Some(Builtin::Barrier) {
                calls.push((i, name.clone()));
            }
        }
    }
    let mut sites = Vec::new();
    for (ordinal, (call, block_name)) in calls.into_iter().enumerate() {
        let description = crate::kernel_model::describe_barrier(call, &block_name, ordinal + 1);
        let bb = LLVMGetInstructionParent(call);
        let head = LLVMInsertBasicBlockInContext(ctx, bb, c"wi.head".as_ptr());
        let mid = LLVMInsertBasicBlockInContext(ctx, bb, c"wi.barrier".as_ptr());
        // Every edge into bb now enters head, which takes the phis along.
        let preds: Vec<LLVMValueRef> = users_of_block(bb);
        for t in preds {
            for s in 0..LLVMGetNumSuccessors(t) {
                if LLVMGetSuccessor(t, s) == bb {
                    LLVMSetSuccessor(t, s, head);
                }
            }
        }
        for i in instructions(bb) {
            if i == call {
                break;
            }
            move_to_end(builder, i, head);
        }
        move_to_end(builder, call, mid);
        LLVMBuildBr(builder, bb);
        LLVMPositionBuilderAtEnd(builder, head);
        LLVMBuildBr(builder, mid);
        sites.push(BarrierSite { block: mid, description });
    }
    LLVMDisposeBuilder(builder);
    sites
}

/// Moves `i` to the end of `to`, keeping its name (a plain builder insert
/// would clear it, and names make errors readable).
unsafe fn move_to_end(builder: LLVMBuilderRef, i: LLVMValueRef, to: LLVMBasicBlockRef) {
    let mut len = 0usize;
    let p = LLVMGetValueName2(i, &mut len);
    let name = std::ffi::CString::new(std::slice::from_raw_parts(p.cast::<u8>(), len)).unwrap_or_default();
    LLVMInstructionRemoveFromParent(i);
    LLVMPositionBuilderAtEnd(builder, to);
    LLVMInsertIntoBuilderWithName(builder, i, name.as_ptr());
}

/// Terminators that branch to `bb`.
unsafe fn users_of_block(bb: LLVMBasicBlockRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    let mut u = LLVMGetFirstUse(LLVMBasicBlockAsValue(bb));
    while !u.is_null() {
        let user = LLVMGetUser(u);
        if !LLVMIsATerminatorInst(user).is_null() && !out.contains(&user) {
            out.push(user);
        }
        u = LLVMGetNextUse(u);
    }
    out
}

/// A value demoted to memory: its alloca, and whether one slot per
/// work-group suffices (uniform, and no divergent loop exit in between).
pub struct Demoted {
    pub alloca: LLVMValueRef,
    pub shared: bool,
}

/// Demotes every non-alloca value live into a barrier block (by the
/// function's [`liveness`](crate::analysis::liveness), computed before any
/// change). `shareable` says which values may live in one per-work-group slot.
pub unsafe fn demote_cross_barrier_values(
    fa: &FunctionAnalyses<'_>,
    barrier_blocks: &[BlockId],
    shareable: &dyn Fn(LLVMValueRef) -> bool,
) -> Result<Vec<Demoted>, String> {
    let f = fa.cfg.function.as_value_ref();
    let liveness = fa.liveness();
    let live_at_barrier: HashSet<Value<'_>> = barrier_blocks.iter().flat_map(|&b| liveness.live_in(b)).collect();
    let mut crossing = Vec::new();
    for b in blocks(f) {
        for v in instructions(b) {
            // Work-item builtins, and cheap arithmetic on them, are
            // recomputed wherever they are used.
            if LLVMGetTypeKind(LLVMTypeOf(v)) == llvm_sys::LLVMTypeKind::LLVMVoidTypeKind
                || !LLVMIsAAllocaInst(v).is_null()
                || rematerializable(v)
            {
                continue;
            }
            if live_at_barrier.contains(&Value::from_raw(v)) {
                if !LLVMIsATerminatorInst(v).is_null() {
                    return Err(format!("the result of '{}' is live across a barrier", crate::ir::print_value(v)));
                }
                crossing.push(v);
            }
        }
    }
    let ctx = LLVMGetTypeContext(LLVMTypeOf(f));
    let builder = LLVMCreateBuilderInContext(ctx);
    let entry = LLVMGetEntryBasicBlock(f);
    let mut out = Vec::new();
    for v in crossing {
        let ty = LLVMTypeOf(v);
        LLVMPositionBuilderBefore(builder, LLVMGetFirstInstruction(entry));
        let slot = LLVMBuildAlloca(builder, ty, c"wi.live".as_ptr());
        out.push(Demoted { alloca: slot, shared: shareable(v) });
        // Loads at the uses first, so the store below is not among them.
        let mut uses = Vec::new();
        let mut u = LLVMGetFirstUse(v);
        while !u.is_null() {
            uses.push(LLVMGetUser(u));
            u = LLVMGetNextUse(u);
        }
        uses.dedup();
        for user in uses {
            if !LLVMIsAPHINode(user).is_null() {
                for i in 0..LLVMCountIncoming(user) {
                    if LLVMGetIncomingValue(user, i) == v {
                        let from = LLVMGetIncomingBlock(user, i);
                        LLVMPositionBuilderBefore(builder, LLVMGetBasicBlockTerminator(from));
                        let ld = LLVMBuildLoad2(builder, ty, slot, c"".as_ptr());
                        LLVMSetOperand(user, i, ld);
                    }
                }
            } else {
                LLVMPositionBuilderBefore(builder, user);
                let ld = LLVMBuildLoad2(builder, ty, slot, c"".as_ptr());
                for i in 0..LLVMGetNumOperands(user) as u32 {
                    if LLVMGetOperand(user, i) == v {
                        LLVMSetOperand(user, i, ld);
                    }
                }
            }
        }
        let def_block = LLVMGetInstructionParent(v);
        if LLVMIsAPHINode(v).is_null() {
            LLVMPositionBuilderBefore(builder, LLVMGetNextInstruction(v));
        } else {
            let first_non_phi = instructions(def_block).into_iter().find(|i| LLVMIsAPHINode(*i).is_null());
            LLVMPositionBuilderBefore(builder, first_non_phi.expect("block has a terminator"));
        }
        LLVMBuildStore(builder, v, slot);
    }
    LLVMDisposeBuilder(builder);
    Ok(out)
}

/// Whether `v` can be recomputed where it is used instead of being stored
/// across a barrier: a work-item builtin, or a cast or integer arithmetic of
/// at most `REMAT_DEPTH` levels over builtins, constants and kernel arguments
/// (`(uint)get_local_id(0) * 4 + offset`). Recomputing them keeps the
/// vectorizer's view of work-item ids exact, and costs a few instructions.
pub unsafe fn rematerializable(v: LLVMValueRef) -> bool {
    remat_depth(v, REMAT_DEPTH)
}

const REMAT_DEPTH: u32 = 4;

unsafe fn remat_depth(v: LLVMValueRef, depth: u32) -> bool {
    if !LLVMIsAConstant(v).is_null() || !LLVMIsAArgument(v).is_null() {
        return true;
    }
    if LLVMIsAInstruction(v).is_null() {
        return false;
    }
    if builtin_of(v).is_some() {
        return true;
    }
    if depth == 0 {
        return false;
    }
    let pure = matches!(
        LLVMGetInstructionOpcode(v),
        LLVMOpcode::LLVMTrunc
            | LLVMOpcode::LLVMZExt
            | LLVMOpcode::LLVMSExt
            | LLVMOpcode::LLVMAdd
            | LLVMOpcode::LLVMSub
            | LLVMOpcode::LLVMMul
            | LLVMOpcode::LLVMShl
            | LLVMOpcode::LLVMLShr
            | LLVMOpcode::LLVMAShr
            | LLVMOpcode::LLVMAnd
            | LLVMOpcode::LLVMOr
            | LLVMOpcode::LLVMXor
            | LLVMOpcode::LLVMICmp
    );
    pure && (0..LLVMGetNumOperands(v) as u32).all(|i| remat_depth(LLVMGetOperand(v, i), depth - 1))
}

/// The blocks where `v` is used; a phi uses its value at the end of the
/// incoming block.
pub unsafe fn use_blocks(v: LLVMValueRef) -> Vec<LLVMBasicBlockRef> {
    let mut out = Vec::new();
    let mut u = LLVMGetFirstUse(v);
    while !u.is_null() {
        let user = LLVMGetUser(u);
        u = LLVMGetNextUse(u);
        if LLVMIsAInstruction(user).is_null() {
            continue;
        }
        if LLVMIsAPHINode(user).is_null() {
            out.push(LLVMGetInstructionParent(user));
        } else {
            for i in 0..LLVMCountIncoming(user) {
                if LLVMGetIncomingValue(user, i) == v {
                    out.push(LLVMGetIncomingBlock(user, i));
                }
            }
        }
    }
    out
}

/// Whether `i` is an instruction whose opcode has no meaning per work-item on
/// a CPU (we reject rather than miscompile).
pub unsafe fn unsupported_reason(i: LLVMValueRef) -> Option<String> {
    match LLVMGetInstructionOpcode(i) {
        LLVMOpcode::LLVMIndirectBr | LLVMOpcode::LLVMCallBr => {
            Some(format!("'{}': computed jumps are not supported in kernels with barriers", crate::ir::print_value(i)))
        }
        LLVMOpcode::LLVMAlloca if LLVMIsAConstantInt(LLVMGetOperand(i, 0)).is_null() => {
            Some(format!("'{}': variable-sized private arrays are not supported", crate::ir::print_value(i)))
        }
        _ => None,
    }
}
