//! Building the work-group function `simt_wg_K(args, ctx)` from a prepared
//! kernel (see `prepare.rs`): a dispatcher over regions, each region cloned
//! into a z/y/x nest of work-item loops.
//!
//! ```text
//!  entry: read ctx, params, local-memory and scratch bases
//!    │
//!  dispatch: switch next ──▶ r0.pre ─▶ z ─▶ y ─▶ x: clone of region 0 ─▶ x.latch ─▶ … ─▶ r0.done ─┐
//!    ▲         │         ──▶ rB.pre ─▶ …                                                         │
//!    └─────────┴──── next = state every work-item stopped at (barrier b or exit) ◀───────────────┘
//! ```
//!
//! A region whose exits all lead to one state needs no bookkeeping. Otherwise
//! the x loop carries the minimum and maximum exit state as reductions (which
//! the vectorizer keeps), and `done` checks they agree: if not, the work-items
//! reached different barriers, the ids go to `ctx.error` and the function
//! returns 1. The innermost loop is marked `llvm.loop.parallel_accesses`:
//! between barriers, OpenCL and CUDA give work-items no ordering, so
//! iterations are independent and the loop vectorizer may run them in lanes.

use super::layout::{Layout, Slot};
use crate::kernel_model::{builtin_of, Builtin};
use crate::wg_abi::{field, Scalar, CTX_FIELDS};
use llvm_sys::core::*;
use llvm_sys::debuginfo::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMIntPredicate, LLVMOpcode, LLVMTypeKind};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::ffi::CString;

/// A region: the blocks reachable from `entry` without entering a barrier block.
pub struct Region {
    /// The state that starts it: 0 for the kernel entry, b for barrier b.
    pub state: u32,
    pub entry: LLVMBasicBlockRef,
    /// In reverse post-order of the kernel, so definitions precede uses.
    pub blocks: Vec<LLVMBasicBlockRef>,
    /// The states its work-items can stop at, sorted.
    pub exit_states: Vec<u32>,
}

pub struct Emitter {
    ctx: LLVMContextRef,
    module: LLVMModuleRef,
    b: LLVMBuilderRef,
    kernel: LLVMValueRef,
    f: LLVMValueRef,
    i64t: LLVMTypeRef,
    i32t: LLVMTypeRef,
    i8t: LLVMTypeRef,
    ctx_ty: LLVMTypeRef,
    ctx_arg: LLVMValueRef,
    local_size: [LLVMValueRef; 3],
    num_groups: [LLVMValueRef; 3],
    offset: [LLVMValueRef; 3],
    work_dim: LLVMValueRef,
    n_items: LLVMValueRef,
    /// Kernel parameters, as values in the new function.
    params: HashMap<LLVMValueRef, LLVMValueRef>,
    barrier_blocks: HashMap<LLVMBasicBlockRef, u32>,
    exit_state: u32,
    layout: Layout,
    /// The work-group the code being cloned runs for.
    view: Option<WgView>,
    access_group: LLVMMetadataRef,
    kind_loop: u32,
    kind_access_group: u32,
    /// Defined functions that use work-item builtins or barriers.
    simt_callees: HashSet<LLVMValueRef>,
    /// The work-item the region being cloned runs for.
    items: Option<Items>,
    /// The last nest's exit, not yet terminated, while groups are chained.
    pending_done: Option<LLVMBasicBlockRef>,
    /// The work-group size the function is specialised for, if any.
    fixed_local_size: Option<[u64; 3]>,
    /// Per-work-group slots as read once before the current region's
    /// work-item loop: loads of them in the loop become these scalars.
    snapshots: HashMap<LLVMValueRef, LLVMValueRef>,
}

fn cs(s: &str) -> CString {
    CString::new(s).expect("no NUL")
}

