//! Region cloning: the blocks of one region copied into the body of a
//! work-item loop, with every kernel value mapped to its stand-in there:
//! parameters to the values read from `args`, allocas to their per-work-item
//! (or per-work-group) slots, local-memory variables to their addresses in
//! this work-group's block, work-item builtins to values computed from the
//! loop counters, and branches to barriers to the region's stop blocks.

use super::*;
use crate::ir::{instructions, IntOp};
use crate::kernel_model::{builtin_of, Builtin};
use crate::transform::warp_exchange::WARP_PHASE;
use crate::transform::wiloops::innermost::ByteOp;
use llvm_sys::LLVMOpcode;
use std::collections::{BTreeMap, HashMap, HashSet};

impl<'ctx> Emitter<'_, 'ctx> {
    /// Clones region `r` for the current work-group view and work-item,
    /// entered from the end of `from`; returns its exit block per stop state
    /// (unterminated, for the caller to wire).
    ///
    /// With `resume` (the linear form: `r` is the whole kernel), the clone
    /// is entered through `switch state`: state b goes to the copy of the
    /// block that follows barrier b, any other to the copy of `r.entry`.
    ///
    /// Per-work-group slots (uniform values) are read once, at the end of
    /// `pre` (before the work-item loop), and their loads in the region use
    /// that value: the pass only shares slots no region reads after writing.
    pub(super) fn clone_region(
        &mut self,
        r: &Region<'ctx>,
        tag: &str,
        from: BasicBlock<'ctx>,
        pre: BasicBlock<'ctx>,
        resume: Option<Resume<'_, 'ctx>>,
    ) -> Result<BTreeMap<u32, BasicBlock<'ctx>>, String> {
        self.snapshots.clear();
        self.position_before_terminator(pre);
        let mut snapshots = HashMap::new();
        for (a, slot) in self.layout.slots.clone() {
            if let Slot::Shared { .. } = slot {
                let base = self.view().slot_base[&a];
                let v = self.load(a.allocated_type(), base, "uniform");
                self.tag_access(v.as_inst().expect("a load"), a.value());
                snapshots.insert(a.value(), v);
            }
        }
        // The warp dispatcher's per-warp slots (`set_warp_uniform`): read
        // once too, from the warp's first lane's copy.
        let warp_first = self.items.as_ref().and_then(|it| it.warp).map(|wi| wi.first);
        for (a, slot) in self.layout.slots.clone() {
            if let (Slot::PerItem { size, .. }, Some(first)) = (slot, warp_first) {
                if self.warp_uniform.contains(&a) {
                    let idx = self.b.nuw_mul(first, self.c64(size), "");
                    let addr = self.b.inbounds_gep(self.i8t, self.view().slot_base[&a], &[idx], "warp.uniform");
                    let v = self.load(a.allocated_type(), addr, "uniform");
                    self.tag_access(v.as_inst().expect("a load"), a.value());
                    snapshots.insert(a.value(), v);
                }
            }
        }
        self.snapshots = snapshots;
        let bmap: HashMap<BasicBlock<'ctx>, BasicBlock<'ctx>> =
            r.blocks.iter().map(|&kb| (kb, self.block(&format!("{tag}.body")))).collect();
        let exits: BTreeMap<u32, BasicBlock<'ctx>> = r.exit_states.iter().map(|&s| (s, self.block(&format!("{tag}.stop{s}")))).collect();
        self.b.position_at_end(from);
        let view = self.view();
        let w = self.items.as_ref().expect("inside a nest").w;
        let mut vmap = self.params.clone();
        vmap.extend(view.locals.iter().map(|(k, v)| (*k, *v)));
        for &(a, slot) in &self.layout.slots {
            let base = view.slot_base[&a];
            let addr = match slot {
                Slot::PerItem { size, .. } if warp_first.is_some() && self.warp_uniform.contains(&a) => {
                    let idx = self.b.nuw_mul(warp_first.expect("checked"), self.c64(size), "");
                    self.b.inbounds_gep(self.i8t, base, &[idx], "warp.uniform")
                }
                Slot::PerItem { size, .. } => {
                    // Interleaved arrays (`innermost.rs`): element 0 of work-item w.
                    let stride = self.layout.innermost.elem.get(&a).copied().unwrap_or(size);
                    let idx = self.b.nuw_mul(w, self.c64(stride), "");
                    self.b.inbounds_gep(self.i8t, base, &[idx], "private")
                }
                Slot::Shared { .. } | Slot::Stack { .. } => base,
            };
            let want = a.ty();
            let addr = if a.value().address_space() == Some(0) { addr } else { self.b.addrspace_cast(addr, want, "") };
            vmap.insert(a.value(), addr);
        }
        if self.reset_shared {
            self.reset_shared_slots(r);
        }
        match resume {
            None => {
                self.b.br(bmap[&r.entry]);
            }
            Some(Resume { state, targets }) => {
                let sw = self.b.switch(state, bmap[&r.entry], targets.len() as u32);
                for &(s, kb) in targets {
                    sw.add_case(self.c32(s), bmap[&kb]);
                }
            }
        }

        let mut phis: Vec<(Inst<'ctx>, Inst<'ctx>)> = Vec::new();
        for &kb in &r.blocks {
            self.b.position_at_end(bmap[&kb]);
            for i in instructions(kb) {
                self.clone_instruction(i, &mut vmap, &bmap, &exits, &mut phis)?;
            }
        }
        for (old, new) in phis {
            for (value, from) in old.incoming() {
                let Some(&nb) = bmap.get(&from) else { continue };
                self.position_before_terminator(nb);
                let v = self.map_value(value, &vmap)?;
                add_incoming(new, v, nb);
            }
        }
        Ok(exits)
    }

    /// At the start of a work-item, writes back the snapshot of each
    /// per-work-group slot that region `r` writes and every work-item
    /// writes alike: the work-item's own copy of the value, as it was when
    /// the region began.
    ///
    /// Why: without it, the slot's value after a work-item is the one it
    /// wrote if its path stored, else whatever the previous work-item left,
    /// so once SROA has made the slot a register it is a value carried from
    /// work-item to work-item and used after the loop, which the loop
    /// vectoriser refuses ("value that could not be identified as reduction
    /// is used outside the loop"): a lockstep step (`simt-lockstep-loops`)
    /// stores the uniform `k + 1` only on the path to the next step. With
    /// the write-back, every path through the work-item defines the slot
    /// from values fixed before the loop, and nothing is carried. The same
    /// value results: the work-items agree, and one that writes nothing
    /// leaves the value the region began with. A slot that only some
    /// work-items write (its definition under divergent control) is left
    /// alone: there the write-back of a later work-item would undo an
    /// earlier one's write.
    fn reset_shared_slots(&mut self, r: &Region<'ctx>) {
        let written: HashSet<Value<'ctx>> = r
            .blocks
            .iter()
            .flat_map(|&kb| instructions(kb))
            .filter(|i| i.opcode() == LLVMOpcode::LLVMStore)
            .map(|i| i.operand(1))
            .collect();
        for (a, slot) in self.layout.slots.clone() {
            if !matches!(slot, Slot::Shared { .. }) || !self.stored_by_all.contains(&a) || !written.contains(&a.value()) {
                continue;
            }
            let Some(&v) = self.snapshots.get(&a.value()) else { continue };
            let st = self.b.store(v, self.view().slot_base[&a]);
            st.set_access_group(self.access_group);
            self.tag_access(st, a.value());
        }
    }

    /// The value `v` of the kernel stands for in the region being cloned.
    pub(super) fn map_value(&self, v: Value<'ctx>, vmap: &HashMap<Value<'ctx>, Value<'ctx>>) -> Result<Value<'ctx>, String> {
        let remat = || v.as_inst().is_some() && super::super::prepare::rematerializable(v);
        if let Some(&m) = vmap.get(&v) {
            // A rematerializable value is never stored across a barrier, so
            // the region's own copy serves only where it dominates the use:
            // a region entered mid-loop can clone the definition (later in
            // the loop) before a use that the region entry reaches first.
            // Recomputing gives the same value; only a copy earlier in the
            // same block is known to dominate.
            let elsewhere = m.as_inst().is_some_and(|mi| mi.block() != self.b.insert_block());
            if !elsewhere || !remat() {
                return Ok(m);
            }
        }
        if let Some(call) = v.as_inst().filter(|&i| builtin_of(i).is_some()) {
            // Defined in another region: recomputed here, never stored.
            return Ok(self.builtin_for(call));
        }
        if let Some(i) = v.as_inst().filter(|_| remat()) {
            // Cheap arithmetic on work-item ids from another region:
            // recomputed at the use, from its recomputed operands, once per
            // block (code is appended to the block, so an earlier copy
            // dominates).
            let here = self.b.insert_block();
            if let Some(&done) = self.remat.borrow().get(&(v, here)) {
                return Ok(done);
            }
            let mut c = i.clone_detached();
            for k in 0..c.num_operands() {
                let op = self.map_value(c.operand(k), vmap)?;
                c.set_operand(k, op);
            }
            let c = self.b.insert(c, b"");
            c.clear_debug_location();
            self.remat.borrow_mut().insert((v, here), c.value());
            return Ok(c.value());
        }
        if v.as_inst().is_some() || v.is_argument() {
            return Err(format!("internal: '{}' is not available in its region", v.print()));
        }
        if v.is_constant_expr() && self.refers_to_local(v) {
            return self.materialize(v, vmap);
        }
        Ok(v)
    }

    pub(super) fn refers_to_local(&self, v: Value<'ctx>) -> bool {
        if self.view.as_ref().is_some_and(|view| view.locals.contains_key(&v)) {
            return true;
        }
        if !v.is_constant_expr() {
            return false;
        }
        (0..v.num_operands()).any(|i| self.refers_to_local(v.operand(i)))
    }

    /// Rebuilds a constant expression over a local-memory variable as
    /// instructions on the variable's per-work-group address.
    pub(super) fn materialize(&self, v: Value<'ctx>, vmap: &HashMap<Value<'ctx>, Value<'ctx>>) -> Result<Value<'ctx>, String> {
        let op = |i: u32| self.map_value(v.operand(i), vmap);
        Ok(match v.opcode().expect("a constant expression") {
            LLVMOpcode::LLVMGetElementPtr => {
                let base = op(0)?;
                let idx: Vec<Value<'ctx>> = (1..v.num_operands()).map(op).collect::<Result<_, _>>()?;
                self.b.gep_with_flags(v.gep_source_element_type(), base, &idx, "", v.gep_no_wrap_flags())
            }
            LLVMOpcode::LLVMAddrSpaceCast => self.b.addrspace_cast(op(0)?, v.ty(), ""),
            LLVMOpcode::LLVMBitCast => self.b.bit_cast(op(0)?, v.ty(), ""),
            LLVMOpcode::LLVMPtrToInt => self.b.ptr_to_int(op(0)?, v.ty(), ""),
            other => return Err(format!("unsupported constant expression ({other:?}) over local memory: {}", v.print())),
        })
    }

    pub(super) fn clone_instruction(
        &mut self,
        i: Inst<'ctx>,
        vmap: &mut HashMap<Value<'ctx>, Value<'ctx>>,
        bmap: &HashMap<BasicBlock<'ctx>, BasicBlock<'ctx>>,
        exits: &BTreeMap<u32, BasicBlock<'ctx>>,
        phis: &mut Vec<(Inst<'ctx>, Inst<'ctx>)>,
    ) -> Result<(), String> {
        match i.opcode() {
            LLVMOpcode::LLVMAlloca => return Ok(()), // mapped to its slot
            LLVMOpcode::LLVMPHI => {
                let p = self.b.phi(i.ty(), "");
                vmap.insert(i.value(), p.value());
                phis.push((i, p));
                return Ok(());
            }
            LLVMOpcode::LLVMRet => {
                self.b.br(exits[&self.exit_state]);
                return Ok(());
            }
            LLVMOpcode::LLVMLoad => {
                if let Some(&v) = self.snapshots.get(&i.operand(0)) {
                    if v.ty() == i.ty() && !i.is_volatile() {
                        vmap.insert(i.value(), v);
                        return Ok(());
                    }
                }
            }
            LLVMOpcode::LLVMCall => {
                if builtin_of(i).is_some() {
                    let v = self.builtin_for(i);
                    vmap.insert(i.value(), v);
                    return Ok(());
                }
                if let Some(&op) = self.layout.innermost.byte_ops.get(&i) {
                    return self.interleaved_byte_op(i, op, vmap);
                }
                let callee = i.callee();
                if callee.as_function().is_some() && callee.name_bytes() == WARP_PHASE.as_bytes() {
                    let phase = self.warp_phase.ok_or("internal: simt.warp.phase outside the warp dispatcher")?;
                    vmap.insert(i.value(), phase);
                    return Ok(());
                }
                if callee.as_function().is_some() && callee.name_bytes().starts_with(b"llvm.lifetime.") {
                    // Their operand must be an alloca, and allocas became
                    // scratch slots: the hint goes.
                    return Ok(());
                }
                if callee.as_function().is_some_and(|f| self.simt_callees.contains(&f)) {
                    return Err(format!(
                        "'{}' calls a function that uses work-item builtins or barriers: inline it into the kernel first (-passes='simt-flatten-calls,simt-wiloops')",
                        i.value().print()
                    ));
                }
            }
            LLVMOpcode::LLVMGetElementPtr if self.layout.innermost.geps.contains_key(&i) => {
                let v = self.interleaved_gep(i, vmap)?;
                vmap.insert(i.value(), v);
                return Ok(());
            }
            _ => {}
        }
        let mut c = i.clone_detached();
        for k in 0..c.num_operands() {
            let op = c.operand(k);
            if let Some(kb) = op.as_block() {
                let target = if let Some(&nb) = bmap.get(&kb) {
                    nb
                } else if let Some(s) = self.barrier_blocks.get(&kb) {
                    exits[s]
                } else {
                    return Err("internal: branch leaves its region".into());
                };
                c.set_operand(k, Value::of_block(target));
            } else {
                let m = self.map_value(op, vmap)?;
                if m != op {
                    c.set_operand(k, m);
                }
            }
        }
        let c = self.b.insert(c, &i.value().name_bytes());
        c.clear_debug_location();
        // Work-items share a stack slot's one copy: its accesses depend on
        // each other across iterations, so they stay out of the parallel group.
        if matches!(c.opcode(), LLVMOpcode::LLVMLoad | LLVMOpcode::LLVMStore)
            && !c.is_volatile()
            && !c.is_atomic()
            && !self.on_stack_slot(i)
        {
            c.set_access_group(self.access_group);
        }
        if matches!(c.opcode(), LLVMOpcode::LLVMLoad | LLVMOpcode::LLVMStore) {
            let ptr = i.operand(if c.opcode() == LLVMOpcode::LLVMStore { 1 } else { 0 });
            self.tag_access(c, ptr);
        }
        if let Some(&elem) = self.layout.innermost.accesses.get(&i) {
            // Interleaved, the address is a multiple of the element size
            // past an aligned base, and no more.
            let align = u64::from(c.value().alignment()).min(elem).max(1);
            c.set_alignment(align as u32);
        }
        vmap.insert(i.value(), c.value());
        Ok(())
    }

    /// A GEP into an interleaved array (`innermost.rs`): its byte offset `o`
    /// becomes `o·L` from the mapped base, `L` the work-group's size.
    fn interleaved_gep(&self, i: Inst<'ctx>, vmap: &HashMap<Value<'ctx>, Value<'ctx>>) -> Result<Value<'ctx>, String> {
        let off = &self.layout.innermost.geps[&i];
        let base = self.map_value(i.operand(0), vmap)?;
        let mut bytes = self.c64(off.constant as u64);
        for &(k, stride) in &off.terms {
            let idx = self.b.int_cast(self.map_value(i.operand(k), vmap)?, self.i64t, true, "");
            let term = self.b.int_op(IntOp::Mul, idx, self.c64(stride as u64), "");
            bytes = self.b.int_op(IntOp::Add, bytes, term, "");
        }
        let scaled = self.b.int_op(IntOp::Mul, bytes, self.launch().n_items, "");
        let name = String::from_utf8_lossy(&i.value().name_bytes()).into_owned();
        Ok(self.b.gep_with_flags(self.i8t, base, &[scaled], &name, i.value().gep_no_wrap_flags()))
    }

    /// A `memset`, `memcpy` or `memmove` on an interleaved array: one store
    /// (of the byte pattern, or of a load from the other side) per element,
    /// stepping `s·L` bytes on the interleaved side and `s` on the other.
    /// A copy's other side is never a private array (`innermost.rs`), so
    /// the two do not overlap and element order does not matter.
    fn interleaved_byte_op(&mut self, i: Inst<'ctx>, op: ByteOp, vmap: &HashMap<Value<'ctx>, Value<'ctx>>) -> Result<(), String> {
        let ctx = self.module.get_context();
        let ity = Ty::of(match op.elem {
            1 => ctx.i8_type(),
            2 => ctx.i16_type(),
            4 => ctx.i32_type(),
            _ => ctx.i64_type(),
        });
        let dest = self.map_value(i.operand(0), vmap)?;
        let len = i.operand(2).const_u64().expect("innermost.rs takes constant lengths");
        let set = op.interleaved_operand == 0 && i.operand(1).ty().is_integer();
        let pattern = if set {
            let byte = self.b.int_cast(self.map_value(i.operand(1), vmap)?, ity, false, "");
            let ones = (0..op.elem).fold(0u64, |acc, _| (acc << 8) | 1);
            Some(self.b.int_op(IntOp::Mul, byte, ity.const_int(ones), ""))
        } else {
            None
        };
        let src = if set { dest } else { self.map_value(i.operand(1), vmap)? };
        let wide = self.b.int_op(IntOp::Mul, self.c64(op.elem), self.launch().n_items, "");
        let narrow = self.c64(op.elem);
        let group = self.access_group;
        for e in 0..len / op.elem {
            let at = |this: &Self, base: Value<'ctx>, interleaved: bool| {
                let off = this.b.int_op(IntOp::Mul, if interleaved { wide } else { narrow }, this.c64(e), "");
                this.b.inbounds_gep(this.i8t, base, &[off], "")
            };
            let align = |interleaved: bool| if interleaved { op.align as u32 } else { 1 };
            let value = match pattern {
                Some(p) => p,
                None => {
                    let from = at(self, src, op.interleaved_operand == 1);
                    let ld = self.b.load(ity, from, "");
                    ld.set_alignment(align(op.interleaved_operand == 1));
                    ld.set_access_group(group);
                    self.tag_access(ld, i.operand(1));
                    ld.value()
                }
            };
            let to = at(self, dest, op.interleaved_operand == 0);
            let st = self.b.store(value, to);
            st.set_alignment(align(op.interleaved_operand == 0));
            st.set_access_group(group);
            self.tag_access(st, i.operand(0));
        }
        Ok(())
    }

    /// Whether the kernel's load or store `i` addresses a [`Slot::Stack`]
    /// alloca (whose address only flows through GEPs and casts).
    fn on_stack_slot(&self, i: Inst<'ctx>) -> bool {
        let mut p = i.operand(if i.opcode() == LLVMOpcode::LLVMStore { 1 } else { 0 });
        while let Some(pi) = p.as_inst() {
            if pi.is_alloca() {
                return self.layout.slots.iter().any(|&(a, s)| a == pi && matches!(s, Slot::Stack { .. }));
            }
            if !matches!(pi.opcode(), LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast) {
                return false;
            }
            p = pi.operand(0);
        }
        false
    }

    /// The value the builtin call `call` has for the current work-item, in
    /// the call's own type.
    pub(super) fn builtin_for(&self, call: Inst<'ctx>) -> Value<'ctx> {
        let b = builtin_of(call).expect("a builtin call");
        let v = self.builtin_value(b, self.items.as_ref().expect("inside a region"));
        let ty = call.ty();
        if ty.is_integer() {
            self.b.int_cast(v, ty, false, "")
        } else {
            v
        }
    }

    /// The i64 value of a work-item builtin for the current work-item.
    pub(super) fn builtin_value(&self, b: Builtin, it: &Items<'ctx>) -> Value<'ctx> {
        let local = [it.x, it.y, it.z];
        let group_id = self.view().group_id;
        let Launch { local_size, enqueued, global_size: sizes, num_groups, offset, work_dim, .. } = self.launch();
        let dim = |d: u32, v: [Value<'ctx>; 3], default: u64| if d < 3 { v[d as usize] } else { self.c64(default) };
        let global_size = |d: usize| sizes[d];
        // Every work-group but a non-uniform launch's last starts at a
        // multiple of the enqueued size.
        let global_id = |d: usize| {
            let base = self.b.nuw_mul(group_id[d], enqueued[d], "");
            let g = self.b.nuw_add(base, local[d], "");
            self.b.nuw_add(g, offset[d], "")
        };
        let op = |op, a, b| self.b.int_op(op, a, b, "");
        match b {
            Builtin::LocalId(d) => dim(d, local, 0),
            Builtin::GroupId(d) => dim(d, group_id, 0),
            Builtin::LocalSize(d) => dim(d, local_size, 1),
            Builtin::EnqueuedLocalSize(d) => dim(d, enqueued, 1),
            Builtin::NumGroups(d) => dim(d, num_groups, 1),
            Builtin::GlobalOffset(d) => dim(d, offset, 0),
            Builtin::GlobalSize(d) if d < 3 => global_size(d as usize),
            Builtin::GlobalSize(_) => self.c64(1),
            Builtin::GlobalId(d) if d < 3 => global_id(d as usize),
            Builtin::GlobalId(_) => self.c64(0),
            Builtin::WorkDim => self.b.zext(work_dim, self.i64t, ""),
            Builtin::LocalLinearId => it.w,
            Builtin::GlobalLinearId => {
                // ((gz - oz) * gsy + (gy - oy)) * gsx + (gx - ox)
                let rel = |d: usize| op(IntOp::Sub, global_id(d), offset[d]);
                let zy = op(IntOp::Add, op(IntOp::Mul, rel(2), global_size(1)), rel(1));
                op(IntOp::Add, op(IntOp::Mul, zy, global_size(0)), rel(0))
            }
            Builtin::LaneId => it.warp.map_or_else(|| op(IntOp::URem, it.w, self.c64(32)), |wi| wi.lane),
            Builtin::WarpId => it.warp.map_or_else(|| op(IntOp::UDiv, it.w, self.c64(32)), |wi| wi.warp),
            Builtin::Barrier => unreachable!("barriers are region boundaries, never cloned"),
        }
    }
}

/// How the linear form's one copy of the kernel is entered: `state` is where
/// the work-items stopped, `targets` the block after each barrier, by id.
#[derive(Clone, Copy)]
pub(super) struct Resume<'a, 'ctx> {
    pub(super) state: Value<'ctx>,
    pub(super) targets: &'a [(u32, BasicBlock<'ctx>)],
}
