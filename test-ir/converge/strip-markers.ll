; simt-strip-markers removes the marker calls, the convergencectrl bundles
; and the convergence tokens, keeping everything else of the rebuilt calls
; (other bundles, attributes, metadata, names). A module without markers is
; left as it was, and stripping twice is stripping once.
; RUN: %simt-opt -passes='simt-converge<intrinsics>,simt-strip-markers' -S %s | FileCheck %s
; RUN: %simt-opt -passes='simt-converge<intrinsics>,simt-strip-markers' -S %s | %opt -passes=verify -disable-output
; RUN: %simt-opt -passes='simt-converge<intrinsics>,simt-strip-markers' -S %s -o %t.once.ll
; RUN: %simt-opt -passes='simt-converge<intrinsics>,simt-strip-markers,simt-strip-markers' -S %s -o %t.twice.ll
; RUN: diff %t.once.ll %t.twice.ll
; RUN: %simt-opt -passes='simt-converge,simt-strip-markers' -S %s -o %t.plain.ll
; RUN: diff %t.once.ll %t.plain.ll
; A module without markers or tokens is left as it was.
; RUN: %simt-opt -S %S/../examples/saxpy.ll -o %t.saxpy.ll
; RUN: %simt-opt -passes='simt-strip-markers' -S %S/../examples/saxpy.ll -o %t.saxpy.stripped.ll
; RUN: diff %t.saxpy.ll %t.saxpy.stripped.ll

; CHECK-NOT: simt.converge
; CHECK-NOT: convergence.
; CHECK-NOT: convergencectrl
; CHECK-LABEL: define i32 @f(
; CHECK:         %r = call i32 @g(i32 %x) #[[G:[0-9]+]] [ "deopt"(i32 1) ], !range ![[R:[0-9]+]]
; CHECK:         ret i32 %r
; CHECK-NOT: simt.converge
; CHECK-NOT: convergence.
; CHECK-NOT: convergencectrl
; CHECK: attributes #[[G]] = { convergent nounwind }
; CHECK: ![[R]] = !{i32 0, i32 10}

declare i32 @g(i32) convergent

define i32 @f(i1 %c, i32 %x) convergent {
entry:
  %tok = call token @llvm.experimental.convergence.entry()
  br i1 %c, label %a, label %b
a:
  br label %b
b:
  %r = call i32 @g(i32 %x) #0 [ "deopt"(i32 1), "convergencectrl"(token %tok) ], !range !0
  ret i32 %r
}

declare token @llvm.experimental.convergence.entry()

attributes #0 = { convergent nounwind }
!0 = !{i32 0, i32 10}
