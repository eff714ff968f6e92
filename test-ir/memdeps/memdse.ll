; simt-memdse on the patent's "md2 + md3 cover md1" shape, by hand:
; - @g's first 8-byte store is overwritten by two 4-byte stores before
;   anything reads @g: dead. The two stay (@g outlives the function).
; - %a's 8-byte store is overwritten on both paths before the join's load
;   (two 4-byte stores on the left, one 8-byte store on the right): dead.
; - %b's store is never read and %b dies on return: dead.
; - the stores the load can read stay.
; RUN: %simt-opt -passes='simt-memdse<stats>' -S %s 2>%t.err | FileCheck %s
; RUN: FileCheck %s --check-prefix=STATS < %t.err
; RUN: %simt-opt -passes=simt-memdse -S %s | %opt -passes=verify -disable-output

; STATS: simt-memdse: 'f': removed 3 dead stores

; CHECK-LABEL: define void @f(
; CHECK-NOT:     store i64 0, ptr @g
; CHECK:         store i32 1, ptr @g
; CHECK:         store i32 2, ptr %g4
; CHECK-NOT:     store i64 5
; CHECK-NOT:     store i8 9
; CHECK:       l:
; CHECK-NEXT:    store i32 3, ptr %a
; CHECK:         store i32 3, ptr %a4
; CHECK:       r:
; CHECK-NEXT:    store i64 4, ptr %a
; CHECK:       j:
; CHECK-NEXT:    %v = load i64, ptr %a

@g = global [8 x i8] zeroinitializer

define void @f(i1 %c) {
entry:
  %a = alloca [16 x i8]
  %b = alloca i8
  store i64 0, ptr @g
  store i32 1, ptr @g
  %g4 = getelementptr i8, ptr @g, i64 4
  store i32 2, ptr %g4
  store i64 5, ptr %a
  store i8 9, ptr %b
  br i1 %c, label %l, label %r
l:
  store i32 3, ptr %a
  %a4 = getelementptr i8, ptr %a, i64 4
  store i32 3, ptr %a4
  br label %j
r:
  store i64 4, ptr %a
  br label %j
j:
  %v = load i64, ptr %a
  ret void
}
