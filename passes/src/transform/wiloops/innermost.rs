//! Private arrays laid out with the work-item index innermost (pocl's
//! context arrays, `WorkitemLoops`: every private variable that crosses a
//! barrier becomes an array over the work-items).
//!
//! A private array `T x[N]` that lives across a barrier has one copy per
//! work-item in `ctx.scratch`. Kept whole (array of structures), work-item
//! `w`'s element `e` is at `base + w·N·s + e·s`: consecutive work-items'
//! `x[j]` are `N·s` bytes apart, so a vectorised work-item loop gathers and
//! scatters them, and one that is not vectorised walks `N` cache lines per
//! step of `j` for the work-items of a line. Interleaved (this module),
//! element `e` of work-item `w` is at `base + (e·L + w)·s`, `L` the
//! work-group's size: `x[j]` at a `j` equal in all work-items is one
//! contiguous run over the work-items, a plain vector load or store.
//!
//! Every address into the array is `alloca + o` with `o` a byte offset made
//! by GEPs; if every access is `s` bytes at an `o` that is a multiple of `s`
//! (`e = o / s`), the interleaved address is `base + w·s + o·L`: linear in
//! `o`, so the alloca maps to `base + w·s` and each GEP on it to a GEP of
//! `o_gep · L` bytes (`emit/clone.rs`).
//!
//! **The choice.** An array is interleaved when that is possible (above:
//! every use a load, a store, a GEP, a cast, a lifetime marker or a
//! constant-length `memset`/`memcpy`/`memmove` with memory that is no
//! private array, all accesses of one power-of-two size `s`, every GEP
//! offset a multiple of `s`), when every GEP index into it is uniform (the
//! same in all work-items), and when every access sits directly in its
//! region's work-item loop (in no loop of the kernel, or only in loops that
//! hold a barrier, which become the dispatcher's). Then the work-item loop
//! is the innermost loop around each access, the one LLVM vectorises, and
//! each access is one unit-stride run across work-items.
//!
//! Otherwise the array keeps the whole layout. An index that differs
//! between work-items (`x[lid % 4]`) gathers in both layouts, and the whole
//! one keeps a work-item's elements in the same cache lines. An access in a
//! barrier-free loop of the kernel makes that loop the innermost: LLVM
//! vectorises along it, or unrolls it and packs its iterations (SLP), and
//! wants one work-item's elements contiguous. gemm_regblock's `c[j] +=
//! a[t] * Bs[kk + t][j]` is that case: whole, its k step is 32
//! `fmuladd.v8f32` on two `<8 x float>` loads of `c`; interleaved, it was
//! 16 `fmuladd.v16f32` between 16 scalar loads and 16 scalar stores of the
//! elements, 256 bytes apart (the `-O3` IR, BENCHMARKS.md). Scalars
//! (demoted values) are the same in both layouts.

use crate::analysis::uniformity::Uniformity;
use crate::ir::{Inst, Value};
use inkwell::targets::TargetData;
use llvm_sys::LLVMOpcode;
use std::collections::{HashMap, HashSet};

/// A GEP's byte offset from its base: `constant + Σ sext(operand k)·stride`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GepOffset {
    pub constant: i64,
    /// Operand index and the bytes one unit of it adds.
    pub terms: Vec<(u32, i64)>,
}

/// The interleaved arrays of a kernel and what emitting them needs.
#[derive(Clone, Debug, Default)]
pub struct Innermost<'ctx> {
    /// Interleaved allocas and their element size `s`.
    pub elem: HashMap<Inst<'ctx>, u64>,
    /// Every GEP on their addresses (directly or through casts and GEPs).
    pub geps: HashMap<Inst<'ctx>, GepOffset>,
    /// Every load and store of them, with the alignment their addresses
    /// keep once interleaved (the element size or the alloca's, if less).
    pub accesses: HashMap<Inst<'ctx>, u64>,
    /// Every `memset`, `memcpy` and `memmove` of them (constant length, at
    /// most [`MAX_BYTE_OP_ELEMENTS`] elements; clang fills `int c[8] = {0}`
    /// with a memset and copies a private array to a buffer with a memcpy):
    /// emitted as one store (memset) or load and store per element.
    pub byte_ops: HashMap<Inst<'ctx>, ByteOp>,
}

