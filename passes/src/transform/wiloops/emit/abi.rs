//! The work-group ABI side of the emitted functions (`crate::wg_abi`):
//! reading the launch values and parameters from `ctx` and `args`, the
//! per-work-group view (group id, local memory, scratch slots), the guard of
//! a function specialised for one work-group size, and the data symbols
//! (`simt_wg_K_scratch_per_item`, `_local_bytes`, `_barrier_count`,
//! `_barriers`, `simt_wgi_K_ring`).

use super::*;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use crate::wg_abi::field;
use llvm_sys::{LLVMIntPredicate, LLVMTypeKind};
use std::collections::HashMap;

impl Emitter {
    /// Reads the launch-wide values (sizes, offsets) and the parameters from
    /// `ctx` and `args` at the builder's position.
    pub(super) unsafe fn emit_launch_values(&mut self, ctx: LLVMValueRef, args: LLVMValueRef) {
        let ptr = LLVMPointerTypeInContext(self.ctx, 0);
        for d in 0..3u32 {
            let ls = self.load(self.i64t, self.field_of(ctx, field::LOCAL_SIZE, Some(d)), "local.size");
            let ng = self.load(self.i64t, self.field_of(ctx, field::NUM_GROUPS, Some(d)), "num.groups");
            let off = self.load(self.i64t, self.field_of(ctx, field::GLOBAL_OFFSET, Some(d)), "global.offset");
            self.local_size[d as usize] = match self.fixed_local_size {
                Some(fixed) => self.c64(fixed[d as usize]),
                None => ls,
            };
            self.num_groups[d as usize] = ng;
            self.offset[d as usize] = off;
        }
        self.work_dim = self.load(self.i32t, self.field_of(ctx, field::WORK_DIM, None), "work.dim");
        let nxy = LLVMBuildNUWMul(self.b, self.local_size[0], self.local_size[1], c"".as_ptr());
        self.n_items = LLVMBuildNUWMul(self.b, nxy, self.local_size[2], c"items".as_ptr());
        // args[i] points at parameter i's value.
        for i in 0..LLVMCountParams(self.kernel) {
            let p = LLVMGetParam(self.kernel, i);
            let mut idx = [self.c64(i as u64)];
            let slot = LLVMBuildInBoundsGEP2(self.b, ptr, args, idx.as_mut_ptr(), 1, c"".as_ptr());
            let at = self.load(ptr, slot, "");
            let v = self.load(LLVMTypeOf(p), at, &format!("arg{i}"));
            self.params.insert(p, v);
        }
    }

    /// The per-work-group values of the work-group `ctx` describes: its id,
    /// its local-memory variables and the bases of its private slots.
    ///
    /// With `base` (the interleaved function), `__local` pointer arguments,
    /// which `args` gives inside `base`'s local memory, are moved to the same
    /// offset in this work-group's.
    pub(super) unsafe fn emit_view(&self, ctx: LLVMValueRef, base: Option<LLVMValueRef>) -> WgView {
        let ptr = LLVMPointerTypeInContext(self.ctx, 0);
        let mut group_id = [std::ptr::null_mut(); 3];
        for d in 0..3u32 {
            group_id[d as usize] = self.load(self.i64t, self.field_of(ctx, field::GROUP_ID, Some(d)), "group.id");
        }
        let local_mem = self.load(ptr, self.field_of(ctx, field::LOCAL_MEM, None), "local.mem");
        let scratch = self.load(ptr, self.field_of(ctx, field::SCRATCH, None), "scratch");
        let byte_at = |base: LLVMValueRef, off: LLVMValueRef| {
            let mut idx = [off];
            LLVMBuildInBoundsGEP2(self.b, self.i8t, base, idx.as_mut_ptr(), 1, c"".as_ptr())
        };
        // Local-memory variables live at fixed offsets in ctx.local_mem.
        let mut locals = HashMap::new();
        for &(g, off) in &self.layout.local_globals {
            let at = byte_at(local_mem, self.c64(off));
            let as_ty = LLVMTypeOf(g);
            let v = if LLVMGetPointerAddressSpace(as_ty) == 0 { at } else { LLVMBuildAddrSpaceCast(self.b, at, as_ty, c"".as_ptr()) };
            locals.insert(g, v);
        }
        // Private memory: per work-item slices of scratch, or one slot in local memory.
        let mut slot_base = HashMap::new();
        for &(a, slot) in &self.layout.slots {
            let base = match slot {
                Slot::PerItem { offset, .. } => {
                    byte_at(scratch, LLVMBuildNUWMul(self.b, self.c64(offset), self.n_items, c"".as_ptr()))
                }
                Slot::Shared { local_offset } => byte_at(local_mem, self.c64(local_offset)),
            };
            slot_base.insert(a, base);
        }
        if let Some(base_ctx) = base {
            let ptr = LLVMPointerTypeInContext(self.ctx, 0);
            let base_mem = self.load(ptr, self.field_of(base_ctx, field::LOCAL_MEM, None), "local.mem0");
            for i in 0..LLVMCountParams(self.kernel) {
                let p = LLVMGetParam(self.kernel, i);
                let ty = LLVMTypeOf(p);
                if LLVMGetTypeKind(ty) != LLVMTypeKind::LLVMPointerTypeKind || LLVMGetPointerAddressSpace(ty) != 3 {
                    continue;
                }
                let as_int = |v| LLVMBuildPtrToInt(self.b, v, self.i64t, c"".as_ptr());
                let off = LLVMBuildSub(self.b, as_int(self.params[&p]), as_int(base_mem), c"local.arg.offset".as_ptr());
                let moved = byte_at(local_mem, off);
                locals.insert(p, LLVMBuildAddrSpaceCast(self.b, moved, ty, c"".as_ptr()));
            }
        }
        WgView { group_id, locals, slot_base }
    }

