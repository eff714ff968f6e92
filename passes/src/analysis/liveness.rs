//! Liveness of SSA values: for every block, the values live on entry and on
//! exit, as bit vectors, computed once per function by the classic backward
//! dataflow (Aho, Lam, Sethi & Ullman, *Compilers*, §9.2.5):
//!
//! ```text
//!   live_out(B) = ∪ live_in(S)  over successors S
//!   live_in(B)  = upward_uses(B) ∪ (live_out(B) − defs(B))
//! ```
//!
//! iterated to a fixed point in post-order (each round visits successors
//! before predecessors, so acyclic regions settle in one round and each
//! cycle adds at most one round per nesting level).
//!
//! SSA conventions: a phi *defines* its value at the top of its block, so a
//! phi is never live into its own block; a phi *uses* each incoming value at
//! the end of the incoming block (on that edge), so the value is live out of
//! the predecessor but not into the phi's block. Only instructions whose
//! value is used outside their block or by a phi are tracked: the others are
//! live into and out of no block (arguments, constants and globals are live
//! everywhere).
//!
//! The solver itself ([`Liveness::solve`]) works on any sequence of
//! definitions and uses per block, SSA or not; the tests check it against the
//! definition ("live at a point if some path from there reaches a use without
//! passing a definition") on random graphs.

use crate::cfg::{BlockId, Cfg};
use crate::function_cfg::FunctionCfg;
use crate::ir::{instructions, Value};
use std::collections::{HashMap, HashSet};

/// A definition or use of value number `.0`, in program order within a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    Def(usize),
    Use(usize),
}

/// A fixed-size set of value numbers.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    pub fn new(len: usize) -> BitSet {
        BitSet { words: vec![0; len.div_ceil(64)] }
    }

    pub fn contains(&self, i: usize) -> bool {
        self.words.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
    }

    pub fn insert(&mut self, i: usize) {
        self.words[i / 64] |= 1 << (i % 64);
    }

    pub fn remove(&mut self, i: usize) {
        self.words[i / 64] &= !(1 << (i % 64));
    }

    /// `self |= other`; whether `self` grew.
    fn union_with(&mut self, other: &BitSet) -> bool {
        let mut grew = false;
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            let n = *a | b;
            grew |= n != *a;
            *a = n;
        }
        grew
    }

    /// `self = gen | (from & !kill)`; whether `self` changed.
    fn assign_transfer(&mut self, gen: &BitSet, from: &BitSet, kill: &BitSet) -> bool {
        let mut changed = false;
        for i in 0..self.words.len() {
            let n = gen.words[i] | (from.words[i] & !kill.words[i]);
            changed |= n != self.words[i];
            self.words[i] = n;
        }
        changed
    }

    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(k, &w)| (0..64).filter(move |b| w >> b & 1 == 1).map(move |b| k * 64 + b))
    }
}

/// Live-in and live-out sets per block, over value numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Liveness {
    live_in: Vec<BitSet>,
    live_out: Vec<BitSet>,
}

impl Liveness {
    /// Solves liveness on `cfg` where block `b` performs `events[b]` in
    /// order over values `0..num_values`.
    pub fn solve(cfg: &Cfg, num_values: usize, events: &[Vec<Event>]) -> Liveness {
        assert_eq!(events.len(), cfg.len(), "one event list per block");
        let mut gen = vec![BitSet::new(num_values); cfg.len()];
        let mut kill = vec![BitSet::new(num_values); cfg.len()];
        for (b, evs) in events.iter().enumerate() {
            for &e in evs {
                match e {
                    Event::Def(v) => kill[b].insert(v),
                    Event::Use(v) if !kill[b].contains(v) => gen[b].insert(v),
                    Event::Use(_) => {}
                }
            }
        }
        let mut live_in = gen.clone();
        let mut live_out = vec![BitSet::new(num_values); cfg.len()];
        // Post-order of the reachable blocks, then the rest (which nothing
        // reachable flows into, but they still get their own sets).
        let mut order: Vec<BlockId> = cfg.rpo().iter().rev().copied().collect();
        order.extend(cfg.blocks().filter(|&b| !cfg.is_reachable(b)));
        let mut changed = true;
        while changed {
            changed = false;
            for &b in &order {
                let i = b.index();
                let mut out = std::mem::take(&mut live_out[i]);
                for &s in cfg.succs(b) {
                    out.union_with(&live_in[s.index()]);
                }
                live_out[i] = out;
                changed |= live_in[i].assign_transfer(&gen[i], &live_out[i], &kill[i]);
            }
        }
        Liveness { live_in, live_out }
    }

    pub fn live_in(&self, b: BlockId) -> &BitSet {
        &self.live_in[b.index()]
    }

    pub fn live_out(&self, b: BlockId) -> &BitSet {
        &self.live_out[b.index()]
    }
}

/// Liveness of one function's instructions over its CFG view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionLiveness<'ctx> {
    values: Vec<Value<'ctx>>,
    number: HashMap<Value<'ctx>, usize>,
    sets: Liveness,
}

