//! The linear form of `simt_wg_K`: one copy of the kernel inside one nest of
//! work-item loops, entered through a resume `switch` on the state where the
//! work-items stopped (continuation style: Karrenberg & Hack, "Improving
//! performance of OpenCL on CPUs"; CuPBoP and COX), for kernels whose region
//! copies would outgrow the kernel (`REGION_COPY_BUDGET` in `mod.rs`).
//!
//! ```text
//!  entry ─▶ dispatch: next = φ(0, min) ─▶ k.pre ─▶ z ─▶ y ─▶ x ─▶ k.item: switch next
//!             ▲                                           ├── b ─▶ copy of the block after barrier b
//!             │                                           └── default ─▶ copy of the kernel entry
//!             │          copy of barrier b ─▶ x.latch (state b), ret ─▶ x.latch (exit state)
//!             │                                    … ─▶ k.done: min == max? else ctx.error, ret 1
//!             └──────── min is not the exit state ◀── k.agreed ──▶ finished: ret 0
//! ```
//!
//! One round of the dispatcher runs, for every work-item in turn, the blocks
//! reachable from where it resumes up to the next barrier: exactly the
//! region the region form would have copied, so the prepared kernel (values
//! that need a slot demoted, by `prepare::SinceBarrier`: in this CFG, where
//! the switch enters the entry and every barrier's successor, a use not
//! dominated by its definition reads a slot) serves both forms unchanged.
//!
//! Limits: the resume switch hides the work-item loop's body from the loop
//! vectorizer, which the region form feeds well; work-group interleaving
//! (`interleave=N`) is not built for this form; and every value crossing a
//! barrier gets a slot per work-item (uniform ones too: proving that no
//! region reads such a slot after writing it is the per-region search the
//! linear form exists to avoid).

use super::clone::Resume;
use super::*;
use llvm_sys::LLVMIntPredicate;

impl<'ctx> Emitter<'_, 'ctx> {
    /// Emits `simt_wg_K` with `kernel` (every block of the prepared kernel
    /// but the barriers, stopping at all of them) as its one copy; `resume`
    /// gives the block after each barrier, by barrier id.
    pub fn emit_linear(&mut self, kernel: &Region<'ctx>, resume: &[(u32, BasicBlock<'ctx>)]) -> Result<(), String> {
        let (dispatch, next) = self.open_dispatch();
        let track = !kernel.uniform_exits;
        let nest = self.open_nest("k", track);
        let body = self.b.insert_block();
        self.b.position_at_end(dispatch);
        self.b.br(nest.pre);
        let exits = self.clone_region(kernel, "k", body, nest.pre, Some(Resume { state: next.value(), targets: resume }))?;
        let state = self.stop_state(&nest, &exits);
        let reduced = self.close_nest(&nest, track.then_some(state.value()));
        self.b.position_at_end(nest.done);
        // Where no divergent branch controls a barrier or return, every
        // work-item stopped where the last one did (the x latch defines its
        // state and dominates `done`); otherwise the least and greatest
        // states must agree.
        let (min, agreed) = match reduced {
            Some((min, max)) => (min, self.check_agreement("k", min, max)),
            None => (state.value(), nest.done),
        };
        self.b.position_at_end(agreed);
        let finished = self.block("finished");
        let done = self.b.icmp(LLVMIntPredicate::LLVMIntEQ, min, self.c32(self.exit_state), "");
        self.b.cond_br(done, finished, dispatch);
        add_incoming(next, min, agreed);
        self.b.position_at_end(finished);
        self.b.ret(self.c32(crate::wg_abi::STATUS_OK));
        Ok(())
    }
}
