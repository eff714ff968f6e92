; Work-item builtins of both dialects become values of the loop nest and the
; context: local ids are the induction variables, global ids
; group*size+local+offset, sizes come from ctx.
; RUN: %simt-opt -passes=simt-wiloops -S %s | FileCheck %s

; CHECK-LABEL: define i32 @simt_wg_k(
; CHECK: r0.item:
; CHECK: %[[GB:[0-9]+]] = mul nuw i64 %group.id, %enqueued
; CHECK: %[[GL:[0-9]+]] = add nuw i64 %[[GB]], %wi.x
; CHECK: %[[G:[0-9]+]] = add nuw i64 %[[GL]], %global.offset
; CHECK: getelementptr float, ptr addrspace(1) %arg0, i64 %[[G]]
; CHECK: %ly32 = trunc i64 %wi.y to i32
; CHECK-NOT: call {{.*}}@_Z
target triple = "spir64"

define spir_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %ys) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr float, ptr addrspace(1) %out, i64 %gid
  store float 1.0, ptr addrspace(1) %p
  %ly = call i64 @_Z12get_local_idj(i32 1)
  %ly32 = trunc i64 %ly to i32
  %q = getelementptr i32, ptr addrspace(1) %ys, i64 %gid
  store i32 %ly32, ptr addrspace(1) %q
  ret void
}
declare i64 @_Z13get_global_idj(i32)
declare i64 @_Z12get_local_idj(i32)
