//! Control dependence with edge labels (Ferrante, Ottenstein, Warren, "The
//! program dependence graph and its use in optimization", TOPLAS 1987; the
//! construction seed 004 and Park & Schlansker's RK algorithm rely on).
//!
//! For each CFG edge x→y where y does not post-dominate x, every block on the
//! post-dominator-tree path from y up to, but not including, ipdom(x) is
//! control dependent on the edge (x, y). The edge names the condition: which
//! terminator slots lead along it is read from the IR when printing.
//!
//! Only edges out of blocks reachable from the entry that have two or more
//! successors are considered; blocks in infinite loops are handled through the
//! post-dominator tree's extra roots, whose edges to the virtual exit decide
//! nothing.

use crate::analysis::post_dominators::PostDomTree;
use crate::cfg::{BlockId, Cfg};

/// A CFG edge `from → to` that decides whether other blocks run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ControlEdge {
    pub from: BlockId,
    pub to: BlockId,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ControlDeps {
    /// For each block, the edges it is control dependent on, sorted.
    deps: Vec<Vec<ControlEdge>>,
}

impl ControlDeps {
    pub fn compute(cfg: &Cfg, pdt: &PostDomTree) -> ControlDeps {
        let mut deps: Vec<Vec<ControlEdge>> = vec![Vec::new(); cfg.len()];
        let top = pdt.virtual_exit();
        for &x in cfg.rpo() {
            // Only a block that chooses between successors decides anything;
            // the post-dominator tree's extra edges out of infinite loops are
            // not choices.
            if cfg.succs(x).len() < 2 {
                continue;
            }
            let stop = pdt.tree().idom(x.0).unwrap_or(top);
            for &y in cfg.succs(x) {
                let mut w = y.0;
                while w != stop && w != top {
                    deps[w as usize].push(ControlEdge { from: x, to: y });
                    match pdt.tree().idom(w) {
                        Some(up) => w = up,
                        None => break,
                    }
                }
            }
        }
        for d in &mut deps {
            d.sort();
        }
        ControlDeps { deps }
    }

    /// The edges block `b` is control dependent on.
    pub fn of(&self, b: BlockId) -> &[ControlEdge] {
        &self.deps[b.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn if_then_else() {
        // 0 -> 1, 2; 1 -> 3; 2 -> 3; 3 ret
        let cfg = Cfg::from_successors(vec![vec![1, 2], vec![3], vec![3], vec![]]);
        let cd = ControlDeps::compute(&cfg, &PostDomTree::compute(&cfg));
        assert_eq!(cd.of(BlockId(1)), &[ControlEdge { from: BlockId(0), to: BlockId(1) }]);
        assert_eq!(cd.of(BlockId(2)), &[ControlEdge { from: BlockId(0), to: BlockId(2) }]);
        assert!(cd.of(BlockId(3)).is_empty());
        assert!(cd.of(BlockId(0)).is_empty());
    }

    #[test]
    fn loop_header_depends_on_its_own_exit_test() {
        // 0 -> 1; 1 -> 2, 3; 2 -> 1; 3 ret
        let cfg = Cfg::from_successors(vec![vec![1], vec![2, 3], vec![1], vec![]]);
        let cd = ControlDeps::compute(&cfg, &PostDomTree::compute(&cfg));
        let e = ControlEdge { from: BlockId(1), to: BlockId(2) };
        assert_eq!(cd.of(BlockId(2)), &[e]);
        assert_eq!(cd.of(BlockId(1)), &[e]);
    }
}
