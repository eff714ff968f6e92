//! Reconvergence policies: which lanes of a warp run together.
//!
//! A warp's lanes are split into *entries*: a lane mask, the PC the lanes
//! run from next, and for `ipdom` the PC at which they reconverge. The
//! interpreter runs one entry until something happens that the policy must
//! decide on: a divergent branch ([`split`]), a convergence check
//! ([`check`]), a barrier, the kernel's exit, or (`ipdom`) arrival at the
//! reconvergence PC. Then [`pick`] chooses the entry to run next.
//!
//! - `ipdom` — GPGPU-Sim's reconvergence stack. On a divergent branch in
//!   block B the running entry becomes the reconvergence entry (its PC set to
//!   the first instruction of B's immediate post-dominator) and one entry per
//!   target is pushed with that reconvergence PC; a pushed entry is popped
//!   when it arrives there, and the lanes run on together in the entry
//!   below. When the reconvergence PC equals the running entry's own, that
//!   entry is replaced rather than stacked (its reconvergence entry already
//!   waits there). The top entry runs; barriers need one refinement, since
//!   work-group barriers count work-items, not warps: when the top entry
//!   waits at a barrier, the next entry down that shares no lane with any
//!   entry above it (a sibling path, never a reconvergence entry whose paths
//!   are still out) runs, so the other paths of the warp can reach the
//!   barrier too. When every path waits at a barrier, lanes that went
//!   straight to a reconvergence point (and so are on no path) run on alone:
//!   without that, a kernel whose work-items take different barriers would
//!   be released at the barrier instead of reported.
//! - `markers` — seed 000's run side. Every lane group has its own PC. On a
//!   divergent branch the groups of each target wait, and the group whose
//!   next instruction is earliest in PC order runs. At a convergence check
//!   (`@simt.converge`, or block starts chosen by the decoder) the executor
//!   re-decides: groups at the check's PC merge into the arriving one, and
//!   again the earliest group runs. Groups released from one barrier are at
//!   one PC and merge as well.
//! - `none` — a divergent branch splits the group and the groups never merge:
//!   the group of the earliest target runs until it exits or waits at a
//!   barrier, then the next.

use super::program::EXIT_PC;
use crate::launch::Policy;

/// Not waiting at a barrier.
pub const NO_BARRIER: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub mask: u64,
    /// Next instruction to run.
    pub pc: u32,
    /// `ipdom`: where these lanes reconverge ([`EXIT_PC`]: at the exit).
    pub rpc: u32,
    /// The barrier the lanes wait at, or [`NO_BARRIER`].
    pub barrier: u32,
}

/// One warp: its registers and lane groups.
#[derive(Debug, Default)]
pub struct Warp {
    pub index: u32,
    /// `slots × width` words, slot-major.
    pub regs: super::regfile::RegFile,
    /// Lanes that are work-items (the last warp of a group may be partial).
    pub valid: u64,
    /// Lanes that have not returned.
    pub live: u64,
    pub entries: Vec<Entry>,
}

impl Warp {
    /// Starts the warp's lanes at the kernel's entry.
    pub fn start(&mut self) {
        self.live = self.valid;
        self.entries.clear();
        if self.valid != 0 {
            self.entries.push(Entry { mask: self.valid, pc: 0, rpc: EXIT_PC, barrier: NO_BARRIER });
        }
    }

    /// Lanes still running that wait at a barrier, per barrier.
    pub fn waiting(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.entries
            .iter()
            .filter(move |e| e.barrier != NO_BARRIER && e.mask & self.live != 0)
            .map(move |e| (e.barrier, e.mask & self.live))
    }
}

