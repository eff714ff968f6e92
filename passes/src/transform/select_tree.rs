//! Phis of an if-converted region as gated select trees (`simt-ifconvert`).
//!
//! A phi at block b picks the value of the edge its lane entered b by. That
//! edge is decided by the branches the lane passed on its way from the
//! region's head, so the phi is a decision tree over those branches, not a
//! chain over edge predicates (which cost an `and` per nesting level and a
//! `not` per false edge):
//!
//! ```text
//!   val(n) = v_n                          n → b is an edge with entry v_n
//!   val(n) = select(c_n, arm(t), arm(f))  n: br c_n, t, f
//!   arm(s) = v_n if s = b, val(s) if b is reachable from s, else "any"
//! ```
//!
//! memoised per block, evaluated from the head. A branch whose arms are
//! equal, or one of which cannot reach b ("any": no lane taking it reads the
//! phi), costs nothing; every other branch costs one `select` (a switch one
//! `icmp` and `select` per case whose arm differs from the default's).
//!
//! Why it is exact, poison included: a lane that reaches b passed through
//! every block n whose select it evaluates on the path it took, so `c_n` is
//! defined in that lane (branching on poison is UB in the original), and a
//! `select` with a defined condition yields its chosen arm whatever the
//! other arm holds, poison included. Inductively the lane's value is the
//! entry of the edge it took into b. Lanes that never reach b may get any
//! value, poison included; the original program never reads the phi in
//! them, and the converted code reads it only in speculated instructions
//! (no UB on poison) and in guards whose predicate is false there.
//!
//! The same tree gives the value of stores sunk out of a region's arms
//! (`ifconvert/emit.rs`): a virtual phi whose entries are the edges from the arms.

use crate::cfg::BlockId;
use std::collections::HashMap;

/// The successors of a block of the region, as its terminator orders them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arms {
    Jump(BlockId),
    Cond {
        on_true: BlockId,
        on_false: BlockId,
    },
    /// `cases[i]` is the target of the switch's i-th case.
    Switch {
        default: BlockId,
        cases: Vec<BlockId>,
    },
}

impl Arms {
    fn targets(&self) -> Vec<BlockId> {
        match self {
            Arms::Jump(s) => vec![*s],
            Arms::Cond { on_true, on_false } => vec![*on_true, *on_false],
            Arms::Switch { default, cases } => std::iter::once(*default).chain(cases.iter().copied()).collect(),
        }
    }
}

pub type NodeId = usize;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node<V> {
    Leaf(V),
    /// `select c_at, on_true, on_false`.
    Cond {
        at: BlockId,
        on_true: NodeId,
        on_false: NodeId,
    },
    /// The default's value, overridden case by case: `(i, v)` is
    /// `select (icmp eq x, case_i), v, …`. Only cases that differ appear.
    Switch {
        at: BlockId,
        default: NodeId,
        cases: Vec<(usize, NodeId)>,
    },
}

/// The nodes in creation order (arms before the nodes using them), and the
/// root: the phi's value.
#[derive(Clone, Debug)]
pub struct Tree<V> {
    pub nodes: Vec<Node<V>>,
    pub root: NodeId,
}

impl<V> Tree<V> {
    /// The nodes the root reads (a node's arms come before it).
    pub fn live(&self) -> Vec<bool> {
        let mut live = vec![false; self.nodes.len()];
        live[self.root] = true;
        for k in (0..self.nodes.len()).rev() {
            if !live[k] {
                continue;
            }
            match &self.nodes[k] {
                Node::Leaf(_) => {}
                Node::Cond { on_true, on_false, .. } => {
                    live[*on_true] = true;
                    live[*on_false] = true;
                }
                Node::Switch { default, cases, .. } => {
                    live[*default] = true;
                    for &(_, c) in cases {
                        live[c] = true;
                    }
                }
            }
        }
        live
    }

