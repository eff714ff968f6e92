//! Convergence points: the blocks where threads that went different ways
//! should be re-grouped (seed 000, ARM CN106257412A, "determining branch
//! convergence in a sequence of program instructions").
//!
//! # The patent's walk
//!
//! A queue of *path items* (each the blocks from the entry to a block waiting
//! to run), kept in program-counter order of each item's last block. Start
//! with the entry; pop the front item P and, for every successor S of P's last
//! block:
//!
//! 1. S already in P: a loop. Every exit block of the loop (a block of the
//!    loop with an edge leaving it) gets a marker; nothing is queued (claims 7-8).
//! 2. S already waiting in another item Q: merge P+S into Q, mark S (claim 6).
//! 3. Otherwise queue P+S in PC order; mark S when it does not land at the
//!    front, since threads on an earlier path will run first and may catch up
//!    (claims 3-4).
//!
//! Figures 3-4 (block ids are layout positions, BB0 entered from outside):
//!
//! ```text
//!        entry                    pop  queue after            marks
//!          |                      E    [E0]
//!   +---> BB0 ------+             E0   [E01, E05]             BB5 (behind)
//!   |      |        |             E01  [E012, E013, E05]      BB3 (behind)
//!   |     BB1       |             E012 [E013, E0124, E05]     BB4 (behind)
//!   |    /   \      |             E013 [E01{2,3}4, E0{13,}5]  BB4, BB5 (merge)
//!   |  BB2   BB3 ---+             E..4 [E0{13,}5]             BB0, BB3 (loop exits)
//!   |    \   /      |             E..5 []
//!   +--- BB4       BB5 -> exit
//! ```
//!
//! Markers at BB0, BB3, BB4, BB5. The immediate post-dominator of BB1 is BB5,
//! so IPDOM reconvergence would never re-unite the threads at BB4; the walk does.
//!
//! # Items without paths
//!
//! Storing paths explodes (a chain of k diamonds has 2^k paths), and merged
//! items are sets of paths. Here an item is just its last block, and each block
//! is in one of three states: never reached, waiting in the queue, or popped.
//! That is all the rules ask for:
//!
//! - Rule 2 merges every item that reaches a waiting block, so at most one item
//!   waits at a block, and "S in another queued item" is "S is waiting". (Read
//!   literally, S could also sit in the *middle* of Q's paths; Q then has already
//!   passed S, which is the re-reached case below, not a merge.)
//! - "S in P" asks whether P's paths pass S. P's paths only follow edges the
//!   walk took, and those never close a cycle, so S in P means the edge
//!   b -> S closes one. For a natural loop that is the back edge to its header
//!   (S dominates b), answered by the loop nest; for an irreducible cycle, an
//!   edge between two blocks of the cycle whose target was popped before.
//!
//! On a layout where every edge that is not a back edge goes forward (as
//! structured code is emitted), blocks pop in increasing PC order, every
//! block's predecessors pop before it, and this walk takes exactly the patent's
//! steps; `tests/convergence_props.rs` checks that against a literal
//! implementation with explicit path sets.
//!
//! # Where the walk as written falls short of claim 1, and what is done
//!
//! Claim 1 is the contract: *every block that more than one execution path
//! leads to, and every exit block of every loop, carries a marker*. Two paths
//! that first meet at a block arrive over different edges; paths that share
//! their last edge met earlier, at a block that is itself marked. So "more than
//! one path leads to B" means B has two or more incoming edges from reachable
//! blocks, the function's entry counting as one for the entry block. (Counting
//! whole paths instead would mark every block after the first join.) A loop is
//! a cycle of the loop nest: a natural loop, or an irreducible cycle of
//! `loops.rs` (strongly connected components, nested by removing their
//! entries); its exit blocks are its blocks with an edge leaving it.
//!
//! - **A path reaches a block whose item was already popped** (it ran early
//!   because of the layout, or it is a loop header reached through a second
//!   entering edge). Read literally, the walk queues the block again; if it
//!   lands at the front it gets no marker although two edges lead to it, and
//!   everything after it is walked again, once per such path: exponential
//!   time. Here the block is marked (`revisit`) and not queued again: its
//!   successors were already walked, and a second walk could only repeat the
//!   marks of rules 2-3 (every block with two incoming edges is marked anyway)
//!   or find loops, whose exits are marked as described next.
//! - **Loop headers.** The walk marks a loop's exit blocks but not its header,
//!   although the header is reached from outside and from the back edge (a
//!   `do { } while` loop whose only exit is at the latch leaves the header
//!   unmarked). The target of an edge that closes a cycle is marked
//!   (`back-edge`).
//! - **Which loop.** A cycle's exit blocks are those with an edge leaving *the
//!   loop*, taken from the loop nest (natural loops, and the irreducible cycles
//!   of `loops.rs`, entered at several blocks), each loop's exits marked once.
//!   Taking the literal loop *path* instead (one per back edge) would also mark
//!   blocks branching to another part of the same loop (a `continue`), and
//!   cost one walk of the loop per back edge. In figure 3 the two agree.
//! - **Irreducible cycles** have no header that dominates them and the walk may
//!   enter them anywhere. An edge from a block of an irreducible cycle to a
//!   popped block of the same cycle marks the exits of every irreducible cycle
//!   containing both, and where those exits lead (`exit-target`, as for
//!   natural loops: threads that leave in different iterations meet there).
//!   Every irreducible cycle has such an edge: into the first of its blocks
//!   to be popped, from another block of it.
//! - **Switches.** A switch's targets are one edge each however many cases lead
//!   there (`Cfg` drops duplicates), so a target is not "merged" with itself.
//!   Successors are queued in PC order, so the one target not marked as
//!   `behind` is the one that runs next, whatever the order of the cases.
//! - **Several returns** end their items; no exit is shared and nothing is
//!   marked for them. Unreachable blocks are never queued and never marked.
//!
//! With these, every block with two incoming edges is marked (the first edge
//! queues it, every later one finds it waiting or popped) and every loop has
//! its exits marked, which is claim 1; `tests/convergence_props.rs` checks it
//! against brute force on random graphs.
//!
//! # Termination and cost
//!
//! A block is queued only from the never-reached state, so it is popped at most
//! once, and each edge is looked at once, when its source is popped. The queue
//! is a binary heap of block numbers: O((blocks + edges) log blocks) for the
//! walk, plus each loop's exit list once. 100k-block functions take a few ms.
//!
//! # Only where threads can diverge
//!
//! [`Convergence::divergent_only`] keeps the markers where threads can actually
//! be apart: the join blocks of divergent branches (sync dependence, from the
//! uniformity analysis) and the exits and exit targets of loops whose exits are
//! divergent (and of irreducible cycles containing a divergent branch). Markers of the walk's
//! scheduling rule 3 (`behind`) at blocks that are not joins are dropped: the
//! threads that waited there resume at the next join, which keeps its marker.