/// The entry to run next, after dropping entries whose lanes all returned.
pub fn pick(policy: Policy, warp: &mut Warp) -> Option<usize> {
    let live = warp.live;
    warp.entries.retain(|e| e.mask & live != 0);
    let es = &warp.entries;
    match policy {
        Policy::Ipdom => {
            let mut above = 0u64;
            for i in (0..es.len()).rev() {
                let m = es[i].mask & live;
                if es[i].barrier == NO_BARRIER && m & above == 0 {
                    return Some(i);
                }
                above |= m;
            }
            // Stalled: every path waits at a barrier. Lanes that wait at a
            // reconvergence point for those paths without being on any of
            // them (they branched straight to it) would never arrive at the
            // barrier: let them run on alone, so that they show where they
            // go (another barrier, the exit: an error) as under the other
            // policies and the host engine.
            let mut above = 0u64;
            for i in (0..es.len()).rev() {
                let e = es[i];
                let m = e.mask & live;
                let free = m & !above;
                if e.barrier == NO_BARRIER && free != 0 {
                    warp.entries[i].mask &= !free;
                    warp.entries.insert(i + 1, Entry { mask: free, ..e });
                    return Some(i + 1);
                }
                above |= m;
            }
            None
        }
        Policy::Markers => es.iter().enumerate().filter(|(_, e)| e.barrier == NO_BARRIER).min_by_key(|(_, e)| e.pc).map(|(i, _)| i),
        Policy::None => (0..es.len()).rev().find(|&i| es[i].barrier == NO_BARRIER),
    }
}

/// The running entry `i` branched divergently at the end of a block whose
/// immediate post-dominator starts at `ipdom_pc`; `targets` are the PCs the
/// lanes go to with their masks (phi copies already made). Distinct PCs.
pub fn split(policy: Policy, warp: &mut Warp, i: usize, ipdom_pc: u32, targets: &mut [(u32, u64)]) {
    // The earliest target runs first: push it last.
    targets.sort_unstable_by_key(|t| std::cmp::Reverse(t.0));
    match policy {
        Policy::Ipdom => {
            let r = ipdom_pc;
            if r == warp.entries[i].rpc {
                warp.entries.remove(i);
            } else {
                warp.entries[i].pc = r;
            }
            for &(pc, mask) in targets.iter() {
                if pc != r {
                    warp.entries.push(Entry { mask, pc, rpc: r, barrier: NO_BARRIER });
                }
            }
        }
        Policy::Markers | Policy::None => {
            warp.entries.remove(i);
            for &(pc, mask) in targets.iter() {
                warp.entries.push(Entry { mask, pc, rpc: EXIT_PC, barrier: NO_BARRIER });
            }
        }
    }
}

/// `markers`: entry `i` passed the convergence check at `pc - 1` and stands
/// at `pc`. Groups waiting at that check (before it, at `pc - 1`, or after
/// it, at `pc`) merge into it, and any other groups that stand at one PC
/// merge with each other. Returns the number of groups merged.
pub fn check(warp: &mut Warp, i: usize, pc: u32) -> u64 {
    let cur = warp.entries.remove(i);
    let live = warp.live;
    let mut mask = cur.mask & live;
    let before = warp.entries.len();
    warp.entries.retain(|e| {
        let here = e.barrier == NO_BARRIER && (e.pc == pc || e.pc.wrapping_add(1) == pc);
        if here {
            mask |= e.mask & live;
        }
        !here
    });
    let mut merged = (before - warp.entries.len()) as u64;
    warp.entries.push(Entry { mask, pc, rpc: cur.rpc, barrier: NO_BARRIER });
    // Lanes at one PC run together: groups that came to the same place by
    // different ways since the last check merge too.
    let mut k = 0;
    while k < warp.entries.len() {
        let e = warp.entries[k];
        if e.barrier == NO_BARRIER {
            if let Some(j) = (k + 1..warp.entries.len()).find(|&j| warp.entries[j].barrier == NO_BARRIER && warp.entries[j].pc == e.pc) {
                let m = warp.entries[k].mask & live;
                warp.entries[j].mask |= m;
                warp.entries.remove(k);
                merged += 1;
                continue;
            }
        }
        k += 1;
    }
    merged
}

