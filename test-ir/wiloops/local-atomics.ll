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

; CUDA's atomicAdd(&bins[b], 1) on a __shared__ array: the atomic's pointer
; is generic, cast from the shared one, through GEPs, a select and a phi of
; such pointers; it is lowered all the same. A generic pointer passed in, or
; a phi that may be one, stays atomic: it may point at global memory.
; CHECK-LABEL: define void @simt_wg_cuda(
define void @simt_wg_cuda(ptr addrspace(3) %bins, ptr %generic, i64 %b, i1 %c) {
entry:
  %g = addrspacecast ptr addrspace(3) %bins to ptr
  %p = getelementptr inbounds i32, ptr %g, i64 %b
; CHECK:      %[[O:.*]] = load i32, ptr %p, align 4
; CHECK-NEXT: %[[N:.*]] = add i32 %[[O]], 1
; CHECK-NEXT: store i32 %[[N]], ptr %p, align 4
  %a = atomicrmw add ptr %p, i32 1 monotonic, align 4
  %q = getelementptr inbounds i32, ptr %g, i64 3
  %s = select i1 %c, ptr %p, ptr %q
; CHECK: load i32, ptr %s
; CHECK-NOT: atomicrmw
; CHECK: store i32 {{.*}}, ptr %s
  %d = atomicrmw or ptr %s, i32 2 monotonic, align 4
  br i1 %c, label %then, label %join
then:
  br label %join
join:
  %m = phi ptr [ %p, %entry ], [ %q, %then ]
  %u = phi ptr [ %p, %entry ], [ %generic, %then ]
; CHECK-LABEL: join:
; CHECK: load i32, ptr %m
; CHECK-NOT: atomicrmw {{.*}} %m
; CHECK: store i32 {{.*}}, ptr %m
  %e = atomicrmw xor ptr %m, i32 4 monotonic, align 4
; CHECK: atomicrmw add ptr %u, i32 8
  %f = atomicrmw add ptr %u, i32 8 monotonic, align 4
; CHECK: atomicrmw add ptr %generic, i32 16
  %h = atomicrmw add ptr %generic, i32 16 monotonic, align 4
  ret void
}
