; simt-wiloops-version's index-set split. @step is a tree step: `if (x < s)`
; over x in [0, 256) with s invariant. Groups where the guard holds at both
; ends take the .fast copy as before; the others go to a rolled binary search
; (one probe per bit of the trip count, kept a loop by
; llvm.loop.unroll.disable) for k = #{x : x < s}; with k > 0 a copy without
; the guard runs [0, k) (its latch compares with k) and one with the guard
; folded to its false side runs [k, 256); k = 0 keeps the original loop.
; @lower is `x >= s`: its false side holds on a prefix, so the unchecked
; copy takes the false side. @half is `x < 128`: no group passes at both
; ends, so it is split without a fast copy.
; RUN: %simt-opt -passes='simt-wiloops-version<remarks>' -S %s -o - 2>%t.remarks | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
; RUN: %simt-opt -passes='simt-wiloops-version<remarks;no-split>' -S %s -o - | FileCheck %s --check-prefix=NOSPLIT

; REMARK: step: loop %x (256 trips): versioned on 1 guard(s), and split where it holds
; REMARK: lower: loop %x (256 trips): versioned on 1 guard(s), and split where it holds
; REMARK: half: loop %x (256 trips): split where its guard holds

; CHECK-LABEL: define void @step(
; CHECK: br i1 %wiver.ok, label %x.fast, label %wiver.split
; CHECK: wiver.split:
; CHECK-NEXT: br label %wiver.search
; CHECK: wiver.search:
; CHECK-NEXT: %wiver.pos = phi i64 [ 0, %wiver.split ], [ %wiver.pos.next, %wiver.search ]
; CHECK-NEXT: %wiver.step = phi i64 [ 256, %wiver.split ], [ %wiver.step.next, %wiver.search ]
; CHECK: %wiver.cand = add i64 %wiver.pos, %wiver.step
; CHECK: %wiver.inside = icmp ule i64 %wiver.cand, 256
; CHECK: %wiver.probe = sub i64 %wiver.clamp, 1
; CHECK: [[HOLDS:%.*]] = icmp ult i64 %wiver.probe, %s
; CHECK: br i1 %wiver.more.steps, label %wiver.search, label %wiver.found, !llvm.loop [[ROLLED:![0-9]+]]
; CHECK: wiver.found:
; CHECK-NEXT: %wiver.k = freeze i64 %wiver.pos.next
; CHECK-NEXT: %wiver.some = icmp ne i64 %wiver.k, 0
; CHECK: br i1 %wiver.go.fr, label %x.split, label %x
; CHECK: x:
; CHECK-NEXT: %i = phi i64 [ %i.next, %latch ], [ 0, %wiver.found ]
; CHECK: br i1 %in, label %then, label %latch
; CHECK: x.split:
; CHECK-NEXT: %i.split = phi i64 [ %i.next.split, %latch.split ], [ 0, %wiver.found ]
; CHECK-NOT: br i1 %in.split
; CHECK: br label %then.split
; CHECK: latch.split:
; CHECK: %c.split = icmp ult i64 %i.next.split, %wiver.k
; CHECK-NEXT: br i1 %c.split, label %x.split, label %wiver.tail
; CHECK: wiver.tail:
; CHECK-NEXT: %wiver.more = icmp ult i64 %wiver.k, 256
; CHECK-NEXT: br i1 %wiver.more, label %x.tail, label %exit
; CHECK: x.tail:
; CHECK-NEXT: %i.tail = phi i64 [ %i.next.tail, %latch.tail ], [ %wiver.k, %wiver.tail ]
; CHECK-NOT: br i1 %in.tail
; CHECK: br label %latch.tail

; CHECK-LABEL: define void @lower(
; CHECK: x.split:
; CHECK: br label %latch.split
; CHECK: x.tail:
; CHECK: br label %then.tail

; CHECK-LABEL: define void @half(
; CHECK: entry:
; CHECK-NEXT: br label %wiver.split
; CHECK-NOT: .fast
; CHECK: [[ROLLED]] = distinct !{[[ROLLED]], [[NOUNROLL:![0-9]+]]}
; CHECK: [[NOUNROLL]] = !{!"llvm.loop.unroll.disable"}

; NOSPLIT-NOT: wiver.split

define void @step(ptr %a, i64 %s) {
entry:
  br label %x

x:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %in = icmp ult i64 %i, %s
  br i1 %in, label %then, label %latch

then:
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  %q = getelementptr inbounds i32, ptr %p, i64 %s
  %v = load i32, ptr %q, align 4, !llvm.access.group !0
  %w = load i32, ptr %p, align 4, !llvm.access.group !0
  %sum = add i32 %v, %w
  store i32 %sum, ptr %p, align 4, !llvm.access.group !0
  br label %latch

latch:
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, 256
  br i1 %c, label %x, label %exit, !llvm.loop !1

exit:
  ret void
}

define void @lower(ptr %a, i64 %s) {
entry:
  br label %x

x:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %in = icmp uge i64 %i, %s
  br i1 %in, label %then, label %latch

then:
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 1, ptr %p, align 4, !llvm.access.group !0
  br label %latch

latch:
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, 256
  br i1 %c, label %x, label %exit, !llvm.loop !2

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
  br i1 %c, label %x, label %exit, !llvm.loop !3

exit:
  ret void
}

!0 = distinct !{}
!1 = distinct !{!1, !4}
!2 = distinct !{!2, !4}
!3 = distinct !{!3, !4}
!4 = !{!"llvm.loop.parallel_accesses", !0}
