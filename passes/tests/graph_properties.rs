//! Property tests for the graph analyses (`cfg`, dominators, post-dominators,
//! natural loops, irreducible cycles, the cycle hierarchy, control dependence).
//!
//! Every analysis is checked against a brute-force oracle written here from the
//! textbook definition (reachability with one node removed, backward walks from
//! latches, DFS retreating edges, ...). The oracles only use the raw successor
//! lists the graph was built from, never the code under test. The one input the
//! post-dominator oracle takes from the analysis is the set of infinite-loop
//! roots, which define the augmented graph; those roots are validated on their
//! own first.
//!
//! Two generators: fully random graphs (irreducible cycles, unreachable blocks,
//! infinite loops, self loops, duplicate edges) and structured programs
//! (sequences, if/else, while, do-while, endless loops, multi-level
//! break/continue, early returns) whose blocks are renumbered at random, so the
//! loop properties see real nesting. A few large deterministic graphs check that
//! nothing recurses per block (each in a child process, since a stack overflow
//! aborts the whole test executable).

mod common;

use common::brute::{dedup, preds_of, reach};
use common::config_with;
use common::programs::{random_cfg, shuffled_structured};
use proptest::prelude::*;
use simt_passes::analysis::control_deps::ControlDeps;
use simt_passes::analysis::cycles::{CycleInfo, Node};
use simt_passes::analysis::dominators::DomTree;
use simt_passes::analysis::loops::{LoopId, LoopInfo};
use simt_passes::analysis::post_dominators::PostDomTree;
use simt_passes::cfg::{BlockId, Cfg};
use std::collections::{BTreeMap, BTreeSet};

/// `dom[a][b]`: whether `a` dominates `b` from `root` (only meaningful when
/// both are reachable; false otherwise).
fn brute_dominators(succs: &[Vec<usize>], root: usize) -> Vec<Vec<bool>> {
    let n = succs.len();
    let reachable = reach(succs, root, None, None);
    let mut dom = vec![vec![false; n]; n];
    for a in 0..n {
        if !reachable[a] {
            continue;
        }
        let without = reach(succs, root, None, Some(a));
        for b in 0..n {
            if reachable[b] {
                dom[a][b] = a == b || !without[b];
            }
        }
    }
    dom
}

/// The immediate dominator by definition: the strict dominator of `b` that
/// every other strict dominator of `b` dominates. Panics unless unique.
fn brute_idom(dom: &[Vec<bool>], b: usize) -> Option<usize> {
    let n = dom.len();
    let strict: Vec<usize> = (0..n).filter(|&a| a != b && dom[a][b]).collect();
    let candidates: Vec<usize> = strict.iter().copied().filter(|&d| strict.iter().all(|&a| dom[a][d])).collect();
    assert!(candidates.len() <= 1, "oracle: several immediate dominators of {b}: {candidates:?}");
    assert!(strict.is_empty() || candidates.len() == 1, "oracle: no immediate dominator of {b}");
    candidates.first().copied()
}

/// Strongly connected components (as sorted vectors) of the subgraph induced
/// by `nodes`, by mutual reachability.
fn brute_sccs(succs: &[Vec<usize>], nodes: &BTreeSet<usize>) -> Vec<BTreeSet<usize>> {
    let sub: Vec<Vec<usize>> = (0..succs.len())
        .map(|v| if nodes.contains(&v) { succs[v].iter().copied().filter(|s| nodes.contains(s)).collect() } else { Vec::new() })
        .collect();
    let r: BTreeMap<usize, Vec<bool>> = nodes.iter().map(|&v| (v, reach(&sub, v, None, None))).collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for &v in nodes {
        if done.contains(&v) {
            continue;
        }
        let comp: BTreeSet<usize> = nodes.iter().copied().filter(|&w| r[&v][w] && r[&w][v]).collect();
        done.extend(comp.iter().copied());
        out.push(comp);
    }
    out
}

/// Everything the oracles know about one graph.
struct Oracle {
    n: usize,
    succs: Vec<Vec<usize>>,
    preds: Vec<Vec<usize>>,
    reachable: Vec<bool>,
    dom: Vec<Vec<bool>>,
}

impl Oracle {
    fn new(raw: &[Vec<u32>]) -> Oracle {
        let succs = dedup(raw);
        let preds = preds_of(&succs);
        let reachable = reach(&succs, 0, None, None);
        let dom = brute_dominators(&succs, 0);
        Oracle { n: raw.len(), succs, preds, reachable, dom }
    }
}

// ---------------------------------------------------------------------------
// Generators.
// ---------------------------------------------------------------------------
fn any_cfg() -> impl Strategy<Value = Vec<Vec<u32>>> {
    prop_oneof![random_cfg(3), shuffled_structured()]
}

// ---------------------------------------------------------------------------
// Checks. Each returns Err(message) on the first mismatch.
// ---------------------------------------------------------------------------

type Check = Result<(), TestCaseError>;

