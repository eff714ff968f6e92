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
use crate::analysis::preserved::Preserved;
use crate::analysis::table::analyses;
use crate::analysis::uniformity::Uniformity;
use crate::function_cfg::FunctionCfg;
use inkwell::module::Module;
use inkwell::values::{AsValueRef, FunctionValue};
use llvm_sys::prelude::*;
use std::cell::OnceCell;
use std::collections::HashMap;

// The table: one line per analysis. Adding one is its module and a line
// here; the kind, the field, the accessor, invalidation and the
// `-verify-analyses` check all come from the line (see `table.rs`). Scope
// `cfg`: computed from the blocks and edges alone, so a pass that changes
// instructions only keeps it; `body`: reads instructions too.
analyses! { <'ctx>
    Dominators => dom: DomTree, "dominator tree", cfg = |fa| DomTree::dominators(&fa.cfg.cfg);
    PostDominators => postdom: PostDomTree, "post-dominator tree", cfg = |fa| PostDomTree::compute(&fa.cfg.cfg);
    Loops => loops: LoopInfo, "loop info", cfg = |fa| LoopInfo::compute(&fa.cfg.cfg, fa.dom());
    Cycles => cycles: CycleInfo, "cycle info", cfg = |fa| CycleInfo::compute(&fa.cfg.cfg);
    ControlDeps => control_deps: ControlDeps, "control dependences", cfg = |fa| ControlDeps::compute(&fa.cfg.cfg, fa.postdom());
    /// Seed 000's convergence points (a function of the CFG and its loops).
    Convergence => convergence: Convergence, "convergence points", cfg = |fa| Convergence::compute(&fa.cfg.cfg, fa.loops());
    Uniformity => uniformity: Uniformity, "uniformity", body = |fa| Uniformity::compute(&fa.cfg, fa.cycles());
    Liveness => liveness: FunctionLiveness<'ctx>, "liveness", body = |fa| FunctionLiveness::compute(&fa.cfg);
    /// Seed 003's memory-descriptor dependences, with the sound rules.
    MemDeps => memdeps: MemDeps<'ctx>, "memory dependences", body = |fa| MemDeps::compute(&fa.cfg, fa.dom(), Config::SOUND);
}

impl<'ctx> FunctionAnalyses<'ctx> {
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
            if let Some(kind) = cached.first_stale(&fresh) {
                return Err(format!("the cached {} of function '{name}' is stale", kind.describe()));
            }
        }
        Ok(())
    }

    /// How many times an entry was (re)built: lets tests see invalidation work.
    pub fn recomputations(&self) -> usize {
        self.recomputations
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `f` has a divergent loop that stores and loads; `g` is one empty
    /// block: every analysis of `g` differs from `f`'s.
    const IR: &str = r#"
define void @f(ptr addrspace(1) %p, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = icmp slt i32 %tid, %n
  br i1 %c, label %loop, label %exit
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %a = getelementptr i32, ptr addrspace(1) %p, i32 %i
  store i32 %i, ptr addrspace(1) %a
  %v = load i32, ptr addrspace(1) %p
  %i1 = add i32 %i, %tid
  %d = icmp slt i32 %i1, %v
  br i1 %d, label %loop, label %exit
exit:
  ret void
}
define void @g(ptr addrspace(1) %p) {
entry:
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
"#;

    /// Every line of the table is verified: `g`'s analysis of each kind,
    /// planted in `f`'s entry (its CFG check passes: the entry's CFG is
    /// `f`'s), is reported by name, and `f`'s own is not.
    #[test]
    fn verify_compares_every_analysis_of_the_table() {
        let ctx = inkwell::context::Context::create();
        let m = crate::ir::parse_ir(&ctx, "table.ll", IR.as_bytes()).unwrap();
        let (f, g) = (m.get_function("f").unwrap(), m.get_function("g").unwrap());
        for kind in AnalysisKind::ALL {
            let mut cache = AnalysisCache::new();
            cache.get(f).compute(kind);
            assert!(cache.get(f).is_cached(kind));
            assert_eq!(cache.verify(&m, Preserved::all()), Ok(()), "{}: f's own is right", kind.describe());
            let mut planted = FunctionAnalyses::new(g);
            planted.compute(kind);
            let entry = cache.entries.get_mut(&f.as_value_ref()).unwrap();
            *entry = FunctionAnalyses::new(f);
            entry.swap_analysis(&mut planted, kind);
            assert!(AnalysisKind::ALL.into_iter().all(|k| entry.is_cached(k) == (k == kind)));
            let err = cache.verify(&m, Preserved::all()).expect_err(kind.describe());
            assert_eq!(err, format!("the cached {} of function 'f' is stale", kind.describe()));
            // Invalidated, it is gone and nothing is left to check.
            cache.invalidate(Preserved::of(&AnalysisKind::ALL.into_iter().filter(|&k| k != kind).collect::<Vec<_>>()));
            assert_eq!(cache.verify(&m, Preserved::all()), Ok(()));
        }
    }

    #[test]
    fn cfg_analyses_are_the_table_s_cfg_scope() {
        let kept: Vec<&str> =
            AnalysisKind::ALL.into_iter().filter(|&k| Preserved::cfg_analyses().preserves(k)).map(AnalysisKind::describe).collect();
        assert_eq!(kept, ["dominator tree", "post-dominator tree", "loop info", "cycle info", "control dependences", "convergence points"]);
        assert!(Preserved::all().is_all() && AnalysisKind::ALL.into_iter().all(|k| Preserved::all().preserves(k)));
    }
}
