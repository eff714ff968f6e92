//! The control-flow graph of one function as dense indices.
//!
//! Blocks are numbered in layout order, which is the program-counter order that
//! seed 000 orders its path items by: block 0 is the entry. Successor lists keep
//! the terminator's order with duplicate targets removed (a `switch` with three
//! cases to one block is one edge); which terminator slots lead along an edge is
//! a question for the IR, not for the graph algorithms here.
//!
//! The graph is plain data so that every analysis over it can be checked on
//! random graphs against brute-force definitions, without LLVM in the loop.

use std::fmt;

/// A block's position in layout order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BlockId(pub u32);

impl BlockId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for BlockId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bb{}", self.0)
    }
}

/// Successors, predecessors and the reverse post-order of one function's blocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cfg {
    succs: Vec<Vec<BlockId>>,
    preds: Vec<Vec<BlockId>>,
    /// Blocks reachable from the entry, in reverse post-order of a depth-first
    /// search that visits successors in terminator order.
    rpo: Vec<BlockId>,
    /// Position of each block in `rpo`; `u32::MAX` for unreachable blocks.
    rpo_index: Vec<u32>,
}

impl Cfg {
    /// Builds the graph from successor lists (index = layout position).
    /// Duplicate successors are dropped; every target must be in range.
    pub fn from_successors(succ_lists: Vec<Vec<u32>>) -> Cfg {
        let n = succ_lists.len();
        let mut succs: Vec<Vec<BlockId>> = Vec::with_capacity(n);
        let mut preds: Vec<Vec<BlockId>> = vec![Vec::new(); n];
        // `seen[t] == b + 1` marks t as already a successor of b: duplicate
        // removal in linear time even for a switch with 100k targets.
        let mut seen = vec![0u32; n];
        for (b, list) in succ_lists.into_iter().enumerate() {
            let mut out: Vec<BlockId> = Vec::with_capacity(list.len());
            for t in list {
                assert!((t as usize) < n, "successor {t} of block {b} out of range");
                if seen[t as usize] != b as u32 + 1 {
                    seen[t as usize] = b as u32 + 1;
                    out.push(BlockId(t));
                    preds[t as usize].push(BlockId(b as u32));
                }
            }
            succs.push(out);
        }
        let rpo = if n == 0 { Vec::new() } else { reverse_post_order(&succs, BlockId(0)) };
        let mut rpo_index = vec![u32::MAX; n];
        for (i, b) in rpo.iter().enumerate() {
            rpo_index[b.index()] = i as u32;
        }
        Cfg { succs, preds, rpo, rpo_index }
    }

    pub fn len(&self) -> usize {
        self.succs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.succs.is_empty()
    }

    pub fn entry(&self) -> BlockId {
        BlockId(0)
    }

    pub fn blocks(&self) -> impl ExactSizeIterator<Item = BlockId> + DoubleEndedIterator {
        (0..self.succs.len() as u32).map(BlockId)
    }

    pub fn succs(&self, b: BlockId) -> &[BlockId] {
        &self.succs[b.index()]
    }

    pub fn preds(&self, b: BlockId) -> &[BlockId] {
        &self.preds[b.index()]
    }

    pub fn rpo(&self) -> &[BlockId] {
        &self.rpo
    }

    pub fn is_reachable(&self, b: BlockId) -> bool {
        self.rpo_index[b.index()] != u32::MAX
    }

    /// Position in reverse post-order, `None` for unreachable blocks.
    pub fn rpo_position(&self, b: BlockId) -> Option<usize> {
        let i = self.rpo_index[b.index()];
        (i != u32::MAX).then_some(i as usize)
    }

    /// Blocks with no successors: returns, `unreachable`, and the like.
    pub fn exits(&self) -> impl Iterator<Item = BlockId> + '_ {
        self.blocks().filter(|&b| self.succs(b).is_empty())
    }

    /// The successor lists as plain numbers, for building derived graphs.
    pub fn successor_lists(&self) -> Vec<Vec<u32>> {
        self.succs.iter().map(|l| l.iter().map(|b| b.0).collect()).collect()
    }
}

/// Iterative depth-first search: recursion would overflow on 100k-block chains.
fn reverse_post_order(succs: &[Vec<BlockId>], root: BlockId) -> Vec<BlockId> {
    let mut visited = vec![false; succs.len()];
    let mut post = Vec::with_capacity(succs.len());
    let mut stack: Vec<(BlockId, usize)> = vec![(root, 0)];
    visited[root.index()] = true;
    while let Some(&mut (b, ref mut next)) = stack.last_mut() {
        if let Some(&s) = succs[b.index()].get(*next) {
            *next += 1;
            if !visited[s.index()] {
                visited[s.index()] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
            stack.pop();
        }
    }
    post.reverse();
    post
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rpo_skips_unreachable_and_dedups_edges() {
        // 0 -> 1 -> 3, 0 -> 2 -> 3, 4 unreachable; 0 lists 1 twice.
        let cfg = Cfg::from_successors(vec![vec![1, 2, 1], vec![3], vec![3], vec![], vec![3]]);
        assert_eq!(cfg.succs(BlockId(0)), &[BlockId(1), BlockId(2)]);
        assert_eq!(cfg.preds(BlockId(3)), &[BlockId(1), BlockId(2), BlockId(4)]);
        assert_eq!(cfg.rpo(), &[BlockId(0), BlockId(2), BlockId(1), BlockId(3)]);
        assert!(!cfg.is_reachable(BlockId(4)));
        assert_eq!(cfg.exits().collect::<Vec<_>>(), vec![BlockId(3)]);
    }
}
