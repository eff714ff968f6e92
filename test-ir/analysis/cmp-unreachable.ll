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

; Blocks unreachable from the entry, compared with LLVM's printers. LLVM's
; dominator tree leaves them out and simt prints them as `<unreachable>`
; (domtree.py drops those lines; unreachable-blocks.ll checks them). Both
; post-dominator trees include them, since they can reach an exit. Loops made
; only of unreachable blocks are not loops for either tool.
; Every unreachable block here reaches an exit, so the post-dominator trees
; have no infinite-loop roots to disagree about.

; A dead block branching into the middle of a diamond: it is a predecessor of
; %join but must not change any dominator.
define void @dead_pred(i1 %c) {
entry:
  br i1 %c, label %then, label %else
then:
  br label %join
else:
  br label %join
dead:
  br label %join
join:
  ret void
}

; A dead self-loop and a dead chain that enter a reachable loop at its latch.
define void @dead_into_loop(i1 %c, i1 %d) {
entry:
  br label %head
head:
  br label %latch
latch:
  br i1 %c, label %head, label %exit
dead.loop:
  br i1 %d, label %dead.loop, label %dead.chain
dead.chain:
  br label %latch
exit:
  ret void
}

; A dead region with its own return, and a dead block after the last return.
define i32 @dead_return(i1 %c) {
entry:
  br i1 %c, label %a, label %b
a:
  ret i32 0
b:
  ret i32 1
dead1:
  br i1 %c, label %dead2, label %dead3
dead2:
  ret i32 2
dead3:
  br label %a
}

; A dead predecessor of a block that branches to two returns.
define void @dead_into_branch(i1 %c) {
entry:
  br label %body
body:
  br i1 %c, label %exit, label %exit2
exit:
  ret void
exit2:
  ret void
dead:
  br label %body
}
