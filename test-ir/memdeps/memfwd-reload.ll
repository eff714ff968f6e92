; simt-memfwd's load-to-load forwarding (issue 26): a load no store
; supplies (here: bytes of an argument, which `entry` supplies) takes the
; value of the nearest load above it in its block of the same bytes and
; type, when nothing between them may write that object. @twice reads p[1]
; twice around a store to another object (a noalias argument) and a load:
; the second load is the first's value. Controls: a store to the same object
; (@store_between), a call that may write anything (@call_between), another
; type (@other_type) and another block (@other_block) keep their loads. The
; functions also run under lli before and after the pass: same output.
; RUN: %simt-opt -passes='simt-memfwd<stats>' -S %s 2>%t.err | FileCheck %s
; RUN: FileCheck %s --check-prefix=STATS < %t.err
; RUN: %simt-opt -passes=simt-memfwd -S %s -o %t.ll
; RUN: %opt -passes=verify -disable-output %t.ll
; RUN: lli %s > %t.before
; RUN: lli %t.ll > %t.after
; RUN: diff %t.before %t.after
; RUN: FileCheck %s --check-prefix=RUNS < %t.before
; @twice's load of %q and @store_between's last load are store-to-load
; forwarding (the stores of 5 and 21), as before.
; STATS: simt-memfwd: 'twice': forwarded 2 loads
; STATS-NEXT: simt-memfwd: 'store_between': forwarded 1 loads
; STATS-NOT: simt-memfwd:
; RUNS: 22 43 41 60

; CHECK-LABEL: define i32 @twice(
; CHECK:         %a = load i32
; CHECK-NOT:     load i32, ptr %p1
; CHECK:         add i32 %a, %a
; CHECK-LABEL: define i32 @store_between(
; CHECK-COUNT-2: load i32, ptr %p1
; CHECK-LABEL: define i32 @call_between(
; CHECK-COUNT-2: load i32, ptr %p1
; CHECK-LABEL: define i32 @other_type(
; CHECK:         load i32, ptr %p1
; CHECK:         load float, ptr %p1
; CHECK-LABEL: define i32 @other_block(
; CHECK-COUNT-2: load i32, ptr %p1

declare i32 @printf(ptr, ...)

@fmt = private constant [13 x i8] c"%d %d %d %d\0A\00"
@g = global [4 x i32] [i32 3, i32 11, i32 30, i32 7]

define i32 @twice(ptr noalias %p, ptr noalias %q) {
  %p1 = getelementptr i8, ptr %p, i64 4
  %a = load i32, ptr %p1, align 4
  store i32 5, ptr %q, align 4
  %x = load i32, ptr %q, align 4
  %b = load i32, ptr %p1, align 4
  %s = add i32 %a, %b
  ret i32 %s
}

define i32 @store_between(ptr noalias %p) {
  %p1 = getelementptr i8, ptr %p, i64 4
  %p2 = getelementptr i8, ptr %p, i64 8
  %a = load i32, ptr %p1, align 4
  store i32 33, ptr %p2, align 4
  %b = load i32, ptr %p1, align 4
  %p3 = getelementptr i8, ptr %p, i64 4
  store i32 21, ptr %p3, align 4
  %c = load i32, ptr %p1, align 4
  %s = add i32 %a, %b
  %t = add i32 %s, %c
  store i32 11, ptr %p1, align 4
  ret i32 %t
}

define i32 @call_between(ptr noalias %p) {
  %p1 = getelementptr i8, ptr %p, i64 4
  %a = load i32, ptr %p1, align 4
  call void @clobber(ptr %p)
  %b = load i32, ptr %p1, align 4
  %s = add i32 %a, %b
  ret i32 %s
}

define i32 @other_type(ptr noalias %p) {
  %p1 = getelementptr i8, ptr %p, i64 4
  %a = load i32, ptr %p1, align 4
  %f = load float, ptr %p1, align 4
  %b = fptosi float %f to i32
  %s = add i32 %a, %b
  ret i32 %s
}

define i32 @other_block(ptr noalias %p, i1 %c) {
  %p1 = getelementptr i8, ptr %p, i64 4
  %a = load i32, ptr %p1, align 4
  br i1 %c, label %then, label %done
then:
  %b = load i32, ptr %p1, align 4
  %s = add i32 %a, %b
  ret i32 %s
done:
  ret i32 %a
}

define void @clobber(ptr %p) {
  %p1 = getelementptr i8, ptr %p, i64 4
  store i32 30, ptr %p1, align 4
  ret void
}

define i32 @main() {
  %q = alloca i32, align 4
  %t = call i32 @twice(ptr @g, ptr %q)
  %s = call i32 @store_between(ptr @g)
  %c = call i32 @call_between(ptr @g)
  %o = call i32 @other_block(ptr @g, i1 true)
  %r = call i32 (ptr, ...) @printf(ptr @fmt, i32 %t, i32 %s, i32 %c, i32 %o)
  ret i32 0
}
