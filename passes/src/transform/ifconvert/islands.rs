//! Partial linearisation (Moll & Hack, "Partial Control-Flow Linearization",
//! PLDI 2018): a uniform branch inside a divergent region need not be
//! linearised. Every lane of a warp agrees on it, so the warp takes one side
//! whether or not its lanes are active there. Such a branch is kept, with
//! the blocks it controls up to its immediate post-dominator: an *island*
//! in the linearised region. The rest of the region is linearised around
//! it: the head's code goes to the block before the island, the island's
//! instructions are guarded in place by the head's predicate (a lane not
//! meant to be there runs the island masked, as it runs a linearised
//! block), and linearisation resumes at the island's join.
//!
//! ```text
//!   x: br %div                     x:  a's code; b's code (guarded)
//!   |        \                         br %uni, u1, u2          (kept)
//!   a         c                    u1: code guarded by P(b)  u2: likewise
//!   |         |        ==>              \                   /
//!   b: br %uni|                    j:  phis of j as they were; j's code,
//!  / \        |                         c's code (guarded), select trees
//! u1  u2      |                         of the region's phis; br d
//!  \ /        |
//!   j --------+--> d
//! ```
//!
//! Moll & Hack linearise a whole function by a divergence-aware block
//! order; here the regions of seed 004 stay the unit, and an island is the
//! part of a region whose branches all stay. Limits (each keeps the whole
//! region, as before): the island's join must be inside the region and
//! entered only from the island (a join shared with the region's other
//! arms would need new phis there); the island holds no divergent branch;
//! its condition must not read a value that masked lanes compute
//! differently (a guarded load or a division with a guarded divisor, which
//! would make the kept branch diverge).

use super::guards::{classify, Guard};
use super::Target;
use crate::analysis::cache::FunctionAnalyses;
use crate::cfg::BlockId;
use crate::ir::{terminator, Value};
use std::collections::{BTreeSet, HashMap, HashSet};

/// A uniform branch kept inside a linearised region.
#[derive(Clone, Debug)]
pub struct Island {
    /// The block of the uniform branch: linearised like any block of the
    /// region, but its branch stays.
    pub head: BlockId,
    /// Its immediate post-dominator, a block of the region where
    /// linearisation resumes.
    pub join: BlockId,
    /// The blocks between them, kept as blocks, in topological order.
    pub interior: Vec<BlockId>,
}

/// The islands of the body of a divergent region (`body`: topological, the
/// region's join `join`), one per uniform branch not inside another; `None`
/// when a uniform branch cannot be one (the region then stays).
pub(super) fn find(fa: &FunctionAnalyses<'_>, head: BlockId, body: &[BlockId], join: BlockId, target: Target) -> Option<Vec<Island>> {
    let cfg = &fa.cfg.cfg;
    let mut out: Vec<Island> = Vec::new();
    let mut interior: HashSet<BlockId> = HashSet::new();
    for &b in body {
        if interior.contains(&b) || cfg.succs(b).len() < 2 || fa.uniformity().is_divergent_branch(b) {
            continue;
        }
        let island = island_at(fa, b, body, join)?;
        if !condition_agrees(fa, b, head, body, target) {
            return None;
        }
        interior.extend(&island.interior);
        out.push(island);
    }
    Some(out)
}

fn island_at(fa: &FunctionAnalyses<'_>, b: BlockId, body: &[BlockId], region_join: BlockId) -> Option<Island> {
    let cfg = &fa.cfg.cfg;
    let j = fa.postdom().ipdom(b)?;
    if j == region_join || !body.contains(&j) {
        return None;
    }
    let mut inside: BTreeSet<BlockId> = BTreeSet::new();
    let mut stack: Vec<BlockId> = cfg.succs(b).iter().copied().filter(|&s| s != j).collect();
    while let Some(s) = stack.pop() {
        if !body.contains(&s) {
            return None;
        }
        if inside.insert(s) {
            stack.extend(cfg.succs(s).iter().copied().filter(|&t| t != j));
        }
    }
    let entered_from_island = |s: BlockId| cfg.preds(s).iter().all(|p| *p == b || inside.contains(p));
    if !entered_from_island(j) || !inside.iter().all(|&s| entered_from_island(s)) {
        return None;
    }
    if inside.iter().any(|&s| cfg.succs(s).len() > 1 && fa.uniformity().is_divergent_branch(s)) {
        return None;
    }
    let mut interior: Vec<BlockId> = inside.into_iter().collect();
    interior.sort_by_key(|&s| cfg.rpo_position(s));
    Some(Island { head: b, join: j, interior })
}

/// Whether every lane computes the island head's condition alike once the
/// region is linearised: it reads, through the region's instructions, no
/// value a masked lane computes differently (a guarded load or division).
/// The region's head runs unmasked.
fn condition_agrees(fa: &FunctionAnalyses<'_>, b: BlockId, head: BlockId, body: &[BlockId], target: Target) -> bool {
    let Some(t) = terminator(fa.cfg.block(b)) else { return false };
    let in_body = |v: Value<'_>| v.as_inst().and_then(|i| fa.cfg.id(i.block())).is_some_and(|blk| blk != head && body.contains(&blk));
    let mut seen: HashSet<Value<'_>> = HashSet::new();
    let mut stack: Vec<Value<'_>> = vec![t.operand(0)];
    while let Some(v) = stack.pop() {
        if !in_body(v) || !seen.insert(v) {
            continue;
        }
        let i = v.as_inst().expect("an instruction");
        if !i.is_phi() && classify(i, target) != Ok(Guard::None) {
            return false;
        }
        stack.extend(i.operands());
    }
    true
}

/// Warp-instructions of the costliest way through an island, from the
/// head's branch (kept) to its join, terminators included: a lane group
/// runs one way, which the uniform condition picks.
pub(super) fn costliest_path(fa: &FunctionAnalyses<'_>, island: &Island, own: &dyn Fn(BlockId) -> u64) -> u64 {
    let cfg = &fa.cfg.cfg;
    let mut cost: HashMap<BlockId, u64> = HashMap::from([(island.join, 0)]);
    for &n in island.interior.iter().rev() {
        let rest = cfg.succs(n).iter().map(|s| cost[s]).max().unwrap_or(0);
        cost.insert(n, own(n) + 1 + rest);
    }
    1 + cfg.succs(island.head).iter().map(|s| cost[s]).max().unwrap_or(0)
}
