; What simt-wiloops-version leaves alone, and why (its remarks):
; - @eq: `t == n` is not monotone (true at one x only): not versioned, but
;   pinned to that x (version-pin.ll has the pinning);
; - @square: x*x is not affine in x;
; - @load: the bound is a load inside the loop (not invariant: the loop
;   may write it);
; - @wraps: step 2^25 over 256 work-items spans 255 * 2^25 >= 2^32, so its
;   ends say nothing about the middle; @fits, step 2^24 (255 * 2^24 < 2^32,
;   unsigned), is versioned, with no wrap test left: 0 <=u 255 * 2^24;
; - @half: `x < 128` in a loop of 256 fails at x = 255 whatever the inputs;
; - @serial: no parallel-loop metadata: not a work-item loop (no remark);
; - with max-size=9 every loop but @half's (9 instructions) is too big.
; RUN: %simt-opt -passes='simt-wiloops-version<remarks;no-split>' -S %s -o - 2>%t.remarks | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
; RUN: %simt-opt -passes='simt-wiloops-version<remarks;max-size=9;no-split>' -S %s -o - 2>%t.size | FileCheck %s --check-prefix=SMALL
; RUN: FileCheck %s --check-prefix=SIZE < %t.size

; REMARK: eq: loop %x: not versioned: no branch on a compare monotone in the work-item id
; REMARK-NEXT: eq: loop %x: pinned by the branch in %x
; REMARK-NEXT: square: loop %x: not versioned: no branch on a compare monotone in the work-item id
; REMARK-NEXT: load: loop %x: not versioned: no branch on a compare monotone in the work-item id
; REMARK-NEXT: wraps: loop %x: not versioned: no branch on a compare monotone in the work-item id
; REMARK-NEXT: fits: loop %x (256 trips): versioned on 1 guard(s)
; REMARK-NEXT: half: loop %x: not versioned: every guard fails at an end of the loop (known at compile time)
; REMARK-NOT: serial

; SIZE: eq: loop %x: not versioned: 10 instructions, more than max-size=9
; SIZE: fits: loop %x: not versioned: 11 instructions, more than max-size=9
; SIZE: half: loop %x: not versioned: every guard fails
; SMALL-NOT: .fast

; CHECK-LABEL: define void @eq(
; CHECK-NOT: .fast
; CHECK-LABEL: define void @square(
; CHECK-NOT: .fast
; CHECK-LABEL: define void @load(
; CHECK-NOT: .fast
; CHECK-LABEL: define void @wraps(
; CHECK-NOT: .fast
; CHECK-LABEL: define void @fits(
; CHECK: entry:
; CHECK-NEXT: %wiver.first = icmp ult i32 0, %n
; CHECK-NEXT: %wiver.last = icmp ult i32 -16777216, %n
; CHECK-NEXT: %wiver.and = and i1 %wiver.first, %wiver.last
; CHECK-NEXT: %wiver.ok = freeze i1 %wiver.and
; CHECK-NEXT: br i1 %wiver.ok, label %x.fast, label %x
; CHECK: x.fast:
; CHECK-LABEL: define void @half(
; CHECK-NOT: wiver
; CHECK-NOT: .fast
; CHECK-LABEL: define void @serial(
; CHECK-NOT: .fast

define void @eq(ptr %a, i32 %n) {
entry:
  br label %x

x:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %t = trunc i64 %i to i32
  %in = icmp eq i32 %t, %n
  br i1 %in, label %then, label %latch

then:
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 1, ptr %p, align 4, !llvm.access.group !0
  br label %latch

latch:
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, 256
  br i1 %c, label %x, label %exit, !llvm.loop !1

exit:
  ret void
}

define void @square(ptr %a, i64 %n) {
entry:
  br label %x

x:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %sq = mul i64 %i, %i
  %in = icmp ult i64 %sq, %n
  br i1 %in, label %then, label %latch

then:
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 1, ptr %p, align 4, !llvm.access.group !0
  br label %latch

latch:
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, 256
  br i1 %c, label %x, label %exit, !llvm.loop !1

exit:
  ret void
}

define void @load(ptr %a, ptr %bound) {
entry:
  br label %x

x:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %n = load i64, ptr %bound, align 8
  %in = icmp ult i64 %i, %n
  br i1 %in, label %then, label %latch

then:
  %p = getelementptr inbounds i64, ptr %a, i64 %i
  store i64 %i, ptr %p, align 4, !llvm.access.group !0
  br label %latch

latch:
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, 256
  br i1 %c, label %x, label %exit, !llvm.loop !1

exit:
  ret void
}

define void @wraps(ptr %a, i32 %n) {
entry:
  br label %x

x:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %t = trunc i64 %i to i32
  %m = mul i32 %t, 33554432
  %in = icmp slt i32 %m, %n
  br i1 %in, label %then, label %latch

then:
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 1, ptr %p, align 4, !llvm.access.group !0
  br label %latch

latch:
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, 256
  br i1 %c, label %x, label %exit, !llvm.loop !1

exit:
  ret void
}

define void @fits(ptr %a, i32 %n) {
entry:
  br label %x

x:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %t = trunc i64 %i to i32
  %m = shl i32 %t, 24
  %in = icmp ult i32 %m, %n
  br i1 %in, label %then, label %latch

then:
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 1, ptr %p, align 4, !llvm.access.group !0
  br label %latch

latch:
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, 256
  br i1 %c, label %x, label %exit, !llvm.loop !1

exit:
  ret void
}

define void @half(ptr %a) {
entry:
  br label %x

x:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %in = icmp ult i64 %i, 128
  br i1 %in, label %then, label %latch

then:
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 1, ptr %p, align 4, !llvm.access.group !0
  br label %latch

latch:
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, 256
  br i1 %c, label %x, label %exit, !llvm.loop !1

exit:
  ret void
}

define void @serial(ptr %a, i64 %n) {
entry:
  br label %x

x:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %in = icmp ult i64 %i, %n
  br i1 %in, label %then, label %latch

then:
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 1, ptr %p, align 4
  br label %latch

latch:
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, 256
  br i1 %c, label %x, label %exit

exit:
  ret void
}

!0 = distinct !{}
!1 = distinct !{!1, !2}
!2 = !{!"llvm.loop.parallel_accesses", !0}
