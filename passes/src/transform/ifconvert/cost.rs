//! The cost model: warp-instructions a region issues branchy (cheapest
//! path, or every block as if every warp split) and predicated (exactly what
//! `emit.rs` makes; `tests/ifconvert_exec.rs` checks it).

use super::emit::{is_erasable, phi_entries};
use super::{islands, Region};
use crate::analysis::cache::FunctionAnalyses;
use crate::analysis::likely_uniform::LikelyUniform;
use crate::analysis::predicates::PredId;
use crate::cfg::BlockId;
use crate::ir::{instructions, terminator, Inst, Value};
use crate::kernel_model::{builtin_of, Builtin};
use crate::transform::ocl_builtins::lane_local_size;
use crate::transform::select_tree::{self, Arms};
use std::collections::{BTreeSet, HashMap, HashSet};

/// The estimate of `max-cost`, in issued warp-instructions.
#[derive(Default)]
pub(super) struct Cost {
    pub(super) guards: u64,
    /// What `guard=branch` may issue beyond `guards` (the branch around an
    /// access costs up to 2, the select 1, with the cast 2).
    pub(super) branch_extra: u64,
    /// Blocks with a guarded access or division (their predicate is made).
    pub(super) guarded_blocks: Vec<BlockId>,
}

/// Warp-instructions of `i` on the emulator: phis are edge copies, and
/// work-item queries, the warp size and lane masks are read from registers
/// filled per work-group (the decoder's `special_of`).
pub fn issued(i: Inst<'_>) -> u64 {
    let special = || {
        i.is_call()
            && i.called_function_name()
                .is_some_and(|n| n == "llvm.nvvm.read.ptx.sreg.warpsize" || n.starts_with("llvm.nvvm.read.ptx.sreg.lanemask."))
    };
    // An OpenCL built-in runs as what simt-lower-ocl-builtins makes of it.
    if let Some(k) = lane_local_size(i) {
        return k;
    }
    u64::from(!i.is_phi() && !builtin_of(i).is_some_and(|b| b != Builtin::Barrier) && !special())
}

