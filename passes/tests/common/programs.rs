//! Two CFG generators: fully random graphs, and structured programs lowered
//! to blocks.
//!
//! - [`random_cfg`]: irreducible cycles, unreachable blocks, infinite loops,
//!   self loops, several exits and duplicate edges; an optional backbone of
//!   fall-through edges keeps most of the graph reachable.
//! - [`Stmt`] programs (sequences, if/else, if-then, switches, while,
//!   do-while, endless loops, multi-level break/continue, early returns),
//!   built from a byte stream so that proptest shrinks programs by shrinking
//!   the stream, lowered with blocks numbered in creation order (every forward
//!   edge's target after its source), and optionally renumbered at random.

use proptest::prelude::*;

/// Random graphs of 1 to 39 blocks with up to `max_edges` random successors
/// each (half of them near the block), plus, on a backbone graph, a
/// fall-through edge `b -> b+1` at a random position in all but one block in
/// eight, which keeps most of the graph reachable. Duplicates are kept in the
/// raw lists (the `Cfg` constructor drops them).
pub fn random_cfg(max_edges: usize) -> impl Strategy<Value = Vec<Vec<u32>>> {
    (1usize..40, any::<bool>()).prop_flat_map(move |(n, backbone)| {
        let edge = (any::<bool>(), 0..n as u32, -3i64..=3);
        let edges = proptest::collection::vec(edge, 0..=max_edges);
        // (successors, position of the fall-through edge or None for an exit)
        let block = (edges, prop_oneof![1 => Just(None), 7 => (0usize..4).prop_map(Some)]);
        proptest::collection::vec(block, n).prop_map(move |blocks| {
            blocks
                .into_iter()
                .enumerate()
                .map(|(b, (edges, fall))| {
                    let mut list: Vec<u32> = edges
                        .into_iter()
                        .map(|(local, uniform, off)| if local { (b as i64 + off).clamp(0, n as i64 - 1) as u32 } else { uniform })
                        .collect();
                    if backbone {
                        match fall {
                            Some(at) if b + 1 < n => list.insert(at.min(list.len()), b as u32 + 1),
                            _ if b + 1 < n => list.clear(),
                            _ => {}
                        }
                    }
                    list
                })
                .collect()
        })
    })
}

#[derive(Clone, Debug)]
pub enum Stmt {
    Basic,
    Seq(Vec<Stmt>),
    If(Box<Stmt>, Box<Stmt>),
    IfThen(Box<Stmt>),
    Switch(Vec<Stmt>),
    While(Box<Stmt>),
    DoWhile(Box<Stmt>),
    /// `loop { body }`: left only by `Break` (otherwise an infinite loop).
    Forever(Box<Stmt>),
    /// Leaves the k-th enclosing loop (mod the nesting depth).
    Break(u8),
    /// Jumps to the continue target of the k-th enclosing loop.
    Continue(u8),
    Return,
}

/// Builds a statement from a stream of choice bytes. Loops are weighted up so
/// that nesting two to four deep is common; past depth 6 only leaves are
/// built.
pub fn build(c: &mut std::slice::Iter<'_, u8>, depth: u32) -> Stmt {
    let Some(&x) = c.next() else { return Stmt::Basic };
    let arg = |c: &mut std::slice::Iter<'_, u8>| c.next().copied().unwrap_or(0);
    match if depth >= 6 { x % 8 } else { x % 22 } {
        0..=3 | 7 => Stmt::Basic,
        4 => Stmt::Break(arg(c)),
        5 => Stmt::Continue(arg(c)),
        6 => Stmt::Return,
        8..=10 => {
            let len = 2 + arg(c) as usize % 3;
            Stmt::Seq((0..len).map(|_| build(c, depth + 1)).collect())
        }
        11 | 12 => {
            let t = build(c, depth + 1);
            Stmt::If(Box::new(t), Box::new(build(c, depth + 1)))
        }
        13 => Stmt::IfThen(Box::new(build(c, depth + 1))),
        14 | 15 => {
            let len = 3 + arg(c) as usize % 6;
            Stmt::Switch((0..len).map(|_| build(c, depth + 1)).collect())
        }
        16 | 17 => Stmt::While(Box::new(build(c, depth + 1))),
        18 | 19 => Stmt::DoWhile(Box::new(build(c, depth + 1))),
        _ => Stmt::Forever(Box::new(build(c, depth + 1))),
    }
}

/// A whole program: statements built until the stream runs out.
pub fn program() -> impl Strategy<Value = Stmt> {
    proptest::collection::vec(any::<u8>(), 1..80).prop_map(|bytes| {
        let mut c = bytes.iter();
        let mut body = Vec::new();
        while c.len() > 0 {
            body.push(build(&mut c, 0));
        }
        Stmt::Seq(body)
    })
}

struct Lowering {
    succs: Vec<Vec<u32>>,
    /// (continue target, break target) of each enclosing loop, innermost last.
    loops: Vec<(u32, u32)>,
}

