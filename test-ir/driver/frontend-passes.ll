; The steps of simt-run's front ends that are not optimisations are passes
; hidden from -print-passes but runnable by name (src/frontend.rs builds
; each engine's front end as one pipeline of them):
; - simt-internalize<keep=K>: every definition but K internal (without
;   keep: but the kernels), declarations untouched;
; - simt-byval-to-private: the exported kernel's by-value parameter copied
;   into an alloca of its own, the parameter a plain pointer;
; - simt-always-inline-helpers: every function but the exported kernel
;   alwaysinline (noinline and optnone dropped), libdevice's __nv_* noinline.
;
; RUN: %simt-opt -print-passes | FileCheck %s --check-prefix=LIST
; RUN: %simt-opt -verify-analyses -passes='simt-internalize<keep=k>' -S %s | FileCheck %s --check-prefix=INTERNAL
; RUN: %simt-opt -verify-analyses -passes='simt-internalize' -S %s | FileCheck %s --check-prefix=KERNELS
; RUN: %simt-opt -verify-analyses -passes='simt-internalize<keep=k>,globaldce' -S %s | FileCheck %s --check-prefix=DCE
; RUN: %simt-opt -verify-analyses -passes='simt-internalize<keep=k>,simt-byval-to-private' -S %s | FileCheck %s --check-prefix=BYVAL
; RUN: %simt-opt -verify-analyses -passes='simt-internalize<keep=k>,globaldce,simt-always-inline-helpers' -S %s | FileCheck %s --check-prefix=MARK
; RUN: %simt-opt -verify-analyses -passes='simt-internalize<keep=k>,globaldce,simt-always-inline-helpers,always-inline' -S %s | FileCheck %s --check-prefix=INLINE
; RUN: not %simt-opt -passes='simt-internalize<keep=nope>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=NOPE

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spir64-unknown-unknown"

%struct.P = type { i32, float }

@table = global [4 x i32] [i32 1, i32 2, i32 3, i32 4]
@unused = global i32 0

define spir_kernel void @k(ptr addrspace(1) %out, ptr byval(%struct.P) align 4 %p) {
entry:
  %a = load i32, ptr %p
  %b = call i32 @helper(i32 %a)
  %s = call float @__nv_sinf(float 1.0)
  %t = fptosi float %s to i32
  %c = add i32 %b, %t
  store i32 %c, ptr addrspace(1) %out
  ret void
}

define spir_kernel void @other(ptr addrspace(1) %out) {
entry:
  call void @unused_helper()
  ret void
}

define i32 @helper(i32 %x) #0 {
entry:
  %i = and i32 %x, 3
  %g = getelementptr [4 x i32], ptr @table, i32 0, i32 %i
  %v = load i32, ptr %g
  %r = call i32 @ext(i32 %v)
  ret i32 %r
}

define void @unused_helper() {
entry:
  store i32 0, ptr @unused
  ret void
}

define float @__nv_sinf(float %x) #1 {
entry:
  ret float %x
}

declare i32 @ext(i32)

attributes #0 = { noinline optnone }
attributes #1 = { alwaysinline }

; LIST: simt passes
; LIST-NOT: simt-internalize
; LIST-NOT: simt-byval-to-private
; LIST-NOT: simt-always-inline-helpers

; INTERNAL: @table = internal global
; INTERNAL: @unused = internal global
; INTERNAL: define spir_kernel void @k(
; INTERNAL: define internal spir_kernel void @other(
; INTERNAL: define internal i32 @helper(
; INTERNAL: define internal void @unused_helper(
; INTERNAL: define internal float @__nv_sinf(
; INTERNAL: declare i32 @ext(i32)

; KERNELS: @table = internal global
; KERNELS: define spir_kernel void @k(
; KERNELS: define spir_kernel void @other(
; KERNELS: define internal i32 @helper(

; What @k does not reach is gone; what it reaches stays.
; DCE:     @table = internal global
; DCE-NOT: unused
; DCE-NOT: @other
; DCE:     define spir_kernel void @k(
; DCE-NOT: unused
; DCE-NOT: @other
; DCE:     define internal i32 @helper(
; DCE-NOT: unused
; DCE-NOT: @other
; DCE:     define internal float @__nv_sinf(
; DCE-NOT: unused
; DCE-NOT: @other

; %struct.P is { i32, float }: 8 bytes, copied with the parameter's align 4.
; BYVAL:      define spir_kernel void @k(ptr addrspace(1) %out, ptr align 4 %p) {
; BYVAL-NEXT: entry:
; BYVAL-NEXT:   %byval.copy = alloca %struct.P, align 4
; BYVAL-NEXT:   call void @llvm.memcpy.p0.p0.i64(ptr align 4 %byval.copy, ptr align 4 %p, i64 8, i1 false)
; BYVAL-NEXT:   %a = load i32, ptr %byval.copy
; BYVAL:      define internal spir_kernel void @other(
; BYVAL-NOT:  byval.copy

; MARK:      define spir_kernel void @k(ptr addrspace(1) %out, ptr byval(%struct.P) align 4 %p) {
; MARK:      define internal i32 @helper(i32 %x) [[HELPER:#[0-9]+]] {
; MARK:      define internal float @__nv_sinf(float %x) [[NV:#[0-9]+]] {
; MARK-DAG:  attributes [[HELPER]] = { alwaysinline }
; MARK-DAG:  attributes [[NV]] = { noinline }

; INLINE-LABEL: define spir_kernel void @k(
; INLINE-NOT:   call i32 @helper
; INLINE:       getelementptr [4 x i32], ptr @table
; INLINE:       call i32 @ext(
; INLINE:       call float @__nv_sinf(float 1.000000e+00)
; INLINE:       ret void

; NOPE: simt-internalize: no function named 'nope' is defined
