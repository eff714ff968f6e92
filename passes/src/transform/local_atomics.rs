//! `simt-local-atomics`: in the work-group functions `simt-wiloops` made,
//! atomics on `__local` memory become plain loads and stores.
//!
//! Why: a work-group function runs a whole work-group on one thread, and
//! `__local` memory (address space 3, OpenCL's `__local` and CUDA's
//! `__shared__`) belongs to one work-group: no other thread can see it. An
//! atomic read-modify-write on it is therefore the same as a load, the
//! operation and a store, without `lock` (x86 keeps the prefix even for
//! `syncscope("singlethread")`, and LLVM's `lower-atomic` would also lower the
//! `__global` atomics, which other threads do see). On the histogram kernel the
//! per-work-group `atomic_inc(&lhist[bin])` is the inner loop. Work-group scope
//! is also the widest ordering a `__local` atomic can give, so dropping its
//! ordering loses nothing across work-groups.
//!
//! ```text
//!   %old = atomicrmw add ptr addrspace(3) %p, i32 %v seq_cst
//! becomes
//!   %old = load i32, ptr addrspace(3) %p
//!   %new = add i32 %old, %v
//!   store i32 %new, ptr addrspace(3) %p
//! ```
//!
//! `cmpxchg` becomes a load, a compare and a store of the selected value, its
//! `{old, success}` pair rebuilt with `insertvalue` (a strong exchange: it
//! fails only when the values differ, which a weak one may also do).
//!
//! Limits: only functions named `simt_wg_*`/`simt_wgi_*` (the pass's premise
//! holds nowhere else: the emulator and the GPU run work-items of a group at
//! once); only pointers into address space 3 by their type or by how they
//! were made (casts, GEPs, selects and phis of such pointers, as CUDA's
//! generic `&bins[b]` is): a generic pointer loaded from memory or passed
//! in stays atomic, wherever it points; volatile atomics,
//! and the operations with no plain equivalent here (`fmin`/`fmax`/`fmaximum`/
//! `fminimum`, `usub_cond`, `usub_sat`), stay atomic. Seed: none; pocl leaves
//! these atomic.

use crate::ir::{defined_functions, function_name, instructions, Builder, FloatOp, Inst, IntOp, Value};
use crate::kernel_model::LOCAL_ADDRESS_SPACE;
use crate::pass::{DeclaredPass, ModulePass, PassContext, PassError, Preserved};
use llvm_sys::{LLVMAtomicRMWBinOp, LLVMIntPredicate, LLVMOpcode};
use std::collections::HashSet;

#[derive(Default)]
pub struct LocalAtomics;

impl DeclaredPass for LocalAtomics {
    const NAME: &'static str = "simt-local-atomics";
    const SUMMARY: &'static str = "in simt-wiloops' work-group functions, atomics on __local memory become plain loads and stores";
}

impl ModulePass for LocalAtomics {
    fn name(&self) -> String {
        Self::NAME.into()
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        let mut lowered = 0;
        for f in defined_functions(cx.module_mut()) {
            let name = function_name(f);
            if !(name.starts_with("simt_wg_") || name.starts_with("simt_wgi_")) {
                continue;
            }
            let atomics: Vec<Inst<'_>> = f.get_basic_block_iter().flat_map(instructions).filter(|&i| is_local_atomic(i)).collect();
            for i in atomics {
                lowered += usize::from(lower(i));
            }
        }
        // Blocks and edges stay; values and memory operations changed.
        Ok(if lowered > 0 { Preserved::cfg_analyses() } else { Preserved::all() })
    }
}

/// A non-volatile `atomicrmw` or `cmpxchg` through a pointer into local memory.
fn is_local_atomic(i: Inst<'_>) -> bool {
    let pointer = match i.opcode() {
        LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg => i.operand(0),
        _ => return false,
    };
    !i.is_volatile() && points_into_local(pointer)
}

/// Whether every value `p` can be is derived from an address-space-3 pointer:
/// `p` has that type, or it is a GEP, cast, select or phi of such pointers.
/// CUDA's `atomicAdd(&bins[b], 1)` on a `__shared__` array reaches the
/// atomic as a generic pointer, `addrspacecast`ed from the shared one, so the
/// type alone would miss every CUDA shared atomic.
fn points_into_local(p: Value<'_>) -> bool {
    let mut seen = HashSet::new();
    let mut work = vec![p];
    while let Some(p) = work.pop() {
        if p.address_space() == Some(LOCAL_ADDRESS_SPACE) || !seen.insert(p) {
            continue;
        }
        match p.opcode() {
            Some(LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast) => work.push(p.operand(0)),
            Some(LLVMOpcode::LLVMSelect) => work.extend([p.operand(1), p.operand(2)]),
            Some(LLVMOpcode::LLVMPHI) => work.extend(p.as_inst().expect("a phi instruction").incoming_values()),
            // An argument, a load, a call, `inttoptr`, a global of another
            // address space: memory other threads may see.
            _ => return false,
        }
    }
    true
}

