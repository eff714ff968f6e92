; 40 pseudo-random CFGs (2 to 14 blocks each; `br`, conditional `br`,
; `switch` with repeated targets, `ret`), compared with LLVM's domtree,
; postdomtree and print<loops>. Many have blocks unreachable from the entry
; and several have irreducible cycles (whose `Irreducible cycle` lines LLVM
; has no counterpart for, hence --ignore-irreducible; the natural loops
; inside and around them must still match). Every block can reach a `ret`,
; so there are no infinite loops for the post-dominator trees to root
; differently (see postdomtree-infinite-loops.ll).
; Generated once with a seeded random generator; block bN is the Nth block.
; RUN: %opt -passes='print<domtree>' -disable-output %s 2>&1 | %python %tools/domtree.py > %t.llvm.dom
; RUN: %simt-opt -passes='print<simt-domtree>' -disable-output %s 2>&1 | %python %tools/domtree.py > %t.simt.dom
; RUN: diff %t.llvm.dom %t.simt.dom
; RUN: %opt -passes='print<postdomtree>' -disable-output %s 2>&1 | %python %tools/domtree.py > %t.llvm.pdom
; RUN: %simt-opt -passes='print<simt-postdomtree>' -disable-output %s 2>&1 | %python %tools/domtree.py > %t.simt.pdom
; RUN: diff %t.llvm.pdom %t.simt.pdom
; RUN: %opt -passes='print<loops>' -disable-output %s 2>&1 | %python %tools/loops.py > %t.llvm.loops
; RUN: %simt-opt -passes='print<simt-loops>' -disable-output %s 2>&1 | %python %tools/loops.py --ignore-irreducible > %t.simt.loops
; RUN: diff %t.llvm.loops %t.simt.loops

define void @f0(i1 %c, i32 %x) {
b0:
  br i1 %c, label %b3, label %b3
b1:
  ret void
b2:
  br i1 %c, label %b1, label %b2
b3:
  br i1 %c, label %b6, label %b1
b4:
  br label %b1
b5:
  br label %b2
b6:
  br i1 %c, label %b4, label %b4
b7:
  br i1 %c, label %b8, label %b3
b8:
  br i1 %c, label %b5, label %b8
}

define void @f1(i1 %c, i32 %x) {
b0:
  br label %b5
b1:
  br i1 %c, label %b3, label %b4
b2:
  br i1 %c, label %b2, label %b7
b3:
  ret void
b4:
  switch i32 %x, label %b1 [ i32 0, label %b6 i32 1, label %b5 ]
b5:
  switch i32 %x, label %b8 [ i32 0, label %b3 i32 1, label %b6 i32 2, label %b8 ]
b6:
  switch i32 %x, label %b10 [ i32 0, label %b6 i32 1, label %b3 i32 2, label %b1 ]
b7:
  br i1 %c, label %b2, label %b6
b8:
  br label %b3
b9:
  br i1 %c, label %b2, label %b1
b10:
  br i1 %c, label %b1, label %b5
b11:
  br label %b6
}

define void @f2(i1 %c, i32 %x) {
b0:
  br i1 %c, label %b7, label %b3
b1:
  br i1 %c, label %b3, label %b9
b2:
  br i1 %c, label %b5, label %b4
b3:
  switch i32 %x, label %b3 [ i32 0, label %b7 i32 1, label %b9 i32 2, label %b4 i32 3, label %b3 ]
b4:
  br i1 %c, label %b4, label %b5
b5:
  ret void
b6:
  br i1 %c, label %b2, label %b7
b7:
  br i1 %c, label %b1, label %b8
b8:
  br label %b6
b9:
  br i1 %c, label %b5, label %b8
}

define void @f3(i1 %c, i32 %x) {
b0:
  br i1 %c, label %b9, label %b11
b1:
  ret void
b2:
  switch i32 %x, label %b7 [ i32 0, label %b11 i32 1, label %b8 ]
b3:
  br i1 %c, label %b9, label %b8
b4:
  br label %b3
b5:
  ret void
b6:
  br i1 %c, label %b9, label %b5
b7:
  br label %b8
b8:
  br i1 %c, label %b10, label %b1
b9:
  br label %b2
b10:
  br label %b5
b11:
  br i1 %c, label %b2, label %b2
}

