//! `simt-ifconvert`: if-conversion of divergent branches into predicated
//! straight-line code, by the RK algorithm of seed 004 (Park & Schlansker,
//! "On Predicated Execution", HPL-91-58; `analysis/predicates.rs`).
//!
//! Why: the lanes of a warp share one instruction stream, so a branch on a
//! per-lane condition runs both sides one after the other anyway, paying
//! the branches, the split and the reconvergence. Straight-line code with
//! each block's work guarded by its predicate runs both sides too, without
//! them, and merges the blocks (fewer `br`s issued, no divergent branch).
//!
//! What: a *region* is a conditional branch at block x together with every
//! block between x and its immediate post-dominator d. When the region is
//! single-entry (x dominates it and nothing else enters it), acyclic, and
//! holds nothing that must keep its branch, its blocks are merged into x in
//! topological order:
//!
//! ```text
//!        x: br %c                    x:  %p1 = %c                 ; K(p1) = {x->a}
//!       /      \                         %p2 = !%c                ; K(p2) = {x->b}
//!      a        b          ==>           a's code (speculated)
//!      | \      |                        %pc = select %p1, %c2, false
//!      |  c     |                        c's code, guarded by %pc
//!       \ |    /                         b's code, guarded by %p2
//!         d: phi                         %v = select … (d's phi)
//!                                        br d
//! ```
//!
//! - predicates are `i1` values defined where K says, as `select`s
//!   (`select g, c, false` for `g ∧ c`): a predicate false in a lane hides
//!   the poison a speculated condition may hold there;
//! - phis become chains of `select`s on the edge predicates; d's phis keep
//!   their entries from outside the region and get one from x;
//! - side-effect-free instructions are speculated; divisions get the divisor
//!   `select g, y, 1`; loads that may trap and every store are guarded, in
//!   the form `guard=` names, by default the target's:
//!   - `scratch` (NVPTX, SPIR, AMDGPU): the address becomes
//!     `select g, p, scratch`, where `scratch` is a private per-lane slot
//!     (an `alloca` in the entry block), reached through the target's generic
//!     address space (0 on NVPTX and the host, 4 on SPIR). The slot is per
//!     lane and private, so a masked-off lane neither faults (the address it
//!     would have used is never touched) nor races (no other lane can see its
//!     slot). The code stays straight, which is the point on a SIMT machine;
//!     the price: generic rather than global/shared accesses on NVPTX, and
//!     one `select` per access;
//!   - `branch` (CPU triples): the access alone keeps a branch on g, in a
//!     block of its own (a load's value is a phi with `poison` where g is
//!     false); everything else is straight. On a CPU the consumer is LLVM's
//!     loop vectorizer on the work-item loops `simt-wiloops` makes, and it
//!     if-converts such a triangle itself into a masked vector access
//!     (AVX2/AVX-512 masked moves), while a `select`ed address can only be
//!     a gather or scatter: with `scratch`, vecadd's and saxpy's loops are no
//!     longer vectorised and stencil1d, scan and a bitonic step run 2–3×
//!     slower. A lane whose g is false does not reach the access: no fault,
//!     no race.
//!
//!   **Why not `llvm.masked.load`/`store`:** on scalars (`<1 x T>`) LLVM's
//!   ScalarizeMaskedMemIntrin turns them back into a branch per access on
//!   NVPTX and x86 alike (undoing the conversion on a GPU), the emulator
//!   decodes no masked intrinsic, and the loop vectorizer does not widen
//!   them (LLVM 22: "call instruction cannot be vectorized"), so on the host
//!   they would stop the very vectorisation `branch` leaves to it.
//!   BENCHMARKS.md ("If-conversion", "Host") has the figures;
//! - barriers, atomics, volatile accesses, fences, calls that are not known
//!   pure, convergent calls (markers included), `alloca`s and returns bound a
//!   region: a region holding one keeps its branch (nested regions without
//!   one may still be converted).
//!
//! Loops: a region must be acyclic, so a branch whose region holds a loop,
//! a back edge or a loop exit is kept, while the branches inside a loop body
//! whose region stays in the body are converted: loop bodies are converted
//! innermost region first (smaller regions are found inside larger ones that
//! are not convertible), keeping back edges and exits as branches.
//!
//! Options:
//!
//! - `mode=divergent` (default) converts only branches the uniformity
//!   analysis calls divergent, and only regions without a uniform branch
//!   inside: every uniform branch survives and no code is duplicated (the
//!   guarantee of Moll & Hack's partial linearization, PLDI 2018, for the
//!   regions converted). `mode=all` converts every branch it can, the blog's
//!   algorithm as written.
//! - `max-cost=N` (default 0): the region is converted only when its
//!   predicated form, counted in issued warp-instructions (one per
//!   non-phi instruction, as the emulator counts: phis are edge copies),
//!   costs less than N plus running every block of it divergently under
//!   IPDOM (each block once, with its branch): at 0, only strict savings in
//!   the worst case, since a warp whose lanes happen to agree runs just one
//!   side of the branchy code. `max-cost=none` turns the
//!   model off. BENCHMARKS.md has the calibration.
//!
//! Limits: regions are found per branch (O(region) each, so deep nests cost
//! the sum of their sizes); a region whose join is the virtual exit (several
//! returns) is kept; uniform branches inside a divergent region keep the
//! whole region branchy (Moll & Hack would keep just them); vector divisions
//! and, with `guard=scratch`, loads from SPIR's constant address space bound
//! a region; the cost model prices a guard in the scratch form (a `select`,
//! a cast) whatever `guard=` says.

