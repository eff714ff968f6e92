; Which CUDA functions are kernels: `ptx_kernel` functions and functions
; marked in !nvvm.annotations have uniform arguments; other (device)
; functions may be called with anything, so their arguments are divergent.
; Compared with LLVM's print<uniformity> for nvptx64, then checked by hand.
; RUN: %opt -passes='print<uniformity>' -disable-output %s 2>&1 | %python %tools/divergent.py > %t.llvm
; RUN: %simt-opt -passes='print<simt-uniformity>' -disable-output %s 2>&1 | %python %tools/divergent.py > %t.simt
; RUN: diff %t.llvm %t.simt
; RUN: %simt-opt -passes='print<simt-uniformity>' -disable-output %s 2>&1 | FileCheck %s

target triple = "nvptx64-nvidia-cuda"

; CHECK-LABEL: simt-uniformity for function 'cc_kernel':
; CHECK-NEXT:    kernel: arguments are uniform
; CHECK-NEXT:    divergent branches: {{$}}
define ptx_kernel void @cc_kernel(ptr addrspace(1) %p, i32 %x) {
  %y = add i32 %x, 1
  store i32 %y, ptr addrspace(1) %p
  ret void
}

; CHECK-LABEL: simt-uniformity for function 'annotated_kernel':
; CHECK-NEXT:    kernel: arguments are uniform
; CHECK-NEXT:    divergent branches: {{$}}
define void @annotated_kernel(ptr addrspace(1) %p, i32 %x) {
  %y = add i32 %x, 1
  store i32 %y, ptr addrspace(1) %p
  ret void
}

; CHECK-LABEL: simt-uniformity for function 'device_fn':
; CHECK-NEXT:    not a kernel: arguments are divergent
; CHECK-NEXT:    DIVERGENT ARGUMENT: %p
; CHECK-NEXT:    DIVERGENT ARGUMENT: %x
; CHECK-NEXT:    DIVERGENT:   %y = add i32 %x, 1
; CHECK-NEXT:    DIVERGENT:   %c = icmp eq i32 %y, 0
; CHECK-NEXT:    DIVERGENT:   br i1 %c
; CHECK-NEXT:    DIVERGENT:   %r = phi
; CHECK-NEXT:    DIVERGENT:   store i32 %r, ptr addrspace(1) %p
define void @device_fn(ptr addrspace(1) %p, i32 %x) {
entry:
  %y = add i32 %x, 1
  %c = icmp eq i32 %y, 0
  br i1 %c, label %then, label %join
then:
  br label %join
join:
  %r = phi i32 [ 1, %then ], [ 2, %entry ]
  store i32 %r, ptr addrspace(1) %p
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @annotated_kernel, !"kernel", i32 1}
