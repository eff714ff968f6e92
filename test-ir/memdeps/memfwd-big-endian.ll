; simt-memfwd on a big-endian layout with a non-integral address space,
; expectations by hand: the byte at the lowest address is the most
; significant, so bytes [2,3] of an i64 stored at 0 are its bits 32-47, and
; of two i32 stored at 0 and 4, the first is the high half of an i64 load.
; Pointers of address space 1 (`ni:1`) have no integer form: a load of one
; is forwarded only from a store of the same type over the same bytes.
; RUN: %simt-opt -passes=simt-memfwd -S %s | FileCheck %s
; RUN: %simt-opt -passes=simt-memfwd -S %s | %opt -passes=verify -disable-output

target datalayout = "E-m:e-i64:64-n8:16:32:64-S128-ni:1"

; CHECK-LABEL: define i16 @middle(
; CHECK:         [[S:%.*]] = lshr i64 %w, 32
; CHECK-NEXT:    [[T:%.*]] = trunc i64 [[S]] to i16
; CHECK-NEXT:    ret i16 [[T]]
define i16 @middle(i64 %w) {
  %p = alloca i64
  store i64 %w, ptr %p
  %p2 = getelementptr i8, ptr %p, i64 2
  %v = load i16, ptr %p2
  ret i16 %v
}

; CHECK-LABEL: define i64 @two_halves(
; CHECK:         [[A:%.*]] = zext i32 %a to i64
; CHECK-NEXT:    [[AS:%.*]] = shl i64 [[A]], 32
; CHECK-NEXT:    [[B:%.*]] = zext i32 %b to i64
; CHECK-NEXT:    [[O:%.*]] = or i64 [[AS]], [[B]]
; CHECK-NEXT:    ret i64 [[O]]
define i64 @two_halves(i32 %a, i32 %b) {
  %p = alloca i64
  store i32 %a, ptr %p
  %p4 = getelementptr i8, ptr %p, i64 4
  store i32 %b, ptr %p4
  %v = load i64, ptr %p
  ret i64 %v
}

; CHECK-LABEL: define ptr addrspace(1) @ni_halves(
; CHECK:         %v = load ptr addrspace(1), ptr %p
define ptr addrspace(1) @ni_halves(i32 %a, i32 %b) {
  %p = alloca i64
  store i32 %a, ptr %p
  %p4 = getelementptr i8, ptr %p, i64 4
  store i32 %b, ptr %p4
  %v = load ptr addrspace(1), ptr %p
  ret ptr addrspace(1) %v
}

; CHECK-LABEL: define ptr addrspace(1) @ni_same(
; CHECK-NOT:     load
; CHECK:         ret ptr addrspace(1) %q
define ptr addrspace(1) @ni_same(ptr addrspace(1) %q) {
  %p = alloca ptr addrspace(1)
  store ptr addrspace(1) %q, ptr %p
  %v = load ptr addrspace(1), ptr %p
  ret ptr addrspace(1) %v
}

; An integer load of a non-integral pointer's bytes would need ptrtoint.
; CHECK-LABEL: define i64 @ni_as_int(
; CHECK:         %v = load i64, ptr %p
define i64 @ni_as_int(ptr addrspace(1) %q) {
  %p = alloca ptr addrspace(1)
  store ptr addrspace(1) %q, ptr %p
  %v = load i64, ptr %p
  ret i64 %v
}
