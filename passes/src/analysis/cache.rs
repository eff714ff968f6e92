//! Analyses computed once per function and handed to every pass that asks.
//!
//! Stale analyses are the hardest bugs in a pass pipeline (pocl's "always
//! valid" invalidation is the cautionary tale), so validity is checked, not
//! trusted: each entry remembers the CFG it was computed on, and asking for a
//! function whose blocks or edges changed since recomputes everything. That
//! check costs one walk over the terminators, far less than any analysis.
//! Analyses that read instructions as well as the CFG (uniformity, liveness, memdeps) are dropped
//! by [`AnalysisCache::invalidate_values`], which the driver calls after any
//! pass that reports a change; after LLVM's own passes the whole cache goes.
//!
//! That leaves one way to serve a stale analysis: a pass that changes
//! instructions and reports `Changed::Nothing`. [`AnalysisCache::verify`]
//! catches it the way LLVM's `DT.verify()` does: it recomputes every cached
//! analysis from the function as it is now and compares. The driver calls it
//! after every pass when asked to (`SIMT_VERIFY_ANALYSES=1`, on in
//! `scripts/test`).

use crate::analysis::control_deps::ControlDeps;
use crate::analysis::convergence::Convergence;
use crate::analysis::cycles::CycleInfo;
use crate::analysis::dominators::DomTree;
use crate::analysis::liveness::FunctionLiveness;
use crate::analysis::loops::LoopInfo;
use crate::analysis::memdeps::{dataflow::Config, MemDeps};
use crate::analysis::post_dominators::PostDomTree;
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

    /// Seed 003's memory-descriptor dependences, with the sound rules.
    pub fn memdeps(&self) -> &MemDeps<'ctx> {
        self.memdeps.get_or_init(|| MemDeps::compute(&self.cfg, self.dom(), Config::SOUND))
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

    /// Drops the analyses that depend on instructions, keeping the CFG ones.
    pub fn invalidate_values(&mut self) {
        for e in self.entries.values_mut() {
            e.uniformity = OnceCell::new();
            e.liveness = OnceCell::new();
            e.memdeps = OnceCell::new();
        }
    }

    /// Drops everything (after passes we cannot see into, such as LLVM's).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// Recomputes every analysis held for a function of `module` whose CFG
    /// is unchanged (a changed CFG is recomputed on the next `get` anyway)
    /// and compares it with the cached one. The error names the function
    /// and the stale analysis.
    pub fn verify(&self, module: &Module<'ctx>) -> Result<(), String> {
        for f in crate::ir::defined_functions(module) {
            let Some(cached) = self.entries.get(&f.as_value_ref()) else { continue };
            let fresh = FunctionAnalyses::new(f);
            if cached.cfg.blocks() != fresh.cfg.blocks() || cached.cfg.cfg != fresh.cfg.cfg {
                continue;
            }
            let name = crate::ir::function_name(f);
            let stale = |what: &str| Err(format!("the cached {what} of function '{name}' is stale"));
            macro_rules! check {
                ($cell:ident, $what:expr) => {
                    if let Some(c) = cached.$cell.get() {
                        if c != fresh.$cell() {
                            return stale($what);
                        }
                    }
                };
            }
            check!(dom, "dominator tree");
            check!(postdom, "post-dominator tree");
            check!(loops, "loop info");
            check!(cycles, "cycle info");
            check!(control_deps, "control dependences");
            check!(convergence, "convergence points");
            check!(uniformity, "uniformity");
            check!(liveness, "liveness");
            check!(memdeps, "memory dependences");
        }
        Ok(())
    }

    /// How many times an entry was (re)built: lets tests see invalidation work.
    pub fn recomputations(&self) -> usize {
        self.recomputations
    }
}
