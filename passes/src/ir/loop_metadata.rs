//! Parallel-loop metadata: access groups (`!llvm.access.group`) on memory
//! instructions and the `!llvm.loop` node that declares a loop's iterations
//! independent for them (`llvm.loop.parallel_accesses`), as the loop
//! vectorizer reads them.
//!
//! An access group is a `distinct !{}` node of the context; it lives as long
//! as the context, so its handle carries the context's lifetime.

use super::value::Inst;
use inkwell::module::Module;
use llvm_sys::core::*;
use llvm_sys::debuginfo::{LLVMMetadataReplaceAllUsesWith, LLVMTemporaryMDNode};
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;
use std::collections::HashMap;
use std::marker::PhantomData;

/// A `distinct !{}` node to tag one loop's memory accesses with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccessGroup<'ctx> {
    raw: LLVMMetadataRef,
    _ctx: PhantomData<&'ctx ()>,
}

fn context_of(i: Inst<'_>) -> LLVMContextRef {
    // SAFETY: `i` is a live instruction, so its type and context are live.
    unsafe { LLVMGetTypeContext(LLVMTypeOf(i.raw())) }
}

fn kind(ctx: LLVMContextRef, name: &str) -> u32 {
    // SAFETY: `ctx` is a live context; the name is passed with its length.
    unsafe { LLVMGetMDKindIDInContext(ctx, name.as_ptr().cast(), name.len() as u32) }
}

impl<'ctx> AccessGroup<'ctx> {
    /// A fresh access group in `module`'s context. The C API cannot create
    /// distinct nodes, so one is parsed in a scratch module (nodes belong to
    /// the context and outlive it).
    pub fn new(module: &Module<'ctx>) -> AccessGroup<'ctx> {
        let src = "define void @f(ptr %p) {\n  store i8 0, ptr %p, !llvm.access.group !0\n  ret void\n}\n!0 = distinct !{}\n";
        // SAFETY: `module` is live (inkwell invariant), so is its context.
        // The buffer is a copy, disposed of after parsing (the parser's
        // second version does not take it); the scratch module is read (its
        // one function's first instruction, a store with the group attached,
        // as the source says) and disposed of, while the node, owned by the
        // context, stays.
        unsafe {
            let ctx = LLVMGetModuleContext(module.as_mut_ptr());
            let buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(src.as_ptr().cast(), src.len(), c"access-group".as_ptr());
            let mut m: LLVMModuleRef = std::ptr::null_mut();
            let mut msg = std::ptr::null_mut();
            let failed = llvm_sys::ir_reader::LLVMParseIRInContext2(ctx, buf, &mut m, &mut msg);
            LLVMDisposeMemoryBuffer(buf);
            assert!(failed == 0, "the access-group snippet parses");
            let f = LLVMGetNamedFunction(m, c"f".as_ptr());
            let store = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(f));
            let node = LLVMValueAsMetadata(LLVMGetMetadata(store, kind(ctx, "llvm.access.group")));
            LLVMDisposeModule(m);
            AccessGroup { raw: node, _ctx: PhantomData }
        }
    }
}

impl<'ctx> Inst<'ctx> {
    /// Puts the instruction in access group `group`.
    pub fn set_access_group(self, group: AccessGroup<'ctx>) {
        let ctx = context_of(self);
        // SAFETY: `self` is a live instruction and `group` a live node of its
        // context (both carry `'ctx`).
        unsafe { LLVMSetMetadata(self.raw(), kind(ctx, "llvm.access.group"), LLVMMetadataAsValue(ctx, group.raw)) }
    }

    /// Marks the loop whose latch branch this is as parallel over `group`'s
    /// accesses and as making progress: `!llvm.loop !{self, !{!"llvm.loop.parallel_accesses", group},
    /// !{!"llvm.loop.mustprogress"}}`.
    pub fn mark_parallel_loop(self, group: AccessGroup<'ctx>) {
        self.mark_parallel_loop_with(group, None);
    }

    /// As [`Inst::mark_parallel_loop`], and not to be unrolled by LLVM's
    /// unroller (`llvm.loop.unroll.disable`): a short loop is unrolled
    /// before the vectorizer sees it, into scalar code SLP may not take.
    /// That also stops the vectorizer's own interleaving, so the count it
    /// is to interleave by is given (`llvm.loop.interleave.count`).
    pub fn mark_parallel_rolled_loop(self, group: AccessGroup<'ctx>, interleave: u32) {
        self.mark_parallel_loop_with(group, Some(interleave));
    }

