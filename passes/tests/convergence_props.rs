//! Property tests for the convergence-point walk (seed 000, `analysis/convergence.rs`).
//!
//! - **Claim 1 against brute force.** On random graphs (irreducible cycles,
//!   unreachable blocks, several exits, switches, self loops) and on shuffled
//!   structured programs, every block with two or more incoming edges from
//!   reachable blocks (the entry counting the function's entry as one) and
//!   every exiting block of every cycle is marked. Cycles are the strongly
//!   connected components, found by mutual reachability, then recursively
//!   those of each component with its entry blocks removed. The oracle uses the
//!   raw successor lists only.
//! - **Check points** (the marks an executor checks without markers in the
//!   IR): every join, cycle exit and block an edge leaving a cycle leads to,
//!   against the same brute force; only marks of the scheduling rule alone
//!   are left out.
//! - **No marks from nowhere.** A mark that is not from the scheduling rule
//!   (`behind`) is at a join or at a block on a cycle with two successors.
//! - **Termination.** The walk pops every reachable block exactly once.
//! - **Faithful to the patent.** On structured programs laid out so that every
//!   edge but the back edges goes forward, a literal implementation of the
//!   patent's walk, with explicit path sets and merged items, makes the same
//!   pops and the same marks, apart from the loop headers the literal walk
//!   leaves unmarked.
//! - **Scale.** A generated 100k-block function is walked (time printed).

mod common;

use common::brute::{dedup, reach};
use common::config_with;
use common::programs::{build, lower_program, program, random_cfg, relabel, shuffled_structured, Stmt};
use proptest::prelude::*;
use simt_passes::analysis::convergence::{Convergence, Reasons};
use simt_passes::analysis::dominators::DomTree;
use simt_passes::analysis::loops::LoopInfo;
use simt_passes::cfg::{BlockId, Cfg};
use std::collections::BTreeSet;

struct Oracle {
    n: usize,
    succs: Vec<Vec<usize>>,
    reachable: Vec<bool>,
    /// Incoming edges from reachable blocks (+1 for the entry).
    incoming: Vec<usize>,
}

impl Oracle {
    fn new(raw: &[Vec<u32>]) -> Oracle {
        let succs = dedup(raw);
        let n = succs.len();
        let reachable = reach(&succs, 0, None, None);
        let mut incoming = vec![0; n];
        incoming[0] = 1;
        for b in (0..n).filter(|&b| reachable[b]) {
            for &s in &succs[b] {
                incoming[s] += 1;
            }
        }
        Oracle { n, succs, reachable, incoming }
    }

    fn joins(&self) -> BTreeSet<usize> {
        (0..self.n).filter(|&b| self.reachable[b] && self.incoming[b] >= 2).collect()
    }

    /// Every cycle of the nest: SCCs (with an edge inside) of the reachable
    /// blocks, then of each SCC minus its entries, recursively.
    fn cycles(&self) -> Vec<BTreeSet<usize>> {
        let mut out = Vec::new();
        let mut regions: Vec<BTreeSet<usize>> = vec![(0..self.n).filter(|&b| self.reachable[b]).collect()];
        while let Some(region) = regions.pop() {
            let r: Vec<(usize, Vec<bool>)> = region.iter().map(|&v| (v, reach(&self.succs, v, Some(&region), None))).collect();
            let mut done = BTreeSet::new();
            for (v, from_v) in &r {
                if done.contains(v) {
                    continue;
                }
                let comp: BTreeSet<usize> = r.iter().filter(|(w, from_w)| from_v[*w] && from_w[*v]).map(|(w, _)| *w).collect();
                done.extend(comp.iter().copied());
                let is_cycle = comp.len() > 1 || self.succs[*v].contains(v);
                if !is_cycle {
                    continue;
                }
                let entries: BTreeSet<usize> = comp
                    .iter()
                    .copied()
                    .filter(|&b| b == 0 || (0..self.n).any(|p| self.reachable[p] && !comp.contains(&p) && self.succs[p].contains(&b)))
                    .collect();
                let inner: BTreeSet<usize> = comp.difference(&entries).copied().collect();
                out.push(comp);
                if !inner.is_empty() {
                    regions.push(inner);
                }
            }
        }
        out
    }

