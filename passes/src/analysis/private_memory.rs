//! Which memory accesses of a function may touch its private memory (its
//! `alloca`s), and which of those objects nobody outside can see.
//!
//! Every work-item has its own copy of a function's allocas, so the contents
//! of private memory differ between work-items exactly when what was stored
//! there did: a load from private memory is uniform only if its address is
//! uniform and every write that may reach it stored a uniform value at a
//! uniform address under uniform control. The uniformity analysis needs, for
//! that rule, the objects each load may read and the writes to each object.
//!
//! Pointers are traced through `getelementptr`, casts, `select` and `phi`
//! (a `select` between two private arrays reads both). An object **escapes**
//! when its address goes anywhere these rules cannot follow: stored to
//! memory, passed to a call other than the memory intrinsics, turned into an
//! integer, returned, used by an atomic. Anything may then write it, and a
//! pointer of unknown origin may point into it, so its loads are divergent.
//!
//! A pointer whose origin is not an alloca (an argument, a loaded pointer)
//! may point to private memory if its address space says so — OpenCL's
//! `private` (0 on `spir64`), NVPTX's `local` (5) — or if it is generic
//! (4 on `spir64`, 0 elsewhere) and some object of the function escapes.
//!
//! Limits: flow-insensitive (a write anywhere in the function counts for every
//! load of the object, before or after it); an alloca's initial contents are
//! undefined and not tracked. Both err on the side of "divergent".

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;
use std::collections::{HashMap, HashSet};

/// Index of an object (an `alloca`) in [`PrivateMemory`].
pub type ObjectId = usize;

#[derive(Debug, Default)]
pub struct Object {
    pub alloca: LLVMValueRef,
    pub escaped: bool,
    /// Loads (and masked loads, gathers) that may read the object.
    pub readers: Vec<LLVMValueRef>,
    /// Stores and memory intrinsics that may write it.
    pub writers: Vec<LLVMValueRef>,
}

#[derive(Debug, Default)]
pub struct PrivateMemory {
    pub objects: Vec<Object>,
    /// Objects each write may change.
    written_by: HashMap<LLVMValueRef, Vec<ObjectId>>,
    /// Loads that may read private memory no object names (an escaped
    /// object, or a private pointer of unknown origin).
    pub unknown_loads: Vec<LLVMValueRef>,
    /// Values that differ per work-item because they are private addresses
    /// turned into integers (`ptrtoint`), and writes whose data comes from
    /// private memory (`memcpy` from an object): both are divergent whatever
    /// their operands.
    pub divergent_values: Vec<LLVMValueRef>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Dialect {
    Spir,
    Nvptx,
    Other,
}

impl PrivateMemory {
    pub fn compute(function: LLVMValueRef) -> PrivateMemory {
        let mut pm = PrivateMemory::default();
        let insts = instructions(function);
        let mut object_of: HashMap<LLVMValueRef, ObjectId> = HashMap::new();
        for &i in &insts {
            if unsafe { !LLVMIsAAllocaInst(i).is_null() } {
                object_of.insert(i, pm.objects.len());
                pm.objects.push(Object { alloca: i, ..Object::default() });
            }
        }
        for id in 0..pm.objects.len() {
            pm.trace_uses(id);
        }
        let any_escape = pm.objects.iter().any(|o| o.escaped);
        let dialect = dialect_of(function);
        let mut roots = Roots { object_of: &object_of, memo: HashMap::new() };
        for &i in &insts {
            let Some(access) = memory_access(i) else { continue };
            let (objects, unknown) = roots.of(access.pointer);
            let unknown_private = unknown && may_be_private(dialect, address_space(access.pointer), any_escape);
            if access.reads {
                for &o in &objects {
                    pm.objects[o].readers.push(i);
                }
                if unknown_private || objects.iter().any(|&o| pm.objects[o].escaped) {
                    pm.unknown_loads.push(i);
                }
            } else {
                for &o in &objects {
                    pm.objects[o].writers.push(i);
                }
                if let Some(src) = access.source {
                    let (src_objects, src_unknown) = roots.of(src);
                    if !src_objects.is_empty()
                        || (src_unknown && may_be_private(dialect, address_space(src), any_escape))
                    {
                        pm.divergent_values.push(i);
                    }
                }
                pm.written_by.insert(i, objects);
            }
        }
        pm
    }

