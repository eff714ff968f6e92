; __local variables move to per-work-group memory at fixed offsets (16-byte
; aligned), also when reached through constant expressions; CUDA's
; addrspacecast of a __shared__ array becomes an instruction on its new address.
; RUN: %simt-opt -passes=simt-wiloops -S %s | FileCheck %s
; RUN: %simt-opt -passes=simt-wiloops -S %s | FileCheck %s --check-prefix=GLOBALS

; CHECK-LABEL: define i32 @simt_wg_k(
; CHECK: %local.mem = load ptr, ptr
; CHECK: %[[A:[0-9]+]] = getelementptr inbounds i8, ptr %local.mem, i64 0
; CHECK: %[[AS:[0-9]+]] = addrspacecast ptr %[[A]] to ptr addrspace(3)
; CHECK: %[[B:[0-9]+]] = getelementptr inbounds i8, ptr %local.mem, i64 64
; CHECK: %[[BS:[0-9]+]] = addrspacecast ptr %[[B]] to ptr addrspace(3)
; CHECK: getelementptr inbounds [16 x float], ptr addrspace(3) %[[AS]], i64 0, i64 3
; CHECK: addrspacecast ptr addrspace(3) %[[BS]] to ptr
; GLOBALS: @simt_wg_k_local_bytes = constant i64 80
target triple = "nvptx64-nvidia-cuda"

@tile = internal addrspace(3) global [16 x float] undef, align 4
@flag = internal addrspace(3) global i32 undef, align 4

define ptx_kernel void @k(ptr %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  store float 1.0, ptr addrspace(3) getelementptr inbounds ([16 x float], ptr addrspace(3) @tile, i64 0, i64 3)
  store i32 %tid, ptr addrspacecast (ptr addrspace(3) @flag to ptr)
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %v = load float, ptr addrspace(3) getelementptr inbounds ([16 x float], ptr addrspace(3) @tile, i64 0, i64 3)
  store float %v, ptr %out
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32) convergent
