; simt-local-atomics: in a work-group function (simt_wg_*), atomics through
; address-space-3 pointers become a load, the operation and a store with the
; atomic's alignment; the atomic's result is the loaded value (cmpxchg: the
; pair {old, old == expected}). Global, volatile and fmin atomics stay, and so
; does everything in a function that is not a work-group function.
; RUN: %simt-opt -passes=simt-local-atomics -S %s | FileCheck %s

; CHECK-LABEL: define i32 @simt_wg_k(
define i32 @simt_wg_k(ptr addrspace(3) %l, ptr addrspace(1) %g, i32 %v, float %f) {
; CHECK:      %[[OLD:.*]] = load i32, ptr addrspace(3) %l, align 8
; CHECK-NEXT: %[[NEW:.*]] = add i32 %[[OLD]], %v
; CHECK-NEXT: store i32 %[[NEW]], ptr addrspace(3) %l, align 8
  %a = atomicrmw add ptr addrspace(3) %l, i32 %v seq_cst, align 8
; CHECK-NEXT: %[[O2:.*]] = load i32, ptr addrspace(3) %l
; CHECK-NEXT: %[[C2:.*]] = icmp ult i32 %[[O2]], %v
; CHECK-NEXT: %[[N2:.*]] = select i1 %[[C2]], i32 %[[O2]], i32 %v
; CHECK-NEXT: store i32 %[[N2]], ptr addrspace(3) %l
  %b = atomicrmw umin ptr addrspace(3) %l, i32 %v monotonic, align 4
; CHECK-NEXT: %[[O3:.*]] = load i32, ptr addrspace(3) %l
; CHECK-NEXT: %[[W3:.*]] = icmp uge i32 %[[O3]], %v
; CHECK-NEXT: %[[I3:.*]] = add i32 %[[O3]], 1
; CHECK-NEXT: %[[N3:.*]] = select i1 %[[W3]], i32 0, i32 %[[I3]]
; CHECK-NEXT: store i32 %[[N3]], ptr addrspace(3) %l
  %c = atomicrmw uinc_wrap ptr addrspace(3) %l, i32 %v monotonic, align 4
; CHECK-NEXT: %[[O4:.*]] = load i32, ptr addrspace(3) %l
; CHECK-NEXT: %[[E4:.*]] = icmp eq i32 %[[O4]], %[[OLD]]
; CHECK-NEXT: %[[N4:.*]] = select i1 %[[E4]], i32 %[[O2]], i32 %[[O4]]
; CHECK-NEXT: %[[P4:.*]] = insertvalue { i32, i1 } poison, i32 %[[O4]], 0
; CHECK-NEXT: %[[R4:.*]] = insertvalue { i32, i1 } %[[P4]], i1 %[[E4]], 1
; CHECK-NEXT: store i32 %[[N4]], ptr addrspace(3) %l
  %d = cmpxchg ptr addrspace(3) %l, i32 %a, i32 %b seq_cst seq_cst, align 4
; CHECK-NEXT: extractvalue { i32, i1 } %[[R4]], 0
  %d0 = extractvalue { i32, i1 } %d, 0
; CHECK-NEXT: atomicrmw add ptr addrspace(1) %g
  %e = atomicrmw add ptr addrspace(1) %g, i32 %v seq_cst, align 4
; CHECK-NEXT: atomicrmw volatile xchg ptr addrspace(3) %l
  %h = atomicrmw volatile xchg ptr addrspace(3) %l, i32 %v seq_cst, align 4
; CHECK-NEXT: atomicrmw fmin ptr addrspace(3)
  %i = atomicrmw fmin ptr addrspace(3) %l, float %f seq_cst, align 4
; CHECK-NEXT: %[[O5:.*]] = load float, ptr addrspace(3) %l
; CHECK-NEXT: %[[N5:.*]] = fadd float %[[O5]], %f
; CHECK-NEXT: store float %[[N5]], ptr addrspace(3) %l
  %j = atomicrmw fadd ptr addrspace(3) %l, float %f seq_cst, align 4
  %s1 = add i32 %c, %d0
  %s2 = add i32 %s1, %e
  %s3 = add i32 %s2, %h
  ret i32 %s3
}

; CHECK-LABEL: define void @kernel(
; CHECK: atomicrmw add ptr addrspace(3)
define void @kernel(ptr addrspace(3) %l) {
  %a = atomicrmw add ptr addrspace(3) %l, i32 1 seq_cst, align 4
  ret void
}
