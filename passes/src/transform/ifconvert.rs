//! `simt-ifconvert`: if-conversion of divergent branches into predicated
//! straight-line code, by the RK algorithm of seed 004 (Park & Schlansker,
//! "On Predicated Execution", HPL-91-58; `analysis/predicates.rs`). The
//! reasoning behind each choice, with pictures: `ifconvert-design.md`.
//!
//! A *region* is a conditional branch at block x with every block between x
//! and its immediate post-dominator d. When it is single-entry, acyclic and
//! holds nothing that must keep a branch (barriers, atomics, volatile
//! accesses, fences, calls not known pure, convergent calls, `alloca`s,
//! returns), its blocks are merged into x in topological order: predicates
//! are `i1` selects defined where K says, phis become gated select trees
//! (`select_tree.rs`), stores common to the arms' ends are sunk, the rest is
//! speculated, divisors become `select g, y, 1`, and guarded loads and stores
//! take the `guard=` form: `scratch` (GPU triples: the address becomes
//! `select g, p, slot`, a per-lane `alloca`) or `branch` (CPU triples: the
//! access alone keeps a branch). Loop bodies are converted innermost region
//! first; back edges and exits stay branches.
//!
//! Cost, in warp-instructions as the emulator issues them (one per
//! instruction and terminator; phis and work-item queries free), the
//! predicated form estimated exactly (`tests/ifconvert_exec.rs`):
//! - `cost=never-worse` (default): convert when the predicated region costs
//!   no more than the cheapest path from x to d, terminators included, plus
//!   `max-cost=N` (default 0). Every lane group entering x runs a whole path,
//!   split or not, so no warp issues more, at any width, under any policy.
//!   A `guard=branch` access is priced at 2; the scratch slot's `alloca` goes
//!   to a region whose head post-dominates the entry.
//! - `profile=FILE` (`simt-run --engine emu --profile FILE`): a branch that
//!   ran is priced by its measured runs and the lane groups that entered each
//!   block: convert when runs(x) × (predicated − x's own) ≤ runs(x) +
//!   Σ entries(b) × (own(b) + 1) over the body. Exact under ipdom for the
//!   launch profiled. A function whose IR hash differs from the profile's is
//!   an error; functions it does not cover use the rule.
//! - `cost=split`: the rule before issue 23 (every block once, as if every
//!   warp split; bounds checks by their cheaper side); `max-cost=none`: no
//!   model.
//! - `mode=divergent` (default) converts only divergent branches whose region
//!   holds no uniform branch (no code duplicated); `mode=all` every branch.
//!
//! Limits: without a profile, regions that pay only when most warps split
//! (clamps, bitonic compare-exchange) are kept; a region whose join is the
//! virtual exit is kept; a uniform branch inside a divergent region keeps the
//! whole region; vector divisions and, with `guard=scratch`, loads from
//! SPIR's constant address space bound a region.

use crate::analysis::branch_profile::{self, BlockProfile, BranchProfile};
use crate::analysis::cache::FunctionAnalyses;
use crate::analysis::likely_uniform::LikelyUniform;
use crate::analysis::predicates::{PredId, Predicates};
use crate::cfg::{BlockId, Cfg};
use crate::ir::{defined_functions, delete_block, instructions, target_triple, terminator, Builder, Inst, Ty, Value};
use crate::kernel_model::{builtin_of, Builtin};
use crate::pass::{unknown_option, ModulePass, PassContext, PassError, Preserved};
use crate::transform::select_tree::{self, Arms, Node, Tree};
use inkwell::basic_block::BasicBlock;
use inkwell::module::Module;
use llvm_sys::{LLVMIntPredicate, LLVMOpcode};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Divergent,
    All,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub mode: Mode,
    /// How a region is priced against its branches.
    pub rule: CostRule,
    /// Extra warp-instructions allowed over the rule's branchy cost; `None`: no limit.
    pub max_cost: Option<i64>,
    /// How guarded loads and stores are kept safe; `None`: per target.
    pub guard: Option<GuardForm>,
    /// `profile=FILE`: the file and its counts, which price the branches
    /// they cover.
    pub profile: Option<(String, Arc<BranchProfile>)>,
}

impl Default for Options {
    fn default() -> Self {
        Options { mode: Mode::Divergent, rule: CostRule::NeverWorse, max_cost: Some(0), guard: None, profile: None }
    }
}

/// What the predicated region is compared with (the header says why).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CostRule {
    /// The cheapest path from the head to the join: never worse for any warp.
    NeverWorse,
    /// Every block of the region once, as if every warp split (bounds checks
    /// priced by their cheaper side): the model before issue 23.
    Split,
}

/// How a load or store whose predicate is false in a lane is kept from
/// faulting or racing (the header says why each, and where).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GuardForm {
    /// The address is `select g, p, scratch`: straight-line code.
    Scratch,
    /// The access alone keeps a branch on g: everything else is straight.
    Branch,
}

#[derive(Default)]
pub struct IfConvert(pub Options);

impl ModulePass for IfConvert {
    fn name(&self) -> String {
        let mode = match self.0.mode {
            Mode::Divergent => "divergent",
            Mode::All => "all",
        };
        let cost = self.0.max_cost.map_or("none".to_string(), |c| c.to_string());
        let guard = match self.0.guard {
            None => "",
            Some(GuardForm::Scratch) => ";guard=scratch",
            Some(GuardForm::Branch) => ";guard=branch",
        };
        let rule = match self.0.rule {
            CostRule::NeverWorse => "",
            CostRule::Split => ";cost=split",
        };
        let profile = self.0.profile.as_ref().map_or(String::new(), |(path, _)| format!(";profile={path}"));
        format!("simt-ifconvert<mode={mode};max-cost={cost}{rule}{guard}{profile}>")
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        let mut preserved = Preserved::all();
        for f in defined_functions(cx.module()) {
            let plan = plan_function(cx.analyses(f), &self.0)
                .map_err(|message| PassError::Unsupported { pass: "simt-ifconvert".into(), message })?;
            let Some(plan) = plan else { continue };
            apply_plan(cx.module_mut(), &plan);
            preserved = Preserved::none();
        }
        Ok(preserved)
    }
}

