//! Private arrays that need no copy per work-item (seed 001's clean-up step:
//! expanded variables that need not be arrays).
//!
//! Work-items of a work-group run a region one after another, so one copy of
//! an `alloca` serves them all as long as no work-item reads, after a
//! barrier, a value it stored before it: in between, the other work-items
//! ran the region and overwrote the copy. The test is a forward
//! must-analysis over seed 003's accesses (`fa.memdeps()`): the bytes every
//! path has overwritten, by exact unconditional stores, since the last
//! barrier. Every load must read only such bytes. A barrier starts with none
//! of them, unless the chains say no store of the alloca reaches past it
//! (only `entry`: undefined bytes, undefined with one copy or many); the
//! kernel entry starts with all (undefined too).
//!
//! ```text
//!   S: p[0..7] = …       after B nothing is clean: L reads S's bytes,
//!   B: barrier           p keeps a copy per work-item;
//!   L: … = p[j]          with  p[0..7] = …  between B and L, one copy.
//! ```
//!
//! Limits, all conservative: a store at a variable index makes no byte clean
//! (a loop that fills the whole array is not recognised), and an alloca whose
//! address goes anywhere but loads, stores, GEPs, casts, lifetime markers and
//! `memset`/`memcpy`/`memmove` (a call, `ptrtoint`, a `phi` or `select`, a
//! store of the address) keeps its copy per work-item, since the chains see
//! only accesses traced back to it.

use crate::analysis::cache::FunctionAnalyses;
use crate::analysis::memdeps::intervals::IntervalSet;
use crate::analysis::memdeps::model::{Def, ObjId, Ref};
use crate::analysis::memdeps::MemDeps;
use crate::cfg::{BlockId, Cfg};
use crate::ir::{instructions, Inst, Value};
use llvm_sys::LLVMOpcode;
use std::collections::HashSet;

/// The allocas of `fa`'s function that may have one copy per work-group,
/// given the blocks holding its barriers.
pub fn region_local_allocas<'ctx>(fa: &FunctionAnalyses<'ctx>, barrier_blocks: &[BlockId]) -> HashSet<Inst<'ctx>> {
    let candidates: Vec<Inst<'ctx>> =
        fa.cfg.blocks().iter().flat_map(|&bb| instructions(bb)).filter(|a| a.is_alloca() && address_stays_private(a.value())).collect();
    if candidates.is_empty() {
        // The chains cost time linear in the kernel but large (on 100k
        // generated blocks, a fifth of the pass): not for nothing.
        return HashSet::new();
    }
    let md = fa.memdeps();
    let cfg = &fa.cfg.cfg;
    let barriers: HashSet<BlockId> = barrier_blocks.iter().copied().collect();
    let mut out = HashSet::new();
    for a in candidates {
        let Some(obj) = md.objects.iter().position(|o| *o == Some(a.value())) else { continue };
        if !crosses_a_barrier(md, obj as ObjId, &barriers, cfg) {
            out.insert(a);
        }
    }
    out
}

/// Whether some load of `obj` may read a byte stored before a barrier:
/// a forward must-analysis of the bytes every path has overwritten (by exact,
/// unconditional stores of the chains) since the last barrier. A barrier
/// after which the chains still see a store of `obj` starts with none of
/// them; the kernel entry, and a barrier that no store of `obj` reaches
/// (only `entry`, undefined bytes), start with all. Joins intersect.
fn crosses_a_barrier(md: &MemDeps<'_>, obj: ObjId, barrier_blocks: &HashSet<BlockId>, cfg: &Cfg) -> bool {
    let p = &md.program;
    let span = p.objects[obj as usize].span();
    let all = {
        let mut s = IntervalSet::new();
        s.insert(span);
        s
    };
    let touches = |r: &Option<Ref>| match r {
        Some(Ref::Must(d)) => p.descs[*d as usize].obj == obj,
        Some(Ref::May(objs)) => objs.contains(&obj),
        None => false,
    };
    // What a barrier hands on: all bytes clean, or none.
    let after_barrier = |b: BlockId| -> IntervalSet {
        let Some(state) = &md.solution.block_out[b.index()] else { return all.clone() };
        let stored = state
            .iter()
            .filter(|(&d, r)| p.descs[d as usize].obj == obj && !r.kill.covers(p.span(d)))
            .any(|(_, r)| r.defs.iter().any(|&d| d != Def::Entry));
        if stored {
            IntervalSet::new()
        } else {
            all.clone()
        }
    };
    // The clean bytes at the end of `b` from those at its start; with
    // `check`, `None` when a use there reads a byte that is not clean.
    let transfer = |b: BlockId, mut clean: IntervalSet, check: bool| -> Option<IntervalSet> {
        if barrier_blocks.contains(&b) {
            return Some(after_barrier(b));
        }
        for &a in &p.blocks[b.index()] {
            let access = &p.accesses[a as usize];
            if check && touches(&access.use_) {
                let needed = match &access.use_ {
                    Some(Ref::Must(d)) => p.span(*d),
                    _ => span,
                };
                if !clean.covers(needed) {
                    return None;
                }
            }
            if let Some(Ref::Must(d)) = &access.def {
                if p.descs[*d as usize].obj == obj && p.is_exact(*d) && !access.predicated {
                    clean.insert(p.span(*d));
                }
            }
        }
        Some(clean)
    };
    // The entry may also be a loop header: what enters it again meets `all`.
    let block_in = |b: BlockId, out: &[IntervalSet]| -> IntervalSet {
        let preds = cfg.preds(b).iter().filter(|&&q| cfg.rpo_position(q).is_some());
        preds.fold(all.clone(), |acc, &q| acc.intersect(&out[q.index()]))
    };
    // Optimistic start (all clean): the greatest fixed point of a must-analysis.
    let mut out: Vec<IntervalSet> = vec![all.clone(); cfg.len()];
    loop {
        let mut changed = false;
        for &b in cfg.rpo() {
            let new = transfer(b, block_in(b, &out), false).expect("without checks there is a result");
            if new != out[b.index()] {
                out[b.index()] = new;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    cfg.rpo().iter().any(|&b| transfer(b, block_in(b, &out), true).is_none())
}

/// Whether every use of the address `alloca` (through GEPs and casts) only
/// loads, stores, fills or copies bytes there: then the chains see all of its
/// accesses, and no other code can hold its address.
fn address_stays_private(alloca: Value<'_>) -> bool {
    let mut work = vec![alloca];
    let mut seen = HashSet::new();
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        for u in v.users() {
            match u.opcode() {
                LLVMOpcode::LLVMLoad if u.operand(0) == v => {}
                LLVMOpcode::LLVMStore if u.operand(1) == v && u.operand(0) != v => {}
                LLVMOpcode::LLVMGetElementPtr if u.operand(0) == v => work.push(u.value()),
                LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast => work.push(u.value()),
                LLVMOpcode::LLVMCall if is_bytes_intrinsic(u) => {}
                _ => return false,
            }
        }
    }
    true
}

/// Lifetime markers and `memset`/`memcpy`/`memmove`, which the chains model.
fn is_bytes_intrinsic(call: Inst<'_>) -> bool {
    let callee = call.callee();
    if callee.as_function().is_none() {
        return false;
    }
    let name = callee.name_bytes();
    ["llvm.lifetime.", "llvm.memset.", "llvm.memcpy.", "llvm.memmove."].iter().any(|p| name.starts_with(p.as_bytes()))
}
