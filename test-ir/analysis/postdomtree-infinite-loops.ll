; print<simt-postdomtree> on functions with blocks that cannot reach a
; return, checked by hand. Such blocks would have no post-dominator at all;
; simt gives each sink region of them (a strongly connected set of blocks
; with no edge leaving it) an edge to the virtual exit from its block with
; the highest layout number, and prints those blocks as infinite-loop roots.
; LLVM's PostDominatorTree adds such edges too, but picks the block by its
; own search ("furthest away" in a reverse DFS): it agrees on @no_exit, but
; roots @latch_first at %latch and @diamond_in_loop at %a. Both choices give
; valid trees of their augmented graphs; so these expectations are derived by
; hand, and the cmp-*.ll comparisons with LLVM avoid infinite loops.
; RUN: %simt-opt -passes='print<simt-postdomtree>' -disable-output %s 2>&1 | FileCheck %s
; (Control dependences in such functions: ctrldeps-infinite-loops.ll.)

; entry -> header <-> latch, no return at all: the root is %latch (highest
; layout number in the region), so ipdom(header) = latch.
; CHECK-LABEL: simt-postdomtree for function 'no_exit':
; CHECK-NEXT:    ipdom %entry = %header
; CHECK-NEXT:    ipdom %header = %latch
; CHECK-NEXT:    ipdom %latch = <exit>
; CHECK-NEXT:    infinite-loop roots: %latch
define void @no_exit() {
entry:
  br label %header
header:
  br label %latch
latch:
  br label %header
}

; The same loop laid out with the latch before the header: now %header has
; the highest layout number and is the root, so ipdom(latch) = header.
; CHECK-LABEL: simt-postdomtree for function 'latch_first':
; CHECK-NEXT:    ipdom %entry = %header
; CHECK-NEXT:    ipdom %latch = %header
; CHECK-NEXT:    ipdom %header = <exit>
; CHECK-NEXT:    infinite-loop roots: %header
define void @latch_first() {
entry:
  br label %header
latch:
  br label %header
header:
  br label %latch
}

; A self-loop beside a return: the branch in %entry leads to the return or
; to the loop, so nothing but the virtual exit post-dominates it.
; CHECK-LABEL: simt-postdomtree for function 'beside_return':
; CHECK-NEXT:    ipdom %entry = <exit>
; CHECK-NEXT:    ipdom %spin = <exit>
; CHECK-NEXT:    ipdom %done = <exit>
; CHECK-NEXT:    infinite-loop roots: %spin
define void @beside_return(i1 %c) {
entry:
  br i1 %c, label %spin, label %done
spin:
  br label %spin
done:
  ret void
}

; A diamond inside an infinite loop: region {h, a, b, l}, root %l; both arms
; and the header are post-dominated by %l.
; CHECK-LABEL: simt-postdomtree for function 'diamond_in_loop':
; CHECK-NEXT:    ipdom %entry = %h
; CHECK-NEXT:    ipdom %h = %l
; CHECK-NEXT:    ipdom %a = %l
; CHECK-NEXT:    ipdom %b = %l
; CHECK-NEXT:    ipdom %l = <exit>
; CHECK-NEXT:    infinite-loop roots: %l
define void @diamond_in_loop(i1 %c) {
entry:
  br label %h
h:
  br i1 %c, label %a, label %b
a:
  br label %l
b:
  br label %l
l:
  br label %h
}

; Two separate infinite loops: two roots.
; CHECK-LABEL: simt-postdomtree for function 'two_loops':
; CHECK-NEXT:    ipdom %entry = <exit>
; CHECK-NEXT:    ipdom %l1 = <exit>
; CHECK-NEXT:    ipdom %l2 = <exit>
; CHECK-NEXT:    infinite-loop roots: %l1, %l2
define void @two_loops(i1 %c) {
entry:
  br i1 %c, label %l1, label %l2
l1:
  br label %l1
l2:
  br label %l2
}

; A loop whose only way out leads into another infinite loop: {a} is not a
; sink (it has an edge to %b), {b} is; the only root is %b, which
; post-dominates everything else.
; CHECK-LABEL: simt-postdomtree for function 'into_another_loop':
; CHECK-NEXT:    ipdom %entry = %a
; CHECK-NEXT:    ipdom %a = %b
; CHECK-NEXT:    ipdom %b = <exit>
; CHECK-NEXT:    infinite-loop roots: %b
define void @into_another_loop(i1 %c) {
entry:
  br label %a
a:
  br i1 %c, label %a, label %b
b:
  br label %b
}

; An infinite loop that blocks unreachable from the entry lead into: they are
; in the tree too, post-dominated by the loop.
; CHECK-LABEL: simt-postdomtree for function 'dead_into_loop':
; CHECK-NEXT:    ipdom %entry = %spin
; CHECK-NEXT:    ipdom %spin = <exit>
; CHECK-NEXT:    ipdom %dead = %spin
; CHECK-NEXT:    infinite-loop roots: %spin
define void @dead_into_loop() {
entry:
  br label %spin
spin:
  br label %spin
dead:
  br label %spin
}

; A function with a return everywhere has no roots line.
; CHECK-LABEL: simt-postdomtree for function 'finite':
; CHECK-NEXT:    ipdom %entry = %loop
; CHECK-NEXT:    ipdom %loop = %exit
; CHECK-NEXT:    ipdom %exit = <exit>
; CHECK-NOT:     infinite-loop roots
define void @finite(i1 %c) {
entry:
  br label %loop
loop:
  br i1 %c, label %loop, label %exit
exit:
  ret void
}
