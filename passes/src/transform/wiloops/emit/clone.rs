//! Region cloning: the blocks of one region copied into the body of a
//! work-item loop, with every kernel value mapped to its stand-in there:
//! parameters to the values read from `args`, allocas to their per-work-item
//! (or per-work-group) slots, local-memory variables to their addresses in
//! this work-group's block, work-item builtins to values computed from the
//! loop counters, and branches to barriers to the region's stop blocks.

use super::*;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use super::super::layout::Slot;
use crate::kernel_model::{builtin_of, Builtin};
use llvm_sys::debuginfo::LLVMInstructionSetDebugLoc;
use llvm_sys::{LLVMOpcode, LLVMTypeKind};
use std::collections::{BTreeMap, HashMap};
use std::ffi::CString;

impl Emitter {
    /// Clones region `r` for the current work-group view and work-item,
    /// entered from the end of `from`; returns its exit block per stop state
    /// (unterminated, for the caller to wire).
    ///
    /// Per-work-group slots (uniform values) are read once, at the end of
    /// `pre` (before the work-item loop), and their loads in the region use
    /// that value: the pass only shares slots no region reads after writing.
    pub(super) unsafe fn clone_region(
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
            for i in instructions(kb) {
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

    /// The value `v` of the kernel stands for in the region being cloned.
    pub(super) unsafe fn map_value(&self, v: LLVMValueRef, vmap: &HashMap<LLVMValueRef, LLVMValueRef>) -> Result<LLVMValueRef, String> {
        if let Some(&m) = vmap.get(&v) {
            return Ok(m);
        }
        if unsafe { crate::ir::Value::from_raw(v) }.as_inst().and_then(builtin_of).is_some() {
            // Defined in another region: recomputed here, never stored.
            return Ok(self.builtin_for(v));
        }
        if !LLVMIsAInstruction(v).is_null() && super::super::prepare::rematerializable(crate::ir::Value::from_raw(v)) {
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

    pub(super) unsafe fn refers_to_local(&self, v: LLVMValueRef) -> bool {
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
    pub(super) unsafe fn materialize(&self, v: LLVMValueRef, vmap: &HashMap<LLVMValueRef, LLVMValueRef>) -> Result<LLVMValueRef, String> {
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

    pub(super) unsafe fn clone_instruction(
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
                if unsafe { crate::ir::Value::from_raw(i) }.as_inst().and_then(builtin_of).is_some() {
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
    pub(super) unsafe fn builtin_for(&self, call: LLVMValueRef) -> LLVMValueRef {
        let b = unsafe { crate::ir::Value::from_raw(call) }.as_inst().and_then(builtin_of).expect("a builtin call");
        let v = self.builtin_value(b, self.items.as_ref().expect("inside a region"));
        let ty = LLVMTypeOf(call);
        if LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMIntegerTypeKind {
            LLVMBuildIntCast2(self.b, v, ty, 0, c"".as_ptr())
        } else {
            v
        }
    }

    /// The i64 value of a work-item builtin for the current work-item.
    pub(super) unsafe fn builtin_value(&self, b: Builtin, it: &Items) -> LLVMValueRef {
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

}

unsafe fn is_lifetime_marker(callee: LLVMValueRef) -> bool {
    if callee.is_null() || LLVMIsAFunction(callee).is_null() {
        return false;
    }
    let mut len = 0usize;
    let p = LLVMGetValueName2(callee, &mut len);
    std::slice::from_raw_parts(p.cast::<u8>(), len).starts_with(b"llvm.lifetime.")
}
