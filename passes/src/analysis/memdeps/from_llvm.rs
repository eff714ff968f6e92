//! Memory descriptors from LLVM IR: which objects a function touches, and
//! what each memory instruction uses and defines.
//!
//! Objects (the patent's variables) are allocas, globals, `noalias`
//! arguments, and `?`, the memory no name reaches (what a plain pointer
//! argument or a loaded pointer points to). A pointer is traced back through
//! GEPs and casts to its object; constant GEPs give an exact offset, and with
//! the access size an exact descriptor. Anything else (a variable index, a
//! `phi` or `select` of pointers into one object) is inexact; pointers into
//! several objects, or of unknown origin, have no must-descriptor and may
//! touch each of them, and an unknown pointer may also touch `?`, every
//! global and every object whose address escapes. Calls that may access
//! memory may use (and, unless read-only, define) that same set.
//!
//! Memory instructions: loads and stores of any type, fences (a use of
//! everything an unknown pointer reaches), `atomicrmw`
//! (use and def), `cmpxchg` (use, predicated def), `memcpy`/`memmove`
//! (use of the source, then def of the destination), `memset`, masked loads
//! and stores (predicated), gathers and scatters (unknown pointers), calls.
//! Limits: a length that is not a constant makes a memory intrinsic inexact;
//! `lifetime`, `assume` and debug intrinsics are not memory instructions.

use super::fills;
use super::model::{Access, Fill, ObjId, Program, Range, Ref};
use crate::analysis::dominators::DomTree;
use crate::function_cfg::FunctionCfg;
use crate::ir::{data_layout_of, CallMemory, Inst, SlotNames, Value};
use inkwell::targets::TargetData;
use llvm_sys::LLVMOpcode;
use std::collections::{BTreeSet, HashMap, HashSet};

/// A pointer traced back: each origin with its offset when constant.
#[derive(Default)]
struct Origins<'ctx> {
    roots: Vec<(Value<'ctx>, Option<i64>)>,
}

/// What one instruction touches, before objects are numbered.
struct Touch<'ctx> {
    ptr: Value<'ctx>,
    /// Bytes touched, when known.
    size: Option<u64>,
}

enum Effect<'ctx> {
    Ptr(Touch<'ctx>),
    /// A call or a gather/scatter: whatever an unknown pointer reaches.
    Anything,
}

struct Classified<'ctx> {
    inst: Inst<'ctx>,
    block: usize,
    use_: Option<Effect<'ctx>>,
    def: Option<Effect<'ctx>>,
    predicated: bool,
}

