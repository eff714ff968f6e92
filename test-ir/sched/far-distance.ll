; A memory dependence 2^32 + 1 iterations apart: the store of iteration i
; writes a[i + 4294967297], which the load reads that many iterations later.
; Its omega is cut to the largest the scheduler takes (1000), never wrapped
; to 32 bits: wrapped, it was omega 1, a recurrence load -> fadd -> store ->
; load one iteration apart, and RecMII grew to the chain's latency.
; RUN: simt-opt -passes='print<simt-modsched<machine=itanium2>>' -disable-output %s 2>&1 | FileCheck %s
; CHECK: loop %loop: res-mii={{[0-9]+}} rec-mii=1 ii=
; RUN: simt-opt -passes='simt-swp<machine=itanium2>' -S %s -o %t.ll
; RUN: opt -passes=verify -disable-output %t.ll

define void @far(ptr %a, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %p = getelementptr float, ptr %a, i64 %i
  %x = load float, ptr %p
  %y = fadd float %x, 1.0
  %j = add i64 %i, 4294967297
  %q = getelementptr float, ptr %a, i64 %j
  store float %y, ptr %q
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, %n
  br i1 %c, label %loop, label %exit

exit:
  ret void
}
