//! The independent checker and brute-force oracle for schedules and bundles.
//! Nothing here uses the automaton: whether ops fit one cycle is decided by
//! enumerating template sequences and slot assignments straight from the
//! machine model, so an automaton bug shows up as a disagreement.
//!
//! * [`check_schedule`]: every arc `a -> b` holds modulo II,
//!   `time(b) + II * omega >= time(a) + latency`, and every row's ops fit a
//!   cycle.
//! * [`check_packing`]: every op of the row is in exactly one slot, every
//!   bundle's template is usable and its slots accept their ops, a cycle has
//!   at most `bundles_per_cycle` bundles and respects the unit caps, and no
//!   two ops of one cycle are kept apart by seed 002's dependence test.
//! * [`optimum_cycles`]: the fewest cycles any legal packing of a row needs
//!   (set partitions, for small rows).

use super::bundle::{co_issuable, Packing};
use super::ddg::Ddg;
use super::machine::{Machine, SlotKind, TemplateId, UnitKind};
use super::modulo::Schedule;

/// Whether ops of these unit kinds fit one cycle, by enumeration.
pub fn fits_one_cycle(m: &Machine, units: &[UnitKind]) -> bool {
    if units.is_empty() {
        return true;
    }
    for (u, &cap) in m.caps.iter().enumerate() {
        if let Some(c) = cap {
            if units.iter().filter(|k| k.0 as usize == u).count() as u32 > c {
                return false;
            }
        }
    }
    let usable: Vec<TemplateId> = m
        .templates
        .iter()
        .enumerate()
        .filter(|(_, t)| !t.stop && !t.reserved && !t.slots.is_empty())
        .map(|(i, _)| TemplateId(i as u8))
        .collect();
    let mut seq = Vec::new();
    sequences(m, &usable, &mut seq, units)
}

fn sequences(m: &Machine, usable: &[TemplateId], seq: &mut Vec<TemplateId>, units: &[UnitKind]) -> bool {
    if !seq.is_empty() {
        let slots: Vec<SlotKind> = seq.iter().flat_map(|&t| m.template(t).slots.clone()).collect();
        if slots.len() >= units.len() && assign(m, &slots, units, &mut vec![false; slots.len()]) {
            return true;
        }
    }
    if seq.len() == m.bundles_per_cycle {
        return false;
    }
    for &t in usable {
        seq.push(t);
        let ok = sequences(m, usable, seq, units);
        seq.pop();
        if ok {
            return true;
        }
    }
    false
}

fn assign(m: &Machine, slots: &[SlotKind], units: &[UnitKind], used: &mut [bool]) -> bool {
    let Some((&u, rest)) = units.split_first() else { return true };
    for i in 0..slots.len() {
        if !used[i] && m.unit_slots[u.0 as usize].contains(&slots[i]) {
            used[i] = true;
            if assign(m, slots, rest, used) {
                return true;
            }
            used[i] = false;
        }
    }
    false
}

/// Violations of a modulo schedule, as sentences; empty when it is legal.
pub fn check_schedule(m: &Machine, g: &Ddg, s: &Schedule) -> Vec<String> {
    let mut out = Vec::new();
    if s.time.len() != g.len() {
        out.push(format!("{} times for {} ops", s.time.len(), g.len()));
        return out;
    }
    for a in &g.arcs {
        let (tf, tt) = (i64::from(s.time[a.from]), i64::from(s.time[a.to]));
        if tt + i64::from(s.ii) * i64::from(a.omega) < tf + i64::from(a.latency) {
            out.push(format!(
                "arc {} -> {} (latency {}, omega {}) violated: {} at {}, {} at {}, II {}",
                g.ops[a.from].id, g.ops[a.to].id, a.latency, a.omega, g.ops[a.from].id, tf, g.ops[a.to].id, tt, s.ii
            ));
        }
    }
    for (r, row) in s.rows().iter().enumerate() {
        let units: Vec<UnitKind> = row.iter().map(|&o| g.ops[o].unit).collect();
        if !fits_one_cycle(m, &units) {
            out.push(format!("row {r}: ops {} do not fit one cycle", ids(g, row)));
        }
    }
    out
}

