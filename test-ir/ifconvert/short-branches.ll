; Kernels where if-conversion should pay (issue 10, BENCHMARKS.md): short
; divergent if/else chains, clamps, piecewise functions, a bitonic-sort
; compare-exchange. Each runs before and after the pass (default, and
; mode=all without cost model) on the emulator and the host with the same
; buffers. BENCHMARKS.md has their warp-instruction counts.
; RUN: rm -rf %t && mkdir -p %t
; RUN: %simt-opt -passes=simt-ifconvert -S %s -o %t/div.ll
; RUN: %simt-opt -passes='simt-ifconvert<mode=all;max-cost=none>' -S %s -o %t/all.ll
; RUN: FileCheck %s < %t/div.ll
; RUN: simt-run %s --kernel clamp --engine emu --global 256 --local 64 --arg buf:i32:256 --arg buf:i32:256=rand:3 --dump %t/clamp
; RUN: simt-run %t/div.ll --kernel clamp --engine emu --global 256 --local 64 --arg buf:i32:256 --arg buf:i32:256=rand:3 --compare %t/clamp
; RUN: simt-run %t/div.ll --kernel clamp --engine emu --policy markers --global 256 --local 64 --arg buf:i32:256 --arg buf:i32:256=rand:3 --compare %t/clamp
; RUN: simt-run %t/all.ll --kernel clamp --engine emu --global 256 --local 64 --arg buf:i32:256 --arg buf:i32:256=rand:3 --compare %t/clamp
; RUN: simt-run %t/all.ll --kernel clamp --global 256 --local 64 --arg buf:i32:256 --arg buf:i32:256=rand:3 --compare %t/clamp
; RUN: simt-run %s --kernel piecewise --engine emu --global 256 --local 64 --arg buf:i32:256 --arg buf:i32:256=rand:3 --dump %t/piecewise
; RUN: simt-run %t/div.ll --kernel piecewise --engine emu --global 256 --local 64 --arg buf:i32:256 --arg buf:i32:256=rand:3 --compare %t/piecewise
; RUN: simt-run %t/div.ll --kernel piecewise --engine emu --policy markers --global 256 --local 64 --arg buf:i32:256 --arg buf:i32:256=rand:3 --compare %t/piecewise
; RUN: simt-run %t/all.ll --kernel piecewise --engine emu --global 256 --local 64 --arg buf:i32:256 --arg buf:i32:256=rand:3 --compare %t/piecewise
; RUN: simt-run %t/all.ll --kernel piecewise --global 256 --local 64 --arg buf:i32:256 --arg buf:i32:256=rand:3 --compare %t/piecewise
; RUN: simt-run %s --kernel ifelse_chain --engine emu --global 256 --local 64 --arg buf:i32:256 --arg buf:i32:256=rand:3 --dump %t/ifelse_chain
; RUN: simt-run %t/div.ll --kernel ifelse_chain --engine emu --global 256 --local 64 --arg buf:i32:256 --arg buf:i32:256=rand:3 --compare %t/ifelse_chain
; RUN: simt-run %t/div.ll --kernel ifelse_chain --engine emu --policy markers --global 256 --local 64 --arg buf:i32:256 --arg buf:i32:256=rand:3 --compare %t/ifelse_chain
; RUN: simt-run %t/all.ll --kernel ifelse_chain --engine emu --global 256 --local 64 --arg buf:i32:256 --arg buf:i32:256=rand:3 --compare %t/ifelse_chain
; RUN: simt-run %t/all.ll --kernel ifelse_chain --global 256 --local 64 --arg buf:i32:256 --arg buf:i32:256=rand:3 --compare %t/ifelse_chain
; RUN: simt-run %s --kernel bitonic_cx --engine emu --global 256 --local 64 --arg buf:i32:256 --arg buf:i32:256=rand:3 --dump %t/bitonic_cx
; RUN: simt-run %t/div.ll --kernel bitonic_cx --engine emu --global 256 --local 64 --arg buf:i32:256 --arg buf:i32:256=rand:3 --compare %t/bitonic_cx
; RUN: simt-run %t/div.ll --kernel bitonic_cx --engine emu --policy markers --global 256 --local 64 --arg buf:i32:256 --arg buf:i32:256=rand:3 --compare %t/bitonic_cx
; RUN: simt-run %t/all.ll --kernel bitonic_cx --engine emu --global 256 --local 64 --arg buf:i32:256 --arg buf:i32:256=rand:3 --compare %t/bitonic_cx
; RUN: simt-run %t/all.ll --kernel bitonic_cx --global 256 --local 64 --arg buf:i32:256 --arg buf:i32:256=rand:3 --compare %t/bitonic_cx

