//! Seed 001's loop groups: adjacent statements (regions) merged so that each
//! group, wrapped in one work-item loop, holds a similar number of
//! instructions, with at most `n` statements per group when `n` work-groups
//! are interleaved (statement k of a group runs for work-group i − k).
//!
//! "Similar" is made precise as a min–max partition: among the ways to cut the
//! statement sequence into contiguous groups of at most `n` statements, take
//! those whose largest group is smallest, and of those the one with the fewest
//! groups (each group costs a loop). Since a statement cannot be split, the
//! longest one bounds every group, and short statements are merged up to that
//! length; among equally few groups, the cuts fall as late as possible
//! (greedy from the left). For the patent's example (100, 20, 30, 30, 110
//! instructions, 3 work-groups) that is {S1}, {S2, S3, S4}, {S5}. Cost: O(s·n)
//! for s statements.

use std::ops::Range;

/// Contiguous groups of statement indices covering `0..costs.len()`.
pub fn form_loop_groups(costs: &[u64], n: usize) -> Vec<Range<usize>> {
    let n = n.max(1);
    let ceiling = smallest_largest_group(costs, n);
    // Fewest groups under the ceiling: packing greedily from the left is
    // optimal for a cap on group cost and length.
    let mut groups = Vec::new();
    let mut start = 0;
    while start < costs.len() {
        let mut end = start + 1;
        let mut total = costs[start];
        while end < costs.len() && end - start < n && total + costs[end] <= ceiling {
            total += costs[end];
            end += 1;
        }
        groups.push(start..end);
        start = end;
    }
    groups
}

/// The least possible cost of the largest group (min–max partition by
/// dynamic programming over prefixes, groups of at most `n` statements).
fn smallest_largest_group(costs: &[u64], n: usize) -> u64 {
    let mut best = vec![u64::MAX; costs.len() + 1];
    best[0] = 0;
    for end in 1..=costs.len() {
        let mut group = 0;
        for start in (end.saturating_sub(n)..end).rev() {
            group += costs[start];
            best[end] = best[end].min(best[start].max(group));
        }
    }
    best[costs.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_patents_example() {
        assert_eq!(form_loop_groups(&[100, 20, 30, 30, 110], 3), vec![0..1, 1..4, 4..5]);
    }

    #[test]
    fn one_work_group_means_one_statement_per_group() {
        assert_eq!(form_loop_groups(&[5, 5, 5], 1), vec![0..1, 1..2, 2..3]);
    }

    #[test]
    fn small_statements_merge_up_to_the_longest_one() {
        // No group may outgrow the longest statement (30): the three short
        // ones merge, and only up to the interleave bound.
        assert_eq!(form_loop_groups(&[10, 10, 10, 30], 4), vec![0..3, 3..4]);
        assert_eq!(form_loop_groups(&[10, 10, 10, 30], 2), vec![0..2, 2..3, 3..4]);
        // Equal statements are already balanced: merging would only make one
        // group longer than the rest.
        assert_eq!(form_loop_groups(&[10, 10, 10, 10], 4).len(), 4);
        assert_eq!(form_loop_groups(&[7], 3), vec![0..1]);
        assert!(form_loop_groups(&[], 3).is_empty());
    }
}
