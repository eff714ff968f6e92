//! Bundlers: pack the ops of one modulo-schedule row (the `ops_list` the
//! scheduler believes issue in one cycle) into bundles, cycle by cycle.
//!
//! * [`cyclic`]: seed 002's micro-scheduler (patent CN1670699, Fig. 4, steps
//!   101-123, as reconstructed in 002-notes.md §6). Ops are tried in list
//!   order (A4) on a trial copy of the cycle's automaton state; an op that a
//!   placed op depends on, or that the automaton rejects, is marked tried and
//!   the next untried op is tried (A1); a new cycle starts when the state is
//!   full or every remaining op is tried. An intra-cycle arc (in either
//!   direction, A3) does not keep two ops apart when its latency is 0, its
//!   omega is not 0, or its ends are in different stages: rotating registers
//!   rename those apart. The layout is fixed when the cycle ends (A5).
//! * [`linear`]: ORC's old SWP bundler (the patent's prior art, §4): slot by
//!   slot, each slot takes the first op (list order) fitting the first slot
//!   kind in a fixed priority that some template still allows; an empty
//!   slot gets a NOP by a NOP priority; a placed op is never moved. Same
//!   intra-cycle dependence test, so the comparison isolates slot filling.
//!
//! ```text
//!   ops_list: adds shr.u add lfetch xor ld8      (A I A M A M, no arcs)
//!   cyclic: | MII ld8 shr.u add | MMI lfetch xor adds |     1 cycle, 0 NOPs
//!   linear: | MII adds shr.u add | MIB lfetch xor nop.b |
//!           | MFB ld8 nop.f nop.b |                        2 cycles, 3 NOPs
//! ```
//! (the exact cyclic pair depends on tie-breaking, A6.)

use super::automaton::Automaton;
use super::ddg::Ddg;
use super::machine::{Machine, SlotKind, TemplateId};

/// A bundle: a template and, per slot, the op in it (`None`: empty / NOP).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bundle {
    pub template: TemplateId,
    pub slots: Vec<Option<usize>>,
}

/// One row's ops packed into issue cycles.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Packing {
    pub cycles: Vec<Vec<Bundle>>,
}

impl Packing {
    /// Issue cycles; an empty row still takes one.
    pub fn num_cycles(&self) -> usize {
        self.cycles.len().max(1)
    }

    pub fn num_bundles(&self) -> usize {
        self.cycles.iter().map(Vec::len).sum()
    }

    pub fn num_nops(&self, m: &Machine) -> usize {
        if !m.fill_nops {
            return 0;
        }
        self.cycles.iter().flatten().map(|b| b.slots.iter().filter(|s| s.is_none()).count()).sum()
    }

    /// `MII[ld8 shr.u add] MMI[...] | ...`: cycles separated by `|`.
    pub fn render(&self, m: &Machine, g: &Ddg) -> String {
        let cycles: Vec<String> =
            self.cycles.iter().map(|c| c.iter().map(|b| render_bundle(m, g, b)).collect::<Vec<_>>().join(" ")).collect();
        cycles.join(" | ")
    }
}

