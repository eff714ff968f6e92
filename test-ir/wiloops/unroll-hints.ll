; simt-wiloops drops the `!llvm.loop` of kernel loops that only say
; `llvm.loop.unroll.disable` (and `mustprogress`): clang puts that mark on
; every loop at -O0/-O1, and inside a work-item loop a rolled kernel loop
; keeps the work-item loop from being the one O3 vectorises (matmul.ll's
; 16-step inner product ran 6.7x slower with it; BENCHMARKS.md). A loop with
; another hint keeps all of its hints. Both loops sum in[0..n) into out[gid].
; RUN: %simt-opt -passes=simt-wiloops -S %s | FileCheck %s
; RUN: rm -rf %t && mkdir -p %t
; RUN: simt-run %s --kernel k --global 64 --local 16 --arg buf:i32:40=rand:1 --arg buf:i32:64 --arg buf:i32:64 --arg i32:40 --dump %t
; RUN: simt-run %s --kernel k --engine emu --global 64 --local 16 --arg buf:i32:40=rand:1 --arg buf:i32:64 --arg buf:i32:64 --arg i32:40 --compare %t

; CHECK-LABEL: define i32 @simt_wg_k(
; CHECK:     br i1 %{{.*}}, label %{{.*}}, label %{{.*}}, !llvm.loop ![[KEPT:[0-9]+]]
; CHECK-NOT: !llvm.loop ![[KEPT]]
; CHECK:     ![[KEPT]] = distinct !{![[KEPT]], ![[OFF:[0-9]+]], ![[WIDTH:[0-9]+]]}
; CHECK:     ![[OFF]] = !{!"llvm.loop.unroll.disable"}
; CHECK:     ![[WIDTH]] = !{!"llvm.loop.vectorize.width", i32 4}

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"

define spir_kernel void @k(ptr addrspace(1) %in, ptr addrspace(1) %out, ptr addrspace(1) %out2, i32 %n) {
entry:
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  br label %a

a:
  %i = phi i32 [ 0, %entry ], [ %i.next, %a ]
  %s = phi i32 [ 0, %entry ], [ %s.next, %a ]
  %pi = getelementptr inbounds i32, ptr addrspace(1) %in, i32 %i
  %v = load i32, ptr addrspace(1) %pi
  %s.next = add i32 %s, %v
  %i.next = add i32 %i, 1
  %more = icmp slt i32 %i.next, %n
  br i1 %more, label %a, label %a.done, !llvm.loop !0

a.done:
  %po = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %s.next, ptr addrspace(1) %po
  br label %b

b:
  %j = phi i32 [ 0, %a.done ], [ %j.next, %b ]
  %t = phi i32 [ 0, %a.done ], [ %t.next, %b ]
  %pj = getelementptr inbounds i32, ptr addrspace(1) %in, i32 %j
  %w = load i32, ptr addrspace(1) %pj
  %t.next = add i32 %t, %w
  %j.next = add i32 %j, 1
  %more2 = icmp slt i32 %j.next, %n
  br i1 %more2, label %b, label %b.done, !llvm.loop !3

b.done:
  %po2 = getelementptr inbounds i32, ptr addrspace(1) %out2, i64 %gid
  store i32 %t.next, ptr addrspace(1) %po2
  ret void
}

declare spir_func i64 @_Z13get_global_idj(i32)

!0 = distinct !{!0, !1, !2}
!1 = !{!"llvm.loop.mustprogress"}
!2 = !{!"llvm.loop.unroll.disable"}
!3 = distinct !{!3, !2, !4}
!4 = !{!"llvm.loop.vectorize.width", i32 4}
