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

; Loops with `break` and `continue`, compared with LLVM's printers:
; `continue` is an extra path to the latch (or a second latch when it jumps
; straight to the header), `break` an extra exiting block.

; for (i = 0; i < n; i++) { if (a[i] < 0) continue; if (a[i] == 0) break; s += a[i]; }
define i32 @break_continue(ptr %a, i32 %n) {
entry:
  br label %for.cond
for.cond:
  %i = phi i32 [ 0, %entry ], [ %i.next, %for.inc ]
  %s = phi i32 [ 0, %entry ], [ %s.next, %for.inc ]
  %cmp = icmp slt i32 %i, %n
  br i1 %cmp, label %for.body, label %for.end
for.body:
  %p = getelementptr i32, ptr %a, i32 %i
  %v = load i32, ptr %p
  %neg = icmp slt i32 %v, 0
  br i1 %neg, label %for.inc, label %if.end
if.end:
  %zero = icmp eq i32 %v, 0
  br i1 %zero, label %for.end, label %accum
accum:
  %add = add i32 %s, %v
  br label %for.inc
for.inc:
  %s.next = phi i32 [ %s, %for.body ], [ %add, %accum ]
  %i.next = add i32 %i, 1
  br label %for.cond
for.end:
  %r = phi i32 [ %s, %for.cond ], [ %s, %if.end ]
  ret i32 %r
}

; do { if (c) continue-to-header; ... } while (d): `continue` jumps straight
; to the header, so the loop has two latches.
define void @continue_to_header(i1 %c, i1 %d) {
entry:
  br label %head
head:
  br i1 %c, label %head, label %body
body:
  br i1 %d, label %head, label %exit
exit:
  ret void
}

; while (true) { if (a) break; if (b) break; } -- two breaks to different
; blocks, no exit test at the header.
define i32 @two_breaks(i1 %a, i1 %b) {
entry:
  br label %loop
loop:
  br i1 %a, label %brk1, label %next
next:
  br i1 %b, label %brk2, label %loop
brk1:
  br label %done
brk2:
  br label %done
done:
  %r = phi i32 [ 1, %brk1 ], [ 2, %brk2 ]
  ret i32 %r
}

; A `continue` and a `break` of the outer loop from inside the inner loop.
define void @labelled(i1 %a, i1 %b, i1 %c) {
entry:
  br label %outer
outer:
  br label %inner
inner:
  br i1 %a, label %outer.inc, label %inner.body
inner.body:
  br i1 %b, label %exit, label %inner.inc
inner.inc:
  br i1 %c, label %inner, label %outer.inc
outer.inc:
  br i1 %c, label %outer, label %exit
exit:
  ret void
}
