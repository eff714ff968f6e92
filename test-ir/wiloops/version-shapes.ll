; simt-wiloops-version on guard trees, both branch polarities, a step of -1,
; a `!=` latch test, a value used after the loop and a loop nested in the
; work-item loop.
;
; @tree: `(t < w) && (h > y)` (a select, h > y invariant) must hold for
; every x: the fast copy goes to %then, and %join's phi loses its entry
; from %x. `(r >= w) || (t < 0)` must fail for every x: the fast copy goes to
; %body2, the tests are the inverted compares r < w and t >= 0; r = 1000 - x
; falls (step -1), so its wrap test is r(63) <= r(0), 937 <= 1000, folded.
; %last, used after the loop, meets its copy in a phi of the exit.
; @forwarded and @nested run 16 work-items, below the default min-trips (32):
; min-trips=16 takes them here. In a loop of at most 32 trips the checked
; copy is kept scalar (`llvm.loop.vectorize.enable` false, @nested's outer
; loop).
; RUN: %simt-opt -passes='simt-wiloops-version<remarks;min-trips=16;no-split>' -S %s -o - 2>%t.remarks | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks

; REMARK: simt-wiloops-version: forwarded: loop %x (16 trips): versioned on 1 guard(s)
; REMARK: simt-wiloops-version: tree: loop %x (64 trips): versioned on 2 guard(s)
; REMARK: simt-wiloops-version: nested: loop %x (16 trips): versioned on 1 guard(s)