    /// The objects that write `w` (a store or memory intrinsic) may change.
    pub fn objects_written_by(&self, w: LLVMValueRef) -> &[ObjectId] {
        self.written_by.get(&w).map_or(&[], Vec::as_slice)
    }

    /// Follows every pointer derived from object `id` to its uses, recording
    /// escapes and `ptrtoint`s.
    fn trace_uses(&mut self, id: ObjectId) {
        let mut seen: HashSet<LLVMValueRef> = HashSet::new();
        let mut work = vec![self.objects[id].alloca];
        while let Some(p) = work.pop() {
            if !seen.insert(p) {
                continue;
            }
            for (user, operand) in uses(p) {
                unsafe {
                    match LLVMGetInstructionOpcode(user) {
                        LLVMOpcode::LLVMGetElementPtr
                        | LLVMOpcode::LLVMBitCast
                        | LLVMOpcode::LLVMAddrSpaceCast
                        | LLVMOpcode::LLVMPHI => work.push(user),
                        LLVMOpcode::LLVMSelect if operand != 0 => work.push(user),
                        LLVMOpcode::LLVMLoad | LLVMOpcode::LLVMICmp => {}
                        // The pointer operand; storing the address itself escapes.
                        LLVMOpcode::LLVMStore if operand == 1 => {}
                        LLVMOpcode::LLVMPtrToInt => {
                            self.objects[id].escaped = true;
                            self.divergent_values.push(user);
                        }
                        LLVMOpcode::LLVMCall => match intrinsic_role(user, operand) {
                            Some(_) => {}
                            None => self.objects[id].escaped = true,
                        },
                        _ => self.objects[id].escaped = true,
                    }
                }
            }
        }
    }
}

/// What a memory instruction does with which pointer.
struct Access {
    pointer: LLVMValueRef,
    reads: bool,
    /// For copies: where the data comes from.
    source: Option<LLVMValueRef>,
}

fn memory_access(i: LLVMValueRef) -> Option<Access> {
    unsafe {
        match LLVMGetInstructionOpcode(i) {
            LLVMOpcode::LLVMLoad => Some(Access { pointer: LLVMGetOperand(i, 0), reads: true, source: None }),
            LLVMOpcode::LLVMStore => Some(Access { pointer: LLVMGetOperand(i, 1), reads: false, source: None }),
            LLVMOpcode::LLVMCall => {
                let name = crate::ir::called_function_name(i)?;
                let arg = |k: u32| LLVMGetOperand(i, k);
                if is_masked_read(&name) {
                    Some(Access { pointer: arg(0), reads: true, source: None })
                } else if name.starts_with("llvm.masked.store") || name.starts_with("llvm.masked.scatter") {
                    Some(Access { pointer: arg(1), reads: false, source: None })
                } else if name.starts_with("llvm.memset") {
                    Some(Access { pointer: arg(0), reads: false, source: None })
                } else if name.starts_with("llvm.memcpy") || name.starts_with("llvm.memmove") {
                    Some(Access { pointer: arg(0), reads: false, source: Some(arg(1)) })
                } else {
                    None
                }
            }
            _ => None,
        }
    }
}

fn is_masked_read(name: &str) -> bool {
    name.starts_with("llvm.masked.load") || name.starts_with("llvm.masked.gather") || name.starts_with("llvm.masked.expandload")
}

/// How a call to an intrinsic uses its pointer operand `operand`, if the
/// pointer does not escape through it: `Some(true)` reads, `Some(false)`
/// writes or only marks (lifetime).
fn intrinsic_role(call: LLVMValueRef, operand: u32) -> Option<bool> {
    let name = crate::ir::called_function_name(call)?;
    if name.starts_with("llvm.lifetime.") || name.starts_with("llvm.dbg.") || name.starts_with("llvm.invariant.") {
        return Some(false);
    }
    if is_masked_read(&name) && operand == 0 {
        return Some(true);
    }
    if (name.starts_with("llvm.masked.store") || name.starts_with("llvm.masked.scatter")) && operand == 1 {
        return Some(false);
    }
    if name.starts_with("llvm.memset") && operand == 0 {
        return Some(false);
    }
    if name.starts_with("llvm.memcpy") || name.starts_with("llvm.memmove") {
        return match operand {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        };
    }
    None
}

/// The objects a pointer may point into, and whether it may also come from
/// somewhere no object names.
struct Roots<'a> {
    object_of: &'a HashMap<LLVMValueRef, ObjectId>,
    memo: HashMap<LLVMValueRef, (Vec<ObjectId>, bool)>,
}

