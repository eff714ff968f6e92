//! The dispatcher of `simt_wg_K`: a loop over `next`, the state (barrier
//! id) every work-item stopped at, switching to the region that follows it;
//! each region one nest of work-item loops, and where its work-items may stop
//! at different barriers (a divergent branch controls them), the check that
//! they agreed (else `ctx.error` and status 1).
//!
//! ```text
//!  entry ─▶ dispatch: switch next ──▶ r0.pre … r0.done ─┐
//!             ▲    └─ exit state ─▶ finished: ret 0     │
//!             └──────────── next = state ◀──────────────┘
//! ```

use super::*;
use crate::ir::parameters;
use crate::wg_abi::field;
use llvm_sys::LLVMIntPredicate;

impl<'ctx> Emitter<'_, 'ctx> {
    /// Emits `simt_wg_K`. Errors name what cannot be lowered.
    pub fn emit(&mut self, regions: &[Region<'ctx>]) -> Result<(), String> {
        let (dispatch, next) = self.open_dispatch();
        let finished = self.block("finished");
        let sw = self.b.switch(next.value(), finished, regions.len() as u32);
        self.b.position_at_end(finished);
        self.b.ret(self.c32(crate::wg_abi::STATUS_OK));
        for r in regions {
            let (pre, done, next_state) = self.emit_region(r)?;
            sw.add_case(self.c32(r.state), pre);
            self.b.position_at_end(done);
            self.b.br(dispatch);
            add_incoming(next, next_state, done);
        }
        Ok(())
    }

    /// The entry (local size check, launch values, this work-group's view)
    /// and the dispatcher's block with its `next` state phi (0 from the
    /// entry), the builder left at the end of that block.
    pub(super) fn open_dispatch(&mut self) -> (BasicBlock<'ctx>, Inst<'ctx>) {
        let entry = self.block("entry");
        self.b.position_at_end(entry);
        self.guard_local_size(self.ctx_arg);
        self.emit_launch_values(self.ctx_arg, parameters(self.f)[0]);
        self.view = Some(self.emit_view(self.ctx_arg, None));
        let entry_end = self.b.insert_block();
        let dispatch = self.block("dispatch");
        self.b.br(dispatch);
        self.b.position_at_end(dispatch);
        let next = self.b.phi(self.i32t, "next");
        add_incoming(next, self.c32(0), entry_end);
        (dispatch, next)
    }

    /// At the x latch of `nest`, which state each work-item stopped at: a
    /// phi over the region's exit blocks, which branch there.
    pub(super) fn stop_state(&mut self, nest: &Nest<'ctx>, exits: &std::collections::BTreeMap<u32, BasicBlock<'ctx>>) -> Inst<'ctx> {
        self.b.position_at_end(nest.latches[0]);
        let state = self.b.phi(self.i32t, "state");
        for (&s, &eb) in exits {
            add_incoming(state, self.c32(s), eb);
            self.b.position_at_end(eb);
            self.b.br(nest.latches[0]);
        }
        state
    }

    /// Emits one region's loop nest; returns its first block, its last block
    /// (not yet terminated) and the state to dispatch to next.
    pub(super) fn emit_region(&mut self, r: &Region<'ctx>) -> Result<(BasicBlock<'ctx>, BasicBlock<'ctx>, Value<'ctx>), String> {
        let tag = format!("r{}", r.state);
        let multi = r.exit_states.len() > 1;
        // Several exits, and work-items may choose differently: reduce.
        let track = multi && !r.uniform_exits;
        let nest = self.open_nest(&tag, track);
        let body = self.b.insert_block();
        self.reset_shared = true;
        let exits = self.clone_region(r, &tag, body, nest.pre, None);
        self.reset_shared = false;
        let exits = exits?;
        let state = self.stop_state(&nest, &exits);
        let reduced = self.close_nest(&nest, track.then_some(state.value()));
        self.b.position_at_end(nest.done);
        if multi && !track {
            // Every work-item stopped where the last one did; the x latch,
            // which defines its state, dominates `done`.
            return Ok((nest.pre, nest.done, state.value()));
        }
        let Some((new_min, new_max)) = reduced else {
            // A region no work-item leaves (an endless loop after a barrier,
            // or a kernel with no return) has no exit state: `done` is
            // unreachable, and the state it would dispatch to does not matter.
            let next = r.exit_states.first().copied().unwrap_or(self.exit_state);
            return Ok((nest.pre, nest.done, self.c32(next)));
        };
        let agree = self.check_agreement(&tag, new_min, new_max);
        Ok((nest.pre, agree, new_min))
    }

    /// At the builder's position, where `min` and `max` are the least and
    /// greatest stop state of the work-items: unless they agree, stores both
    /// in `ctx.error` and returns `STATUS_BARRIER_DIVERGENCE`. Returns the
    /// (empty) block where they agreed.
    pub(super) fn check_agreement(&mut self, tag: &str, min: Value<'ctx>, max: Value<'ctx>) -> BasicBlock<'ctx> {
        let agree = self.block(&format!("{tag}.agreed"));
        let disagree = self.block(&format!("{tag}.divergent"));
        let same = self.b.icmp(LLVMIntPredicate::LLVMIntEQ, min, max, "");
        self.b.cond_br(same, agree, disagree);
        self.b.position_at_end(disagree);
        for (k, v) in [min, max, self.c32(0)].into_iter().enumerate() {
            let at = self.field_of(self.ctx_arg, field::ERROR, Some(k as u32));
            self.b.store(v, at);
        }
        self.b.ret(self.c32(crate::wg_abi::STATUS_BARRIER_DIVERGENCE));
        agree
    }
}
