//! `--check warp`: the member masks of CUDA warp functions (`shfl.sync`,
//! `vote.sync`, `match.any.sync`, `redux.sync`, `bar.warp.sync`).
//!
//! The rules, from NVIDIA's text:
//!
//! - PTX ISA (`shfl.sync`, `vote.sync`, `match.sync`, `redux.sync`,
//!   `bar.warp.sync`): "The behavior of … is undefined if the executing
//!   thread is not in the membermask" ([`Rule::NotInMask`]).
//! - PTX ISA (`match.sync`; `shfl.sync`, `vote.sync` and `redux.sync` say
//!   the same): "match.sync will cause executing thread to wait until all
//!   non-exited threads from membermask have executed match.sync with the
//!   same qualifiers and same membermask value"; `bar.warp.sync` says "all
//!   threads corresponding to membermask", and the CUDA C++ Programming Guide
//!   (warp vote, match, shuffle and `__syncwarp`) "all non-exited threads
//!   named in mask must execute the same intrinsic with the same mask, or the
//!   result is undefined". A lane named in the mask that has not exited but
//!   does not run the call with the caller ([`Rule::NotRunning`]), or runs
//!   it with another mask ([`Rule::OtherMask`]), breaks it. Lanes past the
//!   end of the block do not exist and count as exited, as do lanes whose
//!   next instruction is the kernel's return (the usual `if (i >= n)
//!   return;` before a full-mask shuffle).
//! - CUDA C++ Programming Guide, warp shuffle functions: "Threads may only
//!   read data from another thread which is actively participating in the
//!   `__shfl_sync()` command. If the target thread is inactive, the retrieved
//!   value is undefined." A shuffle that reads (its source lane in range:
//!   PTX's `pval`) a lane its mask does not name ([`Rule::SourceOutside`]).
//!
//! Not reported: a shuffle that reads a lane that does not exist or has
//! exited (the emulator and the host give the caller its own value, the
//! rule both engines document, and OpenCL sub-group shuffles past a partial
//! sub-group rely on it). `activemask` has no mask.
//!
//! The emulator runs the lanes of a warp that reach a warp function
//! together as one lane group, and the rules are judged against that group,
//! so they need a reconvergence policy that joins lanes again (`ipdom`,
//! `markers`). Under `--policy none` lanes that diverged never run a warp
//! function together again (its ballots and active masks then differ from
//! CUDA's), and the interpreter does not call this check. Lanes that reach
//! two call sites of one function with the same mask (on sm_70 and later
//! they may pair up) are reported, as each site runs its own lanes here.

use crate::engine::emu::program::WarpOp;

/// A shuffle lane that reads no other lane (its source is out of range).
pub const NO_SOURCE: u8 = u8::MAX;

/// Which rule a call broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// The caller's own lane is not in its mask.
    NotInMask,
    /// The mask names a lane that has not exited and does not run the call
    /// with the caller.
    NotRunning,
    /// The mask names a lane that runs the call with another mask.
    OtherMask,
    /// A shuffle reads a lane its mask does not name.
    SourceOutside,
}

/// One warp function, run by the lanes `running` of a 32-lane warp.
pub struct Call<'a> {
    pub op: WarpOp,
    /// Each running lane's member mask (32 bits), by lane.
    pub masks: &'a [u64],
    /// Shuffles: the lane each running lane reads, or [`NO_SOURCE`].
    pub sources: Option<&'a [u8]>,
    pub running: u64,
    /// Lanes that do not exist, have exited or only wait to return.
    pub gone: u64,
}

/// A broken rule: `lane` called with `mask`; `other` is the lane named
/// (`NotRunning`, `OtherMask`: with `other_mask`) or read (`SourceOutside`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Violation {
    pub rule: Rule,
    pub lane: u32,
    pub mask: u32,
    pub other: u32,
    pub other_mask: u32,
}

