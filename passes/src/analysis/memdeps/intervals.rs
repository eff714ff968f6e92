//! Kill sets: ordered lists of disjoint closed byte intervals (seed 003,
//! clause a22: "kill sets are ordered lists, normally sorted by address from
//! low to high, so that intersection and union are easy").
//!
//! Adjacent intervals are merged as well as overlapping ones, so that
//! `[0,15] ∪ [16,31]` is `[0,31]` and covers a 32-byte descriptor: the
//! patent's worked example 1 deletes md1's record exactly this way.

use std::fmt;

/// A closed interval `[lo, hi]` of byte offsets, `lo <= hi`.
pub type Interval = (u64, u64);

/// Sorted, disjoint, non-adjacent closed intervals.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct IntervalSet {
    runs: Vec<Interval>,
}

impl IntervalSet {
    pub fn new() -> Self {
        IntervalSet { runs: Vec::new() }
    }

    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    pub fn runs(&self) -> &[Interval] {
        &self.runs
    }

    /// Adds `[lo, hi]`, merging with every run it overlaps or touches.
    pub fn insert(&mut self, (lo, hi): Interval) {
        debug_assert!(lo <= hi);
        // First run that ends at or after lo - 1 (touching counts).
        let start = self.runs.partition_point(|&(_, h)| h.saturating_add(1) < lo);
        let mut end = start;
        let (mut nlo, mut nhi) = (lo, hi);
        while end < self.runs.len() && self.runs[end].0 <= hi.saturating_add(1) {
            nlo = nlo.min(self.runs[end].0);
            nhi = nhi.max(self.runs[end].1);
            end += 1;
        }
        self.runs.splice(start..end, [(nlo, nhi)]);
    }

    /// Whether every byte of `[lo, hi]` is in the set.
    pub fn covers(&self, (lo, hi): Interval) -> bool {
        let i = self.runs.partition_point(|&(_, h)| h < lo);
        self.runs.get(i).is_some_and(|&(l, h)| l <= lo && hi <= h)
    }

    /// The bytes of `[lo, hi]` not in the set, as sorted disjoint intervals.
    pub fn gaps_in(&self, (lo, hi): Interval) -> Vec<Interval> {
        let mut out = Vec::new();
        let mut at = lo;
        let start = self.runs.partition_point(|&(_, h)| h < lo);
        for &(l, h) in &self.runs[start..] {
            if l > hi {
                break;
            }
            if l > at {
                out.push((at, l - 1));
            }
            if h >= hi {
                return out;
            }
            at = at.max(h + 1);
        }
        out.push((at, hi));
        out
    }

    /// The bytes in both sets (the join of kill sets at a φ node, \[0061\]).
    pub fn intersect(&self, other: &IntervalSet) -> IntervalSet {
        let (mut i, mut j) = (0, 0);
        let mut runs = Vec::new();
        while i < self.runs.len() && j < other.runs.len() {
            let (a, b) = (self.runs[i], other.runs[j]);
            let (lo, hi) = (a.0.max(b.0), a.1.min(b.1));
            if lo <= hi {
                runs.push((lo, hi));
            }
            if a.1 < b.1 {
                i += 1;
            } else {
                j += 1;
            }
        }
        IntervalSet { runs }
    }

    /// The bytes in either set.
    pub fn union(&self, other: &IntervalSet) -> IntervalSet {
        let mut out = self.clone();
        for &r in &other.runs {
            out.insert(r);
        }
        out
    }
}

/// `{[0,15], [32,63]}`, `{}` when empty (the notes' notation).
impl fmt::Display for IntervalSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let runs: Vec<String> = self.runs.iter().map(|&(l, h)| format!("[{l},{h}]")).collect();
        write!(f, "{{{}}}", runs.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(runs: &[Interval]) -> IntervalSet {
        let mut s = IntervalSet::new();
        for &r in runs {
            s.insert(r);
        }
        s
    }

    /// Brute force over bytes 0..64.
    fn bytes(s: &IntervalSet) -> Vec<bool> {
        (0..64u64).map(|x| s.runs.iter().any(|&(l, h)| l <= x && x <= h)).collect()
    }

    #[test]
    fn notes_examples() {
        // Notes §9 case 4: [0,15] ∪ [16,31] = [0,31], which covers md1.
        let k = set(&[(0, 15), (16, 31)]);
        assert_eq!(k.runs(), &[(0, 31)]);
        assert!(k.covers((0, 31)));
        // Notes §9 case 3: {[1,127]} ∩ {[32,63]} = {[32,63]}.
        assert_eq!(set(&[(1, 127)]).intersect(&set(&[(32, 63)])).runs(), &[(32, 63)]);
        assert_eq!(set(&[(0, 15)]).to_string(), "{[0,15]}");
        assert_eq!(IntervalSet::new().to_string(), "{}");
    }

    #[test]
    fn matches_brute_force_on_random_sets() {
        // A small LCG: deterministic, no dependency.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        for _ in 0..2000 {
            let mk = |next: &mut dyn FnMut(u64) -> u64| {
                let runs: Vec<Interval> = (0..next(5))
                    .map(|_| {
                        let lo = next(60);
                        (lo, lo + next(8))
                    })
                    .collect();
                set(&runs)
            };
            let (a, b) = (mk(&mut next), mk(&mut next));
            for s in [&a, &b] {
                assert!(s.runs.windows(2).all(|w| w[0].1 + 1 < w[1].0), "sorted, disjoint, not adjacent: {s}");
            }
            let (ba, bb) = (bytes(&a), bytes(&b));
            let want_i: Vec<bool> = ba.iter().zip(&bb).map(|(x, y)| *x && *y).collect();
            let want_u: Vec<bool> = ba.iter().zip(&bb).map(|(x, y)| *x || *y).collect();
            assert_eq!(bytes(&a.intersect(&b)), want_i);
            assert_eq!(bytes(&a.union(&b)), want_u);
            let lo = next(60);
            let q = (lo, lo + next(6));
            assert_eq!(a.covers(q), (q.0..=q.1).all(|x| ba[x as usize]), "{a} covers {q:?}");
            let gaps = a.gaps_in(q);
            assert!(gaps.windows(2).all(|w| w[0].1 + 1 < w[1].0), "gaps sorted and apart: {gaps:?}");
            let in_gaps = |x: u64| gaps.iter().any(|&(l, h)| l <= x && x <= h);
            for x in 0..64u64 {
                let want = q.0 <= x && x <= q.1 && !ba[x as usize];
                assert_eq!(in_gaps(x), want, "byte {x}: {a} gaps in {q:?} = {gaps:?}");
            }
        }
    }
}
