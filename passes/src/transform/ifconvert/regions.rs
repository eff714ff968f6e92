//! Region choice: the candidate region at each (divergent) branch, its
//! shape (single entry, acyclic), what bounds it, and whether the cost rule
//! keeps it (`cost.rs` prices it).

use super::cost::{cheapest_path, issued, Cost};
use super::guards::{access_type, branch_kind, classify, Guard};
use super::islands::{self, Island};
use super::sink::sink_groups;
use super::{CostRule, GuardForm, Mode, Options, Region, Target};
use crate::analysis::branch_profile::BlockProfile;
use crate::analysis::cache::FunctionAnalyses;
use crate::analysis::likely_uniform::LikelyUniform;
use crate::analysis::predicates::{PredId, Predicates};
use crate::cfg::BlockId;
use crate::ir::{instructions, terminator, Inst};
use crate::transform::select_tree::Arms;
use inkwell::basic_block::BasicBlock;
use llvm_sys::LLVMOpcode;
use std::collections::{BTreeSet, HashMap, HashSet};

/// Candidate regions at every (divergent) branch, the largest first, kept
/// when they overlap no region already kept: an outer region converts its
/// inner branches itself.
pub(super) fn choose_regions<'ctx>(
    fa: &FunctionAnalyses<'ctx>,
    opts: &Options,
    target: Target,
    counts: Option<&[BlockProfile]>,
    kept: &mut Vec<(BlockId, String)>,
) -> Vec<Region<'ctx>> {
    let cfg = &fa.cfg.cfg;
    // Only the split rule prices likely-uniform branches (and computing
    // them needs the uniformity analysis, which mode=all does not).
    let likely = if opts.max_cost.is_some() && opts.rule == CostRule::Split { LikelyUniform::compute(fa) } else { LikelyUniform::none() };
    let mut cands: Vec<Shape> = Vec::new();
    for &x in cfg.rpo() {
        if cfg.succs(x).len() < 2 {
            continue;
        }
        if opts.mode == Mode::Divergent && !fa.uniformity().is_divergent_branch(x) {
            continue;
        }
        match region_shape(fa, x, opts, target) {
            Ok(s) => cands.push(s),
            Err(why) => kept.push((x, why.to_string())),
        }
    }
    // The costly part (classification, predicates, the cost model) only for
    // shapes not inside a region already taken: nested candidates are
    // planned only when their outer region is not converted.
    cands.sort_by_key(|s| std::cmp::Reverse(s.body.len()));
    let mut taken = vec![false; cfg.len()];
    let mut out: Vec<Region<'ctx>> = Vec::new();
    for s in cands {
        if taken[s.head.index()] || s.body.iter().any(|b| taken[b.index()]) {
            continue;
        }
        let scratch_made = target.guard == GuardForm::Scratch && out.iter().any(|r| !r.scratch_types.is_empty());
        let head = s.head;
        let r = match region_at(fa, s, opts, target, &likely, counts, scratch_made) {
            Ok(r) => r,
            Err(why) => {
                kept.push((head, why));
                continue;
            }
        };
        taken[r.head.index()] = true;
        for b in r.body.iter().chain(r.islands.iter().flat_map(|i| &i.interior)) {
            taken[b.index()] = true;
        }
        out.push(r);
    }
    out
}

/// Regions larger than this are left alone (and bound the search's cost).
pub(super) const MAX_REGION_BLOCKS: usize = 256;

/// A candidate region's blocks: single-entry, acyclic; in `mode=divergent`
/// its uniform branches kept as islands (`islands.rs`).
pub(super) struct Shape {
    head: BlockId,
    join: BlockId,
    /// In topological order, the islands' interiors included.
    body: Vec<BlockId>,
    islands: Vec<Island>,
}

