//! Modulo scheduling: the bounds ResMII and RecMII, and Rau's iterative
//! modulo scheduling (B. R. Rau, "Iterative Modulo Scheduling", MICRO-27,
//! 1994) with the template automaton as the modulo reservation table.
//!
//! * ResMII: for every set U of unit kinds present, the ops of kinds in U
//!   need at least ceil(|ops in U| / most ops of U one cycle can issue)
//!   cycles (the most is read off the automaton). The maximum over U.
//! * RecMII: the least II at which no dependence cycle has positive length
//!   with arc weights `latency - II * omega` (Bellman-Ford from a virtual
//!   source, petgraph), i.e. max over cycles of ceil(sum latency / sum omega).
//! * IMS: ops by decreasing height (longest `latency - II*omega` path to a
//!   sink); each goes to the first cycle in [Estart, Estart + II - 1] whose
//!   row (cycle mod II) of the reservation table still accepts its unit
//!   kind; if none, it is forced and displaces ops of its row and the
//!   neighbours it now conflicts with. A budget of 3 * |ops| placements per
//!   II, then II + 1.
//!
//! The result is a flat schedule (cycle of each op in one iteration, from 0);
//! stage(op) = cycle / II (seed 002, claim 3).

use super::automaton::{Automaton, StateId};
use super::ddg::{Ddg, MAX_II};
use super::machine::UnitKind;
use petgraph::algo::bellman_ford;
use petgraph::graph::{DiGraph, NodeIndex};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    pub ii: u32,
    /// Flat-schedule cycle of each op.
    pub time: Vec<u32>,
}

impl Schedule {
    pub fn stage(&self, op: usize) -> u32 {
        self.time[op] / self.ii
    }

    pub fn stage_count(&self) -> u32 {
        self.time.iter().map(|t| (t / self.ii).saturating_add(1)).max().unwrap_or(1)
    }