    /// Blocks outside a cycle that an edge leaving it leads to.
    fn cycle_exit_targets(&self) -> BTreeSet<usize> {
        let mut out = BTreeSet::new();
        for c in self.cycles() {
            for &b in &c {
                out.extend(self.succs[b].iter().copied().filter(|s| !c.contains(s)));
            }
        }
        out
    }

    fn cycle_exits(&self) -> BTreeSet<usize> {
        let mut out = BTreeSet::new();
        for c in self.cycles() {
            for &b in &c {
                if self.succs[b].iter().any(|s| !c.contains(s)) {
                    out.insert(b);
                }
            }
        }
        out
    }

    /// Blocks on some cycle with two or more successors: the exiting blocks of
    /// all simple cycles, an upper bound for every notion of loop exit.
    fn on_cycle_branching(&self) -> BTreeSet<usize> {
        (0..self.n)
            .filter(|&b| {
                self.reachable[b] && self.succs[b].len() >= 2 && self.succs[b].iter().any(|&s| reach(&self.succs, s, None, None)[b])
            })
            .collect()
    }
}

fn analyse(raw: &[Vec<u32>]) -> (Cfg, LoopInfo, Convergence) {
    let cfg = Cfg::from_successors(raw.to_vec());
    let li = LoopInfo::compute(&cfg, &DomTree::dominators(&cfg));
    let conv = Convergence::compute(&cfg, &li);
    (cfg, li, conv)
}

fn set(v: &[BlockId]) -> BTreeSet<usize> {
    v.iter().map(|b| b.index()).collect()
}

type Check = Result<(), TestCaseError>;

