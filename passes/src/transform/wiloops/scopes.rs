//! Telling LLVM that the slots `simt-wiloops` adds are memory the kernel's
//! own pointers never reach (scoped no-alias metadata, `ir::AliasScope`).
//!
//! Per-work-item slots live in `ctx.scratch` and uniform slots in
//! `ctx.local_mem` past the kernel's local variables and `__local`
//! arguments: pointers loaded from `ctx`, which LLVM cannot tell apart from
//! the kernel's buffers. So a store to a slot inside a loop stays there:
//! gemm_regblock's `c[j] += a[t] * Bs[kk + t][j]` stored `c[j]` after every
//! multiply-add, as `Bs` (a local array) might be `c`; reduce_tree_sz's
//! work-item loop stored the uniform `s` to its slot in every iteration.
//! pocl's context arrays are `alloca`s, which LLVM knows apart from
//! everything else.
//!
//! Each cloned load and store gets, by the root of its address in the
//! kernel (through GEPs and casts, and through a demoted value's slot to
//! the value stored there):
//!
//! | root | `!alias.scope` | `!noalias` |
//! |---|---|---|
//! | a per-work-item slot | scratch | uniform |
//! | a uniform slot | uniform | scratch |
//! | a kernel argument or global variable | – | scratch, uniform |
//! | anything else (a pointer loaded from memory, a `phi`, …) | – | – |
//!
//! A kernel argument never points into a work-item's private memory or
//! past the local memory the launch gave it (doing so is undefined), and
//! the two slot areas are disjoint, so every `noalias` here holds.
//! One-copy arrays (`Slot::Stack`) are `alloca`s of the work-group
//! function, which LLVM tells apart by itself.

use super::layout::{Layout, Slot};
use super::prepare::Demoted;
use crate::ir::{Inst, Value};
use llvm_sys::LLVMOpcode;
use std::collections::HashMap;

/// Where a kernel address points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Root {
    /// A per-work-item slot in `ctx.scratch`.
    Scratch,
    /// A uniform slot in `ctx.local_mem`.
    Uniform,
    /// Memory the launch gave the kernel: buffers, local memory.
    Outside,
}

/// The roots of a kernel's addresses, given its layout.
pub struct Roots<'ctx> {
    slots: HashMap<Inst<'ctx>, Slot>,
    /// Demoted values by their slot.
    demoted: HashMap<Inst<'ctx>, Value<'ctx>>,
}

/// How far to follow an address back (GEP chains are short; phis stop it).
const MAX_STEPS: u32 = 64;

impl<'ctx> Roots<'ctx> {
    pub fn new(layout: &Layout<'ctx>, demoted: &[Demoted<'ctx>]) -> Roots<'ctx> {
        let demoted = demoted
            .iter()
            .filter_map(|d| {
                // The one store demotion made into the slot holds the value.
                let stores: Vec<Inst<'ctx>> =
                    d.alloca.value().users().into_iter().filter(|u| u.opcode() == LLVMOpcode::LLVMStore).collect();
                match stores[..] {
                    [s] if s.operand(1) == d.alloca.value() => Some((d.alloca, s.operand(0))),
                    _ => None,
                }
            })
            .collect();
        Roots { slots: layout.slots.iter().copied().collect(), demoted }
    }

    /// The root of the kernel address `p`, when known.
    pub fn of(&self, mut p: Value<'ctx>) -> Option<Root> {
        for _ in 0..MAX_STEPS {
            if p.is_argument() || p.is_global_variable() {
                return Some(Root::Outside);
            }
            // Instructions and constant expressions alike.
            match p.opcode()? {
                LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast => p = p.operand(0),
                LLVMOpcode::LLVMAlloca => {
                    return match self.slots.get(&p.as_inst()?)? {
                        Slot::PerItem { .. } => Some(Root::Scratch),
                        Slot::Shared { .. } => Some(Root::Uniform),
                        Slot::Stack { .. } => None,
                    };
                }
                LLVMOpcode::LLVMLoad => p = *self.demoted.get(&p.operand(0).as_inst()?)?,
                _ => return None,
            }
        }
        None
    }
}