    fn mark_parallel_loop_with(self, group: AccessGroup<'ctx>, rolled: Option<u32>) {
        assert_eq!(self.opcode(), LLVMOpcode::LLVMBr, "loop metadata on a non-branch");
        let ctx = context_of(self);
        // SAFETY: `ctx` is live; the nodes are made from live strings and
        // nodes of it, the temporary one replaced by the node that refers to
        // itself (and so freed) before the node is attached to `self`, a live
        // branch.
        unsafe {
            let md_str = |s: &str| LLVMMDStringInContext2(ctx, s.as_ptr().cast(), s.len());
            let mut pa = [md_str("llvm.loop.parallel_accesses"), group.raw];
            let parallel = LLVMMDNodeInContext2(ctx, pa.as_mut_ptr(), 2);
            let mut mp = [md_str("llvm.loop.mustprogress")];
            let progress = LLVMMDNodeInContext2(ctx, mp.as_mut_ptr(), 1);
            let temp = LLVMTemporaryMDNode(ctx, std::ptr::null_mut(), 0);
            let mut ops = vec![temp, parallel, progress];
            if let Some(count) = rolled {
                let mut p = [md_str("llvm.loop.unroll.disable")];
                ops.push(LLVMMDNodeInContext2(ctx, p.as_mut_ptr(), 1));
                let i32t = LLVMInt32TypeInContext(ctx);
                let mut c = [md_str("llvm.loop.interleave.count"), LLVMValueAsMetadata(LLVMConstInt(i32t, u64::from(count), 0))];
                ops.push(LLVMMDNodeInContext2(ctx, c.as_mut_ptr(), 2));
            }
            let id = LLVMMDNodeInContext2(ctx, ops.as_mut_ptr(), ops.len());
            LLVMMetadataReplaceAllUsesWith(temp, id);
            LLVMSetMetadata(self.raw(), kind(ctx, "llvm.loop"), LLVMMetadataAsValue(ctx, id));
        }
    }
}

impl<'ctx> Inst<'ctx> {
    /// Marks the loop whose latch branch this is as one to keep rolled
    /// (`!llvm.loop !{self, !{!"llvm.loop.unroll.disable"}}`).
    pub fn mark_rolled_loop(self) {
        assert_eq!(self.opcode(), LLVMOpcode::LLVMBr, "loop metadata on a non-branch");
        let ctx = context_of(self);
        // SAFETY: as in `mark_parallel_loop`: live context, nodes from live
        // strings, the temporary node replaced before the node is attached
        // to `self`, a live branch.
        unsafe {
            let name = "llvm.loop.unroll.disable";
            let mut ud = [LLVMMDStringInContext2(ctx, name.as_ptr().cast(), name.len())];
            let disable = LLVMMDNodeInContext2(ctx, ud.as_mut_ptr(), 1);
            let temp = LLVMTemporaryMDNode(ctx, std::ptr::null_mut(), 0);
            let mut ops = [temp, disable];
            let id = LLVMMDNodeInContext2(ctx, ops.as_mut_ptr(), 2);
            LLVMMetadataReplaceAllUsesWith(temp, id);
            LLVMSetMetadata(self.raw(), kind(ctx, "llvm.loop"), LLVMMetadataAsValue(ctx, id));
        }
    }
}

/// The operands of the metadata node `md` (a `MetadataAsValue`), null ones
/// included.
///
/// # Safety
/// `md` must be a live metadata-as-value wrapping an `MDNode`.
unsafe fn node_operands(md: LLVMValueRef) -> Vec<LLVMValueRef> {
    // SAFETY: `md` wraps a live node (the caller's promise); the buffer has
    // room for every operand LLVM reports.
    unsafe {
        let n = LLVMGetMDNodeNumOperands(md) as usize;
        let mut ops = vec![std::ptr::null_mut(); n];
        LLVMGetMDNodeOperands(md, ops.as_mut_ptr());
        ops
    }
}

impl<'ctx> Inst<'ctx> {
    /// Whether this latch's `!llvm.loop` declares the loop parallel
    /// (`llvm.loop.parallel_accesses`, as `simt-wiloops` marks its
    /// work-item loops).
    pub fn is_parallel_loop_latch(self) -> bool {
        self.loop_properties().iter().any(|p| p == "llvm.loop.parallel_accesses")
    }

