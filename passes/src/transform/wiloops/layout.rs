//! Where each kernel's memory lives once its work-items share one CPU thread:
//!
//! - **local memory** (`__local` / `__shared__` variables, addrspace 3): at
//!   fixed offsets in the work-group's `ctx.local_mem` block, so different
//!   cores can run different work-groups at once; after them, one slot per
//!   work-group for each value that is uniform and live across a barrier;
//! - **private memory** (every `alloca`, including the slots of demoted
//!   values): one copy per work-item in `ctx.scratch`, each allocation's
//!   copies contiguous (structure of arrays), so that work-item `w` of a
//!   group of `n` finds allocation `a` at `scratch + offset(a)·n + w·size(a)`
//!   and consecutive work-items touch consecutive addresses.

use super::prepare::{blocks, instructions, Demoted};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::*;
use std::collections::HashSet;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// Bytes from the start of the allocation's array, per work-item, and the
    /// size of one copy.
    PerItem { offset: u64, size: u64 },
    /// Offset in local memory of the one per-work-group copy.
    Shared { local_offset: u64 },
}

#[derive(Clone, Debug, Default)]
pub struct Layout {
    pub local_globals: Vec<(LLVMValueRef, u64)>,
    pub slots: Vec<(LLVMValueRef, Slot)>,
    pub scratch_per_item: u64,
    pub local_bytes: u64,
}

const ADDRSPACE_LOCAL: u32 = 3;

fn align_to(x: u64, a: u64) -> u64 {
    x.div_ceil(a.max(1)) * a.max(1)
}

/// Lays out the local variables `kernel` uses and all of its allocas.
pub unsafe fn compute(module: LLVMModuleRef, kernel: LLVMValueRef, demoted: &[Demoted]) -> Result<Layout, String> {
    let td = LLVMGetModuleDataLayout(module);
    let mut layout = Layout::default();
    let mut local = 0u64;
    for g in local_globals_used(kernel) {
        let ty = LLVMGlobalGetValueType(g);
        if LLVMIsDeclaration(g) != 0 {
            return Err(format!(
                "dynamically sized local memory ('{}') is not supported yet",
                crate::ir::print_value(g).lines().next().unwrap_or_default()
            ));
        }
        let align = (LLVMGetAlignment(g) as u64).max(LLVMABIAlignmentOfType(td, ty) as u64).max(16);
        local = align_to(local, align);
        layout.local_globals.push((g, local));
        local += LLVMABISizeOfType(td, ty);
    }
    let shared: HashSet<LLVMValueRef> = demoted.iter().filter(|d| d.shared).map(|d| d.alloca).collect();
    let mut per_item = 0u64;
    for bb in blocks(kernel) {
        for i in instructions(bb) {
            if LLVMIsAAllocaInst(i).is_null() {
                continue;
            }
            let count = LLVMGetOperand(i, 0);
            if LLVMIsAConstantInt(count).is_null() {
                return Err(format!("'{}': variable-sized private arrays are not supported", crate::ir::print_value(i)));
            }
            let ty = LLVMGetAllocatedType(i);
            let size = LLVMABISizeOfType(td, ty) * LLVMConstIntGetZExtValue(count);
            let align = (LLVMGetAlignment(i) as u64).max(LLVMABIAlignmentOfType(td, ty) as u64);
            let size = align_to(size.max(1), align);
            if shared.contains(&i) {
                local = align_to(local, align);
                layout.slots.push((i, Slot::Shared { local_offset: local }));
                local += size;
            } else {
                per_item = align_to(per_item, align);
                layout.slots.push((i, Slot::PerItem { offset: per_item, size }));
                per_item += size;
            }
        }
    }
    layout.scratch_per_item = align_to(per_item, 8);
    layout.local_bytes = align_to(local, 16);
    Ok(layout)
}

/// Addrspace-3 globals referenced by `kernel`'s instructions, directly or
/// through constant expressions, in first-use order.
unsafe fn local_globals_used(kernel: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    fn visit(v: LLVMValueRef, found: &mut Vec<LLVMValueRef>, seen: &mut HashSet<LLVMValueRef>) {
        unsafe {
            if !LLVMIsAGlobalVariable(v).is_null() {
                if LLVMGetPointerAddressSpace(LLVMTypeOf(v)) == ADDRSPACE_LOCAL && seen.insert(v) {
                    found.push(v);
                }
            } else if !LLVMIsAConstantExpr(v).is_null() && seen.insert(v) {
                for k in 0..LLVMGetNumOperands(v) as u32 {
                    visit(LLVMGetOperand(v, k), found, seen);
                }
            }
        }
    }
    for bb in blocks(kernel) {
        for i in instructions(bb) {
            for k in 0..LLVMGetNumOperands(i) as u32 {
                visit(LLVMGetOperand(i, k), &mut found, &mut seen);
            }
        }
    }
    found
}