/// How to emit one `memset`/`memcpy`/`memmove` that touches an interleaved
/// array: `elem` bytes at a time; the interleaved side (the destination,
/// or the source of a copy from one) steps `elem·L` bytes with alignment
/// `align`, the other side `elem` bytes with alignment 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteOp {
    pub elem: u64,
    pub align: u64,
    /// Which pointer operand (0 the destination, 1 a copy's source) is
    /// into the interleaved array.
    pub interleaved_operand: u32,
}

/// The most elements a byte operation on an interleaved array may cover:
/// each becomes a store (and a load).
pub const MAX_BYTE_OP_ELEMENTS: u64 = 64;

/// Chooses the interleaved arrays among `allocas`; to be called before
/// values are demoted (the uniformity analysis knows only the kernel's own
/// values, and demotion adds loads).
///
/// `in_item_loop` says whether an access sits directly in its region's
/// work-item loop: in no loop of the kernel, or only in loops that hold a
/// barrier (those become the dispatcher's).
pub fn choose<'ctx>(
    td: &TargetData,
    uniformity: &Uniformity,
    allocas: &[Inst<'ctx>],
    in_item_loop: &dyn Fn(Inst<'ctx>) -> bool,
) -> Innermost<'ctx> {
    let mut out = Innermost::default();
    for &a in allocas {
        let Some(found) = examine(td, uniformity, a) else { continue };
        if found.accesses.iter().chain(found.byte_ops.iter().map(|(i, _)| i)).all(|&i| in_item_loop(i)) {
            let align = found.elem.min(u64::from(a.value().alignment()).max(1));
            out.elem.insert(a, found.elem);
            out.geps.extend(found.geps);
            out.accesses.extend(found.accesses.into_iter().map(|i| (i, align)));
            out.byte_ops.extend(found.byte_ops.into_iter().map(|(i, k)| (i, ByteOp { elem: found.elem, align, interleaved_operand: k })));
        }
    }
    out
}

struct Found<'ctx> {
    elem: u64,
    geps: Vec<(Inst<'ctx>, GepOffset)>,
    accesses: Vec<Inst<'ctx>>,
    byte_ops: Vec<(Inst<'ctx>, u32)>,
}

fn examine<'ctx>(td: &TargetData, uniformity: &Uniformity, a: Inst<'ctx>) -> Option<Found<'ctx>> {
    let count = a.operand(0).is_constant_int().then(|| a.operand(0).const_u64()).flatten()?;
    let total = a.allocated_type().alloc_size(td).checked_mul(count)?;
    let mut geps = Vec::new();
    let mut accesses = Vec::new();
    let mut byte_ops = Vec::new();
    let mut sizes = HashSet::new();
    let mut work = vec![a.value()];
    let mut seen = HashSet::new();
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        for u in v.users() {
            match u.opcode() {
                LLVMOpcode::LLVMLoad if u.operand(0) == v => {
                    sizes.insert(access_size(td, u.ty())?);
                    accesses.push(u);
                }
                LLVMOpcode::LLVMStore if u.operand(1) == v && u.operand(0) != v => {
                    sizes.insert(access_size(td, u.operand(0).ty())?);
                    accesses.push(u);
                }
                LLVMOpcode::LLVMGetElementPtr if u.operand(0) == v => {
                    let off = decompose(td, u.value())?;
                    if off.terms.iter().any(|&(k, _)| uniformity.is_divergent(u.operand(k))) {
                        return None;
                    }
                    geps.push((u, off));
                    work.push(u.value());
                }
                LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast => work.push(u.value()),
                LLVMOpcode::LLVMCall if is_intrinsic(u, "llvm.lifetime.") => {}
                LLVMOpcode::LLVMCall if byte_op_on(u, v).is_some() => byte_ops.push((u, byte_op_on(u, v).expect("checked"))),
                _ => return None,
            }
        }
    }
    let elem = match sizes.into_iter().collect::<Vec<_>>()[..] {
        [s] if s.is_power_of_two() => s as i64,
        _ => return None,
    };
    let multiple = |x: i64| x % elem == 0;
    let aligned = geps.iter().all(|(_, o)| multiple(o.constant) && o.terms.iter().all(|&(_, st)| multiple(st)));
    let fills = byte_ops.iter().all(|(m, _)| {
        let len = m.operand(2).const_u64().unwrap_or(1);
        elem <= 8 && multiple(len as i64) && len / elem as u64 <= MAX_BYTE_OP_ELEMENTS
    });
    (aligned && fills && total % elem as u64 == 0).then_some(Found { elem: elem as u64, geps, accesses, byte_ops })
}