impl Roots<'_> {
    fn of(&mut self, ptr: LLVMValueRef) -> (Vec<ObjectId>, bool) {
        if let Some(r) = self.memo.get(&ptr) {
            return r.clone();
        }
        let mut objects: Vec<ObjectId> = Vec::new();
        let mut unknown = false;
        let mut seen: HashSet<LLVMValueRef> = HashSet::new();
        let mut work = vec![ptr];
        while let Some(p) = work.pop() {
            if !seen.insert(p) {
                continue;
            }
            if let Some(&o) = self.object_of.get(&p) {
                if !objects.contains(&o) {
                    objects.push(o);
                }
                continue;
            }
            unsafe {
                if !LLVMIsAConstantPointerNull(p).is_null() || !LLVMIsAUndefValue(p).is_null() {
                    continue;
                }
                if !LLVMIsAGlobalValue(p).is_null() {
                    continue; // a global variable is not private memory
                }
                let opcode = if !LLVMIsAInstruction(p).is_null() {
                    Some(LLVMGetInstructionOpcode(p))
                } else if !LLVMIsAConstantExpr(p).is_null() {
                    Some(LLVMGetConstOpcode(p))
                } else {
                    None
                };
                match opcode {
                    Some(LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast) => {
                        work.push(LLVMGetOperand(p, 0))
                    }
                    Some(LLVMOpcode::LLVMSelect) => {
                        work.push(LLVMGetOperand(p, 1));
                        work.push(LLVMGetOperand(p, 2));
                    }
                    Some(LLVMOpcode::LLVMPHI) => {
                        for k in 0..LLVMCountIncoming(p) {
                            work.push(LLVMGetIncomingValue(p, k));
                        }
                    }
                    _ => unknown = true,
                }
            }
        }
        objects.sort_unstable();
        self.memo.insert(ptr, (objects.clone(), unknown));
        (objects, unknown)
    }
}

fn dialect_of(function: LLVMValueRef) -> Dialect {
    unsafe {
        let module = LLVMGetGlobalParent(function);
        let triple = LLVMGetTarget(module);
        let triple = if triple.is_null() { "" } else { std::ffi::CStr::from_ptr(triple).to_str().unwrap_or("") };
        if triple.starts_with("spir") {
            Dialect::Spir
        } else if triple.starts_with("nvptx") {
            Dialect::Nvptx
        } else {
            Dialect::Other
        }
    }
}

fn address_space(ptr: LLVMValueRef) -> u32 {
    unsafe {
        let ty = LLVMTypeOf(ptr);
        if LLVMGetTypeKind(ty) == llvm_sys::LLVMTypeKind::LLVMPointerTypeKind {
            LLVMGetPointerAddressSpace(ty)
        } else {
            // A vector of pointers (gather): its element type's space.
            LLVMGetPointerAddressSpace(LLVMGetElementType(ty))
        }
    }
}

fn may_be_private(dialect: Dialect, space: u32, any_escape: bool) -> bool {
    match (dialect, space) {
        (Dialect::Spir, 0) | (Dialect::Nvptx, 5) => true,
        (Dialect::Spir, 4) | (Dialect::Nvptx, 0) | (Dialect::Other, 0) => any_escape,
        _ => false,
    }
}

fn instructions(function: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    unsafe {
        let mut bb = LLVMGetFirstBasicBlock(function);
        while !bb.is_null() {
            let mut i = LLVMGetFirstInstruction(bb);
            while !i.is_null() {
                out.push(i);
                i = LLVMGetNextInstruction(i);
            }
            bb = LLVMGetNextBasicBlock(bb);
        }
    }
    out
}

/// The instructions using `v`, with the operand index of each use.
fn uses(v: LLVMValueRef) -> Vec<(LLVMValueRef, u32)> {
    let mut out = Vec::new();
    unsafe {
        let mut u = LLVMGetFirstUse(v);
        while !u.is_null() {
            let user = LLVMGetUser(u);
            u = LLVMGetNextUse(u);
            if LLVMIsAInstruction(user).is_null() {
                continue;
            }
            let n = LLVMGetNumOperands(user);
            for k in 0..n.max(0) as u32 {
                if LLVMGetOperand(user, k) == v {
                    out.push((user, k));
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}