impl<'ctx> FunctionLiveness<'ctx> {
    pub fn compute(fcfg: &FunctionCfg<'ctx>) -> FunctionLiveness<'ctx> {
        // Only values used outside their own block, or by a phi, can be live
        // into or out of any block (in SSA a use in the defining block comes
        // after the definition). Tracking just those ("semi-pruned", Briggs
        // et al. 1998) keeps the bit vectors to the values that cross blocks:
        // most values of big functions do not, and tracking every value made
        // the sets blocks x values bits (10 GB at 100k blocks).
        let mut home: HashMap<Value<'ctx>, usize> = HashMap::new();
        for (b, &bb) in fcfg.blocks().iter().enumerate() {
            for i in instructions(bb) {
                if !i.is_void() {
                    home.insert(i.value(), b);
                }
            }
        }
        let mut crosses: HashSet<Value<'ctx>> = HashSet::new();
        for (b, &bb) in fcfg.blocks().iter().enumerate() {
            for i in instructions(bb) {
                for v in i.operands() {
                    if home.get(&v).is_some_and(|&h| h != b || i.is_phi()) {
                        crosses.insert(v);
                    }
                }
            }
        }
        let mut values = Vec::new();
        let mut number = HashMap::new();
        for &bb in fcfg.blocks() {
            for i in instructions(bb) {
                if crosses.contains(&i.value()) {
                    number.insert(i.value(), values.len());
                    values.push(i.value());
                }
            }
        }
        let mut events: Vec<Vec<Event>> = vec![Vec::new(); fcfg.blocks().len()];
        for (b, &bb) in fcfg.blocks().iter().enumerate() {
            let evs = &mut events[b];
            for i in instructions(bb) {
                if !i.is_phi() {
                    evs.extend(i.operands().filter_map(|v| number.get(&v)).map(|&n| Event::Use(n)));
                }
                if let Some(&n) = number.get(&i.value()) {
                    evs.push(Event::Def(n));
                }
            }
            // Phis of the successors use their incoming values here, at the end.
            for &s in fcfg.cfg.succs(BlockId(b as u32)) {
                for phi in instructions(fcfg.block(s)).take_while(|i| i.is_phi()) {
                    for (v, from) in phi.incoming() {
                        if from == bb {
                            evs.extend(number.get(&v).map(|&n| Event::Use(n)));
                        }
                    }
                }
            }
        }
        let sets = Liveness::solve(&fcfg.cfg, values.len(), &events);
        FunctionLiveness { values, number, sets }
    }

    /// Whether `v` is live on entry to `b` (false for values not tracked:
    /// those used only in their own block are live in and out of none).
    pub fn is_live_in(&self, v: Value<'ctx>, b: BlockId) -> bool {
        self.number.get(&v).is_some_and(|&n| self.sets.live_in(b).contains(n))
    }

    pub fn is_live_out(&self, v: Value<'ctx>, b: BlockId) -> bool {
        self.number.get(&v).is_some_and(|&n| self.sets.live_out(b).contains(n))
    }

    /// The values live on entry to `b`, in layout order of their definitions.
    pub fn live_in(&self, b: BlockId) -> impl Iterator<Item = Value<'ctx>> + '_ {
        self.sets.live_in(b).iter().map(|n| self.values[n])
    }

    pub fn live_out(&self, b: BlockId) -> impl Iterator<Item = Value<'ctx>> + '_ {
        self.sets.live_out(b).iter().map(|n| self.values[n])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition: `v` is live at the start of event `k` of block `b` if
    /// some path from there reaches a use of `v` before any definition of it.
    fn live_at(cfg: &Cfg, events: &[Vec<Event>], v: usize, b: usize, k: usize) -> bool {
        let mut seen = vec![false; cfg.len()];
        let mut work = vec![(b, k)];
        while let Some((b, k)) = work.pop() {
            let mut killed = false;
            for &e in &events[b][k..] {
                match e {
                    Event::Use(u) if u == v => return true,
                    Event::Def(d) if d == v => {
                        killed = true;
                        break;
                    }
                    _ => {}
                }
            }
            if killed {
                continue;
            }
            for &s in cfg.succs(BlockId(b as u32)) {
                if !seen[s.index()] {
                    seen[s.index()] = true;
                    work.push((s.index(), 0));
                }
            }
        }
        false
    }

    fn check(succs: Vec<Vec<u32>>, events: Vec<Vec<Event>>, num_values: usize) {
        let cfg = Cfg::from_successors(succs);
        let l = Liveness::solve(&cfg, num_values, &events);
        for b in 0..cfg.len() {
            for v in 0..num_values {
                let id = BlockId(b as u32);
                assert_eq!(l.live_in(id).contains(v), live_at(&cfg, &events, v, b, 0), "live_in(b{b}) of v{v}");
                let out = cfg.succs(id).iter().any(|s| live_at(&cfg, &events, v, s.index(), 0));
                assert_eq!(l.live_out(id).contains(v), out, "live_out(b{b}) of v{v}");
            }
        }
    }

    #[test]
    fn a_loop_carries_its_value_around() {
        // 0 → 1 ⇄ 2, 1 → 3; v0 defined in 0, used in 2; v1 defined and used in 1.
        let events = vec![vec![Event::Def(0)], vec![Event::Def(1), Event::Use(1)], vec![Event::Use(0)], vec![]];
        check(vec![vec![1], vec![2, 3], vec![1], vec![]], events, 2);
    }

    #[test]
    fn bitsets_over_word_boundaries() {
        let mut s = BitSet::new(130);
        for i in [0, 63, 64, 129] {
            s.insert(i);
        }
        s.remove(63);
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![0, 64, 129]);
        assert!(s.contains(129) && !s.contains(128) && !s.contains(1000));
    }

    use proptest::prelude::*;

    fn program() -> impl Strategy<Value = (Vec<Vec<u32>>, Vec<Vec<Event>>, usize)> {
        (1usize..12, 1usize..70).prop_flat_map(|(n, values)| {
            let succs = proptest::collection::vec(proptest::collection::vec(0..n as u32, 0..=3), n);
            let event = (any::<bool>(), 0..values).prop_map(|(def, v)| if def { Event::Def(v) } else { Event::Use(v) });
            let events = proptest::collection::vec(proptest::collection::vec(event, 0..6), n);
            (succs, events, Just(values))
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
        #[test]
        fn matches_the_path_definition((succs, events, values) in program()) {
            check(succs, events, values);
        }
    }
}