/// The program of `fc`'s function, the instruction behind each access, and
/// the value behind each object (`None` for `?`).
#[allow(clippy::type_complexity)]
pub fn build<'ctx>(fc: &FunctionCfg<'ctx>, dom: &DomTree) -> (Program, Vec<Inst<'ctx>>, Vec<Option<Value<'ctx>>>) {
    let td = data_layout_of(fc.function);
    let names = SlotNames::new(fc.function);
    let mut found: Vec<Classified<'ctx>> = Vec::new();
    for (b, &bb) in fc.blocks().iter().enumerate() {
        for i in crate::ir::instructions(bb) {
            if let Some((use_, def, predicated)) = classify(i, &td) {
                found.push(Classified { inst: i, block: b, use_, def, predicated });
            }
        }
    }

    let mut objs = Objects::default();
    for p in crate::ir::parameters(fc.function) {
        if p.is_noalias_argument() {
            objs.object(p, &td, &names);
        }
    }
    for &bb in fc.blocks() {
        for i in crate::ir::instructions(bb) {
            if i.is_alloca() {
                objs.object(i.value(), &td, &names);
            }
        }
    }
    // Resolve every pointer first: the set an unknown pointer may reach
    // depends on every object the function names.
    let mut memo: HashMap<Value<'ctx>, Origins<'ctx>> = HashMap::new();
    let mut any_unknown = false;
    for c in &found {
        for e in [&c.use_, &c.def].into_iter().flatten() {
            match e {
                Effect::Ptr(t) => {
                    let o = memo.entry(t.ptr).or_insert_with(|| origins(t.ptr, &td));
                    for &(root, _) in &o.roots {
                        if is_object(root) {
                            objs.object(root, &td, &names);
                        } else {
                            any_unknown = true;
                        }
                    }
                }
                Effect::Anything => any_unknown = true,
            }
        }
    }
    let mut program = Program { blocks: vec![Vec::new(); fc.blocks().len()], ..Program::default() };
    for (name, size) in &objs.list {
        program.add_object(name.clone(), *size);
    }
    let unknown: Vec<ObjId> = if any_unknown {
        let other = program.add_object("?", None);
        let mut reach: Vec<ObjId> =
            objs.values.iter().enumerate().filter(|(_, v)| v.is_global() || escapes(**v)).map(|(k, _)| k as ObjId).collect();
        reach.push(other);
        reach
    } else {
        Vec::new()
    };

    let mut insts = Vec::new();
    let mut block_of = Vec::with_capacity(found.len());
    for c in found {
        let mut reference = |e: &Effect<'ctx>| -> Ref {
            let t = match e {
                Effect::Anything => return Ref::May(unknown.clone()),
                Effect::Ptr(t) => t,
            };
            let o = &memo[&t.ptr];
            let mut set: BTreeSet<ObjId> = BTreeSet::new();
            for &(root, _) in &o.roots {
                match objs.index.get(&root) {
                    Some(&k) => {
                        set.insert(k);
                    }
                    None => set.extend(unknown.iter().copied()),
                }
            }
            if set.len() != 1 || o.roots.iter().any(|&(r, _)| !objs.index.contains_key(&r)) {
                return Ref::May(set.into_iter().collect());
            }
            let obj = *set.iter().next().expect("one object");
            let exact = match (o.roots.as_slice(), t.size) {
                ([(_, Some(off))], Some(size)) if *off >= 0 && size > 0 => {
                    let (lo, hi) = (*off as u64, *off as u64 + size - 1);
                    program.objects[obj as usize].size.is_none_or(|n| hi < n).then_some((lo, hi))
                }
                _ => None,
            };
            Ref::Must(program.desc(obj, exact.map_or(Range::Inexact, |(lo, hi)| Range::Exact(lo, hi))))
        };
        let use_ = c.use_.as_ref().map(&mut reference);
        let def = c.def.as_ref().map(&mut reference);
        program.push_access(c.block, Access { use_, def, predicated: c.predicated });
        insts.push(c.inst);
        block_of.push(c.block);
    }
    // Each loop fill kills its bytes on its exit edge; what wrote them last
    // is one of the loop's own definitions of the object.
    for f in fills::find(fc, dom, &td) {
        let Some(&obj) = objs.index.get(&f.root) else { continue };
        let in_loop: HashSet<usize> = f.blocks.iter().map(|b| b.index()).collect();
        let defs: Vec<u32> = (0..program.accesses.len())
            .filter(|&a| {
                in_loop.contains(&block_of[a])
                    && match &program.accesses[a].def {
                        Some(Ref::Must(d)) => program.descs[*d as usize].obj == obj,
                        Some(Ref::May(objs)) => objs.contains(&obj),
                        None => false,
                    }
            })
            .map(|a| a as u32)
            .collect();
        for &(lo, hi) in f.bytes.runs() {
            let desc = program.desc(obj, Range::Exact(lo, hi));
            program.fills.push(Fill { from: f.from.index(), to: f.to.index(), desc, defs: defs.clone() });
        }
    }
    let mut values: Vec<Option<Value<'ctx>>> = objs.values.iter().copied().map(Some).collect();
    values.resize(program.objects.len(), None);
    (program, insts, values)
}

