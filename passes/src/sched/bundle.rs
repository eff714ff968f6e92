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
//!   rename those apart.
//!   Step 119's absolute slot values: an op the automaton accepts is given a
//!   slot at once, the first free one (bundle by bundle, slot by slot, and
//!   at one slot in the model's order of its unit's slot kinds) that some
//!   template allows with the ops already there; if none is free, one placed
//!   op moves to a free slot and the new op takes its place (the
//!   micro-scheduler's negotiation); only if that fails too is the cycle
//!   laid out afresh from the automaton. Step 107's lag: a cycle's templates
//!   are fixed when the cycle after it ends (`prev_state`), and the last two
//!   at the end (A5). The patent lags because an IA-64 bundle with a stop
//!   inside may carry the end of one cycle and the start of the next; our
//!   models never share a bundle between cycles (A6), so the lag changes no
//!   layout: it is where a cycle's slots become final.
//! * [`linear`]: ORC's old SWP bundler (the patent's prior art, §4): slot by
//!   slot, each slot takes the first op (list order) fitting the first slot
//!   kind in a fixed priority that some template still allows and that the
//!   model's `linear.slot_caps` (Itanium 1's two I slots a cycle) leave
//!   room for; an empty slot gets a NOP by a NOP priority; a placed op is
//!   never moved. Same intra-cycle dependence test, so the comparison
//!   isolates slot filling.
//!
//! On the patent's split-issue example `simt-sched --machine itanium2`
//! prints (test-ir/sched/split-issue.ddg), exactly the patent's layouts:
//!
//! ```text
//!   ops_list: adds shr.u add lfetch xor ld8      (A I A M A M, no arcs)
//!   --bundler cyclic:  row 0 cycle 0: MII[ld8 shr.u add] MMI[lfetch xor adds]
//!   --bundler linear:  row 0 cycle 0: MII[adds shr.u add] MMF[lfetch xor nop.f]
//!                      row 0 cycle 1: MFB[ld8 nop.f nop.b]
//! ```

use super::automaton::{Automaton, StateId};
use super::ddg::Ddg;
use super::machine::{Machine, SlotKind, TemplateId, UnitKind};

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

/// A cycle being filled (the patent's `cur_state`): the automaton state, the
/// tried marks, and per position of the cycle (bundle `b`, slot `s`, index
/// `b * width + s`) the op placed there with the slot kind it takes. An op's
/// position is its slot value relative to the cycle; the absolute value adds
/// the bundles of the cycles before, known once they are finished.
#[derive(Clone)]
struct CycleState {
    fsa: StateId,
    pos: Vec<Option<(usize, SlotKind)>>,
    tried: Vec<usize>,
}

/// The usable templates and the widest one's slot count: the frame the
/// positions of a cycle live in.
struct Frame<'a> {
    m: &'a Machine,
    usable: Vec<TemplateId>,
    width: usize,
}

impl<'a> Frame<'a> {
    fn new(m: &'a Machine) -> Frame<'a> {
        let usable: Vec<TemplateId> = m.usable_templates().collect();
        let width = usable.iter().map(|&t| m.template(t).slots.len()).max().unwrap_or(0);
        Frame { m, usable, width }
    }

    fn empty(&self) -> CycleState {
        CycleState { fsa: Automaton::START, pos: vec![None; self.width * self.m.bundles_per_cycle], tried: Vec::new() }
    }

    /// The first usable template (model order) whose slots hold bundle `b`'s
    /// placed ops where they are.
    fn template_of(&self, pos: &[Option<(usize, SlotKind)>], b: usize) -> Option<TemplateId> {
        let bundle = &pos[b * self.width..(b + 1) * self.width];
        self.usable.iter().copied().find(|&t| {
            let slots = &self.m.template(t).slots;
            bundle.iter().enumerate().all(|(s, p)| p.is_none_or(|(_, k)| slots.get(s) == Some(&k)))
        })
    }

    fn bundle_fits(&self, pos: &[Option<(usize, SlotKind)>], i: usize) -> bool {
        self.template_of(pos, i / self.width).is_some()
    }

    /// `(position, slot kind)` pairs `u` may take, in position order and, at
    /// one position, in the model's order of `u`'s slot kinds.
    fn candidates(&self, u: UnitKind) -> impl Iterator<Item = (usize, SlotKind)> + '_ {
        let kinds = &self.m.unit_slots[u.0 as usize];
        (0..self.width * self.m.bundles_per_cycle).flat_map(move |i| kinds.iter().map(move |&k| (i, k)))
    }