    /// The names of the properties in this terminator's `!llvm.loop`
    /// (`llvm.loop.unroll.disable`, …); empty without one.
    pub fn loop_properties(self) -> Vec<String> {
        if !self.is_terminator() {
            return Vec::new();
        }
        let ctx = context_of(self);
        // SAFETY: `self` is a live instruction; a non-null `!llvm.loop` is a
        // node whose operands are read as nodes only when they are nodes
        // (`LLVMIsAMDNode`), and strings only through `LLVMGetMDString`,
        // which answers null for anything else.
        unsafe {
            let id = LLVMGetMetadata(self.raw(), kind(ctx, "llvm.loop"));
            if id.is_null() {
                return Vec::new();
            }
            node_operands(id)
                .into_iter()
                .skip(1)
                .filter_map(|prop| {
                    if prop.is_null() || LLVMIsAMDNode(prop).is_null() || LLVMGetMDNodeNumOperands(prop) == 0 {
                        return None;
                    }
                    let first = node_operands(prop)[0];
                    let mut len = 0u32;
                    let s = if first.is_null() { std::ptr::null() } else { LLVMGetMDString(first, &mut len) };
                    (!s.is_null()).then(|| String::from_utf8_lossy(std::slice::from_raw_parts(s.cast::<u8>(), len as usize)).into_owned())
                })
                .collect()
        }
    }

    /// Removes this terminator's `!llvm.loop`.
    pub fn drop_loop_metadata(self) {
        let ctx = context_of(self);
        // SAFETY: `self` is a live instruction; null metadata removes the kind.
        unsafe { LLVMSetMetadata(self.raw(), kind(ctx, "llvm.loop"), std::ptr::null_mut()) }
    }

    /// Gives this terminator's `!llvm.loop` a new distinct loop id with the
    /// same properties (for a copy of a loop: two loops must not share an
    /// id); false when it has none.
    pub fn renew_loop_id(self) -> bool {
        self.renew_loop_id_with(None)
    }

    /// As [`Inst::renew_loop_id`], with the boolean property `name` added
    /// (`llvm.loop.vectorize.enable`, false): the loop is the same loop with
    /// one more hint, under a new id.
    pub fn add_loop_flag(self, name: &str, value: bool) -> bool {
        self.renew_loop_id_with(Some((name, value)))
    }

    fn renew_loop_id_with(self, flag: Option<(&str, bool)>) -> bool {
        let ctx = context_of(self);
        // SAFETY: `self` is a live instruction; its `!llvm.loop` is a node
        // whose operand 0 is itself (LLVM's loop-id form) and whose other
        // operands are read as metadata. The temporary node is replaced by
        // the new node that refers to itself (and so freed) before the new
        // node is attached to `self`.
        unsafe {
            let k = kind(ctx, "llvm.loop");
            let id = LLVMGetMetadata(self.raw(), k);
            if id.is_null() {
                return false;
            }
            let temp = LLVMTemporaryMDNode(ctx, std::ptr::null_mut(), 0);
            let mut ops: Vec<LLVMMetadataRef> = node_operands(id)
                .into_iter()
                .enumerate()
                .map(|(i, op)| {
                    if i == 0 {
                        temp
                    } else if op.is_null() {
                        std::ptr::null_mut()
                    } else {
                        LLVMValueAsMetadata(op)
                    }
                })
                .collect();
            if ops.is_empty() {
                ops.push(temp);
            }
            if let Some((name, value)) = flag {
                let i1 = LLVMInt1TypeInContext(ctx);
                let mut p = [
                    LLVMMDStringInContext2(ctx, name.as_ptr().cast(), name.len()),
                    LLVMValueAsMetadata(LLVMConstInt(i1, u64::from(value), 0)),
                ];
                ops.push(LLVMMDNodeInContext2(ctx, p.as_mut_ptr(), 2));
            }
            let fresh = LLVMMDNodeInContext2(ctx, ops.as_mut_ptr(), ops.len());
            LLVMMetadataReplaceAllUsesWith(temp, fresh);
            LLVMSetMetadata(self.raw(), k, LLVMMetadataAsValue(ctx, fresh));
            true
        }
    }
}

