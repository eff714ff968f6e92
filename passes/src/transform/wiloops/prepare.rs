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
use crate::analysis::dominators::DomTree;
use crate::cfg::BlockId;
use crate::function_cfg::FunctionCfg;
use crate::ir::{branches_to, delete_block, insert_block_before, instructions, Builder, Inst, Value};
use crate::kernel_model::{builtin_of, Builtin};
use inkwell::basic_block::BasicBlock;
use inkwell::values::FunctionValue;
use llvm_sys::LLVMOpcode;
use std::collections::HashSet;

/// A barrier block after splitting, and where it came from.
pub struct BarrierSite<'ctx> {
    pub block: BasicBlock<'ctx>,
    /// `file:line:col` when the call has a debug location, else the block.
    pub description: String,
}

/// Deletes the blocks the entry cannot reach. No work-item runs them, yet a
/// barrier there would start a region and the analyses would see blocks
/// outside the CFG's traversal; clang and `llvm-stress` both emit such blocks.
/// Their values can only be used in other unreachable blocks or in phis of
/// reachable ones (for the dead edge), which lose that incoming entry.
pub fn remove_unreachable_blocks(fcfg: &FunctionCfg<'_>) {
    let cfg = &fcfg.cfg;
    let (live, dead): (Vec<BlockId>, Vec<BlockId>) = cfg.blocks().partition(|&b| cfg.is_reachable(b));
    let reachable: HashSet<BasicBlock<'_>> = live.into_iter().map(|b| fcfg.block(b)).collect();
    let dead: Vec<BasicBlock<'_>> = dead.into_iter().map(|b| fcfg.block(b)).collect();
    if dead.is_empty() {
        return;
    }
    for &b in &reachable {
        let phis: Vec<Inst<'_>> = instructions(b).take_while(|i| i.is_phi()).collect();
        for phi in phis {
            if phi.incoming().iter().any(|(_, from)| !reachable.contains(from)) {
                phi.retain_incoming(|b| reachable.contains(&b));
            }
        }
    }
    for &b in &dead {
        for i in instructions(b) {
            if !i.is_void() {
                i.value().replace_all_uses_with(i.ty().poison());
            }
        }
    }
    for b in dead {
        delete_block(b);
    }
}

/// Splits every barrier into a block of its own; returns them in layout order.
pub fn split_at_barriers<'ctx>(f: FunctionValue<'ctx>, names: &crate::ir::SlotNames) -> Vec<BarrierSite<'ctx>> {
    let mut calls: Vec<(Inst<'ctx>, String)> = Vec::new();
    for bb in f.get_basic_block_iter() {
        let name = names.of_block(bb).to_string();
        for i in instructions(bb) {
            if builtin_of(i) == Some(Builtin::Barrier) {
                calls.push((i, name.clone()));
            }
        }
    }
    let mut sites = Vec::new();
    for (ordinal, (call, block_name)) in calls.into_iter().enumerate() {
        let description = crate::kernel_model::describe_barrier(call, &block_name, ordinal + 1);
        let bb = call.block();
        let head = insert_block_before(bb, "wi.head");
        let mid = insert_block_before(bb, "wi.barrier");
        // Every edge into bb now enters head, which takes the phis along.
        for t in branches_to(bb) {
            for (s, to) in t.successors().into_iter().enumerate() {
                if to == bb {
                    t.set_successor(s as u32, head);
                }
            }
        }
        for i in instructions(bb).take_while(|&i| i != call).collect::<Vec<_>>() {
            i.move_to_end(head);
        }
        call.move_to_end(mid);
        let mut b = Builder::new(call.value());
        b.position_at_end(mid);
        b.br(bb);
        b.position_at_end(head);
        b.br(mid);
        sites.push(BarrierSite { block: mid, description });
    }
    sites
}

/// A value demoted to memory: its alloca, and whether one slot per
/// work-group suffices (uniform, and no divergent loop exit in between).
pub struct Demoted<'ctx> {
    pub alloca: Inst<'ctx>,
    pub shared: bool,
    /// The demoted value: the slot's only store follows its definition.
    pub def: Inst<'ctx>,
}

