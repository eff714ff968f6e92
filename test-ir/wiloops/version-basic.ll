; simt-wiloops-version on the shape of vecadd's work-item loop: the guard
; `n > trunc(base + x)` over x in [0, 256) holds for every x iff it holds at
; x = 0 and x = 255 and trunc(base + x) does not wrap past INT_MAX between
; them (signed, as the compare), i.e. t(0) <=s t(255). The preheader tests
; exactly that; the copy of the loop (.fast) branches straight to the guarded
; store, the original keeps its guard, and both latches leave to the exit,
; each with its own loop id over the same access group.
; RUN: %simt-opt -passes='simt-wiloops-version<remarks;no-split>' -S %s -o - 2>%t.remarks | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks

; REMARK: simt-wiloops-version: f: loop %x (256 trips): versioned on 1 guard(s)

; CHECK-LABEL: define void @f(
; CHECK: entry:
; CHECK-NEXT: [[G0:%.*]] = add i64 %base, 0
; CHECK-NEXT: [[T0:%.*]] = trunc i64 [[G0]] to i32
; CHECK-NEXT: [[GL:%.*]] = add i64 %base, 255
; CHECK-NEXT: [[TL:%.*]] = trunc i64 [[GL]] to i32
; CHECK-NEXT: %wiver.first = icmp sgt i32 %n, [[T0]]
; CHECK-NEXT: %wiver.last = icmp sgt i32 %n, [[TL]]
; CHECK-NEXT: %wiver.nowrap = icmp sle i32 [[T0]], [[TL]]
; CHECK-NEXT: [[ENDS:%.*]] = and i1 %wiver.first, %wiver.last
; CHECK-NEXT: [[ALL:%.*]] = and i1 [[ENDS]], %wiver.nowrap
; CHECK-NEXT: %wiver.ok = freeze i1 [[ALL]]
; CHECK-NEXT: br i1 %wiver.ok, label %x.fast, label %x
; CHECK: x:
; CHECK-NEXT: %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
; CHECK: br i1 %in, label %then, label %latch
; CHECK: latch:
; CHECK: br i1 %c, label %x, label %exit, !llvm.loop [[ORIG:![0-9]+]]
; CHECK: x.fast:
; CHECK-NEXT: %i.fast = phi i64 [ 0, %entry ], [ %i.next.fast, %latch.fast ]
; CHECK-NOT: br i1
; CHECK: br label %then.fast
; CHECK: then.fast:
; CHECK-NEXT: %p.fast = getelementptr inbounds i32, ptr %a, i64 %i.fast
; CHECK-NEXT: store i32 %t.fast, ptr %p.fast, align 4, !llvm.access.group [[GROUP:![0-9]+]]
; CHECK: latch.fast:
; CHECK: br i1 %c.fast, label %x.fast, label %exit, !llvm.loop [[FAST:![0-9]+]]
; CHECK: exit:
; CHECK-NEXT: ret void
; CHECK: [[ORIG]] = distinct !{[[ORIG]], [[PA:![0-9]+]]}
; CHECK: [[PA]] = !{!"llvm.loop.parallel_accesses", [[GROUP]]}
; CHECK: [[FAST]] = distinct !{[[FAST]], [[PA]]}

define void @f(ptr %a, i32 %n, i64 %base) {
entry:
  br label %x

x:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %gid = add nuw i64 %base, %i
  %t = trunc i64 %gid to i32
  %in = icmp sgt i32 %n, %t
  br i1 %in, label %then, label %latch

then:
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 %t, ptr %p, align 4, !llvm.access.group !0
  br label %latch

latch:
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, 256
  br i1 %c, label %x, label %exit, !llvm.loop !1

exit:
  ret void
}

!0 = distinct !{}
!1 = distinct !{!1, !2}
!2 = !{!"llvm.loop.parallel_accesses", !0}