define void @f4(i1 %c, i32 %x) {
b0:
  br i1 %c, label %b4, label %b9
b1:
  br i1 %c, label %b4, label %b11
b2:
  br i1 %c, label %b6, label %b11
b3:
  br i1 %c, label %b5, label %b8
b4:
  br label %b1
b5:
  br i1 %c, label %b11, label %b9
b6:
  br i1 %c, label %b4, label %b5
b7:
  br i1 %c, label %b6, label %b5
b8:
  br label %b3
b9:
  br i1 %c, label %b9, label %b5
b10:
  br label %b3
b11:
  ret void
}

define void @f5(i1 %c, i32 %x) {
b0:
  br i1 %c, label %b1, label %b1
b1:
  ret void
}

define void @f6(i1 %c, i32 %x) {
b0:
  switch i32 %x, label %b1 [ i32 0, label %b8 i32 1, label %b4 i32 2, label %b3 i32 3, label %b3 ]
b1:
  ret void
b2:
  br label %b6
b3:
  br label %b6
b4:
  br i1 %c, label %b6, label %b8
b5:
  switch i32 %x, label %b4 [ i32 0, label %b7 i32 1, label %b8 i32 2, label %b2 ]
b6:
  br i1 %c, label %b1, label %b1
b7:
  br label %b3
b8:
  br i1 %c, label %b1, label %b2
}

define void @f7(i1 %c, i32 %x) {
b0:
  br label %b4
b1:
  switch i32 %x, label %b2 [ i32 0, label %b2 i32 1, label %b6 ]
b2:
  ret void
b3:
  ret void
b4:
  switch i32 %x, label %b10 [ i32 0, label %b10 i32 1, label %b9 ]
b5:
  br i1 %c, label %b8, label %b4
b6:
  ret void
b7:
  br i1 %c, label %b6, label %b7
b8:
  br i1 %c, label %b5, label %b1
b9:
  ret void
b10:
  br i1 %c, label %b9, label %b8
}

define void @f8(i1 %c, i32 %x) {
b0:
  br label %b2
b1:
  br i1 %c, label %b1, label %b3
b2:
  switch i32 %x, label %b5 [ i32 0, label %b6 i32 1, label %b5 i32 2, label %b2 i32 3, label %b4 ]
b3:
  br label %b6
b4:
  br label %b2
b5:
  ret void
b6:
  br i1 %c, label %b3, label %b2
}

define void @f9(i1 %c, i32 %x) {
b0:
  br label %b10
b1:
  br i1 %c, label %b4, label %b11
b2:
  br i1 %c, label %b10, label %b4
b3:
  ret void
b4:
  br label %b5
b5:
  br i1 %c, label %b9, label %b3
b6:
  br i1 %c, label %b6, label %b1
b7:
  br i1 %c, label %b1, label %b8
b8:
  br i1 %c, label %b6, label %b7
b9:
  br label %b2
b10:
  br label %b11
b11:
  br i1 %c, label %b5, label %b3
b12:
  br i1 %c, label %b10, label %b12
}

define void @f10(i1 %c, i32 %x) {
b0:
  br i1 %c, label %b1, label %b2
b1:
  ret void
b2:
  ret void
}

define void @f11(i1 %c, i32 %x) {
b0:
  br label %b2
b1:
  ret void
b2:
  br label %b1
}

define void @f12(i1 %c, i32 %x) {
b0:
  br label %b4
b1:
  switch i32 %x, label %b4 [ i32 0, label %b4 i32 1, label %b8 i32 2, label %b1 ]
b2:
  br i1 %c, label %b1, label %b2
b3:
  br label %b1
b4:
  br i1 %c, label %b7, label %b4
b5:
  br label %b7
b6:
  br i1 %c, label %b7, label %b5
b7:
  ret void
b8:
  br i1 %c, label %b1, label %b3
b9:
  br i1 %c, label %b10, label %b8
b10:
  br i1 %c, label %b10, label %b2
}

define void @f13(i1 %c, i32 %x) {
b0:
  switch i32 %x, label %b3 [ i32 0, label %b1 i32 1, label %b7 ]
b1:
  br label %b6
b2:
  switch i32 %x, label %b6 [ i32 0, label %b7 i32 1, label %b5 i32 2, label %b7 i32 3, label %b2 ]
b3:
  switch i32 %x, label %b8 [ i32 0, label %b2 i32 1, label %b6 i32 2, label %b7 ]
b4:
  br i1 %c, label %b5, label %b8
b5:
  br label %b1
b6:
  ret void
b7:
  switch i32 %x, label %b6 [ i32 0, label %b8 i32 1, label %b4 i32 2, label %b1 i32 3, label %b2 ]
b8:
  ret void
}