/// Demotes every non-alloca value live into a barrier block. That is
/// exactly the values with a use that [`SinceBarrier`] says needs a slot
/// (see there), which needs no liveness sets: those cost blocks × values
/// bits, quadratic on big kernels. `shareable` says which values may live
/// in one per-work-group slot.
pub fn demote_cross_barrier_values<'ctx>(
    fa: &FunctionAnalyses<'ctx>,
    barrier_blocks: &[BlockId],
    since_barrier: &SinceBarrier,
    shareable: &dyn Fn(Value<'ctx>) -> bool,
) -> Result<Vec<Demoted<'ctx>>, String> {
    if barrier_blocks.is_empty() {
        return Ok(Vec::new());
    }
    let mut crossing = Vec::new();
    for &b in fa.cfg.blocks() {
        for v in instructions(b) {
            // Work-item builtins, and cheap arithmetic on them, are
            // recomputed wherever they are used.
            if v.is_void() || v.is_alloca() || rematerializable(v.value()) {
                continue;
            }
            if use_blocks(v.value()).into_iter().any(|u| since_barrier.needs_slot(fa, v, u)) {
                if v.is_terminator() {
                    return Err(format!("the result of '{}' is live across a barrier", v.value().print()));
                }
                crossing.push(v);
            }
        }
    }
    let Some(entry) = fa.cfg.blocks().first().copied() else { return Ok(Vec::new()) };
    let mut out = Vec::new();
    for v in crossing {
        let ty = v.ty();
        let mut b = Builder::new(v.value());
        b.position_before(instructions(entry).next().expect("the entry block has a terminator"));
        let slot = b.alloca(ty, "wi.live");
        out.push(Demoted { alloca: slot, shared: shareable(v.value()), def: v });
        // Loads at the uses first, so the store below is not among them.
        // Uses that see this definition on every path since the last
        // barrier keep the SSA value: the region that holds them also holds
        // the definition (and the vectorizer sees through it).
        let mut users = v.users();
        users.dedup();
        for user in users {
            if user.is_phi() {
                for (k, (inc, from)) in user.incoming().into_iter().enumerate() {
                    if inc == v.value() && since_barrier.needs_slot(fa, v, from) {
                        b.position_before(from.get_terminator().expect("a phi's incoming block is terminated").into());
                        let ld = b.load(ty, slot.value(), "");
                        user.set_operand(k as u32, ld.value());
                    }
                }
            } else if since_barrier.needs_slot(fa, v, user.block()) {
                b.position_before(user);
                let ld = b.load(ty, slot.value(), "");
                for k in 0..user.num_operands() {
                    if user.operand(k) == v.value() {
                        user.set_operand(k, ld.value());
                    }
                }
            }
        }
        if v.is_phi() {
            let first_non_phi = instructions(v.block()).find(|i| !i.is_phi());
            b.position_before(first_non_phi.expect("block has a terminator"));
        } else {
            b.position_before(v.next().expect("a value is not a terminator"));
        }
        b.store(v.value(), slot.value());
    }
    Ok(out)
}

/// Whether `v` can be recomputed where it is used instead of being stored
/// across a barrier: a work-item builtin, or a cast, integer arithmetic or
/// address computation of at most `REMAT_DEPTH` levels over builtins,
/// constants and kernel arguments (`(uint)get_local_id(0) * 4 + offset`,
/// `&tile[lid + 1]`). Recomputing them keeps the
/// vectorizer's view of work-item ids exact, and costs a few instructions.
pub fn rematerializable(v: Value<'_>) -> bool {
    remat_depth(v, REMAT_DEPTH)
}

/// Six: a 2-D element address with `int` ids, `&c[i * n + j]` (`gep`,
/// `sext`, `add`, `mul`, `trunc` of `get_global_id`), takes five. At four
/// it was stored per work-item across a lockstep loop's barriers, and the
/// step (mm2_1's `tmp[i][j] +=`) loaded it back and stored through it one
/// lane at a time (BENCHMARKS.md).
const REMAT_DEPTH: u32 = 6;

