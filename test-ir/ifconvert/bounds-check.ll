; Branches likely uniform at run time (analysis/likely_uniform.rs): a
; compare of a work-item-affine value against a uniform one diverges only
; in the warp holding the boundary, so the cost model prices the region by
; the path a non-diverging warp runs, not by all its blocks.
;
; Each kernel is the same triangle, `v = x * 3` under the condition and a
; store of the phi after it. Counted as the emulator issues (head H, work-
; item queries free): divergently H + br + (mul + br) = H + 3, predicated
; H + mul + select = H + 2, the cheaper path H + br = H + 1. So the
; triangle is converted when its condition is data-dependent (2 < 3) and
; kept when it is a bounds check (2 > 1); mode=all;max-cost=none converts
; every one. Every kernel also runs before and after on the emulator.
; That is the `cost=split` rule (the default before issue 23); the default
; rule (cheapest path, H + 1 here) keeps all four.
; RUN: rm -rf %t && mkdir -p %t
; RUN: %simt-opt -passes='simt-ifconvert<cost=split>' -S %s -o %t/div.ll
; RUN: %simt-opt -passes='simt-ifconvert<mode=all;max-cost=none>' -S %s -o %t/all.ll
; RUN: FileCheck %s --check-prefixes=CHECK,DIV < %t/div.ll
; RUN: FileCheck %s --check-prefixes=CHECK,ALL < %t/all.ll
; RUN: simt-run %s --kernel data --engine emu --global 128 --local 64 --arg buf:i32:128 --arg buf:i32:128=rand:3 --arg i32:70 --dump %t/data
; RUN: simt-run %t/div.ll --kernel data --engine emu --global 128 --local 64 --arg buf:i32:128 --arg buf:i32:128=rand:3 --arg i32:70 --compare %t/data
; RUN: simt-run %s --kernel gid_bound --engine emu --global 128 --local 64 --arg buf:i32:128 --arg buf:i32:128=rand:3 --arg i32:70 --dump %t/gid
; RUN: simt-run %t/all.ll --kernel gid_bound --engine emu --global 128 --local 64 --arg buf:i32:128 --arg buf:i32:128=rand:3 --arg i32:70 --compare %t/gid
; RUN: simt-run %s --kernel both_bounds --engine emu --global 128 --local 64 --arg buf:i32:128 --arg buf:i32:128=rand:3 --arg i32:70 --dump %t/both
; RUN: simt-run %t/all.ll --kernel both_bounds --engine emu --global 128 --local 64 --arg buf:i32:128 --arg buf:i32:128=rand:3 --arg i32:70 --compare %t/both
; RUN: simt-run %s --kernel laneid --engine emu --global 128 --local 64 --arg buf:i32:128 --arg buf:i32:128=rand:3 --arg i32:7 --dump %t/lane
; RUN: simt-run %t/div.ll --kernel laneid --engine emu --global 128 --local 64 --arg buf:i32:128 --arg buf:i32:128=rand:3 --arg i32:7 --compare %t/lane

target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.laneid()

; A condition on loaded data: divergent anywhere, converted.
; CHECK-LABEL: define ptx_kernel void @data(
; CHECK-NOT:   br i1
; CHECK:       select i1 %c, i32 %v, i32 %x
define ptx_kernel void @data(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %b = mul i32 %ctaid, %ntid
  %gid = add i32 %b, %tid
  %p = getelementptr i32, ptr addrspace(1) %in, i32 %gid
  %x = load i32, ptr addrspace(1) %p, align 4
  %c = icmp slt i32 %x, %n
  br i1 %c, label %then, label %join
then:
  %v = mul i32 %x, 3
  br label %join
join:
  %r = phi i32 [ %v, %then ], [ %x, %entry ]
  %q = getelementptr i32, ptr addrspace(1) %out, i32 %gid
  store i32 %r, ptr addrspace(1) %q, align 4
  ret void
}

; `gid + 1 < n` (gid = ctaid * ntid + tid): a bounds check, kept.
; CHECK-LABEL: define ptx_kernel void @gid_bound(
; DIV:         br i1 %c, label %then, label %join
; ALL-NOT:     br i1
define ptx_kernel void @gid_bound(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %b = mul i32 %ctaid, %ntid
  %gid = add i32 %b, %tid
  %p = getelementptr i32, ptr addrspace(1) %in, i32 %gid
  %x = load i32, ptr addrspace(1) %p, align 4
  %g1 = add i32 %gid, 1
  %c = icmp slt i32 %g1, %n
  br i1 %c, label %then, label %join
then:
  %v = mul i32 %x, 3
  br label %join
join:
  %r = phi i32 [ %v, %then ], [ %x, %entry ]
  %q = getelementptr i32, ptr addrspace(1) %out, i32 %gid
  store i32 %r, ptr addrspace(1) %q, align 4
  ret void
}

; matmul's `row < M && col < N` shape: `and` of two bounds checks on
; scaled, extended ids, kept.
; CHECK-LABEL: define ptx_kernel void @both_bounds(
; DIV:         br i1 %c, label %then, label %join
; ALL-NOT:     br i1
define ptx_kernel void @both_bounds(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %sh = shl i32 %ctaid, 6
  %gid = add i32 %sh, %tid
  %p = getelementptr i32, ptr addrspace(1) %in, i32 %gid
  %x = load i32, ptr addrspace(1) %p, align 4
  %t2 = mul i32 %tid, 2
  %t64 = zext i32 %t2 to i64
  %n64 = sext i32 %n to i64
  %c1 = icmp slt i64 %t64, %n64
  %c2 = icmp ult i32 %gid, 100
  %c = and i1 %c1, %c2
  br i1 %c, label %then, label %join
then:
  %v = mul i32 %x, 3
  br label %join
join:
  %r = phi i32 [ %v, %then ], [ %x, %entry ]
  %q = getelementptr i32, ptr addrspace(1) %out, i32 %gid
  store i32 %r, ptr addrspace(1) %q, align 4
  ret void
}

; `laneid < n` splits every warp: not a bounds check, converted.
; CHECK-LABEL: define ptx_kernel void @laneid(
; DIV-NOT:     br i1
; DIV:         select i1 %c, i32 %v, i32 %x
define ptx_kernel void @laneid(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %lane = call i32 @llvm.nvvm.read.ptx.sreg.laneid()
  %b = mul i32 %ctaid, %ntid
  %gid = add i32 %b, %tid
  %p = getelementptr i32, ptr addrspace(1) %in, i32 %gid
  %x = load i32, ptr addrspace(1) %p, align 4
  %c = icmp slt i32 %lane, %n
  br i1 %c, label %then, label %join
then:
  %v = mul i32 %x, 3
  br label %join
join:
  %r = phi i32 [ %v, %then ], [ %x, %entry ]
  %q = getelementptr i32, ptr addrspace(1) %out, i32 %gid
  store i32 %r, ptr addrspace(1) %q, align 4
  ret void
}
