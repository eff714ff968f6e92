; simt-memfwd through memcpy/memmove (issue 26): a load of bytes a copy
; wrote takes them from the stores (or memset) that wrote the copy's source
; bytes last, as the chains say at the copy. Expected values by hand
; (little-endian): @pair reads s[0..7] = %a | %b << 32 through d; @shifted
; reads d[0..3] = s[4..7], the high half of %w; @splat reads two bytes of
; a memset of 7 through a memmove. Controls: a copy of a length not known
; (@unknown_len) and a source byte written on one side of a branch only
; (@one_side) are left alone. The functions also run under lli before and
; after the pass, on the same inputs, with the same output.
; RUN: %simt-opt -passes='simt-memfwd<stats>' -S %s 2>%t.err | FileCheck %s
; RUN: FileCheck %s --check-prefix=STATS < %t.err
; RUN: %simt-opt -passes=simt-memfwd -S %s -o %t.ll
; RUN: %opt -passes=verify -disable-output %t.ll
; RUN: lli %s > %t.before
; RUN: lli %t.ll > %t.after
; RUN: diff %t.before %t.after
; RUN: FileCheck %s --check-prefix=RUNS < %t.before
; STATS-DAG: simt-memfwd: 'pair': forwarded 1 loads
; STATS-DAG: simt-memfwd: 'shifted': forwarded 1 loads
; STATS-DAG: simt-memfwd: 'splat': forwarded 1 loads
; STATS-NOT: 'unknown_len'
; STATS-NOT: 'one_side'
; RUNS: 6666666655555555 89abcdef 707 44444444 33333333

; CHECK-LABEL: define i64 @pair(
; CHECK-NOT:     load
; CHECK:         ret i64
; CHECK-LABEL: define i32 @shifted(
; CHECK-NOT:     load
; CHECK:         lshr i64 %w, 32
; CHECK-LABEL: define i16 @splat(
; CHECK-NOT:     load
; CHECK:         ret i16 1799
; CHECK-LABEL: define i32 @unknown_len(
; CHECK:         load i32
; CHECK-LABEL: define i32 @one_side(
; CHECK:         load i32

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare void @llvm.memmove.p0.p0.i64(ptr, ptr, i64, i1)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare i32 @printf(ptr, ...)

@fmt = private constant [22 x i8] c"%lx %x %x %x %x\0A\00\00\00\00\00\00"

define i64 @pair(i32 %a, i32 %b) {
  %s = alloca i64, align 8
  %d = alloca i64, align 8
  %s4 = getelementptr i8, ptr %s, i64 4
  store i32 %a, ptr %s, align 4
  store i32 %b, ptr %s4, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 8, i1 false)
  %v = load i64, ptr %d, align 8
  ret i64 %v
}

define i32 @shifted(i64 %w) {
  %s = alloca i64, align 8
  %d = alloca i32, align 4
  %s4 = getelementptr i8, ptr %s, i64 4
  store i64 %w, ptr %s, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s4, i64 4, i1 false)
  %v = load i32, ptr %d, align 4
  ret i32 %v
}

define i16 @splat() {
  %s = alloca i64, align 8
  %d = alloca i64, align 8
  %d2 = getelementptr i8, ptr %d, i64 2
  call void @llvm.memset.p0.i64(ptr %s, i8 7, i64 8, i1 false)
  call void @llvm.memmove.p0.p0.i64(ptr %d, ptr %s, i64 8, i1 false)
  %v = load i16, ptr %d2, align 2
  ret i16 %v
}

define i32 @unknown_len(i32 %a, i64 %n) {
  %s = alloca i64, align 8
  %d = alloca i64, align 8
  store i32 %a, ptr %s, align 4
  store i32 0, ptr %d, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
  %v = load i32, ptr %d, align 4
  ret i32 %v
}

define i32 @one_side(i32 %a, i32 %b, i1 %c) {
  %s = alloca i32, align 4
  %d = alloca i32, align 4
  store i32 %a, ptr %s, align 4
  br i1 %c, label %then, label %join
then:
  store i32 %b, ptr %s, align 4
  br label %join
join:
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 4, i1 false)
  %v = load i32, ptr %d, align 4
  ret i32 %v
}

define i32 @main() {
  %p = call i64 @pair(i32 1431655765, i32 1717986918)
  %s = call i32 @shifted(i64 9920249030613615975)
  %t = call i16 @splat()
  %tz = zext i16 %t to i32
  %u = call i32 @unknown_len(i32 1145324612, i64 4)
  %o = call i32 @one_side(i32 572662306, i32 858993459, i1 true)
  %r = call i32 (ptr, ...) @printf(ptr @fmt, i64 %p, i32 %s, i32 %tz, i32 %u, i32 %o)
  ret i32 0
}