fn remat_depth(v: Value<'_>, depth: u32) -> bool {
    if v.is_constant() || v.is_argument() {
        return true;
    }
    let Some(i) = v.as_inst() else { return false };
    if builtin_of(i).is_some() {
        return true;
    }
    if depth == 0 {
        return false;
    }
    let pure = matches!(
        i.opcode(),
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
            // Addresses of buffers and `__local` arrays at such indices
            // (`&scratch[lid]`): a stored pointer would hide the index from
            // the vectorizer, which then gathers. Never private addresses:
            // an `alloca` is not rematerializable, so neither is a GEP on it.
            | LLVMOpcode::LLVMGetElementPtr
            | LLVMOpcode::LLVMAddrSpaceCast
            | LLVMOpcode::LLVMBitCast
    );
    pure && i.operands().all(|op| remat_depth(op, depth - 1))
}

/// Dominance from "the function's entry or any barrier": `d` dominates `u`
/// here when every path that starts at the entry or at a barrier and reaches
/// `u` passes through `d`. A value defined in `d` then reaches a use in `u`
/// from its own definition in the same region, never across a barrier, so
/// that use needs no slot (pocl's context arrays likewise hold only values
/// read in a region other than the one that defined them). Without this, a
/// loop counter of a barrier loop (scan's `off`, defined in the loop header
/// and used in the body) was reloaded from memory at every use, and, since
/// its header both writes and reads it within one region, had to be kept
/// per work-item.
///
/// It also says which values cross a barrier at all, with no liveness sets:
/// in SSA (`d` dominates its uses `u` from the entry) and with barrier
/// blocks that define and use nothing, a value is live into some barrier
/// block if and only if one of its uses is not dominated by `d` here. A
/// path from barrier B to `u` that avoids `d` makes it live into B; a path
/// from the root to `u` avoiding `d` cannot start at the entry, so it
/// starts at a barrier, and from the last barrier on it the value is live.
/// (Checked against liveness on random graphs below.)
pub struct SinceBarrier {
    tree: DomTree,
}

impl SinceBarrier {
    pub fn new(fa: &FunctionAnalyses<'_>, barrier_blocks: &[BlockId]) -> SinceBarrier {
        SinceBarrier::of_cfg(&fa.cfg.cfg, barrier_blocks)
    }

    fn of_cfg(cfg: &crate::cfg::Cfg, barrier_blocks: &[BlockId]) -> SinceBarrier {
        let mut succs = cfg.successor_lists();
        let root = succs.len() as u32;
        let mut starts = vec![cfg.entry().0];
        starts.extend(barrier_blocks.iter().map(|b| b.0));
        succs.push(starts);
        SinceBarrier { tree: DomTree::compute(&succs, root) }
    }

    /// Whether the use of `v` at the end of (or inside) `use_block` may see
    /// a value of `v` defined before a barrier.
    pub fn needs_slot(&self, fa: &FunctionAnalyses<'_>, v: Inst<'_>, use_block: BasicBlock<'_>) -> bool {
        match (fa.cfg.id(v.block()), fa.cfg.id(use_block)) {
            (Some(d), Some(u)) => !self.tree.dominates(d.0, u.0),
            _ => true,
        }
    }
}

/// The blocks where `v` is used; a phi uses its value at the end of the
/// incoming block.
pub fn use_blocks<'ctx>(v: Value<'ctx>) -> Vec<BasicBlock<'ctx>> {
    let mut out = Vec::new();
    for user in v.users() {
        if user.is_phi() {
            out.extend(user.incoming().into_iter().filter(|&(inc, _)| inc == v).map(|(_, from)| from));
        } else {
            out.push(user.block());
        }
    }
    out
}