fn check_cfg(raw: &[Vec<u32>], o: &Oracle, cfg: &Cfg) -> Check {
    prop_assert_eq!(cfg.len(), o.n);
    for b in 0..o.n {
        let succs: Vec<usize> = cfg.succs(BlockId(b as u32)).iter().map(|x| x.index()).collect();
        prop_assert_eq!(&succs, &o.succs[b], "succs of {}", b);
        let preds: BTreeSet<usize> = cfg.preds(BlockId(b as u32)).iter().map(|x| x.index()).collect();
        let expected: BTreeSet<usize> = o.preds[b].iter().copied().collect();
        prop_assert_eq!(preds, expected, "preds of {}", b);
        prop_assert_eq!(cfg.is_reachable(BlockId(b as u32)), o.reachable[b], "reachability of {}", b);
    }
    let rpo: Vec<usize> = cfg.rpo().iter().map(|b| b.index()).collect();
    prop_assert_eq!(rpo.first().copied(), Some(0));
    let rpo_set: BTreeSet<usize> = rpo.iter().copied().collect();
    prop_assert_eq!(rpo_set.len(), rpo.len(), "rpo repeats a block");
    let reachable: BTreeSet<usize> = (0..o.n).filter(|&b| o.reachable[b]).collect();
    prop_assert_eq!(rpo_set, reachable);
    // In a reverse post-order every edge goes forward except retreating edges,
    // whose target is an ancestor in the DFS tree and so reaches the source.
    let pos: BTreeMap<usize, usize> = rpo.iter().enumerate().map(|(i, &b)| (b, i)).collect();
    for &u in &rpo {
        for &v in &o.succs[u] {
            if pos[&v] <= pos[&u] {
                prop_assert!(reach(&o.succs, v, None, None)[u], "rpo: backward edge {}->{} but {} does not reach {}", u, v, v, u);
            }
        }
    }
    let exits: Vec<usize> = cfg.exits().map(|b| b.index()).collect();
    let expected: Vec<usize> = (0..o.n).filter(|&b| raw[b].is_empty()).collect();
    prop_assert_eq!(exits, expected);
    Ok(())
}

/// Property 1: dominators.
fn check_dominators(o: &Oracle, dt: &DomTree) -> Check {
    let n = o.n;
    for b in 0..n {
        let bu = b as u32;
        if !o.reachable[b] {
            prop_assert!(!dt.contains(bu), "unreachable block {} is in the dominator tree", b);
            prop_assert_eq!(dt.idom(bu), None, "unreachable block {} has an idom", b);
            for a in 0..n as u32 {
                prop_assert!(!dt.dominates(a, bu) && !dt.dominates(bu, a), "unreachable {} in a dominance pair with {}", b, a);
            }
            continue;
        }
        prop_assert!(dt.contains(bu), "reachable block {} missing from the dominator tree", b);
        for a in 0..n {
            if o.reachable[a] {
                prop_assert_eq!(dt.dominates(a as u32, bu), o.dom[a][b], "dominates({}, {})", a, b);
            }
        }
        let expected = if b == 0 { None } else { brute_idom(&o.dom, b) };
        prop_assert_eq!(dt.idom(bu).map(|d| d as usize), expected, "idom({})", b);
    }
    Ok(())
}

/// Property 2, first half: the infinite-loop roots. Returns the augmented
/// successor lists (node `n` = virtual exit).
#[allow(clippy::needless_range_loop, reason = "block ids index several parallel tables at once")]
fn check_roots_and_augment(o: &Oracle, pdt: &PostDomTree) -> Result<Vec<Vec<usize>>, TestCaseError> {
    let n = o.n;
    let exits: Vec<usize> = (0..n).filter(|&b| o.succs[b].is_empty()).collect();
    let can_exit: Vec<bool> = (0..n).map(|b| exits.iter().any(|&e| reach(&o.succs, b, None, None)[e])).collect();
    let stuck: BTreeSet<usize> = (0..n).filter(|&b| !can_exit[b]).collect();
    let roots: Vec<usize> = pdt.infinite_loop_roots().iter().map(|b| b.index()).collect();
    let root_set: BTreeSet<usize> = roots.iter().copied().collect();
    prop_assert_eq!(root_set.len(), roots.len(), "duplicate infinite-loop roots {:?}", roots);
    for &r in &roots {
        prop_assert!(stuck.contains(&r), "root {} can reach an exit", r);
    }
    let sccs = brute_sccs(&o.succs, &stuck);
    let mut sinks = 0;
    for c in &sccs {
        let is_sink = c.iter().all(|&v| o.succs[v].iter().all(|s| c.contains(s)));
        let in_c = roots.iter().filter(|r| c.contains(r)).count();
        if is_sink {
            sinks += 1;
            prop_assert_eq!(in_c, 1, "sink SCC {:?} of non-exiting blocks has {} roots ({:?})", c, in_c, roots);
        } else {
            prop_assert_eq!(in_c, 0, "non-sink SCC {:?} holds a root ({:?})", c, roots);
        }
    }
    prop_assert_eq!(roots.len(), sinks);
    for &b in &stuck {
        let r = reach(&o.succs, b, None, None);
        prop_assert!(roots.iter().any(|&x| r[x]), "block {} reaches neither an exit nor a root", b);
    }
    let mut aug: Vec<Vec<usize>> = o.succs.clone();
    for b in 0..n {
        if o.succs[b].is_empty() || root_set.contains(&b) {
            aug[b].push(n);
        }
    }
    aug.push(Vec::new());
    Ok(aug)
}

/// `pdom[a][b]` over the augmented graph, a and b blocks or the virtual exit.
#[allow(clippy::needless_range_loop, reason = "block ids index several parallel tables at once")]
fn brute_post_dominators(aug: &[Vec<usize>]) -> Vec<Vec<bool>> {
    let m = aug.len();
    let v = m - 1;
    let mut pdom = vec![vec![false; m]; m];
    for b in 0..m {
        for a in 0..m {
            pdom[a][b] = a == b || !reach(aug, b, None, Some(a))[v];
        }
    }
    pdom
}