/// Every rule `call` breaks, at most one per rule and lane, lanes in order.
pub fn check(call: &Call<'_>, out: &mut impl FnMut(Violation)) {
    if call.op == WarpOp::ActiveMask {
        return;
    }
    let mut lanes = call.running;
    while lanes != 0 {
        let l = lanes.trailing_zeros();
        lanes &= lanes - 1;
        let m = call.masks[l as usize] & 0xffff_ffff;
        let v = |rule, other: u32, other_mask: u64| Violation { rule, lane: l, mask: m as u32, other, other_mask: other_mask as u32 };
        if m >> l & 1 == 0 {
            out(v(Rule::NotInMask, l, 0));
            // Its mask says nothing about who takes part.
            continue;
        }
        let absent = m & !call.running & !call.gone;
        if absent != 0 {
            out(v(Rule::NotRunning, absent.trailing_zeros(), 0));
        }
        let mut named = m & call.running;
        while named != 0 {
            let k = named.trailing_zeros();
            named &= named - 1;
            let mk = call.masks[k as usize] & 0xffff_ffff;
            if mk != m {
                out(v(Rule::OtherMask, k, mk));
                break;
            }
        }
        if let Some(src) = call.sources {
            let j = src[l as usize];
            if j != NO_SOURCE && m >> j & 1 == 0 {
                out(v(Rule::SourceOutside, u32::from(j), 0));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(op: WarpOp, masks: &[u64], sources: Option<&[u8]>, running: u64, gone: u64) -> Vec<(Rule, u32, u32)> {
        let mut all = [0u64; 32];
        all[..masks.len()].copy_from_slice(masks);
        let mut src = [NO_SOURCE; 32];
        if let Some(s) = sources {
            src[..s.len()].copy_from_slice(s);
        }
        let call = Call { op, masks: &all, sources: sources.map(|_| &src[..]), running, gone };
        let mut out = Vec::new();
        check(&call, &mut |v| out.push((v.rule, v.lane, v.other)));
        out
    }

    #[test]
    fn rules() {
        // Lanes 0-3 run with mask 0xf: fine.
        assert_eq!(run(WarpOp::VoteAny, &[0xf; 4], None, 0xf, !0xf), vec![]);
        // Lane 2's mask lacks its own bit.
        assert_eq!(
            run(WarpOp::VoteAny, &[0xf, 0xf, 0x3, 0xf], None, 0xf, !0xf),
            vec![(Rule::OtherMask, 0, 2), (Rule::OtherMask, 1, 2), (Rule::NotInMask, 2, 2), (Rule::OtherMask, 3, 2)]
        );
        // Mask 0xff while lanes 4-7 are elsewhere (not gone).
        assert_eq!(
            run(WarpOp::SyncWarp, &[0xff; 4], None, 0xf, !0xff),
            vec![(Rule::NotRunning, 0, 4), (Rule::NotRunning, 1, 4), (Rule::NotRunning, 2, 4), (Rule::NotRunning, 3, 4)]
        );
        // … or gone: fine.
        assert_eq!(run(WarpOp::SyncWarp, &[0xff; 4], None, 0xf, !0xf), vec![]);
        // Two disjoint groups with their own masks in one call: fine.
        assert_eq!(run(WarpOp::ShflIdx, &[0x3, 0x3, 0xc, 0xc], Some(&[0, 0, 2, 2]), 0xf, !0xf), vec![]);
        // Lane 1 reads lane 2, outside its mask 0x3; lane 3 reads nothing.
        assert_eq!(run(WarpOp::ShflDown, &[0x3, 0x3], Some(&[1, 2]), 0x3, !0x3), vec![(Rule::SourceOutside, 1, 2)]);
        assert_eq!(run(WarpOp::ShflDown, &[0xf; 4], Some(&[1, 2, 3, NO_SOURCE]), 0xf, !0xf), vec![]);
        // activemask has no mask.
        assert_eq!(run(WarpOp::ActiveMask, &[0; 4], None, 0xf, !0xf), vec![]);
    }
}
