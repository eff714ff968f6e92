//! `simt-rpo-layout`: lays out each function's blocks in reverse post-order.
//!
//! Seed 000's executor runs, at a convergence point, the group of threads whose
//! next instruction comes first in program-counter order, i.e. in block
//! layout. clang lays a rotated loop out *after* its exit block, so threads
//! that leave the loop early run the exit block on their own before the others
//! arrive, and the markers policy issues a few more instructions than IPDOM
//! reconvergence (BENCHMARKS.md). Reverse post-order puts every block after its
//! forward predecessors and loop bodies before their exits, the priority order
//! of thread frontiers (Diamos et al., MICRO 2011); running this pass before
//! `simt-converge` makes the patent's "earliest PC first" follow it. Only the
//! order of blocks changes; blocks unreachable from the entry go last.

use crate::ir::defined_functions;
use crate::pass::{ModulePass, PassContext, PassError, Preserved};

#[derive(Default)]
pub struct RpoLayout;

impl ModulePass for RpoLayout {
    fn name(&self) -> String {
        "simt-rpo-layout".into()
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        let mut preserved = Preserved::all();
        for f in defined_functions(cx.module()) {
            // The order from the cached CFG view, as block handles: the
            // analyses' borrow ends before the blocks move.
            let fc = &cx.analyses(f).cfg;
            let mut order: Vec<_> = fc.cfg.rpo().to_vec();
            order.extend(fc.cfg.blocks().filter(|&b| !fc.cfg.is_reachable(b)));
            if order.iter().enumerate().all(|(i, b)| b.index() == i) {
                continue;
            }
            let blocks: Vec<_> = order.into_iter().map(|b| fc.block(b)).collect();
            for w in blocks.windows(2) {
                w[1].move_after(w[0]).expect("blocks of a function");
            }
            // Blocks are renumbered: every analysis of the function is
            // keyed by the old numbers.
            preserved = Preserved::none();
        }
        Ok(preserved)
    }
}

impl crate::pass::DeclaredPass for RpoLayout {
    const NAME: &'static str = "simt-rpo-layout";
    const SUMMARY: &'static str =
        "lays blocks out in reverse post-order (loop bodies before exits) so PC order is a good reconvergence priority";
    const SEED: Option<&'static str> = Some("000");
}
