; Seed 003, worked example 2 (003-notes.md §6), in LLVM IR. Variable a is a
; noalias argument of unknown size, so md2 = (a, inexact) is also its whole
; descriptor; b is a 64-byte alloca with md3 [0,31] and md4 [0,63].
;   ir1 def md1 (a,[0,31])        store <32 x i8> at %a
;   ir2 def md2 (a, inexact)      store i8 at %a + %x
;   ir3 use md2                   load i8 at %a + %x
;   ir4 def, no must-descriptor   store through a select of a pointer into a and one into b
;   ir5 def md1, predicated       llvm.masked.store <32 x i8> at %a
;   ir6 use, no must-descriptor   load through the same select
; md3 is the descriptor of %b3, a load after ir6 (#7): it exists when ir4
; runs, which drops it as covered by md4 (603).
; Expected states and chains from the notes' tables:
;   after ir1: md1 {ir1} {} false
;   after ir2: md1 {ir1} {} true; md2 {ir2} {} false
;   after ir4: + md4 {ir4} (md3 dropped as covered by md4, md1/md2 as already defined)
;   after ir5: md1 {ir1, ir5} {} true
;   use-def ir3 <- {ir1, ir2}, ir6 <- {ir1, ir2, ir4, ir5}
; RUN: %simt-opt -passes='print<simt-memdeps-patent>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=PATENT
; Sound rules: ir4 may write every byte of a and b, so it is added to a's and
; b's whole records (not skipped as in 604), and entry reaches every use.
; RUN: %simt-opt -passes='print<simt-memdeps>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=SOUND

; PATENT-LABEL: simt-memdeps-patent for function 'example2':
; PATENT-NEXT:   objects: %a size unknown, %b [0,63]
; PATENT-NEXT:   #1 store <32 x i8>
; PATENT-NEXT:      def (%a,[0,31]) may (%a,inexact)
; PATENT-NEXT:      state: (%a,[0,31]) {#1} kill {}
; PATENT-NEXT:   #2 store i8
; PATENT-NEXT:      def (%a,inexact) may (%a,[0,31])
; PATENT-NEXT:      state: (%a,[0,31]) {#1} kill {} is_kill; (%a,inexact) {#2} kill {}
; PATENT-NEXT:   #3 %ir3 = load i8
; PATENT-NEXT:      use (%a,inexact) may (%a,[0,31]) <- {#1, #2}
; PATENT-NEXT:      state:
; PATENT-NEXT:   #4 store i8
; PATENT-NEXT:      def no must, may any of %a %b
; PATENT-NEXT:      state: (%a,[0,31]) {#1} kill {} is_kill; (%a,inexact) {#2} kill {}; (%b,[0,63]) {#4} kill {}
; PATENT-NEXT:   #5 call void @llvm.masked.store
; PATENT-NEXT:      def (predicated) (%a,[0,31]) may (%a,inexact)
; PATENT-NEXT:      state: (%a,[0,31]) {#1, #5} kill {} is_kill; (%a,inexact) {#2} kill {}; (%b,[0,63]) {#4} kill {}
; PATENT-NEXT:   #6 %ir6 = load i8
; PATENT-NEXT:      use no must, may any of %a %b <- {#1, #2, #4, #5}
; PATENT:        def-use #1 -> {#3, #6}
; PATENT-NEXT:   def-use #2 -> {#3, #6}
; PATENT-NEXT:   def-use #4 -> {#6, #7}
; PATENT-NEXT:   def-use #5 -> {#6}

; SOUND-LABEL: simt-memdeps for function 'example2':
; SOUND:         use (%a,inexact) may (%a,[0,31]) <- {entry, #1, #2}
; SOUND:         use no must, may any of %a %b <- {entry, #1, #2, #4, #5}
; SOUND:         use (%b,[0,31]) may (%b,[0,63]) <- {entry, #4}
; SOUND:       exit %entry: (%a,[0,31]) {#1, #5} kill {} is_kill; (%a,inexact) {entry, #2, #4} kill {}; (%b,[0,63]) {entry, #4} kill {}

declare void @llvm.masked.store.v32i8.p0(<32 x i8>, ptr, <32 x i1>)

define void @example2(ptr noalias %a, i64 %x, i64 %y, i1 %c, <32 x i8> %v, <32 x i1> %m) {
entry:
  %b = alloca [64 x i8], align 1
  %ax = getelementptr i8, ptr %a, i64 %x
  %ay = getelementptr i8, ptr %a, i64 %y
  %anywhere = select i1 %c, ptr %ay, ptr %b
  store <32 x i8> %v, ptr %a, align 1
  store i8 1, ptr %ax, align 1
  %ir3 = load i8, ptr %ax, align 1
  store i8 2, ptr %anywhere, align 1
  call void @llvm.masked.store.v32i8.p0(<32 x i8> %v, ptr align 1 %a, <32 x i1> %m)
  %ir6 = load i8, ptr %anywhere, align 1
  %b3 = load <32 x i8>, ptr %b, align 1
  ret void
}