#[derive(Default)]
struct Objects<'ctx> {
    index: HashMap<Value<'ctx>, ObjId>,
    values: Vec<Value<'ctx>>,
    list: Vec<(String, Option<u64>)>,
}

impl<'ctx> Objects<'ctx> {
    fn object(&mut self, v: Value<'ctx>, td: &TargetData, names: &SlotNames) -> ObjId {
        if let Some(&k) = self.index.get(&v) {
            return k;
        }
        let name = if v.is_global() { format!("@{}", v.name()) } else { names.of_value(v.raw()).to_string() };
        let size = object_size(v, td);
        let k = self.list.len() as ObjId;
        self.list.push((name, size));
        self.values.push(v);
        self.index.insert(v, k);
        k
    }
}

/// The size in bytes of an object (alloca, global or argument), when known.
pub(super) fn object_size(v: Value<'_>, td: &TargetData) -> Option<u64> {
    if v.is_global() {
        let ty = v.global_value_type();
        ty.is_sized().then(|| ty.alloc_size(td)).filter(|&n| n > 0)
    } else if let Some(i) = v.as_inst() {
        let ty = i.allocated_type();
        i.alloca_count().filter(|_| ty.is_sized()).map(|n| n * ty.alloc_size(td))
    } else {
        None
    }
}

/// Allocas, global variables and `noalias` arguments are objects.
pub(super) fn is_object(v: Value<'_>) -> bool {
    v.as_inst().is_some_and(|i| i.is_alloca()) || v.is_global_variable() || v.is_noalias_argument()
}

/// The use and the definition of a memory instruction, and whether the
/// definition is predicated; `None` for other instructions.
#[allow(clippy::type_complexity)]
fn classify<'ctx>(i: Inst<'ctx>, td: &TargetData) -> Option<(Option<Effect<'ctx>>, Option<Effect<'ctx>>, bool)> {
    let sized = |ty: crate::ir::Ty<'_>| ty.is_sized().then(|| ty.store_size(td));
    let at = |ptr: Value<'ctx>, size: Option<u64>| Some(Effect::Ptr(Touch { ptr, size }));
    match i.opcode() {
        LLVMOpcode::LLVMLoad => Some((at(i.operand(0), sized(i.ty())), None, false)),
        LLVMOpcode::LLVMStore => Some((None, at(i.operand(1), sized(i.operand(0).ty())), false)),
        LLVMOpcode::LLVMAtomicRMW => {
            let size = sized(i.operand(1).ty());
            Some((at(i.operand(0), size), at(i.operand(0), size), false))
        }
        LLVMOpcode::LLVMAtomicCmpXchg => {
            let size = sized(i.operand(1).ty());
            Some((at(i.operand(0), size), at(i.operand(0), size), true))
        }
        LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr => classify_call(i, td),
        // Orders other threads' accesses around it: it reads what they may see.
        LLVMOpcode::LLVMFence => Some((Some(Effect::Anything), None, false)),
        _ => None,
    }
}

#[allow(clippy::type_complexity)]
fn classify_call<'ctx>(i: Inst<'ctx>, td: &TargetData) -> Option<(Option<Effect<'ctx>>, Option<Effect<'ctx>>, bool)> {
    let at = |ptr: Value<'ctx>, size: Option<u64>| Some(Effect::Ptr(Touch { ptr, size }));
    if let Some(name) = i.intrinsic_name() {
        let is = |p: &str| name.starts_with(p);
        if is("llvm.memcpy") || is("llvm.memmove") {
            let len = i.operand(2).const_u64();
            return Some((at(i.operand(1), len), at(i.operand(0), len), false));
        }
        if is("llvm.memset") {
            return Some((None, at(i.operand(0), i.operand(2).const_u64()), false));
        }
        if is("llvm.masked.store") {
            return Some((None, at(i.operand(1), Some(i.operand(0).ty().store_size(td))), true));
        }
        if is("llvm.masked.load") {
            return Some((at(i.operand(0), Some(i.ty().store_size(td))), None, false));
        }
        if is("llvm.masked.gather") {
            return Some((Some(Effect::Anything), None, false));
        }
        if is("llvm.masked.scatter") {
            return Some((None, Some(Effect::Anything), true));
        }
        if ["llvm.lifetime", "llvm.dbg", "llvm.assume", "llvm.experimental.noalias", "llvm.invariant", "llvm.sideeffect"]
            .iter()
            .any(|p| is(p))
        {
            return None;
        }
    }
    match i.call_memory() {
        CallMemory::None => None,
        CallMemory::ReadOnly => Some((Some(Effect::Anything), None, false)),
        CallMemory::Any => Some((Some(Effect::Anything), Some(Effect::Anything), false)),
    }
}