pub fn render_bundle(m: &Machine, g: &Ddg, b: &Bundle) -> String {
    let t = m.template(b.template);
    let slots: Vec<String> = b
        .slots
        .iter()
        .zip(&t.slots)
        .map(|(op, &k)| match op {
            Some(o) => g.ops[*o].name.clone(),
            None if m.fill_nops => format!("nop.{}", m.slot_name(k).to_lowercase()),
            None => "-".to_string(),
        })
        .collect();
    format!("{}[{}]", t.name, slots.join(" "))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bundler {
    Cyclic,
    Linear,
}

impl Bundler {
    pub fn name(self) -> &'static str {
        match self {
            Bundler::Cyclic => "cyclic",
            Bundler::Linear => "linear",
        }
    }

    pub fn pack(self, m: &Machine, a: &Automaton, g: &Ddg, stage: &[u32], ops: &[usize]) -> Result<Packing, BundleError> {
        match self {
            Bundler::Cyclic => cyclic(m, a, g, stage, ops),
            Bundler::Linear => linear(m, g, stage, ops),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("op '{op}' cannot issue even in an empty cycle of machine '{machine}'")]
pub struct BundleError {
    pub op: String,
    pub machine: String,
}

/// Seed 002's step 111: may `a` and `b` issue in one cycle? Every arc
/// between them (either direction) must have latency 0, omega not 0, or
/// ends in different stages.
pub fn co_issuable(g: &Ddg, stage: &[u32], a: usize, b: usize) -> bool {
    let ok = |from: usize, to: usize| {
        g.succs(from).filter(|arc| arc.to == to).all(|arc| arc.latency == 0 || arc.omega != 0 || stage[from] != stage[to])
    };
    ok(a, b) && ok(b, a)
}

/// The patent's micro-scheduler (see the module doc).
pub fn cyclic(m: &Machine, a: &Automaton, g: &Ddg, stage: &[u32], ops_list: &[usize]) -> Result<Packing, BundleError> {
    let mut remaining: Vec<usize> = ops_list.to_vec();
    let mut packing = Packing::default();
    let mut cur_ops: Vec<usize> = Vec::new();
    let mut cur_state = Automaton::START;
    let mut tried: Vec<usize> = Vec::new();
    let finish = |cur_ops: &mut Vec<usize>, state, packing: &mut Packing| {
        let placed: Vec<_> = cur_ops.iter().map(|&o| (o, g.ops[o].unit)).collect();
        packing.cycles.push(a.layout(m, state, &placed));
        cur_ops.clear();
    };
    // 103: until the list is empty.
    while !remaining.is_empty() {
        // 105/107: a new cycle when the state is full or every op was tried.
        if a.is_full(cur_state) || remaining.iter().all(|o| tried.contains(o)) {
            if cur_ops.is_empty() {
                return Err(BundleError { op: g.ops[remaining[0]].id.clone(), machine: m.name.clone() });
            }
            finish(&mut cur_ops, cur_state, &mut packing);
            cur_state = Automaton::START;
            tried.clear();
        }
        // 109: the first untried op.
        let op = *remaining.iter().find(|o| !tried.contains(o)).unwrap();
        // 111: the intra-cycle dependence test against every placed op.
        let feasible = cur_ops.iter().all(|&inst| co_issuable(g, stage, inst, op));
        // 115/117: the automaton transition on the trial state.
        let trial = if feasible { a.step(cur_state, g.ops[op].unit) } else { None };
        match trial {
            Some(s) => {
                // 119: commit.
                cur_state = s;
                cur_ops.push(op);
                remaining.retain(|&o| o != op);
            }
            // 121: mark tried.
            None => tried.push(op),
        }
    }
    if !cur_ops.is_empty() {
        finish(&mut cur_ops, cur_state, &mut packing);
    }
    Ok(packing)
}

/// ORC's linear-priority bundler (see the module doc).
pub fn linear(m: &Machine, g: &Ddg, stage: &[u32], ops_list: &[usize]) -> Result<Packing, BundleError> {
    let usable: Vec<TemplateId> = m.usable_templates().collect();
    let extends = |prefix: &[SlotKind]| -> bool {
        usable.iter().any(|&t| {
            let s = &m.template(t).slots;
            s.len() >= prefix.len() && s[..prefix.len()] == *prefix
        })
    };
    let mut remaining: Vec<usize> = ops_list.to_vec();
    let mut packing = Packing::default();
    while !remaining.is_empty() {
        let mut cycle: Vec<Bundle> = Vec::new();
        let mut in_cycle: Vec<usize> = Vec::new();
        for _ in 0..m.bundles_per_cycle {
            if remaining.is_empty() {
                break;
            }
            let mut kinds: Vec<SlotKind> = Vec::new();
            let mut slots: Vec<Option<usize>> = Vec::new();
            let mut placed_any = false;
            for idx in 0.. {
                let can_grow = usable.iter().any(|&t| {
                    let s = &m.template(t).slots;
                    s.len() > idx && s[..idx] == kinds[..]
                });
                if !can_grow {
                    break;
                }
                let mut chosen = None;
                'kinds: for &k in &m.linear_slot_priority[idx] {
                    kinds.push(k);
                    let ok = extends(&kinds);
                    kinds.pop();
                    if !ok {
                        continue;
                    }
                    for &op in &remaining {
                        let u = g.ops[op].unit;
                        let capped = m.cap(u).is_some_and(|c| in_cycle.iter().filter(|&&o| g.ops[o].unit == u).count() as u32 >= c);
                        if m.accepts(u, k) && !capped && in_cycle.iter().all(|&i| co_issuable(g, stage, i, op)) {
                            chosen = Some((k, Some(op)));
                            break 'kinds;
                        }
                    }
                }
                if chosen.is_none() {
                    chosen = m.linear_nop_priority[idx]
                        .iter()
                        .copied()
                        .find(|&k| {
                            kinds.push(k);
                            let ok = extends(&kinds);
                            kinds.pop();
                            ok
                        })
                        .map(|k| (k, None));
                }
                // A slot kind no NOP priority names: any kind a template allows.
                let (k, op) = chosen.unwrap_or_else(|| {
                    let t = usable.iter().find(|&&t| m.template(t).slots.len() > idx && m.template(t).slots[..idx] == kinds[..]).unwrap();
                    (m.template(*t).slots[idx], None)
                });
                kinds.push(k);
                slots.push(op);
                if let Some(op) = op {
                    placed_any = true;
                    in_cycle.push(op);
                    remaining.retain(|&o| o != op);
                }
            }
            if !placed_any {
                break;
            }
            let template = *usable.iter().find(|&&t| m.template(t).slots == kinds).expect("a full prefix is a template");
            cycle.push(Bundle { template, slots });
        }
        if cycle.is_empty() {
            return Err(BundleError { op: g.ops[remaining[0]].id.clone(), machine: m.name.clone() });
        }
        packing.cycles.push(cycle);
    }
    Ok(packing)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split_issue_set() -> (Machine, Ddg) {
        let m = Machine::load("itanium2").unwrap();
        let text = "op 1 adds A\nop 2 shr.u I\nop 3 add A\nop 4 lfetch M\nop 5 xor A\nop 6 ld8 M\n";
        let g = Ddg::parse(text, "t.ddg", &m).unwrap();
        (m, g)
    }

    #[test]
    fn patent_split_issue_example() {
        let (m, g) = split_issue_set();
        let a = Automaton::new(&m);
        let all: Vec<usize> = (0..6).collect();
        let stage = vec![0; 6];
        let c = cyclic(&m, &a, &g, &stage, &all).unwrap();
        assert_eq!((c.num_cycles(), c.num_bundles(), c.num_nops(&m)), (1, 2, 0));
        let l = linear(&m, &g, &stage, &all).unwrap();
        assert_eq!((l.num_cycles(), l.num_bundles(), l.num_nops(&m)), (2, 3, 3));
        // The baseline's first bundle is the patent's MII{adds, shr.u, add}
        // and its last MFB{ld8, nop.f, nop.b}.
        assert_eq!(render_bundle(&m, &g, &l.cycles[0][0]), "MII[adds shr.u add]");
        assert_eq!(render_bundle(&m, &g, &l.cycles[1][0]), "MFB[ld8 nop.f nop.b]");
    }
}