/// Property 2, second half.
#[allow(clippy::needless_range_loop, reason = "block ids index several parallel tables at once")]
fn check_post_dominators(o: &Oracle, pdt: &PostDomTree, pdom: &[Vec<bool>]) -> Check {
    let n = o.n;
    prop_assert_eq!(pdt.virtual_exit() as usize, n);
    for b in 0..n {
        let bb = BlockId(b as u32);
        // Every block reaches the virtual exit in the augmented graph.
        prop_assert!(pdom[n][b], "oracle: {} does not reach the virtual exit", b);
        prop_assert!(pdt.tree().contains(b as u32), "block {} missing from the post-dominator tree", b);
        for a in 0..n {
            prop_assert_eq!(pdt.post_dominates(BlockId(a as u32), bb), pdom[a][b], "post_dominates({}, {})", a, b);
        }
        let ip = brute_idom(pdom, b).expect("every block has an immediate post-dominator");
        let expected = (ip != n).then_some(ip);
        prop_assert_eq!(pdt.ipdom(bb).map(|d| d.index()), expected, "ipdom({}) (None = virtual exit)", b);
        prop_assert_eq!(pdt.tree().idom(b as u32).map(|d| d as usize), Some(ip), "tree idom({})", b);
    }
    prop_assert_eq!(pdt.tree().idom(n as u32), None);
    Ok(())
}

struct BruteLoop {
    header: usize,
    blocks: BTreeSet<usize>,
    latches: BTreeSet<usize>,
}

fn brute_loops(o: &Oracle) -> Vec<BruteLoop> {
    let mut out = Vec::new();
    for h in 0..o.n {
        if !o.reachable[h] {
            continue;
        }
        let latches: BTreeSet<usize> = o.preds[h].iter().copied().filter(|&p| o.reachable[p] && o.dom[h][p]).collect();
        if latches.is_empty() {
            continue;
        }
        let mut blocks: BTreeSet<usize> = BTreeSet::new();
        blocks.insert(h);
        let mut work: Vec<usize> = latches.iter().copied().collect();
        while let Some(b) = work.pop() {
            if blocks.insert(b) {
                work.extend(o.preds[b].iter().copied().filter(|&p| o.reachable[p]));
            }
        }
        out.push(BruteLoop { header: h, blocks, latches });
    }
    out
}

/// Property 3: natural loops and their nesting.
fn check_loops(o: &Oracle, li: &LoopInfo) -> Check {
    let n = o.n;
    let brute = brute_loops(o);
    let got: Vec<(LoopId, _)> = li.loops().collect();
    prop_assert_eq!(got.len(), brute.len(), "number of loops: got headers {:?}", got.iter().map(|(_, l)| l.header.0).collect::<Vec<_>>());
    let by_header: BTreeMap<usize, LoopId> = got.iter().map(|(id, l)| (l.header.index(), *id)).collect();
    prop_assert_eq!(by_header.len(), got.len(), "two loops share a header");
    // Oracle nesting: parent = smallest other loop strictly containing it.
    let parent_of = |i: usize| -> Option<usize> {
        (0..brute.len())
            .filter(|&j| j != i && brute[j].blocks.is_superset(&brute[i].blocks) && brute[j].blocks.len() > brute[i].blocks.len())
            .min_by_key(|&j| brute[j].blocks.len())
    };
    let parents: Vec<Option<usize>> = (0..brute.len()).map(parent_of).collect();
    // Natural loops with distinct headers are nested or disjoint.
    for i in 0..brute.len() {
        for j in 0..brute.len() {
            let a = &brute[i].blocks;
            let b = &brute[j].blocks;
            prop_assert!(
                i == j || a.is_disjoint(b) || a.is_subset(b) || b.is_subset(a),
                "oracle: natural loops at {} and {} overlap",
                brute[i].header,
                brute[j].header
            );
        }
    }
    let depth_of = |mut i: usize| -> u32 {
        let mut d = 1;
        while let Some(p) = parents[i] {
            d += 1;
            i = p;
        }
        d
    };
    for (i, bl) in brute.iter().enumerate() {
        let Some(&id) = by_header.get(&bl.header) else {
            return Err(TestCaseError::fail(format!("no loop with header {}", bl.header)));
        };
        let l = li.get(id);
        let blocks: BTreeSet<usize> = l.blocks.iter().map(|b| b.index()).collect();
        prop_assert_eq!(l.blocks.len(), blocks.len(), "loop {} lists a block twice", bl.header);
        prop_assert_eq!(&blocks, &bl.blocks, "blocks of loop {}", bl.header);
        let latches: BTreeSet<usize> = l.latches.iter().map(|b| b.index()).collect();
        prop_assert_eq!(&latches, &bl.latches, "latches of loop {}", bl.header);
        let exiting: BTreeSet<usize> = bl.blocks.iter().copied().filter(|&b| o.succs[b].iter().any(|s| !bl.blocks.contains(s))).collect();
        let exits: BTreeSet<usize> =
            bl.blocks.iter().flat_map(|&b| o.succs[b].iter().copied()).filter(|s| !bl.blocks.contains(s)).collect();
        let got_exiting: BTreeSet<usize> = l.exiting.iter().map(|b| b.index()).collect();
        let got_exits: BTreeSet<usize> = l.exits.iter().map(|b| b.index()).collect();
        prop_assert_eq!(got_exiting.len(), l.exiting.len(), "exiting of {} repeats a block", bl.header);
        prop_assert_eq!(got_exits.len(), l.exits.len(), "exits of {} repeats a block", bl.header);
        prop_assert_eq!(got_exiting, exiting, "exiting blocks of loop {}", bl.header);
        prop_assert_eq!(got_exits, exits, "exit blocks of loop {}", bl.header);
        let got_parent = l.parent.map(|p| li.get(p).header.index());
        prop_assert_eq!(got_parent, parents[i].map(|p| brute[p].header), "parent of loop {}", bl.header);
        prop_assert_eq!(l.depth, depth_of(i), "depth of loop {}", bl.header);
        let got_children: BTreeSet<usize> = l.children.iter().map(|&c| li.get(c).header.index()).collect();
        let children: BTreeSet<usize> = (0..brute.len()).filter(|&j| parents[j] == Some(i)).map(|j| brute[j].header).collect();
        prop_assert_eq!(got_children, children, "children of loop {}", bl.header);
        for b in 0..n {
            prop_assert_eq!(li.contains(id, BlockId(b as u32)), bl.blocks.contains(&b), "contains(loop {}, {})", bl.header, b);
        }
    }
    for b in 0..n {
        let inner = (0..brute.len()).filter(|&i| brute[i].blocks.contains(&b)).min_by_key(|&i| brute[i].blocks.len());
        let got = li.innermost(BlockId(b as u32)).map(|id| li.get(id).header.index());
        prop_assert_eq!(got, inner.map(|i| brute[i].header), "innermost loop of {}", b);
        prop_assert_eq!(li.loop_depth(BlockId(b as u32)), inner.map_or(0, depth_of), "loop depth of {}", b);
        let is_header = brute.iter().any(|l| l.header == b);
        prop_assert_eq!(li.is_header(BlockId(b as u32)), is_header, "is_header({})", b);
    }
    let top: Vec<usize> = li.top_level().iter().map(|&id| li.get(id).header.index()).collect();
    let mut expected_top: Vec<usize> = (0..brute.len()).filter(|&i| parents[i].is_none()).map(|i| brute[i].header).collect();
    expected_top.sort();
    prop_assert_eq!(top, expected_top, "top-level loops");
    Ok(())
}

