//! `simt-ifconvert`: if-conversion of divergent branches into predicated
//! straight-line code, by the RK algorithm of seed 004 (Park & Schlansker,
//! "On Predicated Execution", HPL-91-58; `analysis/predicates.rs`). The
//! reasoning behind each choice, with pictures: `design.md`. Files: region
//! choice (`regions.rs`), what each instruction needs (`guards.rs`), the cost
//! model (`cost.rs`), store sinking (`sink.rs`), emission (`emit.rs`).
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
//! Cost, in warp-instructions as the emulator issues them (`cost.rs`; the
//! rules and why the default never loses: `design.md`):
//! - `cost=never-worse` (default): convert when the predicated region costs
//!   no more than the cheapest path from x to d, plus `max-cost=N` (default
//!   0): no warp issues more, at any width, under any policy.
//! - `profile=FILE` (`simt-run --engine emu --profile FILE`): each branch
//!   priced by its measured runs and lane groups; exact under ipdom for the
//!   launch profiled; a function whose IR hash differs is an error.
//! - `cost=split`: the rule before issue 23; `max-cost=none`: no model.
//! - `mode=divergent` (default) converts only divergent branches, a uniform
//!   branch inside kept as an island (partial linearisation, Moll & Hack,
//!   PLDI 2018: `islands.rs`; `partial=off`: the region stays whole);
//!   `mode=all` converts every branch. OpenCL C built-ins that lower to plain
//!   IR (`sqrt`, `mad`, …) are speculated and priced as what they lower to.
//!
//! Limits: without a profile, regions that pay only when most warps split
//! (clamps, bitonic compare-exchange) are kept; a region whose join is the
//! virtual exit is kept; a uniform branch whose post-dominator is the
//! region's own join, or whose condition reads a guarded load, keeps the
//! whole region (`islands.rs`); vector divisions and, with `guard=scratch`,
//! loads from SPIR's constant address space bound a region.

mod cost;
mod emit;
mod guards;
mod islands;
mod regions;
mod sink;

pub use cost::issued;
pub(crate) use guards::is_pure_call;
pub use islands::Island;
pub use sink::SinkGroup;

use emit::{branch_around, convert_region, make_scratch, merge_joins, Guarding};
use regions::choose_regions;

use crate::analysis::branch_profile::{self, BlockProfile, BranchProfile};
use crate::analysis::cache::FunctionAnalyses;
use crate::analysis::predicates::Predicates;
use crate::cfg::{BlockId, Cfg};
use crate::ir::{defined_functions, target_triple, Inst, Ty};
use crate::pass::{unknown_option, ModulePass, PassContext, PassError, Preserved};
use crate::remarks::{Arg, RemarkKind};
use crate::transform::select_tree::Arms;
use inkwell::basic_block::BasicBlock;
use inkwell::module::Module;
use std::collections::{BTreeSet, HashMap};
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
    /// `mode=divergent`: keep a region's uniform branches as islands
    /// (partial linearisation, `islands.rs`) rather than the whole region.
    pub partial: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { mode: Mode::Divergent, rule: CostRule::NeverWorse, max_cost: Some(0), guard: None, profile: None, partial: true }
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
        let partial = if self.0.partial { "" } else { ";partial=off" };
        format!("simt-ifconvert<mode={mode};max-cost={cost}{rule}{guard}{profile}{partial}>")
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        let mut preserved = Preserved::all();
        for f in defined_functions(cx.module()) {
            let fa = cx.analyses(f);
            let (plan, kept) = plan_function_explained(fa, &self.0)
                .map_err(|message| PassError::Unsupported { pass: "simt-ifconvert".into(), message })?;
            // Remarks name blocks as the IR before conversion does.
            let name = |b: BlockId| fa.cfg.block(b).get_name().to_string_lossy().into_owned();
            let kept: Vec<(String, String)> = kept.into_iter().map(|(b, why)| (name(b), why)).collect();
            let done: Vec<(String, usize, (i64, i64))> =
                plan.iter().flat_map(|p| &p.regions).map(|r| (name(r.head), r.body.len(), r.cost)).collect();
            let fname = crate::ir::function_name(f);
            for (head, why) in kept {
                cx.remark(RemarkKind::Missed, "BranchKept", f, || {
                    vec![
                        Arg::text(format!("{fname}: divergent branch in %")),
                        Arg::new("Block", head),
                        Arg::text(" kept: "),
                        Arg::new("Reason", why),
                    ]
                });
            }
            for (head, blocks, (branchy, predicated)) in done {
                cx.remark(RemarkKind::Passed, "Converted", f, || {
                    vec![
                        Arg::text(format!("{fname}: divergent branch in %")),
                        Arg::new("Block", head),
                        Arg::text(" converted: "),
                        Arg::new("Blocks", blocks),
                        Arg::text(" blocks, "),
                        Arg::new("PredicatedCost", predicated),
                        Arg::text(" warp-instructions predicated against "),
                        Arg::new("BranchyCost", branchy),
                        Arg::text(" if every warp split"),
                    ]
                });
            }
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
        (
            "partial=off",
            "mode=divergent: a uniform branch inside a divergent region keeps the whole region (before issue 26, which keeps it as an island)",
        ),
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
            ("partial", Some("on")) => self.0.partial = true,
            ("partial", Some("off")) => self.0.partial = false,
            ("partial", Some(p)) => return Err(format!("partial must be 'on' or 'off', got '{p}'")),
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
    /// Uniform branches kept, with the blocks they control (`islands.rs`);
    /// `body` holds their heads and joins, not their interiors.
    pub islands: Vec<Island>,
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

impl Region<'_> {
    /// The head, the body and the islands' interiors, in topological order.
    pub fn all_blocks(&self, cfg: &Cfg) -> Vec<BlockId> {
        let mut all = vec![self.head];
        all.extend(self.body.iter().chain(self.islands.iter().flat_map(|i| &i.interior)));
        all.sort_by_key(|&b| cfg.rpo_position(b));
        all
    }

    /// The block the region's straight-line code ends in: the head, or the
    /// join of its last island.
    pub(super) fn tail(&self) -> BlockId {
        self.islands.last().map_or(self.head, |i| i.join)
    }
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
    plan_function_explained(fa, opts).map(|(plan, _)| plan)
}

/// The branches a plan considered and kept, each with why.
pub type Kept = Vec<(BlockId, String)>;

/// [`plan_function`], and each branch it considered and kept, with why.
pub fn plan_function_explained<'ctx>(fa: &FunctionAnalyses<'ctx>, opts: &Options) -> Result<(Option<Plan<'ctx>>, Kept), String> {
    let mut target = Target::of(fa);
    target.guard = opts.guard.unwrap_or(target.guard);
    let counts = profile_of(fa, opts)?;
    let mut kept = Vec::new();
    let regions = choose_regions(fa, opts, target, counts, &mut kept);
    if regions.is_empty() {
        return Ok((None, kept));
    }
    Ok((Some(Plan { blocks: Blocks::of(fa), regions, target, entry: fa.cfg.block(BlockId(0)) }), kept))
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