pub(super) fn region_shape(fa: &FunctionAnalyses<'_>, x: BlockId, opts: &Options, target: Target) -> Result<Shape, &'static str> {
    let cfg = &fa.cfg.cfg;
    let dom = fa.dom();
    let join = fa.postdom().ipdom(x).ok_or("its paths do not meet again (no post-dominator)")?;
    let fid = |bb| fa.cfg.id(bb).expect("a block of the function");
    let predicable = "a terminator it cannot predicate";
    branch_kind(&fid, fa.cfg.block(x)).ok_or(predicable)?;
    let mut body: BTreeSet<BlockId> = BTreeSet::new();
    let mut stack: Vec<BlockId> = cfg.succs(x).iter().copied().filter(|&s| s != join).collect();
    while let Some(b) = stack.pop() {
        if b == x || !dom.dominates(x.0, b.0) || cfg.succs(b).is_empty() {
            return Err("not a single-entry region that reaches its join (a loop, a return or another entry)");
        }
        if body.len() >= MAX_REGION_BLOCKS {
            return Err("over 256 blocks");
        }
        if !body.insert(b) {
            continue;
        }
        stack.extend(cfg.succs(b).iter().copied().filter(|&s| s != join && !body.contains(&s)));
    }
    if body.is_empty() {
        return Err("no block between the branch and its join");
    }
    let inside = |b: BlockId| b == x || body.contains(&b);
    let mut order: Vec<BlockId> = body.iter().copied().collect();
    order.sort_by_key(|&b| cfg.rpo_position(b));
    for &b in &order {
        // Single entry; acyclic (every edge goes forward in reverse post-order).
        if !cfg.preds(b).iter().all(|&p| inside(p)) {
            return Err("a block of it is entered from outside");
        }
        if cfg.succs(b).iter().any(|&s| s != join && cfg.rpo_position(s) <= cfg.rpo_position(b)) {
            return Err("it holds a loop");
        }
        if cfg.succs(b).len() > 1 && opts.mode == Mode::Divergent && !opts.partial && !fa.uniformity().is_divergent_branch(b) {
            return Err("a uniform branch inside (partial=off)");
        }
        branch_kind(&fid, fa.cfg.block(b)).ok_or(predicable)?;
    }
    let islands = if opts.mode == Mode::Divergent && opts.partial {
        islands::find(fa, x, &order, join, target).ok_or("a uniform branch inside that cannot stay as an island")?
    } else {
        Vec::new()
    };
    Ok(Shape { head: x, join, body: order, islands })
}

pub(super) fn region_at<'ctx>(
    fa: &FunctionAnalyses<'ctx>,
    s: Shape,
    opts: &Options,
    target: Target,
    likely: &LikelyUniform,
    counts: Option<&[BlockProfile]>,
    scratch_made: bool,
) -> Result<Region<'ctx>, String> {
    let Shape { head: x, join, body: full, islands } = s;
    // The islands' interiors stay blocks: the region linearised is the rest.
    let island_of: HashMap<BlockId, BlockId> = islands.iter().flat_map(|i| i.interior.iter().map(|&b| (b, i.head))).collect();
    let order: Vec<BlockId> = full.iter().copied().filter(|b| !island_of.contains_key(b)).collect();
    let fid = |bb| fa.cfg.id(bb).expect("a block of the function");
    let inside = |b: BlockId| b == x || order.binary_search_by_key(&fa.cfg.cfg.rpo_position(b), |&o| fa.cfg.cfg.rpo_position(o)).is_ok();
    let mut scope = vec![x];
    scope.extend(&order);
    let mut arms: HashMap<BlockId, Arms> = scope.iter().map(|&b| (b, arms_of(&fid, fa.cfg.block(b)).expect("checked"))).collect();
    // An island is one step from its head to its join.
    for i in &islands {
        arms.insert(i.head, Arms::Jump(i.join));
    }
    let sinks = sink_groups(fa, &scope, join, &arms);
    let sunk: HashSet<Inst<'ctx>> = sinks.iter().flat_map(|g| g.stores.iter().flatten().copied()).collect();
    let mut scratch_types = Vec::new();
    let mut cost = Cost::default();
    for &blk in &full {
        // An island's instructions are guarded by its head's predicate.
        let b = island_of.get(&blk).copied().unwrap_or(blk);
        for i in instructions(fa.cfg.block(blk)) {
            if i.is_phi() || i.is_terminator() {
                continue;
            }
            let guard = classify(i, target).map_err(|why| format!("it holds {why}"))?;
            if sunk.contains(&i) {
                continue;
            }
            match guard {
                Guard::Address(idx) => {
                    let ty = access_type(i);
                    if !scratch_types.contains(&ty) {
                        scratch_types.push(ty);
                    }
                    let cast = u64::from(i.operand(idx).ty().address_space() != Some(target.generic));
                    cost.guards += 1 + cast;
                    cost.branch_extra += 1 - cast;
                }
                Guard::Divisor => cost.guards += 1,
                Guard::None => continue,
            }
            if !cost.guarded_blocks.contains(&b) {
                cost.guarded_blocks.push(b);
            }
        }
    }
    let preds = Predicates::for_region(fa.control_deps(), &scope, |e| inside(e.from));
    for g in &sinks {
        if preds.r(g.guard_block) == PredId::TRUE {
            continue;
        }
        for s in g.stores.iter().map(|row| row[0]) {
            let ty = access_type(s);
            if !scratch_types.contains(&ty) {
                scratch_types.push(ty);
            }
            let cast = u64::from(s.operand(1).ty().address_space() != Some(target.generic));
            cost.guards += 1 + cast;
            cost.branch_extra += 1 - cast;
        }
        cost.guarded_blocks.push(g.guard_block);
    }
    let mut region =
        Region { head: x, body: order, join, islands, preds, scratch_types, arms, sinks, chains: HashMap::new(), cost: (0, 0) };
    let (divergent, predicated, chains) = cost.estimate(fa, &region, &sunk, likely);
    if let Some(limit) = opts.max_cost {
        // With guard=branch a guarded access is a branch around it (two
        // warp-instructions at most) rather than the estimate's select.
        let extra = if target.guard == GuardForm::Branch { cost.branch_extra as i64 } else { 0 };
        // The first region with a guarded access makes the scratch slot, an
        // `alloca` every warp issues once at the entry.
        let slot = i64::from(target.guard == GuardForm::Scratch && !region.scratch_types.is_empty() && !scratch_made);
        let own = |b: BlockId| instructions(fa.cfg.block(b)).filter(|i| !i.is_terminator()).map(issued).sum::<u64>() as i64;
        let keep = match counts.map(|c| &c[x.index()]).filter(|c| c.runs > 0) {
            // Measured: what the branchy blocks issued against the runs of
            // the head, each a pass through the straight-line code.
            Some(head) => {
                let c = counts.expect("profiled");
                let runs = head.runs as i64;
                let branchy: i64 = runs + full.iter().map(|&b| c[b.index()].entries as i64 * (own(b) + 1)).sum::<i64>();
                runs * (predicated - own(x) + extra) + slot * c[0].entries as i64 > branchy + runs * limit
            }
            None => match opts.rule {
                // The slot is paid for by a region every warp runs: the
                // head post-dominates the entry.
                CostRule::NeverWorse if slot > 0 && !fa.postdom().post_dominates(x, BlockId(0)) => true,
                CostRule::NeverWorse => predicated + extra + slot > cheapest_path(fa, x, &full, join, &own) + limit,
                CostRule::Split => predicated >= divergent + limit,
            },
        };
        if keep {
            let rule = match (counts.is_some(), opts.rule) {
                (true, _) => "the profile's measured runs",
                (false, CostRule::NeverWorse) => "the never-worse rule (no more than its cheapest path)",
                (false, CostRule::Split) => "cost=split",
            };
            return Err(format!("costs more predicated ({predicated} warp-instructions) than branchy, by {rule}"));
        }
    }
    region.chains = chains;
    region.cost = (divergent, predicated);
    Ok(region)
}

/// The successors of a block as the select trees see them.
pub(super) fn arms_of<'ctx>(id: &dyn Fn(BasicBlock<'ctx>) -> BlockId, bb: BasicBlock<'ctx>) -> Option<Arms> {
    let t = terminator(bb)?;
    let s: Vec<BlockId> = t.successors().into_iter().map(id).collect();
    match t.opcode() {
        LLVMOpcode::LLVMBr if s.len() == 1 => Some(Arms::Jump(s[0])),
        LLVMOpcode::LLVMBr => Some(Arms::Cond { on_true: s[0], on_false: s[1] }),
        LLVMOpcode::LLVMSwitch => Some(Arms::Switch { default: s[0], cases: s[1..].to_vec() }),
        _ => None,
    }
}