fn check_contract(raw: &[Vec<u32>]) -> Check {
    let o = Oracle::new(raw);
    let (_, _, conv) = analyse(raw);
    let marked = set(conv.marked());

    // Termination: each reachable block popped exactly once.
    let mut walk: Vec<usize> = conv.walk().iter().map(|b| b.index()).collect();
    prop_assert_eq!(walk.first().copied(), Some(0), "the walk starts at the entry");
    walk.sort_unstable();
    let reachable: Vec<usize> = (0..o.n).filter(|&b| o.reachable[b]).collect();
    prop_assert_eq!(&walk, &reachable, "walk must pop each reachable block once");

    // Claim 1.
    let joins = o.joins();
    let exits = o.cycle_exits();
    for b in joins.iter().chain(exits.iter()) {
        prop_assert!(
            marked.contains(b),
            "block {} must be marked (join: {}, cycle exit: {}); marked {:?}",
            b,
            joins.contains(b),
            exits.contains(b),
            marked
        );
    }
    // Nothing unreachable, nothing unexplained.
    let branching = o.on_cycle_branching();
    // Exit targets: where an edge out of a cycle's branching block leads.
    let exit_targets: BTreeSet<usize> = branching.iter().flat_map(|&e| o.succs[e].iter().copied()).collect();
    for &b in &marked {
        prop_assert!(o.reachable[b], "unreachable block {} marked", b);
        let r = conv.reasons(BlockId(b as u32));
        prop_assert!(
            r.contains(Reasons::BEHIND)
                || joins.contains(&b)
                || branching.contains(&b)
                || (r.contains(Reasons::EXIT_TARGET) && exit_targets.contains(&b)),
            "block {} marked ({:?}) but neither behind, a join, a cycle exit nor an exit target",
            b,
            r.names()
        );
        if r.contains(Reasons::MERGE) || r.contains(Reasons::REVISIT) || r.contains(Reasons::BACK_EDGE) {
            prop_assert!(joins.contains(&b), "block {} marked {:?} with one incoming edge", b, r.names());
        }
        if r.contains(Reasons::LOOP_EXIT) {
            prop_assert!(branching.contains(&b), "loop exit {} is on no cycle with a choice", b);
        }
    }

    // Check points (where an executor without markers in the IR checks):
    // every join, cycle exit and cycle exit target; the marks left out are
    // those of the scheduling rule alone.
    let checks = set(&conv.check_points().collect::<Vec<_>>());
    let targets = o.cycle_exit_targets();
    for b in joins.iter().chain(&exits).chain(&targets) {
        prop_assert!(
            checks.contains(b),
            "block {} must be a check point (join: {}, cycle exit: {}, exit target: {}); checks {:?}",
            b,
            joins.contains(b),
            exits.contains(b),
            targets.contains(b),
            checks
        );
    }
    prop_assert!(checks.is_subset(&marked), "check points {:?} not within the marks {:?}", checks, marked);
    for &b in marked.difference(&checks) {
        prop_assert_eq!(conv.reasons(BlockId(b as u32)), Reasons::BEHIND, "block {} left out of the check points", b);
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// The patent's walk, literally: path items with their blocks, merged items.
// ---------------------------------------------------------------------------

struct Literal {
    marked: BTreeSet<usize>,
    pops: Vec<usize>,
    finished: bool,
}

/// Figure 5 with explicit path sets. A loop found at `b -> s` marks the exits
/// of the natural loop of `s` (computed here by brute force); `budget` bounds
/// the pops, since on bad layouts the literal walk is exponential.
fn literal_walk(raw: &[Vec<u32>], budget: usize) -> Literal {
    let o = Oracle::new(raw);
    let succs = &o.succs;
    let dominates = |a: usize, b: usize| a == b || !reach(succs, 0, None, Some(a))[b];
    struct Item {
        last: usize,
        blocks: BTreeSet<usize>,
    }
    let mut queue: Vec<Item> = vec![Item { last: 0, blocks: BTreeSet::from([0]) }];
    let mut marked = BTreeSet::new();
    let mut pops = Vec::new();
    while !queue.is_empty() {
        if pops.len() >= budget {
            return Literal { marked, pops, finished: false };
        }
        let p = queue.remove(0);
        pops.push(p.last);
        let mut ss = succs[p.last].clone();
        ss.sort_unstable();
        for s in ss {
            if p.blocks.contains(&s) {
                // A loop: the natural loop of s (all its latches), if s
                // dominates this latch. (The loop *path* of this latch alone
                // would also mark branches to other parts of the loop; see
                // "Which loop" in convergence.rs.)
                if dominates(s, p.last) {
                    let mut body = BTreeSet::from([s]);
                    let mut work: Vec<usize> = (0..o.n).filter(|&q| o.reachable[q] && succs[q].contains(&s) && dominates(s, q)).collect();
                    while let Some(x) = work.pop() {
                        if body.insert(x) {
                            work.extend((0..o.n).filter(|&q| o.reachable[q] && succs[q].contains(&x)));
                        }
                    }
                    for &x in &body {
                        if succs[x].iter().any(|t| !body.contains(t)) {
                            marked.insert(x);
                        }
                    }
                }
            } else if let Some(q) = queue.iter_mut().find(|q| q.last == s) {
                q.blocks.extend(p.blocks.iter().copied());
                marked.insert(s);
            } else {
                let mut blocks = p.blocks.clone();
                blocks.insert(s);
                let pos = queue.iter().position(|q| q.last > s).unwrap_or(queue.len());
                queue.insert(pos, Item { last: s, blocks });
                if pos != 0 {
                    marked.insert(s);
                }
            }
        }
    }
    Literal { marked, pops, finished: true }
}

fn check_faithful(raw: &[Vec<u32>]) -> Check {
    let (_, _, conv) = analyse(raw);
    let lit = literal_walk(raw, 10 * raw.len() + 10);
    prop_assert!(lit.finished, "the literal walk must be linear on a forward layout");
    let walk: Vec<usize> = conv.walk().iter().map(|b| b.index()).collect();
    prop_assert_eq!(&walk, &lit.pops, "same pops");
    let marked = set(conv.marked());
    prop_assert!(lit.marked.is_subset(&marked), "literal marks {:?} not within {:?}", lit.marked, marked);
    // Beyond the literal walk: cycle-closing targets (loop headers) and the
    // targets of loop exits, both completions documented in convergence.rs.
    for b in marked.difference(&lit.marked) {
        let r = conv.reasons(BlockId(*b as u32));
        prop_assert!(
            r.contains(Reasons::BACK_EDGE) || r.contains(Reasons::EXIT_TARGET),
            "extra mark at {} ({:?}) is neither a loop header nor a loop's exit target",
            b,
            r.names()
        );
        prop_assert!(!r.contains(Reasons::REVISIT), "no revisits on a forward layout");
    }
    Ok(())
}

/// A layout in which every edge that is not a back edge (to a dominator)
/// goes forward: reachable blocks in a random topological order of the forward
/// edges (`keys` break ties), then the unreachable ones.
fn forward_layout(succs: &[Vec<u32>], keys: &[u32]) -> Vec<u32> {
    let o = Oracle::new(succs);
    let n = succs.len();
    let dominates = |a: usize, b: usize| a == b || !reach(&o.succs, 0, None, Some(a))[b];
    let forward = |a: usize, b: usize| o.reachable[a] && !dominates(b, a);
    let mut indeg = vec![0usize; n];
    for a in 0..n {
        for &b in &o.succs[a] {
            if forward(a, b) {
                indeg[b] += 1;
            }
        }
    }
    let mut new_id = vec![u32::MAX; n];
    let mut next = 0u32;
    let mut ready: BTreeSet<(u32, usize)> = BTreeSet::from([(0, 0)]);
    while let Some(&(k, b)) = ready.iter().next() {
        ready.remove(&(k, b));
        new_id[b] = next;
        next += 1;
        for &s in &o.succs[b] {
            if forward(b, s) {
                indeg[s] -= 1;
                if indeg[s] == 0 {
                    ready.insert((keys[s % keys.len()], s));
                }
            }
        }
    }
    for id in new_id.iter_mut().filter(|id| **id == u32::MAX) {
        *id = next;
        next += 1;
    }
    new_id
}

fn forward_structured() -> impl Strategy<Value = Vec<Vec<u32>>> {
    (program(), proptest::collection::vec(any::<u32>(), 1..64)).prop_map(|(s, keys)| {
        let succs = lower_program(&s);
        let ids = forward_layout(&succs, &keys);
        relabel(&succs, &ids)
    })
}

fn config() -> ProptestConfig {
    config_with(512)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn claim_one_on_random_graphs(raw in random_cfg(5)) {
        check_contract(&raw)?;
    }

    #[test]
    fn claim_one_on_shuffled_structured_programs(raw in shuffled_structured()) {
        check_contract(&raw)?;
    }

    #[test]
    fn claim_one_on_forward_layouts(raw in forward_structured()) {
        check_contract(&raw)?;
    }

    #[test]
    fn same_walk_as_the_patent_on_forward_layouts(raw in forward_structured()) {
        check_faithful(&raw)?;
    }
}

// ---------------------------------------------------------------------------
// Fixed cases.
// ---------------------------------------------------------------------------

/// Figures 3-4: markers at BB0, BB3, BB4, BB5, by both walks; IPDOM of BB1 is BB5.
#[test]
fn patent_figure_3() {
    let raw = vec![vec![1, 5], vec![2, 3], vec![4], vec![4, 5], vec![0], vec![]];
    let (cfg, _, conv) = analyse(&raw);
    assert_eq!(set(conv.marked()), BTreeSet::from([0, 3, 4, 5]));
    let lit = literal_walk(&raw, 100);
    assert!(lit.finished);
    assert_eq!(lit.marked, BTreeSet::from([0, 3, 4, 5]));
    assert_eq!(lit.pops, vec![0, 1, 2, 3, 4, 5]);
    let pdt = simt_passes::analysis::post_dominators::PostDomTree::compute(&cfg);
    assert_eq!(pdt.ipdom(BlockId(1)), Some(BlockId(5)));
    check_contract(&raw).unwrap();
}

/// Where the literal walk misses claim 1: `0 -> {1, 2}, 2 -> 1` with block 1
/// laid out before 2. Block 1 runs first; 2's path re-queues it at the front,
/// unmarked. The walk here marks it (`revisit`).
#[test]
fn literal_walk_misses_a_join_on_a_backward_layout() {
    let raw = vec![vec![1, 2], vec![3], vec![1], vec![]];
    let lit = literal_walk(&raw, 100);
    assert!(lit.finished);
    assert!(!lit.marked.contains(&1), "the literal walk leaves block 1 unmarked: {:?}", lit.marked);
    assert_eq!(lit.pops, vec![0, 1, 2, 1, 3], "and walks it twice");
    let (_, _, conv) = analyse(&raw);
    assert_eq!(conv.reasons(BlockId(1)), Reasons::REVISIT);
    check_contract(&raw).unwrap();
}

/// The literal walk re-walks everything after a re-reached block, once per
/// path: k stages of `a -> {j, b}, b -> j` whose `b`s are laid out last make it
/// exponential. The walk here pops each block once.
#[test]
fn literal_walk_is_exponential_on_bad_layouts() {
    let k = 12u32;
    // a_i = 2i, j_i = 2i+1 (j_i -> a_{i+1}), x = 2k, b_i = 3k-i: the last
    // stage's b runs first, so each earlier b re-walks all later stages.
    let mut raw = vec![Vec::new(); (3 * k + 1) as usize];
    for i in 0..k {
        raw[(2 * i) as usize] = vec![2 * i + 1, 3 * k - i];
        raw[(2 * i + 1) as usize] = vec![2 * i + 2];
        raw[(3 * k - i) as usize] = vec![2 * i + 1];
    }
    let lit = literal_walk(&raw, 100_000);
    assert!(lit.pops.len() > 1 << (k - 1), "literal pops: {}", lit.pops.len());
    let (_, _, conv) = analyse(&raw);
    assert_eq!(conv.walk().len(), raw.len());
    check_contract(&raw).unwrap();
}

// ---------------------------------------------------------------------------
// Scale.
// ---------------------------------------------------------------------------

/// A deterministic structured function of about `n` blocks: sequences of
/// diamonds, 8-way switches, while/do-while loops nested up to 6 deep, with
/// breaks, continues and early returns.
fn big_program(n: usize) -> Vec<Vec<u32>> {
    struct Gen {
        state: u64,
    }
    impl Gen {
        fn next(&mut self) -> u8 {
            self.state = self.state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (self.state >> 33) as u8
        }
    }
    /// Returns only in the first arm of a branch, so that most of the
    /// function stays reachable.
    fn tame(s: Stmt, in_branch: bool) -> Stmt {
        match s {
            Stmt::Return if !in_branch => Stmt::Basic,
            Stmt::Seq(v) => Stmt::Seq(v.into_iter().map(|s| tame(s, in_branch)).collect()),
            Stmt::If(t, e) => Stmt::If(Box::new(tame(*t, true)), Box::new(tame(*e, false))),
            Stmt::Switch(v) => Stmt::Switch(v.into_iter().enumerate().map(|(i, s)| tame(s, i == 0)).collect()),
            Stmt::While(b) => Stmt::While(Box::new(tame(*b, in_branch))),
            Stmt::DoWhile(b) => Stmt::DoWhile(Box::new(tame(*b, in_branch))),
            Stmt::IfThen(b) => Stmt::IfThen(Box::new(tame(*b, true))),
            Stmt::Forever(b) => Stmt::While(Box::new(tame(*b, in_branch))),
            s => s,
        }
    }
    let mut g = Gen { state: 0x5eed_0000 };
    let bytes: Vec<u8> = (0..n * 9 / 10).map(|_| g.next()).collect();
    let mut c = bytes.iter();
    let mut body = Vec::new();
    while c.len() > 0 {
        body.push(tame(build(&mut c, 0), false));
    }
    lower_program(&Stmt::Seq(body))
}

#[test]
fn hundred_thousand_blocks() {
    let raw = big_program(100_000);
    let n = raw.len();
    assert!(n > 90_000, "generated {n} blocks");
    let reachable = Cfg::from_successors(raw.clone()).rpo().len();
    assert!(reachable > n / 2, "only {reachable} of {n} blocks reachable");
    let cfg = Cfg::from_successors(raw.clone());
    let t0 = std::time::Instant::now();
    let dt = DomTree::dominators(&cfg);
    let li = LoopInfo::compute(&cfg, &dt);
    let t1 = std::time::Instant::now();
    let conv = Convergence::compute(&cfg, &li);
    let t2 = std::time::Instant::now();
    eprintln!(
        "{n} blocks ({reachable} reachable), {} loops, {} marked: dominators + loops {:?}, walk {:?}",
        li.loops().count(),
        conv.marked().len(),
        t1 - t0,
        t2 - t1
    );
    // Cheap part of the contract: every reachable block once, every join marked.
    assert_eq!(conv.walk().len(), reachable);
    for b in cfg.blocks().filter(|&b| cfg.is_reachable(b)) {
        let incoming = cfg.preds(b).iter().filter(|p| cfg.is_reachable(**p)).count() + usize::from(b == cfg.entry());
        assert!(incoming < 2 || conv.is_marked(b), "join {b} unmarked");
    }
    for (_, l) in li.loops() {
        assert!(l.exiting.iter().all(|&e| conv.is_marked(e)));
    }
}

/// The layout that makes the literal walk exponential, at 100k blocks, and a
/// 100k-block ladder of irreducible cycles.
#[test]
fn hundred_thousand_blocks_bad_layouts() {
    let k = 33_333u32;
    let mut stages = vec![Vec::new(); (3 * k + 1) as usize];
    for i in 0..k {
        stages[(2 * i) as usize] = vec![2 * i + 1, 3 * k - i];
        stages[(2 * i + 1) as usize] = vec![2 * i + 2];
        stages[(3 * k - i) as usize] = vec![2 * i + 1];
    }
    // Rungs a_i = 2i+1 <-> b_i = 2i+2, each an irreducible cycle entered at
    // both blocks: a_i -> b_{i+1}, b_i -> a_{i+1}; the last rung -> exit.
    let rungs = 50_000u32;
    let exit = 2 * rungs + 1;
    let mut ladder = vec![vec![1, 2]];
    for i in 0..rungs {
        let (a, b) = (2 * i + 1, 2 * i + 2);
        let (na, nb) = if i + 1 < rungs { (a + 2, b + 2) } else { (exit, exit) };
        ladder.push(vec![b, nb]);
        ladder.push(vec![a, na]);
    }
    ladder.push(Vec::new());
    for (name, raw) in [("backward diamonds", stages), ("irreducible ladder", ladder)] {
        let cfg = Cfg::from_successors(raw);
        let t0 = std::time::Instant::now();
        let li = LoopInfo::compute(&cfg, &DomTree::dominators(&cfg));
        let t1 = std::time::Instant::now();
        let conv = Convergence::compute(&cfg, &li);
        eprintln!(
            "{name}: {} blocks, {} irreducible cycles, {} marked: dominators + loops {:?}, walk {:?}",
            cfg.len(),
            li.irreducible_cycles().len(),
            conv.marked().len(),
            t1 - t0,
            t1.elapsed()
        );
        assert_eq!(conv.walk().len(), cfg.rpo().len());
        for b in cfg.blocks() {
            let incoming = cfg.preds(b).iter().filter(|p| cfg.is_reachable(**p)).count() + usize::from(b == cfg.entry());
            assert!(incoming < 2 || conv.is_marked(b), "{name}: join {b} unmarked");
        }
    }
}

// ---------------------------------------------------------------------------
// Through LLVM: random graphs as IR, markers and tokens checked by the verifier.
// ---------------------------------------------------------------------------

mod ir {
    use super::*;
    use inkwell::context::Context;
    use simt_passes::analysis::cache::AnalysisCache;
    use simt_passes::pass::{ModulePass, PassContext};
    use simt_passes::transform::converge::Converge;
    use simt_passes::transform::strip_markers::StripMarkers;

    /// `entry` then one block per graph node (`b0` is the graph's entry), each
    /// ending in a `switch` over its raw successor list (duplicates kept);
    /// blocks in `barriers` start with a call to a convergent function.
    pub fn ir_of(raw: &[Vec<u32>], convergent: bool, barriers: &BTreeSet<usize>) -> String {
        let mut s = String::from("declare void @bar() convergent\n\n");
        s += &format!("define void @f(i32 %x){} {{\nentry:\n  br label %b0\n", if convergent { " convergent" } else { "" });
        for (b, succs) in raw.iter().enumerate() {
            s += &format!("b{b}:\n");
            if barriers.contains(&b) {
                s += "  call void @bar()\n";
            }
            match succs.as_slice() {
                [] => s += "  ret void\n",
                [t] => s += &format!("  br label %b{t}\n"),
                [d, cases @ ..] => {
                    s += &format!("  switch i32 %x, label %b{d} [");
                    for (i, t) in cases.iter().enumerate() {
                        s += &format!(" i32 {i}, label %b{t}");
                    }
                    s += " ]\n";
                }
            }
        }
        s + "}\n"
    }

    /// (block index in layout, marker id) of every marker call, and how many
    /// convergence intrinsics the function holds.
    fn markers(f: inkwell::values::FunctionValue<'_>) -> (Vec<(usize, u64)>, usize) {
        let mut marks = Vec::new();
        let mut tokens = 0;
        for (b, bb) in f.get_basic_block_iter().enumerate() {
            for i in simt_passes::ir::instructions(bb) {
                if !i.is_call() {
                    continue;
                }
                match i.called_function_name().as_deref() {
                    Some("simt.converge") => {
                        let id = i.operand(0).const_u64().expect("a constant block id");
                        marks.push((b, id));
                    }
                    Some(n) if n.starts_with("llvm.experimental.convergence.") => tokens += 1,
                    _ => {}
                }
            }
        }
        (marks, tokens)
    }

    pub fn check_ir(raw: &[Vec<u32>], convergent: bool, barriers: &BTreeSet<usize>, intrinsics: bool) -> Check {
        let text = ir_of(raw, convergent, barriers);
        let ctx = Context::create();
        let mut m = simt_passes::ir::parse_ir(&ctx, "random.ll", text.as_bytes()).map_err(|e| TestCaseError::fail(e.message))?;
        let f = m.get_function("f").unwrap();
        let mut cache = AnalysisCache::new();
        let expected: Vec<(usize, u64)> = {
            let fa = cache.get(f);
            let conv = Convergence::compute(&fa.cfg.cfg, fa.loops());
            conv.marked().iter().map(|b| (b.index(), b.0 as u64)).collect()
        };
        let mut out = Vec::new();
        let pass = Converge { divergent_only: false, intrinsics };
        let preserved = pass.run(&mut PassContext::new(&mut m, &mut cache, &mut out)).unwrap();
        cache.invalidate(preserved);
        if let Err(e) = simt_passes::ir::verify(&m) {
            return Err(TestCaseError::fail(format!("{e}\n{}", m.print_to_string().to_string())));
        }
        let (got, tokens) = markers(f);
        prop_assert_eq!(&got, &expected, "one marker per marked block, id = layout index");
        prop_assert_eq!(tokens > 0, intrinsics && !got.is_empty(), "tokens only in the intrinsic form");
        // Idempotent.
        let before = m.print_to_string().to_string();
        let preserved = pass.run(&mut PassContext::new(&mut m, &mut cache, &mut out)).unwrap();
        cache.invalidate(preserved);
        prop_assert_eq!(&before, &m.print_to_string().to_string(), "a second run changes nothing");
        // Stripped, nothing is left and the module still verifies.
        let preserved = StripMarkers.run(&mut PassContext::new(&mut m, &mut cache, &mut out)).unwrap();
        cache.invalidate(preserved);
        simt_passes::ir::verify(&m).map_err(TestCaseError::fail)?;
        prop_assert_eq!(markers(f), (Vec::new(), 0));
        prop_assert!(m.get_function("simt.converge").is_none());
        if intrinsics {
            // Plain markers first, tokens afterwards: the old markers get tokens.
            let mut m = simt_passes::ir::parse_ir(&ctx, "random.ll", text.as_bytes()).map_err(|e| TestCaseError::fail(e.message))?;
            let mut cache = AnalysisCache::new();
            for pass in [Converge { divergent_only: false, intrinsics: false }, Converge { divergent_only: false, intrinsics: true }] {
                let preserved = pass.run(&mut PassContext::new(&mut m, &mut cache, &mut out)).unwrap();
                cache.invalidate(preserved);
            }
            simt_passes::ir::verify(&m).map_err(TestCaseError::fail)?;
            prop_assert_eq!(&markers(m.get_function("f").unwrap()).0, &expected);
        }
        Ok(())
    }
}

fn barriers() -> impl Strategy<Value = BTreeSet<usize>> {
    proptest::collection::btree_set(0usize..40, 0..6)
}

proptest! {
    #![proptest_config(config_with(160))]

    #[test]
    fn ir_markers_verify_on_random_graphs(raw in random_cfg(5), convergent: bool, bars in barriers(), intrinsics: bool) {
        ir::check_ir(&raw, convergent, &bars, intrinsics)?;
    }

    #[test]
    fn ir_markers_verify_on_structured_programs(raw in shuffled_structured(), convergent: bool, bars in barriers(), intrinsics: bool) {
        ir::check_ir(&raw, convergent, &bars, intrinsics)?;
    }
}
