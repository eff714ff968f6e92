; Seed 003's φ example ([0062]-[0064], 003-notes.md §4.1): two predecessors
; of a join hold md1 = (a,[0,127]) as {ir1, ir2} kill {[1,127]} and
; {ir3, ir4} kill {[32,63]}; the join's record is their definitions united,
; {ir1, ir2, ir3, ir4}, and their kill sets intersected, {[32,63]}.
; Here the left block makes its record with #1 (store), #2 (a predicated
; store, which adds) and #3 (memset of [1,127], which kills those bytes);
; the right one with #4, #5 and #6 (memset of [32,63]). So at the join:
;   (%a,[0,127]) {#1, #2, #4, #5} kill {[32,63]}
; and the load #7 of md1 may read any of #1..#6 (bytes 1..127 from #3 on
; the left, 32..63 from #6 on the right). Both rule sets agree.
; RUN: %simt-opt -passes='print<simt-memdeps-patent>' -disable-output %s 2>&1 | FileCheck %s
; RUN: %simt-opt -passes='print<simt-memdeps>' -disable-output %s 2>&1 | FileCheck %s
; RUN: %simt-opt -passes='print<simt-memdeps<start=idom>>' -disable-output %s 2>&1 | FileCheck %s
; Byte by byte (option `bytes`), worked out by hand: byte 0 was last written
; by #1/#2 on the left or #4/#5 on the right; bytes 1..31 by #3 on the left
; or #4/#5 on the right, but the left's kill of [1,127] is intersected away
; at the join, so #1/#2 stay too; bytes 32..63 by #3 or #6 exactly (both
; sides killed them in the whole record); bytes 64..127 as 1..31.
; RUN: %simt-opt -passes='print<simt-memdeps<bytes>>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=BYTES
; BYTES:      use (%a,[0,127]) {{.*}} <- {#1, #2, #3, #4, #5, #6}
; BYTES-NEXT: bytes: [0,0] {#1, #2, #4, #5}; [1,31] {#1, #2, #3, #4, #5}; [32,63] {#3, #6}; [64,127] {#1, #2, #3, #4, #5}
; RUN: not %simt-opt -passes='print<simt-memdeps<colour>>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=BAD
; BAD: unknown option 'colour' (expected bytes, start=join or start=idom)

; CHECK-LABEL: for function 'join':
; CHECK:         #7 %l = load <128 x i8>
; CHECK-NEXT:       use (%a,[0,127]) {{.*}} <- {#1, #2, #3, #4, #5, #6}
; CHECK:       exit %left: (%a,[0,127]) {#1, #2} kill {[1,127]}; (%a,[1,127]) {#3} kill {}
; CHECK-NEXT:  exit %right: (%a,[0,127]) {#4, #5} kill {[32,63]}; (%a,[32,63]) {#6} kill {}
; CHECK-NEXT:  exit %join: (%a,[0,127]) {#1, #2, #4, #5} kill {[32,63]}; (%a,[1,127]) {#3} kill {}; (%a,[32,63]) {#6} kill {}

declare void @llvm.masked.store.v128i8.p0(<128 x i8>, ptr, <128 x i1>)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

define void @join(i1 %c, <128 x i8> %v, <128 x i1> %m) {
entry:
  %a = alloca [128 x i8], align 1
  %a1 = getelementptr i8, ptr %a, i64 1
  %a32 = getelementptr i8, ptr %a, i64 32
  br i1 %c, label %left, label %right
left:
  store <128 x i8> %v, ptr %a, align 1
  call void @llvm.masked.store.v128i8.p0(<128 x i8> %v, ptr align 1 %a, <128 x i1> %m)
  call void @llvm.memset.p0.i64(ptr %a1, i8 0, i64 127, i1 false)
  br label %join
right:
  store <128 x i8> %v, ptr %a, align 1
  call void @llvm.masked.store.v128i8.p0(<128 x i8> %v, ptr align 1 %a, <128 x i1> %m)
  call void @llvm.memset.p0.i64(ptr %a32, i8 0, i64 32, i1 false)
  br label %join
join:
  %l = load <128 x i8>, ptr %a, align 1
  ret void
}