/// The bytes a load or store of `ty` covers, when that is also its
/// allocation size (no padding whose bytes another element would own).
fn access_size(td: &TargetData, ty: crate::ir::Ty<'_>) -> Option<u64> {
    let s = ty.store_size(td);
    (ty.is_sized() && !ty.is_vector() && s == ty.alloc_size(td) && s > 0).then_some(s)
}

/// `gep`'s byte offset as a constant plus index terms; `None` for vector GEPs
/// and offsets that overflow.
fn decompose(td: &TargetData, gep: Value<'_>) -> Option<GepOffset> {
    if gep.ty().is_vector() {
        return None;
    }
    let mut ty = gep.gep_source_element_type();
    let mut out = GepOffset { constant: 0, terms: Vec::new() };
    for k in 1..gep.num_operands() {
        let idx = gep.operand(k);
        if idx.ty().is_vector() {
            return None;
        }
        let (stride, next) = if k == 1 {
            (ty.alloc_size(td), ty)
        } else if ty.is_struct() {
            let f = u32::try_from(idx.const_u64()?).ok()?;
            out.constant = out.constant.checked_add(ty.field_offset(td, f) as i64)?;
            ty = ty.struct_field(f);
            continue;
        } else if ty.is_array() {
            let e = ty.element_type();
            (e.alloc_size(td), e)
        } else {
            return None;
        };
        ty = next;
        let stride = i64::try_from(stride).ok()?;
        if idx.is_constant_int() {
            out.constant = out.constant.checked_add(const_sext(td, idx)?.checked_mul(stride)?)?;
        } else {
            out.terms.push((k, stride));
        }
    }
    Some(out)
}

/// An integer constant, sign-extended to 64 bits (as GEPs read indices).
fn const_sext(td: &TargetData, c: Value<'_>) -> Option<i64> {
    let bits = c.ty().size_in_bits(td);
    let shift = 64u32.checked_sub(u32::try_from(bits).ok()?)?;
    Some(((c.const_u64()? << shift) as i64) >> shift)
}

/// Which operand of `call` is `v`, if `call` is a non-volatile `memset`
/// of `v`, or a `memcpy`/`memmove` between `v` and memory that is no
/// private array (a buffer, local memory: whose bytes are not interleaved),
/// with a constant length.
fn byte_op_on<'ctx>(call: Inst<'ctx>, v: Value<'ctx>) -> Option<u32> {
    let non_volatile = call.num_operands() > 4 && call.operand(3).const_u64() == Some(0);
    if !non_volatile || call.operand(2).const_u64().is_none() {
        return None;
    }
    if is_intrinsic(call, "llvm.memset.") {
        return (call.operand(0) == v && call.operand(1) != v).then_some(0);
    }
    if !is_intrinsic(call, "llvm.memcpy.") && !is_intrinsic(call, "llvm.memmove.") {
        return None;
    }
    let k = [0u32, 1].into_iter().find(|&k| call.operand(k) == v)?;
    not_private(call.operand(1 - k)).then_some(k)
}

/// Whether pointer `p` is, through GEPs and casts, a kernel argument, a
/// global or a loaded pointer: never the address of an `alloca`.
fn not_private(mut p: Value<'_>) -> bool {
    loop {
        if p.is_argument() || p.is_global_variable() {
            return true;
        }
        let Some(i) = p.as_inst() else { return false };
        match i.opcode() {
            LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast => p = i.operand(0),
            LLVMOpcode::LLVMLoad => return true,
            _ => return false,
        }
    }
}

fn is_intrinsic(call: Inst<'_>, prefix: &str) -> bool {
    let callee = call.callee();
    callee.as_function().is_some() && callee.name_bytes().starts_with(prefix.as_bytes())
}