/// Replaces the atomic `i` by plain code; false where its operation has no
/// plain equivalent here (it then stays).
fn lower(i: Inst<'_>) -> bool {
    let mut b = Builder::new(i.value());
    b.position_before(i);
    let pointer = i.operand(0);
    let align = i.value().alignment();
    // The atomic's type: cmpxchg's compared value, atomicrmw's operand.
    let value_ty = i.operand(1).ty();
    let load = b.load(value_ty, pointer, "local.old");
    let old = load.value();
    let (result, stored) = if i.opcode() == LLVMOpcode::LLVMAtomicCmpXchg {
        let (expected, replacement) = (i.operand(1), i.operand(2));
        let equal = b.icmp(LLVMIntPredicate::LLVMIntEQ, old, expected, "local.eq");
        let new = b.select(equal, replacement, old, "local.new");
        let pair = b.insert_value(i.value().ty().poison(), old, 0, "");
        (b.insert_value(pair, equal, 1, "local.cmpxchg"), new)
    } else {
        let Some(new) = apply(&b, i.atomic_rmw_op(), old, i.operand(1)) else {
            // Nothing stored yet: drop the load again.
            load.erase();
            return false;
        };
        (old, new)
    };
    let store = b.store(stored, pointer);
    if align != 0 {
        store.set_alignment(align);
        load.set_alignment(align);
    }
    i.value().replace_all_uses_with(result);
    i.erase();
    true
}

/// What `atomicrmw op` stores, given the value `old` it found and its operand `v`
/// (LangRef's table); `None` for the operations kept atomic.
fn apply<'ctx>(b: &Builder<'ctx>, op: LLVMAtomicRMWBinOp, old: Value<'ctx>, v: Value<'ctx>) -> Option<Value<'ctx>> {
    use LLVMAtomicRMWBinOp::*;
    use LLVMIntPredicate::*;
    let pick = |pred, name| {
        let keep_old = b.icmp(pred, old, v, "local.cmp");
        b.select(keep_old, old, v, name)
    };
    Some(match op {
        LLVMAtomicRMWBinOpXchg => v,
        LLVMAtomicRMWBinOpAdd => b.int_op(IntOp::Add, old, v, "local.new"),
        LLVMAtomicRMWBinOpSub => b.int_op(IntOp::Sub, old, v, "local.new"),
        LLVMAtomicRMWBinOpAnd => b.int_op(IntOp::And, old, v, "local.new"),
        LLVMAtomicRMWBinOpOr => b.int_op(IntOp::Or, old, v, "local.new"),
        LLVMAtomicRMWBinOpXor => b.int_op(IntOp::Xor, old, v, "local.new"),
        LLVMAtomicRMWBinOpNand => {
            let and = b.int_op(IntOp::And, old, v, "local.and");
            b.int_op(IntOp::Xor, and, v.ty().const_int(u64::MAX), "local.new")
        }
        LLVMAtomicRMWBinOpMax => pick(LLVMIntSGT, "local.new"),
        LLVMAtomicRMWBinOpMin => pick(LLVMIntSLT, "local.new"),
        LLVMAtomicRMWBinOpUMax => pick(LLVMIntUGT, "local.new"),
        LLVMAtomicRMWBinOpUMin => pick(LLVMIntULT, "local.new"),
        LLVMAtomicRMWBinOpFAdd => b.float_op(FloatOp::Add, old, v, "local.new"),
        LLVMAtomicRMWBinOpFSub => b.float_op(FloatOp::Sub, old, v, "local.new"),
        // old >= v ? 0 : old + 1
        LLVMAtomicRMWBinOpUIncWrap => {
            let wraps = b.icmp(LLVMIntUGE, old, v, "local.wraps");
            let inc = b.int_op(IntOp::Add, old, v.ty().const_int(1), "local.inc");
            b.select(wraps, v.ty().const_int(0), inc, "local.new")
        }
        // old == 0 || old > v ? v : old - 1
        LLVMAtomicRMWBinOpUDecWrap => {
            let zero = b.icmp(LLVMIntEQ, old, v.ty().const_int(0), "local.zero");
            let above = b.icmp(LLVMIntUGT, old, v, "local.above");
            let wraps = b.int_op(IntOp::Or, zero, above, "local.wraps");
            let dec = b.int_op(IntOp::Sub, old, v.ty().const_int(1), "local.dec");
            b.select(wraps, v, dec, "local.new")
        }
        _ => return None,
    })
}