use crate::analysis::loops::LoopInfo;
use crate::analysis::uniformity::Uniformity;
use crate::cfg::{BlockId, Cfg};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Why a block carries a marker; a block can have several reasons.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Reasons(u8);

impl Reasons {
    pub const NONE: Reasons = Reasons(0);
    /// Rule 3: queued behind an item that runs first (claim 4).
    pub const BEHIND: Reasons = Reasons(1);
    /// Rule 2: reached by a second item while one waited there (claim 6).
    pub const MERGE: Reasons = Reasons(2);
    /// Rule 1: a block of a loop with an edge leaving it (claim 8).
    pub const LOOP_EXIT: Reasons = Reasons(4);
    /// Target of an edge that closes a cycle (completion of claim 1).
    pub const BACK_EDGE: Reasons = Reasons(8);
    /// Reached again after its item left the queue (completion of claim 1).
    pub const REVISIT: Reasons = Reasons(16);
    /// Where a loop's exiting edge leads: threads that leave the loop in
    /// different iterations meet there, a point the executor must check even
    /// when only one edge enters it.
    pub const EXIT_TARGET: Reasons = Reasons(32);

    /// Every reason but [`BEHIND`](Self::BEHIND): see [`Convergence::check_points`].
    pub const CHECKED: Reasons =
        Reasons(Reasons::MERGE.0 | Reasons::LOOP_EXIT.0 | Reasons::BACK_EDGE.0 | Reasons::REVISIT.0 | Reasons::EXIT_TARGET.0);

