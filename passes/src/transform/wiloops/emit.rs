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
use crate::wg_abi::field;
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
    group_id: [LLVMValueRef; 3],
    num_groups: [LLVMValueRef; 3],
    offset: [LLVMValueRef; 3],
    work_dim: LLVMValueRef,
    n_items: LLVMValueRef,
    /// Kernel parameters and local-memory globals, as values in the new function.
    base_map: HashMap<LLVMValueRef, LLVMValueRef>,
    barrier_blocks: HashMap<LLVMBasicBlockRef, u32>,
    exit_state: u32,
    layout: Layout,
    slot_base: HashMap<LLVMValueRef, LLVMValueRef>,
    access_group: LLVMMetadataRef,
    kind_loop: u32,
    kind_access_group: u32,
    /// Defined functions that use work-item builtins or barriers.
    simt_callees: HashSet<LLVMValueRef>,
    /// The work-item the region being cloned runs for.
    items: Option<Items>,
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
    ) -> Emitter {
        let ctx = LLVMGetModuleContext(module);
        let i64t = LLVMInt64TypeInContext(ctx);
        let i32t = LLVMInt32TypeInContext(ctx);
        let i8t = LLVMInt8TypeInContext(ctx);
        let ptr = LLVMPointerTypeInContext(ctx, 0);
        let arr3 = LLVMArrayType2(i64t, 3);
        let mut fields = [arr3, arr3, arr3, arr3, i32t, LLVMArrayType2(i32t, 3), ptr, ptr];
        let ctx_ty = LLVMStructTypeInContext(ctx, fields.as_mut_ptr(), fields.len() as u32, 0);
        let mut params = [ptr, ptr];
        let fn_ty = LLVMFunctionType(i32t, params.as_mut_ptr(), 2, 0);
        let f = LLVMAddFunction(module, cs(&crate::wg_abi::wg_function(name)).as_ptr(), fn_ty);
        let exit_state = barrier_blocks.len() as u32 + 1;
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
            group_id: [std::ptr::null_mut(); 3],
            num_groups: [std::ptr::null_mut(); 3],
            offset: [std::ptr::null_mut(); 3],
            work_dim: std::ptr::null_mut(),
            n_items: std::ptr::null_mut(),
            base_map: HashMap::new(),
            barrier_blocks,
            exit_state,
            layout,
            slot_base: HashMap::new(),
            access_group: distinct_empty_node(ctx),
            kind_loop: kind("llvm.loop"),
            kind_access_group: kind("llvm.access.group"),
            simt_callees,
            items: None,
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

    unsafe fn ctx_field(&self, idx: u32, elem: Option<u32>) -> LLVMValueRef {
        let mut idx_vals = vec![self.c32(0), self.c32(idx)];
        if let Some(e) = elem {
            idx_vals.push(self.c32(e));
        }
        LLVMBuildInBoundsGEP2(self.b, self.ctx_ty, self.ctx_arg, idx_vals.as_mut_ptr(), idx_vals.len() as u32, c"".as_ptr())
    }

    unsafe fn load(&self, ty: LLVMTypeRef, ptr: LLVMValueRef, name: &str) -> LLVMValueRef {
        LLVMBuildLoad2(self.b, ty, ptr, cs(name).as_ptr())
    }

    /// Emits the whole function. Errors name what cannot be lowered.
    pub unsafe fn emit(&mut self, regions: &[Region]) -> Result<(), String> {
        let entry = self.block("entry");
        LLVMPositionBuilderAtEnd(self.b, entry);
        let ptr = LLVMPointerTypeInContext(self.ctx, 0);
        for d in 0..3u32 {
            self.local_size[d as usize] = self.load(self.i64t, self.ctx_field(field::LOCAL_SIZE, Some(d)), "local.size");
            self.group_id[d as usize] = self.load(self.i64t, self.ctx_field(field::GROUP_ID, Some(d)), "group.id");
            self.num_groups[d as usize] = self.load(self.i64t, self.ctx_field(field::NUM_GROUPS, Some(d)), "num.groups");
            self.offset[d as usize] = self.load(self.i64t, self.ctx_field(field::GLOBAL_OFFSET, Some(d)), "global.offset");
        }
        self.work_dim = self.load(self.i32t, self.ctx_field(field::WORK_DIM, None), "work.dim");
        let local_mem = self.load(ptr, self.ctx_field(field::LOCAL_MEM, None), "local.mem");
        let scratch = self.load(ptr, self.ctx_field(field::SCRATCH, None), "scratch");
        let nxy = LLVMBuildNUWMul(self.b, self.local_size[0], self.local_size[1], c"".as_ptr());
        self.n_items = LLVMBuildNUWMul(self.b, nxy, self.local_size[2], c"items".as_ptr());

        // Parameters: args[i] points at parameter i's value.
        let args = LLVMGetParam(self.f, 0);
        for i in 0..LLVMCountParams(self.kernel) {
            let p = LLVMGetParam(self.kernel, i);
            let mut idx = [self.c64(i as u64)];
            let slot = LLVMBuildInBoundsGEP2(self.b, ptr, args, idx.as_mut_ptr(), 1, c"".as_ptr());
            let at = self.load(ptr, slot, "");
            let v = self.load(LLVMTypeOf(p), at, &format!("arg{i}"));
            self.base_map.insert(p, v);
        }
        // Local-memory variables live at fixed offsets in ctx.local_mem.
        let locals: Vec<(LLVMValueRef, u64)> = self.layout.local_globals.clone();
        for (g, off) in locals {
            let mut idx = [self.c64(off)];
            let at = LLVMBuildInBoundsGEP2(self.b, self.i8t, local_mem, idx.as_mut_ptr(), 1, c"".as_ptr());
            let as_ty = LLVMTypeOf(g);
            let v = if LLVMGetPointerAddressSpace(as_ty) == 0 { at } else { LLVMBuildAddrSpaceCast(self.b, at, as_ty, c"".as_ptr()) };
            self.base_map.insert(g, v);
        }
        // Private memory: per work-item slices of scratch, or one slot in local memory.
        let slots: Vec<(LLVMValueRef, Slot)> = self.layout.slots.clone();
        for (a, slot) in slots {
            let base = match slot {
                Slot::PerItem { offset, .. } => {
                    let mut idx = [LLVMBuildNUWMul(self.b, self.c64(offset), self.n_items, c"".as_ptr())];
                    LLVMBuildInBoundsGEP2(self.b, self.i8t, scratch, idx.as_mut_ptr(), 1, c"".as_ptr())
                }
                Slot::Shared { local_offset } => {
                    let mut idx = [self.c64(local_offset)];
                    LLVMBuildInBoundsGEP2(self.b, self.i8t, local_mem, idx.as_mut_ptr(), 1, c"".as_ptr())
                }
            };
            self.slot_base.insert(a, base);
        }

        let dispatch = self.block("dispatch");
        LLVMBuildBr(self.b, dispatch);
        LLVMPositionBuilderAtEnd(self.b, dispatch);
        let next = LLVMBuildPhi(self.b, self.i32t, c"next".as_ptr());
        add_incoming(next, self.c32(0), entry);
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
    unsafe fn emit_region(&mut self, r: &Region) -> Result<(LLVMBasicBlockRef, LLVMBasicBlockRef, LLVMValueRef), String> {
        let tag = format!("r{}", r.state);
        let multi = r.exit_states.len() > 1;
        let pre = self.block(&format!("{tag}.pre"));
        let heads: Vec<LLVMBasicBlockRef> = ["z", "y", "x"].iter().map(|d| self.block(&format!("{tag}.{d}"))).collect();
        let body_entry = self.block(&format!("{tag}.item"));
        let bmap: HashMap<LLVMBasicBlockRef, LLVMBasicBlockRef> =
            r.blocks.iter().map(|&kb| (kb, self.block(&format!("{tag}.body")))).collect();
        let exits: BTreeMap<u32, LLVMBasicBlockRef> =
            r.exit_states.iter().map(|&s| (s, self.block(&format!("{tag}.stop{s}")))).collect();
        let latches: Vec<LLVMBasicBlockRef> = ["x", "y", "z"].iter().map(|d| self.block(&format!("{tag}.{d}.next"))).collect();
        let done = self.block(&format!("{tag}.done"));

        LLVMPositionBuilderAtEnd(self.b, pre);
        LLVMBuildBr(self.b, heads[0]);
        // Loop heads: induction variable and, for multi-exit regions, min/max states.
        let mut ivs = Vec::new();
        let mut mins = Vec::new();
        let mut maxs = Vec::new();
        for (level, &h) in heads.iter().enumerate() {
            LLVMPositionBuilderAtEnd(self.b, h);
            ivs.push(LLVMBuildPhi(self.b, self.i64t, cs(["wi.z", "wi.y", "wi.x"][level]).as_ptr()));
            if multi {
                mins.push(LLVMBuildPhi(self.b, self.i32t, c"state.min".as_ptr()));
                maxs.push(LLVMBuildPhi(self.b, self.i32t, c"state.max".as_ptr()));
            }
            LLVMBuildBr(self.b, if level < 2 { heads[level + 1] } else { body_entry });
        }
        let (z, y, x) = (ivs[0], ivs[1], ivs[2]);
        LLVMPositionBuilderAtEnd(self.b, body_entry);
        let yz = LLVMBuildNUWAdd(self.b, y, LLVMBuildNUWMul(self.b, self.local_size[1], z, c"".as_ptr()), c"".as_ptr());
        let w = LLVMBuildNUWAdd(self.b, x, LLVMBuildNUWMul(self.b, self.local_size[0], yz, c"".as_ptr()), c"wi.linear".as_ptr());
        let mut vmap = self.base_map.clone();
        let slots: Vec<(LLVMValueRef, Slot)> = self.layout.slots.clone();
        for (a, slot) in slots {
            let base = self.slot_base[&a];
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

        self.items = Some(Items { x, y, z, w });
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

        // x latch: the state phi, reductions, and the parallel loop back edge.
        LLVMPositionBuilderAtEnd(self.b, latches[0]);
        let state = LLVMBuildPhi(self.b, self.i32t, c"state".as_ptr());
        for (&s, &eb) in &exits {
            add_incoming(state, self.c32(s), eb);
            LLVMPositionBuilderAtEnd(self.b, eb);
            LLVMBuildBr(self.b, latches[0]);
        }
        LLVMPositionBuilderAtEnd(self.b, latches[0]);
        let (mut new_min, mut new_max) = (std::ptr::null_mut(), std::ptr::null_mut());
        if multi {
            let lt = LLVMBuildICmp(self.b, LLVMIntPredicate::LLVMIntULT, state, mins[2], c"".as_ptr());
            new_min = LLVMBuildSelect(self.b, lt, state, mins[2], c"".as_ptr());
            let gt = LLVMBuildICmp(self.b, LLVMIntPredicate::LLVMIntUGT, state, maxs[2], c"".as_ptr());
            new_max = LLVMBuildSelect(self.b, gt, state, maxs[2], c"".as_ptr());
        }
        let bounds = [self.local_size[0], self.local_size[1], self.local_size[2]];
        for level in 0..3 {
            // level 0 = x (innermost), 1 = y, 2 = z.
            let iv = ivs[2 - level];
            LLVMPositionBuilderAtEnd(self.b, latches[level]);
            let inc = LLVMBuildNUWAdd(self.b, iv, self.c64(1), c"".as_ptr());
            let more = LLVMBuildICmp(self.b, LLVMIntPredicate::LLVMIntULT, inc, bounds[level], c"".as_ptr());
            let head = heads[2 - level];
            let after = if level < 2 { latches[level + 1] } else { done };
            let br = LLVMBuildCondBr(self.b, more, head, after);
            if level == 0 {
                self.mark_parallel_loop(br);
            }
            add_incoming(iv, inc, latches[level]);
            let outer_entry = if level < 2 { heads[1 - level] } else { pre };
            add_incoming(iv, self.c64(0), outer_entry);
            if multi {
                add_incoming(mins[2 - level], new_min, latches[level]);
                add_incoming(maxs[2 - level], new_max, latches[level]);
                let (init_min, init_max) = if level < 2 {
                    (mins[1 - level], maxs[1 - level])
                } else {
                    (self.c32(u32::MAX), self.c32(0))
                };
                add_incoming(mins[2 - level], init_min, outer_entry);
                add_incoming(maxs[2 - level], init_max, outer_entry);
            }
        }

        LLVMPositionBuilderAtEnd(self.b, done);
        let next_state = if multi {
            let agree = self.block(&format!("{tag}.agreed"));
            let disagree = self.block(&format!("{tag}.divergent"));
            let same = LLVMBuildICmp(self.b, LLVMIntPredicate::LLVMIntEQ, new_min, new_max, c"".as_ptr());
            LLVMBuildCondBr(self.b, same, agree, disagree);
            LLVMPositionBuilderAtEnd(self.b, disagree);
            LLVMBuildStore(self.b, new_min, self.ctx_field(field::ERROR, Some(0)));
            LLVMBuildStore(self.b, new_max, self.ctx_field(field::ERROR, Some(1)));
            LLVMBuildStore(self.b, self.c32(0), self.ctx_field(field::ERROR, Some(2)));
            LLVMBuildRet(self.b, self.c32(crate::wg_abi::STATUS_BARRIER_DIVERGENCE));
            LLVMPositionBuilderAtEnd(self.b, agree);
            return Ok((pre, agree, new_min));
        } else {
            self.c32(r.exit_states[0])
        };
        Ok((pre, done, next_state))
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
        if !LLVMIsAInstruction(v).is_null() || !LLVMIsAArgument(v).is_null() {
            return Err(format!("internal: '{}' is not available in its region", crate::ir::print_value(v)));
        }
        if !LLVMIsAConstantExpr(v).is_null() && self.refers_to_local(v) {
            return self.materialize(v, vmap);
        }
        Ok(v)
    }

    unsafe fn refers_to_local(&self, v: LLVMValueRef) -> bool {
        if self.base_map.contains_key(&v) {
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
                        "'{}' calls a function that uses work-item builtins or barriers: inline it into the kernel first (e.g. -passes='always-inline,…')",
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
        let dim = |d: u32, v: [LLVMValueRef; 3], default: u64| if d < 3 { v[d as usize] } else { self.c64(default) };
        let global_size = |d: usize| LLVMBuildNUWMul(self.b, self.num_groups[d], self.local_size[d], c"".as_ptr());
        let global_id = |d: usize| {
            let base = LLVMBuildNUWMul(self.b, self.group_id[d], self.local_size[d], c"".as_ptr());
            let g = LLVMBuildNUWAdd(self.b, base, local[d], c"".as_ptr());
            LLVMBuildNUWAdd(self.b, g, self.offset[d], c"".as_ptr())
        };
        match b {
            Builtin::LocalId(d) => dim(d, local, 0),
            Builtin::GroupId(d) => dim(d, self.group_id, 0),
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

    /// Emits the ABI's data symbols for kernel `name`.
    pub unsafe fn emit_symbols(&self, name: &str, barrier_names: &[String]) {
        let global_u64 = |sym: &str, v: u64| {
            let g = LLVMAddGlobal(self.module, self.i64t, cs(sym).as_ptr());
            LLVMSetInitializer(g, self.c64(v));
            LLVMSetGlobalConstant(g, 1);
        };
        global_u64(&crate::wg_abi::scratch_per_item_symbol(name), self.layout.scratch_per_item);
        global_u64(&crate::wg_abi::local_bytes_symbol(name), self.layout.local_bytes);
        let ptr = LLVMPointerTypeInContext(self.ctx, 0);
        let mut strings: Vec<LLVMValueRef> = barrier_names
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let text = LLVMConstStringInContext2(self.ctx, s.as_ptr().cast(), s.len(), 0);
                let g = LLVMAddGlobal(self.module, LLVMTypeOf(text), cs(&format!("{name}.barrier{i}")).as_ptr());
                LLVMSetInitializer(g, text);
                LLVMSetGlobalConstant(g, 1);
                LLVMSetLinkage(g, llvm_sys::LLVMLinkage::LLVMPrivateLinkage);
                LLVMSetUnnamedAddress(g, llvm_sys::LLVMUnnamedAddr::LLVMGlobalUnnamedAddr);
                g
            })
            .collect();
        let arr = LLVMConstArray2(ptr, strings.as_mut_ptr(), strings.len() as u64);
        let g = LLVMAddGlobal(self.module, LLVMTypeOf(arr), cs(&crate::wg_abi::barriers_symbol(name)).as_ptr());
        LLVMSetInitializer(g, arr);
        LLVMSetGlobalConstant(g, 1);
    }
}

impl Drop for Emitter {
    fn drop(&mut self) {
        unsafe { LLVMDisposeBuilder(self.b) };
    }
}

struct Items {
    x: LLVMValueRef,
    y: LLVMValueRef,
    z: LLVMValueRef,
    w: LLVMValueRef,
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