/// Retreating edges of an iterative DFS from the entry (successors in order).
fn retreating_edges(o: &Oracle) -> Vec<(usize, usize)> {
    let mut state = vec![0u8; o.n]; // 0 new, 1 on stack, 2 done
    let mut out = Vec::new();
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    state[0] = 1;
    while let Some(&mut (v, ref mut i)) = stack.last_mut() {
        if let Some(&s) = o.succs[v].get(*i) {
            *i += 1;
            match state[s] {
                0 => {
                    state[s] = 1;
                    stack.push((s, 0));
                }
                1 => out.push((v, s)),
                _ => {}
            }
        } else {
            state[v] = 2;
            stack.pop();
        }
    }
    out
}

/// Property 4: reducibility and irreducible cycles.
fn check_reducibility(o: &Oracle, li: &LoopInfo) -> Check {
    let reducible = retreating_edges(o).iter().all(|&(u, v)| o.dom[v][u]);
    prop_assert_eq!(li.is_reducible(), reducible, "is_reducible (cycles reported: {:?})", li.irreducible_cycles());
    prop_assert_eq!(li.irreducible_cycles().is_empty(), reducible);
    let mut seen: BTreeSet<Vec<usize>> = BTreeSet::new();
    for c in li.irreducible_cycles() {
        let blocks: BTreeSet<usize> = c.blocks.iter().map(|b| b.index()).collect();
        prop_assert_eq!(blocks.len(), c.blocks.len(), "cycle lists a block twice: {:?}", c);
        prop_assert!(seen.insert(blocks.iter().copied().collect()), "cycle reported twice: {:?}", c);
        prop_assert!(blocks.iter().all(|&b| o.reachable[b]), "cycle with unreachable blocks: {:?}", c);
        let sccs = brute_sccs(&o.succs, &blocks);
        prop_assert_eq!(sccs.len(), 1, "cycle {:?} is not strongly connected", c);
        if blocks.len() == 1 {
            let b = *blocks.iter().next().unwrap();
            prop_assert!(o.succs[b].contains(&b), "single-block cycle {:?} without a self loop", c);
        }
        let entries: BTreeSet<usize> =
            blocks.iter().copied().filter(|&b| b == 0 || o.preds[b].iter().any(|&p| o.reachable[p] && !blocks.contains(&p))).collect();
        let got_entries: BTreeSet<usize> = c.entries.iter().map(|b| b.index()).collect();
        prop_assert_eq!(got_entries.len(), c.entries.len(), "entries repeated: {:?}", c);
        prop_assert_eq!(&got_entries, &entries, "entries of cycle {:?}", c);
        prop_assert!(entries.len() >= 2, "cycle with fewer than two entries: {:?}", c);
    }
    Ok(())
}