    const NAMES: [(Reasons, &'static str); 6] = [
        (Reasons::BEHIND, "behind"),
        (Reasons::MERGE, "merge"),
        (Reasons::LOOP_EXIT, "loop-exit"),
        (Reasons::BACK_EDGE, "back-edge"),
        (Reasons::REVISIT, "revisit"),
        (Reasons::EXIT_TARGET, "exit-target"),
    ];

    pub fn contains(self, other: Reasons) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether the two share a reason.
    pub fn intersects(self, other: Reasons) -> bool {
        self.0 & other.0 != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The reasons' names, in a fixed order (`behind`, `merge`, ...).
    pub fn names(self) -> Vec<&'static str> {
        Reasons::NAMES.iter().filter(|(r, _)| self.contains(*r)).map(|(_, n)| *n).collect()
    }
}

impl std::ops::BitOr for Reasons {
    type Output = Reasons;
    fn bitor(self, o: Reasons) -> Reasons {
        Reasons(self.0 | o.0)
    }
}

impl std::ops::BitOrAssign for Reasons {
    fn bitor_assign(&mut self, o: Reasons) {
        self.0 |= o.0;
    }
}

/// What the uniformity analysis says about one function, as plain data.
#[derive(Clone, Copy, Debug, Default)]
pub struct DivergenceFacts<'a> {
    /// Blocks where paths from a divergent branch meet (sorted).
    pub joins: &'a [BlockId],
    /// Headers of loops that threads can leave in different iterations (sorted).
    pub divergent_loop_headers: &'a [BlockId],
    /// Blocks ending in a divergent branch (sorted).
    pub divergent_branches: &'a [BlockId],
}

impl<'a> DivergenceFacts<'a> {
    pub fn of(u: &'a Uniformity) -> DivergenceFacts<'a> {
        DivergenceFacts {
            joins: u.join_blocks(),
            divergent_loop_headers: u.divergent_loop_headers(),
            divergent_branches: u.divergent_branches(),
        }
    }
}

/// The marked blocks of one function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Convergence {
    reasons: Vec<Reasons>,
    marked: Vec<BlockId>,
    walk: Vec<BlockId>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Unseen,
    Queued,
    Popped,
}

