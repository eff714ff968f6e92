//! Seed 001's interleaved form `simt_wgi_K(args, ctxs, count)`: for
//! kernels whose regions form a straight chain, statements merged into loop
//! groups (`groups.rs`), statement j of a group running for work-group
//! t − off(j) in step t of the interleaving loop, each guarded to valid
//! work-groups, memory sets rotating over a ring.

use super::*;
use crate::ir::{instructions, parameters, IntOp};
use llvm_sys::LLVMIntPredicate;

impl<'ctx> Emitter<'_, 'ctx> {
    /// Emits `simt_wgi_K(args, ctxs, count)`, seed 001's interleaved form,
    /// when the regions form a straight chain (barriers only in straight-line
    /// code): statement j of the chain runs for work-group t − off(j) in step t
    /// of the interleaving loop, where off grows by one from each statement to
    /// the next inside a loop group and stays put across groups. A group's
    /// statements share one work-item loop, each guarded to run only for a
    /// work-group in `0..count`. Returns the ring size (memory sets in
    /// flight), or `None` when the kernel does not qualify.
    pub fn emit_interleaved(&mut self, name: &str, regions: &[Region<'ctx>], n: usize) -> Result<Option<u64>, String> {
        let Some(chain) = chain(regions, self.exit_state) else { return Ok(None) };
        if chain.len() < 2 {
            return Ok(None);
        }
        let costs: Vec<u64> = chain.iter().map(|r| region_size(r)).collect();
        let groups = super::super::groups::form_loop_groups(&costs, n);
        let mut offset = vec![0u64; chain.len()];
        for g in &groups {
            for j in g.clone() {
                offset[j] = if j == 0 {
                    0
                } else if j == g.start {
                    offset[j - 1]
                } else {
                    offset[j - 1] + 1
                };
            }
        }
        let lag = *offset.last().expect("a chain has statements");

        let ctx = self.module.get_context();
        let ptr = ctx.ptr_type(AddressSpace::default());
        let i32t = ctx.i32_type();
        let fn_ty = i32t.fn_type(&[ptr.into(), ptr.into(), i32t.into()], false);
        self.f = self.module.add_function(&crate::wg_abi::wgi_function(name), fn_ty, None);
        let f_params = parameters(self.f);
        self.ctx_arg = f_params[1];
        self.params.clear();
        let entry = self.block("entry");
        self.b.position_at_end(entry);
        self.guard_local_size(self.ctx_arg);
        self.emit_launch_values(self.ctx_arg, f_params[0]);
        let entry = self.b.insert_block();
        let count = self.b.zext(f_params[2], self.i64t, "count");
        let steps = self.b.nuw_add(count, self.c64(lag), "steps");
        let head = self.block("step");
        self.b.br(head);
        self.b.position_at_end(head);
        let t = self.b.phi(self.i64t, "t");
        add_incoming(t, self.c64(0), entry);

        for (gi, g) in groups.iter().enumerate() {
            let tag = format!("g{gi}");
            let nest = self.open_nest(&tag, false);
            let body = self.b.insert_block();
            // Each statement's work-group, its context and its memory set.
            self.position_before_terminator(nest.pre);
            let mut views = Vec::new();
            for j in g.clone() {
                let wg = self.b.int_op(IntOp::Sub, t.value(), self.c64(offset[j]), "wg");
                let valid = self.b.icmp(LLVMIntPredicate::LLVMIntULT, wg, count, "valid");
                let safe = self.b.select(valid, wg, self.c64(0), "");
                let ctx = self.b.inbounds_gep(self.ctx_ty, self.ctx_arg, &[safe], "wg.ctx");
                views.push((valid, self.emit_view(ctx, Some(self.ctx_arg))));
            }
            let mut at = body;
            for j in g.clone() {
                let (valid, view) = views.remove(0);
                let run = self.block(&format!("{tag}.s{j}"));
                let next = self.block(&format!("{tag}.s{j}.next"));
                self.b.position_at_end(at);
                self.b.cond_br(valid, run, next);
                self.view = Some(view);
                let exits = self.clone_region(chain[j], &format!("{tag}.s{j}"), run, nest.pre, None)?;
                for (_, eb) in exits {
                    self.b.position_at_end(eb);
                    self.b.br(next);
                }
                at = next;
            }
            self.b.position_at_end(at);
            self.b.br(nest.latches[0]);
            self.close_nest(&nest, None);
            self.link_group(gi, head, &nest);
        }
        let latch = self.block("step.next");
        let pending = self.pending_done.take().expect("at least one group");
        self.b.position_at_end(pending);
        self.b.br(latch);
        self.b.position_at_end(latch);
        let t1 = self.b.nuw_add(t.value(), self.c64(1), "");
        add_incoming(t, t1, latch);
        let more = self.b.icmp(LLVMIntPredicate::LLVMIntULT, t1, steps, "");
        let finished = self.block("finished");
        self.b.cond_br(more, head, finished);
        self.b.position_at_end(finished);
        self.b.ret(self.c32(crate::wg_abi::STATUS_OK));
        Ok(Some(lag + 1))
    }

    /// Enters group `gi`'s nest from the step head or the previous group.
    pub(super) fn link_group(&mut self, gi: usize, head: BasicBlock<'ctx>, nest: &Nest<'ctx>) {
        let from = if gi == 0 { head } else { self.pending_done.take().expect("previous group") };
        self.b.position_at_end(from);
        self.b.br(nest.pre);
        self.pending_done = Some(nest.done);
    }
}

/// The regions as a straight chain from the entry to the exit, each with a
/// single successor state, if they form one.
pub(super) fn chain<'r, 'ctx>(regions: &'r [Region<'ctx>], exit_state: u32) -> Option<Vec<&'r Region<'ctx>>> {
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
pub(super) fn region_size(r: &Region<'_>) -> u64 {
    r.blocks.iter().map(|&b| instructions(b).count() as u64).sum()
}
