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

; Loops with several latches, compared with LLVM's printers. Each latch is a
; block of the loop with an edge to the header; all of them end up in one
; loop, not one loop per back edge.

; Three latches, each the end of one arm of a three-way branch.
define void @three_latches(i32 %x, i1 %c) {
entry:
  br label %head
head:
  switch i32 %x, label %l3 [
    i32 0, label %l1
    i32 1, label %l2
  ]
l1:
  br i1 %c, label %head, label %exit
l2:
  br label %head
l3:
  br i1 %c, label %exit, label %head
exit:
  ret void
}

; The header is its own latch as well as having a second latch further down.
define void @self_and_far(i1 %a, i1 %b) {
entry:
  br label %head
head:
  br i1 %a, label %head, label %mid
mid:
  br label %far
far:
  br i1 %b, label %head, label %exit
exit:
  ret void
}

; An inner loop with two latches inside an outer loop with two latches.
define void @nested_latches(i1 %a, i1 %b, i1 %c, i1 %d) {
entry:
  br label %outer
outer:
  br label %inner
inner:
  br i1 %a, label %in.l1, label %in.l2
in.l1:
  br i1 %b, label %inner, label %out.l1
in.l2:
  br i1 %c, label %inner, label %out.l2
out.l1:
  br i1 %d, label %outer, label %exit
out.l2:
  br i1 %d, label %outer, label %exit
exit:
  ret void
}

; A latch that is reached only through a diamond, and one straight from the header.
define void @diamond_latch(i1 %a, i1 %b) {
entry:
  br label %head
head:
  br i1 %a, label %d, label %short
short:
  br i1 %b, label %head, label %exit
d:
  br i1 %b, label %d.t, label %d.f
d.t:
  br label %d.j
d.f:
  br label %d.j
d.j:
  br label %head
exit:
  ret void
}