impl Convergence {
    /// Runs the queue walk over `cfg` (layout order = PC order), with `li`
    /// computed on the same graph.
    pub fn compute(cfg: &Cfg, li: &LoopInfo) -> Convergence {
        let n = cfg.len();
        let mut reasons = vec![Reasons::NONE; n];
        let mut walk = Vec::new();
        if n == 0 {
            return Convergence { reasons, marked: Vec::new(), walk };
        }
        let cycles = IrreducibleNest::new(li, n);
        let mut loop_fired = vec![false; li.loops().count()];
        let mut cycle_fired = vec![false; cycles.blocks.len()];
        let mut state = vec![State::Unseen; n];
        let mut queue: BinaryHeap<Reverse<BlockId>> = BinaryHeap::new();
        queue.push(Reverse(cfg.entry()));
        state[cfg.entry().index()] = State::Queued;
        let mut succs: Vec<BlockId> = Vec::new();

        while let Some(Reverse(b)) = queue.pop() {
            state[b.index()] = State::Popped;
            walk.push(b);
            succs.clear();
            succs.extend_from_slice(cfg.succs(b));
            succs.sort_unstable();
            for &s in &succs {
                match state[s.index()] {
                    State::Unseen => {
                        let front = queue.peek().is_none_or(|Reverse(first)| s < *first);
                        queue.push(Reverse(s));
                        state[s.index()] = State::Queued;
                        if !front {
                            reasons[s.index()] |= Reasons::BEHIND;
                        }
                    }
                    State::Queued => reasons[s.index()] |= Reasons::MERGE,
                    State::Popped => {
                        let mut closes_cycle = false;
                        if let Some(l) = li.innermost(s).filter(|&l| li.get(l).header == s && li.contains(l, b)) {
                            closes_cycle = true;
                            if !std::mem::replace(&mut loop_fired[l.0 as usize], true) {
                                for &e in &li.get(l).exiting {
                                    reasons[e.index()] |= Reasons::LOOP_EXIT;
                                }
                                for &t in &li.get(l).exits {
                                    reasons[t.index()] |= Reasons::EXIT_TARGET;
                                }
                            }
                        }
                        let mut c = cycles.lowest_common(b, s);
                        while let Some(id) = c {
                            closes_cycle = true;
                            if std::mem::replace(&mut cycle_fired[id], true) {
                                break; // its enclosing cycles were fired with it
                            }
                            for e in cycles.exiting(cfg, id) {
                                reasons[e.index()] |= Reasons::LOOP_EXIT;
                            }
                            for t in cycles.exits(cfg, id) {
                                reasons[t.index()] |= Reasons::EXIT_TARGET;
                            }
                            c = cycles.parent[id];
                        }
                        reasons[s.index()] |= if closes_cycle { Reasons::BACK_EDGE } else { Reasons::REVISIT };
                    }
                }
            }
        }
        let marked = cfg.blocks().filter(|b| !reasons[b.index()].is_empty()).collect();
        Convergence { reasons, marked, walk }
    }

    /// The marked blocks, in layout order.
    pub fn marked(&self) -> &[BlockId] {
        &self.marked
    }

    pub fn is_marked(&self, b: BlockId) -> bool {
        !self.reasons[b.index()].is_empty()
    }

    pub fn reasons(&self, b: BlockId) -> Reasons {
        self.reasons[b.index()]
    }

    /// The marked blocks where paths meet or a loop is left: every mark but
    /// those only of the walk's scheduling rule 3 (`behind`), which orders
    /// paths rather than joining them. These are where an executor running
    /// IR without markers re-groups threads (the emulator's `markers`
    /// policy): joins, cycle headers, loops' exiting blocks and exit targets.
    pub fn check_points(&self) -> impl Iterator<Item = BlockId> + '_ {
        self.marked.iter().copied().filter(|b| self.reasons[b.index()].intersects(Reasons::CHECKED))
    }

    /// The blocks in the order the walk popped them (each reachable block once).
    pub fn walk(&self) -> &[BlockId] {
        &self.walk
    }

    /// The marked blocks where threads can actually be apart (see the module
    /// documentation), in layout order.
    pub fn divergent_only(&self, cfg: &Cfg, li: &LoopInfo, d: &DivergenceFacts<'_>) -> Vec<BlockId> {
        let mut keep = vec![false; self.reasons.len()];
        for &j in d.joins {
            keep[j.index()] = true;
        }
        for (_, l) in li.loops() {
            if d.divergent_loop_headers.binary_search(&l.header).is_ok() {
                for &e in l.exiting.iter().chain(&l.exits) {
                    keep[e.index()] = true;
                }
            }
        }
        let cycles = IrreducibleNest::new(li, cfg.len());
        for id in 0..cycles.blocks.len() {
            if cycles.blocks[id].iter().any(|b| d.divergent_branches.binary_search(b).is_ok()) {
                for e in cycles.exiting(cfg, id).chain(cycles.exits(cfg, id)) {
                    keep[e.index()] = true;
                }
            }
        }
        self.marked.iter().copied().filter(|b| keep[b.index()]).collect()
    }
}