/// Releases the warp's lanes from their barrier. `markers` merges the groups
/// (all at the instruction after the barrier). Returns the merges.
pub fn release(policy: Policy, warp: &mut Warp) -> u64 {
    for e in &mut warp.entries {
        e.barrier = NO_BARRIER;
    }
    if policy != Policy::Markers || warp.entries.len() < 2 {
        return 0;
    }
    let live = warp.live;
    let mut out: Vec<Entry> = Vec::with_capacity(warp.entries.len());
    let mut merged = 0;
    for e in warp.entries.drain(..) {
        match out.iter_mut().find(|o| o.pc == e.pc) {
            Some(o) => {
                o.mask |= e.mask & live;
                merged += 1;
            }
            None => out.push(e),
        }
    }
    warp.entries = out;
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warp(entries: &[Entry], live: u64) -> Warp {
        Warp { index: 0, regs: crate::engine::emu::regfile::RegFile::new(0), valid: live, live, entries: entries.to_vec() }
    }

    fn e(mask: u64, pc: u32, rpc: u32) -> Entry {
        Entry { mask, pc, rpc, barrier: NO_BARRIER }
    }

    #[test]
    fn ipdom_stack_discipline() {
        let mut w = warp(&[e(0b1111, 0, EXIT_PC)], 0b1111);
        // Diverge to 10 (lanes 0,1) and 20 (lanes 2,3), reconverge at 30.
        let mut t = [(10, 0b0011), (20, 0b1100)];
        split(Policy::Ipdom, &mut w, 0, 30, &mut t);
        assert_eq!(w.entries, vec![e(0b1111, 30, EXIT_PC), e(0b1100, 20, 30), e(0b0011, 10, 30)]);
        assert_eq!(pick(Policy::Ipdom, &mut w), Some(2));
        // A target at the reconvergence point waits in the entry below.
        let mut w = warp(&[e(0b1111, 0, EXIT_PC)], 0b1111);
        let mut t = [(30, 0b0011), (20, 0b1100)];
        split(Policy::Ipdom, &mut w, 0, 30, &mut t);
        assert_eq!(w.entries, vec![e(0b1111, 30, EXIT_PC), e(0b1100, 20, 30)]);
        // Same reconvergence point as the running entry: replaced.
        let mut w = warp(&[e(0b1111, 30, EXIT_PC), e(0b1100, 20, 30)], 0b1111);
        let mut t = [(25, 0b0100), (26, 0b1000)];
        split(Policy::Ipdom, &mut w, 1, 30, &mut t);
        assert_eq!(w.entries, vec![e(0b1111, 30, EXIT_PC), e(0b1000, 26, 30), e(0b0100, 25, 30)]);
    }

    #[test]
    fn ipdom_runs_a_sibling_while_one_path_waits_at_a_barrier() {
        let mut w = warp(&[e(0b1111, 30, EXIT_PC), e(0b1100, 20, 30), e(0b0011, 10, 30)], 0b1111);
        w.entries[2].barrier = 0;
        assert_eq!(pick(Policy::Ipdom, &mut w), Some(1));
        w.entries[1].barrier = 0;
        // The reconvergence entry shares lanes with the waiting paths.
        assert_eq!(pick(Policy::Ipdom, &mut w), None);
        release(Policy::Ipdom, &mut w);
        assert_eq!(pick(Policy::Ipdom, &mut w), Some(2));
    }

    #[test]
    fn markers_pick_the_earliest_and_merge_at_checks() {
        let mut w = warp(&[e(0b0011, 40, EXIT_PC), e(0b0100, 12, EXIT_PC), e(0b1000, 13, EXIT_PC)], 0b1111);
        assert_eq!(pick(Policy::Markers, &mut w), Some(1));
        // Entry 1 passes the check at 12 (now at 13): merges the group at 13.
        let merged = check(&mut w, 1, 13);
        assert_eq!(merged, 1);
        assert_eq!(w.entries.len(), 2);
        let i = pick(Policy::Markers, &mut w).unwrap();
        assert_eq!(w.entries[i], e(0b1100, 13, EXIT_PC));
        // Groups that meet at another PC merge at the next check as well;
        // a group waiting at a barrier does not.
        let mut w = warp(&[e(0b0001, 50, EXIT_PC), e(0b0010, 50, EXIT_PC), e(0b0100, 12, EXIT_PC), e(0b1000, 50, EXIT_PC)], 0b1111);
        w.entries[3].barrier = 0;
        assert_eq!(check(&mut w, 2, 13), 1);
        assert_eq!(w.entries.len(), 3);
        assert!(w.entries.contains(&e(0b0011, 50, EXIT_PC)));
        assert!(w.entries.contains(&e(0b0100, 13, EXIT_PC)));
    }

    #[test]
    fn returned_lanes_drop_out() {
        let mut w = warp(&[e(0b0011, 40, EXIT_PC), e(0b1100, 12, EXIT_PC)], 0b0011);
        assert_eq!(pick(Policy::None, &mut w), Some(0));
        assert_eq!(w.entries.len(), 1);
    }
}
