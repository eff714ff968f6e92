//! The dataflow of seed 003: per descriptor, the definitions that reach a
//! program point and the kill set of bytes later definitions overwrote,
//! iterated over the blocks in reverse post-order to a fixed point.
//!
//! Two rule sets share the engine:
//!
//! - [`Rules::Patent`] follows the text literally, as the notes reconstruct
//!   it (003-notes.md §4): it reproduces both worked examples, intermediate
//!   states included. It is not sound: a def with no must-descriptor skips
//!   the descriptors that already have definitions (604, notes A6); an exact
//!   use looks at the overlapping descriptors only when its own kill set is
//!   non-empty (408), which misses a smaller definition on one side of a join
//!   whose kill the join intersected away. Fig. 5's way of resolving a use
//!   (clauses a6, a8: no kill test on the overlapping descriptors) is the
//!   option [`UseRule::Fig5`].
//! - [`Rules::Sound`], what the passes use: every object starts with an
//!   `entry` definition of all its bytes; a use collects every record of its
//!   object whose overlap with it is not killed; definitions that may not
//!   overwrite (inexact, predicated, through an unknown pointer, calls) add
//!   to a record and clear its kill set, since the bytes it had lost may be
//!   theirs now; only an exact, unconditional definition replaces and kills,
//!   and so does a loop fill ([`Program::fills`](super::model::Program)) on
//!   its exit edge, before the join: the bytes the loop surely wrote get one
//!   record whose definitions are the loop's own definitions of the object.
//!
//! Invariant of the sound rules, which the execution oracle
//! (`tests/memdeps_oracle.rs`) checks: at every point, the store that last
//! wrote any byte `x` of an object is in the definitions of some record whose
//! descriptor spans `x` and whose kill set does not contain `x`. A join keeps
//! it because definitions are united and kill sets intersected (over the
//! predecessors that have the record; a missing record is a fully killed one).
//!
//! Each block starts from the join of its predecessors' exit states. Before
//! the first pass ([`Start`]) the exit states are either empty (a back edge
//! adds nothing until its block has been visited: the default) or, as the
//! patent's step 303 says, each block's state computed from its immediate
//! dominator's in a first pass over the blocks. Both iterate to a fixed
//! point of the same equations; the 303 start can settle on a larger one (a
//! definition the dominator's state carried around a loop keeps itself
//! alive), sound but less precise: `tests/memdeps_oracle.rs` measures both.

use super::intervals::{Interval, IntervalSet};
use super::model::{overlap, AccessId, Def, DescId, Fill, Program, Ref};
use crate::analysis::dominators::DomTree;
use crate::cfg::{BlockId, Cfg};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rules {
    Sound,
    Patent,
}

/// How kill sets meet at a join. `Union` is wrong on purpose: the oracle
/// test shows that it catches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KillJoin {
    Intersect,
    Union,
}

/// What the blocks' exit states are before the first pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// Nothing: a predecessor not yet visited (a back edge in the first
    /// pass) adds nothing to a join, so the first pass sees forward paths
    /// only and later passes add what loops carry.
    Join,
    /// Step 303: an initial pass in which each block starts from its
    /// immediate dominator's exit state (the paths through the blocks
    /// between them left out); the passes of 304 then join every
    /// predecessor, a back edge bringing its 303 state in the first pass.
    Idom,
}

/// How the patent's rules resolve an exact use (only [`Rules::Patent`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UseRule {
    /// Fig. 4: an overlapping descriptor's definitions count only where its
    /// overlap with the use is not in its kill set (413).
    Fig4,
    /// Fig. 5 (clauses a6, a8): 413 is skipped; with no record of its own
    /// the use takes every overlapping descriptor's definitions (501), and
    /// with a record whose kill set is not empty, those and its own (502).
    Fig5,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub rules: Rules,
    pub kill_join: KillJoin,
    pub start: Start,
    pub use_rule: UseRule,
    /// Keep the state after every access (for the patent printer's trace).
    pub trace: bool,
    /// Kill what loops fill ([`Program::fills`]) on their exit edges; sound
    /// rules only (the patent has no such rule).
    pub fills: bool,
}