fn ids(g: &Ddg, ops: &[usize]) -> String {
    ops.iter().map(|&o| g.ops[o].id.as_str()).collect::<Vec<_>>().join(",")
}

/// Violations of one row's packing, as sentences; empty when it is legal.
pub fn check_packing(m: &Machine, g: &Ddg, stage: &[u32], row: &[usize], p: &Packing) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen: Vec<usize> = Vec::new();
    for (c, cycle) in p.cycles.iter().enumerate() {
        if cycle.is_empty() || cycle.len() > m.bundles_per_cycle {
            out.push(format!("cycle {c}: {} bundles (1 to {} allowed)", cycle.len(), m.bundles_per_cycle));
        }
        let mut ops = Vec::new();
        for b in cycle {
            let t = m.template(b.template);
            if t.stop || t.reserved {
                out.push(format!("cycle {c}: template {} cannot carry a cycle", t.name));
            }
            if b.slots.len() != t.slots.len() {
                out.push(format!("cycle {c}: {} slots in a {} bundle", b.slots.len(), t.name));
                continue;
            }
            for (op, &k) in b.slots.iter().zip(&t.slots) {
                if let Some(op) = *op {
                    if !m.unit_slots[g.ops[op].unit.0 as usize].contains(&k) {
                        out.push(format!("cycle {c}: op {} ({}) in a {} slot", g.ops[op].id, m.unit_name(g.ops[op].unit), m.slot_name(k)));
                    }
                    ops.push(op);
                }
            }
        }
        if ops.is_empty() {
            out.push(format!("cycle {c}: no ops"));
        }
        for (u, &cap) in m.caps.iter().enumerate() {
            let n = ops.iter().filter(|&&o| g.ops[o].unit.0 as usize == u).count() as u32;
            if cap.is_some_and(|cap| n > cap) {
                out.push(format!("cycle {c}: {n} ops of unit {} (cap {})", m.unit_names[u], cap.unwrap()));
            }
        }
        for (i, &x) in ops.iter().enumerate() {
            for &y in &ops[i + 1..] {
                if !co_issuable(g, stage, x, y) {
                    out.push(format!("cycle {c}: ops {} and {} depend on each other", g.ops[x].id, g.ops[y].id));
                }
            }
        }
        seen.extend(ops);
    }
    let mut want = row.to_vec();
    want.sort();
    seen.sort();
    if want != seen {
        out.push(format!("packed ops {} differ from the row's {}", ids(g, &seen), ids(g, &want)));
    }
    out
}

/// The fewest cycles any legal packing of `row` takes (`None` above
/// `limit` ops, where enumerating set partitions is too slow).
pub fn optimum_cycles(m: &Machine, g: &Ddg, stage: &[u32], row: &[usize], limit: usize) -> Option<usize> {
    if row.len() > limit {
        return None;
    }
    if row.is_empty() {
        return Some(1);
    }
    let mut best = row.len() + 1;
    let mut blocks: Vec<Vec<usize>> = Vec::new();
    partitions(m, g, stage, row, &mut blocks, &mut best);
    (best <= row.len()).then_some(best)
}

fn partitions(m: &Machine, g: &Ddg, stage: &[u32], rest: &[usize], blocks: &mut Vec<Vec<usize>>, best: &mut usize) {
    if blocks.len() >= *best {
        return;
    }
    let Some((&op, rest)) = rest.split_first() else {
        *best = blocks.len();
        return;
    };
    for i in 0..blocks.len() {
        if blocks[i].iter().all(|&x| co_issuable(g, stage, x, op)) {
            blocks[i].push(op);
            let units: Vec<UnitKind> = blocks[i].iter().map(|&o| g.ops[o].unit).collect();
            if fits_one_cycle(m, &units) {
                partitions(m, g, stage, rest, blocks, best);
            }
            blocks[i].pop();
        }
    }
    blocks.push(vec![op]);
    partitions(m, g, stage, rest, blocks, best);
    blocks.pop();
}
