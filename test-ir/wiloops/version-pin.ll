; simt-wiloops-version's pinning: a work-item loop whose every effect waits
; for `g(x) == u`, with g modular-affine of odd step, runs once, for
; x0 = min(s^-1 * (u - g(0)) mod 2^k, C - 1); and its skipping: a loop whose
; effects all wait for a monotone guard that fails at both ends is skipped.
;
; @lane0: `lane == 0` with a second counter (the warp dispatcher's linear
;   id), which starts at its own start + x0; the latch no longer loops.
; @masked: `(base + x) & 31 == 3`: the low 5 bits, so x0 = (3 - base) & 31.
; @odd: `3x + base == u` in i32 (step 3, inverse 0xAAAAAAAB).
; @ne: `x != 7` branches to the work on its false side, under `and` with an
;   invariant test.
; @even: step 2 may pass twice (x and x + 2^31): left alone.
; @outside: a store before the test: left alone.
; @narrow: `trunc x to i4 == u` in a loop of 32: two x pass: left alone,
;   and so is @wide, `(base + x) & 31 == 3` in a loop of 256 (8 pass).
; @skip: `base + x < 16`, versioned; where it fails at both ends (a warp
;   past lane 16) the loop is skipped, and the exit's phi of the stop state
;   (the same for every work-item) gets the value it passes on. A second
;   counter, as the warp dispatcher's lane loops have, rules out a split;
;   @split, with one, splits instead (and exits through a stop-state phi,
;   which crashed the split before 2026-11-28).
; RUN: %simt-opt -passes='simt-wiloops-version<remarks>' -S %s -o - 2>%t.remarks | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
; RUN: %simt-opt -passes='simt-wiloops-version<no-pin>' -S %s -o - | FileCheck %s --check-prefix=OFF

; REMARK-DAG: lane0: loop %x: pinned by the branch in %x
; REMARK-DAG: masked: loop %x: pinned by the branch in %x
; REMARK-DAG: odd: loop %x: pinned by the branch in %x
; REMARK-DAG: ne: loop %x: pinned by the branch in %x
; REMARK-NOT: even: loop %x: pinned
; REMARK-NOT: outside: loop %x: pinned
; REMARK-NOT: narrow: loop %x: pinned
; REMARK-NOT: wide: loop %x: pinned
; OFF-NOT: pin.x