use crate::analysis::cache::FunctionAnalyses;
use crate::analysis::predicates::{PredId, Predicates};
use crate::cfg::{BlockId, Cfg};
use crate::ir::{defined_functions, delete_block, instructions, target_triple, terminator, Builder, Inst, Ty, Value};
use crate::kernel_model::{builtin_of, Builtin};
use crate::pass::{unknown_option, ModulePass, PassContext, PassError, Preserved};
use inkwell::basic_block::BasicBlock;
use inkwell::module::Module;
use llvm_sys::{LLVMIntPredicate, LLVMOpcode};
use std::collections::{BTreeSet, HashMap};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Divergent,
    All,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    pub mode: Mode,
    /// Extra warp-instructions allowed over divergent execution; `None`: no limit.
    pub max_cost: Option<i64>,
    /// How guarded loads and stores are kept safe; `None`: per target.
    pub guard: Option<GuardForm>,
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

pub struct IfConvert(pub Options);

impl Default for IfConvert {
    fn default() -> Self {
        IfConvert(Options { mode: Mode::Divergent, max_cost: Some(0), guard: None })
    }
}

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
        format!("simt-ifconvert<mode={mode};max-cost={cost}{guard}>")
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        let mut preserved = Preserved::all();
        for f in defined_functions(cx.module()) {
            let Some(plan) = plan_function(cx.analyses(f), self.0) else { continue };
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
        ("max-cost=N", "a region must cost less than divergent execution plus N warp-instructions (default 0); max-cost=none: no limit"),
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

/// Chooses the regions of one function; `None` when there is nothing to do.
pub fn plan_function<'ctx>(fa: &FunctionAnalyses<'ctx>, opts: Options) -> Option<Plan<'ctx>> {
    let mut target = Target::of(fa);
    target.guard = opts.guard.unwrap_or(target.guard);
    let regions = choose_regions(fa, opts, target);
    if regions.is_empty() {
        return None;
    }
    Some(Plan { blocks: Blocks::of(fa), regions, target, entry: fa.cfg.block(BlockId(0)) })
}

/// Converts the planned regions (`&mut Module`: the IR changes under it).
pub fn apply_plan<'ctx>(module: &mut Module<'ctx>, plan: &Plan<'ctx>) {
    let mut guarding = match plan.target.guard {
        GuardForm::Scratch => {
            let bytes = plan.regions.iter().flat_map(|r| &r.scratch_types).map(|t| t.abi_size_in(module)).max().unwrap_or(0);
            Guarding::Scratch((bytes > 0).then(|| make_scratch(plan.entry, bytes, plan.target)))
        }
        GuardForm::Branch => Guarding::Branch(Vec::new()),
    };
    for r in &plan.regions {
        convert_region(&plan.blocks, r, &mut guarding, plan.target);
    }
    merge_joins(&plan.blocks, &plan.regions);
    // Last, once the blocks the regions became are final.
    if let Guarding::Branch(accesses) = guarding {
        for (i, g) in accesses {
            branch_around(i, g);
        }
    }
}

