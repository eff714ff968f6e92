//! Analyses computed once per function and handed to every pass that asks.
//!
//! Stale analyses are the hardest bugs in a pass pipeline (pocl's "always
//! valid" invalidation is the cautionary tale), so validity is checked, not
//! trusted: each entry remembers the CFG it was computed on, and asking for a
//! function whose blocks or edges changed since recomputes everything. That
//! check costs one walk over the terminators, far less than any analysis.
//!
//! Everything else is the pass's word: each pass returns a
//! [`Preserved`] naming the analyses it kept valid, and the driver (only the
//! driver: passes never see these methods) drops the rest with
//! [`AnalysisCache::invalidate`]; after LLVM's own passes the whole cache goes.
//!
//! That leaves one way to serve a stale analysis: a pass that claims more
//! than it kept. [`AnalysisCache::verify`] catches it the way LLVM's
//! `DT.verify()` does: it recomputes every analysis still cached (after
//! invalidation, exactly those the pass claims preserved) from the function
//! as it is now and compares. The driver calls it after every pass when asked
//! to (`SIMT_VERIFY_ANALYSES=1`, on in `scripts/test`).

use crate::analysis::control_deps::ControlDeps;
use crate::analysis::convergence::Convergence;
use crate::analysis::cycles::CycleInfo;
use crate::analysis::dominators::DomTree;
use crate::analysis::liveness::FunctionLiveness;
use crate::analysis::loops::LoopInfo;
use crate::analysis::memdeps::{dataflow::Config, MemDeps};
use crate::analysis::post_dominators::PostDomTree;
use crate::analysis::preserved::{AnalysisKind, Preserved};
use crate::analysis::uniformity::Uniformity;
use crate::function_cfg::FunctionCfg;
use inkwell::module::Module;
use inkwell::values::{AsValueRef, FunctionValue};
use llvm_sys::prelude::*;
use std::cell::OnceCell;
use std::collections::HashMap;

/// The analyses of one function, each computed on first use.
pub struct FunctionAnalyses<'ctx> {
    pub cfg: FunctionCfg<'ctx>,
    dom: OnceCell<DomTree>,
    postdom: OnceCell<PostDomTree>,
    loops: OnceCell<LoopInfo>,
    cycles: OnceCell<CycleInfo>,
    convergence: OnceCell<Convergence>,
    control_deps: OnceCell<ControlDeps>,
    uniformity: OnceCell<Uniformity>,
    liveness: OnceCell<FunctionLiveness<'ctx>>,
    memdeps: OnceCell<MemDeps<'ctx>>,
}

impl<'ctx> FunctionAnalyses<'ctx> {
    pub fn new(function: FunctionValue<'ctx>) -> Self {
        FunctionAnalyses {
            cfg: FunctionCfg::new(function),
            dom: OnceCell::new(),
            postdom: OnceCell::new(),
            loops: OnceCell::new(),
            cycles: OnceCell::new(),
            convergence: OnceCell::new(),
            control_deps: OnceCell::new(),
            uniformity: OnceCell::new(),
            liveness: OnceCell::new(),
            memdeps: OnceCell::new(),
        }
    }

    pub fn dom(&self) -> &DomTree {
        self.dom.get_or_init(|| DomTree::dominators(&self.cfg.cfg))
    }

    pub fn postdom(&self) -> &PostDomTree {
        self.postdom.get_or_init(|| PostDomTree::compute(&self.cfg.cfg))
    }

    pub fn loops(&self) -> &LoopInfo {
        self.loops.get_or_init(|| LoopInfo::compute(&self.cfg.cfg, self.dom()))
    }

    pub fn cycles(&self) -> &CycleInfo {
        self.cycles.get_or_init(|| CycleInfo::compute(&self.cfg.cfg))
    }

    /// Seed 000's convergence points (a function of the CFG and its loops).
    pub fn convergence(&self) -> &Convergence {
        self.convergence.get_or_init(|| Convergence::compute(&self.cfg.cfg, self.loops()))
    }