    pub(super) unsafe fn field_of(&self, ctx: LLVMValueRef, idx: u32, elem: Option<u32>) -> LLVMValueRef {
        let mut idx_vals = vec![self.c32(0), self.c32(idx)];
        if let Some(e) = elem {
            idx_vals.push(self.c32(e));
        }
        LLVMBuildInBoundsGEP2(self.b, self.ctx_ty, ctx, idx_vals.as_mut_ptr(), idx_vals.len() as u32, c"".as_ptr())
    }

    /// In a function specialised for one work-group size, returns
    /// `STATUS_WRONG_LOCAL_SIZE` unless `ctx` asks for that size; the builder
    /// continues in a new block.
    pub(super) unsafe fn guard_local_size(&mut self, ctx: LLVMValueRef) {
        let Some(fixed) = self.fixed_local_size else { return };
        let mut ok = LLVMConstInt(LLVMInt1TypeInContext(self.ctx), 1, 0);
        for d in 0..3u32 {
            let actual = self.load(self.i64t, self.field_of(ctx, field::LOCAL_SIZE, Some(d)), "");
            let same = LLVMBuildICmp(self.b, LLVMIntPredicate::LLVMIntEQ, actual, self.c64(fixed[d as usize]), c"".as_ptr());
            ok = LLVMBuildAnd(self.b, ok, same, c"".as_ptr());
        }
        let wrong = self.block("wrong.local.size");
        let go = self.block("specialised");
        LLVMBuildCondBr(self.b, ok, go, wrong);
        LLVMPositionBuilderAtEnd(self.b, wrong);
        LLVMBuildRet(self.b, self.c32(crate::wg_abi::STATUS_WRONG_LOCAL_SIZE));
        LLVMPositionBuilderAtEnd(self.b, go);
    }

    /// Emits the ABI's data symbols for kernel `name`, in address space 0
    /// whatever the module's default for globals (spir64 puts them in 1).
    pub unsafe fn emit_symbols(&self, name: &str, barrier_names: &[String], ring: Option<u64>) {
        let global_u64 = |sym: &str, v: u64| {
            let g = LLVMAddGlobalInAddressSpace(self.module, self.i64t, cs(sym).as_ptr(), 0);
            LLVMSetInitializer(g, self.c64(v));
            LLVMSetGlobalConstant(g, 1);
        };
        global_u64(&crate::wg_abi::scratch_per_item_symbol(name), self.layout.scratch_per_item);
        global_u64(&crate::wg_abi::local_bytes_symbol(name), self.layout.local_bytes);
        assert_eq!(barrier_names.len() as u32, crate::wg_abi::barrier_table_len(self.barrier_blocks.len() as u32));
        global_u64(&crate::wg_abi::barrier_count_symbol(name), barrier_names.len() as u64);
        if let Some(r) = ring {
            global_u64(&crate::wg_abi::wgi_ring_symbol(name), r);
        }
        let ptr = LLVMPointerTypeInContext(self.ctx, 0);
        let mut strings: Vec<LLVMValueRef> = barrier_names
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let text = LLVMConstStringInContext2(self.ctx, s.as_ptr().cast(), s.len(), 0);
                let g = LLVMAddGlobalInAddressSpace(self.module, LLVMTypeOf(text), cs(&format!("{name}.barrier{i}")).as_ptr(), 0);
                LLVMSetInitializer(g, text);
                LLVMSetGlobalConstant(g, 1);
                LLVMSetLinkage(g, llvm_sys::LLVMLinkage::LLVMPrivateLinkage);
                LLVMSetUnnamedAddress(g, llvm_sys::LLVMUnnamedAddr::LLVMGlobalUnnamedAddr);
                g
            })
            .collect();
        let arr = LLVMConstArray2(ptr, strings.as_mut_ptr(), strings.len() as u64);
        let g = LLVMAddGlobalInAddressSpace(self.module, LLVMTypeOf(arr), cs(&crate::wg_abi::barriers_symbol(name)).as_ptr(), 0);
        LLVMSetInitializer(g, arr);
        LLVMSetGlobalConstant(g, 1);
    }
}