define void @f14(i1 %c, i32 %x) {
b0:
  br label %b1
b1:
  ret void
}

define void @f15(i1 %c, i32 %x) {
b0:
  switch i32 %x, label %b1 [ i32 0, label %b9 i32 1, label %b8 ]
b1:
  br i1 %c, label %b4, label %b9
b2:
  ret void
b3:
  br label %b1
b4:
  br label %b3
b5:
  br label %b2
b6:
  br label %b11
b7:
  switch i32 %x, label %b10 [ i32 0, label %b12 i32 1, label %b10 i32 2, label %b5 ]
b8:
  ret void
b9:
  ret void
b10:
  switch i32 %x, label %b11 [ i32 0, label %b2 i32 1, label %b11 ]
b11:
  br label %b9
b12:
  ret void
}

define void @f16(i1 %c, i32 %x) {
b0:
  br i1 %c, label %b2, label %b1
b1:
  br i1 %c, label %b1, label %b2
b2:
  ret void
}

define void @f17(i1 %c, i32 %x) {
b0:
  br i1 %c, label %b2, label %b5
b1:
  ret void
b2:
  switch i32 %x, label %b2 [ i32 0, label %b5 i32 1, label %b1 ]
b3:
  br label %b4
b4:
  br i1 %c, label %b5, label %b4
b5:
  br i1 %c, label %b1, label %b1
}

define void @f18(i1 %c, i32 %x) {
b0:
  switch i32 %x, label %b9 [ i32 0, label %b4 i32 1, label %b6 i32 2, label %b8 ]
b1:
  br label %b11
b2:
  switch i32 %x, label %b1 [ i32 0, label %b6 i32 1, label %b4 i32 2, label %b5 i32 3, label %b5 ]
b3:
  ret void
b4:
  switch i32 %x, label %b5 [ i32 0, label %b4 i32 1, label %b5 i32 2, label %b1 ]
b5:
  ret void
b6:
  br i1 %c, label %b4, label %b11
b7:
  ret void
b8:
  br label %b3
b9:
  ret void
b10:
  br i1 %c, label %b3, label %b7
b11:
  switch i32 %x, label %b10 [ i32 0, label %b3 i32 1, label %b12 ]
b12:
  br i1 %c, label %b5, label %b1
}

define void @f19(i1 %c, i32 %x) {
b0:
  br i1 %c, label %b9, label %b1
b1:
  br i1 %c, label %b8, label %b2
b2:
  switch i32 %x, label %b7 [ i32 0, label %b1 i32 1, label %b3 ]
b3:
  br label %b1
b4:
  switch i32 %x, label %b8 [ i32 0, label %b3 i32 1, label %b3 i32 2, label %b3 i32 3, label %b9 ]
b5:
  switch i32 %x, label %b3 [ i32 0, label %b1 i32 1, label %b1 ]
b6:
  br i1 %c, label %b8, label %b8
b7:
  br label %b5
b8:
  ret void
b9:
  br i1 %c, label %b7, label %b9
}

define void @f20(i1 %c, i32 %x) {
b0:
  switch i32 %x, label %b2 [ i32 0, label %b4 i32 1, label %b9 i32 2, label %b6 ]
b1:
  br i1 %c, label %b7, label %b2
b2:
  br i1 %c, label %b9, label %b1
b3:
  br i1 %c, label %b4, label %b9
b4:
  ret void
b5:
  br i1 %c, label %b2, label %b2
b6:
  switch i32 %x, label %b2 [ i32 0, label %b9 i32 1, label %b4 i32 2, label %b1 i32 3, label %b9 ]
b7:
  br label %b5
b8:
  br label %b3
b9:
  br label %b6
}

define void @f21(i1 %c, i32 %x) {
b0:
  br i1 %c, label %b2, label %b3
b1:
  br i1 %c, label %b4, label %b3
b2:
  br i1 %c, label %b1, label %b4
b3:
  br label %b4
b4:
  ret void
}

define void @f22(i1 %c, i32 %x) {
b0:
  br i1 %c, label %b10, label %b11
b1:
  br label %b2
b2:
  br label %b8
b3:
  br i1 %c, label %b7, label %b1
b4:
  br i1 %c, label %b3, label %b6
b5:
  switch i32 %x, label %b6 [ i32 0, label %b6 i32 1, label %b7 i32 2, label %b1 i32 3, label %b6 ]
b6:
  br i1 %c, label %b2, label %b5
b7:
  br i1 %c, label %b7, label %b9
b8:
  br i1 %c, label %b8, label %b4
b9:
  ret void
b10:
  br i1 %c, label %b9, label %b5
b11:
  br i1 %c, label %b9, label %b11
}