impl crate::pass::DeclaredPass for IfConvert {
    const NAME: &'static str = "simt-ifconvert";
    const SUMMARY: &'static str = "if-converts divergent branches into predicated straight-line code (RK algorithm), with a cost model";
    const SEED: Option<&'static str> = Some("004");
    const OPTIONS: &'static [(&'static str, &'static str)] = &[
        ("mode=divergent", "convert only divergent branches, keeping every uniform one (the default)"),
        ("mode=all", "convert every branch it can (the blog's algorithm as written)"),
        ("max-cost=N", "a region may cost N warp-instructions more than the rule's branchy cost (default 0); max-cost=none: no cost model"),
        ("cost=never-worse", "a region must cost no more than the cheapest path through its branches (the default)"),
        ("cost=split", "a region must cost less than running every one of its blocks, as if every warp split (the model before issue 23)"),
        (
            "profile=FILE",
            "price the branches of the functions FILE covers (simt-run --engine emu --profile FILE) by their measured runs and splits",
        ),
        (
            "guard=scratch",
            "a guarded load or store gets the address select(p, addr, scratch slot) (default on GPU targets: nvptx, spir, amdgcn)",
        ),
        ("guard=branch", "a guarded load or store alone keeps a branch on its predicate (default on CPU targets)"),
    ];

    fn set_option(&mut self, key: &str, value: Option<&str>) -> Result<(), String> {
        match (key, value) {
            ("mode", Some("divergent")) => self.0.mode = Mode::Divergent,
            ("mode", Some("all")) => self.0.mode = Mode::All,
            ("max-cost", Some("none")) => self.0.max_cost = None,
            ("cost", Some("never-worse")) => self.0.rule = CostRule::NeverWorse,
            ("cost", Some("split")) => self.0.rule = CostRule::Split,
            ("cost", Some(c)) => return Err(format!("cost must be 'never-worse' or 'split', got '{c}'")),
            ("profile", Some(path)) => {
                self.0.profile = Some((path.to_string(), Arc::new(BranchProfile::read(std::path::Path::new(path))?)))
            }
            ("guard", Some("scratch")) => self.0.guard = Some(GuardForm::Scratch),
            ("guard", Some("branch")) => self.0.guard = Some(GuardForm::Branch),
            ("guard", Some(g)) => return Err(format!("guard must be 'scratch' or 'branch', got '{g}'")),
            ("max-cost", Some(n)) => {
                self.0.max_cost = Some(n.parse().map_err(|_| format!("max-cost must be an integer or 'none', got '{n}'"))?)
            }
            _ => return Err(unknown_option::<Self>(key)),
        }
        Ok(())
    }
}

/// One convertible region: the branch block, the blocks it controls in
/// topological order, the join, and their predicates.
pub struct Region<'ctx> {
    pub head: BlockId,
    pub body: Vec<BlockId>,
    pub join: BlockId,
    preds: Predicates,
    /// The types of the guarded accesses (none: no scratch slot needed).
    scratch_types: Vec<Ty<'ctx>>,
    /// The successors of the head and the body's blocks.
    arms: HashMap<BlockId, Arms>,
    sinks: Vec<SinkGroup<'ctx>>,
    /// Phis made as a chain of selects on edge predicates the guards make
    /// anyway (cheaper than their select tree), with their entries' order.
    chains: HashMap<Inst<'ctx>, Vec<BlockId>>,
    /// The cost model's estimates (warp-instructions): the branchy form
    /// and the predicated one (head and body, less the join).
    pub cost: (i64, i64),
}

/// The blocks of a function as handles, with the CFG over them: what the
/// mutation needs of the analyses, kept after their borrow ends.
pub struct Blocks<'ctx> {
    cfg: Cfg,
    blocks: Vec<BasicBlock<'ctx>>,
    index: HashMap<BasicBlock<'ctx>, BlockId>,
}

impl<'ctx> Blocks<'ctx> {
    fn of(fa: &FunctionAnalyses<'ctx>) -> Blocks<'ctx> {
        let blocks = fa.cfg.blocks().to_vec();
        let index = blocks.iter().enumerate().map(|(i, &b)| (b, BlockId(i as u32))).collect();
        Blocks { cfg: fa.cfg.cfg.clone(), blocks, index }
    }

    fn block(&self, b: BlockId) -> BasicBlock<'ctx> {
        self.blocks[b.index()]
    }

    fn id(&self, bb: BasicBlock<'ctx>) -> BlockId {
        self.index[&bb]
    }
}

/// What one function's conversion does, planned from its analyses.
pub struct Plan<'ctx> {
    blocks: Blocks<'ctx>,
    regions: Vec<Region<'ctx>>,
    target: Target,
    entry: BasicBlock<'ctx>,
}

impl<'ctx> Plan<'ctx> {
    /// The regions to convert.
    pub fn regions(&self) -> &[Region<'ctx>] {
        &self.regions
    }
}

/// Chooses the regions of one function; `None` when there is nothing to do;
/// `Err` when the profile covers another version of the function.
pub fn plan_function<'ctx>(fa: &FunctionAnalyses<'ctx>, opts: &Options) -> Result<Option<Plan<'ctx>>, String> {
    let mut target = Target::of(fa);
    target.guard = opts.guard.unwrap_or(target.guard);
    let counts = profile_of(fa, opts)?;
    let regions = choose_regions(fa, opts, target, counts);
    if regions.is_empty() {
        return Ok(None);
    }
    Ok(Some(Plan { blocks: Blocks::of(fa), regions, target, entry: fa.cfg.block(BlockId(0)) }))
}

