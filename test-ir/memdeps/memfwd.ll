; simt-memfwd on a little-endian layout, expectations by hand: byte k of a
; stored value is bits 8k..8k+7, so a load at object offset L built from a
; store at offset S takes (value >> 8*(L-S)) for its low bytes, and a piece
; at offset P of a load at L goes to bits 8*(P-L) and up.
; The GVN lines show that LLVM's gvn leaves every load of the first group
; (several stores, or a join with different widths on each side).
; The second group must not be forwarded: a byte may come from before the
; function, from a may-definition or a masked store, or the access is
; volatile, atomic, a vector or an i1.
; RUN: %simt-opt -passes='simt-memfwd<stats>' -S %s 2>%t.err | FileCheck %s
; RUN: FileCheck %s --check-prefix=STATS < %t.err
; RUN: %simt-opt -passes=simt-memfwd -S %s | %opt -passes=verify -disable-output
; RUN: %opt -passes=gvn -S %s | FileCheck %s --check-prefix=GVN

target datalayout = "e-m:e-i64:64-n8:16:32:64-S128"
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare void @llvm.masked.store.v4i8.p0(<4 x i8>, ptr, <4 x i1>)
declare void @ext(ptr)

; STATS-DAG: simt-memfwd: 'two_halves': forwarded 1 loads (0 through a phi)
; STATS-DAG: simt-memfwd: 'bytes': forwarded 1 loads (0 through a phi)
; STATS-DAG: simt-memfwd: 'middle': forwarded 1 loads (0 through a phi)
; STATS-DAG: simt-memfwd: 'memset_then_word': forwarded 1 loads (0 through a phi)
; STATS-DAG: simt-memfwd: 'memset_float': forwarded 1 loads (0 through a phi)
; STATS-DAG: simt-memfwd: 'join': forwarded 1 loads (1 through a phi)
; STATS-DAG: simt-memfwd: 'loop': forwarded 1 loads (1 through a phi)
; STATS-DAG: simt-memfwd: 'below_join': forwarded 2 loads (2 through a phi)
; STATS-DAG: simt-memfwd: 'ptr_from_halves': forwarded 1 loads (0 through a phi)
; STATS-DAG: simt-memfwd: 'double_from_halves': forwarded 1 loads (0 through a phi)
; STATS-NOT: simt-memfwd: 'one_path'
; STATS-NOT: simt-memfwd: 'half_entry'
; STATS-NOT: simt-memfwd: 'maydef'

