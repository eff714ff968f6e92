; simt-wiloops-version on equality guards (stencil2d's border test). Over
; x in [0, 256), g(x) = trunc(base + x) takes exactly the values of
; [g(0), g(255)] when they come in order (unsigned, no wrap), so `g == u` is
; false for every x, and `g != u` true, iff u lies outside them:
; u <u g(0) or u >u g(255). That is the whole test, with no compare at the
; ends; the fast copy of @border takes the interior side straight away.
; @ne: `g != n` needed true (the then side), the same test.
; RUN: %simt-opt -passes='simt-wiloops-version<remarks>' -S %s -o - 2>%t.remarks | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks

; REMARK: simt-wiloops-version: border: loop %x (256 trips): versioned on 1 guard(s)
; REMARK-NEXT: simt-wiloops-version: ne: loop %x (256 trips): versioned on 1 guard(s)

; CHECK-LABEL: define void @border(
; CHECK: entry:
; CHECK-NEXT: [[G0:%.*]] = add i64 %base, 0
; CHECK-NEXT: [[T0:%.*]] = trunc i64 [[G0]] to i32
; CHECK-NEXT: [[GL:%.*]] = add i64 %base, 255
; CHECK-NEXT: [[TL:%.*]] = trunc i64 [[GL]] to i32
; CHECK-NEXT: %wiver.below = icmp ult i32 0, [[T0]]
; CHECK-NEXT: %wiver.above = icmp ugt i32 0, [[TL]]
; CHECK-NEXT: %wiver.outside = or i1 %wiver.below, %wiver.above
; CHECK-NEXT: %wiver.nowrap = icmp ule i32 [[T0]], [[TL]]
; CHECK-NEXT: [[A:%.*]] = and i1 %wiver.outside, %wiver.nowrap
; CHECK-NEXT: [[W1:%.*]] = sub i32 %w, 1
; CHECK-NEXT: %wiver.below1 = icmp ult i32 [[W1]], [[T0]]
; CHECK-NEXT: %wiver.above2 = icmp ugt i32 [[W1]], [[TL]]
; CHECK-NEXT: %wiver.outside3 = or i1 %wiver.below1, %wiver.above2
; CHECK-NEXT: %wiver.nowrap4 = icmp ule i32 [[T0]], [[TL]]
; CHECK-NEXT: [[B:%.*]] = and i1 %wiver.outside3, %wiver.nowrap4
; CHECK-NEXT: [[AB:%.*]] = and i1 [[A]], [[B]]
; CHECK-NEXT: %wiver.ok = freeze i1 [[AB]]
; CHECK-NEXT: br i1 %wiver.ok, label %x.fast, label %x
; CHECK: x.fast:
; CHECK-NOT: br i1
; CHECK: br label %inner.fast
; CHECK-LABEL: define void @ne(
; CHECK: %wiver.below = icmp ult i32 %n, [[T0:%.*]]
; CHECK-NEXT: %wiver.above = icmp ugt i32 %n, [[TL:%.*]]
; CHECK: br i1 %wiver.ok, label %x.fast, label %x
; CHECK: x.fast:
; CHECK-NOT: br i1
; CHECK: br label %then.fast

define void @border(ptr %a, i32 %w, i64 %base) {
entry:
  br label %x

x:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %gid = add nuw i64 %base, %i
  %t = trunc i64 %gid to i32
  %first = icmp eq i32 %t, 0
  %wm1 = sub i32 %w, 1
  %last = icmp eq i32 %t, %wm1
  %edge = or i1 %first, %last
  br i1 %edge, label %edgecase, label %inner

edgecase:
  %pe = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 0, ptr %pe, align 4, !llvm.access.group !0
  br label %latch

inner:
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

define void @ne(ptr %a, i32 %n, i64 %base) {
entry:
  br label %x

x:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %gid = add nuw i64 %base, %i
  %t = trunc i64 %gid to i32
  %in = icmp ne i32 %t, %n
  br i1 %in, label %then, label %latch

then:
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 %t, ptr %p, align 4, !llvm.access.group !2
  br label %latch

latch:
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, 256
  br i1 %c, label %x, label %exit, !llvm.loop !3

exit:
  ret void
}

!0 = distinct !{}
!1 = distinct !{!1, !4}
!2 = distinct !{}
!3 = distinct !{!3, !5}
!4 = !{!"llvm.loop.parallel_accesses", !0}
!5 = !{!"llvm.loop.parallel_accesses", !2}
