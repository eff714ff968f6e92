; A private array whose values never cross a barrier is not expanded per
; work-item (seed 001's clean-up step, by seed 003's chains): %tmp is filled
; and read between the entry and the barrier, and again, refilled first,
; after it, so it becomes one [16 x i8] alloca of simt_wg_k; its accesses
; stay out of the parallel access group (the work-items share the copy).
; %keep is stored before the barrier and read after it, so it keeps its 16
; bytes per work-item of scratch: scratch_per_item is 16, not 32.
; RUN: %simt-opt -passes=simt-wiloops -S %s | FileCheck %s
; RUN: %simt-opt -passes=simt-wiloops -S %s | FileCheck %s --check-prefix=GLOBALS
; RUN: %simt-opt -passes='simt-wiloops,default<O2>' -disable-output %s
; The corpus kernel region_private.cl: its window `int win[8]` is refilled
; after each barrier before it is read, so it is one 32-byte alloca; what
; stays per work-item is acc and m (two i32 live across barriers; step is
; uniform and needs no slot per work-item, and the address &tile[lid] is
; recomputed after each barrier): 8 bytes instead of 40.
; RUN: %simt-opt -passes=simt-flatten-calls,simt-wiloops -S %S/../kernels/region_private.ll | FileCheck %s --check-prefix=CORPUS
; CORPUS: @simt_wg_region_private_scratch_per_item = constant i64 8
; CORPUS: define i32 @simt_wg_region_private(
; CORPUS-NEXT: entry:
; CORPUS: %private.wg{{[0-9]*}} = alloca [32 x i8], align 4

; GLOBALS: @simt_wg_k_scratch_per_item = constant i64 16
; CHECK-LABEL: define i32 @simt_wg_k(ptr %0, ptr %1)
; CHECK-NEXT: entry:
; CHECK-NEXT: %private.wg = alloca [16 x i8], align 16
; CHECK-NOT: alloca
; CHECK: r0.item:
; CHECK: store i32 %v, ptr %private.wg, align 4{{$}}
; CHECK: store i32 %v, ptr %private, align 4, !alias.scope !{{[0-9]+}}, !noalias !{{[0-9]+}}, !llvm.access.group
; CHECK: r1.item:
; CHECK: store i32 %w, ptr %private.wg, align 4{{$}}
; @k2: after the barrier only element 0 is refilled and element 1 is read:
; its bytes are the ones this work-item stored before the barrier, so the
; array keeps its copy per work-item.
; GLOBALS: @simt_wg_k2_scratch_per_item = constant i64 16
; CHECK-LABEL: define i32 @simt_wg_k2(ptr %0, ptr %1)
; CHECK-NOT: private.wg
; CHECK: ret i32
target triple = "spir64"

define spir_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %tmp = alloca [4 x i32], align 16
  %keep = alloca [4 x i32], align 16
  %lid = call i64 @_Z12get_local_idj(i32 0)
  %pin = getelementptr i32, ptr addrspace(1) %in, i64 %lid
  %v = load i32, ptr addrspace(1) %pin
  store i32 %v, ptr %tmp
  %t1 = getelementptr i32, ptr %tmp, i64 1
  %lid.t = trunc i64 %lid to i32
  store i32 %lid.t, ptr %t1
  %sel = and i64 %lid, 1
  %ts = getelementptr i32, ptr %tmp, i64 %sel
  %a = load i32, ptr %ts
  store i32 %v, ptr %keep
  %po = getelementptr i32, ptr addrspace(1) %out, i64 %lid
  store i32 %a, ptr addrspace(1) %po
  call void @_Z7barrierj(i32 1)
  %w = add i32 %lid.t, 7
  store i32 %w, ptr %tmp
  %b = load i32, ptr %tmp
  %k = load i32, ptr %keep
  %s = add i32 %b, %k
  %po2 = getelementptr i32, ptr addrspace(1) %out, i64 %lid
  store i32 %s, ptr addrspace(1) %po2
  ret void
}

define spir_kernel void @k2(ptr addrspace(1) %out) {
entry:
  %tmp = alloca [4 x i32], align 16
  %lid = call i64 @_Z12get_local_idj(i32 0)
  %lid.t = trunc i64 %lid to i32
  store i32 %lid.t, ptr %tmp
  %t1 = getelementptr i32, ptr %tmp, i64 1
  store i32 %lid.t, ptr %t1
  call void @_Z7barrierj(i32 1)
  store i32 3, ptr %tmp
  %t1b = getelementptr i32, ptr %tmp, i64 1
  %b = load i32, ptr %t1b
  %po = getelementptr i32, ptr addrspace(1) %out, i64 %lid
  store i32 %b, ptr addrspace(1) %po
  ret void
}

declare i64 @_Z12get_local_idj(i32)
declare void @_Z7barrierj(i32)