/// The irreducible cycles of a [`LoopInfo`] as a forest: they are nested or
/// disjoint, so sorting by size puts every cycle after the ones around it.
struct IrreducibleNest {
    blocks: Vec<Vec<BlockId>>,
    parent: Vec<Option<usize>>,
    /// Smallest cycle containing each block.
    innermost: Vec<Option<usize>>,
}

impl IrreducibleNest {
    fn new(li: &LoopInfo, n: usize) -> IrreducibleNest {
        let mut order: Vec<&[BlockId]> = li.irreducible_cycles().iter().map(|c| c.blocks.as_slice()).collect();
        order.sort_by_key(|b| Reverse(b.len()));
        let mut innermost = vec![None; n];
        let mut parent = Vec::with_capacity(order.len());
        for (id, blocks) in order.iter().enumerate() {
            parent.push(innermost[blocks[0].index()]);
            for b in blocks.iter() {
                innermost[b.index()] = Some(id);
            }
        }
        IrreducibleNest { blocks: order.into_iter().map(<[BlockId]>::to_vec).collect(), parent, innermost }
    }

    fn contains(&self, id: usize, b: BlockId) -> bool {
        self.blocks[id].binary_search(&b).is_ok()
    }

    /// The smallest irreducible cycle containing both blocks.
    fn lowest_common(&self, a: BlockId, b: BlockId) -> Option<usize> {
        let mut c = self.innermost[a.index()];
        while let Some(id) = c {
            if self.contains(id, b) {
                return Some(id);
            }
            c = self.parent[id];
        }
        None
    }

    /// Blocks of cycle `id` with an edge leaving it.
    fn exiting<'a>(&'a self, cfg: &'a Cfg, id: usize) -> impl Iterator<Item = BlockId> + 'a {
        self.blocks[id].iter().copied().filter(move |&b| cfg.succs(b).iter().any(|&s| !self.contains(id, s)))
    }

