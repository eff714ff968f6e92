; simt-widen-indices: `int` index arithmetic over an exact truncation of a
; work-item id is rebuilt in 64 bits; without `ids-fit-i32` nothing marks
; the truncation exact and the extension stays.
; RUN: %simt-opt -passes='simt-widen-indices<ids-fit-i32>' -S %s | FileCheck %s --check-prefix=FIT
; RUN: %simt-opt -passes='simt-widen-indices' -S %s | FileCheck %s --check-prefix=NOFACT
;
; `in[y * w + x - 1]`, x and y `int` global ids: the ids' truncations
; become `nuw nsw`, and the load's index is y64 * sext(w) + x64 - 1 in i64
; (nsw), with no `sext` of the narrow sum.
; FIT-LABEL: define spir_kernel void @rows(
; FIT: %x = trunc nuw nsw i64 %gx to i32
; FIT: %y = trunc nuw nsw i64 %gy to i32
; FIT: [[W:%.*]] = sext i32 %w to i64
; FIT: [[YW:%.*]] = mul nsw i64 %gy, [[W]]
; FIT: [[S:%.*]] = add nsw i64 [[YW]], %gx
; FIT: [[I:%.*]] = add nsw i64 [[S]], -1
; FIT: getelementptr float, ptr addrspace(1) %in, i64 [[I]]
; The store's `zext nneg` of `x << 2` (nsw) is widened too.
; FIT: [[X4:%.*]] = mul nsw i64 %gx, 4
; FIT: getelementptr float, ptr addrspace(1) %out, i64 [[X4]]
; Unsigned (no nsw) arithmetic wraps in 32 bits: its extension stays.
; FIT: %u = add i32 %x, %w
; FIT: sext i32 %u to i64
; A truncation of something that is not a work-item function is not
; marked: it becomes a sign-extended leaf of the widened tree.
; FIT: %t = trunc i64 %big to i32
; FIT: [[T:%.*]] = sext i32 %t to i64
; FIT: add nsw i64 [[T]], %gx
; FIT: ret void
;
; NOFACT-LABEL: define spir_kernel void @rows(
; NOFACT: %x = trunc i64 %gx to i32
; NOFACT: %i = add nsw i32 %yw1, -1
; NOFACT: sext i32 %i to i64
; NOFACT: zext nneg i32 %x4 to i64

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spir64"

declare spir_func i64 @_Z13get_global_idj(i32)

define spir_kernel void @rows(ptr addrspace(1) %in, ptr addrspace(1) %out, i32 %w, i64 %big) {
entry:
  %gx = call spir_func i64 @_Z13get_global_idj(i32 0)
  %x = trunc i64 %gx to i32
  %gy = call spir_func i64 @_Z13get_global_idj(i32 1)
  %y = trunc i64 %gy to i32
  %yw = mul nsw i32 %y, %w
  %yw1 = add nsw i32 %yw, %x
  %i = add nsw i32 %yw1, -1
  %i64 = sext i32 %i to i64
  %p = getelementptr float, ptr addrspace(1) %in, i64 %i64
  %v = load float, ptr addrspace(1) %p, align 4
  %x4 = shl nsw i32 %x, 2
  %x4w = zext nneg i32 %x4 to i64
  %q = getelementptr float, ptr addrspace(1) %out, i64 %x4w
  store float %v, ptr addrspace(1) %q, align 4
  %u = add i32 %x, %w
  %u64 = sext i32 %u to i64
  %r = getelementptr float, ptr addrspace(1) %out, i64 %u64
  store float %v, ptr addrspace(1) %r, align 4
  %t = trunc i64 %big to i32
  %tw = add nsw i32 %t, %x
  %t64 = sext i32 %tw to i64
  %s = getelementptr float, ptr addrspace(1) %out, i64 %t64
  store float %v, ptr addrspace(1) %s, align 4
  ret void
}
