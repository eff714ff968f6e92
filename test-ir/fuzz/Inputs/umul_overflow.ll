; clang-22 -O1 emits llvm.umul.with.overflow on narrow types for OpenCL C
; loops (the kernel fuzzer's seed 1013: `pb[(i * 3u + gid * 3u) & 7u]` in a
; loop of `v & 7u` trips gave llvm.umul.with.overflow.i3). Hand-reduced:
; out[gid] = overflow of (gid & 7) * 3 in 3 bits, then the 3-bit product.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spir64-unknown-unknown"

define spir_kernel void @k(ptr addrspace(1) %out) !kernel_arg_addr_space !0 !kernel_arg_access_qual !1 !kernel_arg_type !2 !kernel_arg_base_type !2 !kernel_arg_type_qual !3 {
  %gid64 = call i64 @_Z13get_global_idj(i32 0)
  %gid = trunc i64 %gid64 to i32
  %n = trunc i32 %gid to i3
  %r = call { i3, i1 } @llvm.umul.with.overflow.i3(i3 %n, i3 3)
  %prod = extractvalue { i3, i1 } %r, 0
  %ovf = extractvalue { i3, i1 } %r, 1
  %p = zext i3 %prod to i32
  %o = zext i1 %ovf to i32
  %o8 = shl i32 %o, 8
  %v = or i32 %p, %o8
  %slot = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid64
  store i32 %v, ptr addrspace(1) %slot, align 4
  ret void
}

declare i64 @_Z13get_global_idj(i32)
declare { i3, i1 } @llvm.umul.with.overflow.i3(i3, i3)

!0 = !{i32 1}
!1 = !{!"none"}
!2 = !{!"uint*"}
!3 = !{!""}