impl Config {
    pub const SOUND: Config = Config {
        rules: Rules::Sound,
        kill_join: KillJoin::Intersect,
        start: Start::Join,
        use_rule: UseRule::Fig4,
        trace: false,
        fills: true,
    };
    pub const PATENT: Config = Config {
        rules: Rules::Patent,
        kill_join: KillJoin::Intersect,
        start: Start::Join,
        use_rule: UseRule::Fig4,
        trace: true,
        fills: false,
    };
}

/// The most definitions a record lists before it says [`Def::Any`].
pub const MAX_DEFS: usize = 64;

/// One descriptor's entry in a state ("定值信息 / kill集信息").
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Record {
    /// Sorted, without duplicates.
    pub defs: Vec<Def>,
    pub kill: IntervalSet,
    /// Possibly killed by an inexact definition (example 2's flag).
    pub is_kill: bool,
}

impl Record {
    fn of(d: Def) -> Record {
        Record { defs: vec![d], kill: IntervalSet::new(), is_kill: false }
    }

    fn add_def(&mut self, d: Def) {
        if self.defs.last() == Some(&Def::Any) {
            return;
        }
        if let Err(i) = self.defs.binary_search(&d) {
            self.defs.insert(i, d);
            if self.defs.len() > MAX_DEFS || d == Def::Any {
                self.defs = vec![Def::Any];
            }
        }
    }
}

/// The records at one program point, by descriptor.
pub type State = BTreeMap<DescId, Record>;

/// Per byte of a use, the definitions that may have written it last: runs
/// of bytes with the same set, sorted, covering the use's bytes exactly.
pub type ByteDefs = Vec<(Interval, Vec<Def>)>;

/// The result: use-def sets and the states at block exits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// For each access with a use: the definitions that may reach it, sorted.
    pub use_defs: Vec<Option<Vec<Def>>>,
    /// For each access with an exact must-use, under the sound rules: its
    /// use-def set byte by byte (what store-to-load forwarding needs: which
    /// store supplies which bytes).
    pub use_bytes: Vec<Option<ByteDefs>>,
    /// Exit state of each block (`None` when unreachable).
    pub block_out: Vec<Option<State>>,
    /// State after each access at the fixed point, when traced.
    pub after: Vec<Option<State>>,
    /// Passes over the blocks until nothing changed.
    pub iterations: usize,
}

impl Solution {
    /// def-use chains: the accesses each access's definition may reach.
    pub fn def_uses(&self) -> Vec<Vec<AccessId>> {
        let mut out = vec![Vec::new(); self.use_defs.len()];
        for (u, defs) in self.use_defs.iter().enumerate() {
            for d in defs.iter().flatten() {
                if let Def::Access(a) = d {
                    out[*a as usize].push(u as AccessId);
                }
            }
        }
        out
    }
}

