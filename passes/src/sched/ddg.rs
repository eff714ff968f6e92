//! The data-dependence graph of one loop body, DDG(N, A) of seed 002: ops
//! with a unit kind, arcs with (omega, latency), omega being the number of
//! iterations the dependence spans. Built from IR (`sched::loop_ddg`) or read
//! from a `.ddg` text file so that the patent's examples, given as ops rather
//! than IR, run as they are written:
//!
//! ```text
//! # comment
//! ii 2                              optional: the II of a given schedule
//! op 6 adds A at=4                  op ID NAME UNIT-OR-CLASS [at=FLAT-CYCLE]
//! arc 6 -> 2 latency=1 omega=1      latency defaults to the class latency
//! ```
//!
//! `UNIT-OR-CLASS` is a unit kind of the machine (`A`, `M`, ...) or one of its
//! op classes (`load`, `alu`, ...), which also gives the arcs out of the op a
//! default latency. `at=` positions, when every op has one, are a flat
//! schedule to bundle as given instead of scheduling. Numbers are bounded
//! ([`MAX_II`], [`MAX_CYCLE`], [`MAX_LATENCY`], [`MAX_OMEGA`]): they size the
//! reservation table and the scheduler's search.

use super::machine::{Machine, UnitKind};

/// The largest II a schedule may have, given (`ii N`) or found: the modulo
/// reservation table has II rows, and `ii 4294967295` asked for 103 GB.
pub const MAX_II: u32 = 4096;
/// The largest flat cycle (`at=`): stages and listings count up to it.
pub const MAX_CYCLE: u32 = 1 << 20;
/// The largest latency of an arc or op class: II and the schedule's length
/// grow with sums of latencies (one of 4294967295 made simt-sched hang).
pub const MAX_LATENCY: u32 = 1000;
/// The largest omega (iteration distance) of an arc.
pub const MAX_OMEGA: u32 = 1000;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Op {
    pub id: String,
    pub name: String,
    pub unit: UnitKind,
    /// The result latency of the op's class, if it was given by class.
    pub latency: Option<u32>,
    pub at: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arc {
    pub from: usize,
    pub to: usize,
    pub latency: u32,
    pub omega: u32,
}

#[derive(Clone, Debug, Default)]
pub struct Ddg {
    pub ops: Vec<Op>,
    pub arcs: Vec<Arc>,
    /// The II of a given schedule (`ii N`).
    pub ii: Option<u32>,
    succs: Vec<Vec<usize>>,
    preds: Vec<Vec<usize>>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: error: {message}")]
pub struct DdgError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

impl Ddg {
    pub fn new(ops: Vec<Op>, arcs: Vec<Arc>) -> Ddg {
        let mut succs = vec![Vec::new(); ops.len()];
        let mut preds = vec![Vec::new(); ops.len()];
        for (i, a) in arcs.iter().enumerate() {
            succs[a.from].push(i);
            preds[a.to].push(i);
        }
        Ddg { ops, arcs, ii: None, succs, preds }
    }

    pub fn len(&self) -> usize {
        self.ops.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Arcs out of `op`.
    pub fn succs(&self, op: usize) -> impl Iterator<Item = &Arc> + '_ {
        self.succs[op].iter().map(|&i| &self.arcs[i])
    }

    /// Arcs into `op`.
    pub fn preds(&self, op: usize) -> impl Iterator<Item = &Arc> + '_ {
        self.preds[op].iter().map(|&i| &self.arcs[i])
    }

    /// The flat schedule given by `at=` on every op, if it is complete.
    pub fn given_times(&self) -> Option<Vec<u32>> {
        self.ops.iter().map(|o| o.at).collect()
    }

    /// Parses a `.ddg` file; `file` names it in errors.
    pub fn parse(text: &str, file: &str, m: &Machine) -> Result<Ddg, DdgError> {
        let mut ops: Vec<Op> = Vec::new();
        let mut arcs = Vec::new();
        let mut ii = None;
        for (n, raw) in text.lines().enumerate() {
            let line = n + 1;
            let err = |message: String| DdgError { file: file.to_string(), line, message };
            let content = raw.split('#').next().unwrap_or("");
            let words: Vec<&str> = content.split_whitespace().collect();
            let Some((&kw, rest)) = words.split_first() else { continue };
            match kw {
                "ii" => {
                    let [v] = rest else { return Err(err("expected 'ii N'".into())) };
                    let v = number(v).filter(|&v| v > 0).ok_or_else(|| err(format!("ii '{v}': expected a positive integer")))?;
                    if v > MAX_II {
                        return Err(err(format!("ii {v} is over the limit of {MAX_II}")));
                    }
                    if ii.replace(v).is_some() {
                        return Err(err("ii given twice".into()));
                    }
                }
                "op" => {
                    let [id, name, kind, opts @ ..] = rest else {
                        return Err(err("expected 'op ID NAME UNIT-OR-CLASS [at=N]'".into()));
                    };
                    if ops.iter().any(|o| o.id == *id) {
                        return Err(err(format!("op '{id}' defined twice")));
                    }
                    let (unit, latency) = match (m.unit(kind), m.classes.get(*kind)) {
                        (Some(u), _) => (u, None),
                        (None, Some(c)) => (c.unit, Some(c.latency)),
                        (None, None) => {
                            let classes: Vec<&str> = m.classes.keys().map(String::as_str).collect();
                            return Err(err(format!(
                                "'{kind}' is neither a unit kind of machine '{}' ({}) nor an op class ({})",
                                m.name,
                                m.unit_names.join(", "),
                                classes.join(", ")
                            )));
                        }
                    };
                    let mut at = None;
                    for o in opts {
                        let (k, v) = key_value(o).ok_or_else(|| err(format!("'{o}': expected key=value")))?;
                        match k {
                            "at" => {
                                let t = number(v).ok_or_else(|| err(format!("at={v}: expected a cycle number")))?;
                                if t > MAX_CYCLE {
                                    return Err(err(format!("at={t} is over the limit of {MAX_CYCLE} cycles")));
                                }
                                at = Some(t);
                            }
                            _ => return Err(err(format!("unknown op option '{k}' (expected at=)"))),
                        }
                    }
                    ops.push(Op { id: id.to_string(), name: name.to_string(), unit, latency, at });
                }
                "arc" => {
                    let [from, arrow, to, opts @ ..] = rest else {
                        return Err(err("expected 'arc FROM -> TO [latency=N] [omega=N]'".into()));
                    };
                    if *arrow != "->" {
                        return Err(err(format!("expected '->' after '{from}', found '{arrow}'")));
                    }
                    let find = |id: &str| {
                        ops.iter().position(|o| o.id == id).ok_or_else(|| err(format!("arc names op '{id}', not defined above")))
                    };
                    let (f, t) = (find(from)?, find(to)?);
                    let (mut latency, mut omega) = (ops[f].latency, 0);
                    for o in opts {
                        let (k, v) = key_value(o).ok_or_else(|| err(format!("'{o}': expected key=value")))?;
                        let limit = match k {
                            "latency" => MAX_LATENCY,
                            "omega" => MAX_OMEGA,
                            _ => return Err(err(format!("unknown arc option '{k}' (expected latency=, omega=)"))),
                        };
                        let v = number(v).ok_or_else(|| err(format!("{k}={v}: expected a non-negative integer")))?;
                        if v > limit {
                            return Err(err(format!("{k}={v} is over the limit of {limit}")));
                        }
                        match k {
                            "latency" => latency = Some(v),
                            _ => omega = v,
                        }
                    }
                    let latency = latency.ok_or_else(|| err(format!("arc {from} -> {to}: no latency= and op '{from}' has no class")))?;
                    arcs.push(Arc { from: f, to: t, latency, omega });
                }
                _ => return Err(err(format!("unknown directive '{kw}' (expected ii, op, arc)"))),
            }
        }
        let given = ops.iter().filter(|o| o.at.is_some()).count();
        if given != 0 && given != ops.len() {
            let missing = ops.iter().find(|o| o.at.is_none()).unwrap();
            return Err(DdgError { file: file.into(), line: 0, message: format!("op '{}' has no at= but others do", missing.id) })
                .map_err(|e| DdgError { line: line_of(text, &missing.id), ..e });
        }
        if given != 0 && ii.is_none() {
            return Err(DdgError { file: file.into(), line: 1, message: "a flat schedule (at=) needs 'ii N'".into() });
        }
        let mut g = Ddg::new(ops, arcs);
        g.ii = ii;
        Ok(g)
    }
}

fn number(s: &str) -> Option<u32> {
    s.parse().ok()
}

fn key_value(s: &str) -> Option<(&str, &str)> {
    s.split_once('=')
}

fn line_of(text: &str, id: &str) -> usize {
    text.lines()
        .position(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            w.len() > 1 && w[0] == "op" && w[1] == id
        })
        .map_or(0, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ops_and_arcs() {
        let m = Machine::load("itanium2").unwrap();
        let g = Ddg::parse("ii 2\nop 1 st1 M at=0 # store\nop 6 adds A at=4\narc 6 -> 1 latency=1\n", "t.ddg", &m).unwrap();
        assert_eq!(g.len(), 2);
        assert_eq!(g.ii, Some(2));
        assert_eq!(g.arcs, vec![Arc { from: 1, to: 0, latency: 1, omega: 0 }]);
        assert_eq!(g.given_times(), Some(vec![0, 4]));
        let g = Ddg::parse("op a ld load\narc a -> a omega=1\n", "t.ddg", &m).unwrap();
        assert_eq!(g.arcs[0].latency, 2);
    }

    #[test]
    fn errors_have_file_and_line() {
        let m = Machine::load("itanium2").unwrap();
        let cases = [
            ("op 1 x A\narc 1 -> 2 latency=1\n", "t.ddg:2: error: arc names op '2'"),
            ("op 1 x Q\n", "t.ddg:1: error: 'Q' is neither"),
            ("\nii zero\n", "t.ddg:2: error: ii 'zero'"),
            ("op 1 x A at=0\nop 2 y A\nii 1\n", "t.ddg:2: error: op '2' has no at="),
            ("op 1 x A\narc 1 -> 1\n", "t.ddg:2: error: arc 1 -> 1: no latency="),
            ("frob\n", "t.ddg:1: error: unknown directive"),
            ("ii 4294967295\n", "t.ddg:1: error: ii 4294967295 is over the limit of 4096"),
            ("ii 4294967296\n", "t.ddg:1: error: ii '4294967296': expected a positive integer"),
            ("ii 1\nop 1 x A at=4294967295\n", "t.ddg:2: error: at=4294967295 is over the limit of 1048576 cycles"),
            ("op 1 x A\narc 1 -> 1 latency=4294967295 omega=1\n", "t.ddg:2: error: latency=4294967295 is over the limit of 1000"),
            ("op 1 x A\narc 1 -> 1 latency=1 omega=1001\n", "t.ddg:2: error: omega=1001 is over the limit of 1000"),
            ("op 1 x A\narc 1 -> 1 colour=1\n", "t.ddg:2: error: unknown arc option 'colour'"),
        ];
        for (text, want) in cases {
            let e = Ddg::parse(text, "t.ddg", &m).unwrap_err().to_string();
            assert!(e.starts_with(want), "{e} / {want}");
        }
    }
}