impl Emitter {
    /// # Safety
    /// `kernel` must be a prepared kernel of `module`.
    pub unsafe fn new(
        module: LLVMModuleRef,
        kernel: LLVMValueRef,
        name: &str,
        layout: Layout,
        barrier_blocks: HashMap<LLVMBasicBlockRef, u32>,
        simt_callees: HashSet<LLVMValueRef>,
        fixed_local_size: Option<[u64; 3]>,
    ) -> Emitter {
        let ctx = LLVMGetModuleContext(module);
        let i64t = LLVMInt64TypeInContext(ctx);
        let i32t = LLVMInt32TypeInContext(ctx);
        let i8t = LLVMInt8TypeInContext(ctx);
        let ptr = LLVMPointerTypeInContext(ctx, 0);
        let mut fields: Vec<LLVMTypeRef> = CTX_FIELDS
            .iter()
            .map(|f| {
                let t = match f.scalar {
                    Scalar::U32 => i32t,
                    Scalar::U64 => i64t,
                    Scalar::Ptr => ptr,
                };
                f.array.map_or(t, |n| LLVMArrayType2(t, n as u64))
            })
            .collect();
        let ctx_ty = LLVMStructTypeInContext(ctx, fields.as_mut_ptr(), fields.len() as u32, 0);
        let mut params = [ptr, ptr];
        let fn_ty = LLVMFunctionType(i32t, params.as_mut_ptr(), 2, 0);
        let f = LLVMAddFunction(module, cs(&crate::wg_abi::wg_function(name)).as_ptr(), fn_ty);
        let exit_state = crate::wg_abi::exit_id(barrier_blocks.len() as u32);
        let kind = |k: &str| LLVMGetMDKindIDInContext(ctx, k.as_ptr().cast(), k.len() as u32);
        Emitter {
            ctx,
            module,
            b: LLVMCreateBuilderInContext(ctx),
            kernel,
            f,
            i64t,
            i32t,
            i8t,
            ctx_ty,
            ctx_arg: LLVMGetParam(f, 1),
            local_size: [std::ptr::null_mut(); 3],
            num_groups: [std::ptr::null_mut(); 3],
            offset: [std::ptr::null_mut(); 3],
            work_dim: std::ptr::null_mut(),
            n_items: std::ptr::null_mut(),
            params: HashMap::new(),
            barrier_blocks,
            exit_state,
            layout,
            view: None,
            access_group: distinct_empty_node(ctx),
            kind_loop: kind("llvm.loop"),
            kind_access_group: kind("llvm.access.group"),
            simt_callees,
            items: None,
            pending_done: None,
            fixed_local_size,
            snapshots: HashMap::new(),
        }
    }

    unsafe fn block(&self, name: &str) -> LLVMBasicBlockRef {
        LLVMAppendBasicBlockInContext(self.ctx, self.f, cs(name).as_ptr())
    }

    unsafe fn c64(&self, v: u64) -> LLVMValueRef {
        LLVMConstInt(self.i64t, v, 0)
    }

    unsafe fn c32(&self, v: u32) -> LLVMValueRef {
        LLVMConstInt(self.i32t, v as u64, 0)
    }

    unsafe fn load(&self, ty: LLVMTypeRef, ptr: LLVMValueRef, name: &str) -> LLVMValueRef {
        LLVMBuildLoad2(self.b, ty, ptr, cs(name).as_ptr())
    }