impl Cost {
    /// (divergent, predicated). Divergently under IPDOM, a warp runs every
    /// block of the region once with its terminator, except at a branch
    /// that is likely uniform at run time (`LikelyUniform`: bounds checks),
    /// where a warp that does not diverge runs only the cheaper side
    /// ([`warp_cost`]). Predicated, the same non-terminators issue, less the
    /// sunk stores' copies, plus what the emission makes: the guards, the
    /// select trees of the phis and of the sunk stores, the edge predicates
    /// the guards read (an `and` when guarded, a `not` on a false edge, a
    /// compare per switch case), an `or` per extra K entry, and a `br` unless
    /// the join is merged into the head.
    pub(super) fn estimate<'ctx>(
        &self,
        fa: &FunctionAnalyses<'ctx>,
        r: &Region<'ctx>,
        sunk: &HashSet<Inst<'ctx>>,
        likely: &LikelyUniform,
    ) -> (i64, i64, HashMap<Inst<'ctx>, Vec<BlockId>>) {
        let cfg = &fa.cfg.cfg;
        let preds = &r.preds;
        let mut scope = vec![r.head];
        scope.extend(&r.body);
        let scope_set: HashSet<BlockId> = scope.iter().copied().collect();
        let inside = |b: BlockId| scope_set.contains(&b);
        let fid = |bb| fa.cfg.id(bb).expect("a block of the function");
        let own = |b: BlockId| instructions(fa.cfg.block(b)).filter(|i| !i.is_terminator()).map(issued).sum::<u64>();
        let divergent = warp_cost(fa, &r.all_blocks(cfg), r.join, &own, likely);
        let mut predicated = self.guards;
        // Switch case compares, made once per (block, case) for edges and
        // trees alike.
        let mut compares: HashSet<(BlockId, usize)> = HashSet::new();
        // The guards' predicates and the edges they are made of, first:
        // a phi whose edges are all among them is cheaper as a chain.
        let mut wanted: Vec<(BlockId, BlockId)> = Vec::new();
        let mut made_preds: Vec<PredId> = Vec::new();
        let mut want_pred = |p: PredId, wanted: &mut Vec<(BlockId, BlockId)>| {
            if p != PredId::TRUE && !made_preds.contains(&p) {
                made_preds.push(p);
                wanted.extend(preds.k(p).iter().map(|e| (e.from, e.to)));
            }
        };
        for &b in &self.guarded_blocks {
            want_pred(preds.r(b), &mut wanted);
        }
        let mut made_edges: Vec<(BlockId, BlockId)> = Vec::new();
        while let Some((a, s)) = wanted.pop() {
            if made_edges.contains(&(a, s)) {
                continue;
            }
            made_edges.push((a, s));
            let guarded = preds.r(a) != PredId::TRUE;
            want_pred(preds.r(a), &mut wanted);
            predicated += u64::from(guarded && cfg.succs(a).len() > 1);
            match &r.arms[&a] {
                Arms::Switch { default, cases } => {
                    let picked: Vec<usize> =
                        (0..cases.len()).filter(|&k| if s == *default { cases[k] != *default } else { cases[k] == s }).collect();
                    compares.extend(picked.iter().map(|&k| (a, k)));
                    // The ORs of the cases, a `not` for the default, an
                    // `and` with the guard only when a case is picked.
                    predicated += picked.len().saturating_sub(1) as u64;
                    predicated += u64::from(s == *default && !picked.is_empty());
                    predicated -= u64::from(guarded && picked.is_empty());
                }
                Arms::Cond { on_true, on_false } if on_true != on_false && s == *on_false => predicated += 1,
                _ => {}
            }
        }
        for p in &made_preds {
            predicated += preds.k(*p).len().saturating_sub(1) as u64;
        }
        predicated += compares.len() as u64;
        let edge_made = |a: BlockId, s: BlockId| match &r.arms[&a] {
            Arms::Jump(_) => preds.r(a) == PredId::TRUE || made_preds.contains(&preds.r(a)),
            Arms::Cond { on_true, on_false } if on_true == on_false => preds.r(a) == PredId::TRUE || made_preds.contains(&preds.r(a)),
            _ => made_edges.contains(&(a, s)),
        };
        let mut chains: HashMap<Inst<'ctx>, Vec<BlockId>> = HashMap::new();
        // Blocks whose branch condition something made reads.
        let mut read: HashSet<BlockId> = made_edges.iter().map(|e| e.0).collect();
        let arms = |b: BlockId| r.arms[&b].clone();
        let mut phi_cost = |phi: Option<Inst<'ctx>>, to: BlockId, entries: &[(Value<'ctx>, BlockId)]| -> u64 {
            let Some(t) = select_tree::build(&scope, &arms, to, entries) else { return 0 };
            let new_compares: HashSet<(BlockId, usize)> = t.case_compares().into_iter().filter(|c| !compares.contains(c)).collect();
            let tree = (t.selects() + new_compares.len()) as u64;
            if let Some(order) = phi.and_then(|_| chain_order(entries, &|a| edge_made(a, to))) {
                if (entries.len() as u64 - 1) < tree {
                    read.extend(&order[..order.len() - 1]);
                    chains.insert(phi.expect("a phi"), order);
                    return entries.len() as u64 - 1;
                }
            }
            compares.extend(new_compares);
            read.extend(t.read_blocks());
            tree
        };
        for &b in &scope {
            let bb = fa.cfg.block(b);
            predicated += instructions(bb).filter(|&i| !i.is_terminator() && !sunk.contains(&i)).map(issued).sum::<u64>();
            // An island's join keeps its phis (free).
            if b != r.head && !r.islands.iter().any(|i| i.join == b) {
                for phi in instructions(bb).take_while(|i| i.is_phi()) {
                    predicated += phi_cost(Some(phi), b, &phi_entries(&fid, phi));
                }
            }
        }
        for phi in instructions(fa.cfg.block(r.join)).take_while(|i| i.is_phi()) {
            let entries: Vec<_> = phi_entries(&fid, phi).into_iter().filter(|&(_, a)| inside(a)).collect();
            predicated += phi_cost(Some(phi), r.join, &entries);
        }
        for g in &r.sinks {
            for row in &g.stores {
                let entries: Vec<_> = row.iter().zip(&g.from).map(|(s, &a)| (s.operand(0), a)).collect();
                predicated += 1 + phi_cost(None, g.to, &entries);
            }
        }
        if !cfg.preds(r.join).iter().all(|&p| inside(p)) {
            predicated += 1;
        }
        predicated -= dead_conditions(fa, &scope, &read, &r.arms);
        // Each lane group runs one way through an island, the costliest at
        // worst, with the island's guards (in `self.guards`).
        predicated += r.islands.iter().map(|i| islands::costliest_path(fa, i, &own)).sum::<u64>();
        (divergent as i64, predicated as i64, chains)
    }
}

