//! Loop nests over the work-items of a work-group: z/y/x loops whose
//! innermost one is marked `llvm.loop.parallel_accesses` (with one access
//! group for the region's loads and stores), optionally carrying the minimum
//! and maximum stop state of the work-items as reductions.
//!
//! ```text
//!  pre ─▶ z ─▶ y ─▶ x ─▶ item: body … ─▶ x.next ─▶ y.next ─▶ z.next ─▶ done
//!         ▲    ▲    ▲                      │         │         │
//!         │    │    └──────────────────────┘         │         │
//!         │    └─────────────────────────────────────┘         │
//!         └────────────────────────────────────────────────────┘
//! ```

use super::*;
use crate::ir::terminator;
use llvm_sys::LLVMIntPredicate;

impl<'ctx> Emitter<'_, 'ctx> {
    /// Opens a z/y/x loop nest over the work-items; the builder is left at
    /// the end of the (unterminated) body block, with `self.items` set.
    pub(super) fn open_nest(&mut self, tag: &str, track_states: bool) -> Nest<'ctx> {
        let pre = self.block(&format!("{tag}.pre"));
        let heads: Vec<BasicBlock<'ctx>> = ["z", "y", "x"].iter().map(|d| self.block(&format!("{tag}.{d}"))).collect();
        let body = self.block(&format!("{tag}.item"));
        self.b.position_at_end(pre);
        self.b.br(heads[0]);
        let (mut ivs, mut mins, mut maxs) = (Vec::new(), Vec::new(), Vec::new());
        for (level, &h) in heads.iter().enumerate() {
            self.b.position_at_end(h);
            ivs.push(self.b.phi(self.i64t, ["wi.z", "wi.y", "wi.x"][level]));
            if track_states {
                mins.push(self.b.phi(self.i32t, "state.min"));
                maxs.push(self.b.phi(self.i32t, "state.max"));
            }
            self.b.br(if level < 2 { heads[level + 1] } else { body });
        }
        let (z, y, x) = (ivs[0].value(), ivs[1].value(), ivs[2].value());
        self.b.position_at_end(body);
        let local_size = self.launch().local_size;
        let yz = self.b.nuw_add(y, self.b.nuw_mul(local_size[1], z, ""), "");
        let w = self.b.nuw_add(x, self.b.nuw_mul(local_size[0], yz, ""), "wi.linear");
        self.items = Some(Items { x, y, z, w, warp: None });
        let latches: Vec<BasicBlock<'ctx>> = ["x", "y", "z"].iter().map(|d| self.block(&format!("{tag}.{d}.next"))).collect();
        let done = self.block(&format!("{tag}.done"));
        self.b.position_at_end(body);
        Nest { pre, heads, ivs, mins, maxs, latches, done }
    }

    /// Closes a nest whose x latch (`nest.latches[0]`) the body branches to.
    /// With state tracking, `state` is this work-item's stop state and the
    /// result the minimum and maximum over all work-items, valid in `done`.
    pub(super) fn close_nest(&mut self, nest: &Nest<'ctx>, state: Option<Value<'ctx>>) -> Option<(Value<'ctx>, Value<'ctx>)> {
        // Latches after the body they close, so the function reads in order.
        for &bb in nest.latches.iter().chain([&nest.done]) {
            let last = self.f.get_last_basic_block().expect("the function has blocks");
            bb.move_after(last).expect("blocks of the function");
        }
        self.b.position_at_end(nest.latches[0]);
        let reduced = state.map(|st| {
            let (min, max) = (nest.mins[2].value(), nest.maxs[2].value());
            let lt = self.b.icmp(LLVMIntPredicate::LLVMIntULT, st, min, "");
            let mn = self.b.select(lt, st, min, "");
            let gt = self.b.icmp(LLVMIntPredicate::LLVMIntUGT, st, max, "");
            let mx = self.b.select(gt, st, max, "");
            (mn, mx)
        });
        let local_size = self.launch().local_size;
        for (level, &bound) in local_size.iter().enumerate() {
            // level 0 = x (innermost), 1 = y, 2 = z.
            let iv = nest.ivs[2 - level];
            self.b.position_at_end(nest.latches[level]);
            let inc = self.b.nuw_add(iv.value(), self.c64(1), "");
            let more = self.b.icmp(LLVMIntPredicate::LLVMIntULT, inc, bound, "");
            let after = if level < 2 { nest.latches[level + 1] } else { nest.done };
            let br = self.b.cond_br(more, nest.heads[2 - level], after);
            if level == 0 {
                br.mark_parallel_loop(self.access_group);
            }
            add_incoming(iv, inc, nest.latches[level]);
            let outer_entry = if level < 2 { nest.heads[1 - level] } else { nest.pre };
            add_incoming(iv, self.c64(0), outer_entry);
            if let Some((mn, mx)) = reduced {
                add_incoming(nest.mins[2 - level], mn, nest.latches[level]);
                add_incoming(nest.maxs[2 - level], mx, nest.latches[level]);
                let (init_min, init_max) = if level < 2 {
                    (nest.mins[1 - level].value(), nest.maxs[1 - level].value())
                } else {
                    (self.c32(u32::MAX), self.c32(0))
                };
                add_incoming(nest.mins[2 - level], init_min, outer_entry);
                add_incoming(nest.maxs[2 - level], init_max, outer_entry);
            }
        }
        reduced
    }

    /// Positions the builder before the terminator of `bb`.
    pub(super) fn position_before_terminator(&mut self, bb: BasicBlock<'ctx>) {
        self.b.position_before(terminator(bb).expect("a terminated block"));
    }
}

/// A z/y/x loop nest over the work-items of a work-group.
pub(super) struct Nest<'ctx> {
    pub(super) pre: BasicBlock<'ctx>,
    pub(super) heads: Vec<BasicBlock<'ctx>>,
    pub(super) ivs: Vec<Inst<'ctx>>,
    pub(super) mins: Vec<Inst<'ctx>>,
    pub(super) maxs: Vec<Inst<'ctx>>,
    pub(super) latches: Vec<BasicBlock<'ctx>>,
    pub(super) done: BasicBlock<'ctx>,
}