    /// The blocks whose branch condition the tree reads.
    pub fn read_blocks(&self) -> Vec<BlockId> {
        let live = self.live();
        self.nodes
            .iter()
            .zip(live)
            .filter_map(|(n, l)| match n {
                Node::Cond { at, .. } | Node::Switch { at, .. } if l => Some(*at),
                _ => None,
            })
            .collect()
    }

    /// `select`s the tree makes (the nodes the root reads).
    pub fn selects(&self) -> usize {
        let live = self.live();
        self.nodes
            .iter()
            .zip(live)
            .filter(|(_, l)| *l)
            .map(|(n, _)| match n {
                Node::Leaf(_) => 0,
                Node::Cond { .. } => 1,
                Node::Switch { cases, .. } => cases.len(),
            })
            .sum()
    }

    /// The (switch block, case index) compares the tree reads.
    pub fn case_compares(&self) -> Vec<(BlockId, usize)> {
        let live = self.live();
        self.nodes
            .iter()
            .zip(live)
            .filter(|(_, l)| *l)
            .flat_map(|(n, _)| match n {
                Node::Switch { at, cases, .. } => cases.iter().map(|&(i, _)| (*at, i)).collect(),
                _ => Vec::new(),
            })
            .collect()
    }
}

/// The tree for a phi at `target` with one entry per incoming edge's block.
/// `order` is the region, head first, in topological order; `arms` gives
/// each of its blocks' successors. Edges into `target` from blocks without
/// an entry are lanes that do not read the phi ("any"). `None` when no entry
/// is reachable from the head.
pub fn build<V: Copy + Eq + std::hash::Hash>(
    order: &[BlockId],
    arms: &dyn Fn(BlockId) -> Arms,
    target: BlockId,
    entries: &[(V, BlockId)],
) -> Option<Tree<V>> {
    let mut nodes: Vec<Node<V>> = Vec::new();
    let mut leaves: HashMap<V, NodeId> = HashMap::new();
    let mut val: HashMap<BlockId, NodeId> = HashMap::new();
    for &n in order.iter().rev() {
        if n == target {
            continue;
        }
        let entry = entries.iter().find(|e| e.1 == n).map(|e| e.0);
        let mut arm = |s: BlockId, nodes: &mut Vec<Node<V>>| -> Option<NodeId> {
            if s == target {
                let v = entry?;
                return Some(*leaves.entry(v).or_insert_with(|| {
                    nodes.push(Node::Leaf(v));
                    nodes.len() - 1
                }));
            }
            val.get(&s).copied()
        };
        let node = match arms(n) {
            Arms::Jump(s) => arm(s, &mut nodes),
            Arms::Cond { on_true, on_false } => match (arm(on_true, &mut nodes), arm(on_false, &mut nodes)) {
                (Some(t), Some(f)) if t != f => {
                    nodes.push(Node::Cond { at: n, on_true: t, on_false: f });
                    Some(nodes.len() - 1)
                }
                (t, f) => t.or(f),
            },
            a @ Arms::Switch { .. } => {
                let ts = a.targets();
                let vs: Vec<Option<NodeId>> = ts.iter().map(|&s| arm(s, &mut nodes)).collect();
                match vs.iter().flatten().next().copied() {
                    None => None,
                    Some(first) => {
                        let default = vs[0].unwrap_or(first);
                        let cases: Vec<(usize, NodeId)> =
                            vs[1..].iter().enumerate().filter_map(|(i, v)| v.filter(|&v| v != default).map(|v| (i, v))).collect();
                        if cases.is_empty() {
                            Some(default)
                        } else {
                            nodes.push(Node::Switch { at: n, default, cases });
                            Some(nodes.len() - 1)
                        }
                    }
                }
            }
        };
        if let Some(node) = node {
            val.insert(n, node);
        }
    }
    let root = *val.get(order.first()?)?;
    Some(Tree { nodes, root })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(i: u32) -> BlockId {
        BlockId(i)
    }

    fn arms_of(list: Vec<(u32, Arms)>) -> impl Fn(BlockId) -> Arms {
        move |n| list.iter().find(|a| a.0 == n.0).expect("arms").1.clone()
    }

    /// clamp: 0: br lo → 3 | 1; 1: br hi → 2 | 3; 2 → 3. The phi at 3 is
    /// [100, 0], [x, 1], [900, 2]: select(hi, 900, x) at 1, then
    /// select(lo, 100, that) at 0; two selects, no predicate.
    #[test]
    fn clamp_is_two_selects() {
        let arms = arms_of(vec![
            (0, Arms::Cond { on_true: b(3), on_false: b(1) }),
            (1, Arms::Cond { on_true: b(2), on_false: b(3) }),
            (2, Arms::Jump(b(3))),
        ]);
        let t = build(&[b(0), b(1), b(2)], &arms, b(3), &[(100, b(0)), (7, b(1)), (900, b(2))]).expect("a tree");
        assert_eq!(t.selects(), 2);
        let Node::Cond { at, on_true, on_false } = t.nodes[t.root] else { panic!("root is a select") };
        assert_eq!(at, b(0));
        assert_eq!(t.nodes[on_true], Node::Leaf(100));
        let Node::Cond { at, on_true, on_false } = t.nodes[on_false] else { panic!("a select at 1") };
        assert_eq!((at, &t.nodes[on_true], &t.nodes[on_false]), (b(1), &Node::Leaf(900), &Node::Leaf(7)));
    }

    /// Equal arms and arms that cannot reach the phi cost nothing: a phi at
    /// 3 fed only from 2 (0 → 1 | 4, 1 → 2 | 2', 2 → 3) is its entry.
    #[test]
    fn equal_and_unreaching_arms_are_free() {
        let arms = arms_of(vec![
            (0, Arms::Cond { on_true: b(1), on_false: b(4) }),
            (1, Arms::Cond { on_true: b(2), on_false: b(2) }),
            (2, Arms::Jump(b(3))),
            (4, Arms::Jump(b(5))),
        ]);
        let t = build(&[b(0), b(1), b(2), b(4)], &arms, b(3), &[(5, b(2))]).expect("a tree");
        assert_eq!(t.selects(), 0);
        assert_eq!(t.nodes[t.root], Node::Leaf(5));
    }

    /// An edge into the target from a block without an entry is "any": the
    /// stores sunk from 1 and 2 (0 → 3 | 4, 4 → 1 | 2, 1, 2 → 3) need one
    /// select at 4, none at 0.
    #[test]
    fn edges_without_entry_are_any() {
        let arms = arms_of(vec![
            (0, Arms::Cond { on_true: b(3), on_false: b(4) }),
            (4, Arms::Cond { on_true: b(1), on_false: b(2) }),
            (1, Arms::Jump(b(3))),
            (2, Arms::Jump(b(3))),
        ]);
        let t = build(&[b(0), b(4), b(1), b(2)], &arms, b(3), &[(10, b(1)), (20, b(2))]).expect("a tree");
        assert_eq!(t.selects(), 1);
        assert!(matches!(t.nodes[t.root], Node::Cond { at, .. } if at == b(4)));
    }

    /// A switch with cases to three blocks and the default to a fourth,
    /// two of which give the same value: two cases differ from the default.
    #[test]
    fn switch_compares_only_differing_cases() {
        let arms = arms_of(vec![
            (0, Arms::Switch { default: b(1), cases: vec![b(2), b(3), b(1), b(5)] }),
            (1, Arms::Jump(b(4))),
            (2, Arms::Jump(b(4))),
            (3, Arms::Jump(b(4))),
            (5, Arms::Jump(b(4))),
        ]);
        let t = build(&[b(0), b(1), b(2), b(3), b(5)], &arms, b(4), &[(1, b(1)), (2, b(2)), (1, b(3)), (3, b(5))]).expect("tree");
        assert_eq!(t.selects(), 2);
        assert_eq!(t.case_compares(), vec![(b(0), 0), (b(0), 3)]);
    }
}
