//! A copy of a loop's blocks, for passes that keep two versions of a loop
//! behind a run-time test (`simt-wiloops-version`: a copy without bounds
//! checks; `simt-lockstep-loops`: the original loop as the fallback).
//!
//! ```text
//!        P                      P ── test ──┐
//!        ▼                      ▼           ▼
//!   ┌──▶ H                 ┌──▶ H      ┌──▶ H.sfx      (the copy: same
//!   │    ⋮        ==>      │    ⋮      │    ⋮           shape, its own
//!   └─── L                 └─── L      └─── L.sfx       values)
//!        ▼                      ▼           ▼
//!        E                      E ◀─────────┘  (the caller joins them)
//! ```
//!
//! Inside the copy, every operand and phi entry that names a block or value
//! of the loop names its copy; everything from outside stays, so the copy
//! reads the same values from before the loop, and its exits branch to the
//! same blocks as the original's. Wiring the entry and joining the exits is
//! the caller's: it alone knows the test. The caller must first put the
//! loop in loop-closed form ([`super::lcssa::close_over_exit`]) when values
//! of the loop are used after it, so that those uses can be joined.
//!
//! Loop ids: each copied `!llvm.loop` is renewed, since two loops must not
//! share one distinct id (LLVM's `LoopVersioning` does the same); the hints
//! in it are kept, and latches that shared an id share the new one.

use crate::ir::{insert_block_before, instructions, renew_loop_ids, Builder, Inst, Value};
use inkwell::basic_block::BasicBlock;
use std::collections::HashMap;

/// Where the copied blocks go in the function's block list.
#[derive(Clone, Copy, Debug)]
pub enum Place<'c> {
    /// Just before this block.
    Before(BasicBlock<'c>),
    /// After the function's last block.
    End,
}

/// The copy of a loop: its blocks and values, each keyed by the original.
pub struct LoopCopy<'c> {
    blocks: HashMap<BasicBlock<'c>, BasicBlock<'c>>,
    values: HashMap<Value<'c>, Value<'c>>,
    /// The copied instructions, in the order of the loop's blocks.
    insts: Vec<Inst<'c>>,
}

