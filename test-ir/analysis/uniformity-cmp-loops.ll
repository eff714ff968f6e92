; Loops in CUDA kernels: simt's print<simt-uniformity> must mark exactly the
; instructions LLVM's print<uniformity> marks for nvptx64: temporal
; divergence at divergent loop exits, joins inside loops, nested loops.
; Loads go through addrspace(1) pointers only (LLVM's NVPTX TTI calls loads
; through generic pointers divergent, simt does not).
; RUN: %opt -passes='print<uniformity>' -disable-output %s 2>&1 | %python %tools/divergent.py > %t.llvm
; RUN: %simt-opt -passes='print<simt-uniformity>' -disable-output %s 2>&1 | %python %tools/divergent.py > %t.simt
; RUN: diff %t.llvm %t.simt
; RUN: FileCheck %s --input-file=%t.simt

target triple = "nvptx64-nvidia-cuda"

; for (i = 0; i < tid; i++) s += i;  out = s, i;
; Inside the loop every thread that is still running sees the same %i and
; %s, so they are uniform there; the exit test is divergent, threads leave
; in different iterations, and %i and %s are divergent where they are used
; after the loop (temporal divergence): the phi %s.lcssa and the stores.
; CHECK-LABEL: tid_trip_count: DIVERGENT:   %tid =
; CHECK-NEXT:  tid_trip_count: DIVERGENT:   %c = icmp ult i32 %i.next, %tid
; CHECK-NEXT:  tid_trip_count: DIVERGENT:   br i1 %c
; CHECK-NEXT:  tid_trip_count: DIVERGENT:   %s.lcssa = phi
; CHECK-NEXT:  tid_trip_count: DIVERGENT:   store i32 %s.lcssa
; CHECK-NEXT:  tid_trip_count: DIVERGENT:   store i32 %i.next
define ptx_kernel void @tid_trip_count(ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i32 [ 0, %entry ], [ %s.next, %loop ]
  %s.next = add i32 %s, %i
  %i.next = add i32 %i, 1
  %c = icmp ult i32 %i.next, %tid
  br i1 %c, label %loop, label %exit
exit:
  %s.lcssa = phi i32 [ %s.next, %loop ]
  store i32 %s.lcssa, ptr addrspace(1) %out
  %gep = getelementptr i32, ptr addrspace(1) %out, i32 1
  store i32 %i.next, ptr addrspace(1) %gep
  ret void
}

; for (i = 0; i < n; i++) { v = (tid < i) ? a[i] : 0; ... }
; A uniform loop with a divergent if inside: %merge joins the two sides, its
; phi is divergent; the loop counter and the value used after the loop are
; uniform (all threads leave together).
; CHECK-LABEL: join_in_loop: DIVERGENT:   %tid =
; CHECK-NEXT:  join_in_loop: DIVERGENT:   %d = icmp ult i32 %tid, %i
; CHECK-NEXT:  join_in_loop: DIVERGENT:   br i1 %d
; CHECK-NEXT:  join_in_loop: DIVERGENT:   %v = phi
; CHECK-NEXT:  join_in_loop: DIVERGENT:   store i32 %v
; CHECK-NOT:   join_in_loop:
define ptx_kernel void @join_in_loop(ptr addrspace(1) %a, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %header
header:
  %i = phi i32 [ 0, %entry ], [ %i.next, %merge ]
  %d = icmp ult i32 %tid, %i
  br i1 %d, label %then, label %merge
then:
  %p = getelementptr i32, ptr addrspace(1) %a, i32 %i
  %x = load i32, ptr addrspace(1) %p
  br label %merge
merge:
  %v = phi i32 [ %x, %then ], [ 0, %header ]
  %q = getelementptr i32, ptr addrspace(1) %a, i32 %n
  store i32 %v, ptr addrspace(1) %q
  %i.next = add i32 %i, 1
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %header, label %exit
exit:
  store i32 %i.next, ptr addrspace(1) %a
  ret void
}

; for (i = 0; i < n; i++) { for (j = 0; j < tid; j++) ...; out[i] = j; }
; The inner loop's exit is divergent, so %j.next is divergent after it (in
; the outer loop's body); the outer loop is uniform: its counter and the
; value used after it stay uniform.
; CHECK-LABEL: nested: DIVERGENT:   %tid =
; CHECK-NEXT:  nested: DIVERGENT:   %cj = icmp ult i32 %j.next, %tid
; CHECK-NEXT:  nested: DIVERGENT:   br i1 %cj
; CHECK-NEXT:  nested: DIVERGENT:   store i32 %j.next
; CHECK-NOT:   nested:
define ptx_kernel void @nested(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %outer
outer:
  %i = phi i32 [ 0, %entry ], [ %i.next, %outer.latch ]
  br label %inner
inner:
  %j = phi i32 [ 0, %outer ], [ %j.next, %inner ]
  %j.next = add i32 %j, 1
  %cj = icmp ult i32 %j.next, %tid
  br i1 %cj, label %inner, label %outer.latch
outer.latch:
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %i
  store i32 %j.next, ptr addrspace(1) %p
  %i.next = add i32 %i, 1
  %ci = icmp slt i32 %i.next, %n
  br i1 %ci, label %outer, label %exit
exit:
  store i32 %i.next, ptr addrspace(1) %out
  ret void
}

; for (i = 0; i < n; i++) if (a[i] == tid) break;  out = i;
; A uniform trip count with a divergent break: the loop has a divergent exit
; through %found, so %i is divergent after the loop, and %end's phi joins the
; two exits.
; CHECK-LABEL: divergent_break: DIVERGENT:   %tid =
; CHECK-NEXT:  divergent_break: DIVERGENT:   %hit = icmp eq i32 %x, %tid
; CHECK-NEXT:  divergent_break: DIVERGENT:   br i1 %hit
; CHECK-NEXT:  divergent_break: DIVERGENT:   %r = phi
; CHECK-NEXT:  divergent_break: DIVERGENT:   store i32 %r
define ptx_kernel void @divergent_break(ptr addrspace(1) %a, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %header
header:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %c = icmp slt i32 %i, %n
  br i1 %c, label %body, label %end
body:
  %p = getelementptr i32, ptr addrspace(1) %a, i32 %i
  %x = load i32, ptr addrspace(1) %p
  %hit = icmp eq i32 %x, %tid
  br i1 %hit, label %end, label %latch
latch:
  %i.next = add i32 %i, 1
  br label %header
end:
  %r = phi i32 [ %i, %header ], [ %i, %body ]
  store i32 %r, ptr addrspace(1) %a
  ret void
}

; An inner loop with a divergent exit nested in an outer loop whose exit is
; also divergent (the outer test uses the inner loop's result): both loops'
; values are divergent after them.
; CHECK-LABEL: nested_both: DIVERGENT:   %tid =
; CHECK:       nested_both: DIVERGENT:   br i1 %cj
; CHECK:       nested_both: DIVERGENT:   br i1 %ci
; CHECK:       nested_both: DIVERGENT:   store i32 %i
define ptx_kernel void @nested_both(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %outer
outer:
  %i = phi i32 [ 0, %entry ], [ %i.next, %outer.latch ]
  br label %inner
inner:
  %j = phi i32 [ 0, %outer ], [ %j.next, %inner ]
  %j.next = add i32 %j, 1
  %cj = icmp ult i32 %j.next, %tid
  br i1 %cj, label %inner, label %outer.latch
outer.latch:
  %i.next = add i32 %i, %j.next
  %ci = icmp slt i32 %i.next, %n
  br i1 %ci, label %outer, label %exit
exit:
  store i32 %i, ptr addrspace(1) %out
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