    /// Reads the launch-wide values (sizes, offsets) and the parameters from
    /// `ctx` and `args` at the builder's position.
    unsafe fn emit_launch_values(&mut self, ctx: LLVMValueRef, args: LLVMValueRef) {
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
    unsafe fn emit_view(&self, ctx: LLVMValueRef, base: Option<LLVMValueRef>) -> WgView {
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

    unsafe fn field_of(&self, ctx: LLVMValueRef, idx: u32, elem: Option<u32>) -> LLVMValueRef {
        let mut idx_vals = vec![self.c32(0), self.c32(idx)];
        if let Some(e) = elem {
            idx_vals.push(self.c32(e));
        }
        LLVMBuildInBoundsGEP2(self.b, self.ctx_ty, ctx, idx_vals.as_mut_ptr(), idx_vals.len() as u32, c"".as_ptr())
    }

    /// In a function specialised for one work-group size, returns
    /// `STATUS_WRONG_LOCAL_SIZE` unless `ctx` asks for that size; the builder
    /// continues in a new block.
    unsafe fn guard_local_size(&mut self, ctx: LLVMValueRef) {
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

    /// Opens a z/y/x loop nest over the work-items; the builder is left at
    /// the end of the (unterminated) body block, with `self.items` set.
    unsafe fn open_nest(&mut self, tag: &str, track_states: bool) -> Nest {
        let pre = self.block(&format!("{tag}.pre"));
        let heads: Vec<LLVMBasicBlockRef> = ["z", "y", "x"].iter().map(|d| self.block(&format!("{tag}.{d}"))).collect();
        let body = self.block(&format!("{tag}.item"));
        LLVMPositionBuilderAtEnd(self.b, pre);
        LLVMBuildBr(self.b, heads[0]);
        let (mut ivs, mut mins, mut maxs) = (Vec::new(), Vec::new(), Vec::new());
        for (level, &h) in heads.iter().enumerate() {
            LLVMPositionBuilderAtEnd(self.b, h);
            ivs.push(LLVMBuildPhi(self.b, self.i64t, cs(["wi.z", "wi.y", "wi.x"][level]).as_ptr()));
            if track_states {
                mins.push(LLVMBuildPhi(self.b, self.i32t, c"state.min".as_ptr()));
                maxs.push(LLVMBuildPhi(self.b, self.i32t, c"state.max".as_ptr()));
            }
            LLVMBuildBr(self.b, if level < 2 { heads[level + 1] } else { body });
        }
        let (z, y, x) = (ivs[0], ivs[1], ivs[2]);
        LLVMPositionBuilderAtEnd(self.b, body);
        let yz = LLVMBuildNUWAdd(self.b, y, LLVMBuildNUWMul(self.b, self.local_size[1], z, c"".as_ptr()), c"".as_ptr());
        let w = LLVMBuildNUWAdd(self.b, x, LLVMBuildNUWMul(self.b, self.local_size[0], yz, c"".as_ptr()), c"wi.linear".as_ptr());
        self.items = Some(Items { x, y, z, w });
        let latches: Vec<LLVMBasicBlockRef> = ["x", "y", "z"].iter().map(|d| self.block(&format!("{tag}.{d}.next"))).collect();
        let done = self.block(&format!("{tag}.done"));
        LLVMPositionBuilderAtEnd(self.b, body);
        Nest { pre, heads, ivs, mins, maxs, latches, done }
    }

    /// Closes a nest whose x latch (`nest.latches[0]`) the body branches to.
    /// With state tracking, `state` is this work-item's stop state and the
    /// result the minimum and maximum over all work-items, valid in `done`.
    unsafe fn close_nest(&mut self, nest: &Nest, state: Option<LLVMValueRef>) -> Option<(LLVMValueRef, LLVMValueRef)> {
        // Latches after the body they close, so the function reads in order.
        for &bb in nest.latches.iter().chain([&nest.done]) {
            LLVMMoveBasicBlockAfter(bb, LLVMGetLastBasicBlock(self.f));
        }
        LLVMPositionBuilderAtEnd(self.b, nest.latches[0]);
        let reduced = state.map(|st| {
            let lt = LLVMBuildICmp(self.b, LLVMIntPredicate::LLVMIntULT, st, nest.mins[2], c"".as_ptr());
            let mn = LLVMBuildSelect(self.b, lt, st, nest.mins[2], c"".as_ptr());
            let gt = LLVMBuildICmp(self.b, LLVMIntPredicate::LLVMIntUGT, st, nest.maxs[2], c"".as_ptr());
            let mx = LLVMBuildSelect(self.b, gt, st, nest.maxs[2], c"".as_ptr());
            (mn, mx)
        });
        for level in 0..3 {
            // level 0 = x (innermost), 1 = y, 2 = z.
            let iv = nest.ivs[2 - level];
            LLVMPositionBuilderAtEnd(self.b, nest.latches[level]);
            let inc = LLVMBuildNUWAdd(self.b, iv, self.c64(1), c"".as_ptr());
            let more = LLVMBuildICmp(self.b, LLVMIntPredicate::LLVMIntULT, inc, self.local_size[level], c"".as_ptr());
            let after = if level < 2 { nest.latches[level + 1] } else { nest.done };
            let br = LLVMBuildCondBr(self.b, more, nest.heads[2 - level], after);
            if level == 0 {
                self.mark_parallel_loop(br);
            }
            add_incoming(iv, inc, nest.latches[level]);
            let outer_entry = if level < 2 { nest.heads[1 - level] } else { nest.pre };
            add_incoming(iv, self.c64(0), outer_entry);
            if let Some((mn, mx)) = reduced {
                add_incoming(nest.mins[2 - level], mn, nest.latches[level]);
                add_incoming(nest.maxs[2 - level], mx, nest.latches[level]);
                let (init_min, init_max) =
                    if level < 2 { (nest.mins[1 - level], nest.maxs[1 - level]) } else { (self.c32(u32::MAX), self.c32(0)) };
                add_incoming(nest.mins[2 - level], init_min, outer_entry);
                add_incoming(nest.maxs[2 - level], init_max, outer_entry);
            }
        }
        reduced
    }

    /// Clones region `r` for the current work-group view and work-item,
    /// entered from the end of `from`; returns its exit block per stop state
    /// (unterminated, for the caller to wire).
    ///
    /// Per-work-group slots (uniform values) are read once, at the end of
    /// `pre` (before the work-item loop), and their loads in the region use
    /// that value: the pass only shares slots no region reads after writing.
    unsafe fn clone_region(
        &mut self,
        r: &Region,
        tag: &str,
        from: LLVMBasicBlockRef,
        pre: LLVMBasicBlockRef,
    ) -> Result<BTreeMap<u32, LLVMBasicBlockRef>, String> {
        self.snapshots.clear();
        LLVMPositionBuilderBefore(self.b, LLVMGetBasicBlockTerminator(pre));
        let view = self.view.as_ref().expect("a work-group view");
        let mut snapshots = HashMap::new();
        for &(a, slot) in &self.layout.slots {
            if let Slot::Shared { .. } = slot {
                let ty = LLVMGetAllocatedType(a);
                snapshots.insert(a, self.load(ty, view.slot_base[&a], "uniform"));
            }
        }
        self.snapshots = snapshots;
        let bmap: HashMap<LLVMBasicBlockRef, LLVMBasicBlockRef> =
            r.blocks.iter().map(|&kb| (kb, self.block(&format!("{tag}.body")))).collect();
        let exits: BTreeMap<u32, LLVMBasicBlockRef> =
            r.exit_states.iter().map(|&s| (s, self.block(&format!("{tag}.stop{s}")))).collect();
        LLVMPositionBuilderAtEnd(self.b, from);
        let view = self.view.as_ref().expect("a work-group view");
        let w = self.items.as_ref().expect("inside a nest").w;
        let mut vmap = self.params.clone();
        vmap.extend(view.locals.iter().map(|(k, v)| (*k, *v)));
        for &(a, slot) in &self.layout.slots {
            let base = view.slot_base[&a];
            let addr = match slot {
                Slot::PerItem { size, .. } => {
                    let mut idx = [LLVMBuildNUWMul(self.b, w, self.c64(size), c"".as_ptr())];
                    LLVMBuildInBoundsGEP2(self.b, self.i8t, base, idx.as_mut_ptr(), 1, c"private".as_ptr())
                }
                Slot::Shared { .. } => base,
            };
            let want = LLVMTypeOf(a);
            let addr = if LLVMGetPointerAddressSpace(want) == 0 { addr } else { LLVMBuildAddrSpaceCast(self.b, addr, want, c"".as_ptr()) };
            vmap.insert(a, addr);
        }
        LLVMBuildBr(self.b, bmap[&r.entry]);

        let mut phis: Vec<(LLVMValueRef, LLVMValueRef)> = Vec::new();
        for &kb in &r.blocks {
            LLVMPositionBuilderAtEnd(self.b, bmap[&kb]);
            for i in super::prepare::instructions(kb) {
                self.clone_instruction(i, &mut vmap, &bmap, &exits, &mut phis)?;
            }
        }
        for (old, new) in phis {
            for k in 0..LLVMCountIncoming(old) {
                let from = LLVMGetIncomingBlock(old, k);
                let Some(&nb) = bmap.get(&from) else { continue };
                LLVMPositionBuilderBefore(self.b, LLVMGetBasicBlockTerminator(nb));
                let v = self.map_value(LLVMGetIncomingValue(old, k), &vmap)?;
                add_incoming(new, v, nb);
            }
        }
        Ok(exits)
    }

    /// Emits one region's loop nest; returns its first block, its last block
    /// (not yet terminated) and the state to dispatch to next.
    unsafe fn emit_region(&mut self, r: &Region) -> Result<(LLVMBasicBlockRef, LLVMBasicBlockRef, LLVMValueRef), String> {
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
        let groups = super::groups::form_loop_groups(&costs, n);
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
    unsafe fn link_group(&mut self, gi: usize, head: LLVMBasicBlockRef, nest: &Nest) {
        let from = if gi == 0 { head } else { self.pending_done.take().expect("previous group") };
        LLVMPositionBuilderAtEnd(self.b, from);
        LLVMBuildBr(self.b, nest.pre);
        self.pending_done = Some(nest.done);
    }

    unsafe fn mark_parallel_loop(&self, br: LLVMValueRef) {
        let ctx = self.ctx;
        let md_str = |s: &str| LLVMMDStringInContext2(ctx, s.as_ptr().cast(), s.len());
        let mut pa = [md_str("llvm.loop.parallel_accesses"), self.access_group];
        let parallel = LLVMMDNodeInContext2(ctx, pa.as_mut_ptr(), 2);
        let mut mp = [md_str("llvm.loop.mustprogress")];
        let progress = LLVMMDNodeInContext2(ctx, mp.as_mut_ptr(), 1);
        let temp = LLVMTemporaryMDNode(ctx, std::ptr::null_mut(), 0);
        let mut ops = [temp, parallel, progress];
        let id = LLVMMDNodeInContext2(ctx, ops.as_mut_ptr(), 3);
        LLVMMetadataReplaceAllUsesWith(temp, id);
        LLVMSetMetadata(br, self.kind_loop, LLVMMetadataAsValue(ctx, id));
    }

    /// The value `v` of the kernel stands for in the region being cloned.
    unsafe fn map_value(&self, v: LLVMValueRef, vmap: &HashMap<LLVMValueRef, LLVMValueRef>) -> Result<LLVMValueRef, String> {
        if let Some(&m) = vmap.get(&v) {
            return Ok(m);
        }
        if builtin_of(v).is_some() {
            // Defined in another region: recomputed here, never stored.
            return Ok(self.builtin_for(v));
        }
        if !LLVMIsAInstruction(v).is_null() && super::prepare::rematerializable(v) {
            // Cheap arithmetic on work-item ids from another region:
            // recomputed at the use, from its recomputed operands.
            let c = LLVMInstructionClone(v);
            for k in 0..LLVMGetNumOperands(c) as u32 {
                let op = self.map_value(LLVMGetOperand(c, k), vmap)?;
                LLVMSetOperand(c, k, op);
            }
            LLVMInsertIntoBuilder(self.b, c);
            LLVMInstructionSetDebugLoc(c, std::ptr::null_mut());
            return Ok(c);
        }
        if !LLVMIsAInstruction(v).is_null() || !LLVMIsAArgument(v).is_null() {
            return Err(format!("internal: '{}' is not available in its region", crate::ir::print_value(v)));
        }
        if !LLVMIsAConstantExpr(v).is_null() && self.refers_to_local(v) {
            return self.materialize(v, vmap);
        }
        Ok(v)
    }

    unsafe fn refers_to_local(&self, v: LLVMValueRef) -> bool {
        if self.view.as_ref().is_some_and(|view| view.locals.contains_key(&v)) {
            return true;
        }
        if LLVMIsAConstantExpr(v).is_null() {
            return false;
        }
        (0..LLVMGetNumOperands(v) as u32).any(|i| self.refers_to_local(LLVMGetOperand(v, i)))
    }

    /// Rebuilds a constant expression over a local-memory variable as
    /// instructions on the variable's per-work-group address.
    unsafe fn materialize(&self, v: LLVMValueRef, vmap: &HashMap<LLVMValueRef, LLVMValueRef>) -> Result<LLVMValueRef, String> {
        let op = |i: u32| self.map_value(LLVMGetOperand(v, i), vmap);
        Ok(match LLVMGetConstOpcode(v) {
            LLVMOpcode::LLVMGetElementPtr => {
                let base = op(0)?;
                let mut idx: Vec<LLVMValueRef> =
                    (1..LLVMGetNumOperands(v) as u32).map(op).collect::<Result<_, _>>()?;
                LLVMBuildGEPWithNoWrapFlags(
                    self.b,
                    LLVMGetGEPSourceElementType(v),
                    base,
                    idx.as_mut_ptr(),
                    idx.len() as u32,
                    c"".as_ptr(),
                    LLVMGEPGetNoWrapFlags(v),
                )
            }
            LLVMOpcode::LLVMAddrSpaceCast => LLVMBuildAddrSpaceCast(self.b, op(0)?, LLVMTypeOf(v), c"".as_ptr()),
            LLVMOpcode::LLVMBitCast => LLVMBuildBitCast(self.b, op(0)?, LLVMTypeOf(v), c"".as_ptr()),
            LLVMOpcode::LLVMPtrToInt => LLVMBuildPtrToInt(self.b, op(0)?, LLVMTypeOf(v), c"".as_ptr()),
            other => return Err(format!("unsupported constant expression ({other:?}) over local memory: {}", crate::ir::print_value(v))),
        })
    }

    unsafe fn clone_instruction(
        &mut self,
        i: LLVMValueRef,
        vmap: &mut HashMap<LLVMValueRef, LLVMValueRef>,
        bmap: &HashMap<LLVMBasicBlockRef, LLVMBasicBlockRef>,
        exits: &BTreeMap<u32, LLVMBasicBlockRef>,
        phis: &mut Vec<(LLVMValueRef, LLVMValueRef)>,
    ) -> Result<(), String> {
        match LLVMGetInstructionOpcode(i) {
            LLVMOpcode::LLVMAlloca => return Ok(()), // mapped to its slot
            LLVMOpcode::LLVMPHI => {
                let p = LLVMBuildPhi(self.b, LLVMTypeOf(i), c"".as_ptr());
                vmap.insert(i, p);
                phis.push((i, p));
                return Ok(());
            }
            LLVMOpcode::LLVMRet => {
                LLVMBuildBr(self.b, exits[&self.exit_state]);
                return Ok(());
            }
            LLVMOpcode::LLVMLoad => {
                if let Some(&v) = self.snapshots.get(&LLVMGetOperand(i, 0)) {
                    if LLVMTypeOf(v) == LLVMTypeOf(i) && LLVMGetVolatile(i) == 0 {
                        vmap.insert(i, v);
                        return Ok(());
                    }
                }
            }
            LLVMOpcode::LLVMCall => {
                if builtin_of(i).is_some() {
                    let v = self.builtin_for(i);
                    vmap.insert(i, v);
                    return Ok(());
                }
                let callee = LLVMGetCalledValue(i);
                if is_lifetime_marker(callee) {
                    // Their operand must be an alloca, and allocas became
                    // scratch slots: the hint goes.
                    return Ok(());
                }
                if self.simt_callees.contains(&callee) {
                    return Err(format!(
                        "'{}' calls a function that uses work-item builtins or barriers: inline it into the kernel first (-passes='simt-flatten-calls,simt-wiloops')",
                        crate::ir::print_value(i)
                    ));
                }
            }
            _ => {}
        }
        let c = LLVMInstructionClone(i);
        for k in 0..LLVMGetNumOperands(c) as u32 {
            let op = LLVMGetOperand(c, k);
            if LLVMValueIsBasicBlock(op) != 0 {
                let kb = LLVMValueAsBasicBlock(op);
                let target = if let Some(&nb) = bmap.get(&kb) {
                    nb
                } else if let Some(s) = self.barrier_blocks.get(&kb) {
                    exits[s]
                } else {
                    return Err("internal: branch leaves its region".into());
                };
                LLVMSetOperand(c, k, LLVMBasicBlockAsValue(target));
            } else {
                let m = self.map_value(op, vmap)?;
                if m != op {
                    LLVMSetOperand(c, k, m);
                }
            }
        }
        let mut len = 0usize;
        let name = LLVMGetValueName2(i, &mut len);
        let name = CString::new(std::slice::from_raw_parts(name.cast::<u8>(), len)).unwrap_or_default();
        LLVMInsertIntoBuilderWithName(self.b, c, name.as_ptr());
        LLVMInstructionSetDebugLoc(c, std::ptr::null_mut());
        if matches!(LLVMGetInstructionOpcode(c), LLVMOpcode::LLVMLoad | LLVMOpcode::LLVMStore)
            && LLVMGetVolatile(c) == 0
            && LLVMGetOrdering(c) == llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingNotAtomic
        {
            LLVMSetMetadata(c, self.kind_access_group, LLVMMetadataAsValue(self.ctx, self.access_group));
        }
        vmap.insert(i, c);
        Ok(())
    }

    /// The value the builtin call `call` has for the current work-item, in
    /// the call's own type.
    unsafe fn builtin_for(&self, call: LLVMValueRef) -> LLVMValueRef {
        let b = builtin_of(call).expect("a builtin call");
        let v = self.builtin_value(b, self.items.as_ref().expect("inside a region"));
        let ty = LLVMTypeOf(call);
        if LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMIntegerTypeKind {
            LLVMBuildIntCast2(self.b, v, ty, 0, c"".as_ptr())
        } else {
            v
        }
    }

    /// The i64 value of a work-item builtin for the current work-item.
    unsafe fn builtin_value(&self, b: Builtin, it: &Items) -> LLVMValueRef {
        let local = [it.x, it.y, it.z];
        let group_id = self.view.as_ref().expect("a work-group view").group_id;
        let dim = |d: u32, v: [LLVMValueRef; 3], default: u64| if d < 3 { v[d as usize] } else { self.c64(default) };
        let global_size = |d: usize| LLVMBuildNUWMul(self.b, self.num_groups[d], self.local_size[d], c"".as_ptr());
        let global_id = |d: usize| {
            let base = LLVMBuildNUWMul(self.b, group_id[d], self.local_size[d], c"".as_ptr());
            let g = LLVMBuildNUWAdd(self.b, base, local[d], c"".as_ptr());
            LLVMBuildNUWAdd(self.b, g, self.offset[d], c"".as_ptr())
        };
        match b {
            Builtin::LocalId(d) => dim(d, local, 0),
            Builtin::GroupId(d) => dim(d, group_id, 0),
            Builtin::LocalSize(d) | Builtin::EnqueuedLocalSize(d) => dim(d, self.local_size, 1),
            Builtin::NumGroups(d) => dim(d, self.num_groups, 1),
            Builtin::GlobalOffset(d) => dim(d, self.offset, 0),
            Builtin::GlobalSize(d) if d < 3 => global_size(d as usize),
            Builtin::GlobalSize(_) => self.c64(1),
            Builtin::GlobalId(d) if d < 3 => global_id(d as usize),
            Builtin::GlobalId(_) => self.c64(0),
            Builtin::WorkDim => LLVMBuildZExt(self.b, self.work_dim, self.i64t, c"".as_ptr()),
            Builtin::LocalLinearId => it.w,
            Builtin::GlobalLinearId => {
                // ((gz - oz) * gsy + (gy - oy)) * gsx + (gx - ox)
                let rel = |d: usize| LLVMBuildSub(self.b, global_id(d), self.offset[d], c"".as_ptr());
                let zy = LLVMBuildAdd(self.b, LLVMBuildMul(self.b, rel(2), global_size(1), c"".as_ptr()), rel(1), c"".as_ptr());
                LLVMBuildAdd(self.b, LLVMBuildMul(self.b, zy, global_size(0), c"".as_ptr()), rel(0), c"".as_ptr())
            }
            Builtin::LaneId => LLVMBuildURem(self.b, it.w, self.c64(32), c"".as_ptr()),
            Builtin::WarpId => LLVMBuildUDiv(self.b, it.w, self.c64(32), c"".as_ptr()),
            Builtin::Barrier => unreachable!("barriers are region boundaries, never cloned"),
        }
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

impl Drop for Emitter {
    fn drop(&mut self) {
        unsafe { LLVMDisposeBuilder(self.b) };
    }
}

/// The values that differ between the work-groups one function runs.
struct WgView {
    group_id: [LLVMValueRef; 3],
    /// Local-memory variables (and, interleaved, `__local` pointer
    /// arguments) → their address in this work-group's block.
    locals: HashMap<LLVMValueRef, LLVMValueRef>,
    /// Allocas → the base of their slots in this work-group's memory.
    slot_base: HashMap<LLVMValueRef, LLVMValueRef>,
}

/// A z/y/x loop nest over the work-items of a work-group.
struct Nest {
    pre: LLVMBasicBlockRef,
    heads: Vec<LLVMBasicBlockRef>,
    ivs: Vec<LLVMValueRef>,
    mins: Vec<LLVMValueRef>,
    maxs: Vec<LLVMValueRef>,
    latches: Vec<LLVMBasicBlockRef>,
    done: LLVMBasicBlockRef,
}

#[derive(Clone, Copy)]
struct Items {
    x: LLVMValueRef,
    y: LLVMValueRef,
    z: LLVMValueRef,
    w: LLVMValueRef,
}

/// The regions as a straight chain from the entry to the exit, each with a
/// single successor state, if they form one.
fn chain(regions: &[Region], exit_state: u32) -> Option<Vec<&Region>> {
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
fn region_size(r: &Region) -> u64 {
    r.blocks.iter().map(|&b| unsafe { super::prepare::instructions(b).len() as u64 }).sum()
}

unsafe fn is_lifetime_marker(callee: LLVMValueRef) -> bool {
    if callee.is_null() || LLVMIsAFunction(callee).is_null() {
        return false;
    }
    let mut len = 0usize;
    let p = LLVMGetValueName2(callee, &mut len);
    std::slice::from_raw_parts(p.cast::<u8>(), len).starts_with(b"llvm.lifetime.")
}

unsafe fn add_incoming(phi: LLVMValueRef, v: LLVMValueRef, from: LLVMBasicBlockRef) {
    let mut vs = [v];
    let mut bs = [from];
    LLVMAddIncoming(phi, vs.as_mut_ptr(), bs.as_mut_ptr(), 1);
}

/// A fresh `distinct !{}`, the form LLVM requires of an access group. The C
/// API cannot create distinct nodes, so one is parsed (nodes belong to the
/// context and outlive the scratch module).
unsafe fn distinct_empty_node(ctx: LLVMContextRef) -> LLVMMetadataRef {
    let src = "define void @f(ptr %p) {\n  store i8 0, ptr %p, !llvm.access.group !0\n  ret void\n}\n!0 = distinct !{}\n";
    let buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(src.as_ptr().cast(), src.len(), c"access-group".as_ptr());
    let mut m: LLVMModuleRef = std::ptr::null_mut();
    let mut msg = std::ptr::null_mut();
    let failed = llvm_sys::ir_reader::LLVMParseIRInContext2(ctx, buf, &mut m, &mut msg);
    LLVMDisposeMemoryBuffer(buf);
    assert!(failed == 0, "the access-group snippet parses");
    let f = LLVMGetNamedFunction(m, c"f".as_ptr());
    let store = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(f));
    let k = "llvm.access.group";
    let kind = LLVMGetMDKindIDInContext(ctx, k.as_ptr().cast(), k.len() as u32);
    let node = LLVMValueAsMetadata(LLVMGetMetadata(store, kind));
    LLVMDisposeModule(m);
    node
}
