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

; Switches with many targets, several cases to one block, and the default
; shared with a case, compared with LLVM's printers. simt keeps one edge per
; distinct target; the trees must not care.

define i32 @many_targets(i32 %x) {
entry:
  switch i32 %x, label %def [
    i32 0, label %c0
    i32 1, label %c1
    i32 2, label %c2
    i32 3, label %c3
    i32 4, label %c4
    i32 5, label %c5
  ]
c0:
  br label %join
c1:
  br label %join
c2:
  br label %c3
c3:
  br label %join
c4:
  ret i32 4
c5:
  br label %c4
def:
  br label %join
join:
  %p = phi i32 [ 0, %c0 ], [ 1, %c1 ], [ 3, %c3 ], [ 9, %def ]
  ret i32 %p
}

; Duplicate targets: three cases and the default go to %a.
define void @duplicates(i32 %x) {
entry:
  switch i32 %x, label %a [
    i32 0, label %a
    i32 1, label %b
    i32 2, label %a
    i32 3, label %b
    i32 7, label %a
  ]
a:
  br label %exit
b:
  br label %exit
exit:
  ret void
}

; Every case goes to the same block: one successor in all.
define void @all_same(i32 %x) {
entry:
  switch i32 %x, label %next [
    i32 0, label %next
    i32 1, label %next
  ]
next:
  ret void
}

; A switch as the latch of a loop, with one case going back to the header
; and another jumping into the middle of the loop body.
define void @switch_latch(i32 %x) {
entry:
  br label %head
head:
  br label %body
body:
  br label %latch
latch:
  switch i32 %x, label %exit [
    i32 0, label %head
    i32 1, label %body
    i32 2, label %head
  ]
exit:
  ret void
}