pub fn solve(p: &Program, cfg: &Cfg, dom: &DomTree, config: Config) -> Solution {
    let n = cfg.len();
    assert_eq!(p.blocks.len(), n, "one access list per block");
    let n_acc = p.accesses.len();
    let mut fills: HashMap<(usize, usize), Vec<&Fill>> = HashMap::new();
    if config.rules == Rules::Sound && config.fills {
        for f in &p.fills {
            fills.entry((f.from, f.to)).or_default().push(f);
        }
    }
    let mut engine = Engine { p, config, fills, use_defs: vec![None; n_acc], use_bytes: vec![None; n_acc], after: vec![None; n_acc] };
    let mut out: Vec<Option<State>> = vec![None; n];
    let mut iterations = 0;
    if config.start == Start::Idom {
        // 303, in reverse post-order so that every idom comes first; it
        // counts as a pass.
        iterations += 1;
        for &b in cfg.rpo() {
            let mut st = match dom.idom_block(b) {
                Some(d) if b != cfg.entry() => out[d.index()].clone().unwrap_or_default(),
                _ => engine.entry_state(),
            };
            for &a in &p.blocks[b.index()] {
                engine.step(&mut st, a);
            }
            out[b.index()] = Some(st);
        }
    }
    loop {
        iterations += 1;
        let mut changed = false;
        for &b in cfg.rpo() {
            let mut st = if b == cfg.entry() { engine.entry_state() } else { engine.join(cfg, dom, &out, b) };
            for &a in &p.blocks[b.index()] {
                engine.step(&mut st, a);
            }
            if out[b.index()].as_ref() != Some(&st) {
                out[b.index()] = Some(st);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    Solution { use_defs: engine.use_defs, use_bytes: engine.use_bytes, block_out: out, after: engine.after, iterations }
}

/// The definitions that may have written each byte of the exact descriptor
/// `d` last, at a point whose state is `st` (sound rules): byte `x` gets the
/// definitions of every record of `d`'s object that spans `x` and has not
/// lost `x` to a kill. By the invariant above, the last writer of `x` is
/// among them.
pub fn byte_defs(p: &Program, st: &State, d: DescId) -> ByteDefs {
    let span = p.span(d);
    let mut pieces: Vec<(Interval, &[Def])> = Vec::new();
    for &m in &p.descs_of[p.descs[d as usize].obj as usize] {
        let Some(r) = st.get(&m) else { continue };
        if let Some(ov) = overlap(span, p.span(m)) {
            pieces.extend(r.kill.gaps_in(ov).into_iter().map(|g| (g, r.defs.as_slice())));
        }
    }
    // Cut the span wherever a piece starts or ends; each cut gets the union
    // of the pieces that hold it.
    let mut cuts: Vec<u64> = vec![span.0];
    for &((lo, hi), _) in &pieces {
        cuts.push(lo);
        if hi < span.1 {
            cuts.push(hi + 1);
        }
    }
    cuts.sort_unstable();
    cuts.dedup();
    let mut out: ByteDefs = Vec::new();
    for (k, &lo) in cuts.iter().enumerate() {
        let hi = cuts.get(k + 1).map_or(span.1, |&next| next - 1);
        let mut defs: Vec<Def> = Vec::new();
        for &((plo, phi), ds) in &pieces {
            if plo <= lo && hi <= phi {
                defs.extend_from_slice(ds);
            }
        }
        defs.sort_unstable();
        defs.dedup();
        match out.last_mut() {
            Some(((_, h), last)) if *last == defs => *h = hi,
            _ => out.push(((lo, hi), defs)),
        }
    }
    out
}

struct Engine<'p> {
    p: &'p Program,
    config: Config,
    /// The fills on each edge `(from, to)`, when the config applies them.
    fills: HashMap<(usize, usize), Vec<&'p Fill>>,
    use_defs: Vec<Option<Vec<Def>>>,
    use_bytes: Vec<Option<ByteDefs>>,
    after: Vec<Option<State>>,
}

impl Engine<'_> {
    fn sound(&self) -> bool {
        self.config.rules == Rules::Sound
    }

    /// Sound rules: every object's bytes are defined by `entry`.
    fn entry_state(&self) -> State {
        let mut st = State::new();
        if self.sound() {
            for obj in &self.p.descs_of {
                st.insert(obj[0], Record::of(Def::Entry));
            }
        }
        st
    }

    /// Definitions united, kill sets intersected (φ handling, [0061]); a
    /// loop's exit edge first kills what the loop filled.
    fn join(&self, cfg: &Cfg, dom: &DomTree, out: &[Option<State>], b: BlockId) -> State {
        let mut preds = cfg.preds(b).iter().filter_map(|p| out[p.index()].as_ref().map(|st| self.along(*p, b, st)));
        let Some(first) = preds.next() else {
            return dom.idom_block(b).and_then(|d| out[d.index()].clone()).unwrap_or_default();
        };
        let mut st = first.into_owned();
        for other in preds {
            for (d, r) in other.iter() {
                match st.get_mut(d) {
                    None => {
                        st.insert(*d, r.clone());
                    }
                    Some(mine) => {
                        for &x in &r.defs {
                            mine.add_def(x);
                        }
                        mine.kill = match self.config.kill_join {
                            KillJoin::Intersect => mine.kill.intersect(&r.kill),
                            KillJoin::Union => mine.kill.union(&r.kill),
                        };
                        mine.is_kill |= r.is_kill;
                    }
                }
            }
        }
        st
    }

    /// The state `st` at the end of `from` as it arrives in `to`: with the
    /// kills of the loop fills on that edge.
    fn along<'s>(&self, from: BlockId, to: BlockId, st: &'s State) -> Cow<'s, State> {
        let Some(fills) = self.fills.get(&(from.index(), to.index())) else { return Cow::Borrowed(st) };
        let mut st = st.clone();
        for f in fills {
            let mut r = Record { defs: Vec::new(), kill: IntervalSet::new(), is_kill: false };
            for &a in &f.defs {
                r.add_def(Def::Access(a));
            }
            self.strong_def(&mut st, f.desc, r);
        }
        Cow::Owned(st)
    }

    fn step(&mut self, st: &mut State, a: AccessId) {
        let access = &self.p.accesses[a as usize];
        if let Some(u) = &access.use_ {
            let defs = if self.sound() { self.sound_use(st, u) } else { self.patent_use(st, u) };
            self.use_defs[a as usize] = Some(defs);
            if let Ref::Must(d) = u {
                if self.sound() && self.p.is_exact(*d) {
                    self.use_bytes[a as usize] = Some(byte_defs(self.p, st, *d));
                }
            }
        }
        if let Some(d) = &access.def {
            let me = Def::Access(a);
            match (d, access.predicated) {
                (Ref::Must(d), false) if self.p.is_exact(*d) => self.strong_def(st, *d, Record::of(me)),
                (Ref::Must(d), false) => self.inexact_def(st, *d, me),
                (Ref::Must(d), true) => self.predicated_def(st, *d, me),
                (Ref::May(objs), _) => self.unknown_def(st, objs, me),
            }
        }
        if self.config.trace {
            self.after[a as usize] = Some(st.clone());
        }
    }

    /// The records of `obj`'s descriptors.
    fn records_of<'s>(&'s self, st: &'s State, obj: u32) -> impl Iterator<Item = (DescId, &'s Record)> + 's {
        let descs = &self.p.descs_of[obj as usize];
        descs.iter().filter_map(move |&d| st.get(&d).map(|r| (d, r)))
    }

    fn sound_use(&self, st: &State, u: &Ref) -> Vec<Def> {
        let mut defs = Vec::new();
        match u {
            Ref::Must(u) => {
                let span = self.p.span(*u);
                for (m, r) in self.records_of(st, self.p.descs[*u as usize].obj) {
                    if overlap(span, self.p.span(m)).is_some_and(|ov| !r.kill.covers(ov)) {
                        defs.extend_from_slice(&r.defs);
                    }
                }
            }
            Ref::May(objs) => {
                for &o in objs {
                    for (m, r) in self.records_of(st, o) {
                        if !r.kill.covers(self.p.span(m)) {
                            defs.extend_from_slice(&r.defs);
                        }
                    }
                }
            }
        }
        defs.sort_unstable();
        defs.dedup();
        defs
    }

    /// Fig. 4 as the notes read it (§4.4), or Fig. 5 ([`UseRule`]).
    fn patent_use(&self, st: &State, u: &Ref) -> Vec<Def> {
        let mut defs = Vec::new();
        let fig5 = self.config.use_rule == UseRule::Fig5;
        let may_not_killed = |defs: &mut Vec<Def>, u: DescId| {
            let span = self.p.span(u);
            for m in self.p.may_descs(u) {
                if let Some(r) = st.get(&m) {
                    if fig5 || overlap(span, self.p.span(m)).is_some_and(|ov| !r.kill.covers(ov)) {
                        defs.extend_from_slice(&r.defs);
                    }
                }
            }
        };
        match u {
            Ref::May(objs) => {
                for &o in objs {
                    for (_, r) in self.records_of(st, o) {
                        defs.extend_from_slice(&r.defs);
                    }
                }
            }
            Ref::Must(u) if !self.p.is_exact(*u) => {
                if let Some(r) = st.get(u) {
                    defs.extend_from_slice(&r.defs);
                }
                for m in self.p.may_descs(*u) {
                    if let Some(r) = st.get(&m) {
                        defs.extend_from_slice(&r.defs);
                    }
                }
            }
            Ref::Must(u) => match st.get(u) {
                Some(r) => {
                    defs.extend_from_slice(&r.defs);
                    if !r.kill.is_empty() || r.is_kill {
                        may_not_killed(&mut defs, *u);
                    }
                }
                None => may_not_killed(&mut defs, *u),
            },
        }
        defs.sort_unstable();
        defs.dedup();
        defs
    }

    /// An exact, unconditional definition (607–609, Fig. 7): it replaces its
    /// descriptor's record and adds its bytes to the kill sets of the records
    /// it overlaps, deleting those it covers entirely.
    fn strong_def(&self, st: &mut State, d: DescId, mine: Record) {
        let span = self.p.span(d);
        for m in self.p.may_descs(d) {
            let Some(r) = st.get_mut(&m) else { continue };
            let mspan = self.p.span(m);
            let ov = overlap(span, mspan).expect("may-descriptors overlap");
            r.kill.insert(ov);
            if r.kill.covers(mspan) {
                st.remove(&m);
            }
        }
        st.insert(d, mine);
    }

    /// An inexact definition (610–611): overlapping records are marked
    /// `is_kill`. The patent replaces the descriptor's record; the sound
    /// rules add to it (`a[i]` does not overwrite what `a[j]` wrote).
    fn inexact_def(&self, st: &mut State, d: DescId, me: Def) {
        for m in self.p.may_descs(d) {
            if let Some(r) = st.get_mut(&m) {
                r.is_kill = true;
            }
        }
        if self.sound() {
            weak_add(st, d, me);
        } else {
            st.insert(d, Record::of(me));
        }
    }

    /// Fig. 8: a predicated definition adds itself to its descriptor's
    /// definitions; with no record it creates one, without killing others (A5).
    fn predicated_def(&self, st: &mut State, d: DescId, me: Def) {
        if self.sound() {
            weak_add(st, d, me);
        } else {
            st.entry(d).or_insert_with(|| Record::of(me)).add_def(me);
        }
    }

    /// A definition with no must-descriptor. The patent (602–605) creates
    /// records only for the descriptors that have none and are not covered
    /// by another; the sound rules add it to every object's whole record.
    fn unknown_def(&self, st: &mut State, objs: &[u32], me: Def) {
        if self.sound() {
            for &o in objs {
                weak_add(st, self.p.descs_of[o as usize][0], me);
            }
            return;
        }
        let candidates: Vec<DescId> = objs.iter().flat_map(|&o| self.p.descs_of[o as usize].iter().copied()).collect();
        let covered = |m: DescId| {
            let (lo, hi) = self.p.span(m);
            candidates.iter().any(|&c| {
                c != m
                    && self.p.is_exact(c)
                    && self.p.is_exact(m)
                    && self.p.descs[c as usize].obj == self.p.descs[m as usize].obj
                    && self.p.span(c).0 <= lo
                    && hi <= self.p.span(c).1
            })
        };
        for &m in &candidates {
            if !covered(m) && !st.contains_key(&m) {
                st.insert(m, Record::of(me));
            }
        }
    }
}

/// Adds a definition that may not overwrite: the bytes the record had lost
/// to kills may be this definition's now, so its kill set goes.
fn weak_add(st: &mut State, d: DescId, me: Def) {
    let r = st.entry(d).or_insert_with(|| Record { defs: Vec::new(), kill: IntervalSet::new(), is_kill: false });
    r.add_def(me);
    r.kill = IntervalSet::new();
}
