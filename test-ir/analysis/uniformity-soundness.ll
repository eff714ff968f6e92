; The shapes in which simt's uniformity analysis called divergent values
; uniform (issue 8 §1), each checked against LLVM's print<uniformity>, which
; gets them right for nvptx64: every line LLVM marks, simt marks too, and
; nothing else (loads go through addrspace(1) pointers, where both agree).
; The dynamic oracle (tests/uniformity_oracle.rs) checks the same shapes by
; execution.
; RUN: %opt -passes='print<uniformity>' -disable-output %s 2>&1 | %python %tools/divergent.py > %t.llvm
; RUN: %simt-opt -passes='print<simt-uniformity>' -disable-output %s 2>&1 | %python %tools/divergent.py > %t.simt
; RUN: diff %t.llvm %t.simt
; RUN: FileCheck %s --input-file=%t.simt

target triple = "nvptx64-nvidia-cuda"

; A loop with a uniform exit (at the header) and a divergent exit (in the
; body) that leave through different exit blocks and meet at %join: work-items
; left in different ways, so %r is divergent although both incoming values
; are constants.
; CHECK-LABEL: two_exits_meet_later: DIVERGENT:   %tid =
; CHECK-NEXT:  two_exits_meet_later: DIVERGENT:   %d = icmp eq i32 %i, %tid
; CHECK-NEXT:  two_exits_meet_later: DIVERGENT:   br i1 %d
; CHECK-NEXT:  two_exits_meet_later: DIVERGENT:   %r = phi i32
; CHECK-NEXT:  two_exits_meet_later: DIVERGENT:   store i32 %r
define ptx_kernel void @two_exits_meet_later(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %header
header:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %u = icmp eq i32 %i, %n
  br i1 %u, label %exit.uniform, label %body
body:
  %d = icmp eq i32 %i, %tid
  br i1 %d, label %exit.divergent, label %latch
latch:
  %i.next = add i32 %i, 1
  br label %header
exit.uniform:
  br label %join
exit.divergent:
  br label %join
join:
  %r = phi i32 [ 1, %exit.uniform ], [ 2, %exit.divergent ]
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; A double break: a divergent branch in the inner loop leaves both loops at
; once; the outer loop's own (uniform) exit meets it at %join.
; CHECK-LABEL: double_break: DIVERGENT:   %tid =
; CHECK-NEXT:  double_break: DIVERGENT:   %d = icmp eq i32 %j, %tid
; CHECK-NEXT:  double_break: DIVERGENT:   br i1 %d
; CHECK-NEXT:  double_break: DIVERGENT:   %r = phi i32
; CHECK-NEXT:  double_break: DIVERGENT:   store i32 %r
define ptx_kernel void @double_break(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %outer
outer:
  %i = phi i32 [ 0, %entry ], [ %i.next, %outer.latch ]
  br label %inner
inner:
  %j = phi i32 [ 0, %outer ], [ %j.next, %inner.latch ]
  %d = icmp eq i32 %j, %tid
  br i1 %d, label %break2, label %inner.latch
inner.latch:
  %j.next = add i32 %j, 1
  %ic = icmp ult i32 %j.next, 4
  br i1 %ic, label %inner, label %outer.latch
outer.latch:
  %i.next = add i32 %i, 1
  %oc = icmp ult i32 %i.next, %n
  br i1 %oc, label %outer, label %done
done:
  br label %join
break2:
  br label %join
join:
  %r = phi i32 [ 1, %done ], [ 2, %break2 ]
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; The divergent exit's join is hidden behind an inner loop: the branch at
; %body leaves the outer loop; the paths of the other work-items go through
; the inner loop (whose own exit is uniform) and leave by the outer loop's
; uniform exit. Both exits meet at %join.
; CHECK-LABEL: join_behind_inner_loop: DIVERGENT:   %tid =
; CHECK-NEXT:  join_behind_inner_loop: DIVERGENT:   %d = icmp ugt i32 %i, %tid
; CHECK-NEXT:  join_behind_inner_loop: DIVERGENT:   br i1 %d
; CHECK-NEXT:  join_behind_inner_loop: DIVERGENT:   %r = phi i32
; CHECK-NEXT:  join_behind_inner_loop: DIVERGENT:   store i32 %r
define ptx_kernel void @join_behind_inner_loop(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %outer
outer:
  %i = phi i32 [ 0, %entry ], [ %i.next, %outer.latch ]
  br label %body
body:
  %d = icmp ugt i32 %i, %tid
  br i1 %d, label %leave, label %inner
inner:
  %j = phi i32 [ 0, %body ], [ %j.next, %inner ]
  %j.next = add i32 %j, 1
  %ic = icmp ult i32 %j.next, %n
  br i1 %ic, label %inner, label %outer.latch
outer.latch:
  %i.next = add i32 %i, 1
  %oc = icmp ult i32 %i.next, 8
  br i1 %oc, label %outer, label %normal
normal:
  br label %join
leave:
  br label %join
join:
  %r = phi i32 [ 7, %normal ], [ 9, %leave ]
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; The exiting block's immediate post-dominator lies outside the loop, and
; the value computed in the loop is read after it without an LCSSA phi, by a
; branch: the branch is divergent (temporal divergence), so is the phi it
; leads to.
; CHECK-LABEL: branch_on_value_from_loop: DIVERGENT:   %tid =
; CHECK-NEXT:  branch_on_value_from_loop: DIVERGENT:   %c = icmp ult i32 %i.next, %tid
; CHECK-NEXT:  branch_on_value_from_loop: DIVERGENT:   br i1 %c
; CHECK-NEXT:  branch_on_value_from_loop: DIVERGENT:   %odd = icmp
; CHECK-NEXT:  branch_on_value_from_loop: DIVERGENT:   br i1 %odd
; CHECK-NEXT:  branch_on_value_from_loop: DIVERGENT:   %r = phi i32
; CHECK-NEXT:  branch_on_value_from_loop: DIVERGENT:   store i32 %r
define ptx_kernel void @branch_on_value_from_loop(ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %i.next = add i32 %i, 1
  %c = icmp ult i32 %i.next, %tid
  br i1 %c, label %loop, label %after
after:
  %odd = icmp eq i32 %i.next, 3
  br i1 %odd, label %a, label %b
a:
  br label %join
b:
  br label %join
join:
  %r = phi i32 [ 1, %a ], [ 2, %b ]
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; An irreducible cycle {%p, %q} entered divergently at its two entries: the
; work-items run through it out of step, so its phis are divergent whichever
; entry is its header. The two functions differ only in the order of the
; entry branch's successors.
; CHECK-LABEL: irreducible_entered_divergently: DIVERGENT:   %tid =
; CHECK-NEXT:  irreducible_entered_divergently: DIVERGENT:   %d = icmp
; CHECK-NEXT:  irreducible_entered_divergently: DIVERGENT:   br i1 %d
; CHECK-NEXT:  irreducible_entered_divergently: DIVERGENT:   %x = phi i32
; CHECK:       irreducible_entered_divergently: DIVERGENT:   %y = phi i32
; CHECK:       irreducible_entered_divergently: DIVERGENT:   store i32
define ptx_kernel void @irreducible_entered_divergently(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %d = icmp ult i32 %tid, 5
  br i1 %d, label %p, label %q
p:
  %x = phi i32 [ 0, %entry ], [ %y.next, %q ]
  %x.next = add i32 %x, 1
  %pc = icmp ult i32 %x.next, %n
  br i1 %pc, label %q, label %exit
q:
  %y = phi i32 [ 100, %entry ], [ %x.next, %p ]
  %y.next = add i32 %y, 1
  %qc = icmp ult i32 %y.next, %n
  br i1 %qc, label %p, label %exit
exit:
  %r = phi i32 [ %x.next, %p ], [ %y.next, %q ]
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; CHECK-LABEL: irreducible_entered_divergently_swapped: DIVERGENT:   %tid =
; CHECK-NEXT:  irreducible_entered_divergently_swapped: DIVERGENT:   %d = icmp
; CHECK-NEXT:  irreducible_entered_divergently_swapped: DIVERGENT:   br i1 %d
; CHECK-NEXT:  irreducible_entered_divergently_swapped: DIVERGENT:   %x = phi i32
; CHECK:       irreducible_entered_divergently_swapped: DIVERGENT:   %y = phi i32
; CHECK:       irreducible_entered_divergently_swapped: DIVERGENT:   store i32
define ptx_kernel void @irreducible_entered_divergently_swapped(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %d = icmp ult i32 %tid, 5
  br i1 %d, label %q, label %p
p:
  %x = phi i32 [ 0, %entry ], [ %y.next, %q ]
  %x.next = add i32 %x, 1
  %pc = icmp ult i32 %x.next, %n
  br i1 %pc, label %q, label %exit
q:
  %y = phi i32 [ 100, %entry ], [ %x.next, %p ]
  %y.next = add i32 %y, 1
  %qc = icmp ult i32 %y.next, %n
  br i1 %qc, label %p, label %exit
exit:
  %r = phi i32 [ %x.next, %p ], [ %y.next, %q ]
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; A join inside an irreducible cycle: the divergent branch at %a splits into
; %b and %c, which meet at %m before the cycle goes round. %m's phi is
; divergent in either successor order of the cycle's uniform entry branch.
; CHECK-LABEL: join_inside_irreducible: DIVERGENT:   %tid =
; CHECK:       join_inside_irreducible: DIVERGENT:   %d = icmp
; CHECK-NEXT:  join_inside_irreducible: DIVERGENT:   br i1 %d
; CHECK:       join_inside_irreducible: DIVERGENT:   %v = phi i32
define ptx_kernel void @join_inside_irreducible(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %u = icmp ult i32 %n, 5
  br i1 %u, label %a, label %m
a:
  %k = phi i32 [ 0, %entry ], [ %k.next, %m ]
  %d = icmp ult i32 %tid, %n
  br i1 %d, label %b, label %c
b:
  br label %m
c:
  br label %m
m:
  %k2 = phi i32 [ 0, %entry ], [ %k, %b ], [ %k, %c ]
  %v = phi i32 [ 0, %entry ], [ 1, %b ], [ 2, %c ]
  %k.next = add i32 %k2, 1
  %again = icmp ult i32 %k.next, 10
  br i1 %again, label %a, label %exit
exit:
  store i32 %k.next, ptr addrspace(1) %out
  ret void
}

; CHECK-LABEL: join_inside_irreducible_swapped: DIVERGENT:   %tid =
; CHECK:       join_inside_irreducible_swapped: DIVERGENT:   %d = icmp
; CHECK-NEXT:  join_inside_irreducible_swapped: DIVERGENT:   br i1 %d
; CHECK:       join_inside_irreducible_swapped: DIVERGENT:   %v = phi i32
define ptx_kernel void @join_inside_irreducible_swapped(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %u = icmp ult i32 %n, 5
  br i1 %u, label %m, label %a
a:
  %k = phi i32 [ 0, %entry ], [ %k.next, %m ]
  %d = icmp ult i32 %tid, %n
  br i1 %d, label %b, label %c
b:
  br label %m
c:
  br label %m
m:
  %k2 = phi i32 [ 0, %entry ], [ %k, %b ], [ %k, %c ]
  %v = phi i32 [ 0, %entry ], [ 1, %b ], [ 2, %c ]
  %k.next = add i32 %k2, 1
  %again = icmp ult i32 %k.next, 10
  br i1 %again, label %a, label %exit
exit:
  store i32 %k.next, ptr addrspace(1) %out
  ret void
}

; The lane masks are per-lane values: divergent sources.
; CHECK-LABEL: lanemasks: DIVERGENT:   %lt =
; CHECK-NEXT:  lanemasks: DIVERGENT:   %le =
; CHECK-NEXT:  lanemasks: DIVERGENT:   %eq =
; CHECK-NEXT:  lanemasks: DIVERGENT:   %ge =
; CHECK-NEXT:  lanemasks: DIVERGENT:   %gt =
define ptx_kernel void @lanemasks(ptr addrspace(1) %out) {
entry:
  %lt = call i32 @llvm.nvvm.read.ptx.sreg.lanemask.lt()
  %le = call i32 @llvm.nvvm.read.ptx.sreg.lanemask.le()
  %eq = call i32 @llvm.nvvm.read.ptx.sreg.lanemask.eq()
  %ge = call i32 @llvm.nvvm.read.ptx.sreg.lanemask.ge()
  %gt = call i32 @llvm.nvvm.read.ptx.sreg.lanemask.gt()
  %a = xor i32 %lt, %le
  %b = xor i32 %a, %eq
  %c = xor i32 %b, %ge
  %d = xor i32 %c, %gt
  store i32 %d, ptr addrspace(1) %out
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.lanemask.lt()
declare i32 @llvm.nvvm.read.ptx.sreg.lanemask.le()
declare i32 @llvm.nvvm.read.ptx.sreg.lanemask.eq()
declare i32 @llvm.nvvm.read.ptx.sreg.lanemask.ge()
declare i32 @llvm.nvvm.read.ptx.sreg.lanemask.gt()