/// Strips GEPs and casts, accumulating constant offsets.
fn strip<'ctx>(mut v: Value<'ctx>, td: &TargetData) -> (Value<'ctx>, Option<i64>) {
    let mut off = Some(0i64);
    loop {
        match v.opcode() {
            Some(LLVMOpcode::LLVMGetElementPtr) => {
                off = off.zip(v.gep_constant_offset(td)).and_then(|(a, b)| a.checked_add(b));
                v = v.operand(0);
            }
            Some(LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast) => v = v.operand(0),
            _ => return (v, off),
        }
    }
}

/// Every origin of a pointer, through `phi` and `select` (whose offsets are
/// then unknown).
fn origins<'ctx>(ptr: Value<'ctx>, td: &TargetData) -> Origins<'ctx> {
    let mut out = Origins::default();
    let mut seen: HashSet<Value<'ctx>> = HashSet::new();
    let mut work = vec![(ptr, true)];
    while let Some((v, direct)) = work.pop() {
        let (root, off) = strip(v, td);
        if !seen.insert(root) {
            continue;
        }
        match root.as_inst().map(|i| i.opcode()) {
            Some(LLVMOpcode::LLVMPHI) => {
                work.extend(root.as_inst().expect("phi").incoming_values().into_iter().map(|x| (x, false)));
            }
            Some(LLVMOpcode::LLVMSelect) => {
                work.push((root.operand(1), false));
                work.push((root.operand(2), false));
            }
            _ => out.roots.push((root, if direct { off } else { None })),
        }
    }
    // One origin reached along two paths (a phi of &a[0] and &a[4]) has no one offset.
    out.roots.sort_by_key(|r| r.0);
    out.roots.dedup_by(|a, b| {
        if a.0 == b.0 {
            b.1 = None;
            true
        } else {
            false
        }
    });
    out
}

/// Whether an object's address may reach code this analysis cannot see
/// (stored, passed to a call, turned into an integer, returned).
pub fn escapes(obj: Value<'_>) -> bool {
    let mut seen: HashSet<Value<'_>> = HashSet::new();
    let mut work = vec![obj];
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        for (user, k) in v.uses() {
            let harmless = match user.opcode() {
                LLVMOpcode::LLVMLoad | LLVMOpcode::LLVMICmp => true,
                LLVMOpcode::LLVMStore => k == 1,
                LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg => k == 0,
                LLVMOpcode::LLVMGetElementPtr
                | LLVMOpcode::LLVMBitCast
                | LLVMOpcode::LLVMAddrSpaceCast
                | LLVMOpcode::LLVMPHI
                | LLVMOpcode::LLVMSelect => {
                    work.push(user.value());
                    true
                }
                LLVMOpcode::LLVMCall => user.intrinsic_name().is_some_and(|n| {
                    ["llvm.memcpy", "llvm.memmove", "llvm.memset", "llvm.masked.load", "llvm.masked.store", "llvm.lifetime"]
                        .iter()
                        .any(|p| n.starts_with(p))
                }),
                _ => false,
            };
            if !harmless {
                return true;
            }
        }
    }
    false
}
