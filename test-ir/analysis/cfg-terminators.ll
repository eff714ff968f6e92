; Successors of terminators other than `br`/`switch`/`ret` in print<simt-cfg>
; (indirectbr, callbr, invoke), checked by hand: successors in terminator
; order with duplicate targets listed once; the reverse post-order of a DFS
; that takes successors in that order. Control-dependence edges out of these
; terminators are labelled with their successor slots (`succ N`).
; RUN: %simt-opt -passes='print<simt-cfg>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=CFG
; RUN: %simt-opt -passes='print<simt-ctrldeps>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=CD
; The trees agree with LLVM's:
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

; indirectbr to %a, %b, %a: two successors. DFS: entry, a, join (post join,
; a), b (post b), post entry: RPO entry, b, a, join.
; CFG-LABEL: simt-cfg for function 'indirect':
; CFG-NEXT:    0 %entry -> [%a, %b]
; CFG-NEXT:    1 %a -> [%join]
; CFG-NEXT:    2 %b -> [%join]
; CFG-NEXT:    3 %join -> []
; CFG-NEXT:    rpo: %entry, %b, %a, %join
; Slots 0 and 2 both lead to %a.
; CD-LABEL: simt-ctrldeps for function 'indirect':
; CD-NEXT:    %entry: <none>
; CD-NEXT:    %a: %entry -> %a (succ 0|succ 2)
; CD-NEXT:    %b: %entry -> %b (succ 1)
; CD-NEXT:    %join: <none>
define i32 @indirect(ptr %target) {
entry:
  indirectbr ptr %target, [label %a, label %b, label %a]
a:
  br label %join
b:
  br label %join
join:
  %p = phi i32 [ 1, %a ], [ 2, %b ]
  ret i32 %p
}

; callbr (asm goto): the fallthrough first, then the indirect targets.
; CFG-LABEL: simt-cfg for function 'asm_goto':
; CFG-NEXT:    0 %entry -> [%fall, %ind1, %ind2]
; CFG-NEXT:    1 %fall -> []
; CFG-NEXT:    2 %ind1 -> []
; CFG-NEXT:    3 %ind2 -> [%fall]
; CFG-NEXT:    rpo: %entry, %ind2, %ind1, %fall
; ipdom(entry) is the virtual exit (two returns); %fall post-dominates %ind2,
; so it depends on both entry->fall and entry->ind2.
; CD-LABEL: simt-ctrldeps for function 'asm_goto':
; CD-NEXT:    %entry: <none>
; CD-NEXT:    %fall: %entry -> %fall (succ 0), %entry -> %ind2 (succ 2)
; CD-NEXT:    %ind1: %entry -> %ind1 (succ 1)
; CD-NEXT:    %ind2: %entry -> %ind2 (succ 2)
define i32 @asm_goto(i32 %x) {
entry:
  %r = callbr i32 asm "", "=r,r,!i,!i"(i32 %x) to label %fall [label %ind1, label %ind2]
fall:
  ret i32 %r
ind1:
  ret i32 1
ind2:
  br label %fall
}

; invoke: normal destination, then unwind destination; `resume` is an exit.
; CFG-LABEL: simt-cfg for function 'invoke':
; CFG-NEXT:    0 %entry -> [%ok, %lp]
; CFG-NEXT:    1 %ok -> []
; CFG-NEXT:    2 %lp -> []
; CFG-NEXT:    rpo: %entry, %lp, %ok
; CD-LABEL: simt-ctrldeps for function 'invoke':
; CD-NEXT:    %entry: <none>
; CD-NEXT:    %ok: %entry -> %ok (succ 0)
; CD-NEXT:    %lp: %entry -> %lp (succ 1)
define void @invoke() personality ptr @pers {
entry:
  invoke void @may_throw() to label %ok unwind label %lp
ok:
  ret void
lp:
  %l = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %l
}

declare void @may_throw()
declare i32 @pers(...)
