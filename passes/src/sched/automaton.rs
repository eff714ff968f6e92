//! The template automaton of a machine model: a DFA over unit kinds whose
//! states are the sets of ops one cycle can issue, generated from the model
//! as LLVM's `DFAPacketizer` tables are generated from its itineraries.
//!
//! Underneath is an NFA whose states are (template combination, slots used
//! per slot kind): a combination is a multiset of at most `bundles_per_cycle`
//! usable templates; slots of one kind within it are interchangeable, so the
//! used counts say everything. Adding an op of unit kind `u` moves each NFA
//! state to every state with one more used slot of a kind `u` may occupy. The
//! DFA state after a sequence of ops is the set of NFA states reached, which
//! depends only on the multiset of unit kinds, so DFA states are keyed by
//! that multiset and generated breadth first from the empty cycle. Caps by
//! unit kind (issue ports) cut transitions.
//!
//! This is seed 002's "FSA" of ORC's micro-scheduler: because a state stands
//! for every way of filling the templates, adding an op may re-arrange the
//! ops already placed (the patent's "reorder / negotiate"); the concrete slot
//! layout is chosen only when the cycle is finished ([`Automaton::layout`]).

use super::bundle::Bundle;
use super::machine::{Machine, SlotKind, TemplateId, UnitKind};
use std::collections::{BTreeSet, HashMap};

/// A DFA state: a set of ops that fits one cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StateId(pub u32);

pub struct Automaton {
    /// Template combinations, fewest bundles first, then in model order.
    combos: Vec<Vec<TemplateId>>,
    /// `next[state][unit]`.
    next: Vec<Vec<Option<StateId>>>,
    /// Per state: the first combination (fewest bundles) that holds it.
    best: Vec<u16>,
    /// Per state: how many ops it holds.
    size: Vec<u8>,
}

type Nfa = BTreeSet<(u16, Vec<u8>)>;

impl Automaton {
    pub const START: StateId = StateId(0);

    pub fn new(m: &Machine) -> Automaton {
        let usable: Vec<TemplateId> = m.usable_templates().collect();
        let mut combos: Vec<Vec<TemplateId>> = Vec::new();
        let mut layer: Vec<Vec<TemplateId>> = vec![Vec::new()];
        for _ in 0..m.bundles_per_cycle {
            let mut grown = Vec::new();
            for c in &layer {
                let from = c.last().map_or(0, |t| usable.iter().position(|u| u == t).unwrap());
                for &t in &usable[from..] {
                    let mut c2 = c.clone();
                    c2.push(t);
                    grown.push(c2);
                }
            }
            combos.extend(grown.iter().cloned());
            layer = grown;
        }
        let kinds = m.slot_names.len();
        let capacity: Vec<Vec<u8>> = combos
            .iter()
            .map(|c| {
                let mut cap = vec![0u8; kinds];
                for &t in c {
                    for s in &m.template(t).slots {
                        cap[s.0 as usize] += 1;
                    }
                }
                cap
            })
            .collect();
        let units = m.num_units();
        let start: Nfa = (0..combos.len()).map(|c| (c as u16, vec![0u8; kinds])).collect();
        let mut keys: HashMap<Vec<u8>, StateId> = HashMap::new();
        let mut nfas: Vec<Nfa> = vec![start];
        let mut counts: Vec<Vec<u8>> = vec![vec![0u8; units]];
        keys.insert(counts[0].clone(), Automaton::START);
        let mut next: Vec<Vec<Option<StateId>>> = Vec::new();
        let mut i = 0;
        while i < nfas.len() {
            let mut row = vec![None; units];
            for (u, slot) in row.iter_mut().enumerate() {
                let uk = UnitKind(u as u8);
                if m.cap(uk).is_some_and(|c| counts[i][u] as u32 >= c) {
                    continue;
                }
                let mut c2 = counts[i].clone();
                c2[u] += 1;
                if let Some(&s) = keys.get(&c2) {
                    *slot = Some(s);
                    continue;
                }
                let stepped = step(m, &capacity, &nfas[i], uk);
                if stepped.is_empty() {
                    continue;
                }
                let id = StateId(nfas.len() as u32);
                keys.insert(c2.clone(), id);
                nfas.push(stepped);
                counts.push(c2);
                *slot = Some(id);
            }
            next.push(row);
            i += 1;
        }
        let best = nfas.iter().map(|n| n.iter().map(|(c, _)| *c).min().unwrap()).collect();
        let size = counts.iter().map(|c| c.iter().sum()).collect();
        Automaton { combos, next, best, size }
    }

    pub fn step(&self, s: StateId, u: UnitKind) -> Option<StateId> {
        self.next[s.0 as usize][u.0 as usize]
    }

    /// The state after issuing `units` in one cycle, if they fit.
    pub fn run(&self, units: impl IntoIterator<Item = UnitKind>) -> Option<StateId> {
        units.into_iter().try_fold(Automaton::START, |s, u| self.step(s, u))
    }

