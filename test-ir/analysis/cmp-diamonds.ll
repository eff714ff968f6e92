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

; Dominator, post-dominator and loop trees of diamond-shaped control flow,
; compared with LLVM's printers on the same functions. The scripts in
; test-ir/tools turn both printouts into sorted `idom`/`ipdom`/loop lines.

define void @diamond(i1 %c) {
entry:
  br i1 %c, label %then, label %else
then:
  br label %join
else:
  br label %join
join:
  ret void
}

; if-then without else: entry -> join is a critical edge.
define void @triangle(i1 %c) {
entry:
  br i1 %c, label %then, label %join
then:
  br label %join
join:
  ret void
}

define i32 @nested(i1 %a, i1 %b, i1 %c) {
entry:
  br i1 %a, label %l, label %r
l:
  br i1 %b, label %ll, label %lr
ll:
  br label %lj
lr:
  br label %lj
lj:
  br label %j
r:
  br i1 %c, label %rl, label %j
rl:
  br label %j
j:
  %p = phi i32 [ 1, %lj ], [ 2, %r ], [ 3, %rl ]
  ret i32 %p
}

; Two diamonds in a row, the second one's arms listed before its head.
define void @chain(i1 %a, i1 %b) {
entry:
  br i1 %a, label %t1, label %f1
t1:
  br label %m1
f1:
  br label %m1
t2:
  br label %m2
f2:
  br label %m2
m1:
  br i1 %b, label %t2, label %f2
m2:
  ret void
}

; Both arms of the outer diamond branch into a shared block before joining:
; no arm dominates %shared.
define void @crossed(i1 %a, i1 %b, i1 %c) {
entry:
  br i1 %a, label %l, label %r
l:
  br i1 %b, label %shared, label %join
r:
  br i1 %c, label %shared, label %join
shared:
  br label %join
join:
  ret void
}

; Both edges of a conditional branch to the same block, and unnamed blocks.
define void @same_target(i1 %c) {
  br i1 %c, label %2, label %2
2:
  br i1 %c, label %3, label %4
3:
  br label %4
4:
  ret void
}
