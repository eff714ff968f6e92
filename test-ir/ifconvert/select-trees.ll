; Phis of a converted region are gated select trees (select_tree.rs): the
; value is chosen by the branches the lane passed, one `select` per branch
; whose arms differ, none where they are equal or one cannot reach the phi,
; and no edge predicate (`icmp eq i1 …, false`, `select …, false`) is made
; for a phi. Expectations by hand from that rule; every kernel also runs
; before and after on the emulator and the host with the same buffers.
; The shapes are those of the `cost=split` rule, which converts them all
; (the default rule keeps regions that cost more than their cheapest path).
; RUN: rm -rf %t && mkdir -p %t
; RUN: %simt-opt -passes='simt-ifconvert<cost=split>' -S %s -o %t/div.ll
; RUN: FileCheck %s < %t/div.ll
; RUN: simt-run %s --kernel clamp3 --engine emu --global 128 --local 64 --arg buf:i32:128 --arg buf:i32:128=rand:5 --dump %t/clamp3
; RUN: simt-run %t/div.ll --kernel clamp3 --engine emu --global 128 --local 64 --arg buf:i32:128 --arg buf:i32:128=rand:5 --compare %t/clamp3
; RUN: simt-run %t/div.ll --kernel clamp3 --global 128 --local 64 --arg buf:i32:128 --arg buf:i32:128=rand:5 --compare %t/clamp3
; RUN: simt-run %s --kernel same_arms --engine emu --global 128 --local 64 --arg buf:i32:128 --arg buf:i32:128=rand:6 --dump %t/same
; RUN: simt-run %t/div.ll --kernel same_arms --engine emu --global 128 --local 64 --arg buf:i32:128 --arg buf:i32:128=rand:6 --compare %t/same
; RUN: simt-run %t/div.ll --kernel same_arms --global 128 --local 64 --arg buf:i32:128 --arg buf:i32:128=rand:6 --compare %t/same
; RUN: simt-run %s --kernel sw --engine emu --global 128 --local 64 --arg buf:i32:128 --arg buf:i32:128=rand:7 --dump %t/sw
; RUN: simt-run %t/div.ll --kernel sw --engine emu --global 128 --local 64 --arg buf:i32:128 --arg buf:i32:128=rand:7 --compare %t/sw
; RUN: simt-run %t/div.ll --kernel sw --global 128 --local 64 --arg buf:i32:128 --arg buf:i32:128=rand:7 --compare %t/sw

target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

; Three-way clamp, x < 100 → 100, x > 900 → 900, else x: select(hi, 900, x)
; at check_hi, then select(lo, 100, that) at entry. Two selects; branches
; before: br lo, icmp hi, br hi, br clip (4) against icmp hi and 2 selects.
; CHECK-LABEL: define ptx_kernel void @clamp3(
; CHECK-NOT:   br i1
; CHECK:       %lo = icmp slt i32 %x, 100
; CHECK-NEXT:  %hi = icmp sgt i32 %x, 900
; CHECK-NEXT:  %[[IN:.+]] = select i1 %hi, i32 900, i32 %x
; CHECK-NEXT:  %[[R:.+]] = select i1 %lo, i32 100, i32 %[[IN]]
; CHECK-NOT:   select
; CHECK:       store i32 %[[R]], ptr addrspace(1) %q
; CHECK-NOT:   icmp eq i1
; CHECK:       ret void
define ptx_kernel void @clamp3(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %b = mul i32 %ctaid, %ntid
  %gid = add i32 %b, %tid
  %p = getelementptr i32, ptr addrspace(1) %in, i32 %gid
  %x = load i32, ptr addrspace(1) %p, align 4
  %lo = icmp slt i32 %x, 100
  br i1 %lo, label %join, label %check_hi
check_hi:
  %hi = icmp sgt i32 %x, 900
  br i1 %hi, label %clip, label %join
clip:
  br label %join
join:
  %r = phi i32 [ 100, %entry ], [ 900, %clip ], [ %x, %check_hi ]
  %q = getelementptr i32, ptr addrspace(1) %out, i32 %gid
  store i32 %r, ptr addrspace(1) %q, align 4
  ret void
}

; `if (c1) { if (c2) A else B; r = v } else { r = w }` with both inner
; arms giving v: the inner branch's arms are equal, so one select on c1;
; c2's compare is speculated but no select reads it.
; CHECK-LABEL: define ptx_kernel void @same_arms(
; CHECK-NOT:   br i1
; CHECK:       %[[R:.+]] = select i1 %c1, i32 %v, i32 %w
; CHECK-NOT:   select
; CHECK:       store i32 %[[R]], ptr addrspace(1) %q
; CHECK:       ret void
define ptx_kernel void @same_arms(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr i32, ptr addrspace(1) %in, i32 %tid
  %x = load i32, ptr addrspace(1) %p, align 4
  %v = mul i32 %x, 3
  %w = add i32 %x, 9
  %c1 = icmp slt i32 %x, 0
  br i1 %c1, label %outer, label %other
outer:
  %c2 = icmp sgt i32 %x, -50
  br i1 %c2, label %a, label %bb
a:
  br label %join
bb:
  br label %join
other:
  br label %join
join:
  %r = phi i32 [ %v, %a ], [ %v, %bb ], [ %w, %other ]
  %q = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %r, ptr addrspace(1) %q, align 4
  ret void
}

; A switch on x & 3 whose cases 0 and 2 go to blocks giving 10, case 1 to
; one giving %x, the default to one giving 10 too: only case 1 differs from
; the default, so one compare (x&3 == 1) and one select.
; CHECK-LABEL: define ptx_kernel void @sw(
; CHECK-NOT:   switch
; CHECK:       %[[EQ:.+]] = icmp eq i32 %k, 1
; CHECK-NEXT:  %[[R:.+]] = select i1 %[[EQ]], i32 %x, i32 10
; CHECK-NOT:   select
; CHECK:       store i32 %[[R]], ptr addrspace(1) %q
define ptx_kernel void @sw(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr i32, ptr addrspace(1) %in, i32 %tid
  %x = load i32, ptr addrspace(1) %p, align 4
  %k = and i32 %x, 3
  switch i32 %k, label %d [ i32 0, label %c0
                            i32 1, label %c1
                            i32 2, label %c2 ]
c0:
  br label %join
c1:
  br label %join
c2:
  br label %join
d:
  br label %join
join:
  %r = phi i32 [ 10, %c0 ], [ %x, %c1 ], [ 10, %c2 ], [ 10, %d ]
  %q = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %r, ptr addrspace(1) %q, align 4
  ret void
}
