//! The warp dispatcher of `simt_wg_K`, for kernels with warp-level barriers
//! (the warp functions `simt-warp-exchange` turned into exchanges): COX's
//! hierarchical collapsing (Han et al., 2022). The block-level loop runs
//! the warps one after another; each warp runs its regions, each a loop over
//! its lanes, until all of them stop at a block barrier (`__syncthreads`) or
//! the exit; a warp barrier only needs the lanes of its own warp, so a warp
//! function under a branch that is uniform per warp but not per block
//! (`if (threadIdx.x < 32) warp_reduce(v)`) runs in the warps that take it.
//!
//! ```text
//!  dispatch: next (block state) ── exit ─▶ finished: ret 0
//!     │
//!  warp w: ─▶ wdispatch: switch ws ──▶ rS.pre ─▶ lanes of w: clone of region S ─▶ rS.done
//!     ▲          ▲                                                           │
//!     │          └──────── stop at a warp barrier: ws = stop ◀───────────────┤
//!     └──── w+1 ◀── warp.next: block stop (least and greatest over warps) ◀──┘
//!  all warps done: they must agree (else status 1, both ids), next = stop
//! ```
//!
//! Lanes: linear work-item ids `32w .. min(32w + 32, n)`, the last warp of a
//! block whose size is not a multiple of 32 being partial; x is the first
//! lane's plus the lane's offset where the warp lies in one row of x (one
//! division per region run), else x, y and z are divided out per lane.
//! Where the block's warps lie in aligned rows of x, the kernel's own
//! `threadIdx.x / 32` and `% 32` are this warp index and lane offset
//! (`warp_ids.rs`), so that a branch on the warp is tested once per warp.
//!
//! Limits: the region form only (a kernel past the region budget is refused,
//! not run in the linear form); no per-work-group slots for uniform values
//! (a warp rereads a slot a warp before it wrote), no interleaving. The lanes
//! of a warp must stop at the same barrier, as work-items of a block must.

use super::*;
use crate::ir::IntOp;
use inkwell::attributes::AttributeLoc;
use llvm_sys::LLVMIntPredicate::{LLVMIntEQ, LLVMIntULT};
use std::collections::HashSet;

const WARP: u64 = 32;

