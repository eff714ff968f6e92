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

; Loop nests, compared with LLVM's domtree, postdomtree and print<loops>:
; two and three deep, siblings inside one loop, an inner loop sharing its
; header's exit with the outer latch, and loops listed out of layout order.

define void @two_deep(i32 %n) {
entry:
  br label %outer
outer:
  %i = phi i32 [ 0, %entry ], [ %i.next, %outer.latch ]
  br label %inner
inner:
  %j = phi i32 [ 0, %outer ], [ %j.next, %inner ]
  %j.next = add i32 %j, 1
  %cj = icmp slt i32 %j.next, %n
  br i1 %cj, label %inner, label %outer.latch
outer.latch:
  %i.next = add i32 %i, 1
  %ci = icmp slt i32 %i.next, %n
  br i1 %ci, label %outer, label %exit
exit:
  ret void
}

define void @three_deep(i1 %a, i1 %b, i1 %c) {
entry:
  br label %l1
l1:
  br label %l2
l2:
  br label %l3
l3:
  br label %l3.body
l3.body:
  br i1 %c, label %l3, label %l2.latch
l2.latch:
  br i1 %b, label %l2, label %l1.latch
l1.latch:
  br i1 %a, label %l1, label %exit
exit:
  ret void
}

; Two sibling inner loops in one outer loop, with a diamond between them.
define void @siblings(i1 %a, i1 %b, i1 %c, i1 %d) {
entry:
  br label %outer
outer:
  br label %s1
s1:
  br i1 %a, label %s1, label %mid
mid:
  br i1 %d, label %mid.t, label %mid.f
mid.t:
  br label %s2
mid.f:
  br label %s2
s2:
  br label %s2.body
s2.body:
  br i1 %b, label %s2, label %latch
latch:
  br i1 %c, label %outer, label %exit
exit:
  ret void
}

; The inner loop's header is also the outer loop's exiting block.
define void @shared_exit(i1 %a, i1 %b) {
entry:
  br label %outer
outer:
  br label %inner
inner:
  br i1 %a, label %inner.body, label %exit
inner.body:
  br i1 %b, label %inner, label %outer
exit:
  ret void
}

; Blocks laid out backwards: the inner loop's blocks come first.
define void @backwards(i1 %a, i1 %b) {
entry:
  br label %outer
exit:
  ret void
outer.latch:
  br i1 %b, label %outer, label %exit
inner:
  br i1 %a, label %inner, label %outer.latch
outer:
  br label %inner
}

; Two top-level loops one after the other, each with a nested self-loop.
define void @two_nests(i1 %a, i1 %b) {
entry:
  br label %n1
n1:
  br label %n1.in
n1.in:
  br i1 %a, label %n1.in, label %n1.latch
n1.latch:
  br i1 %b, label %n1, label %n2
n2:
  br label %n2.in
n2.in:
  br i1 %b, label %n2.in, label %n2.latch
n2.latch:
  br i1 %a, label %n2, label %exit
exit:
  ret void
}