/// The profile's counts for the function, by block index: `None` when the
/// profile does not cover it, `Err` when it was taken from other IR.
fn profile_of<'p>(fa: &FunctionAnalyses<'_>, opts: &'p Options) -> Result<Option<&'p [BlockProfile]>, String> {
    let f = fa.cfg.function;
    let name = crate::ir::function_name(f);
    let Some(p) = opts.profile.as_ref().and_then(|(_, p)| p.function(&name)) else { return Ok(None) };
    let hash = branch_profile::ir_hash(f);
    if p.ir_hash != hash {
        return Err(format!(
            "the profile of function '{name}' was taken from other IR (hash {}, this function {hash}): profile the module this pass reads",
            p.ir_hash
        ));
    }
    if p.blocks.len() != fa.cfg.blocks().len() {
        return Err(format!("the profile of function '{name}' has {} blocks, the function {}", p.blocks.len(), fa.cfg.blocks().len()));
    }
    Ok(Some(&p.blocks))
}

/// Converts the planned regions (`&mut Module`: the IR changes under it).
pub fn apply_plan<'ctx>(module: &mut Module<'ctx>, plan: &Plan<'ctx>) {
    let mut guarding = match plan.target.guard {
        GuardForm::Scratch => {
            let bytes = plan.regions.iter().flat_map(|r| &r.scratch_types).map(|t| t.alloc_size_in(module)).max().unwrap_or(0);
            Guarding::Scratch((bytes > 0).then(|| make_scratch(plan.entry, bytes, plan.target)))
        }
        GuardForm::Branch => Guarding::Branch { accesses: Vec::new(), guards: BTreeSet::new() },
    };
    for r in &plan.regions {
        convert_region(&plan.blocks, r, &mut guarding, plan.target);
    }
    merge_joins(&plan.blocks, &plan.regions);
    // Last, once the blocks the regions became are final.
    if let Guarding::Branch { accesses, .. } = guarding {
        for (i, g) in accesses {
            branch_around(i, g);
        }
    }
}

/// Where the guarded accesses of a function go.
enum Guarding<'ctx> {
    /// The scratch slot (none when no access is guarded).
    Scratch(Option<Value<'ctx>>),
    /// Each access and its guard, to be put under a branch, and the set of
    /// those guards (conversion must not erase them as unused meanwhile).
    Branch { accesses: Vec<(Inst<'ctx>, Value<'ctx>)>, guards: BTreeSet<Value<'ctx>> },
}

/// What the target's address spaces allow for the scratch redirection.
#[derive(Clone, Copy, Debug)]
struct Target {
    generic: u32,
    /// Address spaces a pointer may be cast from into `generic`.
    castable: &'static [u32],
    /// The guard form: the target's unless `guard=` says otherwise.
    guard: GuardForm,
}

impl Target {
    fn of(fa: &FunctionAnalyses<'_>) -> Target {
        let triple = target_triple(fa.cfg.function);
        if triple.starts_with("spir") {
            Target { generic: 4, castable: &[0, 1, 3, 4], guard: GuardForm::Scratch }
        } else if triple.starts_with("nvptx") {
            Target { generic: 0, castable: &[0, 1, 3, 4, 5], guard: GuardForm::Scratch }
        } else if triple.starts_with("amdgcn") {
            Target { generic: 0, castable: &[0], guard: GuardForm::Scratch }
        } else {
            Target { generic: 0, castable: &[0], guard: GuardForm::Branch }
        }
    }
}

/// Candidate regions at every (divergent) branch, the largest first, kept
/// when they overlap no region already kept: an outer region converts its
/// inner branches itself.
fn choose_regions<'ctx>(fa: &FunctionAnalyses<'ctx>, opts: &Options, target: Target, counts: Option<&[BlockProfile]>) -> Vec<Region<'ctx>> {
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
        if let Some(s) = region_shape(fa, x, opts) {
            cands.push(s);
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
        let Some(r) = region_at(fa, s, opts, target, &likely, counts, scratch_made) else { continue };
        taken[r.head.index()] = true;
        for b in &r.body {
            taken[b.index()] = true;
        }
        out.push(r);
    }
    out
}

/// Regions larger than this are left alone (and bound the search's cost).
const MAX_REGION_BLOCKS: usize = 256;

/// A candidate region's blocks: single-entry, acyclic, with no uniform
/// branch inside in `mode=divergent`.
struct Shape {
    head: BlockId,
    join: BlockId,
    /// In topological order.
    body: Vec<BlockId>,
}

fn region_shape(fa: &FunctionAnalyses<'_>, x: BlockId, opts: &Options) -> Option<Shape> {
    let cfg = &fa.cfg.cfg;
    let dom = fa.dom();
    let join = fa.postdom().ipdom(x)?;
    let fid = |bb| fa.cfg.id(bb).expect("a block of the function");
    branch_kind(&fid, fa.cfg.block(x))?;
    let mut body: BTreeSet<BlockId> = BTreeSet::new();
    let mut stack: Vec<BlockId> = cfg.succs(x).iter().copied().filter(|&s| s != join).collect();
    while let Some(b) = stack.pop() {
        if b == x || !dom.dominates(x.0, b.0) || cfg.succs(b).is_empty() || body.len() >= MAX_REGION_BLOCKS {
            return None;
        }
        if !body.insert(b) {
            continue;
        }
        stack.extend(cfg.succs(b).iter().copied().filter(|&s| s != join && !body.contains(&s)));
    }
    if body.is_empty() {
        return None;
    }
    let inside = |b: BlockId| b == x || body.contains(&b);
    let mut order: Vec<BlockId> = body.iter().copied().collect();
    order.sort_by_key(|&b| cfg.rpo_position(b));
    for &b in &order {
        // Single entry; acyclic (every edge goes forward in reverse post-order).
        if !cfg.preds(b).iter().all(|&p| inside(p)) {
            return None;
        }
        if cfg.succs(b).iter().any(|&s| s != join && cfg.rpo_position(s) <= cfg.rpo_position(b)) {
            return None;
        }
        if cfg.succs(b).len() > 1 && opts.mode == Mode::Divergent && !fa.uniformity().is_divergent_branch(b) {
            return None;
        }
        branch_kind(&fid, fa.cfg.block(b))?;
    }
    Some(Shape { head: x, join, body: order })
}

