//! The work-group ABI side of the emitted functions (`crate::wg_abi`):
//! reading the launch values and parameters from `ctx` and `args`, the
//! per-work-group view (group id, local memory, scratch slots), the guard of
//! a function specialised for one work-group size, and the data symbols
//! (`simt_wg_K_scratch_per_item`, `_local_bytes`, `_barrier_count`,
//! `_barriers`, `simt_wgi_K_ring`).

use super::*;
use crate::ir::{parameters, IntOp};
use crate::wg_abi::field;
use inkwell::module::Linkage;
use inkwell::values::{BasicValue, GlobalValue};
use llvm_sys::LLVMIntPredicate;
use std::collections::HashMap;

impl<'ctx> Emitter<'_, 'ctx> {
    /// Reads the launch-wide values (sizes, offsets) and the parameters from
    /// `ctx` and `args` at the builder's position.
    pub(super) fn emit_launch_values(&mut self, ctx: Value<'ctx>, args: Value<'ctx>) {
        let ptr = self.ptr;
        let (mut local_size, mut num_groups, mut offset) = ([ctx; 3], [ctx; 3], [ctx; 3]);
        for d in 0..3u32 {
            let ls = self.load(self.i64t, self.field_of(ctx, field::LOCAL_SIZE, Some(d)), "local.size");
            let ng = self.load(self.i64t, self.field_of(ctx, field::NUM_GROUPS, Some(d)), "num.groups");
            let off = self.load(self.i64t, self.field_of(ctx, field::GLOBAL_OFFSET, Some(d)), "global.offset");
            local_size[d as usize] = match self.fixed_local_size {
                Some(fixed) => self.c64(fixed[d as usize]),
                None => ls,
            };
            num_groups[d as usize] = ng;
            offset[d as usize] = off;
        }
        // The ABI's 0 for the last two: a uniform launch.
        let (mut enqueued, mut global_size) = ([ctx; 3], [ctx; 3]);
        for d in 0..3u32 {
            let i = d as usize;
            let zero = self.c64(0);
            let enq = self.load(self.i64t, self.field_of(ctx, field::ENQUEUED_LOCAL_SIZE, Some(d)), "");
            let is0 = self.b.icmp(LLVMIntPredicate::LLVMIntEQ, enq, zero, "");
            enqueued[i] = self.b.select(is0, local_size[i], enq, "enqueued");
            let gs = self.load(self.i64t, self.field_of(ctx, field::GLOBAL_SIZE, Some(d)), "");
            let is0 = self.b.icmp(LLVMIntPredicate::LLVMIntEQ, gs, zero, "");
            let uniform = self.b.nuw_mul(num_groups[i], local_size[i], "");
            global_size[i] = self.b.select(is0, uniform, gs, "global.size");
        }
        let work_dim = self.load(self.i32t, self.field_of(ctx, field::WORK_DIM, None), "work.dim");
        let nxy = self.b.nuw_mul(local_size[0], local_size[1], "");
        let n_items = self.b.nuw_mul(nxy, local_size[2], "items");
        self.launch = Some(Launch { local_size, enqueued, global_size, num_groups, offset, work_dim, n_items });
        // args[i] points at parameter i's value.
        for (i, p) in parameters(self.kernel).into_iter().enumerate() {
            let slot = self.b.inbounds_gep(ptr, args, &[self.c64(i as u64)], "");
            let at = self.load(ptr, slot, "");
            let v = self.load(p.ty(), at, &format!("arg{i}"));
            self.params.insert(p, v);
        }
    }

    /// A `[size x i8]` alloca at the start of the function being built (a
    /// static one, which SROA may split); the builder stays where it was:
    /// at the end of its block, or before the block's terminator (the
    /// interleaved form builds its views there, in the nest's `pre`).
    fn entry_alloca(&mut self, size: u64, align: u64) -> Value<'ctx> {
        let here = self.b.insert_block();
        let before = crate::ir::terminator(here);
        let entry = self.f.get_first_basic_block().expect("the function has an entry block");
        match crate::ir::instructions(entry).next() {
            Some(first) => self.b.position_before(first),
            None => self.b.position_at_end(entry),
        }
        let ty = Ty::of(self.module.get_context().i8_type().array_type(size as u32));
        let a = self.b.alloca(ty, "private.wg");
        a.set_alignment(align.max(1) as u32);
        match before {
            Some(t) => self.b.position_before(t),
            None => self.b.position_at_end(here),
        }
        a.value()
    }

    /// The address of byte `off` of `base`.
    fn byte_at(&self, base: Value<'ctx>, off: Value<'ctx>) -> Value<'ctx> {
        self.b.inbounds_gep(self.i8t, base, &[off], "")
    }

    /// The per-work-group values of the work-group `ctx` describes: its id,
    /// its local-memory variables and the bases of its private slots.
    ///
    /// With `base` (the interleaved function), `__local` pointer arguments,
    /// which `args` gives inside `base`'s local memory, are moved to the same
    /// offset in this work-group's.
    pub(super) fn emit_view(&mut self, ctx: Value<'ctx>, base: Option<Value<'ctx>>) -> WgView<'ctx> {
        let ptr = self.ptr;
        let mut group_id = [ctx; 3];
        for d in 0..3u32 {
            group_id[d as usize] = self.load(self.i64t, self.field_of(ctx, field::GROUP_ID, Some(d)), "group.id");
        }
        let local_mem = self.load(ptr, self.field_of(ctx, field::LOCAL_MEM, None), "local.mem");
        let scratch = self.load(ptr, self.field_of(ctx, field::SCRATCH, None), "scratch");
        // Local-memory variables live at fixed offsets in ctx.local_mem.
        let mut locals = HashMap::new();
        for &(g, off) in &self.layout.local_globals {
            let at = self.byte_at(local_mem, self.c64(off));
            let v = if g.address_space() == Some(0) { at } else { self.b.addrspace_cast(at, g.ty(), "") };
            locals.insert(g, v);
        }
        // Private memory: per work-item slices of scratch; uniform slots in
        // allocas, or (interleaved: several work-groups in flight) in each
        // work-group's local memory; one-copy arrays in allocas.
        let mut slot_base = HashMap::new();
        for (a, slot) in self.layout.slots.clone() {
            let base = match slot {
                Slot::PerItem { offset, .. } => self.byte_at(scratch, self.b.nuw_mul(self.c64(offset), self.launch().n_items, "")),
                Slot::Shared { local_offset, .. } if base.is_some() => self.byte_at(local_mem, self.c64(local_offset)),
                Slot::Shared { size, align, .. } => self.entry_alloca(size, align),
                Slot::Stack { size, align } => self.entry_alloca(size, align),
            };
            slot_base.insert(a, base);
        }
        if let Some(base_ctx) = base {
            let base_mem = self.load(ptr, self.field_of(base_ctx, field::LOCAL_MEM, None), "local.mem0");
            for p in parameters(self.kernel) {
                let ty = p.ty();
                if !ty.is_pointer() || p.address_space() != Some(3) {
                    continue;
                }
                let as_int = |v| self.b.ptr_to_int(v, self.i64t, "");
                let off = self.b.int_op(IntOp::Sub, as_int(self.params[&p]), as_int(base_mem), "local.arg.offset");
                let moved = self.byte_at(local_mem, off);
                locals.insert(p, self.b.addrspace_cast(moved, ty, ""));
            }
        }
        WgView { group_id, locals, slot_base }
    }

    pub(super) fn field_of(&self, ctx: Value<'ctx>, idx: u32, elem: Option<u32>) -> Value<'ctx> {
        let mut idx_vals = vec![self.c32(0), self.c32(idx)];
        if let Some(e) = elem {
            idx_vals.push(self.c32(e));
        }
        self.b.inbounds_gep(self.ctx_ty, ctx, &idx_vals, "")
    }

    /// In a function specialised for one work-group size, returns
    /// `STATUS_WRONG_LOCAL_SIZE` unless `ctx` asks for that size; the builder
    /// continues in a new block.
    pub(super) fn guard_local_size(&mut self, ctx: Value<'ctx>) {
        let Some(fixed) = self.fixed_local_size else { return };
        let mut ok = Ty::of(self.module.get_context().bool_type()).const_int(1);
        for d in 0..3u32 {
            let actual = self.load(self.i64t, self.field_of(ctx, field::LOCAL_SIZE, Some(d)), "");
            let same = self.b.icmp(LLVMIntPredicate::LLVMIntEQ, actual, self.c64(fixed[d as usize]), "");
            ok = self.b.int_op(IntOp::And, ok, same, "");
        }
        let wrong = self.block("wrong.local.size");
        let go = self.block("specialised");
        self.b.cond_br(ok, go, wrong);
        self.b.position_at_end(wrong);
        self.b.ret(self.c32(crate::wg_abi::STATUS_WRONG_LOCAL_SIZE));
        self.b.position_at_end(go);
    }

    /// Emits the ABI's data symbols for kernel `name`, in address space 0
    /// whatever the module's default for globals (spir64 puts them in 1).
    pub fn emit_symbols(&self, name: &str, barrier_names: &[String], ring: Option<u64>, linear: bool) {
        let ctx = self.module.get_context();
        let i64t = ctx.i64_type();
        let add_global = |ty: inkwell::types::BasicTypeEnum<'ctx>, sym: &str, init: &dyn BasicValue<'ctx>| -> GlobalValue<'ctx> {
            let g = self.module.add_global(ty, Some(AddressSpace::default()), sym);
            g.set_initializer(init);
            g.set_constant(true);
            g
        };
        let global_u64 = |sym: &str, v: u64| {
            add_global(i64t.into(), sym, &i64t.const_int(v, false));
        };
        global_u64(&crate::wg_abi::scratch_per_item_symbol(name), self.layout.scratch_per_item);
        global_u64(&crate::wg_abi::local_bytes_symbol(name), self.layout.local_bytes);
        assert_eq!(barrier_names.len() as u32, crate::wg_abi::barrier_table_len(self.barrier_blocks.len() as u32));
        global_u64(&crate::wg_abi::barrier_count_symbol(name), barrier_names.len() as u64);
        global_u64(&crate::wg_abi::linear_symbol(name), u64::from(linear));
        if let Some(r) = ring {
            global_u64(&crate::wg_abi::wgi_ring_symbol(name), r);
        }
        let strings: Vec<inkwell::values::PointerValue<'ctx>> = barrier_names
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let text = ctx.const_string(s.as_bytes(), true);
                let g = add_global(text.get_type().into(), &format!("{name}.barrier{i}"), &text);
                g.set_linkage(Linkage::Private);
                g.set_unnamed_address(inkwell::values::UnnamedAddress::Global);
                g.as_pointer_value()
            })
            .collect();
        let arr = ctx.ptr_type(AddressSpace::default()).const_array(&strings);
        add_global(arr.get_type().into(), &crate::wg_abi::barriers_symbol(name), &arr);
    }
}
