; Private memory (issue 8 §1): a load from an alloca is uniform only if its
; address is uniform and every write that may reach it stored a uniform value
; at a uniform address under uniform control. Pointers are followed through
; select and phi, so a load through a select between two private arrays sees
; the writes to both. LLVM's own analysis has no opinion here (spir64 has no
; divergent target), so the verdicts are checked by FileCheck, and by
; execution in tests/uniformity_oracle.rs.
; RUN: %simt-opt -passes='print<simt-uniformity>' -disable-output %s 2>&1 | FileCheck %s

target triple = "spir64-unknown-unknown"

; %a gets a divergent value, %b a uniform one; the load through the
; (uniformly chosen) select may read %a, so it is divergent.
; CHECK-LABEL: simt-uniformity for function 'select_between_arrays':
; CHECK:         DIVERGENT:   store i32 %lid32, ptr %a
; CHECK-NEXT:    DIVERGENT:   %v = load i32, ptr %p
; CHECK-NEXT:    DIVERGENT:   store i32 %v
define spir_kernel void @select_between_arrays(ptr addrspace(1) %out, i32 %n) {
entry:
  %a = alloca [4 x i32]
  %b = alloca [4 x i32]
  %lid = call spir_func i64 @_Z12get_local_idj(i32 0)
  %lid32 = trunc i64 %lid to i32
  store i32 %lid32, ptr %a
  store i32 %n, ptr %b
  %c = icmp eq i32 %n, 0
  %p = select i1 %c, ptr %a, ptr %b
  %v = load i32, ptr %p
  store i32 %v, ptr addrspace(1) %out
  ret void
}

; The same through a phi of the two arrays.
; CHECK-LABEL: simt-uniformity for function 'phi_between_arrays':
; CHECK:         DIVERGENT:   %v = load i32, ptr %p
define spir_kernel void @phi_between_arrays(ptr addrspace(1) %out, i32 %n) {
entry:
  %a = alloca [4 x i32]
  %b = alloca [4 x i32]
  %lid = call spir_func i64 @_Z12get_local_idj(i32 0)
  %lid32 = trunc i64 %lid to i32
  store i32 %lid32, ptr %a
  store i32 %n, ptr %b
  %c = icmp eq i32 %n, 0
  br i1 %c, label %left, label %join
left:
  br label %join
join:
  %p = phi ptr [ %a, %left ], [ %b, %entry ]
  %v = load i32, ptr %p
  store i32 %v, ptr addrspace(1) %out
  ret void
}

; A uniform value stored at a divergent index, and one stored under divergent
; control: both objects' loads are divergent. A uniform value stored at a
; uniform index under uniform control stays uniform (%u).
; CHECK-LABEL: simt-uniformity for function 'index_and_control':
; CHECK:         DIVERGENT:   %q = getelementptr i32, ptr %x, i64 %lid
; CHECK-NEXT:    DIVERGENT:   store i32 %n, ptr %q
; CHECK-NEXT:    DIVERGENT:   %d = icmp
; CHECK-NEXT:    DIVERGENT:   br i1 %d
; CHECK-NEXT:    DIVERGENT:   %vx = load i32, ptr %x
; CHECK-NEXT:    DIVERGENT:   %vy = load i32, ptr %y
; CHECK-NEXT:    DIVERGENT:   %s = add i32 %vx, %vy
; CHECK-NEXT:    DIVERGENT:   %t = add i32 %s, %u
; CHECK-NEXT:    DIVERGENT:   store i32 %t
; CHECK-NEXT:    divergent branches:
define spir_kernel void @index_and_control(ptr addrspace(1) %out, i32 %n) {
entry:
  %x = alloca [4 x i32]
  %y = alloca i32
  %z = alloca i32
  %lid = call spir_func i64 @_Z12get_local_idj(i32 0)
  store i32 0, ptr %y
  store i32 %n, ptr %z
  %q = getelementptr i32, ptr %x, i64 %lid
  store i32 %n, ptr %q
  %d = icmp ult i64 %lid, 3
  br i1 %d, label %then, label %join
then:
  store i32 1, ptr %y
  br label %join
join:
  %vx = load i32, ptr %x
  %vy = load i32, ptr %y
  %u = load i32, ptr %z
  %s = add i32 %vx, %vy
  %t = add i32 %s, %u
  store i32 %t, ptr addrspace(1) %out
  ret void
}

; A store in a loop that work-items leave in different iterations is under
; divergent control: each leaves the last value it stored.
; CHECK-LABEL: simt-uniformity for function 'store_in_divergent_loop':
; CHECK:         DIVERGENT:   %v = load i32, ptr %slot
define spir_kernel void @store_in_divergent_loop(ptr addrspace(1) %out) {
entry:
  %slot = alloca i32
  store i32 0, ptr %slot
  %lid = call spir_func i64 @_Z12get_local_idj(i32 0)
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %i32 = trunc i64 %i to i32
  store i32 %i32, ptr %slot
  %i.next = add i64 %i, 1
  %c = icmp ult i64 %i.next, %lid
  br i1 %c, label %loop, label %exit
exit:
  %v = load i32, ptr %slot
  store i32 %v, ptr addrspace(1) %out
  ret void
}

; An object whose address is stored to memory escapes: its loads are
; divergent, and so are loads through pointers of unknown origin in the
; private address space.
; CHECK-LABEL: simt-uniformity for function 'escaped':
; CHECK:         DIVERGENT:   %v = load i32, ptr %slot
; CHECK-NEXT:    DIVERGENT:   %w = load i32, ptr %pp
define spir_kernel void @escaped(ptr addrspace(1) %out, ptr addrspace(1) %ptrs, i32 %n) {
entry:
  %slot = alloca i32
  store i32 %n, ptr %slot
  store ptr %slot, ptr addrspace(1) %ptrs
  %v = load i32, ptr %slot
  %pp = load ptr, ptr addrspace(1) %ptrs
  %w = load i32, ptr %pp
  %s = add i32 %v, %w
  store i32 %s, ptr addrspace(1) %out
  ret void
}

declare spir_func i64 @_Z12get_local_idj(i32)
