//! Natural loops with nesting, latches, exiting and exit blocks, and the
//! irreducible cycles that natural loops cannot describe.
//!
//! Loops are discovered the way LLVM's `LoopInfoBase::analyze` does: headers
//! are visited in post-order of the dominator tree, so inner loops are found
//! before the loops around them; a header's loop is the set of blocks that reach
//! one of its latches (predecessors it dominates) backwards without passing the
//! header, and a block already claimed by an inner loop stands for that whole
//! loop, whose outermost ancestor becomes a child of the new one. Each block is
//! visited once per loop level, which keeps the analysis linear for the usual
//! nesting depths.
//!
//! A cycle whose blocks can be entered at more than one block has no header that
//! dominates it and is not a natural loop. Such irreducible cycles are found by
//! the recursive strongly-connected-component decomposition of Havlak /
//! LLVM's `GenericCycleInfo`: take the SCCs, record each one's entry blocks,
//! remove the entries and repeat inside (`scc.rs`). Passes that need reducible
//! control flow report these cycles by name instead of mis-transforming them.

use crate::analysis::dominators::DomTree;
use crate::analysis::scc::Scratch;
use crate::cfg::{BlockId, Cfg};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LoopId(pub u32);

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    pub header: BlockId,
    pub parent: Option<LoopId>,
    pub children: Vec<LoopId>,
    pub depth: u32,
    /// Every block of the loop, its sub-loops' included, in layout order.
    pub blocks: Vec<BlockId>,
    /// Blocks inside the loop with an edge back to the header.
    pub latches: Vec<BlockId>,
    /// Blocks inside the loop with an edge leaving it (seed 000's "loop exit
    /// blocks"; LLVM calls them exiting blocks).
    pub exiting: Vec<BlockId>,
    /// Blocks outside the loop that such an edge leads to.
    pub exits: Vec<BlockId>,
}

/// A strongly connected region that more than one block enters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IrreducibleCycle {
    /// The blocks through which control can enter the cycle, in layout order.
    pub entries: Vec<BlockId>,
    /// All blocks of the cycle, in layout order.
    pub blocks: Vec<BlockId>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopInfo {
    loops: Vec<Loop>,
    /// Innermost loop of each block.
    innermost: Vec<Option<LoopId>>,
    irreducible: Vec<IrreducibleCycle>,
}

impl LoopInfo {
    pub fn compute(cfg: &Cfg, dt: &DomTree) -> LoopInfo {
        let n = cfg.len();
        let mut loops: Vec<Loop> = Vec::new();
        let mut innermost: Vec<Option<LoopId>> = vec![None; n];
        let mut order = dt.preorder();
        order.reverse(); // children before parents: inner headers first
        let mut work: Vec<BlockId> = Vec::new();
        for h in order.into_iter().map(BlockId) {
            let latches: Vec<BlockId> = cfg.preds(h).iter().copied().filter(|&p| dt.block_dominates(h, p)).collect();
            if latches.is_empty() {
                continue;
            }
            let id = LoopId(loops.len() as u32);
            loops.push(Loop {
                header: h,
                parent: None,
                children: Vec::new(),
                depth: 0,
                blocks: Vec::new(),
                latches: latches.clone(),
                exiting: Vec::new(),
                exits: Vec::new(),
            });
            work.clear();
            work.extend(latches);
            while let Some(b) = work.pop() {
                match innermost[b.index()] {
                    None => {
                        innermost[b.index()] = Some(id);
                        if b != h {
                            work.extend(cfg.preds(b).iter().filter(|p| cfg.is_reachable(**p)));
                        }
                    }
                    Some(mut sub) => {
                        while let Some(p) = loops[sub.0 as usize].parent {
                            sub = p;
                        }
                        if sub != id {
                            loops[sub.0 as usize].parent = Some(id);
                            let sub_header = loops[sub.0 as usize].header;
                            // Continue from the sub-loop's entries, skipping its latches.
                            work.extend(
                                cfg.preds(sub_header).iter().filter(|p| cfg.is_reachable(**p) && !dt.block_dominates(sub_header, **p)),
                            );
                        }
                    }
                }
            }
        }

        for i in 0..loops.len() {
            if let Some(p) = loops[i].parent {
                loops[p.0 as usize].children.push(LoopId(i as u32));
            }
        }
        for i in 0..loops.len() {
            let mut depth = 1;
            let mut p = loops[i].parent;
            while let Some(q) = p {
                depth += 1;
                p = loops[q.0 as usize].parent;
            }
            loops[i].depth = depth;
        }
        // Each block belongs to its innermost loop and every loop around it.
        for b in cfg.blocks() {
            let mut l = innermost[b.index()];
            while let Some(id) = l {
                loops[id.0 as usize].blocks.push(b);
                l = loops[id.0 as usize].parent;
            }
        }
        let mut info = LoopInfo { loops, innermost, irreducible: Vec::new() };
        // Membership through a scratch bitmap, not the parent chain: the
        // latter would make deep nests cubic.
        let mut inside = vec![false; n];
        for i in 0..info.loops.len() {
            for &b in &info.loops[i].blocks {
                inside[b.index()] = true;
            }
            let (mut exiting, mut exits) = (Vec::new(), Vec::new());
            for &b in &info.loops[i].blocks {
                for &s in cfg.succs(b) {
                    if !inside[s.index()] {
                        if !exiting.contains(&b) {
                            exiting.push(b);
                        }
                        if !exits.contains(&s) {
                            exits.push(s);
                        }
                    }
                }
            }
            exits.sort();
            for &b in &info.loops[i].blocks {
                inside[b.index()] = false;
            }
            let l = &mut info.loops[i];
            l.latches.sort();
            l.exiting = exiting;
            l.exits = exits;
        }
        info.irreducible = irreducible_cycles(cfg);
        info
    }