    /// Blocks outside cycle `id` that an edge leaving it leads to (a block
    /// reached by several such edges comes once per edge).
    fn exits<'a>(&'a self, cfg: &'a Cfg, id: usize) -> impl Iterator<Item = BlockId> + 'a {
        self.blocks[id].iter().flat_map(move |&b| cfg.succs(b).iter().copied().filter(move |&s| !self.contains(id, s)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::dominators::DomTree;

    fn run(succs: Vec<Vec<u32>>) -> (Cfg, LoopInfo, Convergence) {
        let cfg = Cfg::from_successors(succs);
        let li = LoopInfo::compute(&cfg, &DomTree::dominators(&cfg));
        let c = Convergence::compute(&cfg, &li);
        (cfg, li, c)
    }

    fn ids(v: &[BlockId]) -> Vec<u32> {
        v.iter().map(|b| b.0).collect()
    }

    /// Figures 3-4 exactly: BB0..BB5 with BB0 the entry.
    #[test]
    fn patent_figure_3() {
        let (_, _, c) = run(vec![vec![1, 5], vec![2, 3], vec![4], vec![4, 5], vec![0], vec![]]);
        assert_eq!(ids(c.marked()), vec![0, 3, 4, 5]);
        assert_eq!(ids(c.walk()), vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(c.reasons(BlockId(0)), Reasons::LOOP_EXIT | Reasons::BACK_EDGE);
        assert_eq!(c.reasons(BlockId(3)), Reasons::BEHIND | Reasons::LOOP_EXIT);
        assert_eq!(c.reasons(BlockId(4)), Reasons::BEHIND | Reasons::MERGE);
        // BB5 is also where threads that left the loop in different
        // iterations meet (the loop's exit target).
        assert_eq!(c.reasons(BlockId(5)), Reasons::BEHIND | Reasons::MERGE | Reasons::EXIT_TARGET);
        // With an entry block in front (as in IR, where the entry has no
        // predecessors), the same blocks shifted by one.
        let (_, _, c) = run(vec![vec![1], vec![2, 6], vec![3, 4], vec![5], vec![5, 6], vec![1], vec![]]);
        assert_eq!(ids(c.marked()), vec![1, 4, 5, 6]);
    }

    #[test]
    fn diamond_marks_the_later_side_and_the_join() {
        let (_, _, c) = run(vec![vec![1, 2], vec![3], vec![3], vec![]]);
        assert_eq!(ids(c.marked()), vec![2, 3]);
        assert_eq!(c.reasons(BlockId(2)), Reasons::BEHIND);
        // The later side only waits its turn: no check point; the join is.
        assert_eq!(ids(&c.check_points().collect::<Vec<_>>()), vec![3]);
    }

    #[test]
    fn successors_are_queued_in_pc_order_whatever_the_case_order() {
        // A switch listing its targets backwards: only the first in PC order
        // runs at once; the others are marked, and the shared exit merges.
        let (_, _, c) = run(vec![vec![4, 3, 2, 1], vec![5], vec![5], vec![5], vec![5], vec![]]);
        assert_eq!(ids(c.marked()), vec![2, 3, 4, 5]);
    }

    #[test]
    fn do_while_header_is_marked_although_the_walk_would_not() {
        // entry -> h -> b -> {h, x}: h has two incoming edges.
        let (_, _, c) = run(vec![vec![1], vec![2], vec![1, 3], vec![]]);
        assert_eq!(c.reasons(BlockId(1)), Reasons::BACK_EDGE);
        assert_eq!(c.reasons(BlockId(2)), Reasons::LOOP_EXIT);
        // x: threads leaving in different iterations meet there.
        assert_eq!(c.reasons(BlockId(3)), Reasons::EXIT_TARGET);
        assert_eq!(ids(c.marked()), vec![1, 2, 3]);
    }

    #[test]
    fn block_reached_after_its_item_was_popped() {
        // 0 -> {1, 2}, 2 -> 1: block 1 runs before 2 reaches it.
        let (_, _, c) = run(vec![vec![1, 2], vec![3], vec![1], vec![]]);
        assert_eq!(c.reasons(BlockId(1)), Reasons::REVISIT);
        assert_eq!(ids(c.walk()), vec![0, 1, 2, 3]);
    }

    #[test]
    fn irreducible_cycle_exits() {
        // 0 -> {1, 2}; 1 <-> 2; 2 -> 3.
        let (_, li, c) = run(vec![vec![1, 2], vec![2], vec![1, 3], vec![]]);
        assert!(!li.is_reducible());
        assert!(c.reasons(BlockId(2)).contains(Reasons::LOOP_EXIT));
        assert!(c.reasons(BlockId(1)).contains(Reasons::BACK_EDGE));
        // 3, entered by one edge: threads leave the cycle in different
        // iterations and meet there, as after a natural loop.
        assert_eq!(c.reasons(BlockId(3)), Reasons::EXIT_TARGET);
        assert_eq!(ids(c.marked()), vec![1, 2, 3]);
        // Nothing there is marked only for scheduling: all are check points.
        assert_eq!(c.check_points().collect::<Vec<_>>(), c.marked());
    }

    #[test]
    fn unreachable_blocks_are_not_walked() {
        let (_, _, c) = run(vec![vec![2], vec![2], vec![]]);
        assert_eq!(ids(c.walk()), vec![0, 2]);
        assert!(c.marked().is_empty());
    }

    #[test]
    fn divergent_only_keeps_joins_and_divergent_loop_exits() {
        let (cfg, li, c) = run(vec![vec![1, 5], vec![2, 3], vec![4], vec![4, 5], vec![0], vec![]]);
        let facts = DivergenceFacts { joins: &[BlockId(4)], divergent_loop_headers: &[], divergent_branches: &[BlockId(1)] };
        assert_eq!(ids(&c.divergent_only(&cfg, &li, &facts)), vec![4]);
        let facts = DivergenceFacts { joins: &[BlockId(4), BlockId(5)], divergent_loop_headers: &[BlockId(0)], divergent_branches: &[] };
        assert_eq!(ids(&c.divergent_only(&cfg, &li, &facts)), vec![0, 3, 4, 5]);
    }
}