/// What `erase_dead` will erase after conversion, in issued instructions:
/// the branch conditions of the region that nothing made reads (blocks not
/// in `read`), and their operands in the region, once nothing else uses
/// them.
pub(super) fn dead_conditions<'ctx>(
    fa: &FunctionAnalyses<'ctx>,
    scope: &[BlockId],
    read: &HashSet<BlockId>,
    arms: &HashMap<BlockId, Arms>,
) -> u64 {
    // The terminators that go: not an island's branch (a jump to its join
    // in `arms`, a branch in the IR), which stays.
    let terms: HashSet<Inst<'ctx>> = scope
        .iter()
        .filter_map(|&b| terminator(fa.cfg.block(b)).filter(|t| !matches!(arms[&b], Arms::Jump(_)) || t.successors().len() == 1))
        .collect();
    let cond = |b: BlockId| {
        let t = terminator(fa.cfg.block(b))?;
        match arms[&b] {
            Arms::Jump(_) => None,
            _ => Some(t.operand(0)),
        }
    };
    let live: HashSet<Value<'ctx>> = read.iter().filter_map(|&b| cond(b)).collect();
    let mut cands: BTreeSet<Value<'ctx>> = scope.iter().filter_map(|&b| cond(b)).filter(|v| !live.contains(v)).collect();
    let scope_set: HashSet<BlockId> = scope.iter().copied().collect();
    let in_scope = |i: Inst<'ctx>| fa.cfg.id(i.block()).is_some_and(|b| scope_set.contains(&b));
    let mut dead: HashSet<Value<'ctx>> = HashSet::new();
    let mut issued_dead = 0;
    while let Some(v) = cands.iter().copied().find(|&v| {
        v.as_inst()
            .is_some_and(|i| is_erasable(i) && in_scope(i) && v.users().iter().all(|u| terms.contains(u) || dead.contains(&u.value())))
    }) {
        cands.remove(&v);
        let i = v.as_inst().expect("an instruction");
        dead.insert(v);
        issued_dead += issued(i);
        cands.extend(i.operands().filter(|o| !dead.contains(o) && !live.contains(o)));
    }
    issued_dead
}

/// The order of a phi's entries for a chain of selects when all but the
/// last have their edge predicate made (`made`); `None` if two lack it.
pub(super) fn chain_order<V: Copy>(entries: &[(V, BlockId)], made: &dyn Fn(BlockId) -> bool) -> Option<Vec<BlockId>> {
    let missing: Vec<BlockId> = entries.iter().map(|e| e.1).filter(|&a| !made(a)).collect();
    let last = match missing[..] {
        [] => entries.last()?.1,
        [a] => a,
        _ => return None,
    };
    Some(entries.iter().map(|e| e.1).filter(|&a| a != last).chain(std::iter::once(last)).collect())
}

/// Warp-instructions of the cheapest path from `head` through `body` (in
/// topological order) to `join`, terminators included: a lower bound on
/// what any lane group issues there, split or not, since each runs a whole
/// path (a split group's parts run one each). `own(b)`: b's issued
/// instructions less its terminator.
pub(super) fn cheapest_path(
    fa: &FunctionAnalyses<'_>,
    head: BlockId,
    body: &[BlockId],
    join: BlockId,
    own: &dyn Fn(BlockId) -> i64,
) -> i64 {
    let cfg = &fa.cfg.cfg;
    let mut cost: HashMap<BlockId, i64> = HashMap::from([(join, 0)]);
    for &n in body.iter().rev().chain(std::iter::once(&head)) {
        let rest = cfg.succs(n).iter().map(|s| cost[s]).min().unwrap_or(0);
        cost.insert(n, own(n) + 1 + rest);
    }
    cost[&head]
}

/// Warp-instructions a warp issues from the head of a region (`scope`,
/// topological, head first) to its join when it diverges at every divergent
/// branch but at none of the likely-uniform ones: at a divergent branch it
/// runs every block up to the branch's post-dominator once (IPDOM), at a
/// likely-uniform one only the cheaper side. Without likely-uniform branches
/// this is every block of the region once. `own(b)`: b's issued
/// instructions less its terminator.
pub(super) fn warp_cost(
    fa: &FunctionAnalyses<'_>,
    scope: &[BlockId],
    join: BlockId,
    own: &dyn Fn(BlockId) -> u64,
    likely: &LikelyUniform,
) -> u64 {
    let cfg = &fa.cfg.cfg;
    let own = |b: BlockId| own(b) + 1;
    if !scope.iter().any(|&b| likely.is_likely_uniform(b)) {
        return scope.iter().map(|&b| own(b)).sum();
    }
    let mut cost: HashMap<BlockId, u64> = HashMap::from([(join, 0)]);
    for &n in scope.iter().rev() {
        let succs = cfg.succs(n);
        let c = if succs.len() == 1 || likely.is_likely_uniform(n) {
            own(n) + succs.iter().map(|s| cost[s]).min().unwrap_or(0)
        } else {
            let pd = fa.postdom().ipdom(n).unwrap_or(join);
            let mut seen: HashSet<BlockId> = HashSet::new();
            let mut stack: Vec<BlockId> = succs.iter().copied().filter(|&s| s != pd && s != join).collect();
            while let Some(b) = stack.pop() {
                if seen.insert(b) {
                    stack.extend(cfg.succs(b).iter().copied().filter(|&s| s != pd && s != join));
                }
            }
            own(n) + seen.iter().map(|&b| own(b)).sum::<u64>() + cost.get(&pd).copied().unwrap_or(0)
        };
        cost.insert(n, c);
    }
    cost[&scope[0]]
}
