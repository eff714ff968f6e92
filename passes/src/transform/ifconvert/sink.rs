//! Stores common to the ends of a region's arms, found so that emission
//! makes each once, of the select tree of the arms' values.

use super::guards::is_pure_call;
use crate::analysis::cache::FunctionAnalyses;
use crate::cfg::BlockId;
use crate::ir::{instructions, Inst};
use crate::transform::select_tree::Arms;
use llvm_sys::LLVMOpcode;
use std::collections::{HashMap, HashSet};

/// Stores common to the ends of a region's arms, sunk past them: the
/// arms `from` (blocks of the region, each ending in a jump to `to`, in
/// topological order) end with the same stores, `stores[k][j]` the k-th of
/// arm j, to the same pointer value and of the same type, with nothing after
/// them in the arm that touches memory. Linearised, the k-th store is made
/// once, of the select tree of the arms' values, right after the last arm:
/// as if the edges into `to` were split by a block holding the stores
/// (InstCombine's mergeStoreIntoSuccessor does one store of a diamond into
/// its join; SimplifyCFG's sinking splits the join the same way).
///
/// Why it is exact: every lane of the guard block runs exactly one arm, and
/// runs nothing of the region after it but `to`; the arms' stores were the
/// last memory accesses of the arm, so the lane's own accesses keep their
/// order, with the value its arm chose (the select tree). The blocks
/// linearised between its arm and the stores are ones the lane does not
/// run: their accesses go to its scratch slot. Other lanes' accesses in
/// those blocks are unordered with its store in the original too (no
/// barrier can be in a region), so a race-free kernel stays race-free.
pub struct SinkGroup<'ctx> {
    pub(super) from: Vec<BlockId>,
    pub(super) to: BlockId,
    pub(super) stores: Vec<Vec<Inst<'ctx>>>,
    /// The arms' nearest common dominator, which that block would
    /// post-dominate: every lane running it runs exactly one arm, so its
    /// predicate guards the sunk stores (none when it is the head).
    pub(super) guard_block: BlockId,
}

pub(super) fn sink_groups<'ctx>(
    fa: &FunctionAnalyses<'ctx>,
    scope: &[BlockId],
    join: BlockId,
    arms: &HashMap<BlockId, Arms>,
) -> Vec<SinkGroup<'ctx>> {
    let cfg = &fa.cfg.cfg;
    let dom = fa.dom();
    let head = scope[0];
    let mut out = Vec::new();
    let in_scope: HashSet<BlockId> = scope.iter().copied().collect();
    let targets = scope[1..].iter().copied().chain(std::iter::once(join));
    for to in targets {
        let mut from: Vec<BlockId> =
            cfg.preds(to).iter().copied().filter(|&p| p != head && arms.get(&p) == Some(&Arms::Jump(to))).collect();
        from.sort_by_key(|&p| cfg.rpo_position(p));
        from.dedup();
        if from.len() < 2 {
            continue;
        }
        // Each arm's trailing stores, last first.
        let trailing: Vec<Vec<Inst<'ctx>>> = from
            .iter()
            .map(|&p| {
                let mut st = Vec::new();
                for i in instructions(fa.cfg.block(p)).collect::<Vec<_>>().into_iter().rev() {
                    match i.opcode() {
                        LLVMOpcode::LLVMStore if !i.is_volatile() && !i.is_atomic() => st.push(i),
                        LLVMOpcode::LLVMStore | LLVMOpcode::LLVMLoad => break,
                        _ if i.is_call() && !is_pure_call(i) => break,
                        _ => {}
                    }
                }
                st
            })
            .collect();
        let mut common = 0;
        while trailing.iter().all(|t| t.len() > common) {
            let s0 = trailing[0][common];
            let same = |s: &Inst<'ctx>| s.operand(1) == s0.operand(1) && s.operand(0).ty() == s0.operand(0).ty();
            if !trailing.iter().all(|t| same(&t[common])) {
                break;
            }
            common += 1;
        }
        if common == 0 {
            continue;
        }
        let mut n = from[0];
        for &p in &from[1..] {
            while !dom.dominates(n.0, p.0) {
                n = BlockId(dom.idom(n.0).expect("the head dominates the region"));
            }
        }
        // The split block must post-dominate n: from n, `to` is reached only
        // through the arms, and the region's join only through `to`.
        let mut seen: HashSet<BlockId> = HashSet::from([n]);
        let mut stack = vec![n];
        let mut ok = in_scope.contains(&n);
        while let Some(q) = stack.pop() {
            for &s in cfg.succs(q) {
                if s == to {
                    ok &= from.contains(&q);
                } else if s == join || !in_scope.contains(&s) || s == head {
                    ok = false;
                } else if seen.insert(s) {
                    stack.push(s);
                }
            }
        }
        if !ok {
            continue;
        }
        let stores = (0..common).rev().map(|k| trailing.iter().map(|t| t[k]).collect()).collect();
        out.push(SinkGroup { from, to, stores, guard_block: n });
    }
    out
}