/// Property 5: control dependence, y depends on (x, s) iff y post-dominates s
/// and does not strictly post-dominate x (post-dominance over the augmented
/// graph). Only edges out of reachable blocks that choose between two or more
/// distinct successors count: `control_deps.rs` documents that the virtual
/// exit edges out of infinite-loop roots decide nothing, so a root with a
/// single successor has no dependents.
#[allow(clippy::needless_range_loop, reason = "block ids index several parallel tables at once")]
fn check_control_deps(o: &Oracle, cd: &ControlDeps, pdom: &[Vec<bool>]) -> Check {
    let n = o.n;
    let mut expected: Vec<BTreeSet<(usize, usize)>> = vec![BTreeSet::new(); n];
    for x in (0..n).filter(|&x| o.reachable[x] && o.succs[x].len() >= 2) {
        for &s in &o.succs[x] {
            for (y, e) in expected.iter_mut().enumerate() {
                if pdom[y][s] && !(y != x && pdom[y][x]) {
                    e.insert((x, s));
                }
            }
        }
    }
    for y in 0..n {
        let got_list: Vec<(usize, usize)> = cd.of(BlockId(y as u32)).iter().map(|e| (e.from.index(), e.to.index())).collect();
        let got: BTreeSet<(usize, usize)> = got_list.iter().copied().collect();
        prop_assert_eq!(got.len(), got_list.len(), "control deps of {} repeat an edge: {:?}", y, got_list);
        prop_assert_eq!(&got, &expected[y], "control deps of {}", y);
    }
    Ok(())
}

/// The cycle hierarchy by its definition (LLVM's `GenericCycleInfo`): the
/// SCCs with an edge, recursively inside each with the edges into its header
/// removed, the header being the entry first in reverse post-order. Then the
/// property the uniformity analysis relies on: in every level, with edges into
/// the level's header removed and nested cycles contracted, every edge between
/// two different nodes goes forward in the reverse post-order of their headers.
fn check_cycles(o: &Oracle, cfg: &Cfg, ci: &CycleInfo) -> Check {
    let rpo = |b: usize| cfg.rpo_position(BlockId(b as u32)).expect("reachable");
    // (blocks, header) of every cycle, brute force.
    let mut expected: BTreeSet<(Vec<usize>, usize)> = BTreeSet::new();
    let mut regions: Vec<(BTreeSet<usize>, Option<usize>)> = vec![((0..o.n).filter(|&b| o.reachable[b]).collect(), None)];
    while let Some((region, removed)) = regions.pop() {
        let succs: Vec<Vec<usize>> = o.succs.iter().map(|l| l.iter().copied().filter(|&s| Some(s) != removed).collect()).collect();
        for scc in brute_sccs(&succs, &region) {
            let v = *scc.iter().next().unwrap();
            if scc.len() == 1 && !succs[v].contains(&v) {
                continue;
            }
            let header = *scc.iter().min_by_key(|&&b| rpo(b)).unwrap();
            expected.insert((scc.iter().copied().collect(), header));
            regions.push((scc, Some(header)));
        }
    }
    let got: BTreeSet<(Vec<usize>, usize)> =
        ci.cycles().map(|(_, c)| (c.blocks.iter().map(|b| b.index()).collect(), c.header.index())).collect();
    prop_assert_eq!(&got, &expected, "cycles (blocks, header)");
    for (id, c) in ci.cycles() {
        let inside = |b: usize| c.blocks.binary_search(&BlockId(b as u32)).is_ok();
        let entries: Vec<BlockId> = c
            .blocks
            .iter()
            .copied()
            .filter(|b| b.index() == 0 || o.preds[b.index()].iter().any(|&p| o.reachable[p] && !inside(p)))
            .collect();
        prop_assert_eq!(&c.entries, &entries, "entries of cycle {:?}", id);
        prop_assert!(entries.contains(&c.header), "header is an entry");
        let exits: BTreeSet<BlockId> =
            c.blocks.iter().flat_map(|b| o.succs[b.index()].iter().copied()).filter(|&s| !inside(s)).map(|s| BlockId(s as u32)).collect();
        prop_assert_eq!(c.exits.iter().copied().collect::<BTreeSet<_>>(), exits, "exits of cycle {:?}", id);
        for b in 0..o.n {
            prop_assert_eq!(ci.contains(Some(id), BlockId(b as u32)), inside(b), "contains({:?}, {})", id, b);
        }
    }
    let levels: Vec<Option<_>> = std::iter::once(None).chain(ci.cycles().map(|(id, _)| Some(id))).collect();
    for level in levels {
        let header = level.map(|c| ci.get(c).header);
        let key = |n: Node| match n {
            Node::Block(b) => rpo(b.index()),
            Node::Cycle(c) => rpo(ci.get(c).header.index()),
        };
        for b in (0..o.n).filter(|&b| o.reachable[b] && ci.contains(level, BlockId(b as u32))) {
            let nb = ci.node_at(level, BlockId(b as u32));
            if let Node::Cycle(c) = nb {
                prop_assert_eq!(ci.get(c).parent, level, "node_at gives a cycle nested directly in the level");
            }
            for &s in &o.succs[b] {
                let sb = BlockId(s as u32);
                if !ci.contains(level, sb) || Some(sb) == header {
                    continue;
                }
                let ns = ci.node_at(level, sb);
                if ns != nb {
                    prop_assert!(
                        key(nb) < key(ns),
                        "edge {} -> {} goes backwards between nodes {:?} and {:?} of level {:?}",
                        b,
                        s,
                        nb,
                        ns,
                        level
                    );
                }
            }
        }
    }
    Ok(())
}

fn check_all(raw: &[Vec<u32>]) -> Check {
    let o = Oracle::new(raw);
    let cfg = Cfg::from_successors(raw.to_vec());
    check_cfg(raw, &o, &cfg)?;
    let dt = DomTree::dominators(&cfg);
    check_dominators(&o, &dt)?;
    let pdt = PostDomTree::compute(&cfg);
    let aug = check_roots_and_augment(&o, &pdt)?;
    let pdom = brute_post_dominators(&aug);
    check_post_dominators(&o, &pdt, &pdom)?;
    let li = LoopInfo::compute(&cfg, &dt);
    check_loops(&o, &li)?;
    check_reducibility(&o, &li)?;
    check_cycles(&o, &cfg, &CycleInfo::compute(&cfg))?;
    let cd = ControlDeps::compute(&cfg, &pdt);
    check_control_deps(&o, &cd, &pdom)?;
    Ok(())
}