impl<'ctx> Emitter<'_, 'ctx> {
    /// Emits `simt_wg_K` with the warp dispatcher; `warp_barriers` are the
    /// ids of the warp-level barriers.
    pub fn emit_warps(&mut self, regions: &[Region<'ctx>], warp_barriers: &HashSet<u32>) -> Result<(), String> {
        // The exchange's rows are read a whole warp at once (a collapsed
        // loop's `<32 x float>`, a match's `<32 x i32>`: 64-byte vectors
        // with AVX-512), while lane loops vectorised at x86's preferred 256
        // bits write them 32 bytes at a time: a load that spans two stores
        // is not forwarded from them and waits for both to reach the cache
        // (block_sum_warp: 2.2 ms against 1.0-1.2 ms with 512-bit lane
        // loops, on a Xeon with AVX-512). Where vectors are narrower, LLVM
        // keeps to the widest there is, so this changes nothing.
        let ctx = self.module.get_context();
        self.f.add_attribute(AttributeLoc::Function, ctx.create_string_attribute("prefer-vector-width", "512"));
        let (dispatch, next) = self.open_dispatch();
        let finished = self.block("finished");
        let warps = self.block("warps");
        let done = self.b.icmp(LLVMIntEQ, next.value(), self.c32(self.exit_state), "");
        self.b.cond_br(done, finished, warps);
        self.b.position_at_end(finished);
        self.b.ret(self.c32(crate::wg_abi::STATUS_OK));

        self.b.position_at_end(warps);
        let n = self.launch().n_items;
        let rounded = self.b.nuw_add(n, self.c64(WARP - 1), "");
        let n_warps = self.b.int_op(IntOp::UDiv, rounded, self.c64(WARP), "warps");
        let warp = self.block("warp");
        self.b.br(warp);
        self.b.position_at_end(warp);
        let w = self.b.phi(self.i64t, "warp");
        let (bmin, bmax) = (self.b.phi(self.i32t, "block.min"), self.b.phi(self.i32t, "block.max"));
        add_incoming(w, self.c64(0), warps);
        add_incoming(bmin, self.c32(u32::MAX), warps);
        add_incoming(bmax, self.c32(0), warps);
        let first = self.b.nuw_mul(w.value(), self.c64(WARP), "lane0");
        let past = self.b.nuw_add(first, self.c64(WARP), "");
        let less = self.b.icmp(LLVMIntULT, past, n, "");
        let end = self.b.select(less, past, n, "lanes.end");
        let lanes = self.b.int_op(IntOp::Sub, end, first, "lanes");
        // Blocks of whole warps (a size specialised to a multiple of 32):
        // every lane loop runs 32 lanes, a constant `simt-wiloops-version`
        // needs to version a region on its bounds checks (block_sum_warp's
        // `i < n` was a masked load in every warp).
        let whole_warps = n.const_u64().is_some_and(|items| items % WARP == 0);
        let lanes = if whole_warps { self.c64(WARP) } else { lanes };
        let wdispatch = self.block("warp.dispatch");
        self.b.br(wdispatch);
        self.b.position_at_end(wdispatch);
        let ws = self.b.phi(self.i32t, "warp.state");
        add_incoming(ws, next.value(), warp);
        // The exchange phase (`simt.warp.phase`): no exchange is pending
        // when a warp starts, after a block barrier, so each starts at 0.
        let phase = self.b.phi(self.i32t, "warp.phase");
        add_incoming(phase, self.c32(0), warp);
        self.warp_phase = Some(phase.value());
        // Every state a warp is dispatched to starts a region: the default
        // is never taken.
        let sw = self.b.switch(ws.value(), finished, regions.len() as u32);
        let wnext = self.block("warp.next");
        self.b.position_at_end(wnext);
        let stop = self.b.phi(self.i32t, "block.stop");

        for r in regions {
            let (pre, done, state) = self.emit_lane_region(r, w.value(), first, lanes)?;
            sw.add_case(self.c32(r.state), pre);
            self.b.position_at_end(done);
            let mut at_warp: Option<Value<'ctx>> = None;
            for &s in r.exit_states.iter().filter(|s| warp_barriers.contains(s)) {
                let is = self.b.icmp(LLVMIntEQ, state, self.c32(s), "");
                at_warp = Some(match at_warp {
                    Some(a) => self.b.int_op(IntOp::Or, a, is, ""),
                    None => is,
                });
            }
            let from = self.b.insert_block();
            match at_warp {
                Some(c) => {
                    let flipped = self.b.int_op(IntOp::Xor, phase.value(), self.c32(1), "");
                    self.b.cond_br(c, wdispatch, wnext);
                    add_incoming(ws, state, from);
                    add_incoming(phase, flipped, from);
                }
                None => {
                    self.b.br(wnext);
                }
            }
            add_incoming(stop, state, from);
        }

        let last = self.f.get_last_basic_block().expect("the function has blocks");
        wnext.move_after(last).expect("blocks of the function");
        self.b.position_at_end(wnext);
        let lt = self.b.icmp(LLVMIntULT, stop.value(), bmin.value(), "");
        let new_min = self.b.select(lt, stop.value(), bmin.value(), "");
        let gt = self.b.icmp(LLVMIntULT, bmax.value(), stop.value(), "");
        let new_max = self.b.select(gt, stop.value(), bmax.value(), "");
        let w1 = self.b.nuw_add(w.value(), self.c64(1), "");
        let more = self.b.icmp(LLVMIntULT, w1, n_warps, "");
        let all = self.block("warps.done");
        self.b.cond_br(more, warp, all);
        add_incoming(w, w1, wnext);
        add_incoming(bmin, new_min, wnext);
        add_incoming(bmax, new_max, wnext);
        self.b.position_at_end(all);
        let agree = self.check_agreement("warps", new_min, new_max);
        self.b.position_at_end(agree);
        self.b.br(dispatch);
        add_incoming(next, new_min, agree);
        self.warp_phase = None;
        // Blocks of whole warps: a collapsed loop's warp is never partial,
        // and its selects for lanes past the end fold away.
        if whole_warps {
            for call in self.f.get_basic_block_iter().flat_map(crate::ir::instructions).filter(|&i| calls_once(i)) {
                call.set_operand(1, self.c32(WARP as u32));
            }
        }
        Ok(())
    }

    /// One region's loop over the `lanes` lanes from `first` of a warp; returns its
    /// first block, its last (unterminated) and the state its lanes stopped
    /// at (checked to agree where they may not, as `emit_region` does).
    fn emit_lane_region(
        &mut self,
        r: &Region<'ctx>,
        warp: Value<'ctx>,
        first: Value<'ctx>,
        lanes: Value<'ctx>,
    ) -> Result<(BasicBlock<'ctx>, BasicBlock<'ctx>, Value<'ctx>), String> {
        let tag = format!("r{}", r.state);
        // Even where all lanes stop alike, the last lane's state is not
        // taken: LLVM threads the test of it into the lane loop, which then
        // has an exit per state and does not vectorise (a warp barrier in a
        // loop: `for (off = 16; off > 0; off >>= 1) v += __shfl_down_sync(…)`).
        // The least and greatest state are reductions it keeps.
        let track = r.exit_states.len() > 1;
        // A collapsed loop (`warp_collapse.rs`) runs once for the warp, on
        // vectors of its lanes: its region is that call between two warp
        // barriers, the same for every lane.
        let lanes = if runs_once(r) { self.c64(1) } else { lanes };
        let nest = self.open_lanes(&tag, track, warp, first, lanes);
        let body = self.b.insert_block();
        let exits = self.clone_region(r, &tag, body, nest.pre, None)?;
        let state = self.stop_state(&nest, &exits);
        let reduced = self.close_lanes(&nest, track.then_some(state.value()), lanes, !has_vectors(r));
        self.b.position_at_end(nest.done);
        match reduced {
            Some((min, max)) => Ok((nest.pre, self.check_agreement(&tag, min, max), min)),
            // One exit state, or exits taken alike by all lanes: the last
            // lane's, from the latch, which dominates `done`.
            None if !r.exit_states.is_empty() => Ok((nest.pre, nest.done, state.value())),
            // No lane leaves the region: `done` is unreachable.
            None => Ok((nest.pre, nest.done, self.c32(self.exit_state))),
        }
    }

    /// Opens a loop over the `lanes` lanes from `first`; `ivs` holds the
    /// lane's offset in the warp, `0..lanes`, and its linear id.
    /// x, y and z are computed per lane: from the warp's first lane's when
    /// the warp lies in one row of x (a test the loop does not change, so
    /// LLVM unswitches on it and the common copy has x affine in the lane,
    /// which vectorises), else by dividing. The builder is left in the body.
    fn open_lanes(&mut self, tag: &str, track_states: bool, warp: Value<'ctx>, first: Value<'ctx>, lanes: Value<'ctx>) -> Nest<'ctx> {
        let pre = self.block(&format!("{tag}.pre"));
        let head = self.block(&format!("{tag}.lane"));
        // Rows of whole warps (x's size a known multiple of 32): every
        // warp lies in one row, and x is affine in the lane with no branch,
        // which `simt-wiloops-version` needs to see a bounds check as one.
        let whole_rows = self.launch().local_size[0].const_u64().is_some_and(|w| w % WARP == 0);
        let rows = (!whole_rows).then(|| (self.block(&format!("{tag}.row")), self.block(&format!("{tag}.rows"))));
        let body = self.block(&format!("{tag}.item"));
        self.b.position_at_end(pre);
        let ls = self.launch().local_size;
        let x0 = self.b.int_op(IntOp::URem, first, ls[0], "");
        let row = self.b.int_op(IntOp::UDiv, first, ls[0], "");
        let y0 = self.b.int_op(IntOp::URem, row, ls[1], "");
        let z0 = self.b.int_op(IntOp::UDiv, row, ls[1], "");
        let x_end = self.b.nuw_add(x0, lanes, "");
        let one_row = self.b.icmp(llvm_sys::LLVMIntPredicate::LLVMIntULE, x_end, ls[0], "one.row");
        self.b.br(head);
        self.b.position_at_end(head);
        // Two counters: the lane's offset in the warp, from 0, and its
        // linear id, from `first`. The kernel's lane id (`threadIdx.x % 32`)
        // is then a counter of its own, which the vectoriser widens to
        // constants (`lane - first` stayed a vector subtraction per region
        // run), and slots indexed by the linear id keep constant offsets
        // from the vector step's first lane (`first + j` was widened and
        // each lane's address extracted). A third, for x within a row, made
        // softmax_warp 19% more instructions and compact 4% fewer.
        let j = self.b.phi(self.i64t, "lane.in.warp");
        add_incoming(j, self.c64(0), pre);
        let lane = self.b.phi(self.i64t, "lane");
        add_incoming(lane, first, pre);
        let (mut mins, mut maxs) = (Vec::new(), Vec::new());
        if track_states {
            let (mn, mx) = (self.b.phi(self.i32t, "state.min"), self.b.phi(self.i32t, "state.max"));
            add_incoming(mn, self.c32(u32::MAX), pre);
            add_incoming(mx, self.c32(0), pre);
            mins.push(mn);
            maxs.push(mx);
        }
        let mut xyz = Vec::new();
        match rows {
            None => {
                let xa = self.b.nuw_add(x0, j.value(), "wi.x");
                self.b.br(body);
                self.b.position_at_end(body);
                xyz.extend([xa, y0, z0]);
            }
            Some((in_row, across)) => {
                self.b.cond_br(one_row, in_row, across);
                self.b.position_at_end(in_row);
                let xa = self.b.nuw_add(x0, j.value(), "");
                self.b.br(body);
                self.b.position_at_end(across);
                let xd = self.b.int_op(IntOp::URem, lane.value(), ls[0], "");
                let t = self.b.int_op(IntOp::UDiv, lane.value(), ls[0], "");
                let yd = self.b.int_op(IntOp::URem, t, ls[1], "");
                let zd = self.b.int_op(IntOp::UDiv, t, ls[1], "");
                self.b.br(body);
                self.b.position_at_end(body);
                for (name, a, d) in [("wi.x", xa, xd), ("wi.y", y0, yd), ("wi.z", z0, zd)] {
                    let phi = self.b.phi(self.i64t, name);
                    add_incoming(phi, a, in_row);
                    add_incoming(phi, d, across);
                    xyz.push(phi.value());
                }
            }
        }
        let wi = WarpItems { lane: j.value(), warp, first };
        self.items = Some(Items { w: lane.value(), x: xyz[0], y: xyz[1], z: xyz[2], warp: Some(wi) });
        let latch = self.block(&format!("{tag}.lane.next"));
        let done = self.block(&format!("{tag}.done"));
        self.b.position_at_end(body);
        Nest { pre, heads: vec![head], ivs: vec![j, lane], mins, maxs, latches: vec![latch], done }
    }

    /// Closes a lane loop (the body branches to its latch): the next lane;
    /// with `state`, the least and
    /// greatest stop state of the lanes, valid in `done`.
    /// `rolled`: the loop is kept from LLVM's unroller, for the vectorizer
    /// to widen and interleave to the warp (32 lanes of 32 bits: 8 wide, 4
    /// times).
    fn close_lanes(
        &mut self,
        nest: &Nest<'ctx>,
        state: Option<Value<'ctx>>,
        lanes: Value<'ctx>,
        rolled: bool,
    ) -> Option<(Value<'ctx>, Value<'ctx>)> {
        for &bb in [&nest.latches[0], &nest.done] {
            let last = self.f.get_last_basic_block().expect("the function has blocks");
            bb.move_after(last).expect("blocks of the function");
        }
        self.b.position_at_end(nest.latches[0]);
        let reduced = state.map(|st| {
            let (min, max) = (nest.mins[0].value(), nest.maxs[0].value());
            let lt = self.b.icmp(LLVMIntULT, st, min, "");
            let mn = self.b.select(lt, st, min, "");
            let gt = self.b.icmp(LLVMIntULT, max, st, "");
            let mx = self.b.select(gt, st, max, "");
            add_incoming(nest.mins[0], mn, nest.latches[0]);
            add_incoming(nest.maxs[0], mx, nest.latches[0]);
            (mn, mx)
        });
        let next: Vec<_> = nest.ivs.iter().map(|iv| self.b.nuw_add(iv.value(), self.c64(1), "")).collect();
        let more = self.b.icmp(LLVMIntULT, next[0], lanes, "");
        let br = self.b.cond_br(more, nest.heads[0], nest.done);
        // Not forced to vectorise (`llvm.loop.vectorize.enable`): where the
        // cost model declines, the forced loops' masked stores ran slower
        // on this machine (BENCHMARKS.md, issue 24).
        // Rolled: 32 lanes are few enough for LLVM's full unrolling, which
        // ran before the vectorizer and left block_sum_warp's load of its
        // input as 32 scalar loads and stores. Not where the vectorizer
        // cannot widen the loop (a vote's `<32 x i32>` read of the row):
        // unrolled, LLVM merges the lanes' identical reads.
        if rolled {
            br.mark_parallel_rolled_loop(self.access_group, 4);
        } else {
            br.mark_parallel_loop(self.access_group);
        }
        for (&iv, &n) in nest.ivs.iter().zip(&next) {
            add_incoming(iv, n, nest.latches[0]);
        }
        reduced
    }
}

/// Whether region `r` calls a collapsed loop's function, which runs once
/// per warp.
fn runs_once(r: &Region<'_>) -> bool {
    r.blocks.iter().flat_map(|&b| crate::ir::instructions(b)).any(calls_once)
}

/// Whether `i` calls a collapsed loop's function (`once(buffer, lanes)`).
fn calls_once(i: Inst<'_>) -> bool {
    use crate::transform::warp_collapse::ONCE_PREFIX;
    i.is_call() && i.called_function().is_some_and(|f| crate::ir::function_name(f).starts_with(ONCE_PREFIX))
}

/// Whether region `r` computes a vector value (the exchange's reads of a
/// whole row for votes and matches), which the loop vectorizer does not
/// widen.
fn has_vectors(r: &Region<'_>) -> bool {
    r.blocks.iter().flat_map(|&b| crate::ir::instructions(b)).any(|i| i.ty().is_vector())
}
