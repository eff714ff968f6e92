//! The cycle hierarchy of a CFG, reducible or not: LLVM's `GenericCycleInfo`.
//!
//! Natural loops (`loops.rs`) describe reducible control flow only. Analyses
//! that must be sound on any CFG, uniformity first, need one notion of "cycle"
//! that covers irreducible regions too, nested the same way. This is the
//! definition of Havlak and of LLVM's `GenericCycleInfo`:
//!
//! - the outermost cycles are the strongly connected components of the
//!   reachable blocks that contain an edge (one block with a self-loop counts);
//! - a cycle's **entries** are its blocks with a predecessor outside it (or the
//!   function entry); its **header** is the entry a depth-first search from the
//!   function entry reaches first, which is the block of the cycle with the
//!   smallest reverse post-order position;
//! - the cycles nested in a cycle are the components of its blocks once the
//!   edges *into its header* are removed; a reducible loop is a cycle with one
//!   entry, and its header is the natural loop's header.
//!
//! Why the header is the minimum of reverse post-order: every other block of
//! the cycle is reachable from it inside the cycle, so the search finishes
//! them first. The consequence that the uniformity analysis relies on: inside
//! any cycle (or the whole function), once the edges into the header are
//! removed and every nested cycle is contracted to one node, ordering the nodes
//! by the reverse post-order position of their headers is a topological order.
//!
//! Each level is one strongly-connected-component pass over that level's
//! blocks (`scc.rs`), so the whole hierarchy costs O(blocks × nesting depth).

use crate::analysis::scc::Scratch;
use crate::cfg::{BlockId, Cfg};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CycleId(pub u32);

impl CycleId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cycle {
    /// The entry with the smallest reverse post-order position.
    pub header: BlockId,
    /// Blocks with a predecessor outside the cycle, in layout order.
    pub entries: Vec<BlockId>,
    /// All blocks, nested cycles' included, in layout order.
    pub blocks: Vec<BlockId>,
    /// Blocks outside the cycle that an edge from inside leads to, in layout order.
    pub exits: Vec<BlockId>,
    pub parent: Option<CycleId>,
    pub children: Vec<CycleId>,
    /// 1 for an outermost cycle.
    pub depth: u32,
    /// Preorder interval over the cycle tree: `d` is `c` or nested in it iff
    /// `c.pre <= d.pre && d.pre < c.end`.
    pre: u32,
    end: u32,
}

impl Cycle {
    pub fn is_reducible(&self) -> bool {
        self.entries.len() == 1
    }
}

/// One node of a level of the hierarchy: a block directly in it, or a whole
/// nested cycle contracted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    Block(BlockId),
    Cycle(CycleId),
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CycleInfo {
    cycles: Vec<Cycle>,
    innermost: Vec<Option<CycleId>>,
}

impl CycleInfo {
    pub fn compute(cfg: &Cfg) -> CycleInfo {
        let n = cfg.len();
        let mut cycles: Vec<Cycle> = Vec::new();
        let mut innermost: Vec<Option<CycleId>> = vec![None; n];
        let mut scratch = Scratch::new(cfg);
        // (blocks of the region, the cycle they form, whose header's incoming
        // edges are removed)
        let mut regions: Vec<(Vec<BlockId>, Option<CycleId>)> = vec![(cfg.rpo().to_vec(), None)];
        while let Some((region, parent)) = regions.pop() {
            let removed = parent.map(|p| cycles[p.index()].header);
            for blocks in scratch.cyclic_sccs(cfg, &region, removed) {
                let entries = scratch.entries(cfg, &blocks);
                let exits = scratch.exits(cfg, &blocks);
                let header = *blocks.iter().min_by_key(|b| cfg.rpo_position(**b)).expect("a cycle has blocks");
                let id = CycleId(cycles.len() as u32);
                for &b in &blocks {
                    innermost[b.index()] = Some(id);
                }
                cycles.push(Cycle {
                    header,
                    entries,
                    blocks: blocks.clone(),
                    exits,
                    parent,
                    children: Vec::new(),
                    depth: 0,
                    pre: 0,
                    end: 0,
                });
                if let Some(p) = parent {
                    cycles[p.index()].children.push(id);
                }
                regions.push((blocks, Some(id)));
            }
        }
        let mut info = CycleInfo { cycles, innermost };
        info.number();
        info
    }

    /// Depths and preorder intervals, for O(1) containment.
    fn number(&mut self) {
        let mut next = 0u32;
        let mut stack: Vec<(CycleId, bool)> =
            (0..self.cycles.len() as u32).map(CycleId).filter(|&c| self.cycles[c.index()].parent.is_none()).map(|c| (c, false)).collect();
        while let Some((c, done)) = stack.pop() {
            if done {
                self.cycles[c.index()].end = next;
                continue;
            }
            let depth = self.cycles[c.index()].parent.map_or(1, |p| self.cycles[p.index()].depth + 1);
            let cy = &mut self.cycles[c.index()];
            cy.depth = depth;
            cy.pre = next;
            next += 1;
            stack.push((c, true));
            stack.extend(cy.children.iter().map(|&d| (d, false)));
        }
    }