    /// Whether no further op of any kind can issue in this cycle.
    pub fn is_full(&self, s: StateId) -> bool {
        self.next[s.0 as usize].iter().all(Option::is_none)
    }

    pub fn num_states(&self) -> usize {
        self.next.len()
    }

    pub fn ops_in(&self, s: StateId) -> usize {
        self.size[s.0 as usize] as usize
    }

    /// The most ops whose unit kinds are all in `units` that one cycle can
    /// issue: a resource bound for ResMII (Hall's condition on the slots).
    pub fn max_ops_of(&self, units: &[UnitKind]) -> usize {
        let mut seen = vec![false; self.next.len()];
        let mut stack = vec![Automaton::START];
        seen[0] = true;
        let mut most = 0;
        while let Some(s) = stack.pop() {
            most = most.max(self.ops_in(s));
            for &u in units {
                if let Some(t) = self.step(s, u) {
                    if !std::mem::replace(&mut seen[t.0 as usize], true) {
                        stack.push(t);
                    }
                }
            }
        }
        most
    }

    /// The bundles of a finished cycle: the first template combination (fewest
    /// bundles, then model order) that holds the state, ops put in slots.
    /// `ops` must be the ops that led to `s`.
    pub fn layout(&self, m: &Machine, s: StateId, ops: &[(usize, UnitKind)]) -> Vec<Bundle> {
        if ops.is_empty() {
            return Vec::new();
        }
        let combo = &self.combos[self.best[s.0 as usize] as usize];
        let slots: Vec<SlotKind> = combo.iter().flat_map(|&t| m.template(t).slots.iter().copied()).collect();
        let mut order: Vec<usize> = (0..ops.len()).collect();
        order.sort_by_key(|&i| m.unit_slots[ops[i].1 .0 as usize].len());
        let mut filled: Vec<Option<usize>> = vec![None; slots.len()];
        let placed = place(m, &slots, ops, &order, &mut filled);
        assert!(placed, "automaton state {s:?} has no layout in its best combination");
        let mut bundles = Vec::new();
        let mut at = 0;
        for &t in combo {
            let n = m.template(t).slots.len();
            bundles.push(Bundle { template: t, slots: filled[at..at + n].to_vec() });
            at += n;
        }
        bundles
    }
}

fn step(m: &Machine, capacity: &[Vec<u8>], from: &Nfa, u: UnitKind) -> Nfa {
    let mut out = Nfa::new();
    for (c, used) in from {
        for &k in &m.unit_slots[u.0 as usize] {
            let k = k.0 as usize;
            if used[k] < capacity[*c as usize][k] {
                let mut u2 = used.clone();
                u2[k] += 1;
                out.insert((*c, u2));
            }
        }
    }
    out
}

fn place(m: &Machine, slots: &[SlotKind], ops: &[(usize, UnitKind)], order: &[usize], filled: &mut [Option<usize>]) -> bool {
    let Some((&first, rest)) = order.split_first() else { return true };
    let (op, u) = ops[first];
    for i in 0..slots.len() {
        if filled[i].is_none() && m.accepts(u, slots[i]) {
            filled[i] = Some(op);
            if place(m, slots, ops, rest, filled) {
                return true;
            }
            filled[i] = None;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(m: &Machine, names: &str) -> Vec<UnitKind> {
        names.split_whitespace().map(|n| m.unit(n).unwrap()).collect()
    }

    #[test]
    fn itanium_cycle_limits() {
        let m = Machine::load("itanium2").unwrap();
        let a = Automaton::new(&m);
        // The patent's split-issue set fits one cycle.
        assert!(a.run(units(&m, "A I A M A M")).is_some());
        // Seven ops never do; three F ops exceed the two F ports.
        assert!(a.run(units(&m, "A A A A A A A")).is_none());
        assert!(a.run(units(&m, "F F F")).is_none());
        assert!(a.run(units(&m, "F F")).is_some());
        // Two movl need two MLX bundles.
        assert!(a.run(units(&m, "L L")).is_some());
        assert!(a.run(units(&m, "L L M M")).is_some());
        assert!(a.run(units(&m, "L L I")).is_none());
        assert!(a.is_full(a.run(units(&m, "A A A A A A")).unwrap()));
        assert_eq!(a.max_ops_of(&units(&m, "I")), 2);
        assert_eq!(a.max_ops_of(&units(&m, "M A")), 6);
    }

    #[test]
    fn hexagon_packet() {
        let m = Machine::load("hexagon").unwrap();
        let a = Automaton::new(&m);
        assert!(a.run(units(&m, "LD LD X X")).is_some());
        assert!(a.run(units(&m, "LD LD LD")).is_none());
        assert!(a.run(units(&m, "ST ST")).is_none());
        assert!(a.run(units(&m, "X X X")).is_none());
        assert!(a.run(units(&m, "A32 A32 A32 A32 A32")).is_none());
    }
}