    pub fn loops(&self) -> impl Iterator<Item = (LoopId, &Loop)> {
        self.loops.iter().enumerate().map(|(i, l)| (LoopId(i as u32), l))
    }

    pub fn get(&self, id: LoopId) -> &Loop {
        &self.loops[id.0 as usize]
    }

    /// Outermost loops, in layout order of their headers.
    pub fn top_level(&self) -> Vec<LoopId> {
        let mut top: Vec<LoopId> = self.loops().filter(|(_, l)| l.parent.is_none()).map(|(i, _)| i).collect();
        top.sort_by_key(|&i| self.get(i).header);
        top
    }

    pub fn innermost(&self, b: BlockId) -> Option<LoopId> {
        self.innermost[b.index()]
    }

    /// Whether block `b` is inside loop `id` (or one of its sub-loops).
    pub fn contains(&self, id: LoopId, b: BlockId) -> bool {
        let mut l = self.innermost[b.index()];
        while let Some(x) = l {
            if x == id {
                return true;
            }
            l = self.loops[x.0 as usize].parent;
        }
        false
    }

    pub fn loop_depth(&self, b: BlockId) -> u32 {
        self.innermost[b.index()].map_or(0, |l| self.get(l).depth)
    }

    pub fn is_header(&self, b: BlockId) -> bool {
        self.innermost[b.index()].is_some_and(|l| self.get(l).header == b)
    }

    pub fn irreducible_cycles(&self) -> &[IrreducibleCycle] {
        &self.irreducible
    }

    pub fn is_reducible(&self) -> bool {
        self.irreducible.is_empty()
    }
}

/// Cycles (over reachable blocks) with more than one entry, outermost first.
fn irreducible_cycles(cfg: &Cfg) -> Vec<IrreducibleCycle> {
    let mut found = Vec::new();
    let mut scratch = Scratch::new(cfg);
    let mut regions: Vec<Vec<BlockId>> = vec![cfg.rpo().to_vec()];
    while let Some(region) = regions.pop() {
        for blocks in scratch.cyclic_sccs(cfg, &region, None) {
            let entries = scratch.entries(cfg, &blocks);
            let inner: Vec<BlockId> = blocks.iter().copied().filter(|b| !entries.contains(b)).collect();
            if entries.len() > 1 {
                found.push(IrreducibleCycle { entries, blocks });
            }
            if !inner.is_empty() {
                regions.push(inner);
            }
        }
    }
    found.sort_by(|a, b| a.blocks[0].cmp(&b.blocks[0]).then(b.blocks.len().cmp(&a.blocks.len())));
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(succs: Vec<Vec<u32>>) -> (Cfg, LoopInfo) {
        let cfg = Cfg::from_successors(succs);
        let dt = DomTree::dominators(&cfg);
        let li = LoopInfo::compute(&cfg, &dt);
        (cfg, li)
    }

    #[test]
    fn nested_loops() {
        // 0 -> 1; 1 -> 2, 5; 2 -> 3; 3 -> 2, 4; 4 -> 1; 5 ret
        let (_, li) = info(vec![vec![1], vec![2, 5], vec![3], vec![2, 4], vec![1], vec![]]);
        let top = li.top_level();
        assert_eq!(top.len(), 1);
        let outer = li.get(top[0]);
        assert_eq!(outer.header, BlockId(1));
        assert_eq!(outer.blocks, vec![BlockId(1), BlockId(2), BlockId(3), BlockId(4)]);
        assert_eq!(outer.latches, vec![BlockId(4)]);
        assert_eq!(outer.exiting, vec![BlockId(1)]);
        assert_eq!(outer.exits, vec![BlockId(5)]);
        let inner = li.get(outer.children[0]);
        assert_eq!(inner.header, BlockId(2));
        assert_eq!(inner.depth, 2);
        assert_eq!(inner.exits, vec![BlockId(4)]);
        assert_eq!(li.loop_depth(BlockId(3)), 2);
        assert!(li.is_reducible());
    }

    #[test]
    fn irreducible_two_entries() {
        // 0 -> 1, 2; 1 <-> 2; 2 -> 3
        let (_, li) = info(vec![vec![1, 2], vec![2], vec![1, 3], vec![]]);
        assert_eq!(li.loops().count(), 0);
        assert_eq!(
            li.irreducible_cycles(),
            &[IrreducibleCycle { entries: vec![BlockId(1), BlockId(2)], blocks: vec![BlockId(1), BlockId(2)] }]
        );
    }

    #[test]
    fn irreducible_inside_a_natural_loop() {
        // 0 -> 1; 1 -> 2, 3; 2 -> 3; 3 -> 2, 1, 4; the 2<->3 cycle has two entries.
        let (_, li) = info(vec![vec![1], vec![2, 3], vec![3], vec![2, 1, 4], vec![]]);
        assert_eq!(li.loops().count(), 1);
        assert_eq!(li.irreducible_cycles().len(), 1);
        assert_eq!(li.irreducible_cycles()[0].entries, vec![BlockId(2), BlockId(3)]);
    }
}
