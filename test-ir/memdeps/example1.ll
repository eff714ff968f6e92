; Seed 003, worked example 1 (003-notes.md §5), in LLVM IR: one variable %a
; with descriptors md1 [0,31], md2 [0,15], md3 [16,31], md4 [0,64]; six
; instructions in one block: ir1 def md1, ir2 use md1, ir3 def md2, ir4 use
; md1, ir5 def md3, ir6 use md4. %a has 65 bytes, so md4 is the whole object.
; Expectations are the notes' tables, not this program's output (records
; are printed by object, then by interval):
;   after ir1: md1 {ir1} kill {}
;   after ir3: md1 {ir1} kill {[0,15]}; md2 {ir3} kill {}
;   after ir5: md1 deleted ([0,15] u [16,31] covers it); md2 {ir3}; md3 {ir5}
;   use-def ir2 <- {ir1}, ir4 <- {ir1, ir3}, ir6 <- {ir3, ir5}
;   def-use ir1 -> {ir2, ir4}, ir3 -> {ir4, ir6}, ir5 -> {ir6}
; RUN: %simt-opt -passes='print<simt-memdeps-patent>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=PATENT
; The sound rules give the same chains, except that ir6 also reads bytes
; [32,64] that nothing in the function wrote (entry), and there is an entry
; record for the whole of %a, whose bytes [0,31] ir1 kills.
; RUN: %simt-opt -passes='print<simt-memdeps>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=SOUND

; PATENT-LABEL: simt-memdeps-patent for function 'example1':
; PATENT-NEXT:   objects: %a [0,64]
; PATENT-NEXT:   #1 store <32 x i8>
; ir1: md2, md3 and md4 are its may-define descriptors (the notes, ir1).
; PATENT-NEXT:      def (%a,[0,31]) may (%a,[0,64]) (%a,[0,15]) (%a,[16,31])
; PATENT-NEXT:      state: (%a,[0,31]) {#1} kill {}
; PATENT-NEXT:   #2 %ir2 = load <32 x i8>
; PATENT-NEXT:      use (%a,[0,31]) may (%a,[0,64]) (%a,[0,15]) (%a,[16,31]) <- {#1}
; PATENT-NEXT:      state: (%a,[0,31]) {#1} kill {}
; PATENT-NEXT:   #3 store <16 x i8>
; PATENT-NEXT:      def (%a,[0,15]) may (%a,[0,64]) (%a,[0,31])
; PATENT-NEXT:      state: (%a,[0,15]) {#3} kill {}; (%a,[0,31]) {#1} kill {[0,15]}
; PATENT-NEXT:   #4 %ir4 = load <32 x i8>
; PATENT-NEXT:      use (%a,[0,31]) {{.*}} <- {#1, #3}
; PATENT-NEXT:      state:
; PATENT-NEXT:   #5 store <16 x i8>
; PATENT-NEXT:      def (%a,[16,31]) may (%a,[0,64]) (%a,[0,31])
; PATENT-NEXT:      state: (%a,[0,15]) {#3} kill {}; (%a,[16,31]) {#5} kill {}
; PATENT-NEXT:   #6 %ir6 = load <65 x i8>
; PATENT-NEXT:      use (%a,[0,64]) {{.*}} <- {#3, #5}
; PATENT-NEXT:      state: (%a,[0,15]) {#3} kill {}; (%a,[16,31]) {#5} kill {}
; PATENT-NEXT:   def-use #1 -> {#2, #4}
; PATENT-NEXT:   def-use #3 -> {#4, #6}
; PATENT-NEXT:   def-use #5 -> {#6}
; PATENT-NEXT:   exit %entry: (%a,[0,15]) {#3} kill {}; (%a,[16,31]) {#5} kill {}

; SOUND-LABEL: simt-memdeps for function 'example1':
; SOUND:         use (%a,[0,31]) {{.*}} <- {#1}
; SOUND:         use (%a,[0,31]) {{.*}} <- {#1, #3}
; SOUND:         use (%a,[0,64]) {{.*}} <- {entry, #3, #5}
; SOUND:       def-use #1 -> {#2, #4}
; SOUND-NEXT:  def-use #3 -> {#4, #6}
; SOUND-NEXT:  def-use #5 -> {#6}
; SOUND-NEXT:  exit %entry: (%a,[0,15]) {#3} kill {}; (%a,[0,64]) {entry} kill {[0,31]}; (%a,[16,31]) {#5} kill {}

define void @example1(<32 x i8> %v1, <16 x i8> %v3, <16 x i8> %v5) {
entry:
  %a = alloca [65 x i8], align 1
  %md3 = getelementptr inbounds i8, ptr %a, i64 16
  store <32 x i8> %v1, ptr %a, align 1
  %ir2 = load <32 x i8>, ptr %a, align 1
  store <16 x i8> %v3, ptr %a, align 1
  %ir4 = load <32 x i8>, ptr %a, align 1
  store <16 x i8> %v5, ptr %md3, align 1
  %ir6 = load <65 x i8>, ptr %a, align 1
  ret void
}
