; simt-converge<intrinsics>: the markers with LLVM's convergence control
; tokens, accepted by the verifier. The root token is convergence.entry in a
; convergent function, each loop has a heart (convergence.loop) at its
; header, and every convergent call of the function (here OpenCL's barrier)
; gets a convergencectrl bundle too: LLVM rejects a function mixing
; controlled and uncontrolled convergent calls.
; RUN: %simt-opt -passes='simt-converge<intrinsics>' -S %s | FileCheck %s
; RUN: %simt-opt -passes='simt-converge<intrinsics>' -S %s | %opt -passes=verify -disable-output
; A second run changes nothing.
; RUN: %simt-opt -passes='simt-converge<intrinsics>' -S %s -o %t.once.ll
; RUN: %simt-opt -passes='simt-converge<intrinsics>,simt-converge<intrinsics>' -S %s -o %t.twice.ll
; RUN: diff %t.once.ll %t.twice.ll
; Markers of an earlier plain run get tokens too.
; RUN: %simt-opt -passes='simt-converge,simt-converge<intrinsics>' -S %s -o %t.after-plain.ll
; RUN: %opt -passes=verify -disable-output %t.after-plain.ll
; RUN: FileCheck %s --check-prefix=AFTER < %t.after-plain.ll
; LLVM's pipeline keeps the tokens valid here (it inlines @helper, replacing
; its entry token by the call's) ...
; RUN: %simt-opt -passes='simt-converge<intrinsics>,default<O2>' -S %s | %opt -passes=verify -disable-output
; RUN: %simt-opt -passes='simt-converge<intrinsics>,default<O2>' -S %s | FileCheck %s --check-prefix=O2
; ... and plain markers added to a function that already uses tokens take
; anchors, so that it stays controlled.
; RUN: %simt-opt -passes='simt-converge' -S %s | FileCheck %s --check-prefix=PLAIN
; RUN: %simt-opt -passes='simt-converge' -S %s | %opt -passes=verify -disable-output

target triple = "spir64"

declare spir_func i64 @_Z12get_local_idj(i32)
declare spir_func void @_Z7barrierj(i32) convergent

; CHECK-LABEL: define spir_kernel void @loop_barrier(
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[ROOT:%.*]] = call token @llvm.experimental.convergence.entry()
; CHECK:       head:
; CHECK-NEXT:    %i = phi
; CHECK-NEXT:    [[LOOP:%.*]] = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token [[ROOT]]) ]
; CHECK-NEXT:    call void @simt.converge(i32 1) [ "convergencectrl"(token [[LOOP]]) ]
; CHECK:       odd:
; CHECK-NEXT:    call void @simt.converge(i32 3) [ "convergencectrl"(token [[LOOP]]) ]
; CHECK:       latch:
; CHECK-NEXT:    call void @simt.converge(i32 4) [ "convergencectrl"(token [[LOOP]]) ]
; CHECK-NEXT:    call spir_func void @_Z7barrierj(i32 1) #{{[0-9]+}} [ "convergencectrl"(token [[LOOP]]) ]
; The loop's exit target is checked too, under the function's root token.
; CHECK:       exit:
; CHECK-NEXT:    call void @simt.converge(i32 5) [ "convergencectrl"(token [[ROOT]]) ]
; CHECK-NEXT:    call void @helper(ptr addrspace(1) %out) #{{[0-9]+}} [ "convergencectrl"(token [[ROOT]]) ]
define spir_kernel void @loop_barrier(ptr addrspace(1) %out, i32 %n) convergent {
entry:
  %lid = call spir_func i64 @_Z12get_local_idj(i32 0)
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %i1, %latch ]
  %l = trunc i64 %lid to i32
  %x = add i32 %l, %i
  %bit = and i32 %x, 1
  %isodd = icmp eq i32 %bit, 1
  br i1 %isodd, label %even, label %odd
even:
  store i32 0, ptr addrspace(1) %out
  br label %latch
odd:
  store i32 1, ptr addrspace(1) %out
  br label %latch
latch:
  call spir_func void @_Z7barrierj(i32 1) #0
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %head, label %exit
exit:
  call void @helper(ptr addrspace(1) %out) #0
  ret void
}

; CHECK-LABEL: define internal void @helper(
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[E:%.*]] = call token @llvm.experimental.convergence.entry()
; CHECK:       join:
; CHECK-NEXT:    call void @simt.converge(i32 2) [ "convergencectrl"(token [[E]]) ]
; CHECK-NEXT:    call spir_func void @_Z7barrierj(i32 1) #{{[0-9]+}} [ "convergencectrl"(token [[E]]) ]
define internal void @helper(ptr addrspace(1) %out) convergent {
entry:
  %lid = call spir_func i64 @_Z12get_local_idj(i32 0)
  %c = icmp ult i64 %lid, 4
  br i1 %c, label %a, label %join
a:
  store i32 7, ptr addrspace(1) %out
  br label %join
join:
  call spir_func void @_Z7barrierj(i32 1) #0
  ret void
}

; A function that already uses convergence control keeps its tokens; new
; markers take anchors in both modes.
; CHECK-LABEL: define void @controlled(
; CHECK:       join:
; CHECK-NEXT:    [[A:%.*]] = call token @llvm.experimental.convergence.anchor()
; CHECK-NEXT:    call void @simt.converge(i32 2) [ "convergencectrl"(token [[A]]) ]
; CHECK-NEXT:    call spir_func void @_Z7barrierj(i32 1) [ "convergencectrl"(token %tok) ]
; PLAIN-LABEL: define void @controlled(
; PLAIN:       join:
; PLAIN-NEXT:    [[A:%.*]] = call token @llvm.experimental.convergence.anchor()
; PLAIN-NEXT:    call void @simt.converge(i32 2) [ "convergencectrl"(token [[A]]) ]
define void @controlled(i1 %c) convergent {
entry:
  %tok = call token @llvm.experimental.convergence.entry()
  br i1 %c, label %a, label %join
a:
  br label %join
join:
  call spir_func void @_Z7barrierj(i32 1) [ "convergencectrl"(token %tok) ]
  ret void
}

; AFTER-LABEL: define spir_kernel void @loop_barrier(
; AFTER:       latch:
; AFTER-NEXT:    call void @simt.converge(i32 4) [ "convergencectrl"(token [[LOOP:%.*]]) ]
; AFTER-NEXT:    call spir_func void @_Z7barrierj(i32 1) #{{[0-9]+}} [ "convergencectrl"(token [[LOOP]]) ]

; O2-LABEL: define spir_kernel void @loop_barrier(
; O2:         call token @llvm.experimental.convergence.entry()
; O2:         call token @llvm.experimental.convergence.loop()
; O2:         call void @simt.converge(i32 4)
; O2:         call spir_func void @_Z7barrierj(i32 1) {{.*}}[ "convergencectrl"

declare token @llvm.experimental.convergence.entry()

attributes #0 = { convergent nounwind }