fn region_at<'ctx>(
    fa: &FunctionAnalyses<'ctx>,
    s: Shape,
    opts: &Options,
    target: Target,
    likely: &LikelyUniform,
    counts: Option<&[BlockProfile]>,
    scratch_made: bool,
) -> Option<Region<'ctx>> {
    let Shape { head: x, join, body: order } = s;
    let fid = |bb| fa.cfg.id(bb).expect("a block of the function");
    let inside = |b: BlockId| b == x || order.binary_search_by_key(&fa.cfg.cfg.rpo_position(b), |&o| fa.cfg.cfg.rpo_position(o)).is_ok();
    let mut scope = vec![x];
    scope.extend(&order);
    let arms: HashMap<BlockId, Arms> = scope.iter().map(|&b| (b, arms_of(&fid, fa.cfg.block(b)).expect("checked"))).collect();
    let sinks = sink_groups(fa, &scope, join, &arms);
    let sunk: HashSet<Inst<'ctx>> = sinks.iter().flat_map(|g| g.stores.iter().flatten().copied()).collect();
    let mut scratch_types = Vec::new();
    let mut cost = Cost::default();
    for &b in &order {
        for i in instructions(fa.cfg.block(b)) {
            if i.is_phi() || i.is_terminator() {
                continue;
            }
            let guard = classify(i, target).ok()?;
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
            if cost.guarded_blocks.last() != Some(&b) {
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
    let mut region = Region { head: x, body: order, join, preds, scratch_types, arms, sinks, chains: HashMap::new(), cost: (0, 0) };
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
                let branchy: i64 = runs + region.body.iter().map(|&b| c[b.index()].entries as i64 * (own(b) + 1)).sum::<i64>();
                runs * (predicated - own(x) + extra) + slot * c[0].entries as i64 > branchy + runs * limit
            }
            None => match opts.rule {
                // The slot is paid for by a region every warp runs: the
                // head post-dominates the entry.
                CostRule::NeverWorse if slot > 0 && !fa.postdom().post_dominates(x, BlockId(0)) => true,
                CostRule::NeverWorse => predicated + extra + slot > cheapest_path(fa, x, &region.body, join, &own) + limit,
                CostRule::Split => predicated >= divergent + limit,
            },
        };
        if keep {
            return None;
        }
    }
    region.chains = chains;
    region.cost = (divergent, predicated);
    Some(region)
}

/// The successors of a block as the select trees see them.
fn arms_of<'ctx>(id: &dyn Fn(BasicBlock<'ctx>) -> BlockId, bb: BasicBlock<'ctx>) -> Option<Arms> {
    let t = terminator(bb)?;
    let s: Vec<BlockId> = t.successors().into_iter().map(id).collect();
    match t.opcode() {
        LLVMOpcode::LLVMBr if s.len() == 1 => Some(Arms::Jump(s[0])),
        LLVMOpcode::LLVMBr => Some(Arms::Cond { on_true: s[0], on_false: s[1] }),
        LLVMOpcode::LLVMSwitch => Some(Arms::Switch { default: s[0], cases: s[1..].to_vec() }),
        _ => None,
    }
}

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
    from: Vec<BlockId>,
    to: BlockId,
    stores: Vec<Vec<Inst<'ctx>>>,
    /// The arms' nearest common dominator, which that block would
    /// post-dominate: every lane running it runs exactly one arm, so its
    /// predicate guards the sunk stores (none when it is the head).
    guard_block: BlockId,
}

fn sink_groups<'ctx>(fa: &FunctionAnalyses<'ctx>, scope: &[BlockId], join: BlockId, arms: &HashMap<BlockId, Arms>) -> Vec<SinkGroup<'ctx>> {
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

/// The estimate of `max-cost`, in issued warp-instructions.
#[derive(Default)]
struct Cost {
    guards: u64,
    /// What `guard=branch` may issue beyond `guards` (the branch around an
    /// access costs up to 2, the select 1, with the cast 2).
    branch_extra: u64,
    /// Blocks with a guarded access or division (their predicate is made).
    guarded_blocks: Vec<BlockId>,
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
    fn estimate<'ctx>(
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
        let divergent = warp_cost(fa, &scope, r.join, &own, likely);
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
            if b != r.head {
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
        (divergent as i64, predicated as i64, chains)
    }
}