/// Where the guarded accesses of a function go.
enum Guarding<'ctx> {
    /// The scratch slot (none when no access is guarded).
    Scratch(Option<Value<'ctx>>),
    /// Each access and its guard, to be put under a branch.
    Branch(Vec<(Inst<'ctx>, Value<'ctx>)>),
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
fn choose_regions<'ctx>(fa: &FunctionAnalyses<'ctx>, opts: Options, target: Target) -> Vec<Region<'ctx>> {
    let cfg = &fa.cfg.cfg;
    let mut cands: Vec<Region<'ctx>> = Vec::new();
    for &x in cfg.rpo() {
        if cfg.succs(x).len() < 2 {
            continue;
        }
        if opts.mode == Mode::Divergent && !fa.uniformity().is_divergent_branch(x) {
            continue;
        }
        if let Some(r) = region_at(fa, x, opts, target) {
            cands.push(r);
        }
    }
    cands.sort_by_key(|r| std::cmp::Reverse(r.body.len()));
    let mut taken = vec![false; cfg.len()];
    let mut out = Vec::new();
    for r in cands {
        if taken[r.head.index()] || r.body.iter().any(|b| taken[b.index()]) {
            continue;
        }
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

fn region_at<'ctx>(fa: &FunctionAnalyses<'ctx>, x: BlockId, opts: Options, target: Target) -> Option<Region<'ctx>> {
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
    let mut scratch_types = Vec::new();
    let mut cost = Cost::default();
    for &b in &order {
        for i in instructions(fa.cfg.block(b)) {
            if i.is_phi() || i.is_terminator() {
                continue;
            }
            match classify(i, target).ok()? {
                Guard::Address(idx) => {
                    let ty = access_type(i);
                    if !scratch_types.contains(&ty) {
                        scratch_types.push(ty);
                    }
                    cost.guards += 1 + u64::from(i.operand(idx).ty().pointer_address_space() != Some(target.generic));
                }
                Guard::Divisor => cost.guards += 1,
                Guard::None => continue,
            }
            if cost.guarded_blocks.last() != Some(&b) {
                cost.guarded_blocks.push(b);
            }
        }
    }
    let mut scope = vec![x];
    scope.extend(&order);
    let preds = Predicates::for_region(fa.control_deps(), &scope, |e| inside(e.from));
    if let Some(limit) = opts.max_cost {
        let (divergent, predicated) = cost.estimate(fa, &scope, join, &preds);
        if predicated >= divergent + limit {
            return None;
        }
    }
    Some(Region { head: x, body: order, join, preds, scratch_types })
}

/// The estimate of `max-cost`, in issued warp-instructions.
#[derive(Default)]
struct Cost {
    guards: u64,
    /// Blocks with a guarded access or division (their predicate is made).
    guarded_blocks: Vec<BlockId>,
}