    /// The ops of each kernel row (cycle mod II), in op order.
    pub fn rows(&self) -> Vec<Vec<usize>> {
        let mut rows = vec![Vec::new(); self.ii as usize];
        for (op, t) in self.time.iter().enumerate() {
            rows[(t % self.ii) as usize].push(op);
        }
        rows
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scheduled {
    pub res_mii: u32,
    pub rec_mii: u32,
    pub schedule: Schedule,
}

impl Scheduled {
    pub fn mii(&self) -> u32 {
        self.res_mii.max(self.rec_mii)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchedError {
    #[error("dependence cycle through op '{op}' has distance 0 and positive latency: no II satisfies it")]
    ZeroDistanceCycle { op: String },
    #[error("no schedule found up to II {ii}")]
    GaveUp { ii: u32 },
    #[error("the dependences need an II of at least {ii}, over the limit of {}", MAX_II)]
    IiOverLimit { ii: u32 },
}

/// ResMII from the automaton (see the module doc).
pub fn res_mii(g: &Ddg, a: &Automaton) -> u32 {
    let mut kinds: Vec<UnitKind> = g.ops.iter().map(|o| o.unit).collect();
    kinds.sort();
    kinds.dedup();
    if kinds.is_empty() {
        return 1;
    }
    let subsets = if kinds.len() <= 12 { 1u32 << kinds.len() } else { 1 << 12 };
    let mut bound = 1;
    for mask in 1..subsets {
        let set: Vec<UnitKind> = kinds.iter().enumerate().filter(|(i, _)| mask >> i & 1 == 1).map(|(_, &k)| k).collect();
        let n = g.ops.iter().filter(|o| set.contains(&o.unit)).count() as u32;
        let per_cycle = a.max_ops_of(&set) as u32;
        bound = bound.max(n.div_ceil(per_cycle.max(1)));
    }
    bound
}

/// Whether every dependence cycle is satisfied at `ii`: no cycle of positive
/// length under weights `latency - ii * omega`.
fn recurrences_fit(g: &Ddg, ii: u32) -> bool {
    let mut pg: DiGraph<(), f64> = DiGraph::new();
    let nodes: Vec<NodeIndex> = (0..=g.len()).map(|_| pg.add_node(())).collect();
    let source = nodes[g.len()];
    for &n in &nodes[..g.len()] {
        pg.add_edge(source, n, 0.0);
    }
    for a in &g.arcs {
        pg.add_edge(nodes[a.from], nodes[a.to], f64::from(ii) * f64::from(a.omega) - f64::from(a.latency));
    }
    bellman_ford(&pg, source).is_ok()
}

/// RecMII (see the module doc); 1 for a graph without cycles.
pub fn rec_mii(g: &Ddg) -> Result<u32, SchedError> {
    // A cycle of distance 0 and positive latency fails at every II.
    let limit = latency_sum(g).clamp(1, u64::from(u32::MAX)) as u32;
    if !recurrences_fit(g, limit) {
        let op = zero_distance_cycle_op(g);
        return Err(SchedError::ZeroDistanceCycle { op: g.ops[op].id.clone() });
    }
    let (mut lo, mut hi) = (1, limit);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if recurrences_fit(g, mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Ok(lo)
}

fn zero_distance_cycle_op(g: &Ddg) -> usize {
    let mut pg: DiGraph<(), ()> = DiGraph::new();
    let nodes: Vec<NodeIndex> = (0..g.len()).map(|_| pg.add_node(())).collect();
    for a in g.arcs.iter().filter(|a| a.omega == 0) {
        pg.add_edge(nodes[a.from], nodes[a.to], ());
    }
    petgraph::algo::kosaraju_scc(&pg)
        .into_iter()
        .find(|c| c.len() > 1 || g.arcs.iter().any(|a| a.omega == 0 && a.from == c[0].index() && a.to == a.from))
        .map_or(0, |c| c.iter().map(|n| n.index()).min().unwrap())
}

/// Modulo-schedules `g` at the least II from MII upward that IMS manages.
pub fn schedule(g: &Ddg, a: &Automaton) -> Result<Scheduled, SchedError> {
    let res = res_mii(g, a);
    let rec = rec_mii(g)?;
    let mii = res.max(rec);
    // The reservation table has II rows: a huge II is refused, not allocated.
    if mii > MAX_II {
        return Err(SchedError::IiOverLimit { ii: mii });
    }
    // A list schedule of one iteration per II always fits this II.
    let ceiling = (u64::from(mii) + latency_sum(g) + g.len() as u64 + 1).min(u64::from(MAX_II)) as u32;
    for ii in mii..=ceiling {
        if let Some(time) = ims(g, a, ii) {
            return Ok(Scheduled { res_mii: res, rec_mii: rec, schedule: Schedule { ii, time } });
        }
    }
    Err(SchedError::GaveUp { ii: ceiling })
}

/// The sum of the arcs' latencies, which cannot overflow.
fn latency_sum(g: &Ddg) -> u64 {
    g.arcs.iter().map(|a| u64::from(a.latency)).sum()
}

/// One IMS attempt at `ii`.
fn ims(g: &Ddg, a: &Automaton, ii: u32) -> Option<Vec<u32>> {
    let n = g.len();
    let ii_i = i64::from(ii);
    let delay = |arc: &super::ddg::Arc| i64::from(arc.latency) - ii_i * i64::from(arc.omega);
    // Height-based priority (Rau's HeightR).
    let mut height = vec![0i64; n];
    for _ in 0..=n {
        let mut changed = false;
        for arc in &g.arcs {
            let h = height[arc.to] + delay(arc);
            if h > height[arc.from] {
                height[arc.from] = h;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut time: Vec<Option<i64>> = vec![None; n];
    let mut last: Vec<Option<i64>> = vec![None; n];
    let mut rows: Vec<Vec<usize>> = vec![Vec::new(); ii as usize];
    let row_of = |t: i64| t.rem_euclid(ii_i) as usize;
    let state_of = |ops: &[usize]| -> Option<StateId> { a.run(ops.iter().map(|&o| g.ops[o].unit)) };
    let mut budget = 3 * n.max(1) + 10;
    let mut unscheduled = n;
    while unscheduled > 0 {
        if budget == 0 {
            return None;
        }
        budget -= 1;
        let op = (0..n).filter(|&o| time[o].is_none()).max_by_key(|&o| (height[o], std::cmp::Reverse(o))).unwrap();
        let estart = g.preds(op).filter(|p| p.from != op).filter_map(|p| time[p.from].map(|t| t + delay(p))).max().unwrap_or(0).max(0);
        let fits = |t: i64, rows: &Vec<Vec<usize>>| {
            let r = &rows[row_of(t)];
            state_of(r).and_then(|s| a.step(s, g.ops[op].unit)).is_some()
        };
        let t = match (estart..estart + ii_i).find(|&t| fits(t, &rows)) {
            Some(t) => t,
            None => match last[op] {
                Some(l) if l >= estart => l + 1,
                _ => estart,
            },
        };
        // Displace ops of the row until the op fits, same unit kind first.
        let r = row_of(t);
        while !fits(t, &rows) {
            let row = &rows[r];
            let victim = row.iter().copied().find(|&o| g.ops[o].unit == g.ops[op].unit).unwrap_or(row[0]);
            rows[r].retain(|&o| o != victim);
            time[victim] = None;
            unscheduled += 1;
        }
        rows[r].push(op);
        time[op] = Some(t);
        last[op] = Some(t);
        unscheduled -= 1;
        // Displace the neighbours whose dependences the placement breaks.
        for arc in g.succs(op).filter(|s| s.to != op) {
            if let Some(ts) = time[arc.to] {
                if ts < t + delay(arc) {
                    rows[row_of(ts)].retain(|&o| o != arc.to);
                    time[arc.to] = None;
                    unscheduled += 1;
                }
            }
        }
        for arc in g.preds(op).filter(|p| p.from != op) {
            if let Some(tp) = time[arc.from] {
                if t < tp + delay(arc) {
                    rows[row_of(tp)].retain(|&o| o != arc.from);
                    time[arc.from] = None;
                    unscheduled += 1;
                }
            }
        }
    }
    let min = time.iter().map(|t| t.unwrap()).min().unwrap_or(0);
    // Shift by whole stages only so rows (cycle mod II) stay where they are.
    let shift = min.div_euclid(ii_i) * ii_i;
    Some(time.iter().map(|t| (t.unwrap() - shift) as u32).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::machine::Machine;

    fn ddg(text: &str) -> (Machine, Ddg) {
        let m = Machine::load("itanium2").unwrap();
        let g = Ddg::parse(text, "t.ddg", &m).unwrap();
        (m, g)
    }

    #[test]
    fn bounds() {
        // A recurrence of latency 5 over distance 2: RecMII = 3.
        let (m, g) = ddg("op a x A\nop b y A\narc a -> b latency=2\narc b -> a latency=3 omega=2\n");
        assert_eq!(rec_mii(&g).unwrap(), 3);
        assert_eq!(res_mii(&g, &Automaton::new(&m)), 1);
        // Five I-unit ops on two I ports: ResMII = 3.
        let (m, g) = ddg("op a x I\nop b x I\nop c x I\nop d x I\nop e x I\n");
        assert_eq!(res_mii(&g, &Automaton::new(&m)), 3);
        // Fig. 1d: latency 1, omega 1 self arc, II = 1.
        let (_, g) = ddg("op 1 x A\nop 2 y A\narc 1 -> 1 latency=1 omega=1\narc 1 -> 2 latency=1\n");
        assert_eq!(rec_mii(&g).unwrap(), 1);
        let (_, g) = ddg("op 1 x A\nop 2 y A\narc 1 -> 2 latency=1\narc 2 -> 1 latency=1\n");
        assert_eq!(rec_mii(&g), Err(SchedError::ZeroDistanceCycle { op: "1".into() }));
    }

    #[test]
    fn huge_values_are_refused_or_saturate() {
        // A recurrence of six arcs of the largest latency over one
        // iteration needs II 6000, over MAX_II: refused before any table.
        let mut text: String = (0..6).map(|i| format!("op o{i} x A\n")).collect();
        text += &(0..6).map(|i| format!("arc o{i} -> o{} latency=1000 omega={}\n", (i + 1) % 6, u32::from(i == 5))).collect::<String>();
        let (m, g) = ddg(&text);
        assert_eq!(rec_mii(&g), Ok(6000));
        assert_eq!(schedule(&g, &Automaton::new(&m)), Err(SchedError::IiOverLimit { ii: 6000 }));
        let s = Schedule { ii: 1, time: vec![u32::MAX] };
        assert_eq!(s.stage_count(), u32::MAX);
    }

    #[test]
    fn stages_are_location_div_ii() {
        let s = Schedule { ii: 2, time: vec![0, 1, 2, 3, 4, 5] };
        assert_eq!((0..6).map(|o| s.stage(o)).collect::<Vec<_>>(), vec![0, 0, 1, 1, 2, 2]);
        assert_eq!(s.stage_count(), 3);
        assert_eq!(s.rows(), vec![vec![0, 2, 4], vec![1, 3, 5]]);
    }

    #[test]
    fn schedules_a_chain_at_mii() {
        let (m, g) = ddg("op l ld M\nop a add A\nop s st M\narc l -> a latency=2\narc a -> s latency=1\narc a -> a latency=1 omega=1\n");
        let r = schedule(&g, &Automaton::new(&m)).unwrap();
        assert_eq!(r.schedule.ii, 1);
        assert_eq!(r.schedule.time, vec![0, 2, 3]);
        assert_eq!(r.schedule.stage_count(), 4);
    }
}