/// What `erase_dead` will erase after conversion, in issued instructions:
/// the branch conditions of the region that nothing made reads (blocks not
/// in `read`), and their operands in the region, once nothing else uses
/// them.
fn dead_conditions<'ctx>(fa: &FunctionAnalyses<'ctx>, scope: &[BlockId], read: &HashSet<BlockId>, arms: &HashMap<BlockId, Arms>) -> u64 {
    let terms: HashSet<Inst<'ctx>> = scope.iter().filter_map(|&b| terminator(fa.cfg.block(b))).collect();
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
fn chain_order<V: Copy>(entries: &[(V, BlockId)], made: &dyn Fn(BlockId) -> bool) -> Option<Vec<BlockId>> {
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
fn cheapest_path(fa: &FunctionAnalyses<'_>, head: BlockId, body: &[BlockId], join: BlockId, own: &dyn Fn(BlockId) -> i64) -> i64 {
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
fn warp_cost(fa: &FunctionAnalyses<'_>, scope: &[BlockId], join: BlockId, own: &dyn Fn(BlockId) -> u64, likely: &LikelyUniform) -> u64 {
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

/// What a speculated instruction needs when its block's predicate is false.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Guard {
    None,
    /// A division: divisor replaced by 1.
    Divisor,
    /// A load or store (pointer operand `idx`): address redirected.
    Address(u32),
}

/// Whether `i` may be speculated, and how; `Err` names what bounds the region.
fn classify(i: Inst<'_>, target: Target) -> Result<Guard, &'static str> {
    use LLVMOpcode::*;
    let addressable = |idx: u32| {
        let space = i.operand(idx).ty().address_space();
        if target.guard == GuardForm::Branch || space.is_some_and(|s| target.castable.contains(&s)) {
            Ok(Guard::Address(idx))
        } else {
            Err("an access in an address space the scratch slot cannot stand in for")
        }
    };
    match i.opcode() {
        LLVMLoad if i.is_volatile() || i.is_atomic() => Err("a volatile or atomic load"),
        LLVMLoad => addressable(0),
        LLVMStore if i.is_volatile() || i.is_atomic() => Err("a volatile or atomic store"),
        LLVMStore => addressable(1),
        LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem => {
            if i.ty().is_vector() {
                return Err("a vector division");
            }
            let d = i.operand(1);
            let bits = d.ty().int_width();
            let minus_one = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
            match d.const_u64() {
                Some(c) if c != 0 && c != minus_one => Ok(Guard::None),
                _ => Ok(Guard::Divisor),
            }
        }
        LLVMCall if is_pure_call(i) => Ok(Guard::None),
        LLVMCall => Err("a call that may have side effects or is convergent"),
        LLVMAlloca => Err("an alloca"),
        LLVMFence | LLVMAtomicRMW | LLVMAtomicCmpXchg => Err("an atomic or fence"),
        LLVMInvoke | LLVMCallBr | LLVMLandingPad | LLVMCatchPad | LLVMCleanupPad | LLVMCatchSwitch | LLVMVAArg => {
            Err("exception handling or varargs")
        }
        LLVMRet | LLVMUnreachable | LLVMIndirectBr | LLVMResume | LLVMCleanupRet | LLVMCatchRet => Err("a terminator"),
        _ => Ok(Guard::None),
    }
}

/// Work-item queries and maths intrinsics: no side effects, not convergent.
fn is_pure_call(i: Inst<'_>) -> bool {
    if let Some(b) = builtin_of(i) {
        return b != Builtin::Barrier;
    }
    const PURE: &[&str] = &[
        "llvm.nvvm.read.ptx.sreg.",
        "llvm.smax.",
        "llvm.smin.",
        "llvm.umax.",
        "llvm.umin.",
        "llvm.abs.",
        "llvm.fabs.",
        "llvm.minnum.",
        "llvm.maxnum.",
        "llvm.minimum.",
        "llvm.maximum.",
        "llvm.fma.",
        "llvm.fmuladd.",
        "llvm.copysign.",
        "llvm.floor.",
        "llvm.ceil.",
        "llvm.trunc.",
        "llvm.rint.",
        "llvm.round.",
        "llvm.sqrt.",
        "llvm.ctpop.",
        "llvm.ctlz.",
        "llvm.cttz.",
        "llvm.bswap.",
        "llvm.fshl.",
        "llvm.fshr.",
    ];
    let name = i.called_function_name().unwrap_or_default();
    PURE.iter().any(|p| name.starts_with(p)) && i.num_operand_bundles() == 0
}

fn access_type<'ctx>(i: Inst<'ctx>) -> Ty<'ctx> {
    if i.opcode() == LLVMOpcode::LLVMStore {
        i.operand(0).ty()
    } else {
        i.ty()
    }
}

/// A block's terminator, as far as the predicates need it.
enum Branch<'ctx> {
    Jump,
    Cond { c: Value<'ctx>, on_true: BlockId, on_false: BlockId },
    Switch { v: Value<'ctx>, default: BlockId, cases: Vec<(Value<'ctx>, BlockId)> },
}

fn branch_kind<'ctx>(id: &dyn Fn(BasicBlock<'ctx>) -> BlockId, bb: BasicBlock<'ctx>) -> Option<Branch<'ctx>> {
    let t = terminator(bb)?;
    let succs = t.successors();
    match t.opcode() {
        LLVMOpcode::LLVMBr if succs.len() == 1 => Some(Branch::Jump),
        LLVMOpcode::LLVMBr => Some(Branch::Cond { c: t.branch_condition(), on_true: id(succs[0]), on_false: id(succs[1]) }),
        LLVMOpcode::LLVMSwitch => Some(Branch::Switch {
            v: t.operand(0),
            default: id(succs[0]),
            cases: t.switch_case_values().into_iter().zip(succs[1..].iter().map(|&s| id(s))).collect(),
        }),
        _ => None,
    }
}

/// The per-lane scratch slot: `alloca [bytes x i8], align 16` at the top of
/// the entry block, as a pointer in the generic address space.
fn make_scratch<'ctx>(entry: BasicBlock<'ctx>, bytes: u64, target: Target) -> Value<'ctx> {
    let first: Inst<'ctx> = entry.get_first_instruction().expect("the entry block is not empty").into();
    let mut bld = Builder::new(first.value());
    bld.position_before(first);
    let i8t = first.value().ty().int_in_context_of(8);
    let slot = bld.alloca(i8t.array(bytes), "ifc.scratch");
    slot.set_alignment(16);
    if target.generic == 0 {
        slot.value()
    } else {
        bld.addrspace_cast(slot.value(), i8t.pointer_in_context_of(target.generic), "ifc.scratch.generic")
    }
}

/// Emission state for one region: everything goes to the end of the head.
/// Edge predicates and guards are made on first use, so an edge no predicate
/// or phi reads costs nothing.
struct Emit<'a, 'ctx> {
    region: &'a Region<'ctx>,
    bld: Builder<'ctx>,
    t: Value<'ctx>,
    f: Value<'ctx>,
    /// The terminators of the region's blocks, erased, as the edges need them.
    branches: HashMap<BlockId, Branch<'ctx>>,
    /// `g ∧ (a took the edge to s)` per edge out of the region's blocks.
    edge: HashMap<(BlockId, BlockId), Value<'ctx>>,
    pred: HashMap<PredId, Value<'ctx>>,
    /// Switch case compares of the select trees, per (block, case).
    cases: HashMap<(BlockId, usize), Value<'ctx>>,
}

