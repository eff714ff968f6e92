; A switch: every target is one edge however many cases lead there, and the
; targets are queued in layout (PC) order whatever the order of the cases, so
; the one target left unmarked is the one that runs first.
; RUN: %simt-opt -passes='print<simt-convergence>' -disable-output %s 2>&1 | FileCheck %s
; RUN: %simt-opt -passes='simt-converge' -S %s | FileCheck %s --check-prefix=IR

; Cases 2 and 3 both go to %c2: one edge, so %c2 is only "behind", never a
; merge. %default is listed first by the terminator but laid out last.
; CHECK-LABEL: simt-convergence for function 'switch5':
; CHECK-NEXT:    walk: %entry, %c0, %c1, %c2, %c3, %default, %join
; CHECK-NEXT:    marker %c1 (block 2): behind
; CHECK-NEXT:    marker %c2 (block 3): behind
; CHECK-NEXT:    marker %c3 (block 4): behind
; CHECK-NEXT:    marker %default (block 5): behind
; CHECK-NEXT:    marker %join (block 6): behind, merge
; CHECK-NEXT:    markers: 5 all, 1 divergent-only
; CHECK-NEXT:    divergent-only: %join
define void @switch5(i32 %x, ptr %p) {
entry:
  switch i32 %x, label %default [
    i32 0, label %c0
    i32 1, label %c1
    i32 2, label %c2
    i32 3, label %c2
    i32 4, label %c3
  ]
c0:
  store i32 0, ptr %p
  br label %join
c1:
  store i32 1, ptr %p
  br label %join
c2:
  store i32 2, ptr %p
  br label %join
c3:
  store i32 3, ptr %p
  br label %join
default:
  br label %join
join:
  ret void
}

; The cases list their targets backwards and the default is laid out first:
; still only the first block in layout order runs unmarked.
; CHECK-LABEL: simt-convergence for function 'backwards':
; CHECK-NEXT:    walk: %entry, %default, %t1, %t2, %t3, %join
; CHECK-NEXT:    marker %t1 (block 2): behind
; CHECK-NEXT:    marker %t2 (block 3): behind
; CHECK-NEXT:    marker %t3 (block 4): behind
; CHECK-NEXT:    marker %join (block 5): behind, merge
; CHECK-NEXT:    markers: 4 all, 1 divergent-only
define void @backwards(i32 %x) {
entry:
  switch i32 %x, label %default [
    i32 7, label %t3
    i32 8, label %t2
    i32 9, label %t1
  ]
default:
  br label %join
t1:
  br label %join
t2:
  br label %join
t3:
  br label %join
join:
  ret void
}

; A switch in a loop whose cases break out, continue, or fall to the latch:
; the header and the latch are joins; the switch block and the latch leave
; the loop.
; CHECK-LABEL: simt-convergence for function 'switch_in_loop':
; CHECK-NEXT:    walk: %entry, %head, %sw, %brk, %cont, %latch, %exit
; CHECK-NEXT:    marker %head (block 1): back-edge
; CHECK-NEXT:    marker %sw (block 2): loop-exit
; CHECK-NEXT:    marker %cont (block 4): behind
; CHECK-NEXT:    marker %latch (block 5): behind, merge, loop-exit
; CHECK-NEXT:    marker %exit (block 6): behind, merge
define void @switch_in_loop(i32 %x, i32 %n) {
entry:
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %i1, %cont ], [ %i1, %latch ]
  %i1 = add i32 %i, 1
  br label %sw
sw:
  switch i32 %x, label %latch [
    i32 0, label %brk
    i32 1, label %cont
    i32 2, label %exit
  ]
brk:
  br label %latch
cont:
  br label %head
latch:
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %head, label %exit
exit:
  ret void
}

; IR-LABEL: define void @switch5(
; IR:       c0:
; IR-NEXT:    store i32 0
; IR:       c1:
; IR-NEXT:    call void @simt.converge(i32 2)
; IR:       c2:
; IR-NEXT:    call void @simt.converge(i32 3)
; IR:       c3:
; IR-NEXT:    call void @simt.converge(i32 4)
; IR:       default:
; IR-NEXT:    call void @simt.converge(i32 5)
; IR:       join:
; IR-NEXT:    call void @simt.converge(i32 6)
; IR-NEXT:    ret void