    pub fn cycles(&self) -> impl Iterator<Item = (CycleId, &Cycle)> {
        self.cycles.iter().enumerate().map(|(i, c)| (CycleId(i as u32), c))
    }

    pub fn get(&self, c: CycleId) -> &Cycle {
        &self.cycles[c.index()]
    }

    pub fn len(&self) -> usize {
        self.cycles.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cycles.is_empty()
    }

    /// The smallest cycle containing `b`.
    pub fn innermost(&self, b: BlockId) -> Option<CycleId> {
        self.innermost[b.index()]
    }

    /// Whether cycle `inner` is `outer` or nested in it.
    pub fn is_within(&self, inner: CycleId, outer: CycleId) -> bool {
        let (i, o) = (&self.cycles[inner.index()], &self.cycles[outer.index()]);
        o.pre <= i.pre && i.pre < o.end
    }

    /// Whether block `b` is in `level` (a cycle, or `None` for the function).
    pub fn contains(&self, level: Option<CycleId>, b: BlockId) -> bool {
        match level {
            None => true,
            Some(c) => self.innermost(b).is_some_and(|i| self.is_within(i, c)),
        }
    }

    /// The node that stands for `b` among the nodes of `level`: `b` itself if
    /// no cycle nested in `level` contains it, else the outermost such cycle.
    /// `b` must be in `level`.
    pub fn node_at(&self, level: Option<CycleId>, b: BlockId) -> Node {
        let mut c = self.innermost(b);
        let mut last = None;
        while c != level {
            let Some(id) = c else { break };
            last = Some(id);
            c = self.cycles[id.index()].parent;
        }
        debug_assert_eq!(c, level, "{b} is not inside the level");
        match last {
            Some(id) => Node::Cycle(id),
            None => Node::Block(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(succs: Vec<Vec<u32>>) -> (Cfg, CycleInfo) {
        let cfg = Cfg::from_successors(succs);
        let ci = CycleInfo::compute(&cfg);
        (cfg, ci)
    }

    #[test]
    fn nested_natural_loops() {
        // 0 -> 1; 1 -> 2, 5; 2 -> 3; 3 -> 2, 4; 4 -> 1; 5 ret
        let (_, ci) = info(vec![vec![1], vec![2, 5], vec![3], vec![2, 4], vec![1], vec![]]);
        assert_eq!(ci.len(), 2);
        let outer = ci.innermost(BlockId(1)).unwrap();
        let inner = ci.innermost(BlockId(2)).unwrap();
        assert_eq!(ci.get(outer).header, BlockId(1));
        assert_eq!(ci.get(outer).exits, vec![BlockId(5)]);
        assert_eq!(ci.get(inner).header, BlockId(2));
        assert_eq!(ci.get(inner).blocks, vec![BlockId(2), BlockId(3)]);
        assert_eq!(ci.get(inner).exits, vec![BlockId(4)]);
        assert_eq!(ci.get(inner).depth, 2);
        assert!(ci.is_within(inner, outer) && !ci.is_within(outer, inner));
        assert_eq!(ci.node_at(None, BlockId(3)), Node::Cycle(outer));
        assert_eq!(ci.node_at(Some(outer), BlockId(3)), Node::Cycle(inner));
        assert_eq!(ci.node_at(Some(outer), BlockId(4)), Node::Block(BlockId(4)));
        assert!(!ci.contains(Some(inner), BlockId(4)));
    }

    #[test]
    fn irreducible_header_is_first_in_rpo() {
        // 0 -> 1, 2; 1 <-> 2; 2 -> 3. The search from 0 reaches 1 first.
        let (cfg, ci) = info(vec![vec![1, 2], vec![2], vec![1, 3], vec![]]);
        assert_eq!(ci.len(), 1);
        let c = ci.get(CycleId(0));
        assert_eq!(c.entries, vec![BlockId(1), BlockId(2)]);
        assert_eq!(c.header, cfg.rpo()[1]);
        assert!(!c.is_reducible());
        // Swapping the entry's successors swaps the header, not the cycle.
        let (cfg2, ci2) = info(vec![vec![2, 1], vec![2], vec![1, 3], vec![]]);
        assert_eq!(ci2.get(CycleId(0)).blocks, c.blocks);
        assert_eq!(ci2.get(CycleId(0)).header, cfg2.rpo()[1]);
    }

    #[test]
    fn self_loop_nested_in_a_loop() {
        // 0 -> 1; 1 -> 2; 2 -> 2, 3; 3 -> 1, 4
        let (_, ci) = info(vec![vec![1], vec![2], vec![2, 3], vec![1, 4], vec![]]);
        assert_eq!(ci.len(), 2);
        let inner = ci.innermost(BlockId(2)).unwrap();
        assert_eq!(ci.get(inner).blocks, vec![BlockId(2)]);
        assert_eq!(ci.get(inner).exits, vec![BlockId(3)]);
        // A header's own self-loop is an edge into the header: no nested cycle.
        let (_, ci) = info(vec![vec![1], vec![1, 2], vec![]]);
        assert_eq!(ci.len(), 1);
    }
}
