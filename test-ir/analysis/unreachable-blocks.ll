; A block unreachable from the entry, in every printer, checked by hand.
; %dead loops on itself and branches into %a, so it is a predecessor of a
; reachable block; it must not change anything about the reachable blocks.
; RUN: %simt-opt -passes='print<simt-cfg>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=CFG
; RUN: %simt-opt -passes='print<simt-domtree>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=DOM
; RUN: %simt-opt -passes='print<simt-postdomtree>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=PDOM
; RUN: %simt-opt -passes='print<simt-loops>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=LOOPS
; RUN: %simt-opt -passes='print<simt-ctrldeps>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=CD
; RUN: %simt-opt -passes='print<simt-uniformity>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=UNI
; LLVM's print<uniformity> agrees on the divergent instructions:
; RUN: %opt -passes='print<uniformity>' -disable-output %s 2>&1 | %python %tools/divergent.py > %t.llvm
; RUN: %simt-opt -passes='print<simt-uniformity>' -disable-output %s 2>&1 | %python %tools/divergent.py > %t.simt
; RUN: diff %t.llvm %t.simt

target triple = "nvptx64-nvidia-cuda"

; The CFG lists it in layout order, tagged, with both successors; the
; reverse post-order (DFS from the entry, successors in order: entry, a,
; exit, giving post-order exit, a, entry) leaves it out.
; CFG-LABEL: simt-cfg for function 'k':
; CFG-NEXT:    0 %entry -> [%a, %exit]
; CFG-NEXT:    1 %a -> [%exit]
; CFG-NEXT:    2 %dead (unreachable) -> [%dead, %a]
; CFG-NEXT:    3 %exit -> []
; CFG-NEXT:    rpo: %entry, %a, %exit

; Not in the dominator tree; %a keeps %entry as its idom although %dead is
; one of its predecessors.
; DOM-LABEL: simt-domtree for function 'k':
; DOM-NEXT:    idom %entry = <root>
; DOM-NEXT:    idom %a = %entry
; DOM-NEXT:    idom %dead = <unreachable>
; DOM-NEXT:    idom %exit = %entry

; It does reach the return, through %a: every path from %dead to the exit
; passes %a, so ipdom(dead) = a.
; PDOM-LABEL: simt-postdomtree for function 'k':
; PDOM-NEXT:    ipdom %entry = %exit
; PDOM-NEXT:    ipdom %a = %exit
; PDOM-NEXT:    ipdom %dead = %a
; PDOM-NEXT:    ipdom %exit = <exit>
; PDOM-NOT:     infinite-loop roots

; Its self-loop is not a loop: only reachable blocks form loops.
; LOOPS:       simt-loops for function 'k':
; LOOPS-NOT:   {{Loop|Irreducible}}

; Its branch decides nothing that can run: no dependences on its edges.
; CD-LABEL: simt-ctrldeps for function 'k':
; CD-NEXT:    %entry: <none>
; CD-NEXT:    %a: %entry -> %a (true)
; CD-NEXT:    %dead: <none>
; CD-NEXT:    %exit: <none>

; Data dependence still marks what it computes from the id (as LLVM does),
; and its branch counts as divergent, but it makes no block a join: the phi
; in %a, whose other incoming edge is dead, stays uniform.
; UNI-LABEL: simt-uniformity for function 'k':
; UNI:         DIVERGENT:   %tid =
; UNI-NEXT:    DIVERGENT:   %d = add i32 %tid, 1
; UNI-NEXT:    DIVERGENT:   %dc = icmp eq i32 %d, 0
; UNI-NEXT:    DIVERGENT:   br i1 %dc, label %dead, label %a
; UNI-NEXT:    divergent branches: %dead
; UNI-NEXT:    join blocks: {{$}}
; UNI-NEXT:    loops with divergent exit: {{$}}
define ptx_kernel void @k(ptr addrspace(1) %out, i1 %c) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br i1 %c, label %a, label %exit
a:
  %pa = phi i32 [ 0, %entry ], [ 1, %dead ]
  store i32 %pa, ptr addrspace(1) %out
  br label %exit
dead:
  %d = add i32 %tid, 1
  %dc = icmp eq i32 %d, 0
  br i1 %dc, label %dead, label %a
exit:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