define void @f23(i1 %c, i32 %x) {
b0:
  br label %b2
b1:
  br i1 %c, label %b5, label %b12
b2:
  br label %b4
b3:
  ret void
b4:
  br i1 %c, label %b11, label %b6
b5:
  br i1 %c, label %b9, label %b13
b6:
  br label %b11
b7:
  br label %b2
b8:
  ret void
b9:
  br label %b8
b10:
  switch i32 %x, label %b9 [ i32 0, label %b3 i32 1, label %b3 i32 2, label %b2 ]
b11:
  br label %b10
b12:
  ret void
b13:
  br i1 %c, label %b10, label %b12
}

define void @f24(i1 %c, i32 %x) {
b0:
  br label %b5
b1:
  ret void
b2:
  br i1 %c, label %b1, label %b4
b3:
  br i1 %c, label %b4, label %b4
b4:
  br i1 %c, label %b2, label %b4
b5:
  br i1 %c, label %b5, label %b1
}

define void @f25(i1 %c, i32 %x) {
b0:
  switch i32 %x, label %b3 [ i32 0, label %b1 i32 1, label %b6 ]
b1:
  br i1 %c, label %b1, label %b5
b2:
  br label %b4
b3:
  ret void
b4:
  br label %b3
b5:
  br label %b6
b6:
  br i1 %c, label %b2, label %b6
}

define void @f26(i1 %c, i32 %x) {
b0:
  br i1 %c, label %b5, label %b1
b1:
  br label %b4
b2:
  switch i32 %x, label %b6 [ i32 0, label %b3 i32 1, label %b2 ]
b3:
  br i1 %c, label %b5, label %b1
b4:
  br label %b2
b5:
  ret void
b6:
  switch i32 %x, label %b5 [ i32 0, label %b4 i32 1, label %b6 i32 2, label %b2 ]
}

define void @f27(i1 %c, i32 %x) {
b0:
  br i1 %c, label %b6, label %b13
b1:
  br i1 %c, label %b1, label %b13
b2:
  br label %b4
b3:
  ret void
b4:
  switch i32 %x, label %b8 [ i32 0, label %b6 i32 1, label %b13 i32 2, label %b3 ]
b5:
  br i1 %c, label %b1, label %b7
b6:
  br label %b2
b7:
  ret void
b8:
  br i1 %c, label %b11, label %b13
b9:
  br i1 %c, label %b7, label %b3
b10:
  switch i32 %x, label %b13 [ i32 0, label %b9 i32 1, label %b12 i32 2, label %b2 ]
b11:
  br label %b1
b12:
  br label %b11
b13:
  ret void
}

define void @f28(i1 %c, i32 %x) {
b0:
  br label %b3
b1:
  br i1 %c, label %b2, label %b1
b2:
  ret void
b3:
  switch i32 %x, label %b3 [ i32 0, label %b5 i32 1, label %b6 i32 2, label %b6 ]
b4:
  ret void
b5:
  ret void
b6:
  br label %b4
b7:
  br label %b6
b8:
  br label %b5
b9:
  switch i32 %x, label %b3 [ i32 0, label %b4 i32 1, label %b9 ]
}

define void @f29(i1 %c, i32 %x) {
b0:
  br i1 %c, label %b1, label %b1
b1:
  ret void
}

define void @f30(i1 %c, i32 %x) {
b0:
  br label %b2
b1:
  ret void
b2:
  br i1 %c, label %b1, label %b2
b3:
  br i1 %c, label %b3, label %b2
b4:
  switch i32 %x, label %b2 [ i32 0, label %b3 i32 1, label %b1 i32 2, label %b1 i32 3, label %b4 ]
}

define void @f31(i1 %c, i32 %x) {
b0:
  br i1 %c, label %b5, label %b5
b1:
  switch i32 %x, label %b9 [ i32 0, label %b4 i32 1, label %b8 i32 2, label %b7 ]
b2:
  br i1 %c, label %b9, label %b5
b3:
  br i1 %c, label %b1, label %b3
b4:
  ret void
b5:
  br i1 %c, label %b9, label %b7
b6:
  switch i32 %x, label %b3 [ i32 0, label %b9 i32 1, label %b6 i32 2, label %b7 i32 3, label %b8 ]
b7:
  switch i32 %x, label %b4 [ i32 0, label %b10 i32 1, label %b10 ]
b8:
  br i1 %c, label %b3, label %b7
b9:
  br label %b4
b10:
  br i1 %c, label %b5, label %b2
}