/// [`Inst::renew_loop_id`] for the terminators of a copied region, once per
/// distinct id: latches that shared an id (one loop with several latches)
/// share the new one.
pub fn renew_loop_ids<'ctx>(terminators: impl IntoIterator<Item = Inst<'ctx>>) {
    let mut renewed: HashMap<LLVMValueRef, LLVMValueRef> = HashMap::new();
    for t in terminators {
        let ctx = context_of(t);
        // SAFETY: `t` is a live instruction; `!llvm.loop` attachments are
        // metadata-as-value handles, uniqued per node, so equal pointers
        // mean one id; a handle from `renewed` is a live node of the same
        // context, attached to another copied terminator.
        unsafe {
            let k = kind(ctx, "llvm.loop");
            let id = LLVMGetMetadata(t.raw(), k);
            if id.is_null() {
                continue;
            }
            if let Some(&fresh) = renewed.get(&id) {
                LLVMSetMetadata(t.raw(), k, fresh);
            } else if t.renew_loop_id() {
                renewed.insert(id, LLVMGetMetadata(t.raw(), k));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{instructions, parse_ir, terminator};
    use inkwell::context::Context;

    #[test]
    fn parallel_loop_metadata() {
        let src = "define void @f(ptr %p) {\nentry:\n  br label %l\nl:\n  store i8 0, ptr %p\n  br i1 true, label %l, label %x\nx:\n  ret void\n}\n";
        let ctx = Context::create();
        let m = parse_ir(&ctx, "t.ll", src.as_bytes()).expect("parses");
        let f = m.get_function("f").expect("@f");
        let l = f.get_basic_blocks()[1];
        let group = AccessGroup::new(&m);
        instructions(l).next().expect("store").set_access_group(group);
        terminator(l).expect("br").mark_parallel_loop(group);
        assert!(crate::ir::verify(&m).is_ok());
        let text = m.print_to_string().to_string();
        assert!(text.contains("store i8 0, ptr %p, align 1, !llvm.access.group !0"), "{text}");
        assert!(text.contains("!llvm.loop !1"), "{text}");
        assert!(text.contains("!0 = distinct !{}"), "{text}");
        assert!(text.contains("!1 = distinct !{!1, !2, !3}"), "{text}");
        assert!(text.contains("!2 = !{!\"llvm.loop.parallel_accesses\", !0}"), "{text}");
    }

    #[test]
    fn renewed_loop_ids_are_distinct_with_the_same_properties() {
        let src = "define void @f(ptr %p) {\nentry:\n  br label %l\nl:\n  store i8 0, ptr %p\n  br i1 true, label %l, label %x\nx:\n  br label %m\nm:\n  br i1 true, label %m, label %y\ny:\n  ret void\n}\n";
        let ctx = Context::create();
        let m = parse_ir(&ctx, "t.ll", src.as_bytes()).expect("parses");
        let f = m.get_function("f").expect("@f");
        let (l, mm) = (f.get_basic_blocks()[1], f.get_basic_blocks()[3]);
        let group = AccessGroup::new(&m);
        let (lt, mt) = (terminator(l).expect("br"), terminator(mm).expect("br"));
        assert!(!lt.is_parallel_loop_latch() && !lt.renew_loop_id());
        lt.mark_parallel_loop(group);
        assert!(lt.is_parallel_loop_latch() && !mt.is_parallel_loop_latch());
        // A copy of l's branch (with its loop id) as m's latch, renewed.
        let mut b = crate::ir::Builder::new(mt.value());
        b.position_before(mt);
        let c = b.insert(lt.clone_detached(), b"");
        c.set_successor(0, mm);
        c.set_successor(1, f.get_basic_blocks()[4]);
        mt.erase();
        assert!(c.is_parallel_loop_latch() && c.renew_loop_id() && c.is_parallel_loop_latch());
        assert!(crate::ir::verify(&m).is_ok());
        let text = m.print_to_string().to_string();
        // The id each latch carries, and the node's operands after the id.
        let id = |to: &str| {
            let line = text.lines().find(|x| x.contains(&format!("label %{to}, !llvm.loop"))).unwrap_or_else(|| panic!("{text}"));
            line.rsplit(' ').next().unwrap().to_string()
        };
        let props = |id: &str| {
            let line =
                text.lines().find(|x| x.starts_with(&format!("{id} = distinct !{{{id}, "))).unwrap_or_else(|| panic!("{id}: {text}"));
            line.split_once(", ").unwrap().1.to_string()
        };
        let (old, new) = (id("x"), id("y"));
        assert_ne!(old, new, "{text}");
        assert_eq!(props(&old), props(&new), "{text}");
    }

    #[test]
    #[should_panic(expected = "loop metadata on a non-branch")]
    fn loop_metadata_on_a_store_panics() {
        let src = "define void @f(ptr %p) {\n  store i8 0, ptr %p\n  ret void\n}\n";
        let ctx = Context::create();
        let m = parse_ir(&ctx, "t.ll", src.as_bytes()).expect("parses");
        let f = m.get_function("f").expect("@f");
        let group = AccessGroup::new(&m);
        instructions(f.get_first_basic_block().expect("entry")).next().expect("store").mark_parallel_loop(group);
    }
}