; Two diamonds of one instruction a side: predicated, each costs its
; condition's select only (the phi's), against three branches divergently.
; CHECK-LABEL: define ptx_kernel void @ifelse_chain(
; CHECK-NOT:   br i1
; CHECK:       ret void
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

define ptx_kernel void @clamp(ptr addrspace(1) %out, ptr addrspace(1) %in) {
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

define ptx_kernel void @piecewise(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %b = mul i32 %ctaid, %ntid
  %gid = add i32 %b, %tid
  %p = getelementptr i32, ptr addrspace(1) %in, i32 %gid
  %x = load i32, ptr addrspace(1) %p, align 4
  %c1 = icmp slt i32 %x, 250
  br i1 %c1, label %s1, label %t2
s1:
  %y1 = mul i32 %x, 3
  br label %join
t2:
  %c2 = icmp slt i32 %x, 500
  br i1 %c2, label %s2, label %t3
s2:
  %y2 = add i32 %x, 7
  br label %join
t3:
  %c3 = icmp slt i32 %x, 750
  br i1 %c3, label %s3, label %s4
s3:
  %y3 = xor i32 %x, 5
  br label %join
s4:
  %y4 = sub i32 %x, 11
  br label %join
join:
  %r = phi i32 [ %y1, %s1 ], [ %y2, %s2 ], [ %y3, %s3 ], [ %y4, %s4 ]
  %q = getelementptr i32, ptr addrspace(1) %out, i32 %gid
  store i32 %r, ptr addrspace(1) %q, align 4
  ret void
}

define ptx_kernel void @ifelse_chain(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %b = mul i32 %ctaid, %ntid
  %gid = add i32 %b, %tid
  %p = getelementptr i32, ptr addrspace(1) %in, i32 %gid
  %x = load i32, ptr addrspace(1) %p, align 4
  %bit0 = and i32 %x, 1
  %c1 = icmp ne i32 %bit0, 0
  br i1 %c1, label %a1, label %a2
a1:
  %va1 = shl i32 %x, 1
  br label %m1
a2:
  %va2 = add i32 %x, 1
  br label %m1
m1:
  %a = phi i32 [ %va1, %a1 ], [ %va2, %a2 ]
  %bit1 = and i32 %x, 2
  %c2 = icmp ne i32 %bit1, 0
  br i1 %c2, label %b1, label %b2
b1:
  %vb1 = mul i32 %a, 3
  br label %m2
b2:
  %vb2 = sub i32 %a, 4
  br label %m2
m2:
  %r = phi i32 [ %vb1, %b1 ], [ %vb2, %b2 ]
  %q = getelementptr i32, ptr addrspace(1) %out, i32 %gid
  store i32 %r, ptr addrspace(1) %q, align 4
  ret void
}

; One step of a bitonic sort: work-item i with partner j = i ^ 1 (i < j)
; orders the pair ascending where bit 1 of i is 0, descending elsewhere.
define ptx_kernel void @bitonic_cx(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %b = mul i32 %ctaid, %ntid
  %i = add i32 %b, %tid
  %j = xor i32 %i, 1
  %lower = icmp ult i32 %i, %j
  br i1 %lower, label %pair, label %done
pair:
  %pi = getelementptr i32, ptr addrspace(1) %in, i32 %i
  %pj = getelementptr i32, ptr addrspace(1) %in, i32 %j
  %a = load i32, ptr addrspace(1) %pi, align 4
  %bv = load i32, ptr addrspace(1) %pj, align 4
  %d = and i32 %i, 2
  %up = icmp eq i32 %d, 0
  %gt = icmp sgt i32 %a, %bv
  %swap = icmp eq i1 %gt, %up
  %oi = getelementptr i32, ptr addrspace(1) %out, i32 %i
  %oj = getelementptr i32, ptr addrspace(1) %out, i32 %j
  br i1 %swap, label %swapped, label %kept
swapped:
  store i32 %bv, ptr addrspace(1) %oi, align 4
  store i32 %a, ptr addrspace(1) %oj, align 4
  br label %done
kept:
  store i32 %a, ptr addrspace(1) %oi, align 4
  store i32 %bv, ptr addrspace(1) %oj, align 4
  br label %done
done:
  ret void
}
