//! Where each kernel's memory lives once its work-items share one CPU thread:
//!
//! - **local memory** (`__local` / `__shared__` variables, addrspace 3): at
//!   fixed offsets in the work-group's `ctx.local_mem` block, so different
//!   cores can run different work-groups at once; after them, one slot per
//!   work-group for each value that is uniform and live across a barrier
//!   (used by the interleaved function only: `simt_wg_K` keeps these in
//!   `alloca`s, see [`Slot::Shared`]);
//! - **private memory** (every `alloca`, including the slots of demoted
//!   values): one copy per work-item in `ctx.scratch`, each allocation's
//!   copies contiguous (structure of arrays), so that work-item `w` of a
//!   group of `n` finds allocation `a` at `scratch + offset(a)·n + w·size(a)`
//!   and consecutive work-items touch consecutive addresses, except that
//!   arrays indexed alike in all work-items interleave their copies
//!   (`innermost.rs`: element `e` at `scratch + offset(a)·n + (e·n + w)·s`,
//!   `s` the element size); except the
//!   allocas whose values never cross a barrier, which stay allocas of the
//!   work-group function, one copy for all its work-items.

use super::innermost::Innermost;
use super::prepare::Demoted;
use crate::ir::{instructions, Inst, Value};
use crate::kernel_model::LOCAL_ADDRESS_SPACE;
use inkwell::targets::TargetData;
use inkwell::values::FunctionValue;
use std::collections::HashSet;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// Bytes from the start of the allocation's array, per work-item, and the
    /// size of one copy.
    PerItem { offset: u64, size: u64 },
    /// The one per-work-group copy of a uniform value: an `alloca` of the
    /// work-group function (which runs one work-group from start to end, so
    /// SROA turns it into registers), or in the interleaved function, which
    /// has several work-groups in flight, at `local_offset` in each one's
    /// local memory.
    Shared { local_offset: u64, size: u64, align: u64 },
    /// A private array no value of which crosses a barrier
    /// (`region_local.rs`): one `alloca` of the work-group function, which
    /// the work-items reuse in turn.
    Stack { size: u64, align: u64 },
}

#[derive(Clone, Debug, Default)]
pub struct Layout<'ctx> {
    pub local_globals: Vec<(Value<'ctx>, u64)>,
    /// Allocas and their slots.
    pub slots: Vec<(Inst<'ctx>, Slot)>,
    pub scratch_per_item: u64,
    /// The per-work-item arrays laid out with the work-item index innermost.
    pub innermost: Innermost<'ctx>,
    pub local_bytes: u64,
}

fn align_to(x: u64, a: u64) -> u64 {
    x.div_ceil(a.max(1)) * a.max(1)
}

/// Lays out the local variables `kernel` uses and all of its allocas.
pub fn compute<'ctx>(
    td: &TargetData,
    kernel: FunctionValue<'ctx>,
    demoted: &[Demoted<'ctx>],
    region_local: &HashSet<Inst<'ctx>>,
    innermost: Innermost<'ctx>,
) -> Result<Layout<'ctx>, String> {
    let mut layout = Layout { innermost, ..Layout::default() };
    let mut local = 0u64;
    for g in local_globals_used(kernel) {
        let ty = g.global_value_type();
        if g.is_declaration() {
            return Err(format!(
                "dynamically sized local memory ('{}') has no size: give it one (simt-run --shared-bytes N, CUDA's third <<<>>> argument)",
                g.print().lines().next().unwrap_or_default()
            ));
        }
        let align = (g.alignment() as u64).max(ty.abi_align(td)).max(16);
        local = align_to(local, align);
        layout.local_globals.push((g, local));
        local += ty.alloc_size(td);
    }
    let shared: HashSet<Value<'_>> = demoted.iter().filter(|d| d.shared).map(|d| d.alloca.value()).collect();
    let mut per_item = 0u64;
    for bb in kernel.get_basic_block_iter() {
        for i in instructions(bb) {
            if !i.is_alloca() {
                continue;
            }
            let Some(count) = i.operand(0).is_constant_int().then(|| i.operand(0).const_u64()).flatten() else {
                return Err(format!("'{}': variable-sized private arrays are not supported", i.value().print()));
            };
            let ty = i.allocated_type();
            let size = ty.alloc_size(td) * count;
            let align = (i.value().alignment() as u64).max(ty.abi_align(td));
            let size = align_to(size.max(1), align);
            if region_local.contains(&i) && u32::try_from(size).is_ok() {
                layout.slots.push((i, Slot::Stack { size, align }));
            } else if shared.contains(&i.value()) {
                local = align_to(local, align);
                layout.slots.push((i, Slot::Shared { local_offset: local, size, align }));
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
fn local_globals_used(kernel: FunctionValue<'_>) -> Vec<Value<'_>> {
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    fn visit<'ctx>(v: Value<'ctx>, found: &mut Vec<Value<'ctx>>, seen: &mut HashSet<Value<'ctx>>) {
        if v.is_global_variable() {
            if v.address_space() == Some(LOCAL_ADDRESS_SPACE) && seen.insert(v) {
                found.push(v);
            }
        } else if v.is_constant_expr() && seen.insert(v) {
            for k in 0..v.num_operands() {
                visit(v.operand(k), found, seen);
            }
        }
    }
    for bb in kernel.get_basic_block_iter() {
        for i in instructions(bb) {
            for op in i.operands() {
                visit(op, &mut found, &mut seen);
            }
        }
    }
    found
}
