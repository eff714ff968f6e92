; RUN: %opt -passes='print<domtree>' -disable-output %s 2>&1 | %python %tools/domtree.py > %t.llvm.dom
; RUN: %simt-opt -passes='print<simt-domtree>' -disable-output %s 2>&1 | %python %tools/domtree.py > %t.simt.dom
; RUN: diff %t.llvm.dom %t.simt.dom
; RUN: %opt -passes='print<postdomtree>' -disable-output %s 2>&1 | %python %tools/domtree.py > %t.llvm.pdom
; RUN: %simt-opt -passes='print<simt-postdomtree>' -disable-output %s 2>&1 | %python %tools/domtree.py > %t.simt.pdom
; RUN: diff %t.llvm.pdom %t.simt.pdom
; RUN: %opt -passes='print<loops>' -disable-output %s 2>&1 | %python %tools/loops.py > %t.llvm.loops
; RUN: %simt-opt -passes='print<simt-loops>' -disable-output %s 2>&1 | %python %tools/loops.py > %t.simt.loops
; RUN: diff %t.llvm.loops %t.simt.loops
; Every block here can reach a return: for blocks in infinite loops LLVM's
; post-dominator tree picks its extra roots differently from simt's (see
; postdomtree-infinite-loops.ll), so the postdomtree diff needs none.

; Early exits from nested loops, compared with LLVM's printers: an inner loop
; that leaves both loops at once, exits to different blocks from each level,
; and a return from the innermost loop of three.

define void @exit_both(i1 %a, i1 %b, i1 %c) {
entry:
  br label %outer
outer:
  br label %inner
inner:
  br i1 %a, label %found, label %inner.latch
inner.latch:
  br i1 %b, label %inner, label %outer.latch
outer.latch:
  br i1 %c, label %outer, label %notfound
found:
  br label %exit
notfound:
  br label %exit
exit:
  ret void
}

define i32 @return_from_innermost(i1 %a, i1 %b, i1 %c, i1 %d) {
entry:
  br label %l1
l1:
  br label %l2
l2:
  br label %l3
l3:
  br i1 %a, label %ret.early, label %l3.latch
l3.latch:
  br i1 %b, label %l3, label %l2.latch
l2.latch:
  br i1 %c, label %l2, label %l1.latch
l1.latch:
  br i1 %d, label %l1, label %ret.late
ret.early:
  ret i32 1
ret.late:
  ret i32 0
}

; The inner loop exits into the middle of the outer loop's body, to the
; outer latch, and out of both.
define void @many_exits(i32 %x, i1 %c) {
entry:
  br label %outer
outer:
  br label %inner
inner:
  switch i32 %x, label %inner [
    i32 0, label %after
    i32 1, label %outer.latch
    i32 2, label %exit
  ]
after:
  br label %outer.latch
outer.latch:
  br i1 %c, label %outer, label %exit
exit:
  ret void
}

; The outer loop's only latch is inside the inner loop's exit path, and the
; inner loop is entered from two places in the outer body.
define void @two_entries_to_inner_preheader(i1 %a, i1 %b, i1 %c) {
entry:
  br label %outer
outer:
  br i1 %a, label %pre1, label %pre2
pre1:
  br label %inner
pre2:
  br label %inner
inner:
  br i1 %b, label %inner, label %inner.exit
inner.exit:
  br i1 %c, label %outer, label %done
done:
  ret void
}