impl<'c> LoopCopy<'c> {
    /// Copies `blocks` (a loop, any order) to `place`. Names get `.suffix`
    /// (unnamed values stay unnamed). A phi entry from `entered_from.0`, a
    /// block outside the loop, comes from `entered_from.1` in the copy.
    pub fn make(
        blocks: &[BasicBlock<'c>],
        place: Place<'c>,
        suffix: &str,
        entered_from: Option<(BasicBlock<'c>, BasicBlock<'c>)>,
    ) -> LoopCopy<'c> {
        let first = *blocks.first().expect("a loop has blocks");
        let f = first.get_parent().expect("a block of a function");
        let suffixed = |name: &[u8]| {
            let s = String::from_utf8_lossy(name);
            if s.is_empty() {
                String::new()
            } else {
                format!("{s}.{suffix}")
            }
        };
        let new_block = |b: BasicBlock<'c>| {
            let name = suffixed(b.get_name().to_bytes());
            match place {
                Place::Before(at) => insert_block_before(at, &name),
                Place::End => f.get_type().get_context().append_basic_block(f, &name),
            }
        };
        let blocks_map: HashMap<_, _> = blocks.iter().map(|&b| (b, new_block(b))).collect();
        let mut values = HashMap::new();
        let mut pairs: Vec<(Inst<'c>, Inst<'c>)> = Vec::new();
        let mut bld = Builder::new(Value::from(f));
        // Two passes: a use may come before its definition in `blocks`'
        // order (a phi's back edge, or blocks not in dominance order), so
        // operands are mapped once every value has its copy.
        for &bb in blocks {
            bld.position_at_end(blocks_map[&bb]);
            for i in instructions(bb) {
                let name = suffixed(&i.value().name_bytes());
                let c = if i.is_phi() { bld.phi(i.ty(), &name) } else { bld.insert(i.clone_detached(), name.as_bytes()) };
                values.insert(i.value(), c.value());
                pairs.push((i, c));
            }
        }
        let copy = LoopCopy { blocks: blocks_map, values, insts: pairs.iter().map(|&(_, c)| c).collect() };
        let entry = |from: BasicBlock<'c>| match entered_from {
            Some((old, new)) if from == old => new,
            _ => copy.block(from),
        };
        for (i, c) in pairs {
            if i.is_phi() {
                let entries: Vec<_> = i.incoming().into_iter().map(|(v, from)| (copy.value(v), entry(from))).collect();
                c.add_incoming(&entries);
                continue;
            }
            for k in 0..c.num_operands() {
                let o = c.operand(k);
                let mapped = match o.as_block() {
                    Some(bb) => Value::of_block(copy.block(bb)),
                    None => copy.value(o),
                };
                if mapped != o {
                    c.set_operand(k, mapped);
                }
            }
        }
        renew_loop_ids(copy.instructions().filter(|i| i.is_terminator()));
        copy
    }

    /// The copy of a block of the loop; any other block itself.
    pub fn block(&self, b: BasicBlock<'c>) -> BasicBlock<'c> {
        self.blocks.get(&b).copied().unwrap_or(b)
    }

    /// The copy of a value of the loop; any other value itself.
    pub fn value(&self, v: Value<'c>) -> Value<'c> {
        self.values.get(&v).copied().unwrap_or(v)
    }

    /// The copies of the loop's instructions, in the order of its blocks.
    pub fn instructions(&self) -> impl Iterator<Item = Inst<'c>> + '_ {
        self.insts.iter().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{parse_ir, terminator, verify};
    use inkwell::context::Context;

    /// A loop with two latches sharing one id, and a value (`%n`) defined
    /// in a block listed after one that uses it.
    const SRC: &str = "define i32 @f(i32 %k, ptr %p) {
entry:
  br label %h
h:
  %i = phi i32 [ 0, %entry ], [ %n, %a ], [ %n, %b ]
  br label %body
body:
  %n = add i32 %i, 1
  store i32 %n, ptr %p
  %c = icmp ult i32 %n, %k
  br i1 %c, label %a, label %b
a:
  %ca = icmp ult i32 %n, 100
  br i1 %ca, label %h, label %x, !llvm.loop !0
b:
  %cb = icmp ult i32 %n, 200
  br i1 %cb, label %h, label %x, !llvm.loop !0
x:
  %r = phi i32 [ %n, %a ], [ %n, %b ]
  ret i32 %r
}
!0 = distinct !{!0, !1}
!1 = !{!\"llvm.loop.mustprogress\"}
";

    #[test]
    fn copies_map_every_use_and_renew_shared_ids_once() {
        let ctx = Context::create();
        let m = parse_ir(&ctx, "t.ll", SRC.as_bytes()).expect("parses");
        let f = m.get_function("f").expect("@f");
        let by_name = |n: &str| f.get_basic_blocks().into_iter().find(|b| b.get_name().to_bytes() == n.as_bytes()).expect(n);
        let (entry, x) = (by_name("entry"), by_name("x"));
        // Latches first: their uses of %n come before its definition.
        let blocks = [by_name("b"), by_name("a"), by_name("body"), by_name("h")];
        let copy = LoopCopy::make(&blocks, Place::Before(x), "c", Some((entry, entry)));
        // Enter the copy or the original, join both at %x.
        let t = terminator(entry).expect("br");
        let mut b = Builder::new(Value::from(f));
        b.position_before(t);
        let k = instructions(by_name("body")).nth(2).expect("%c").operand(1);
        let c = b.icmp(llvm_sys::LLVMIntPredicate::LLVMIntEQ, k, k, "");
        b.cond_br(c, copy.block(by_name("h")), by_name("h"));
        t.erase();
        let r = instructions(x).next().expect("%r");
        let from: Vec<_> = r.incoming().into_iter().map(|(v, b)| (copy.value(v), copy.block(b))).collect();
        r.add_incoming(&from);
        verify(&m).expect("the copy verifies");
        let text = Value::from(f).print();
        assert!(text.contains("%n.c = add i32 %i.c, 1"), "{text}");
        assert!(text.contains("%ca.c = icmp ult i32 %n.c, 100"), "{text}");
        assert!(text.contains("%i.c = phi i32 [ 0, %entry ], [ %n.c, %a.c ], [ %n.c, %b.c ]"), "{text}");
        // The copy's two latches share one id, and it is not the original's.
        let id =
            |b: BasicBlock<'_>| terminator(b).expect("br").value().print().rsplit_once("!llvm.loop ").expect("a loop id").1.to_string();
        let (a, b) = (id(by_name("a")), id(by_name("b")));
        let (ac, bc) = (id(copy.block(by_name("a"))), id(copy.block(by_name("b"))));
        assert_eq!(a, b);
        assert_eq!(ac, bc);
        assert_ne!(a, ac);
    }
}