// ---------------------------------------------------------------------------
// Property tests.
// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(config_with(256))]

    #[test]
    fn cfg_matches_successor_lists(raw in any_cfg()) {
        let o = Oracle::new(&raw);
        check_cfg(&raw, &o, &Cfg::from_successors(raw.clone()))?;
    }

    #[test]
    fn dominators_match_brute_force(raw in any_cfg()) {
        let o = Oracle::new(&raw);
        let cfg = Cfg::from_successors(raw.clone());
        check_dominators(&o, &DomTree::dominators(&cfg))?;
    }

    #[test]
    fn post_dominators_match_brute_force(raw in any_cfg()) {
        let o = Oracle::new(&raw);
        let cfg = Cfg::from_successors(raw.clone());
        let pdt = PostDomTree::compute(&cfg);
        let aug = check_roots_and_augment(&o, &pdt)?;
        check_post_dominators(&o, &pdt, &brute_post_dominators(&aug))?;
    }

    #[test]
    fn loops_match_brute_force_random(raw in random_cfg(3)) {
        let o = Oracle::new(&raw);
        let cfg = Cfg::from_successors(raw.clone());
        let li = LoopInfo::compute(&cfg, &DomTree::dominators(&cfg));
        check_loops(&o, &li)?;
    }

    #[test]
    fn loops_match_brute_force_structured(raw in shuffled_structured()) {
        let o = Oracle::new(&raw);
        let cfg = Cfg::from_successors(raw.clone());
        let li = LoopInfo::compute(&cfg, &DomTree::dominators(&cfg));
        check_loops(&o, &li)?;
        // Structured control flow is reducible: checks the generator as much
        // as the analysis.
        prop_assert!(retreating_edges(&o).iter().all(|&(u, v)| o.dom[v][u]), "generator produced an irreducible graph");
        prop_assert!(li.is_reducible(), "structured program reported irreducible: {:?}", li.irreducible_cycles());
    }

    #[test]
    fn reducibility_matches_retreating_edges(raw in any_cfg()) {
        let o = Oracle::new(&raw);
        let cfg = Cfg::from_successors(raw.clone());
        let li = LoopInfo::compute(&cfg, &DomTree::dominators(&cfg));
        check_reducibility(&o, &li)?;
    }

    #[test]
    fn cycles_match_brute_force(raw in any_cfg()) {
        let o = Oracle::new(&raw);
        let cfg = Cfg::from_successors(raw.clone());
        check_cycles(&o, &cfg, &CycleInfo::compute(&cfg))?;
    }

    #[test]
    fn control_deps_match_brute_force(raw in any_cfg()) {
        let o = Oracle::new(&raw);
        let cfg = Cfg::from_successors(raw.clone());
        let pdt = PostDomTree::compute(&cfg);
        let aug = check_roots_and_augment(&o, &pdt)?;
        let pdom = brute_post_dominators(&aug);
        check_control_deps(&o, &ControlDeps::compute(&cfg, &pdt), &pdom)?;
    }
}

// ---------------------------------------------------------------------------
// Hand-picked small graphs through every check (cheap regression anchors).
// ---------------------------------------------------------------------------

#[test]
fn small_fixed_graphs() {
    let cases: Vec<Vec<Vec<u32>>> = vec![
        vec![vec![]],
        vec![vec![0]],
        vec![vec![0, 0]],
        vec![vec![1, 2], vec![2], vec![1, 3], vec![]],
        vec![vec![1], vec![2, 3], vec![3], vec![2, 1, 4], vec![]],
        vec![vec![1], vec![2], vec![1]],
        vec![vec![1, 3], vec![2], vec![1], vec![]],
        vec![vec![1], vec![], vec![1], vec![2, 3]],
        vec![vec![1, 2], vec![3], vec![3], vec![1, 4], vec![]],
        // two nested infinite regions, one of them with two sink SCCs
        vec![vec![1, 4], vec![2, 3], vec![2], vec![3], vec![4, 5], vec![4]],
    ];
    for raw in cases {
        if let Err(e) = check_all(&raw) {
            panic!("{raw:?}: {e}");
        }
    }
}

// ---------------------------------------------------------------------------
// Large deterministic graphs: nothing may recurse per block (test threads
// have a 2 MiB stack). Not timed; only a few spot checks.
//
// A stack overflow aborts the whole test process, which would hide every
// other result in this file, so each case runs in a child process: the test
// re-runs this executable filtered to itself with `GRAPH_PROPS_CHILD` set, and
// the child (seeing the variable) runs the body.
// ---------------------------------------------------------------------------

const CHILD_VAR: &str = "GRAPH_PROPS_CHILD";

fn isolated(name: &str, body: fn()) {
    if std::env::var(CHILD_VAR).as_deref() == Ok(name) {
        body();
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().expect("test executable"))
        .args([name, "--exact", "--test-threads=1", "--nocapture"])
        .env(CHILD_VAR, name)
        .output()
        .expect("spawning the test executable");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("1 passed") || !out.status.success(), "child ran no test:\n{stdout}");
    if !out.status.success() {
        let overflow = stderr.contains("overflowed its stack");
        panic!("{name} failed in its child process ({}){}:\n{stderr}", out.status, if overflow { " -- STACK OVERFLOW" } else { "" });
    }
}