    pub fn control_deps(&self) -> &ControlDeps {
        self.control_deps.get_or_init(|| ControlDeps::compute(&self.cfg.cfg, self.postdom()))
    }

    pub fn uniformity(&self) -> &Uniformity {
        self.uniformity.get_or_init(|| Uniformity::compute(&self.cfg, self.cycles()))
    }

    pub fn liveness(&self) -> &FunctionLiveness<'ctx> {
        self.liveness.get_or_init(|| FunctionLiveness::compute(&self.cfg))
    }

    /// The first (in block order) divergent branch that block `b` depends
    /// on through iterated control dependence: `b` runs when the branches it
    /// depends on go its way, and those run when theirs do. `None` when every
    /// work-item that enters the function reaches `b` alike (a barrier may
    /// go there).
    pub fn divergent_controller(&self, b: crate::cfg::BlockId) -> Option<crate::cfg::BlockId> {
        let mut seen = std::collections::HashSet::new();
        let mut work = vec![b];
        let mut first: Option<crate::cfg::BlockId> = None;
        while let Some(y) = work.pop() {
            for e in self.control_deps().of(y) {
                if seen.insert(e.from) {
                    if self.uniformity().is_divergent_branch(e.from) {
                        first = Some(first.map_or(e.from, |f| f.min(e.from)));
                    }
                    work.push(e.from);
                }
            }
        }
        first
    }

    /// Seed 003's memory-descriptor dependences, with the sound rules.
    pub fn memdeps(&self) -> &MemDeps<'ctx> {
        self.memdeps.get_or_init(|| MemDeps::compute(&self.cfg, self.dom(), Config::SOUND))
    }

    fn drop_analysis(&mut self, kind: AnalysisKind) {
        match kind {
            AnalysisKind::Dominators => self.dom = OnceCell::new(),
            AnalysisKind::PostDominators => self.postdom = OnceCell::new(),
            AnalysisKind::Loops => self.loops = OnceCell::new(),
            AnalysisKind::Cycles => self.cycles = OnceCell::new(),
            AnalysisKind::ControlDeps => self.control_deps = OnceCell::new(),
            AnalysisKind::Convergence => self.convergence = OnceCell::new(),
            AnalysisKind::Uniformity => self.uniformity = OnceCell::new(),
            AnalysisKind::Liveness => self.liveness = OnceCell::new(),
            AnalysisKind::MemDeps => self.memdeps = OnceCell::new(),
        }
    }

    /// Whether `kind` has been computed and is held.
    pub fn is_cached(&self, kind: AnalysisKind) -> bool {
        match kind {
            AnalysisKind::Dominators => self.dom.get().is_some(),
            AnalysisKind::PostDominators => self.postdom.get().is_some(),
            AnalysisKind::Loops => self.loops.get().is_some(),
            AnalysisKind::Cycles => self.cycles.get().is_some(),
            AnalysisKind::ControlDeps => self.control_deps.get().is_some(),
            AnalysisKind::Convergence => self.convergence.get().is_some(),
            AnalysisKind::Uniformity => self.uniformity.get().is_some(),
            AnalysisKind::Liveness => self.liveness.get().is_some(),
            AnalysisKind::MemDeps => self.memdeps.get().is_some(),
        }
    }

    fn first_cached(&self) -> Option<AnalysisKind> {
        AnalysisKind::ALL.into_iter().find(|&k| self.is_cached(k))
    }
}

/// The cache over a module's functions.
#[derive(Default)]
pub struct AnalysisCache<'ctx> {
    entries: HashMap<LLVMValueRef, FunctionAnalyses<'ctx>>,
    recomputations: usize,
}

impl<'ctx> AnalysisCache<'ctx> {
    pub fn new() -> Self {
        AnalysisCache { entries: HashMap::new(), recomputations: 0 }
    }

