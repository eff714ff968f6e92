; What simt-ifconvert keeps as branches: uniform branches in mode=divergent
; (partial linearisation keeps every uniform branch), loop back edges and
; exits (only the acyclic body region is converted), and regions holding an
; atomic (a side effect no predicate may guard). mode=all converts the
; uniform branch too. The expectations follow from the pass's contract, not
; from its output: branch conditions named %uni* are uniform (kernel
; arguments), %div* divergent (tid; in uniform_kept odd against even lanes,
; which splits every warp: `tid < 5` would be a bounds check, which the cost
; model prices by the warps that do not split, see bounds-check.ll).
; RUN: %simt-opt -passes=simt-ifconvert -S %s | FileCheck %s --check-prefixes=CHECK,DIV
; RUN: %simt-opt -passes='simt-ifconvert<mode=all;max-cost=none>' -S %s | FileCheck %s --check-prefixes=CHECK,ALL

target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

; CHECK-LABEL: define ptx_kernel void @uniform_kept(
; DIV:         br i1 %uni,
; ALL-NOT:     br i1 %uni,
; CHECK-NOT:   br i1 %div
; CHECK:       ret void
define ptx_kernel void @uniform_kept(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %uni = icmp sgt i32 %n, 3
  br i1 %uni, label %ua, label %ub
ua:
  %x = add i32 %n, 1
  br label %uj
ub:
  %y = mul i32 %n, 2
  br label %uj
uj:
  %u = phi i32 [ %x, %ua ], [ %y, %ub ]
  %tbit = and i32 %tid, 1
  %div = icmp eq i32 %tbit, 0
  br i1 %div, label %da, label %db
da:
  %p = add i32 %u, %tid
  br label %dj
db:
  %q = sub i32 %u, %tid
  br label %dj
dj:
  %r = phi i32 [ %p, %da ], [ %q, %db ]
  %o = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %r, ptr addrspace(1) %o, align 4
  ret void
}

; The diamond in the body becomes selects; the latch's back edge stays.
; CHECK-LABEL: define ptx_kernel void @loop_body(
; CHECK:       loop:
; CHECK-NOT:   br i1 %div
; CHECK:       select i1 %div
; CHECK:       br i1 %uniexit, label %loop, label %exit
define ptx_kernel void @loop_body(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %latch ]
  %acc = phi i32 [ 0, %entry ], [ %acc1, %latch ]
  %t = add i32 %tid, %i
  %bit = and i32 %t, 1
  %div = icmp eq i32 %bit, 0
  br i1 %div, label %even, label %odd
even:
  %e = add i32 %acc, %i
  br label %latch
odd:
  %o2 = sub i32 %acc, 1
  br label %latch
latch:
  %acc1 = phi i32 [ %e, %even ], [ %o2, %odd ]
  %i1 = add i32 %i, 1
  %uniexit = icmp slt i32 %i1, %n
  br i1 %uniexit, label %loop, label %exit
exit:
  %o = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %acc1, ptr addrspace(1) %o, align 4
  ret void
}

; CHECK-LABEL: define ptx_kernel void @atomic_bounds(
; CHECK:       br i1 %div,
; CHECK:       atomicrmw add
define ptx_kernel void @atomic_bounds(ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %div = icmp slt i32 %tid, 5
  br i1 %div, label %a, label %j
a:
  %old = atomicrmw add ptr addrspace(1) %out, i32 1 monotonic
  br label %j
j:
  ret void
}