impl Cost {
    /// (divergent, predicated). Divergently under IPDOM every block of the
    /// region issues once with its terminator. Predicated, the same
    /// non-terminators issue, plus what the emission makes: the guards, a
    /// `select` per phi entry beyond the last, the edge predicates those
    /// and the guards read (an `and` when guarded, a `not` on a false edge,
    /// a compare per switch case), an `or` per extra K entry, and a `br`
    /// unless the join is merged into the head.
    fn estimate(&self, fa: &FunctionAnalyses<'_>, scope: &[BlockId], join: BlockId, preds: &Predicates) -> (i64, i64) {
        let cfg = &fa.cfg.cfg;
        let inside = |b: BlockId| scope.contains(&b);
        let mut divergent = 0u64;
        let mut predicated = self.guards;
        let mut wanted: Vec<(BlockId, BlockId)> = Vec::new();
        let phi_edges = |b: BlockId, only_inside: bool, wanted: &mut Vec<(BlockId, BlockId)>| {
            let mut selects = 0;
            for phi in instructions(fa.cfg.block(b)).take_while(|i| i.is_phi()) {
                let entries: Vec<BlockId> = phi_entries(&|bb| fa.cfg.id(bb).expect("a block of the function"), phi)
                    .into_iter()
                    .map(|e| e.1)
                    .filter(|&a| !only_inside || inside(a))
                    .collect();
                for &a in entries.iter().take(entries.len().saturating_sub(1)) {
                    wanted.push((a, b));
                    selects += 1;
                }
            }
            selects
        };
        for &b in scope {
            let plain = instructions(fa.cfg.block(b)).filter(|i| !i.is_phi() && !i.is_terminator()).count() as u64;
            divergent += plain + 1;
            predicated += plain;
            if b != scope[0] {
                predicated += phi_edges(b, false, &mut wanted);
            }
        }
        predicated += phi_edges(join, true, &mut wanted);
        if !cfg.preds(join).iter().all(|&p| inside(p)) {
            predicated += 1;
        }
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
            match terminator(fa.cfg.block(a)) {
                Some(t) if t.opcode() == LLVMOpcode::LLVMSwitch => predicated += t.successors().len() as u64,
                Some(t) if t.is_conditional_terminator() && t.successors()[0] != fa.cfg.block(s) => predicated += 1,
                _ => {}
            }
        }
        for p in made_preds {
            predicated += preds.k(p).len().saturating_sub(1) as u64;
        }
        (divergent as i64, predicated as i64)
    }
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
        let space = i.operand(idx).ty().pointer_address_space();
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
            Branch::Switch { v, default, cases } => {
                let (v, default) = (*v, *default);
                let picked: Vec<Value<'ctx>> =
                    cases.iter().filter(|c| if s == default { c.1 != default } else { c.1 == s }).map(|c| c.0).collect();
                let mut any: Option<Value<'ctx>> = None;
                for k in picked {
                    let eq = self.bld.icmp(LLVMIntPredicate::LLVMIntEQ, v, k, "ifc.case");
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

    /// `select` chain picking the entry whose edge into `to` was taken; the
    /// last entry is the fallback, so its edge predicate is never made.
    fn pick(&mut self, entries: &[(Value<'ctx>, BlockId)], to: BlockId) -> Value<'ctx> {
        let (mut v, _) = entries[entries.len() - 1];
        for &(val, from) in entries[..entries.len() - 1].iter().rev() {
            let c = self.edge(from, to);
            v = self.bld.select(c, val, v, "ifc.phi");
        }
        v
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
    };
    e.branches.insert(r.head, branch_kind(&|bb| bl.id(bb), head).expect("checked"));
    head_term.erase();
    e.bld.position_at_end(head);
    for &b in &r.body {
        let bb = bl.block(b);
        let insts: Vec<Inst<'ctx>> = instructions(bb).collect();
        for i in insts {
            if i.is_phi() {
                let v = e.pick(&phi_entries(&|bb| bl.id(bb), i), b);
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
    }
    // The join's phis: entries from the region become one from the head.
    let join = bl.block(r.join);
    let phis: Vec<Inst<'ctx>> = instructions(join).take_while(|i| i.is_phi()).collect();
    let mut jb = Builder::new(Value::of_block(join));
    for phi in phis {
        let (inside, outside): (Vec<_>, Vec<_>) =
            phi_entries(&|bb| bl.id(bb), phi).into_iter().partition(|&(_, a)| a == r.head || r.body.contains(&a));
        let v = e.pick(&inside, r.join);
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
    for &b in &r.body {
        delete_block(bl.block(b));
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
                Guarding::Branch(accesses) => {
                    i.move_to_end(head);
                    accesses.push((i, g));
                    return;
                }
                Guarding::Scratch(scratch) => scratch.expect("a scratch slot for guarded accesses"),
            };
            let p = i.operand(idx);
            let generic =
                if p.ty().pointer_address_space() == Some(target.generic) { p } else { bld.addrspace_cast(p, scratch.ty(), "ifc.generic") };
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
