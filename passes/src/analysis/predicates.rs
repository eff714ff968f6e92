//! Predicates of if-conversion: Park & Schlansker's RK algorithm ("On
//! Predicated Execution", HPL-91-58, 1991), as seed 004 describes it
//! (`/work/shared/seeds/004-notes.md` §2).
//!
//! Steps 1 and 2 (immediate post-dominators, control dependence with edge
//! labels) are `post_dominators.rs` and `control_deps.rs`; this file is steps
//! 3 and 4:
//!
//! - **R and K.** Blocks with the same set of control dependences share one
//!   predicate (property 2); every block has exactly one (property 1).
//!   `R(x)` is block x's predicate, `K(p)` the CFG edges whose taking defines
//!   p. Blocks that depend on nothing get [`PredId::TRUE`], which is never
//!   defined nor initialised (the notes' START-node remark).
//! - **Augment K.** A predicate that the linearised code may read before any
//!   define has written it is set to false at the start. Liveness is run on
//!   the *linearised* code (the notes' interpretation B), where a define is
//!   itself guarded: `(R(x)) p = cond` writes p only when x runs, so it kills
//!   p only when `R(x)` is TRUE; a predicate with several defines is an OR
//!   (`p |= R(x) ∧ cond`) that reads p and so never kills it. On the original
//!   CFG (interpretation A) the blog's nested `if` would need no
//!   initialisation, yet the blog initialises p2 and p3 to false: B is the
//!   reading that reproduces it.
//!
//! Over a region (a loop body, an if-converted subgraph) the same
//! construction runs on the control dependences whose deciding block lies in
//! the region ([`Predicates::for_region`]): inside a single-entry
//! single-exit region, post-dominance, and with it control dependence between
//! the region's blocks, is the same in the region as in the function.

use crate::analysis::control_deps::{ControlDeps, ControlEdge};
use crate::cfg::{BlockId, Cfg};
use std::collections::HashMap;
use std::fmt;

/// A predicate register; `TRUE` guards blocks that always run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PredId(pub u32);

impl PredId {
    pub const TRUE: PredId = PredId(0);

    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for PredId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "p{}", self.0)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Predicates {
    /// `R(x)` per block of the scope (a map: a region's predicates cost
    /// its size, not the function's).
    r: HashMap<BlockId, PredId>,
    /// `K(p)` per predicate, sorted; `k[0]` (TRUE) is empty.
    k: Vec<Vec<ControlEdge>>,
    /// The linearised order the predicates were computed for.
    order: Vec<BlockId>,
    /// Augment K: predicates set to false at the start, in increasing order.
    init_false: Vec<PredId>,
}

impl Predicates {
    /// Over the whole function, linearised in reverse post-order (a
    /// topological order when the function has no loops).
    pub fn compute(cfg: &Cfg, cd: &ControlDeps) -> Predicates {
        Predicates::for_region(cd, cfg.rpo(), |_| true)
    }

    /// Over `order` (the region's blocks, in the order the linearised code
    /// runs them), counting only the control dependences on edges for which
    /// `decides` holds (those out of the region's blocks).
    pub fn for_region(cd: &ControlDeps, order: &[BlockId], decides: impl Fn(ControlEdge) -> bool) -> Predicates {
        let mut r = HashMap::new();
        let mut k: Vec<Vec<ControlEdge>> = vec![Vec::new()];
        let mut by_deps: HashMap<Vec<ControlEdge>, PredId> = HashMap::new();
        by_deps.insert(Vec::new(), PredId::TRUE);
        // Numbered in layout order of the first block they guard, so names
        // follow the source as the blog's p1, p2, … do.
        let mut by_layout = order.to_vec();
        by_layout.sort();
        for &b in &by_layout {
            let deps: Vec<ControlEdge> = cd.of(b).iter().copied().filter(|&e| decides(e)).collect();
            let p = *by_deps.entry(deps.clone()).or_insert_with(|| {
                k.push(deps);
                PredId(k.len() as u32 - 1)
            });
            r.insert(b, p);
        }
        let init_false = augment_k(&r, &k, order);
        Predicates { r, k, order: order.to_vec(), init_false }
    }

    /// `R(b)`: the predicate guarding block `b`.
    pub fn r(&self, b: BlockId) -> PredId {
        self.r[&b]
    }

