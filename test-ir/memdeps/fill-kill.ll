; A loop that writes every element of an array kills what was stored there
; before it: at the loop's exit no earlier definition of those bytes reaches
; a later use. Worked out by hand from the loops:
; - @zero_then_copy is what clang -O1 makes of `float t[16] = {0};
;   for (i = 0; i < 16; i++) t[i] = in[i] * 2; ... t[(7*i + g) & 15]`: the
;   memset (#1) is overwritten by the loop's store (#3: i = 0..15, test after
;   the store) before anything reads %t. LLVM's dse keeps it; simt-memdse
;   removes it. The load (#4) in the reading loop depends on #3 only.
; - @global_fill: @g's store of 5 at g[3] (#1) is overwritten by the
;   countdown loop (i = 15 down to 0, #2) before the function returns, so
;   it reaches no exit and is dead although @g outlives the function; the
;   loop's store reaches the exit and stays.
; - @grid: a 2-D fill of [4 x [8 x i16]] by two nested loops; the store
;   before it (#1) is dead, the load after it (#3) depends on #2 only.
; - @short: `i < 15` leaves t[15] (bytes 60..63) with the memset's zeros,
;   which the load may read: the memset stays, and the load depends on
;   both. @cond: the store runs under a condition: the memset stays.
; RUN: %simt-opt -passes='simt-memdse<stats>' -S %s 2>%t.err | FileCheck %s
; RUN: FileCheck %s --check-prefix=STATS < %t.err
; RUN: %simt-opt -passes=simt-memdse -S %s | %opt -passes=verify -disable-output
; RUN: %simt-opt -passes='print<simt-memdeps>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=DEPS
; RUN: %simt-opt -passes=simt-memdse -S %s -o %t.ll
; RUN: lli -entry-function=main %s > %t.before
; RUN: lli -entry-function=main %t.ll > %t.after
; RUN: diff %t.before %t.after

; STATS: simt-memdse: 'zero_then_copy': removed 1 dead stores
; STATS: simt-memdse: 'global_fill': removed 1 dead stores
; STATS: simt-memdse: 'grid': removed 1 dead stores
; STATS-NOT: 'short'
; STATS-NOT: 'cond'

; CHECK-LABEL: define float @zero_then_copy(
; CHECK-NOT:     call void @llvm.memset
; CHECK:         store float %m, ptr %p
; CHECK-LABEL: define void @global_fill(
; CHECK-NOT:     store i32 5
; CHECK:         store i32 %v, ptr %p
; CHECK-LABEL: define i16 @grid(
; CHECK-NOT:     store i16 9
; CHECK:         store i16 %v, ptr %p
; CHECK-LABEL: define i32 @short(
; CHECK:         call void @llvm.memset
; CHECK-LABEL: define i32 @cond(
; CHECK:         call void @llvm.memset

; DEPS-LABEL: for function 'zero_then_copy':
; DEPS:         #4 %x = load float, ptr %q
; DEPS-NEXT:       use (%t,inexact) {{.*}} <- {#3}
; DEPS:         def-use #1 -> {}
; DEPS-NEXT:    def-use #3 -> {#4}
; DEPS-LABEL: for function 'global_fill':
; DEPS:         def-use #1 -> {}
; DEPS:         exit %exit: (@g,[0,63]) {#2} kill {}
; DEPS-LABEL: for function 'grid':
; DEPS:         #3 %x = load i16, ptr %q
; DEPS-NEXT:       use (%h,inexact) {{.*}} <- {#2}
; DEPS-LABEL: for function 'short':
; DEPS:         #3 %x = load i32, ptr %q
; DEPS-NEXT:       use (%t,inexact) {{.*}} <- {#1, #2}
; DEPS-LABEL: for function 'cond':
; DEPS:         #3 %x = load i32, ptr %q
; DEPS-NEXT:       use (%t,inexact) {{.*}} <- {#1, #2}

declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare i32 @printf(ptr, ...)

@g = global [16 x i32] zeroinitializer
@fmt = private constant [22 x i8] c"%g %d %d %d %d %d %d\0A\00"

define float @zero_then_copy(ptr %in, i32 %g) {
entry:
  %t = alloca [16 x float], align 4
  call void @llvm.memset.p0.i64(ptr %t, i8 0, i64 64, i1 false)
  br label %fill
fill:
  %i = phi i32 [ 0, %entry ], [ %n, %fill ]
  %x64 = zext nneg i32 %i to i64
  %src = getelementptr inbounds float, ptr %in, i64 %x64
  %v = load float, ptr %src, align 4
  %m = fmul float %v, 2.000000e+00
  %p = getelementptr inbounds nuw float, ptr %t, i64 %x64
  store float %m, ptr %p, align 4
  %n = add nuw nsw i32 %i, 1
  %c = icmp samesign ult i32 %i, 15
  br i1 %c, label %fill, label %sum
sum:
  %j = phi i32 [ %jn, %sum ], [ 0, %fill ]
  %s = phi float [ %s2, %sum ], [ 0.000000e+00, %fill ]
  %j7 = mul nuw nsw i32 %j, 7
  %jg = add nsw i32 %j7, %g
  %k = and i32 %jg, 15
  %k64 = zext nneg i32 %k to i64
  %q = getelementptr inbounds nuw float, ptr %t, i64 %k64
  %x = load float, ptr %q, align 4
  %s2 = fadd float %s, %x
  %jn = add nuw nsw i32 %j, 1
  %jc = icmp samesign ult i32 %j, 15
  br i1 %jc, label %sum, label %done
done:
  ret float %s2
}

define void @global_fill(i32 %base) {
entry:
  %g3 = getelementptr inbounds i32, ptr @g, i64 3
  store i32 5, ptr %g3
  br label %loop
loop:
  %i = phi i64 [ 15, %entry ], [ %n, %loop ]
  %p = getelementptr inbounds [16 x i32], ptr @g, i64 0, i64 %i
  %t = trunc i64 %i to i32
  %v = add i32 %t, %base
  store i32 %v, ptr %p
  %n = add nsw i64 %i, -1
  %c = icmp sge i64 %n, 0
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

define i16 @grid(i64 %k) {
entry:
  %h = alloca [4 x [8 x i16]]
  %h9 = getelementptr inbounds i16, ptr %h, i64 9
  store i16 9, ptr %h9
  br label %rows
rows:
  %r = phi i64 [ 0, %entry ], [ %rn, %rlatch ]
  br label %cols
cols:
  %c = phi i64 [ 0, %rows ], [ %cn, %cols ]
  %p = getelementptr inbounds [4 x [8 x i16]], ptr %h, i64 0, i64 %r, i64 %c
  %rc = mul i64 %r, %c
  %v = trunc i64 %rc to i16
  store i16 %v, ptr %p
  %cn = add nuw nsw i64 %c, 1
  %cc = icmp ult i64 %cn, 8
  br i1 %cc, label %cols, label %rlatch
rlatch:
  %rn = add nuw nsw i64 %r, 1
  %rcmp = icmp ult i64 %rn, 4
  br i1 %rcmp, label %rows, label %exit
exit:
  %km = and i64 %k, 31
  %q = getelementptr inbounds i16, ptr %h, i64 %km
  %x = load i16, ptr %q
  ret i16 %x
}

define i32 @short(i64 %k) {
entry:
  %t = alloca [16 x i32]
  call void @llvm.memset.p0.i64(ptr %t, i8 0, i64 64, i1 false)
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %n, %loop ]
  %p = getelementptr inbounds i32, ptr %t, i64 %i
  %v = trunc i64 %i to i32
  %v1 = add i32 %v, 1
  store i32 %v1, ptr %p
  %n = add nsw i64 %i, 1
  %c = icmp slt i64 %n, 15
  br i1 %c, label %loop, label %exit
exit:
  %km = and i64 %k, 15
  %q = getelementptr inbounds i32, ptr %t, i64 %km
  %x = load i32, ptr %q
  ret i32 %x
}

define i32 @cond(i64 %k) {
entry:
  %t = alloca [16 x i32]
  call void @llvm.memset.p0.i64(ptr %t, i8 0, i64 64, i1 false)
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %n, %latch ]
  %odd = and i64 %i, 1
  %isodd = icmp ne i64 %odd, 0
  br i1 %isodd, label %st, label %latch
st:
  %p = getelementptr inbounds i32, ptr %t, i64 %i
  store i32 7, ptr %p
  br label %latch
latch:
  %n = add nsw i64 %i, 1
  %c = icmp slt i64 %n, 16
  br i1 %c, label %loop, label %exit
exit:
  %km = and i64 %k, 15
  %q = getelementptr inbounds i32, ptr %t, i64 %km
  %x = load i32, ptr %q
  ret i32 %x
}

@in = global [16 x float] [float 1.0, float 2.0, float 3.0, float 4.0, float 5.0, float 6.0, float 7.0, float 8.0, float 9.0, float 10.0, float 11.0, float 12.0, float 13.0, float 14.0, float 15.0, float 16.0]

; Runs each function and prints what it returns (and @g), before and after
; simt-memdse: the same.
define i32 @main() {
entry:
  %f = call float @zero_then_copy(ptr @in, i32 3)
  %fd = fpext float %f to double
  call void @global_fill(i32 100)
  %g3p = getelementptr inbounds i32, ptr @g, i64 3
  %g3 = load i32, ptr %g3p
  %h = call i16 @grid(i64 27)
  %hz = zext i16 %h to i32
  %s = call i32 @short(i64 15)
  %s3 = call i32 @short(i64 3)
  %c = call i32 @cond(i64 4)
  %c5 = call i32 @cond(i64 5)
  %r = call i32 (ptr, ...) @printf(ptr @fmt, double %fd, i32 %g3, i32 %hz, i32 %s, i32 %s3, i32 %c, i32 %c5)
  ret i32 0
}