impl Lowering {
    fn block(&mut self) -> u32 {
        self.succs.push(Vec::new());
        self.succs.len() as u32 - 1
    }

    fn edge(&mut self, a: u32, b: u32) {
        self.succs[a as usize].push(b);
    }

    /// A break or continue; outside every loop it is a plain block.
    fn jump(&mut self, k: u8, cur: u32, brk: bool) -> Option<u32> {
        if self.loops.is_empty() {
            return self.lower(&Stmt::Basic, cur);
        }
        let (cont, exit) = self.loops[self.loops.len() - 1 - k as usize % self.loops.len()];
        self.edge(cur, if brk { exit } else { cont });
        None
    }

    /// Lowers `s` from the open block `cur` (no successors yet); returns the
    /// open block control falls out of, if any.
    fn lower(&mut self, s: &Stmt, cur: u32) -> Option<u32> {
        match s {
            Stmt::Basic => {
                let b = self.block();
                self.edge(cur, b);
                Some(b)
            }
            Stmt::Return => None,
            Stmt::Break(k) => self.jump(*k, cur, true),
            Stmt::Continue(k) => self.jump(*k, cur, false),
            Stmt::Seq(v) => {
                let mut at = Some(cur);
                for s in v {
                    let c = match at {
                        Some(c) => c,
                        None => self.block(), // dead code after a jump
                    };
                    at = self.lower(s, c);
                }
                at
            }
            Stmt::If(t, e) => {
                let arms = [t.as_ref().clone(), e.as_ref().clone()];
                self.lower(&Stmt::Switch(arms.to_vec()), cur)
            }
            Stmt::IfThen(t) => {
                let tb = self.block();
                let join = self.block();
                self.edge(cur, tb);
                self.edge(cur, join);
                if let Some(te) = self.lower(t, tb) {
                    self.edge(te, join);
                }
                Some(join)
            }
            Stmt::Switch(arms) => {
                let starts: Vec<u32> = arms.iter().map(|_| self.block()).collect();
                for &a in &starts {
                    self.edge(cur, a);
                }
                let ends: Vec<Option<u32>> = arms.iter().zip(&starts).map(|(s, &a)| self.lower(s, a)).collect();
                if ends.iter().all(Option::is_none) {
                    return None;
                }
                let join = self.block();
                for e in ends.into_iter().flatten() {
                    self.edge(e, join);
                }
                Some(join)
            }
            Stmt::While(body) => {
                let h = self.block();
                self.edge(cur, h);
                let b = self.block();
                self.edge(h, b);
                let x = self.block();
                self.loops.push((h, x));
                let end = self.lower(body, b);
                self.loops.pop();
                if let Some(end) = end {
                    self.edge(end, h);
                }
                self.edge(h, x);
                Some(x)
            }
            Stmt::DoWhile(body) => {
                let b = self.block();
                self.edge(cur, b);
                let latch = self.block();
                let x = self.block();
                self.loops.push((latch, x));
                let end = self.lower(body, b);
                self.loops.pop();
                if let Some(end) = end {
                    self.edge(end, latch);
                }
                self.edge(latch, b);
                self.edge(latch, x);
                Some(x)
            }
            Stmt::Forever(body) => {
                let h = self.block();
                self.edge(cur, h);
                let x = self.block();
                self.loops.push((h, x));
                let end = self.lower(body, h);
                self.loops.pop();
                if let Some(end) = end {
                    self.edge(end, h);
                }
                Some(x)
            }
        }
    }
}

/// The successor lists of `s`, block 0 the entry.
pub fn lower_program(s: &Stmt) -> Vec<Vec<u32>> {
    let mut l = Lowering { succs: Vec::new(), loops: Vec::new() };
    let entry = l.block();
    l.lower(s, entry);
    l.succs
}

/// Renumbers blocks by `new_id` (a permutation; the entry must stay 0).
pub fn relabel(succs: &[Vec<u32>], new_id: &[u32]) -> Vec<Vec<u32>> {
    let mut out = vec![Vec::new(); succs.len()];
    for (b, l) in succs.iter().enumerate() {
        out[new_id[b] as usize] = l.iter().map(|&t| new_id[t as usize]).collect();
    }
    out
}

/// Structured (hence reducible) programs with the blocks after the entry
/// shuffled, so that layout order tells an analysis nothing.
pub fn shuffled_structured() -> impl Strategy<Value = Vec<Vec<u32>>> {
    program().prop_map(|s| lower_program(&s)).prop_flat_map(|succs| {
        let n = succs.len() as u32;
        let perm: Vec<u32> = (1..n).collect();
        (Just(succs), Just(perm).prop_shuffle()).prop_map(|(succs, perm)| {
            let mut ids = vec![0];
            ids.extend(perm);
            relabel(&succs, &ids)
        })
    })
}
