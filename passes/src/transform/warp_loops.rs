//! Warp barriers around loops of warp functions, the last step of
//! `simt-warp-exchange`: the warp-level counterpart of
//! `simt-lockstep-loops<uniform=…>` (`lockstep_uniform.rs`, pocl's implicit
//! loop barriers), for the host engine's warp dispatcher.
//!
//! Why: a shuffle in a loop (`for (off = 16; off > 0; off >>= 1) v +=
//! __shfl_down_sync(FULL, v, off);`) is a warp barrier `S` in the loop, and
//! the region after it (`simt-wiloops`' warp dispatcher, `wiloops/emit/
//! warp.rs`) holds the rest of the iteration, the loop test, the next
//! iteration's write to the exchange buffer *and* the code after the loop
//! (`if (lane == 0) sums[warp] = v`). That 32-lane loop branches on a test
//! LLVM cannot see is the same for all lanes, so it stays scalar (issue 24:
//! block_sum_warp ran 8x the instructions of the same sum through shared
//! memory). With a warp
//! barrier `T` on the back edge and one, `E`, where the loop is left, each
//! region is straight-line (put | read, add, test: the next state is a
//! select) and the lane loops vectorise. Where the loop test is uniform
//! (the work-items of a block all go on or all leave, as `off > 0` above),
//! `T` is left out: the region after `S` then holds the test, the next
//! iteration's put and `E`, and `simt-wiloops-version` unswitches its lane
//! loop on the test, leaving two straight-line copies; `T` cost a region
//! run per iteration that only copied the loop's values (block_sum_warp
//! 1.30M -> 1.05M instructions, block_scan 2.57M -> 2.33M).
//!
//! ```text
//!  H: phis; …; put; S; read; …     H: phis; …; put; S; read; …
//!  L: br c, H, X             ==>   L: br c, L.T, X      L.T: T; br H
//!  X: after the loop               X: phis; E; after the loop
//! ```
//!
//! Legality: the warp dispatcher runs a warp's lanes region by region and
//! stops with an error unless all of them stop at the same barrier. Take a
//! loop whose block holding `S` (not in a sub-loop) dominates the latch and
//! every exiting block, with one latch and one exit block (reached from the
//! loop only, or by one edge, which then gets its own block for `E`), and
//! no way from the exit back to the header that passes no barrier. Lanes
//! can reach the back edge or an exit only in a region run that started
//! after `S` in the same iteration (`S` dominates both). In a launch that
//! runs today, those lanes all stopped at one barrier `B`. A lane that
//! crossed the back edge meets `S` before it can leave, so its `B` is in the
//! loop and reached from the header without `S`; a lane that stayed in the
//! iteration reaches its `B` from `S` without the header; one that left can
//! come back into the loop only through a barrier, so its `B` is outside.
//! A `B` of the first two kinds at once would put `S` on a cycle that misses
//! the header, in a sub-loop. So either all lanes cross the back edge (and
//! now stop at `T`), or all leave (at `E`), or none does: each lane takes
//! the same path as before, cut at more barriers, and no launch that ran
//! stops now. One that stopped with an error still does (`T` and `E` carry
//! `S`'s debug location for the message).
//!
//! The exchange needs nothing more: the phase flips at every warp barrier,
//! and a put and its read stay on either side of one barrier.
//!
//! Limits: skipped (left as they were) are loops with several latches,
//! several exit blocks, or an exit block shared with code outside the loop
//! through more than one edge; `T` or `E` is left out where a barrier
//! already starts the header or the exit block, and `T` where the loop test
//! is uniform. Host only (the emulator
//! runs warps in lockstep and needs none). Seed: none; COX (Han et al.,
//! 2022) for the dispatcher, pocl for loop barriers.

use crate::analysis::cache::FunctionAnalyses;
use crate::analysis::loops::Loop;
use crate::cfg::BlockId;
use crate::ir::globals::function_or_declare;
use crate::ir::{instructions, terminator, Builder, Inst, Ty, Value};
use crate::kernel_model::{builtin_of, Builtin};
use crate::transform::warp_exchange::WARP_BARRIER;
use inkwell::basic_block::BasicBlock;
use inkwell::module::Module;
use std::collections::HashSet;

/// Where one loop gets its barriers.
pub struct LoopBarriers<'ctx> {
    /// The warp barrier in the loop whose debug location the new ones take.
    s: Inst<'ctx>,
    latch: BasicBlock<'ctx>,
    header: BasicBlock<'ctx>,
    /// Whether `T` goes on the back edge (not where a barrier starts the
    /// header already).
    back_edge: bool,
    /// `None` where a barrier starts the exit block already.
    exit: Option<ExitBarrier<'ctx>>,
}

/// Where `E` goes: at the top of the exit block, or on the one edge into it
/// from the loop when other blocks lead there too.
enum ExitBarrier<'ctx> {
    Top(BasicBlock<'ctx>),
    Edge(BasicBlock<'ctx>, BasicBlock<'ctx>),
}

fn is_barrier(i: Inst<'_>) -> bool {
    i.is_call() && builtin_of(i) == Some(Builtin::Barrier)
}

fn is_warp_barrier(i: Inst<'_>) -> bool {
    i.is_call() && i.called_function().is_some_and(|f| crate::ir::function_name(f) == WARP_BARRIER)
}

/// Whether the first instruction after `bb`'s phis is a barrier.
fn starts_with_barrier(bb: BasicBlock<'_>) -> bool {
    instructions(bb).find(|i| !i.is_phi()).is_some_and(is_barrier)
}

