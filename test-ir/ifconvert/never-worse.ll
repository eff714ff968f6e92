; The default rule (ifconvert/design.md, "Cost rules"): a region is converted
; only when its predicated form issues no more warp-instructions than the
; cheapest path through it. Counted as the emulator issues them (H: the
; head's own instructions; the work-item query is free): a min written as an
; if (an empty arm, the phi picks %x or 100) costs H + 1 (the branch) on the
; path that skips the arm and H + 1 (the select) predicated: converted. An
; abs written as an if costs H + 1 on the path that skips the arm and H + 2
; (sub, select) predicated: kept, and converted by cost=split (which prices
; the branchy form as every block run, H + 3 > H + 2). Both run before and
; after on the emulator.
; RUN: rm -rf %t && mkdir -p %t
; RUN: %simt-opt -passes=simt-ifconvert -S %s -o %t/def.ll
; RUN: %simt-opt -passes='simt-ifconvert<cost=split>' -S %s -o %t/split.ll
; RUN: FileCheck %s --check-prefix=DEF < %t/def.ll
; RUN: FileCheck %s --check-prefix=SPLIT < %t/split.ll
; RUN: simt-run %s --kernel min_if --engine emu --global 256 --local 64 --arg buf:i32:256 --arg buf:i32:256=rand:3 --dump %t/min
; RUN: simt-run %t/def.ll --kernel min_if --engine emu --global 256 --local 64 --arg buf:i32:256 --arg buf:i32:256=rand:3 --compare %t/min
; RUN: simt-run %s --kernel abs_if --engine emu --global 256 --local 64 --arg buf:i32:256 --arg buf:i32:256=rand:3 --dump %t/abs
; RUN: simt-run %t/split.ll --kernel abs_if --engine emu --global 256 --local 64 --arg buf:i32:256 --arg buf:i32:256=rand:3 --compare %t/abs

target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

; DEF-LABEL: define ptx_kernel void @min_if(
; DEF-NOT:   br i1
; DEF:       select i1 %c, i32 %x, i32 100
define ptx_kernel void @min_if(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr i32, ptr addrspace(1) %in, i32 %tid
  %x = load i32, ptr addrspace(1) %p, align 4
  %c = icmp slt i32 %x, 100
  br i1 %c, label %then, label %join
then:
  br label %join
join:
  %r = phi i32 [ %x, %then ], [ 100, %entry ]
  %q = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %r, ptr addrspace(1) %q, align 4
  ret void
}

; DEF-LABEL: define ptx_kernel void @abs_if(
; DEF:       br i1 %c, label %neg, label %join
; SPLIT-LABEL: define ptx_kernel void @abs_if(
; SPLIT-NOT: br i1
; SPLIT:     select i1 %c
define ptx_kernel void @abs_if(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr i32, ptr addrspace(1) %in, i32 %tid
  %x = load i32, ptr addrspace(1) %p, align 4
  %c = icmp slt i32 %x, 0
  br i1 %c, label %neg, label %join
neg:
  %n = sub i32 0, %x
  br label %join
join:
  %r = phi i32 [ %n, %neg ], [ %x, %entry ]
  %q = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %r, ptr addrspace(1) %q, align 4
  ret void
}