    /// Step 119's "update op's absolute slot value": put `op` in the first
    /// free position a template allows, leaving the placed ops where they
    /// are; failing that, move one placed op to a free position and give
    /// `op` its place (the micro-scheduler's negotiation, smallest first);
    /// failing that, lay the whole cycle out afresh from the automaton.
    fn place(&self, a: &Automaton, g: &Ddg, st: &mut CycleState, op: usize) {
        let u = g.ops[op].unit;
        for (i, k) in self.candidates(u) {
            if st.pos[i].is_none() {
                st.pos[i] = Some((op, k));
                if self.bundle_fits(&st.pos, i) {
                    return;
                }
                st.pos[i] = None;
            }
        }
        for (i, k) in self.candidates(u) {
            let Some((other, old)) = st.pos[i] else { continue };
            for (j, k2) in self.candidates(g.ops[other].unit) {
                if st.pos[j].is_some() {
                    continue;
                }
                st.pos[i] = Some((op, k));
                st.pos[j] = Some((other, k2));
                if self.bundle_fits(&st.pos, i) && self.bundle_fits(&st.pos, j) {
                    return;
                }
                st.pos[j] = None;
            }
            st.pos[i] = Some((other, old));
        }
        let mut placed: Vec<(usize, UnitKind)> = st.pos.iter().flatten().map(|&(o, _)| (o, g.ops[o].unit)).collect();
        placed.push((op, u));
        st.pos = vec![None; st.pos.len()];
        for (b, bundle) in a.layout(self.m, st.fsa, &placed).iter().enumerate() {
            let kinds = &self.m.template(bundle.template).slots;
            for (s, o) in bundle.slots.iter().enumerate() {
                st.pos[b * self.width + s] = o.map(|o| (o, kinds[s]));
            }
        }
    }

    /// Step 107's "finish template assignment": the bundles of a finished
    /// cycle, each with the first template that holds its ops where they are;
    /// bundles left empty are dropped.
    fn finish(&self, st: &CycleState) -> Vec<Bundle> {
        (0..self.m.bundles_per_cycle)
            .filter(|b| st.pos[b * self.width..(b + 1) * self.width].iter().any(Option::is_some))
            .map(|b| {
                let template = self.template_of(&st.pos, b).expect("every placement keeps its bundle's template");
                let n = self.m.template(template).slots.len();
                let slots = st.pos[b * self.width..b * self.width + n].iter().map(|p| p.map(|(o, _)| o)).collect();
                Bundle { template, slots }
            })
            .collect()
    }
}

/// The patent's micro-scheduler (see the module doc).
pub fn cyclic(m: &Machine, a: &Automaton, g: &Ddg, stage: &[u32], ops_list: &[usize]) -> Result<Packing, BundleError> {
    let frame = Frame::new(m);
    let mut remaining: Vec<usize> = ops_list.to_vec();
    let mut packing = Packing::default();
    let mut prev_state: Option<CycleState> = None;
    let mut cur_state = frame.empty();
    // 103: until the list is empty.
    while !remaining.is_empty() {
        // 105/107: a new cycle when the state is full or every op was tried;
        // the cycle before the one ending gets its templates now (the lag).
        if a.is_full(cur_state.fsa) || remaining.iter().all(|o| cur_state.tried.contains(o)) {
            if cur_state.pos.iter().all(Option::is_none) {
                return Err(BundleError { op: g.ops[remaining[0]].id.clone(), machine: m.name.clone() });
            }
            if let Some(prev) = prev_state.take() {
                packing.cycles.push(frame.finish(&prev));
            }
            prev_state = Some(std::mem::replace(&mut cur_state, frame.empty()));
        }
        // 109: the first untried op.
        let op = *remaining.iter().find(|o| !cur_state.tried.contains(o)).unwrap();
        // 111: the intra-cycle dependence test against every placed op.
        let feasible = cur_state.pos.iter().flatten().all(|&(inst, _)| co_issuable(g, stage, inst, op));
        // 115/117: the automaton transition on the trial state.
        let trial = if feasible { a.step(cur_state.fsa, g.ops[op].unit) } else { None };
        match trial {
            Some(s) => {
                // 119: commit, and give the op its slot.
                cur_state.fsa = s;
                frame.place(a, g, &mut cur_state, op);
                remaining.retain(|&o| o != op);
            }
            // 121: mark tried.
            None => cur_state.tried.push(op),
        }
    }
    // 123, and A5: the last two cycles get their templates at the end.
    for st in prev_state.iter().chain([&cur_state]) {
        if st.pos.iter().any(Option::is_some) {
            packing.cycles.push(frame.finish(st));
        }
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
        let mut kinds_used: Vec<SlotKind> = Vec::new();
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
                    if m.linear_slot_caps[k.0 as usize].is_some_and(|c| kinds_used.iter().filter(|&&u| u == k).count() as u32 >= c) {
                        continue;
                    }
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
                    kinds_used.push(k);
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
        // Both exactly as the patent lays them out (002-notes.md §5.1).
        assert_eq!(c.render(&m, &g), "MII[ld8 shr.u add] MMI[lfetch xor adds]");
        assert_eq!(l.render(&m, &g), "MII[adds shr.u add] MMF[lfetch xor nop.f] | MFB[ld8 nop.f nop.b]");
    }
}