; CHECK-LABEL: define void @lane0(
; CHECK: entry:
; (x0 = 0 - 0 folds as it is built.)
; CHECK-NEXT: %pin.x = freeze i32 0
; CHECK-NEXT: %pin.x1 = zext i32 %pin.x to i64
; CHECK-NEXT: %pin.off = mul i64 %pin.x1, 1
; CHECK-NEXT: %pin.start = add i64 %first, %pin.off
; CHECK-NEXT: br label %x
; CHECK: x:
; CHECK-NOT: phi
; CHECK: %t = trunc i64 %pin.x1 to i32
; CHECK: getelementptr inbounds float, ptr %a, i64 %pin.start
; CHECK: latch:
; CHECK-NEXT: %i.next = add
; CHECK-NEXT: %j.next = add
; CHECK-NEXT: %c = icmp
; CHECK-NEXT: br label %exit
define void @lane0(ptr %a, i64 %first, float %v) {
entry:
  br label %x

x:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %j = phi i64 [ %first, %entry ], [ %j.next, %latch ]
  %t = trunc i64 %i to i32
  %is0 = icmp eq i32 %t, 0
  br i1 %is0, label %then, label %latch

then:
  %p = getelementptr inbounds float, ptr %a, i64 %j
  store float %v, ptr %p, align 4, !llvm.access.group !0
  br label %latch

latch:
  %i.next = add nuw i64 %i, 1
  %j.next = add nuw i64 %j, 1
  %c = icmp ult i64 %i.next, 32
  br i1 %c, label %x, label %exit, !llvm.loop !1

exit:
  ret void
}

; CHECK-LABEL: define void @masked(
; CHECK: entry:
; CHECK-NEXT: [[G0:%.*]] = add i64 %base, 0
; CHECK-NEXT: %pin.d = sub i64 3, [[G0]]
; CHECK-NEXT: %pin.x = mul i64 %pin.d, 1
; CHECK-NEXT: %pin.x1 = and i64 %pin.x, 31
; CHECK-NEXT: %pin.inside = icmp ult i64 %pin.x1, 31
; CHECK: br label %x
define void @masked(ptr %a, i64 %base) {
entry:
  br label %x

x:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %g = add i64 %base, %i
  %low = and i64 %g, 31
  %hit = icmp eq i64 %low, 3
  br i1 %hit, label %then, label %latch

then:
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 1, ptr %p, align 4, !llvm.access.group !0
  br label %latch

latch:
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, 32
  br i1 %c, label %x, label %exit, !llvm.loop !1

exit:
  ret void
}

; CHECK-LABEL: define void @odd(
; CHECK: [[G0:%.*]] = add i32 0, %base
; CHECK-NEXT: %pin.d = sub i32 %u, [[G0]]
; CHECK-NEXT: %pin.x = mul i32 %pin.d, -1431655765
define void @odd(ptr %a, i32 %base, i32 %u) {
entry:
  br label %x

x:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %t = trunc i64 %i to i32
  %m = mul i32 %t, 3
  %g = add i32 %m, %base
  %hit = icmp eq i32 %g, %u
  br i1 %hit, label %then, label %latch

then:
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 1, ptr %p, align 4, !llvm.access.group !0
  br label %latch

latch:
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, 64
  br i1 %c, label %x, label %exit, !llvm.loop !1

exit:
  ret void
}

; CHECK-LABEL: define void @ne(
; CHECK: %pin.x = freeze i64 7
; CHECK: br label %exit
define void @ne(ptr %a, i1 %on) {
entry:
  br label %x

x:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %not7 = icmp ne i64 %i, 7
  %off = xor i1 %on, true
  %skip = or i1 %not7, %off
  br i1 %skip, label %latch, label %then

then:
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 1, ptr %p, align 4, !llvm.access.group !0
  br label %latch

latch:
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, 32
  br i1 %c, label %x, label %exit, !llvm.loop !1

exit:
  ret void
}

; CHECK-LABEL: define void @even(
; CHECK-NOT: pin.
; CHECK: br i1 %c, label %x, label %exit
define void @even(ptr %a, i32 %u) {
entry:
  br label %x

x:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %t = trunc i64 %i to i32
  %g = shl i32 %t, 1
  %hit = icmp eq i32 %g, %u
  br i1 %hit, label %then, label %latch

then:
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 1, ptr %p, align 4, !llvm.access.group !0
  br label %latch

latch:
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, 32
  br i1 %c, label %x, label %exit, !llvm.loop !1

exit:
  ret void
}

; CHECK-LABEL: define void @outside(
; CHECK-NOT: pin.
; CHECK: br i1 %c, label %x, label %exit
define void @outside(ptr %a, ptr %b) {
entry:
  br label %x

x:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %q = getelementptr inbounds i32, ptr %b, i64 %i
  store i32 0, ptr %q, align 4, !llvm.access.group !0
  %is0 = icmp eq i64 %i, 0
  br i1 %is0, label %then, label %latch

then:
  store i32 1, ptr %a, align 4, !llvm.access.group !0
  br label %latch

latch:
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, 32
  br i1 %c, label %x, label %exit, !llvm.loop !1

exit:
  ret void
}

; CHECK-LABEL: define void @narrow(
; CHECK-NOT: pin.
; CHECK: br i1 %c, label %x, label %exit
define void @narrow(ptr %a, i4 %u) {
entry:
  br label %x

x:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %t = trunc i64 %i to i4
  %hit = icmp eq i4 %t, %u
  br i1 %hit, label %then, label %latch

then:
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 1, ptr %p, align 4, !llvm.access.group !0
  br label %latch

latch:
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, 32
  br i1 %c, label %x, label %exit, !llvm.loop !1

exit:
  ret void
}

; CHECK-LABEL: define i32 @skip(
; CHECK: entry:
; CHECK: [[G0:%.*]] = add i64 %base, 0
; CHECK: %wiver.fails = icmp uge i64 [[G0]], 16
; CHECK: %wiver.fails{{[0-9]+}} = icmp uge i64 {{%.*}}, 16
; CHECK: %wiver.none = freeze i1
; CHECK: br i1 %wiver.ok, label %x.fast, label %wiuns.pre
; CHECK: wiuns.pre:
; CHECK-NEXT: br i1 %wiver.none, label %exit, label %x
; CHECK: x:
; CHECK: br i1 %c, label %x, label %exit, !llvm.loop [[SCALAR:![0-9]+]]
; CHECK: exit:
; CHECK-NEXT: %stop = phi i32 [ %state, %latch ], [ 1, %wiuns.pre ], [ %state.fast, %latch.fast ]
define i32 @skip(ptr %a, i64 %base) {
entry:
  br label %x

x:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %j = phi i64 [ %base, %entry ], [ %j.next, %latch ]
  %g = add i64 %base, %i
  %low = icmp ult i64 %g, 16
  br i1 %low, label %then, label %latch

then:
  %p = getelementptr inbounds i32, ptr %a, i64 %j
  store i32 0, ptr %p, align 4, !llvm.access.group !0
  br label %latch

latch:
  %state = phi i32 [ 1, %x ], [ 1, %then ]
  %i.next = add nuw i64 %i, 1
  %j.next = add nuw i64 %j, 1
  %c = icmp ult i64 %i.next, 32
  br i1 %c, label %x, label %exit, !llvm.loop !1

exit:
  %stop = phi i32 [ %state, %latch ]
  ret i32 %stop
}

; CHECK-LABEL: define i32 @split(
; CHECK: wiver.tail:
; CHECK: exit:
; CHECK-NEXT: %stop = phi i32 [ %state, %latch ], [ %state.fast, %latch.fast ], [ %state.tail, %latch.tail ], [ %state.split, %wiver.tail ]
define i32 @split(ptr %a, i64 %base) {
entry:
  br label %x

x:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %g = add i64 %base, %i
  %low = icmp ult i64 %g, 16
  br i1 %low, label %then, label %latch

then:
  %p = getelementptr inbounds i32, ptr %a, i64 %g
  store i32 0, ptr %p, align 4, !llvm.access.group !0
  br label %latch

latch:
  %state = phi i32 [ 1, %x ], [ 1, %then ]
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, 32
  br i1 %c, label %x, label %exit, !llvm.loop !1

exit:
  %stop = phi i32 [ %state, %latch ]
  ret i32 %stop
}

; CHECK-LABEL: define void @wide(
; CHECK-NOT: pin.
; CHECK: br i1 %c, label %x, label %exit
; CHECK: [[SCALAR]] = distinct !{[[SCALAR]], {{.*}}[[NOVEC:![0-9]+]]}
; CHECK: [[NOVEC]] = !{!"llvm.loop.vectorize.enable", i1 false}
define void @wide(ptr %a, i64 %base) {
entry:
  br label %x

x:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %g = add i64 %base, %i
  %low = and i64 %g, 31
  %hit = icmp eq i64 %low, 3
  br i1 %hit, label %then, label %latch

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

!0 = distinct !{}
!1 = distinct !{!1, !2}
!2 = !{!"llvm.loop.parallel_accesses", !0}
