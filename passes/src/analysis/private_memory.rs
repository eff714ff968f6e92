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

use crate::ir::{Inst, Value};
use inkwell::values::FunctionValue;
use llvm_sys::LLVMOpcode;
use std::collections::{HashMap, HashSet};

/// Index of an object (an `alloca`) in [`PrivateMemory`].
pub type ObjectId = usize;

#[derive(Debug)]
pub struct Object<'ctx> {
    pub alloca: Inst<'ctx>,
    pub escaped: bool,
    /// Loads (and masked loads, gathers) that may read the object.
    pub readers: Vec<Inst<'ctx>>,
    /// Stores and memory intrinsics that may write it.
    pub writers: Vec<Inst<'ctx>>,
}

#[derive(Debug, Default)]
pub struct PrivateMemory<'ctx> {
    pub objects: Vec<Object<'ctx>>,
    /// Objects each write may change.
    written_by: HashMap<Inst<'ctx>, Vec<ObjectId>>,
    /// Loads that may read private memory no object names (an escaped
    /// object, or a private pointer of unknown origin).
    pub unknown_loads: Vec<Inst<'ctx>>,
    /// Values that differ per work-item because they are private addresses
    /// turned into integers (`ptrtoint`), and writes whose data comes from
    /// private memory (`memcpy` from an object): both are divergent whatever
    /// their operands.
    pub divergent_values: Vec<Inst<'ctx>>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Dialect {
    Spir,
    Nvptx,
    Other,
}

impl<'ctx> PrivateMemory<'ctx> {
    pub fn compute(function: FunctionValue<'ctx>) -> PrivateMemory<'ctx> {
        let mut pm = PrivateMemory::default();
        let insts: Vec<Inst<'ctx>> = function.get_basic_block_iter().flat_map(crate::ir::instructions).collect();
        let mut object_of: HashMap<Value<'ctx>, ObjectId> = HashMap::new();
        for &i in &insts {
            if i.opcode() == LLVMOpcode::LLVMAlloca {
                object_of.insert(i.value(), pm.objects.len());
                pm.objects.push(Object { alloca: i, escaped: false, readers: Vec::new(), writers: Vec::new() });
            }
        }
        for id in 0..pm.objects.len() {
            pm.trace_uses(id);
        }
        let any_escape = pm.objects.iter().any(|o| o.escaped);
        let dialect = dialect_of(&crate::ir::target_triple(function));
        let mut roots = Roots { object_of: &object_of, memo: HashMap::new() };
        let private = |p: Value<'_>| may_be_private(dialect, p.address_space().unwrap_or(0), any_escape);
        for &i in &insts {
            let Some(access) = memory_access(i) else { continue };
            let (objects, unknown) = roots.of(access.pointer);
            if access.reads {
                for &o in &objects {
                    pm.objects[o].readers.push(i);
                }
                if (unknown && private(access.pointer)) || objects.iter().any(|&o| pm.objects[o].escaped) {
                    pm.unknown_loads.push(i);
                }
            } else {
                for &o in &objects {
                    pm.objects[o].writers.push(i);
                }
                if let Some(src) = access.source {
                    let (src_objects, src_unknown) = roots.of(src);
                    if !src_objects.is_empty() || (src_unknown && private(src)) {
                        pm.divergent_values.push(i);
                    }
                }
                pm.written_by.insert(i, objects);
            }
        }
        pm
    }

    /// The objects that write `w` (a store or memory intrinsic) may change.
    pub fn objects_written_by(&self, w: Inst<'ctx>) -> &[ObjectId] {
        self.written_by.get(&w).map_or(&[], Vec::as_slice)
    }

    /// Follows every pointer derived from object `id` to its uses, recording
    /// escapes and `ptrtoint`s.
    fn trace_uses(&mut self, id: ObjectId) {
        let mut seen: HashSet<Value<'ctx>> = HashSet::new();
        let mut work = vec![self.objects[id].alloca.value()];
        while let Some(p) = work.pop() {
            if !seen.insert(p) {
                continue;
            }
            for (user, operand) in p.uses() {
                match user.opcode() {
                    LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast | LLVMOpcode::LLVMPHI => {
                        work.push(user.value())
                    }
                    LLVMOpcode::LLVMSelect if operand != 0 => work.push(user.value()),
                    LLVMOpcode::LLVMLoad | LLVMOpcode::LLVMICmp => {}
                    // The pointer operand; storing the address itself escapes.
                    LLVMOpcode::LLVMStore if operand == 1 => {}
                    LLVMOpcode::LLVMPtrToInt => {
                        self.objects[id].escaped = true;
                        self.divergent_values.push(user);
                    }
                    LLVMOpcode::LLVMCall if intrinsic_keeps_private(user, operand) => {}
                    _ => self.objects[id].escaped = true,
                }
            }
        }
    }
}

/// What a memory instruction does with which pointer.
struct Access<'ctx> {
    pointer: Value<'ctx>,
    reads: bool,
    /// For copies: where the data comes from.
    source: Option<Value<'ctx>>,
}

