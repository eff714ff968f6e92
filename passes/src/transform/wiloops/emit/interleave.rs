//! Seed 001's interleaved form `simt_wgi_K(args, ctxs, count)`: for
//! kernels whose regions form a straight chain, statements merged into loop
//! groups (`groups.rs`), statement j of a group running for work-group
//! t − off(j) in step t of the interleaving loop, each guarded to valid
//! work-groups, memory sets rotating over a ring.

use super::*;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMIntPredicate;

impl Emitter {
    /// Emits `simt_wgi_K(args, ctxs, count)`, seed 001's interleaved form,
    /// when the regions form a straight chain (barriers only in straight-line
    /// code): statement j of the chain runs for work-group t − off(j) in step t
    /// of the interleaving loop, where off grows by one from each statement to
    /// the next inside a loop group and stays put across groups. A group's
    /// statements share one work-item loop, each guarded to run only for a
    /// work-group in `0..count`. Returns the ring size (memory sets in
    /// flight), or `None` when the kernel does not qualify.
    pub unsafe fn emit_interleaved(&mut self, name: &str, regions: &[Region], n: usize) -> Result<Option<u64>, String> {
        let Some(chain) = chain(regions, self.exit_state) else { return Ok(None) };
        if chain.len() < 2 {
            return Ok(None);
        }
        let costs: Vec<u64> = chain.iter().map(|r| region_size(r)).collect();
        let groups = super::super::groups::form_loop_groups(&costs, n);
        let mut offset = vec![0u64; chain.len()];
        for g in &groups {
            for j in g.clone() {
                offset[j] = if j == 0 { 0 } else if j == g.start { offset[j - 1] } else { offset[j - 1] + 1 };
            }
        }
        let lag = *offset.last().expect("a chain has statements");

        let ptr = LLVMPointerTypeInContext(self.ctx, 0);
        let mut params = [ptr, ptr, self.i32t];
        let fn_ty = LLVMFunctionType(self.i32t, params.as_mut_ptr(), 3, 0);
        self.f = LLVMAddFunction(self.module, cs(&crate::wg_abi::wgi_function(name)).as_ptr(), fn_ty);
        self.ctx_arg = LLVMGetParam(self.f, 1);
        self.params.clear();
        let entry = self.block("entry");
        LLVMPositionBuilderAtEnd(self.b, entry);
        self.guard_local_size(self.ctx_arg);
        self.emit_launch_values(self.ctx_arg, LLVMGetParam(self.f, 0));
        let entry = LLVMGetInsertBlock(self.b);
        let count = LLVMBuildZExt(self.b, LLVMGetParam(self.f, 2), self.i64t, c"count".as_ptr());
        let steps = LLVMBuildNUWAdd(self.b, count, self.c64(lag), c"steps".as_ptr());
        let head = self.block("step");
        LLVMBuildBr(self.b, head);
        LLVMPositionBuilderAtEnd(self.b, head);
        let t = LLVMBuildPhi(self.b, self.i64t, c"t".as_ptr());
        add_incoming(t, self.c64(0), entry);

        for (gi, g) in groups.iter().enumerate() {
            let tag = format!("g{gi}");
            let nest = self.open_nest(&tag, false);
            let body = LLVMGetInsertBlock(self.b);
            // Each statement's work-group, its context and its memory set.
            LLVMPositionBuilderBefore(self.b, LLVMGetBasicBlockTerminator(nest.pre));
            let mut views = Vec::new();
            for j in g.clone() {
                let wg = LLVMBuildSub(self.b, t, self.c64(offset[j]), c"wg".as_ptr());
                let valid = LLVMBuildICmp(self.b, LLVMIntPredicate::LLVMIntULT, wg, count, c"valid".as_ptr());
                let safe = LLVMBuildSelect(self.b, valid, wg, self.c64(0), c"".as_ptr());
                let mut idx = [safe];
                let ctx = LLVMBuildInBoundsGEP2(self.b, self.ctx_ty, self.ctx_arg, idx.as_mut_ptr(), 1, c"wg.ctx".as_ptr());
                views.push((valid, self.emit_view(ctx, Some(self.ctx_arg))));
            }
            let mut at = body;
            for j in g.clone() {
                let (valid, view) = views.remove(0);
                let run = self.block(&format!("{tag}.s{j}"));
                let next = self.block(&format!("{tag}.s{j}.next"));
                LLVMPositionBuilderAtEnd(self.b, at);
                LLVMBuildCondBr(self.b, valid, run, next);
                self.view = Some(view);
                let exits = self.clone_region(chain[j], &format!("{tag}.s{j}"), run, nest.pre)?;
                for (_, eb) in exits {
                    LLVMPositionBuilderAtEnd(self.b, eb);
                    LLVMBuildBr(self.b, next);
                }
                at = next;
            }
            LLVMPositionBuilderAtEnd(self.b, at);
            LLVMBuildBr(self.b, nest.latches[0]);
            self.close_nest(&nest, None);
            self.link_group(gi, head, &nest);
        }
        let latch = self.block("step.next");
        LLVMPositionBuilderAtEnd(self.b, self.pending_done.take().expect("at least one group"));
        LLVMBuildBr(self.b, latch);
        LLVMPositionBuilderAtEnd(self.b, latch);
        let t1 = LLVMBuildNUWAdd(self.b, t, self.c64(1), c"".as_ptr());
        add_incoming(t, t1, latch);
        let more = LLVMBuildICmp(self.b, LLVMIntPredicate::LLVMIntULT, t1, steps, c"".as_ptr());
        let finished = self.block("finished");
        LLVMBuildCondBr(self.b, more, head, finished);
        LLVMPositionBuilderAtEnd(self.b, finished);
        LLVMBuildRet(self.b, self.c32(crate::wg_abi::STATUS_OK));
        Ok(Some(lag + 1))
    }

    /// Enters group `gi`'s nest from the step head or the previous group.
    pub(super) unsafe fn link_group(&mut self, gi: usize, head: LLVMBasicBlockRef, nest: &Nest) {
        let from = if gi == 0 { head } else { self.pending_done.take().expect("previous group") };
        LLVMPositionBuilderAtEnd(self.b, from);
        LLVMBuildBr(self.b, nest.pre);
        self.pending_done = Some(nest.done);
    }
}

/// The regions as a straight chain from the entry to the exit, each with a
/// single successor state, if they form one.
pub(super) fn chain(regions: &[Region], exit_state: u32) -> Option<Vec<&Region>> {
    let mut out = Vec::new();
    let mut state = 0u32;
    while state != exit_state {
        let r = regions.iter().find(|r| r.state == state)?;
        if r.exit_states.len() != 1 || out.len() > regions.len() {
            return None;
        }
        out.push(r);
        state = r.exit_states[0];
    }
    Some(out)
}

/// Instructions in a region: the seed's measure of a statement's size.
pub(super) fn region_size(r: &Region) -> u64 {
    r.blocks.iter().map(|&b| unsafe { instructions(b).len() as u64 }).sum()
}