; @forwarded: the bound's term reaches the guard through a single-entry phi
; (as simt-wiloops leaves a uniform value of the region): it passes %kk on
; whatever the edge, so it is invariant and rebuilt before the loop.
; CHECK-LABEL: define void @forwarded(
; CHECK: entry:
; CHECK-NEXT: [[KK:%.*]] = add i32 %k, 16
; CHECK-NEXT: [[S0:%.*]] = add i32 [[KK]], 0
; CHECK-NEXT: [[SL:%.*]] = add i32 [[KK]], 15
; CHECK-NEXT: %wiver.first = icmp slt i32 [[S0]], %n
; CHECK-NEXT: %wiver.last = icmp slt i32 [[SL]], %n
; CHECK-NEXT: %wiver.nowrap = icmp sle i32 [[S0]], [[SL]]
; CHECK: br i1 %wiver.ok, label %x.fast, label %x
; CHECK: mid.fast:
; CHECK: br label %then.fast

; CHECK-LABEL: define i32 @tree(
; CHECK: entry:
; CHECK-NEXT: [[G0:%.*]] = add i64 %base, 0
; CHECK-NEXT: [[T0:%.*]] = trunc i64 [[G0]] to i32
; CHECK-NEXT: [[GL:%.*]] = add i64 %base, 63
; CHECK-NEXT: [[TL:%.*]] = trunc i64 [[GL]] to i32
; CHECK-NEXT: %wiver.first = icmp slt i32 [[T0]], %w
; CHECK-NEXT: %wiver.last = icmp slt i32 [[TL]], %w
; CHECK-NEXT: %wiver.nowrap = icmp sle i32 [[T0]], [[TL]]
; CHECK: [[INY:%.*]] = icmp sgt i32 %h, %y
; CHECK: %wiver.first{{[0-9]+}} = icmp slt i32 1000, %w
; CHECK-NEXT: %wiver.last{{[0-9]+}} = icmp slt i32 937, %w
; CHECK: %wiver.first{{[0-9]+}} = icmp sge i32 [[T0]], 0
; CHECK-NEXT: %wiver.last{{[0-9]+}} = icmp sge i32 [[TL]], 0
; CHECK-NEXT: %wiver.nowrap{{[0-9]+}} = icmp sle i32 [[T0]], [[TL]]
; CHECK: %wiver.ok = freeze i1
; CHECK-NEXT: br i1 %wiver.ok, label %x.fast, label %x
; CHECK: br i1 %both, label %then, label %join
; CHECK: br i1 %out, label %latch, label %body2
; CHECK: x.fast:
; CHECK-NOT: br i1
; CHECK: br label %then.fast
; CHECK: join.fast:
; CHECK-NEXT: %v.fast = phi i32 [ 1, %then.fast ]
; CHECK-NOT: br i1
; CHECK: br label %body2.fast
; CHECK: latch.fast:
; CHECK-NEXT: %last.fast = phi i32 [ 7, %body2.fast ]
; CHECK: br i1 %c.fast, label %x.fast, label %exit
; CHECK: exit:
; CHECK-NEXT: %last.lcssa = phi i32 [ %last, %latch ], [ %last.fast, %latch.fast ]
; CHECK-NEXT: ret i32 %last.lcssa

; CHECK-LABEL: define void @nested(
; CHECK: entry:
; CHECK-NEXT: %wiver.first = icmp ult i32 0, %n
; CHECK-NEXT: %wiver.last = icmp ult i32 15, %n
; CHECK: br i1 %more, label %inner, label %latch, !llvm.loop [[INNER:![0-9]+]]
; CHECK: br i1 %c, label %x, label %exit, !llvm.loop [[OUTER:![0-9]+]]
; CHECK: x.fast:
; CHECK: br label %inner.fast
; CHECK: br i1 %more.fast, label %inner.fast, label %latch.fast, !llvm.loop [[INNER_FAST:![0-9]+]]
; CHECK: br i1 %c.fast, label %x.fast, label %exit, !llvm.loop [[OUTER_FAST:![0-9]+]]
; CHECK-DAG: [[OUTER]] = distinct !{[[OUTER]], [[PA:![0-9]+]], [[SCALAR:![0-9]+]]}
; CHECK-DAG: [[SCALAR]] = !{!"llvm.loop.vectorize.enable", i1 false}
; CHECK-DAG: [[INNER]] = distinct !{[[INNER]], [[MP:![0-9]+]]}
; CHECK-DAG: [[INNER_FAST]] = distinct !{[[INNER_FAST]], [[MP]]}
; CHECK-DAG: [[OUTER_FAST]] = distinct !{[[OUTER_FAST]], [[PA]]}

define void @forwarded(ptr %a, i32 %n, i32 %k) {
entry:
  br label %x

x:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %kk = add i32 %k, 16
  br label %mid

mid:
  %kp = phi i32 [ %kk, %x ]
  %t = trunc i64 %i to i32
  %s = add i32 %kp, %t
  %in = icmp slt i32 %s, %n
  br i1 %in, label %then, label %latch

then:
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 %s, ptr %p, align 4, !llvm.access.group !0
  br label %latch

latch:
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, 16
  br i1 %c, label %x, label %exit, !llvm.loop !1

exit:
  ret void
}

define i32 @tree(ptr %a, i32 %w, i32 %h, i32 %y, i64 %base) {
entry:
  br label %x

x:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %gid = add i64 %base, %i
  %t = trunc i64 %gid to i32
  %inx = icmp slt i32 %t, %w
  %iny = icmp sgt i32 %h, %y
  %both = select i1 %inx, i1 %iny, i1 false
  br i1 %both, label %then, label %join

then:
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 1, ptr %p, align 4, !llvm.access.group !0
  br label %join

join:
  %v = phi i32 [ 1, %then ], [ 0, %x ]
  %rev = sub i64 1000, %i
  %r = trunc i64 %rev to i32
  %far = icmp sge i32 %r, %w
  %neg = icmp slt i32 %t, 0
  %out = or i1 %far, %neg
  br i1 %out, label %latch, label %body2

body2:
  %q = getelementptr inbounds i32, ptr %a, i64 %rev
  store i32 2, ptr %q, align 4, !llvm.access.group !0
  br label %latch

latch:
  %last = phi i32 [ %v, %join ], [ 7, %body2 ]
  %i.next = add nuw i64 %i, 1
  %c = icmp ne i64 %i.next, 64
  br i1 %c, label %x, label %exit, !llvm.loop !1

exit:
  ret i32 %last
}

; The kernel's own loop inside the work-item loop is copied with it and
; gets a loop id of its own in the copy.
define void @nested(ptr %a, i32 %n, i32 %k) {
entry:
  br label %x

x:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %t = trunc i64 %i to i32
  %in = icmp ult i32 %t, %n
  br i1 %in, label %inner, label %latch

inner:
  %j = phi i32 [ 0, %x ], [ %j.next, %inner ]
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 %j, ptr %p, align 4, !llvm.access.group !0
  %j.next = add i32 %j, 1
  %more = icmp slt i32 %j.next, %k
  br i1 %more, label %inner, label %latch, !llvm.loop !3

latch:
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, 16
  br i1 %c, label %x, label %exit, !llvm.loop !1

exit:
  ret void
}

!0 = distinct !{}
!1 = distinct !{!1, !2}
!2 = !{!"llvm.loop.parallel_accesses", !0}
!3 = distinct !{!3, !4}
!4 = !{!"llvm.loop.mustprogress"}