define void @f32(i1 %c, i32 %x) {
b0:
  switch i32 %x, label %b6 [ i32 0, label %b2 i32 1, label %b7 ]
b1:
  br i1 %c, label %b8, label %b1
b2:
  br label %b9
b3:
  br i1 %c, label %b4, label %b8
b4:
  ret void
b5:
  br label %b3
b6:
  br label %b4
b7:
  br label %b9
b8:
  br i1 %c, label %b10, label %b9
b9:
  br label %b11
b10:
  br label %b11
b11:
  ret void
b12:
  br label %b5
}

define void @f33(i1 %c, i32 %x) {
b0:
  br label %b11
b1:
  br label %b10
b2:
  br i1 %c, label %b7, label %b7
b3:
  br label %b5
b4:
  br label %b8
b5:
  br label %b11
b6:
  br i1 %c, label %b11, label %b3
b7:
  br i1 %c, label %b8, label %b11
b8:
  br i1 %c, label %b5, label %b9
b9:
  br label %b10
b10:
  ret void
b11:
  ret void
b12:
  br i1 %c, label %b4, label %b4
}

define void @f34(i1 %c, i32 %x) {
b0:
  br i1 %c, label %b1, label %b3
b1:
  ret void
b2:
  br label %b3
b3:
  br i1 %c, label %b2, label %b1
}

define void @f35(i1 %c, i32 %x) {
b0:
  switch i32 %x, label %b11 [ i32 0, label %b4 i32 1, label %b4 i32 2, label %b2 ]
b1:
  br i1 %c, label %b2, label %b5
b2:
  br i1 %c, label %b9, label %b6
b3:
  ret void
b4:
  ret void
b5:
  br i1 %c, label %b1, label %b12
b6:
  br i1 %c, label %b8, label %b2
b7:
  switch i32 %x, label %b11 [ i32 0, label %b12 i32 1, label %b8 ]
b8:
  br i1 %c, label %b9, label %b3
b9:
  br label %b4
b10:
  br i1 %c, label %b6, label %b8
b11:
  switch i32 %x, label %b1 [ i32 0, label %b7 i32 1, label %b1 ]
b12:
  br label %b11
}

define void @f36(i1 %c, i32 %x) {
b0:
  br i1 %c, label %b4, label %b6
b1:
  br i1 %c, label %b2, label %b3
b2:
  br i1 %c, label %b5, label %b4
b3:
  switch i32 %x, label %b3 [ i32 0, label %b2 i32 1, label %b2 ]
b4:
  br i1 %c, label %b6, label %b5
b5:
  ret void
b6:
  switch i32 %x, label %b6 [ i32 0, label %b2 i32 1, label %b3 i32 2, label %b2 i32 3, label %b6 ]
}

define void @f37(i1 %c, i32 %x) {
b0:
  switch i32 %x, label %b2 [ i32 0, label %b4 i32 1, label %b2 ]
b1:
  switch i32 %x, label %b2 [ i32 0, label %b3 i32 1, label %b6 i32 2, label %b6 i32 3, label %b3 ]
b2:
  br label %b4
b3:
  br i1 %c, label %b4, label %b4
b4:
  br i1 %c, label %b2, label %b6
b5:
  br label %b3
b6:
  br i1 %c, label %b2, label %b7
b7:
  ret void
}

define void @f38(i1 %c, i32 %x) {
b0:
  switch i32 %x, label %b6 [ i32 0, label %b7 i32 1, label %b5 ]
b1:
  ret void
b2:
  br i1 %c, label %b5, label %b4
b3:
  ret void
b4:
  br i1 %c, label %b9, label %b10
b5:
  br i1 %c, label %b11, label %b1
b6:
  br i1 %c, label %b9, label %b9
b7:
  br i1 %c, label %b6, label %b2
b8:
  br i1 %c, label %b5, label %b3
b9:
  ret void
b10:
  br i1 %c, label %b6, label %b9
b11:
  ret void
}

define void @f39(i1 %c, i32 %x) {
b0:
  br label %b3
b1:
  br label %b9
b2:
  br i1 %c, label %b5, label %b5
b3:
  br label %b9
b4:
  ret void
b5:
  br label %b4
b6:
  ret void
b7:
  ret void
b8:
  br label %b6
b9:
  br i1 %c, label %b9, label %b4
}