macro_rules! isolated_tests {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                isolated(stringify!($name), cases::$name);
            }
        )*
    };
}

isolated_tests!(
    big_chain,
    big_reversed_chain,
    big_ladder,
    big_loop_with_many_latches,
    big_infinite_tail,
    big_irreducible_ring,
    deep_loop_nest,
    deep_irreducible_nest,
);

mod cases {
    use super::*;

    const BIG: u32 = 100_000;

    struct All {
        cfg: Cfg,
        dt: DomTree,
        pdt: PostDomTree,
        li: LoopInfo,
        cd: Option<ControlDeps>,
    }

    /// Runs every analysis; control dependence only where its size (which
    /// can be quadratic in the blocks) stays linear.
    fn run_all(succs: Vec<Vec<u32>>, with_cd: bool) -> All {
        let cfg = Cfg::from_successors(succs);
        let dt = DomTree::dominators(&cfg);
        let pdt = PostDomTree::compute(&cfg);
        let li = LoopInfo::compute(&cfg, &dt);
        let cd = with_cd.then(|| ControlDeps::compute(&cfg, &pdt));
        All { cfg, dt, pdt, li, cd }
    }

    /// The brute-force checks on small members of a family, so that the
    /// spot checks on the big member test a shape the oracles agree on.
    fn check_small(family: fn(u32) -> Vec<Vec<u32>>, sizes: std::ops::Range<u32>) {
        for k in sizes {
            let raw = family(k);
            if let Err(e) = check_all(&raw) {
                panic!("size {k}: {raw:?}: {e}");
            }
        }
    }

    /// 0 -> 1 -> ... -> n-1 (exit).
    fn chain(n: u32) -> Vec<Vec<u32>> {
        (0..n).map(|i| if i + 1 < n { vec![i + 1] } else { vec![] }).collect()
    }

    /// 0 -> n-1 -> n-2 -> ... -> 1 (exit): layout order against control flow.
    fn reversed_chain(n: u32) -> Vec<Vec<u32>> {
        (0..n)
            .map(|i| {
                if i == 0 {
                    vec![n - 1]
                } else if i > 1 {
                    vec![i - 1]
                } else {
                    vec![]
                }
            })
            .collect()
    }

    /// i -> i+1, i+2: every block can be skipped, no block but the entry
    /// dominates another and none but the last post-dominates another.
    fn ladder(n: u32) -> Vec<Vec<u32>> {
        (0..n).map(|i| (i + 1..(i + 3).min(n)).collect()).collect()
    }

    /// 0 -> 1 -> ... -> n-1 (exit); every block 1..n-2 also branches back
    /// to 1: one loop with n-2 latches.
    fn many_latches(n: u32) -> Vec<Vec<u32>> {
        (0..n)
            .map(|i| match i {
                0 => vec![1],
                _ if i + 1 == n => vec![],
                _ => vec![i + 1, 1],
            })
            .collect()
    }

    /// A chain ending in a two-block infinite loop; no exit at all.
    fn infinite_tail(n: u32) -> Vec<Vec<u32>> {
        (0..n).map(|i| if i + 1 < n { vec![i + 1] } else { vec![n - 2] }).collect()
    }

    /// 0 -> 1 -> ... -> n-1 -> 1, plus 0 -> n/2 and n-1 -> n (exit): one
    /// ring entered at 1 and at n/2.
    fn irreducible_ring(n: u32) -> Vec<Vec<u32>> {
        (0..=n)
            .map(|i| match i {
                0 => vec![1, n / 2],
                _ if i == n => vec![],
                _ if i == n - 1 => vec![1, n],
                _ => vec![i + 1],
            })
            .collect()
    }

    /// d nested loops: 0 -> h_1 -> h_2 -> ... -> h_d -> l_d; l_i -> h_i,
    /// l_{i-1}; l_1 -> exit. Blocks: h_i = i, l_i = d + i, exit = 2d + 1.
    fn loop_nest(d: u32) -> Vec<Vec<u32>> {
        let exit = 2 * d + 1;
        let mut succs: Vec<Vec<u32>> = vec![Vec::new(); exit as usize + 1];
        succs[0] = vec![1];
        for i in 1..=d {
            succs[i as usize] = vec![if i < d { i + 1 } else { 2 * d }];
            succs[(d + i) as usize] = vec![i, if i > 1 { d + i - 1 } else { exit }];
        }
        succs
    }

    /// Rings a_k <-> b_k, both entered from a_{k-1} (ring 0 from the entry),
    /// with b_k -> b_{k-1} back out and b_0 -> exit: one two-entry cycle per
    /// level of the recursive SCC decomposition, d levels deep.
    /// Blocks: a_k = 1 + 2k, b_k = 2 + 2k, exit = 2d + 1.
    fn nested_rings(d: u32) -> Vec<Vec<u32>> {
        let a_ = |k: u32| 1 + 2 * k;
        let b_ = |k: u32| 2 + 2 * k;
        let exit = 2 * d + 1;
        let mut succs: Vec<Vec<u32>> = vec![Vec::new(); exit as usize + 1];
        succs[0] = vec![a_(0), b_(0)];
        for k in 0..d {
            let mut sa = vec![b_(k)];
            if k + 1 < d {
                sa.extend([a_(k + 1), b_(k + 1)]);
            }
            succs[a_(k) as usize] = sa;
            succs[b_(k) as usize] = vec![a_(k), if k > 0 { b_(k - 1) } else { exit }];
        }
        succs
    }

