; print<simt-loops> layout and its `exits:` lines, checked by hand: header
; first, then the loop's other blocks in layout order, tags as LLVM prints
; them; each nested loop indented two more spaces and printed right after
; its parent (children in layout order of their headers), and after each
; loop the blocks outside it that its exiting blocks branch to, in layout
; order. (cmp-*.ll compare the loops themselves with LLVM's print<loops>.)
; RUN: %simt-opt -passes='print<simt-loops>' -disable-output %s 2>&1 | FileCheck %s --match-full-lines --strict-whitespace

; Outer loop o (latch o.latch) holding two inner loops, i1 and i2. i1 exits
; to i2 (its normal exit) and to %found, which leaves both loops (so %i1 is
; an exiting block of o as well); i2 exits to o.latch; o exits to %found and
; %done.
; CHECK-LABEL:simt-loops for function 'nest':
; CHECK-NEXT:Loop at depth 1 containing: %o<header>,%i1<exiting>,%i1.b,%i2,%o.latch<latch><exiting>
; CHECK-NEXT:  exits: %found, %done
; CHECK-NEXT:  Loop at depth 2 containing: %i1<header><exiting>,%i1.b<latch><exiting>
; CHECK-NEXT:    exits: %i2, %found
; CHECK-NEXT:  Loop at depth 2 containing: %i2<header><latch><exiting>
; CHECK-NEXT:    exits: %o.latch
; CHECK-NEXT:simt-loops for function 'three_deep':
define void @nest(i1 %a, i1 %b, i1 %c, i1 %d) {
entry:
  br label %o
o:
  br label %i1
i1:
  br i1 %a, label %found, label %i1.b
i1.b:
  br i1 %b, label %i1, label %i2
i2:
  br i1 %c, label %i2, label %o.latch
o.latch:
  br i1 %d, label %o, label %done
found:
  ret void
done:
  ret void
}

; Three levels, with the innermost laid out first: indentation 0, 2, 4.
; CHECK-NEXT:Loop at depth 1 containing: %l1<header>,%l3,%l2,%l2.latch,%l1.latch<latch><exiting>
; CHECK-NEXT:  exits: %exit
; CHECK-NEXT:  Loop at depth 2 containing: %l2<header>,%l3,%l2.latch<latch><exiting>
; CHECK-NEXT:    exits: %l1.latch
; CHECK-NEXT:    Loop at depth 3 containing: %l3<header><latch><exiting>
; CHECK-NEXT:      exits: %l2.latch
define void @three_deep(i1 %a, i1 %b, i1 %c) {
entry:
  br label %l1
l3:
  br i1 %c, label %l3, label %l2.latch
l1:
  br label %l2
l2:
  br label %l3
l2.latch:
  br i1 %b, label %l2, label %l1.latch
l1.latch:
  br i1 %a, label %l1, label %exit
exit:
  ret void
}