fn memory_access(i: Inst<'_>) -> Option<Access<'_>> {
    match i.opcode() {
        LLVMOpcode::LLVMLoad => Some(Access { pointer: i.operand(0), reads: true, source: None }),
        LLVMOpcode::LLVMStore => Some(Access { pointer: i.operand(1), reads: false, source: None }),
        LLVMOpcode::LLVMCall => {
            let name = i.intrinsic_name()?;
            let write = |k| Some(Access { pointer: i.operand(k), reads: false, source: None });
            if is_masked_read(&name) {
                Some(Access { pointer: i.operand(0), reads: true, source: None })
            } else if is_masked_write(&name) {
                write(1)
            } else if name.starts_with("llvm.memset") {
                write(0)
            } else if is_copy(&name) {
                Some(Access { pointer: i.operand(0), reads: false, source: Some(i.operand(1)) })
            } else {
                None
            }
        }
        _ => None,
    }
}

fn is_masked_read(name: &str) -> bool {
    name.starts_with("llvm.masked.load") || name.starts_with("llvm.masked.gather") || name.starts_with("llvm.masked.expandload")
}

fn is_masked_write(name: &str) -> bool {
    name.starts_with("llvm.masked.store") || name.starts_with("llvm.masked.scatter") || name.starts_with("llvm.masked.compressstore")
}

fn is_copy(name: &str) -> bool {
    name.starts_with("llvm.memcpy") || name.starts_with("llvm.memmove")
}

/// Whether a call to an intrinsic uses its pointer operand `operand` in a way
/// these rules follow (a read, a write, a lifetime mark), so the object does
/// not escape through it.
fn intrinsic_keeps_private(call: Inst<'_>, operand: u32) -> bool {
    let Some(name) = call.intrinsic_name() else { return false };
    name.starts_with("llvm.lifetime.")
        || name.starts_with("llvm.dbg.")
        || name.starts_with("llvm.invariant.")
        || (is_masked_read(&name) && operand == 0)
        || (is_masked_write(&name) && operand == 1)
        || (name.starts_with("llvm.memset") && operand == 0)
        || (is_copy(&name) && operand <= 1)
}

/// The objects a pointer may point into, and whether it may also come from
/// somewhere no object names.
struct Roots<'a, 'ctx> {
    object_of: &'a HashMap<Value<'ctx>, ObjectId>,
    memo: HashMap<Value<'ctx>, (Vec<ObjectId>, bool)>,
}

impl<'ctx> Roots<'_, 'ctx> {
    fn of(&mut self, ptr: Value<'ctx>) -> (Vec<ObjectId>, bool) {
        if let Some(r) = self.memo.get(&ptr) {
            return r.clone();
        }
        let mut objects: Vec<ObjectId> = Vec::new();
        let mut unknown = false;
        let mut seen: HashSet<Value<'ctx>> = HashSet::new();
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
            // A global variable is not private memory, nor is null.
            if p.is_null_or_undef() || p.is_global() {
                continue;
            }
            match p.opcode() {
                Some(LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast) => work.push(p.operand(0)),
                Some(LLVMOpcode::LLVMSelect) => {
                    work.push(p.operand(1));
                    work.push(p.operand(2));
                }
                Some(LLVMOpcode::LLVMPHI) => work.extend(p.as_inst().expect("a phi instruction").incoming_values()),
                _ => unknown = true,
            }
        }
        objects.sort_unstable();
        self.memo.insert(ptr, (objects.clone(), unknown));
        (objects, unknown)
    }
}

fn dialect_of(triple: &str) -> Dialect {
    if triple.starts_with("spir") {
        Dialect::Spir
    } else if triple.starts_with("nvptx") {
        Dialect::Nvptx
    } else {
        Dialect::Other
    }
}

fn may_be_private(dialect: Dialect, space: u32, any_escape: bool) -> bool {
    match (dialect, space) {
        (Dialect::Spir, 0) | (Dialect::Nvptx, 5) => true,
        (Dialect::Spir, 4) | (Dialect::Nvptx, 0) | (Dialect::Other, 0) => any_escape,
        _ => false,
    }
}