    /// `R(b)`, or `None` for a block outside the scope.
    pub fn try_r(&self, b: BlockId) -> Option<PredId> {
        self.r.get(&b).copied()
    }

    /// `K(p)`: the edges whose taking defines `p`.
    pub fn k(&self, p: PredId) -> &[ControlEdge] {
        &self.k[p.index()]
    }

    /// Every predicate, TRUE first.
    pub fn predicates(&self) -> impl Iterator<Item = PredId> {
        (0..self.k.len() as u32).map(PredId)
    }

    pub fn order(&self) -> &[BlockId] {
        &self.order
    }

    /// Augment K: the predicates initialised to false at the start.
    pub fn init_false(&self) -> &[PredId] {
        &self.init_false
    }

    /// The predicates block `b` defines: those with an edge out of `b` in K.
    pub fn defined_in(&self, b: BlockId) -> impl Iterator<Item = PredId> + '_ {
        self.predicates().filter(move |&p| self.k(p).iter().any(|e| e.from == b))
    }
}

/// Backward liveness over the linearised code (one straight line, so one
/// sweep): use = the guard `R(x)` read by every instruction of x, and the
/// predicate itself for an OR define; kill = a define that always writes.
fn augment_k(r: &HashMap<BlockId, PredId>, k: &[Vec<ControlEdge>], order: &[BlockId]) -> Vec<PredId> {
    let mut defines: HashMap<BlockId, Vec<PredId>> = HashMap::new();
    for (p, edges) in k.iter().enumerate() {
        for e in edges {
            let d = defines.entry(e.from).or_default();
            if d.last() != Some(&PredId(p as u32)) {
                d.push(PredId(p as u32));
            }
        }
    }
    let mut live = vec![false; k.len()];
    for &x in order.iter().rev() {
        let Some(&guard) = r.get(&x) else { continue };
        for &p in defines.get(&x).map_or(&[][..], |d| &d[..]) {
            let or_define = k[p.index()].len() > 1;
            if or_define {
                live[p.index()] = true;
            } else if guard == PredId::TRUE {
                live[p.index()] = false;
            }
        }
        live[guard.index()] = true;
    }
    live[PredId::TRUE.index()] = false;
    (0..k.len() as u32).map(PredId).filter(|p| live[p.index()]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::post_dominators::PostDomTree;

    fn edge(from: u32, to: u32) -> ControlEdge {
        ControlEdge { from: BlockId(from), to: BlockId(to) }
    }

    fn rk(succs: Vec<Vec<u32>>) -> Predicates {
        let cfg = Cfg::from_successors(succs);
        let cd = ControlDeps::compute(&cfg, &PostDomTree::compute(&cfg));
        Predicates::compute(&cfg, &cd)
    }

    /// The notes' nested `if` (§4): B0 -> B1 | B4, B1 -> B2 | B3, B2, B3 -> B4.
    /// p2 and p3 are defined in B1, which is itself guarded by p1: they are
    /// initialised to false; p1's define in B0 always runs.
    #[test]
    fn nested_if_initialises_inner_predicates() {
        let p = rk(vec![vec![1, 4], vec![2, 3], vec![4], vec![4], vec![]]);
        let rs: Vec<u32> = (0..5).map(|b| p.r(BlockId(b)).0).collect();
        assert_eq!(rs, vec![0, 1, 2, 3, 0]);
        assert_eq!(p.k(PredId(1)), &[edge(0, 1)]);
        assert_eq!(p.k(PredId(2)), &[edge(1, 2)]);
        assert_eq!(p.k(PredId(3)), &[edge(1, 3)]);
        assert_eq!(p.init_false(), &[PredId(2), PredId(3)]);
    }

    /// `if (a || b) S`: S depends on two edges, so its predicate is an OR and
    /// starts false.
    #[test]
    fn or_predicate_starts_false() {
        // 0 -> 2 | 1, 1 -> 2 | 3, 2 -> 3
        let p = rk(vec![vec![2, 1], vec![2, 3], vec![3], vec![]]);
        let s = p.r(BlockId(2));
        assert_eq!(p.k(s), &[edge(0, 2), edge(1, 2)]);
        assert!(p.init_false().contains(&s));
    }
}