    /// The analyses of `function`, recomputed if its CFG changed.
    pub fn get(&mut self, function: FunctionValue<'ctx>) -> &FunctionAnalyses<'ctx> {
        let key = function.as_value_ref();
        let fresh = FunctionCfg::new(function);
        let stale = match self.entries.get(&key) {
            Some(e) => e.cfg.blocks() != fresh.blocks() || e.cfg.cfg != fresh.cfg,
            None => true,
        };
        if stale {
            self.recomputations += 1;
            let mut entry = FunctionAnalyses::new(function);
            entry.cfg = fresh;
            self.entries.insert(key, entry);
        }
        &self.entries[&key]
    }

    /// Drops every analysis `preserved` does not name; [`Preserved::none`]
    /// drops the entries themselves (functions may be gone). The driver's
    /// job, after each pass.
    pub fn invalidate(&mut self, preserved: Preserved) {
        if preserved.is_none() {
            self.clear();
            return;
        }
        for e in self.entries.values_mut() {
            for kind in AnalysisKind::ALL {
                if !preserved.preserves(kind) {
                    e.drop_analysis(kind);
                }
            }
        }
    }

    /// Drops everything (after passes we cannot see into, such as LLVM's).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// Checks the claim `preserved` of the pass that just ran, after
    /// [`invalidate`](Self::invalidate) dropped the rest: every analysis still
    /// cached for a function of `module` is recomputed from the function as
    /// it is now and compared with the cached one. A claimed analysis whose
    /// function's CFG changed, or whose function is no longer defined, is a
    /// wrong claim too (the per-entry CFG check would hide it). The error
    /// names the function and the stale analysis.
    pub fn verify(&self, module: &Module<'ctx>, preserved: Preserved) -> Result<(), String> {
        let defined = crate::ir::defined_functions(module);
        let keys: std::collections::HashSet<LLVMValueRef> = defined.iter().map(|f| f.as_value_ref()).collect();
        if let Some(kind) = self.entries.keys().filter(|k| !keys.contains(*k)).find_map(|k| self.entries[k].first_cached()) {
            return Err(format!("the cached {} of a function that is no longer defined is kept", kind.describe()));
        }
        for f in defined {
            let Some(cached) = self.entries.get(&f.as_value_ref()) else { continue };
            let name = crate::ir::function_name(f);
            let fresh = FunctionAnalyses::new(f);
            if cached.cfg.blocks() != fresh.cfg.blocks() || cached.cfg.cfg != fresh.cfg.cfg {
                let kept: Vec<&str> = AnalysisKind::ALL
                    .into_iter()
                    .filter(|&k| preserved.preserves(k) && cached.is_cached(k))
                    .map(AnalysisKind::describe)
                    .collect();
                if !kept.is_empty() {
                    return Err(format!("function '{name}': its CFG changed, yet its cached {} claimed preserved", kept.join(", ")));
                }
                continue;
            }
            let stale = |kind: AnalysisKind| Err(format!("the cached {} of function '{name}' is stale", kind.describe()));
            macro_rules! check {
                ($cell:ident, $kind:expr) => {
                    if let Some(c) = cached.$cell.get() {
                        if c != fresh.$cell() {
                            return stale($kind);
                        }
                    }
                };
            }
            check!(dom, AnalysisKind::Dominators);
            check!(postdom, AnalysisKind::PostDominators);
            check!(loops, AnalysisKind::Loops);
            check!(cycles, AnalysisKind::Cycles);
            check!(control_deps, AnalysisKind::ControlDeps);
            check!(convergence, AnalysisKind::Convergence);
            check!(uniformity, AnalysisKind::Uniformity);
            check!(liveness, AnalysisKind::Liveness);
            check!(memdeps, AnalysisKind::MemDeps);
        }
        Ok(())
    }

    /// How many times an entry was (re)built: lets tests see invalidation work.
    pub fn recomputations(&self) -> usize {
        self.recomputations
    }
}