impl<'ctx> Emit<'_, 'ctx> {
    fn and(&self, g: Option<Value<'ctx>>, c: Value<'ctx>) -> Value<'ctx> {
        match g {
            Some(g) => self.bld.select(g, c, self.f, "ifc.and"),
            None => c,
        }
    }

    fn or(&self, a: Value<'ctx>, b: Value<'ctx>) -> Value<'ctx> {
        self.bld.select(a, self.t, b, "ifc.or")
    }

    fn not(&self, c: Value<'ctx>) -> Value<'ctx> {
        self.bld.icmp(LLVMIntPredicate::LLVMIntEQ, c, self.f, "ifc.not")
    }

    /// The value of predicate `p`: the OR of its K edges, whose blocks come
    /// first in topological order; `None` for TRUE.
    fn guard(&mut self, p: PredId) -> Option<Value<'ctx>> {
        if p == PredId::TRUE {
            return None;
        }
        if let Some(&v) = self.pred.get(&p) {
            return Some(v);
        }
        let k = self.region.preds.k(p).to_vec();
        let mut v = self.edge(k[0].from, k[0].to);
        for e in &k[1..] {
            let term = self.edge(e.from, e.to);
            v = self.or(term, v);
        }
        self.pred.insert(p, v);
        Some(v)
    }

    /// The predicate of edge `a → s`.
    fn edge(&mut self, a: BlockId, s: BlockId) -> Value<'ctx> {
        if let Some(&v) = self.edge.get(&(a, s)) {
            return v;
        }
        let g = self.guard(self.region.preds.r(a));
        let v = match self.branches.get(&a).expect("a branch of the region") {
            Branch::Jump => g.unwrap_or(self.t),
            Branch::Cond { on_true, on_false, .. } if on_true == on_false => g.unwrap_or(self.t),
            &Branch::Cond { c, on_true, .. } if s == on_true => self.and(g, c),
            &Branch::Cond { c, .. } => {
                let n = self.not(c);
                self.and(g, n)
            }
            Branch::Switch { default, cases, .. } => {
                let default = *default;
                let picked: Vec<usize> =
                    (0..cases.len()).filter(|&k| if s == default { cases[k].1 != default } else { cases[k].1 == s }).collect();
                let mut any: Option<Value<'ctx>> = None;
                for k in picked {
                    let eq = self.case(a, k);
                    any = Some(match any {
                        Some(prev) => self.or(eq, prev),
                        None => eq,
                    });
                }
                match (any, s == default) {
                    (None, _) => g.unwrap_or(self.t),
                    (Some(c), false) => self.and(g, c),
                    (Some(c), true) => {
                        let n = self.not(c);
                        self.and(g, n)
                    }
                }
            }
        };
        self.edge.insert((a, s), v);
        v
    }

    /// The value of a phi at `to` (or of stores sunk into it) from its
    /// select tree (`select_tree.rs`): one `select` per branch whose arms
    /// differ, conditions read from the branches already linearised (every
    /// block of the tree comes before `to`).
    fn phi(&mut self, entries: &[(Value<'ctx>, BlockId)], to: BlockId) -> Value<'ctx> {
        let mut scope = vec![self.region.head];
        scope.extend(&self.region.body);
        let arms = |b: BlockId| self.region.arms[&b].clone();
        match select_tree::build(&scope, &arms, to, entries) {
            Some(t) => self.tree_value(&t),
            None => entries[0].0,
        }
    }

    /// A phi's value: its chain when the plan chose one, else its tree.
    fn phi_value(&mut self, phi: Inst<'ctx>, entries: &[(Value<'ctx>, BlockId)], to: BlockId) -> Value<'ctx> {
        let Some(order) = self.region.chains.get(&phi) else { return self.phi(entries, to) };
        let ordered: Vec<(Value<'ctx>, BlockId)> =
            order.iter().map(|&a| *entries.iter().find(|e| e.1 == a).expect("the planned entries")).collect();
        let (mut v, _) = ordered[ordered.len() - 1];
        for &(val, from) in ordered[..ordered.len() - 1].iter().rev() {
            let c = self.edge(from, to);
            v = self.bld.select(c, val, v, "ifc.phi");
        }
        v
    }

    /// The tree's nodes the root reads, each made once (arms come first).
    fn tree_value(&mut self, t: &Tree<Value<'ctx>>) -> Value<'ctx> {
        let live = t.live();
        let mut vals: Vec<Option<Value<'ctx>>> = vec![None; t.nodes.len()];
        let val = |vals: &[Option<Value<'ctx>>], k: usize| vals[k].expect("arms are made before their node");
        for (k, node) in t.nodes.iter().enumerate() {
            if !live[k] {
                continue;
            }
            vals[k] = Some(match node {
                Node::Leaf(v) => *v,
                &Node::Cond { at, on_true, on_false } => {
                    let Some(&Branch::Cond { c, .. }) = self.branches.get(&at) else { unreachable!("a conditional branch before the phi") };
                    self.bld.select(c, val(&vals, on_true), val(&vals, on_false), "ifc.phi")
                }
                Node::Switch { at, default, cases } => {
                    let mut v = val(&vals, *default);
                    for &(case, arm) in cases {
                        let eq = self.case(*at, case);
                        v = self.bld.select(eq, val(&vals, arm), v, "ifc.phi");
                    }
                    v
                }
            });
        }
        val(&vals, t.root)
    }

    /// `x == case_k` of the switch ending block `at`, made once.
    fn case(&mut self, at: BlockId, k: usize) -> Value<'ctx> {
        if let Some(&v) = self.cases.get(&(at, k)) {
            return v;
        }
        let Some(Branch::Switch { v, cases, .. }) = self.branches.get(&at) else { unreachable!("a switch before the phi") };
        let (v, case) = (*v, cases[k].0);
        let eq = self.bld.icmp(LLVMIntPredicate::LLVMIntEQ, v, case, "ifc.case");
        self.cases.insert((at, k), eq);
        eq
    }
}

/// A phi's entries with one per predecessor block.
fn phi_entries<'ctx>(id: &dyn Fn(BasicBlock<'ctx>) -> BlockId, phi: Inst<'ctx>) -> Vec<(Value<'ctx>, BlockId)> {
    let mut out: Vec<(Value<'ctx>, BlockId)> = Vec::new();
    for (v, bb) in phi.incoming() {
        let b = id(bb);
        if !out.iter().any(|e| e.1 == b) {
            out.push((v, b));
        }
    }
    out
}

fn convert_region<'ctx>(bl: &Blocks<'ctx>, r: &Region<'ctx>, guarding: &mut Guarding<'ctx>, target: Target) {
    let head = bl.block(r.head);
    let head_term = terminator(head).expect("a branch");
    let i1 = head_term.value().ty().int_in_context_of(1);
    let mut e = Emit {
        region: r,
        bld: Builder::new(head_term.value()),
        t: i1.const_int(1),
        f: i1.const_int(0),
        branches: HashMap::new(),
        edge: HashMap::new(),
        pred: HashMap::new(),
        cases: HashMap::new(),
    };
    e.branches.insert(r.head, branch_kind(&|bb| bl.id(bb), head).expect("checked"));
    head_term.erase();
    e.bld.position_at_end(head);
    // The sunk stores, read as their arms are linearised (operands as the
    // moves before them left them) and made after the last arm.
    let mut sunk: HashMap<Inst<'ctx>, (usize, usize)> = HashMap::new();
    for (gi, g) in r.sinks.iter().enumerate() {
        for (k, row) in g.stores.iter().enumerate() {
            sunk.extend(row.iter().map(|&s| (s, (gi, k))));
        }
    }
    let mut read: Vec<Vec<SunkStore<'ctx>>> = r.sinks.iter().map(|g| vec![SunkStore::default(); g.stores.len()]).collect();
    for &b in &r.body {
        let bb = bl.block(b);
        let insts: Vec<Inst<'ctx>> = instructions(bb).collect();
        for i in insts {
            if let Some(&(gi, k)) = sunk.get(&i) {
                read[gi][k].read(i, b);
                i.erase();
            } else if i.is_phi() {
                let v = e.phi_value(i, &phi_entries(&|bb| bl.id(bb), i), b);
                i.value().replace_all_uses_with(v);
                i.erase();
            } else if i.is_terminator() {
                e.branches.insert(b, branch_kind(&|bb| bl.id(bb), bb).expect("checked"));
                i.erase();
            } else {
                let guarded = classify(i, target).expect("checked") != Guard::None;
                let g = if guarded { e.guard(r.preds.r(b)) } else { None };
                move_guarded(&mut e.bld, i, g, head, guarding, target);
            }
        }
        for (g, stores) in r.sinks.iter().zip(&read) {
            if g.from.last() != Some(&b) {
                continue;
            }
            let guard = e.guard(r.preds.r(g.guard_block));
            for st in stores {
                let v = e.phi(&st.values, g.to);
                let ptr = st.ptr.expect("every arm's store was read");
                let new = e.bld.store(v, ptr);
                if let Some(a) = st.align {
                    new.set_alignment(a);
                }
                move_guarded(&mut e.bld, new, guard, head, guarding, target);
            }
        }
    }
    // The join's phis: entries from the region become one from the head.
    let join = bl.block(r.join);
    let phis: Vec<Inst<'ctx>> = instructions(join).take_while(|i| i.is_phi()).collect();
    let mut jb = Builder::new(Value::of_block(join));
    for phi in phis {
        let (inside, outside): (Vec<_>, Vec<_>) =
            phi_entries(&|bb| bl.id(bb), phi).into_iter().partition(|&(_, a)| a == r.head || r.body.contains(&a));
        let v = e.phi_value(phi, &inside, r.join);
        if outside.is_empty() {
            // The head is the join's only way in: the value itself.
            phi.value().replace_all_uses_with(v);
            phi.erase();
            continue;
        }
        jb.position_before(phi);
        let new = jb.phi(phi.ty(), "");
        let mut entries: Vec<(Value<'ctx>, BasicBlock<'ctx>)> = outside.iter().map(|&(val, a)| (val, bl.block(a))).collect();
        entries.push((v, head));
        new.add_incoming(&entries);
        let name = phi.value().name_bytes();
        phi.value().replace_all_uses_with(new.value());
        phi.erase();
        new.value().set_name(&name);
    }
    e.bld.br(join);
    // A branch condition no select tree or predicate read (an inner branch
    // with equal arms) is dead now.
    // guard=branch puts its branches in later, on guards that may be such
    // conditions: those stay.
    let none = BTreeSet::new();
    let pending = match guarding {
        Guarding::Branch { guards, .. } => &*guards,
        Guarding::Scratch(_) => &none,
    };
    let conditions = e.branches.values().filter_map(|br| match br {
        Branch::Cond { c, .. } => Some(*c),
        Branch::Switch { v, .. } => Some(*v),
        Branch::Jump => None,
    });
    erase_dead(conditions.collect(), head, pending);
    for &b in &r.body {
        delete_block(bl.block(b));
    }
}