/// The loops of `fa`'s function that take barriers (see the header).
pub fn plan<'ctx>(fa: &FunctionAnalyses<'ctx>) -> Vec<LoopBarriers<'ctx>> {
    let loops = fa.loops();
    loops.loops().filter_map(|(id, lp)| plan_loop(fa, lp, |b| loops.innermost(b) == Some(id))).collect()
}

fn plan_loop<'ctx>(fa: &FunctionAnalyses<'ctx>, lp: &Loop, directly_in: impl Fn(BlockId) -> bool) -> Option<LoopBarriers<'ctx>> {
    let (cfg, dom) = (&fa.cfg, fa.dom());
    let [latch] = lp.latches[..] else { return None };
    let [exit] = lp.exits[..] else { return None };
    // One edge back: a latch branching twice to the header would need two.
    if cfg.cfg.succs(latch).iter().filter(|&&s| s == lp.header).count() != 1 {
        return None;
    }
    let dominates_ways_on = |b: BlockId| lp.exiting.iter().chain([&latch]).all(|&x| dom.dominates(b.0, x.0));
    let s = lp
        .blocks
        .iter()
        .copied()
        .filter(|&b| directly_in(b) && dominates_ways_on(b))
        .find_map(|b| instructions(cfg.block(b)).find(|&i| is_warp_barrier(i)))?;
    if reenters_without_barrier(fa, lp, exit) {
        return None;
    }
    let in_loop: HashSet<BlockId> = lp.blocks.iter().copied().collect();
    let exit_bb = cfg.block(exit);
    let exit = if starts_with_barrier(exit_bb) {
        None
    } else if cfg.cfg.preds(exit).iter().all(|p| in_loop.contains(p)) {
        Some(ExitBarrier::Top(exit_bb))
    } else {
        let edges: Vec<BlockId> = cfg.cfg.preds(exit).iter().copied().filter(|p| in_loop.contains(p)).collect();
        match edges[..] {
            [from] if cfg.cfg.succs(from).iter().filter(|&&s| s == exit).count() == 1 => Some(ExitBarrier::Edge(cfg.block(from), exit_bb)),
            _ => return None,
        }
    };
    let header = cfg.block(lp.header);
    // Where the loop is left or continued alike by all work-items, the
    // region after `S` branches on a uniform test, which
    // `simt-wiloops-version` unswitches (both sides straight-line): `T`
    // would only add a region run per iteration, copying the loop's values.
    let uniform = fa.uniformity();
    let decided_alike = lp.exiting.iter().chain([&latch]).all(|&b| !uniform.is_divergent_branch(b));
    let back_edge = !decided_alike && !starts_with_barrier(header);
    Some(LoopBarriers { s, latch: cfg.block(latch), header, back_edge, exit })
}

/// Whether some way from `exit` enters the loop again (reaches its header)
/// without passing a barrier on the way (a block holding one stops it:
/// every path through it meets the barrier). The header's own barriers do
/// not count: a lane back in the loop could meet `S` there together with
/// lanes that never left.
fn reenters_without_barrier(fa: &FunctionAnalyses<'_>, lp: &Loop, exit: BlockId) -> bool {
    let cfg = &fa.cfg;
    let mut seen = HashSet::new();
    let mut work = vec![exit];
    while let Some(b) = work.pop() {
        if b == lp.header {
            return true;
        }
        if !seen.insert(b) || instructions(cfg.block(b)).any(is_barrier) {
            continue;
        }
        work.extend_from_slice(cfg.cfg.succs(b));
    }
    false
}

/// Inserts the planned barriers. The plans were made on the unchanged
/// function; each edit adds blocks or instructions only, so the others stay
/// valid.
pub fn insert<'ctx>(m: &Module<'ctx>, plans: &[LoopBarriers<'ctx>]) {
    let ctx = m.get_context();
    let barrier = function_or_declare(m, WARP_BARRIER, Ty::function(Ty::of(ctx.void_type()), &[]));
    for p in plans {
        let mut b = Builder::new(p.s.value());
        let put_at = |b: &mut Builder<'ctx>| b.call_function(barrier, &[], "").copy_debug_location(p.s);
        if p.back_edge {
            let mid = split_edge(&mut b, p.latch, p.header, "warp.loop.next");
            b.position_before(terminator(mid).expect("split_edge ends it"));
            put_at(&mut b);
        }
        match p.exit {
            Some(ExitBarrier::Top(x)) => {
                b.position_before(instructions(x).find(|i| !i.is_phi()).expect("a terminated block"));
                put_at(&mut b);
            }
            Some(ExitBarrier::Edge(from, x)) => {
                let mid = split_edge(&mut b, from, x, "warp.loop.exit");
                b.position_before(terminator(mid).expect("split_edge ends it"));
                put_at(&mut b);
            }
            None => {}
        }
    }
}

/// A new block on the one edge `from -> to`; `to`'s phis take their value
/// from it instead of `from`.
fn split_edge<'ctx>(b: &mut Builder<'ctx>, from: BasicBlock<'ctx>, to: BasicBlock<'ctx>, name: &str) -> BasicBlock<'ctx> {
    let mid = crate::ir::insert_block_before(to, name);
    let t = terminator(from).expect("a terminated block");
    for (k, s) in t.successors().into_iter().enumerate() {
        if s == to {
            t.set_successor(k as u32, mid);
        }
    }
    b.position_at_end(mid);
    b.br(to);
    for phi in instructions(to).take_while(|i| i.is_phi()).collect::<Vec<_>>() {
        let moved: Vec<(Value<'ctx>, BasicBlock<'ctx>)> =
            phi.incoming().into_iter().map(|(v, bb)| (v, if bb == from { mid } else { bb })).collect();
        let kept = phi.retain_incoming(|_| false);
        kept.add_incoming(&moved);
    }
    mid
}