/// Whether `i` is an instruction whose opcode has no meaning per work-item on
/// a CPU (we reject rather than miscompile).
pub fn unsupported_reason(i: Inst<'_>) -> Option<String> {
    match i.opcode() {
        LLVMOpcode::LLVMIndirectBr | LLVMOpcode::LLVMCallBr => {
            Some(format!("'{}': computed jumps are not supported in kernels with barriers", i.value().print()))
        }
        LLVMOpcode::LLVMAlloca if !i.operand(0).is_constant_int() => {
            Some(format!("'{}': variable-sized private arrays are not supported", i.value().print()))
        }
        _ => None,
    }
}

/// Drops `!llvm.loop` from the kernel's loops when it says no more than
/// `llvm.loop.unroll.disable` (and `mustprogress`): the mark clang puts on
/// every loop at -O0 and -O1, where it does not unroll, meaning "this
/// pipeline left it rolled". Inside a work-item loop the kernel's loop is
/// no longer the innermost: left rolled, it keeps the work-item loop from
/// being the one the vectoriser widens, and O3 unrolls the work-item loop
/// instead (matmul's 16-step inner product ran as one scalar FMA chain per
/// work-item, 6.7x slower). A `#pragma nounroll` makes the same mark and is
/// dropped with it; loops with any other hint keep all of them.
pub fn release_unroll_hints(k: FunctionValue<'_>) {
    for bb in k.get_basic_block_iter() {
        let Some(t) = crate::ir::terminator(bb) else { continue };
        let props = t.loop_properties();
        let only_o1_mark = props.iter().any(|p| p == "llvm.loop.unroll.disable")
            && props.iter().all(|p| p == "llvm.loop.unroll.disable" || p == "llvm.loop.mustprogress");
        if only_o1_mark {
            t.drop_loop_metadata();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::liveness::{Event, Liveness};
    use crate::cfg::Cfg;
    use proptest::prelude::*;

    /// A value defined at the top of block `d` and used at the end of each
    /// of `uses` (those `d` dominates: SSA), on a random CFG with random
    /// barrier blocks (no events there): live into a barrier block by the
    /// liveness solver exactly when `SinceBarrier` says a use needs a slot.
    fn check(succs: Vec<Vec<u32>>, barrier_mask: Vec<bool>, d: usize, uses: Vec<usize>) -> Result<(), TestCaseError> {
        let cfg = Cfg::from_successors(succs);
        let n = cfg.len();
        let dom = DomTree::compute(&cfg.successor_lists(), 0);
        let d = cfg.rpo()[d % cfg.rpo().len()].index();
        let barriers: Vec<BlockId> =
            (1..n).filter(|&b| barrier_mask[b] && b != d && cfg.is_reachable(BlockId(b as u32))).map(|b| BlockId(b as u32)).collect();
        let is_barrier = |b: usize| barriers.contains(&BlockId(b as u32));
        let uses: Vec<usize> = uses.into_iter().map(|u| u % n).filter(|&u| !is_barrier(u) && dom.dominates(d as u32, u as u32)).collect();
        let mut events = vec![Vec::new(); n];
        events[d].push(Event::Def(0));
        for &u in &uses {
            events[u].push(Event::Use(0));
        }
        let live = Liveness::solve(&cfg, 1, &events);
        let live_at_barrier = barriers.iter().any(|&b| live.live_in(b).contains(0));
        let since = SinceBarrier::of_cfg(&cfg, &barriers);
        let needs_slot = uses.iter().any(|&u| !since.tree.dominates(d as u32, u as u32));
        prop_assert_eq!(live_at_barrier, needs_slot, "barriers {:?}, uses {:?}", barriers, uses);
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]
        #[test]
        fn crossing_a_barrier_is_liveness_at_a_barrier(
            (succs, mask) in (2usize..12).prop_flat_map(|n| (
                proptest::collection::vec(proptest::collection::vec(0..n as u32, 0..=3), n),
                proptest::collection::vec(any::<bool>(), n),
            )),
            d in 0usize..12,
            uses in proptest::collection::vec(0usize..12, 1..4),
        ) {
            check(succs, mask, d, uses)?;
        }
    }
}