/// A computation without side effects that may go when unused.
fn is_erasable(i: Inst<'_>) -> bool {
    use LLVMOpcode::*;
    !matches!(
        i.opcode(),
        LLVMLoad | LLVMStore | LLVMCall | LLVMAlloca | LLVMPHI | LLVMFence | LLVMAtomicRMW | LLVMAtomicCmpXchg | LLVMVAArg
    ) && !i.is_terminator()
}

/// Erases the values of `cands` that are unused computations of `head`
/// with no side effect, then their operands the same way, never one of
/// `keep`. A value is erased only through the set, so no erased value is
/// looked at again.
fn erase_dead<'ctx>(mut cands: BTreeSet<Value<'ctx>>, head: BasicBlock<'ctx>, keep: &BTreeSet<Value<'ctx>>) {
    let dead =
        |v: Value<'ctx>| !keep.contains(&v) && v.as_inst().is_some_and(|i| is_erasable(i) && i.block() == head && v.uses().is_empty());
    while let Some(v) = cands.iter().copied().find(|&v| dead(v)) {
        cands.remove(&v);
        let i = v.as_inst().expect("an instruction");
        cands.extend(i.operands());
        i.erase();
    }
}

/// A sunk store as its arms' copies are read: the value per arm, the
/// pointer (one value), the smallest alignment.
#[derive(Clone, Default)]
struct SunkStore<'ctx> {
    values: Vec<(Value<'ctx>, BlockId)>,
    ptr: Option<Value<'ctx>>,
    align: Option<u32>,
}

impl<'ctx> SunkStore<'ctx> {
    fn read(&mut self, store: Inst<'ctx>, arm: BlockId) {
        self.values.push((store.operand(0), arm));
        self.ptr = Some(store.operand(1));
        let a = store.value().alignment();
        if a > 0 {
            self.align = Some(self.align.map_or(a, |b| b.min(a)));
        }
    }
}

