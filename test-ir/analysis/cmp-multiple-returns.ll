; RUN: %opt -passes='print<domtree>' -disable-output %s 2>&1 | %python %tools/domtree.py > %t.llvm.dom
; RUN: %simt-opt -passes='print<simt-domtree>' -disable-output %s 2>&1 | %python %tools/domtree.py > %t.simt.dom
; RUN: diff %t.llvm.dom %t.simt.dom
; RUN: %opt -passes='print<postdomtree>' -disable-output %s 2>&1 | %python %tools/domtree.py > %t.llvm.pdom
; RUN: %simt-opt -passes='print<simt-postdomtree>' -disable-output %s 2>&1 | %python %tools/domtree.py > %t.simt.pdom
; RUN: diff %t.llvm.pdom %t.simt.pdom
; RUN: %opt -passes='print<loops>' -disable-output %s 2>&1 | %python %tools/loops.py > %t.llvm.loops
; RUN: %simt-opt -passes='print<simt-loops>' -disable-output %s 2>&1 | %python %tools/loops.py > %t.simt.loops
; RUN: diff %t.llvm.loops %t.simt.loops
; Every block here can reach a return: for blocks in infinite loops LLVM's
; post-dominator tree picks its extra roots differently from simt's (see
; postdomtree-infinite-loops.ll), so the postdomtree diff needs none.

; Functions with several exit blocks (`ret` and `unreachable`), compared with
; LLVM's printers: the post-dominator tree has one virtual exit above all of
; them, so a branch whose arms return separately has <exit> as its ipdom.

define i32 @two_returns(i1 %c) {
entry:
  br i1 %c, label %a, label %b
a:
  ret i32 1
b:
  ret i32 2
}

; An early return out of a chain of checks.
define i32 @early_returns(i32 %x) {
entry:
  %c0 = icmp eq i32 %x, 0
  br i1 %c0, label %ret0, label %check1
check1:
  %c1 = icmp eq i32 %x, 1
  br i1 %c1, label %ret1, label %work
work:
  %y = mul i32 %x, %x
  br label %done
ret0:
  ret i32 0
ret1:
  ret i32 1
done:
  ret i32 %y
}

; One arm ends in `unreachable`, which is an exit too.
define void @trap_arm(i1 %c) {
entry:
  br i1 %c, label %ok, label %bad
bad:
  call void @llvm.trap()
  unreachable
ok:
  br label %more
more:
  ret void
}

; A loop with a return inside it and another after it.
define i32 @return_from_loop(i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %cont ]
  %found = icmp eq i32 %i, 7
  br i1 %found, label %ret.found, label %cont
cont:
  %i.next = add i32 %i, 1
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %ret.end
ret.found:
  ret i32 %i
ret.end:
  ret i32 -1
}

; Three returns reached through a diamond whose join itself branches.
define void @fan_out(i1 %a, i1 %b, i1 %c) {
entry:
  br i1 %a, label %l, label %r
l:
  br i1 %b, label %x, label %j
r:
  br label %j
j:
  br i1 %c, label %y, label %z
x:
  ret void
y:
  ret void
z:
  ret void
}

declare void @llvm.trap()
