//! Strongly connected components of a region of the CFG, the step both cycle
//! decompositions repeat at every nesting level (`cycles.rs`: LLVM's, edges
//! into the header removed; `loops.rs`: Havlak's, entries removed).
//!
//! SCCs come from petgraph's Kosaraju, which is iterative: Tarjan's is
//! recursive and overflows the stack on 100k-block functions. The scratch
//! arrays are indexed by block and reset after use, so a level costs only its
//! own size and a whole decomposition O(blocks × nesting depth).

use crate::cfg::{BlockId, Cfg};
use petgraph::algo::kosaraju_scc;
use petgraph::graph::{DiGraph, NodeIndex};

/// Per-block scratch space shared by the calls of one decomposition.
pub struct Scratch {
    local: Vec<u32>,
    member: Vec<bool>,
}

impl Scratch {
    pub fn new(cfg: &Cfg) -> Scratch {
        Scratch { local: vec![u32::MAX; cfg.len()], member: vec![false; cfg.len()] }
    }

    /// The components of the subgraph induced by `region`, without the edges
    /// into `removed`, that contain a cycle (several blocks, or one with a
    /// kept edge to itself); each in layout order.
    pub fn cyclic_sccs(&mut self, cfg: &Cfg, region: &[BlockId], removed: Option<BlockId>) -> Vec<Vec<BlockId>> {
        for (i, &b) in region.iter().enumerate() {
            self.local[b.index()] = i as u32;
        }
        let mut g: DiGraph<(), ()> = DiGraph::with_capacity(region.len(), 0);
        for _ in region {
            g.add_node(());
        }
        for &b in region {
            for &s in cfg.succs(b) {
                if self.local[s.index()] != u32::MAX && Some(s) != removed {
                    g.add_edge(NodeIndex::new(self.local[b.index()] as usize), NodeIndex::new(self.local[s.index()] as usize), ());
                }
            }
        }
        for &b in region {
            self.local[b.index()] = u32::MAX;
        }
        kosaraju_scc(&g)
            .into_iter()
            .filter_map(|scc| {
                let mut blocks: Vec<BlockId> = scc.iter().map(|v| region[v.index()]).collect();
                let b0 = blocks[0];
                let cyclic = blocks.len() > 1 || (cfg.succs(b0).contains(&b0) && Some(b0) != removed);
                blocks.sort();
                cyclic.then_some(blocks)
            })
            .collect()
    }

    /// The blocks of `blocks` (a component) with a reachable predecessor
    /// outside it, or that are the function's entry.
    pub fn entries(&mut self, cfg: &Cfg, blocks: &[BlockId]) -> Vec<BlockId> {
        self.with_members(blocks, |member| {
            blocks
                .iter()
                .copied()
                .filter(|&b| b == cfg.entry() || cfg.preds(b).iter().any(|p| cfg.is_reachable(*p) && !member[p.index()]))
                .collect()
        })
    }

    /// The blocks outside `blocks` that an edge from inside leads to, in
    /// layout order.
    pub fn exits(&mut self, cfg: &Cfg, blocks: &[BlockId]) -> Vec<BlockId> {
        let mut exits: Vec<BlockId> = self.with_members(blocks, |member| {
            blocks.iter().flat_map(|&b| cfg.succs(b).iter().copied()).filter(|s| !member[s.index()]).collect()
        });
        exits.sort();
        exits.dedup();
        exits
    }

    /// Runs `f` with `member[b]` true exactly for the blocks of `blocks`.
    fn with_members<T>(&mut self, blocks: &[BlockId], f: impl FnOnce(&[bool]) -> T) -> T {
        for &b in blocks {
            self.member[b.index()] = true;
        }
        let out = f(&self.member);
        for &b in blocks {
            self.member[b.index()] = false;
        }
        out
    }
}