/// Merges each converted region's join into its head when the head is now
/// its only predecessor (one `br` fewer per region). Heads are visited in
/// reverse post-order, so a join that heads another region is merged after
/// that region was converted, and chains merge into the first head.
fn merge_joins<'ctx>(bl: &Blocks<'ctx>, regions: &[Region<'ctx>]) {
    let cfg = &bl.cfg;
    let mut into: HashMap<BlockId, BlockId> = HashMap::new();
    let mut order: Vec<&Region<'ctx>> = regions.iter().collect();
    order.sort_by_key(|r| cfg.rpo_position(r.head));
    for r in order {
        let only_from_region = cfg.preds(r.join).iter().all(|&p| p == r.head || r.body.contains(&p));
        if !only_from_region || r.join == cfg.entry() {
            continue;
        }
        let head = *into.get(&r.head).unwrap_or(&r.head);
        let (hb, jb) = (bl.block(head), bl.block(r.join));
        terminator(hb).expect("the head's br").erase();
        let insts: Vec<Inst<'ctx>> = instructions(jb).collect();
        for i in insts {
            i.move_to_end(hb);
        }
        // The join's successors now come from the head: their phis say so.
        for succ in terminator(hb).map(|t| t.successors()).unwrap_or_default() {
            retarget_phis(succ, jb, hb);
        }
        delete_block(jb);
        into.insert(r.join, head);
    }
}

/// Rebuilds the phis of `bb` with entries from `from` coming from `to`
/// (the C API cannot set an entry's block).
fn retarget_phis<'ctx>(bb: BasicBlock<'ctx>, from: BasicBlock<'ctx>, to: BasicBlock<'ctx>) {
    let phis: Vec<Inst<'ctx>> = instructions(bb).take_while(|i| i.is_phi()).collect();
    let mut b = Builder::new(Value::of_block(bb));
    for phi in phis {
        let entries: Vec<(Value<'ctx>, BasicBlock<'ctx>)> =
            phi.incoming().into_iter().map(|(v, p)| (v, if p == from { to } else { p })).collect();
        if !entries.iter().zip(phi.incoming()).any(|(a, b)| a.1 != b.1) {
            continue;
        }
        b.position_before(phi);
        let new = b.phi(phi.ty(), "");
        new.add_incoming(&entries);
        let name = phi.value().name_bytes();
        phi.value().replace_all_uses_with(new.value());
        phi.erase();
        if !name.is_empty() {
            new.value().set_name(&name);
        }
    }
}

/// Moves `i` to the end of `head`; under a guard, divisions get a safe
/// divisor and accesses the scratch slot when the guard is false (or are
/// noted for [`branch_around`]).
fn move_guarded<'ctx>(
    bld: &mut Builder<'ctx>,
    i: Inst<'ctx>,
    g: Option<Value<'ctx>>,
    head: BasicBlock<'ctx>,
    guarding: &mut Guarding<'ctx>,
    target: Target,
) {
    let guard = match g {
        Some(g) => (g, classify(i, target).expect("checked")),
        None => {
            i.move_to_end(head);
            return;
        }
    };
    match guard {
        (_, Guard::None) => i.move_to_end(head),
        (g, Guard::Divisor) => {
            let d = i.operand(1);
            let safe = bld.select(g, d, d.ty().const_int(1), "ifc.div");
            i.move_to_end(head);
            i.set_operand(1, safe);
        }
        (g, Guard::Address(idx)) => {
            let scratch = match guarding {
                Guarding::Branch { accesses, guards } => {
                    i.move_to_end(head);
                    accesses.push((i, g));
                    guards.insert(g);
                    return;
                }
                Guarding::Scratch(scratch) => scratch.expect("a scratch slot for guarded accesses"),
            };
            let p = i.operand(idx);
            let generic =
                if p.ty().address_space() == Some(target.generic) { p } else { bld.addrspace_cast(p, scratch.ty(), "ifc.generic") };
            let at = bld.select(g, generic, scratch, "ifc.addr");
            let align = i.value().alignment();
            let new = if i.opcode() == LLVMOpcode::LLVMStore { bld.store(i.operand(0), at) } else { bld.load(i.ty(), at, "") };
            if align > 0 {
                new.set_alignment(align);
            }
            let name = i.value().name_bytes();
            if !i.is_void() {
                i.value().replace_all_uses_with(new.value());
            }
            i.erase();
            if !name.is_empty() {
                new.value().set_name(&name);
            }
        }
    }
}

/// `guard=branch`: puts the access `i` in a block of its own, entered when
/// `g` holds; a load's value is a phi with `poison` on the skipping edge
/// (every use of it is guarded by `g` or selected away where `g` is false).
///
/// ```text
///   bb: …; g; i; rest          bb:  …; g; br g, do, cont
///                     ==>      do:  i; br cont
///                              cont: v = phi [i, do], [poison, bb]; rest
/// ```
fn branch_around<'ctx>(i: Inst<'ctx>, g: Value<'ctx>) {
    let bb = i.block();
    let ctx = bb.get_context();
    let cont = ctx.insert_basic_block_after(bb, "ifc.cont");
    let act = ctx.insert_basic_block_after(bb, "ifc.do");
    let rest: Vec<Inst<'ctx>> = instructions(bb).skip_while(|&x| x != i).skip(1).collect();
    for x in rest {
        x.move_to_end(cont);
    }
    for succ in terminator(cont).map(|t| t.successors()).unwrap_or_default() {
        retarget_phis(succ, bb, cont);
    }
    i.move_to_end(act);
    let mut bld = Builder::new(i.value());
    bld.position_at_end(act);
    bld.br(cont);
    bld.position_at_end(bb);
    bld.cond_br(g, act, cont);
    if i.is_void() {
        return;
    }
    let first: Inst<'ctx> = cont.get_first_instruction().expect("the moved terminator").into();
    bld.position_before(first);
    let phi = bld.phi(i.ty(), "ifc.ld");
    i.value().replace_all_uses_with(phi.value());
    phi.add_incoming(&[(i.value(), act), (i.ty().poison(), bb)]);
}