    pub fn big_chain() {
        check_small(chain, 1..12);
        let n = BIG;
        let a = run_all(chain(n), true);
        assert_eq!(a.cfg.rpo().len(), n as usize);
        assert_eq!(a.dt.idom(n - 1), Some(n - 2));
        assert!(a.dt.dominates(0, n - 1));
        assert_eq!(a.pdt.ipdom(BlockId(0)), Some(BlockId(1)));
        assert!(a.pdt.post_dominates(BlockId(n - 1), BlockId(0)));
        assert_eq!(a.li.loops().count(), 0);
        assert!(a.li.is_reducible());
        assert!(a.cd.unwrap().of(BlockId(n / 2)).is_empty());
    }

    pub fn big_reversed_chain() {
        check_small(reversed_chain, 2..12);
        let n = BIG;
        let a = run_all(reversed_chain(n), true);
        assert_eq!(a.dt.idom(1), Some(2));
        assert!(a.dt.dominates(n - 1, 1));
        assert_eq!(a.pdt.ipdom(BlockId(n - 1)), Some(BlockId(n - 2)));
        assert_eq!(a.li.loops().count(), 0);
        assert!(a.cd.unwrap().of(BlockId(1)).is_empty());
    }

    pub fn big_ladder() {
        check_small(ladder, 1..12);
        let n = BIG;
        let a = run_all(ladder(n), true);
        assert_eq!(a.dt.idom(n - 1), Some(0));
        assert_eq!(a.dt.idom(n / 2), Some(0));
        assert_eq!(a.pdt.ipdom(BlockId(0)), Some(BlockId(n - 1)));
        assert_eq!(a.pdt.ipdom(BlockId(n / 2)), Some(BlockId(n - 1)));
        let cd = a.cd.unwrap();
        // Only the two edges into a block decide whether it runs.
        let k = n / 2;
        let got: Vec<(u32, u32)> = cd.of(BlockId(k)).iter().map(|e| (e.from.0, e.to.0)).collect();
        assert_eq!(got, vec![(k - 2, k), (k - 1, k)]);
        assert!(a.li.is_reducible());
    }

    pub fn big_loop_with_many_latches() {
        check_small(many_latches, 3..12);
        let n = BIG;
        // Block i depends on the back edges of all blocks after it: quadratic,
        // so no control dependence here.
        let a = run_all(many_latches(n), false);
        assert_eq!(a.li.loops().count(), 1);
        let (_, l) = a.li.loops().next().unwrap();
        assert_eq!(l.header, BlockId(1));
        assert_eq!(l.blocks.len(), n as usize - 2);
        assert_eq!(l.latches.len(), n as usize - 2);
        assert_eq!(l.exits, vec![BlockId(n - 1)]);
        assert_eq!(l.exiting, vec![BlockId(n - 2)]);
        assert!(a.li.is_reducible());
        assert_eq!(a.pdt.ipdom(BlockId(5)), Some(BlockId(6)));
    }

    pub fn big_infinite_tail() {
        check_small(infinite_tail, 2..12);
        let n = BIG;
        let a = run_all(infinite_tail(n), true);
        assert_eq!(a.pdt.infinite_loop_roots().len(), 1);
        assert!(a.pdt.post_dominates(BlockId(n - 2), BlockId(0)));
        assert_eq!(a.pdt.ipdom(BlockId(0)), Some(BlockId(1)));
        assert_eq!(a.li.loops().count(), 1);
        assert!(a.cd.unwrap().of(BlockId(5)).is_empty());
    }

    pub fn big_irreducible_ring() {
        check_small(irreducible_ring, 3..14);
        let n = BIG;
        let a = run_all(irreducible_ring(n), true);
        assert!(!a.li.is_reducible());
        assert_eq!(a.li.irreducible_cycles().len(), 1);
        assert_eq!(a.li.irreducible_cycles()[0].entries, vec![BlockId(1), BlockId(n / 2)]);
        assert_eq!(a.li.irreducible_cycles()[0].blocks.len(), n as usize - 1);
        assert_eq!(a.li.loops().count(), 0);
        assert_eq!(a.dt.idom(n / 2), Some(0));
        assert_eq!(a.dt.idom(n / 2 + 1), Some(n / 2));
        assert_eq!(a.pdt.ipdom(BlockId(1)), Some(BlockId(2)));
        assert_eq!(a.pdt.ipdom(BlockId(n - 1)), Some(BlockId(n)));
    }

    pub fn deep_loop_nest() {
        check_small(loop_nest, 1..7);
        // Per-loop block lists make this at least quadratic, so d is modest.
        let d: u32 = 300;
        let a = run_all(loop_nest(d), true);
        assert_eq!(a.li.loops().count(), d as usize);
        assert_eq!(a.li.loop_depth(BlockId(d)), d);
        assert_eq!(a.li.top_level().len(), 1);
        assert!(a.li.is_reducible());
        assert_eq!(a.dt.idom(2 * d), Some(d));
        assert_eq!(a.pdt.ipdom(BlockId(1)), Some(BlockId(2)));
    }

    pub fn deep_irreducible_nest() {
        check_small(nested_rings, 1..7);
        let d: u32 = 300;
        let a = run_all(nested_rings(d), true);
        assert!(!a.li.is_reducible());
        assert_eq!(a.li.irreducible_cycles().len(), d as usize);
        assert_eq!(a.li.irreducible_cycles()[0].blocks.len(), 2 * d as usize);
        assert_eq!(a.dt.idom(2 * d), Some(2 * d - 3));
    }
}
