; simt-opt -mtriple retargets the module (triple and data layout) before any
; pass; simt-wiloops must size its slots with the new layout. It read a stale
; copy of the old one and failed ("LLVM: unknown specifier 'O'") on every
; NVPTX module retargeted to x86-64.
; RUN: %simt-opt -mtriple=x86_64-unknown-linux-gnu -passes=simt-wiloops -S %s | FileCheck %s
; RUN: %simt-opt -mtriple=x86_64-unknown-linux-gnu -passes=simt-wiloops -S %S/../kernels/vecadd.cu.ll | FileCheck %s --check-prefix=CU
; CU: define {{.*}}@simt_wg_vecadd(
; CHECK: target triple = "x86_64-unknown-linux-gnu"
; CHECK: define {{.*}}@simt_wg_k(
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @k(ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %q = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %tid, ptr addrspace(1) %q, align 4
  ret void
}
