//! The dispatcher of `simt_wg_K`: a loop over `next`, the state (barrier
//! id) every work-item stopped at, switching to the region that follows it;
//! each region one nest of work-item loops, and where its work-items may stop
//! at different barriers, the check that they agreed (else `ctx.error` and
//! status 1).
//!
//! ```text
//!  entry ─▶ dispatch: switch next ──▶ r0.pre … r0.done ─┐
//!             ▲    └─ exit state ─▶ finished: ret 0     │
//!             └──────────── next = state ◀──────────────┘
//! ```

use super::*;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use crate::wg_abi::field;
use llvm_sys::LLVMIntPredicate;

impl Emitter {
    /// Emits `simt_wg_K`. Errors name what cannot be lowered.
    pub unsafe fn emit(&mut self, regions: &[Region]) -> Result<(), String> {
        let entry = self.block("entry");
        LLVMPositionBuilderAtEnd(self.b, entry);
        self.guard_local_size(self.ctx_arg);
        self.emit_launch_values(self.ctx_arg, LLVMGetParam(self.f, 0));
        self.view = Some(self.emit_view(self.ctx_arg, None));
        let entry_end = LLVMGetInsertBlock(self.b);

        let dispatch = self.block("dispatch");
        LLVMBuildBr(self.b, dispatch);
        LLVMPositionBuilderAtEnd(self.b, dispatch);
        let next = LLVMBuildPhi(self.b, self.i32t, c"next".as_ptr());
        add_incoming(next, self.c32(0), entry_end);
        let finished = self.block("finished");
        let sw = LLVMBuildSwitch(self.b, next, finished, regions.len() as u32);
        LLVMPositionBuilderAtEnd(self.b, finished);
        LLVMBuildRet(self.b, self.c32(crate::wg_abi::STATUS_OK));
        for r in regions {
            let (pre, done, next_state) = self.emit_region(r)?;
            LLVMAddCase(sw, self.c32(r.state), pre);
            LLVMPositionBuilderAtEnd(self.b, done);
            LLVMBuildBr(self.b, dispatch);
            add_incoming(next, next_state, done);
        }
        Ok(())
    }

    /// Emits one region's loop nest; returns its first block, its last block
    /// (not yet terminated) and the state to dispatch to next.
    pub(super) unsafe fn emit_region(&mut self, r: &Region) -> Result<(LLVMBasicBlockRef, LLVMBasicBlockRef, LLVMValueRef), String> {
        let tag = format!("r{}", r.state);
        let multi = r.exit_states.len() > 1;
        let nest = self.open_nest(&tag, multi);
        let body = LLVMGetInsertBlock(self.b);
        let exits = self.clone_region(r, &tag, body, nest.pre)?;
        // x latch: which state each work-item stopped at.
        LLVMPositionBuilderAtEnd(self.b, nest.latches[0]);
        let state = LLVMBuildPhi(self.b, self.i32t, c"state".as_ptr());
        for (&s, &eb) in &exits {
            add_incoming(state, self.c32(s), eb);
            LLVMPositionBuilderAtEnd(self.b, eb);
            LLVMBuildBr(self.b, nest.latches[0]);
        }
        let reduced = self.close_nest(&nest, multi.then_some(state));
        LLVMPositionBuilderAtEnd(self.b, nest.done);
        let Some((new_min, new_max)) = reduced else {
            // A region no work-item leaves (an endless loop after a barrier,
            // or a kernel with no return) has no exit state: `done` is
            // unreachable, and the state it would dispatch to does not matter.
            let next = r.exit_states.first().copied().unwrap_or(self.exit_state);
            return Ok((nest.pre, nest.done, self.c32(next)));
        };
        let agree = self.block(&format!("{tag}.agreed"));
        let disagree = self.block(&format!("{tag}.divergent"));
        let same = LLVMBuildICmp(self.b, LLVMIntPredicate::LLVMIntEQ, new_min, new_max, c"".as_ptr());
        LLVMBuildCondBr(self.b, same, agree, disagree);
        LLVMPositionBuilderAtEnd(self.b, disagree);
        LLVMBuildStore(self.b, new_min, self.field_of(self.ctx_arg, field::ERROR, Some(0)));
        LLVMBuildStore(self.b, new_max, self.field_of(self.ctx_arg, field::ERROR, Some(1)));
        LLVMBuildStore(self.b, self.c32(0), self.field_of(self.ctx_arg, field::ERROR, Some(2)));
        LLVMBuildRet(self.b, self.c32(crate::wg_abi::STATUS_BARRIER_DIVERGENCE));
        Ok((nest.pre, agree, new_min))
    }

}