; Bytes 0-3 from %a, 4-7 from %b: %a | %b << 32.
; CHECK-LABEL: define i64 @two_halves(
; CHECK-NOT:     load
; CHECK:         [[A:%.*]] = zext i32 %a to i64
; CHECK-NEXT:    [[B:%.*]] = zext i32 %b to i64
; CHECK-NEXT:    [[S:%.*]] = shl i64 [[B]], 32
; CHECK-NEXT:    [[O:%.*]] = or i64 [[A]], [[S]]
; CHECK-NEXT:    ret i64 [[O]]
; GVN-LABEL: define i64 @two_halves(
; GVN:         %v = load i64, ptr %p
define i64 @two_halves(i32 %a, i32 %b) {
  %p = alloca i64
  store i32 %a, ptr %p
  %p4 = getelementptr i8, ptr %p, i64 4
  store i32 %b, ptr %p4
  %v = load i64, ptr %p
  ret i64 %v
}

; A byte-wise fill read as a word: %a | %b << 8 | %c << 16 | %d << 24.
; CHECK-LABEL: define i32 @bytes(
; CHECK-NOT:     load
; CHECK:         [[A:%.*]] = zext i8 %a to i32
; CHECK:         [[B:%.*]] = zext i8 %b to i32
; CHECK-NEXT:    [[BS:%.*]] = shl i32 [[B]], 8
; CHECK-NEXT:    [[O1:%.*]] = or i32 [[A]], [[BS]]
; CHECK-NEXT:    [[C:%.*]] = zext i8 %c to i32
; CHECK-NEXT:    [[CS:%.*]] = shl i32 [[C]], 16
; CHECK-NEXT:    [[O2:%.*]] = or i32 [[O1]], [[CS]]
; CHECK-NEXT:    [[D:%.*]] = zext i8 %d to i32
; CHECK-NEXT:    [[DS:%.*]] = shl i32 [[D]], 24
; CHECK-NEXT:    [[O3:%.*]] = or i32 [[O2]], [[DS]]
; CHECK-NEXT:    ret i32 [[O3]]
; GVN-LABEL: define i32 @bytes(
; GVN:         %v = load i32, ptr %p
define i32 @bytes(i8 %a, i8 %b, i8 %c, i8 %d) {
  %p = alloca i32
  store i8 %a, ptr %p
  %p1 = getelementptr i8, ptr %p, i64 1
  store i8 %b, ptr %p1
  %p2 = getelementptr i8, ptr %p, i64 2
  store i8 %c, ptr %p2
  %p3 = getelementptr i8, ptr %p, i64 3
  store i8 %d, ptr %p3
  %v = load i32, ptr %p
  ret i32 %v
}

; Bytes 2-3 of an i64: trunc (%w >> 16). (GVN does this one too.)
; CHECK-LABEL: define i16 @middle(
; CHECK:         [[S:%.*]] = lshr i64 %w, 16
; CHECK-NEXT:    [[T:%.*]] = trunc i64 [[S]] to i16
; CHECK-NEXT:    ret i16 [[T]]
define i16 @middle(i64 %w) {
  %p = alloca i64
  store i64 %w, ptr %p
  %p2 = getelementptr i8, ptr %p, i64 2
  %v = load i16, ptr %p2
  ret i16 %v
}

; memset 7 over 0-7, then %a over 2-5: bytes 0-1 are 0x0707 = 1799,
; bytes 6-7 are 0x0707 << 48 = 506373483102470144, %a goes to bits 16-47.
; CHECK-LABEL: define i64 @memset_then_word(
; CHECK-NOT:     load
; CHECK:         [[A:%.*]] = zext i32 %a to i64
; CHECK-NEXT:    [[S:%.*]] = shl i64 [[A]], 16
; CHECK-NEXT:    [[O:%.*]] = or i64 1799, [[S]]
; CHECK-NEXT:    [[O2:%.*]] = or i64 [[O]], 506373483102470144
; CHECK-NEXT:    ret i64 [[O2]]
; GVN-LABEL: define i64 @memset_then_word(
; GVN:         %v = load i64, ptr %p
define i64 @memset_then_word(i32 %a) {
  %p = alloca [8 x i8]
  call void @llvm.memset.p0.i64(ptr %p, i8 7, i64 8, i1 false)
  %p2 = getelementptr i8, ptr %p, i64 2
  store i32 %a, ptr %p2
  %v = load i64, ptr %p
  ret i64 %v
}

; A memset of a variable byte read as a float: the byte splatted by
; doubling (x | x << 8, then | << 16), as bits of a float.
; CHECK-LABEL: define float @memset_float(
; CHECK-NOT:     load
; CHECK:         [[X:%.*]] = zext i8 %x to i32
; CHECK-NEXT:    [[X8:%.*]] = shl i32 [[X]], 8
; CHECK-NEXT:    [[X2:%.*]] = or i32 [[X]], [[X8]]
; CHECK-NEXT:    [[X16:%.*]] = shl i32 [[X2]], 16
; CHECK-NEXT:    [[X4:%.*]] = or i32 [[X2]], [[X16]]
; CHECK-NEXT:    [[F:%.*]] = bitcast i32 [[X4]] to float
; CHECK-NEXT:    ret float [[F]]
define float @memset_float(i8 %x) {
  %p = alloca [8 x i8]
  call void @llvm.memset.p0.i64(ptr %p, i8 %x, i64 8, i1 false)
  %p4 = getelementptr i8, ptr %p, i64 4
  %v = load float, ptr %p4
  ret float %v
}

; One i64 on the left, two i32 on the right: a phi of %x and %y | %z << 32.
; GVN moves the load into %r (load PRE) instead.
; CHECK-LABEL: define i64 @join(
; CHECK:       r:
; CHECK:         [[Y:%.*]] = zext i32 %y to i64
; CHECK-NEXT:    [[Z:%.*]] = zext i32 %z to i64
; CHECK-NEXT:    [[ZS:%.*]] = shl i64 [[Z]], 32
; CHECK-NEXT:    [[YZ:%.*]] = or i64 [[Y]], [[ZS]]
; CHECK-NEXT:    br label %j
; CHECK:       j:
; CHECK-NEXT:    [[V:%.*]] = phi i64 [ %x, %l ], [ [[YZ]], %r ]
; CHECK-NEXT:    ret i64 [[V]]
; GVN-LABEL: define i64 @join(
; GVN:         load i64, ptr %p
define i64 @join(i1 %c, i64 %x, i32 %y, i32 %z) {
entry:
  %p = alloca i64
  br i1 %c, label %l, label %r
l:
  store i64 %x, ptr %p
  br label %j
r:
  store i32 %y, ptr %p
  %p4 = getelementptr i8, ptr %p, i64 4
  store i32 %z, ptr %p4
  br label %j
j:
  %v = load i64, ptr %p
  ret i64 %v
}

; A loop header: %x on entry, the two halves the body stored on the back edge.
; CHECK-LABEL: define i64 @loop(
; CHECK:       h:
; CHECK-NEXT:    [[V:%.*]] = phi i64 [ %x, %entry ], [ [[YZ:%.*]], %body ]
; CHECK-NOT:     load
; CHECK:       body:
; CHECK:         [[Y:%.*]] = zext i32 %y to i64
; CHECK:         [[ZS:%.*]] = shl i64 {{.*}}, 32
; CHECK-NEXT:    [[YZ]] = or i64 [[Y]], [[ZS]]
; CHECK-NEXT:    br label %h
; GVN-LABEL: define i64 @loop(
; GVN:         load i64, ptr %p
define i64 @loop(i64 %x, i32 %y, i64 %n) {
entry:
  %p = alloca i64
  store i64 %x, ptr %p
  br label %h
h:
  %i = phi i64 [ 0, %entry ], [ %i1, %body ]
  %v = load i64, ptr %p
  %go = icmp ult i64 %i, %n
  br i1 %go, label %body, label %exit
body:
  %i1 = add i64 %i, 1
  store i32 %y, ptr %p
  %z = trunc i64 %v to i32
  %p4 = getelementptr i8, ptr %p, i64 4
  store i32 %z, ptr %p4
  br label %h
exit:
  ret i64 %v
}

; Two loads below one join (the second one block further down a chain of
; single predecessors that define nothing) share one phi.
; CHECK-LABEL: define i32 @below_join(
; CHECK:       j:
; CHECK-NEXT:    [[V:%.*]] = phi i32 [ %x, %l ], [ %y, %r ]
; CHECK-NEXT:    br label %k
; CHECK:       k:
; CHECK-NEXT:    %s = add i32 [[V]], [[V]]
define i32 @below_join(i1 %c, i32 %x, i32 %y) {
entry:
  %p = alloca i32
  br i1 %c, label %l, label %r
l:
  store i32 %x, ptr %p
  br label %j
r:
  store i32 %y, ptr %p
  br label %j
j:
  %u = load i32, ptr %p
  br label %k
k:
  %v = load i32, ptr %p
  %s = add i32 %u, %v
  ret i32 %s
}

; Pointers in an integral address space go through integers.
; CHECK-LABEL: define ptr @ptr_from_halves(
; CHECK:         [[O:%.*]] = or i64
; CHECK-NEXT:    [[P:%.*]] = inttoptr i64 [[O]] to ptr
; CHECK-NEXT:    ret ptr [[P]]
define ptr @ptr_from_halves(i32 %a, i32 %b) {
  %p = alloca i64
  store i32 %a, ptr %p
  %p4 = getelementptr i8, ptr %p, i64 4
  store i32 %b, ptr %p4
  %v = load ptr, ptr %p
  ret ptr %v
}

; Two floats read as a double: their bits, the second one's above.
; CHECK-LABEL: define double @double_from_halves(
; CHECK:         [[A:%.*]] = bitcast float %a to i32
; CHECK-NEXT:    [[AX:%.*]] = zext i32 [[A]] to i64
; CHECK-NEXT:    [[B:%.*]] = bitcast float %b to i32
; CHECK-NEXT:    [[BX:%.*]] = zext i32 [[B]] to i64
; CHECK-NEXT:    [[BS:%.*]] = shl i64 [[BX]], 32
; CHECK-NEXT:    [[O:%.*]] = or i64 [[AX]], [[BS]]
; CHECK-NEXT:    [[D:%.*]] = bitcast i64 [[O]] to double
; CHECK-NEXT:    ret double [[D]]
define double @double_from_halves(float %a, float %b) {
  %p = alloca double
  store float %a, ptr %p
  %p4 = getelementptr i8, ptr %p, i64 4
  store float %b, ptr %p4
  %v = load double, ptr %p
  ret double %v
}

; A stored value that is itself a forwarded load: both loads become %x.
; CHECK-LABEL: define i64 @chain(
; CHECK-NOT:     load
; CHECK:         ret i64 %x
define i64 @chain(i64 %x) {
  %p = alloca i64
  %q = alloca i64
  store i64 %x, ptr %p
  %a = load i64, ptr %p
  store i64 %a, ptr %q
  %b = load i64, ptr %q
  ret i64 %b
}

; ---- must not be forwarded ----

; Stored on one path only: the other path's bytes are from before.
; CHECK-LABEL: define i64 @one_path(
; CHECK:         %v = load i64, ptr %p
define i64 @one_path(i1 %c, i64 %x) {
entry:
  %p = alloca i64
  br i1 %c, label %l, label %j
l:
  store i64 %x, ptr %p
  br label %j
j:
  %v = load i64, ptr %p
  ret i64 %v
}

; Half the bytes are from before the function.
; CHECK-LABEL: define i64 @half_entry(
; CHECK:         %v = load i64, ptr %p
define i64 @half_entry(i32 %y) {
  %p = alloca i64
  store i32 %y, ptr %p
  %v = load i64, ptr %p
  ret i64 %v
}

; A store through a select of %p and %q may define bytes 0-3 in between.
; CHECK-LABEL: define i64 @maydef(
; CHECK:         %v = load i64, ptr %p
define i64 @maydef(i1 %c, i64 %x, i32 %y) {
entry:
  %p = alloca i64
  %q = alloca i64
  store i64 %x, ptr %p
  %s = select i1 %c, ptr %p, ptr %q
  store i32 %y, ptr %s
  %v = load i64, ptr %p
  ret i64 %v
}

; A call may write the escaped %p in between.
; CHECK-LABEL: define i64 @escaped(
; CHECK:         %v = load i64, ptr %p
define i64 @escaped(i64 %x) {
  %p = alloca i64
  call void @ext(ptr %p)
  store i64 %x, ptr %p
  call void @ext(ptr null)
  %v = load i64, ptr %p
  ret i64 %v
}

; A masked store may or may not write bytes 0-3.
; CHECK-LABEL: define i64 @masked(
; CHECK:         %v = load i64, ptr %p
define i64 @masked(i64 %x, <4 x i1> %m) {
  %p = alloca i64
  store i64 %x, ptr %p
  call void @llvm.masked.store.v4i8.p0(<4 x i8> zeroinitializer, ptr %p, <4 x i1> %m)
  %v = load i64, ptr %p
  ret i64 %v
}

; A store on each side, but the join stores before the load (left alone).
; CHECK-LABEL: define i64 @join_defines_first(
; CHECK:         %v = load i64, ptr %p
define i64 @join_defines_first(i1 %c, i64 %x, i32 %y, i32 %z) {
entry:
  %p = alloca i64
  %q = alloca i64
  br i1 %c, label %l, label %r
l:
  store i64 %x, ptr %p
  br label %j
r:
  store i32 %y, ptr %p
  %p4 = getelementptr i8, ptr %p, i64 4
  store i32 %z, ptr %p4
  br label %j
j:
  store i64 %x, ptr %q
  %v = load i64, ptr %p
  ret i64 %v
}

; Below a join, but the block between defines memory (left alone).
; CHECK-LABEL: define i32 @below_join_defines(
; CHECK:       k:
; CHECK-NEXT:    %v = load i32, ptr %p
define i32 @below_join_defines(i1 %c, i32 %x, i32 %y) {
entry:
  %p = alloca i32
  %q = alloca i32
  br i1 %c, label %l, label %r
l:
  store i32 %x, ptr %p
  br label %j
r:
  store i32 %y, ptr %p
  br label %j
j:
  store i32 0, ptr %q
  br label %k
k:
  %v = load i32, ptr %p
  ret i32 %v
}

; After an acquire fence another thread's write to @shared may be visible:
; with a fence or an atomic in the function, only the private alloca's load
; is forwarded.
@shared = global i64 0
; CHECK-LABEL: define i64 @fenced(
; CHECK:         %g = load i64, ptr @shared
; CHECK-NOT:     %v = load
; CHECK:         %s = add i64 %g, %x
define i64 @fenced(i64 %x) {
  %p = alloca i64
  store i64 %x, ptr @shared
  store i64 %x, ptr %p
  fence acquire
  %g = load i64, ptr @shared
  %v = load i64, ptr %p
  %s = add i64 %g, %v
  ret i64 %s
}

; Volatile, atomic, vector and i1 accesses are never touched.
; CHECK-LABEL: define i64 @kinds(
; CHECK:         %v = load volatile i64, ptr %p
; CHECK:         %w = load atomic i64, ptr %p monotonic
; CHECK:         %u = load <2 x i32>, ptr %p
; CHECK:         %b = load i1, ptr %q
; CHECK:         %e = load i8, ptr %q
define i64 @kinds(i64 %x, i1 %c) {
  %p = alloca i64
  %q = alloca i8
  store i64 %x, ptr %p
  %v = load volatile i64, ptr %p
  %w = load atomic i64, ptr %p monotonic, align 8
  %u = load <2 x i32>, ptr %p
  store i1 %c, ptr %q
  %b = load i1, ptr %q
  %e = load i8, ptr %q
  %s = add i64 %v, %w
  ret i64 %s
}
