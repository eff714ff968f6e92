//! The post-dominator tree: the dominator tree of the reversed CFG, rooted at a
//! virtual exit node.
//!
//! Every block without successors (`ret`, `unreachable`, …) is an edge into the
//! virtual exit, so functions with several exits have one tree. Blocks that
//! cannot reach any exit (infinite loops) would otherwise be left out; like
//! LLVM's `PostDominatorTree`, we give each region of them an extra root: each
//! *sink* strongly connected component of the blocks that cannot reach an exit
//! (no edge leaves it) gets an edge to the virtual exit from its member with the
//! highest layout number. For `entry -> header <-> latch` that member is the
//! latch, the node LLVM's `FindRoots` picks as "furthest away" in simple cases;
//! on larger infinite regions the two may choose different roots, and both
//! are valid post-dominator trees of the augmented graph.
//!
//! Blocks unreachable from the entry are included: post-dominance is about the
//! paths to the exit, so they get a place in the tree like any other block.

use crate::analysis::dominators::DomTree;
use crate::cfg::{BlockId, Cfg};
use petgraph::algo::kosaraju_scc;
use petgraph::graph::{DiGraph, NodeIndex};

/// Post-dominator tree over blocks `0..n` plus the virtual exit `n`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PostDomTree {
    tree: DomTree,
    /// Blocks given an edge to the virtual exit although they have successors.
    infinite_loop_roots: Vec<BlockId>,
}

impl PostDomTree {
    pub fn compute(cfg: &Cfg) -> PostDomTree {
        let n = cfg.len();
        let virtual_exit = n as u32;
        let infinite_loop_roots = infinite_loop_roots(cfg);
        // Reversed graph: virtual exit -> exits and extra roots; b -> preds(b).
        let mut rsuccs: Vec<Vec<u32>> = cfg.blocks().map(|b| cfg.preds(b).iter().map(|p| p.0).collect()).collect();
        let mut roots: Vec<u32> = cfg.exits().map(|b| b.0).collect();
        roots.extend(infinite_loop_roots.iter().map(|b| b.0));
        rsuccs.push(roots);
        PostDomTree { tree: DomTree::compute(&rsuccs, virtual_exit), infinite_loop_roots }
    }

    /// The virtual exit's node number (the number of blocks).
    pub fn virtual_exit(&self) -> u32 {
        self.tree.root()
    }

    /// The immediate post-dominator; `None` when it is the virtual exit.
    pub fn ipdom(&self, b: BlockId) -> Option<BlockId> {
        self.tree.idom(b.0).filter(|&d| d != self.virtual_exit()).map(BlockId)
    }

    /// Whether `a` post-dominates `b` (reflexive).
    pub fn post_dominates(&self, a: BlockId, b: BlockId) -> bool {
        self.tree.dominates(a.0, b.0)
    }

    pub fn infinite_loop_roots(&self) -> &[BlockId] {
        &self.infinite_loop_roots
    }

    /// The underlying tree, whose node `virtual_exit()` stands for the exit.
    pub fn tree(&self) -> &DomTree {
        &self.tree
    }
}

/// One block per sink SCC of the blocks that cannot reach an exit.
fn infinite_loop_roots(cfg: &Cfg) -> Vec<BlockId> {
    let n = cfg.len();
    let mut reaches_exit = vec![false; n];
    let mut work: Vec<BlockId> = cfg.exits().collect();
    for &b in &work {
        reaches_exit[b.index()] = true;
    }
    while let Some(b) = work.pop() {
        for &p in cfg.preds(b) {
            if !reaches_exit[p.index()] {
                reaches_exit[p.index()] = true;
                work.push(p);
            }
        }
    }
    if reaches_exit.iter().all(|&r| r) {
        return Vec::new();
    }
    // Among the blocks that cannot reach an exit every edge stays among them.
    let mut g: DiGraph<(), ()> = DiGraph::with_capacity(n, 0);
    for _ in 0..n {
        g.add_node(());
    }
    for b in cfg.blocks().filter(|b| !reaches_exit[b.index()]) {
        for &s in cfg.succs(b) {
            g.add_edge(NodeIndex::new(b.index()), NodeIndex::new(s.index()), ());
        }
    }
    let mut component = vec![usize::MAX; n];
    let sccs = kosaraju_scc(&g);
    for (i, scc) in sccs.iter().enumerate() {
        for v in scc {
            component[v.index()] = i;
        }
    }
    let mut roots: Vec<BlockId> = sccs
        .iter()
        .enumerate()
        .filter(|(_, scc)| !reaches_exit[scc[0].index()])
        .filter(|(i, scc)| scc.iter().all(|v| cfg.succs(BlockId(v.index() as u32)).iter().all(|s| component[s.index()] == *i)))
        .map(|(_, scc)| BlockId(scc.iter().map(|v| v.index() as u32).max().unwrap()))
        .collect();
    roots.sort();
    roots
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_returns_meet_at_virtual_exit() {
        // 0 -> 1, 2; both return.
        let cfg = Cfg::from_successors(vec![vec![1, 2], vec![], vec![]]);
        let pdt = PostDomTree::compute(&cfg);
        assert_eq!(pdt.ipdom(BlockId(0)), None);
        assert!(!pdt.post_dominates(BlockId(1), BlockId(0)));
    }

    #[test]
    fn infinite_loop_is_rooted_at_its_latch() {
        // 0 -> 1 <-> 2, no exit at all.
        let cfg = Cfg::from_successors(vec![vec![1], vec![2], vec![1]]);
        let pdt = PostDomTree::compute(&cfg);
        assert_eq!(pdt.infinite_loop_roots(), &[BlockId(2)]);
        assert_eq!(pdt.ipdom(BlockId(1)), Some(BlockId(2)));
        assert_eq!(pdt.ipdom(BlockId(0)), Some(BlockId(1)));
    }

    #[test]
    fn loop_beside_an_exit() {
        // 0 -> 1, 3; 1 <-> 2 (infinite); 3 returns.
        let cfg = Cfg::from_successors(vec![vec![1, 3], vec![2], vec![1], vec![]]);
        let pdt = PostDomTree::compute(&cfg);
        assert_eq!(pdt.ipdom(BlockId(0)), None);
        assert_eq!(pdt.ipdom(BlockId(1)), Some(BlockId(2)));
    }
}
