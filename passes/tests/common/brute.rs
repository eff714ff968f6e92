//! Plain adjacency helpers for the oracles: no analysis, just the definition.

use std::collections::BTreeSet;

/// Successor lists with duplicates removed (first occurrence kept).
pub fn dedup(raw: &[Vec<u32>]) -> Vec<Vec<usize>> {
    raw.iter()
        .map(|l| {
            let mut out: Vec<usize> = Vec::new();
            for &t in l {
                if !out.contains(&(t as usize)) {
                    out.push(t as usize);
                }
            }
            out
        })
        .collect()
}

pub fn preds_of(succs: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut preds = vec![Vec::new(); succs.len()];
    for (b, l) in succs.iter().enumerate() {
        for &s in l {
            preds[s].push(b);
        }
    }
    preds
}

/// Nodes reachable from `start` inside `within` (all nodes when `None`),
/// never entering `removed`.
pub fn reach(succs: &[Vec<usize>], start: usize, within: Option<&BTreeSet<usize>>, removed: Option<usize>) -> Vec<bool> {
    let mut seen = vec![false; succs.len()];
    if Some(start) == removed {
        return seen;
    }
    seen[start] = true;
    let mut work = vec![start];
    while let Some(v) = work.pop() {
        for &s in &succs[v] {
            if Some(s) != removed && within.is_none_or(|w| w.contains(&s)) && !seen[s] {
                seen[s] = true;
                work.push(s);
            }
        }
    }
    seen
}
