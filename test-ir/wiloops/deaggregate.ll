; simt-deaggregate-atomics: a leader's atomic add of its group's popc
; (__match_any_sync, __ballot_sync, __activemask groups; lowest or highest
; leader) becomes every member's add of 1, and the warp function goes where
; nothing else uses it. Each refused kernel below breaks one condition of
; the pass's header, and its remark names it.
; RUN: %simt-opt -passes='simt-deaggregate-atomics<local-size=128,1,1>' -pass-remarks=simt-deaggregate-atomics \
; RUN:   -pass-remarks-missed=simt-deaggregate-atomics -S %s 2>%t.remarks | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
; threadIdx.x & 31 is the lane only where the block's rows are whole warps
; or the block has one row: not in blocks of 16 x 2, nor with no block size.
; RUN: %simt-opt -passes='simt-deaggregate-atomics<local-size=16,2,1>' -S %s | FileCheck %s --check-prefix=NOTLANE
; RUN: %simt-opt -passes='simt-deaggregate-atomics' -S %s | FileCheck %s --check-prefix=NOTLANE
target triple = "nvptx64-nvidia-cuda"

@bins = internal addrspace(3) global [16 x i32] undef
@bins64 = internal addrspace(3) global [16 x i64] undef
@other = internal addrspace(3) global [16 x i32] undef
@count = internal addrspace(3) global i32 undef
@gbins = internal addrspace(1) global [16 x i32] zeroinitializer

; The histogram: lowest leader (`__ffs(peers) - 1`, as clang folds it),
; the key's own test kept, `M != 0` dropped; other memory between the
; barriers (@other, the argument) and a read of the bins after the barrier
; are no obstacle.
; REMARK: remark: <unknown>:0:0: match: the leader test at `%lead` dropped: each lane of the group runs its 1 atomic(s) with 1 for popc
; CHECK-LABEL: define ptx_kernel void @match(
; CHECK-NOT:   match.any
; CHECK-NOT:   cttz
; CHECK:       br i1 %ok, label %add, label %join
; CHECK:     add:
; CHECK-NEXT:  %p = getelementptr [16 x i32], ptr addrspace(3) @bins, i32 0, i32 %key
; CHECK-NEXT:  %old = atomicrmw add ptr addrspace(3) %p, i32 1 monotonic
; NOTLANE-LABEL: define ptx_kernel void @match(
; NOTLANE:       %m = call i32 @llvm.nvvm.match.any.sync.i32(i32 -1, i32 %key)
; NOTLANE:       atomicrmw add ptr addrspace(3) %p, i32 %n monotonic
; NOTLANE-LABEL: define ptx_kernel void @highest(
define ptx_kernel void @match(ptr %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lane = and i32 %tid, 31
  %a = getelementptr i32, ptr %in, i32 %tid
  %x = load i32, ptr %a
  %key = and i32 %x, 15
  %m = call i32 @llvm.nvvm.match.any.sync.i32(i32 -1, i32 %key)
  %first = call i32 @llvm.cttz.i32(i32 %m, i1 true)
  %lead = icmp eq i32 %first, %lane
  %nz = icmp ne i32 %m, 0
  %t = select i1 %nz, i1 %lead, i1 false
  %ok = icmp ne i32 %key, 0
  %c = and i1 %ok, %t
  br i1 %c, label %add, label %join
add:
  %p = getelementptr [16 x i32], ptr addrspace(3) @bins, i32 0, i32 %key
  %n = call i32 @llvm.ctpop.i32(i32 %m)
  %old = atomicrmw add ptr addrspace(3) %p, i32 %n monotonic
  br label %join
join:
  %o = getelementptr [16 x i32], ptr addrspace(3) @other, i32 0, i32 %lane
  store i32 %x, ptr addrspace(3) %o
  store i32 0, ptr %a
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %q = getelementptr [16 x i32], ptr addrspace(3) @bins, i32 0, i32 %lane
  %v = load i32, ptr addrspace(3) %q
  store i32 %v, ptr %a
  ret void
}

; Highest leader (`31 - __clz(peers)`, as `ctlz ^ 31`), %laneid for the
; lane, 64-bit counters, a subtraction.
; REMARK: remark: <unknown>:0:0: highest: the leader test at `%lead` dropped
; CHECK-LABEL: define ptx_kernel void @highest(
; CHECK-NOT:   match.any
; CHECK:       br i1 true, label %add, label %join
; CHECK:       atomicrmw sub ptr addrspace(3) %p, i64 1 monotonic
define ptx_kernel void @highest(ptr %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lane = call i32 @llvm.nvvm.read.ptx.sreg.laneid()
  %a = getelementptr i32, ptr %in, i32 %tid
  %x = load i32, ptr %a
  %key = and i32 %x, 15
  %m = call i32 @llvm.nvvm.match.any.sync.i32(i32 -1, i32 %key)
  %lz = call i32 @llvm.ctlz.i32(i32 %m, i1 false)
  %last = xor i32 %lz, 31
  %lead = icmp eq i32 %lane, %last
  br i1 %lead, label %add, label %join
add:
  %p = getelementptr [16 x i64], ptr addrspace(3) @bins64, i32 0, i32 %key
  %n = call i32 @llvm.ctpop.i32(i32 %m)
  %n64 = zext i32 %n to i64
  %old = atomicrmw sub ptr addrspace(3) %p, i64 %n64 monotonic
  br label %join
join:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}

; A ballot's group is the lanes whose vote holds: each asks its own.
; REMARK: remark: <unknown>:0:0: ballot: the leader test at `%lead` dropped
; CHECK-LABEL: define ptx_kernel void @ballot(
; CHECK-NOT:   vote.ballot
; CHECK:       br i1 %above, label %add, label %join
; CHECK:       atomicrmw add ptr addrspace(3) @count, i32 1 monotonic
define ptx_kernel void @ballot(ptr %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lane = and i32 %tid, 31
  %a = getelementptr i32, ptr %in, i32 %tid
  %x = load i32, ptr %a
  %above = icmp sgt i32 %x, 100
  %m = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 %above)
  %first = call i32 @llvm.cttz.i32(i32 %m, i1 true)
  %lead = icmp eq i32 %first, %lane
  br i1 %lead, label %add, label %join
add:
  %n = call i32 @llvm.ctpop.i32(i32 %m)
  %old = atomicrmw add ptr addrspace(3) @count, i32 %n monotonic
  br label %join
join:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}

; __activemask() under a branch: the group is the lanes that took it.
; REMARK: remark: <unknown>:0:0: active: the leader test at `%lead` dropped
; CHECK-LABEL: define ptx_kernel void @active(
; CHECK-NOT:   activemask
; CHECK:       atomicrmw add ptr addrspace(3) @count, i32 1 monotonic
define ptx_kernel void @active(ptr %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lane = and i32 %tid, 31
  %a = getelementptr i32, ptr %in, i32 %tid
  %x = load i32, ptr %a
  %above = icmp sgt i32 %x, 100
  br i1 %above, label %in.branch, label %join
in.branch:
  %m = call i32 @llvm.nvvm.activemask()
  %first = call i32 @llvm.cttz.i32(i32 %m, i1 true)
  %lead = icmp eq i32 %first, %lane
  br i1 %lead, label %add, label %join
add:
  %n = call i32 @llvm.ctpop.i32(i32 %m)
  %old = atomicrmw add ptr addrspace(3) @count, i32 %n monotonic
  br label %join
join:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}

; Refused: the bins are global memory.
; REMARK: remark: <unknown>:0:0: global_bins: the leader test at `%lead` stays: `%old` is to global memory, which other blocks may read meanwhile
; CHECK-LABEL: define ptx_kernel void @global_bins(
; CHECK:       call i32 @llvm.nvvm.match.any.sync.i32
; CHECK-LABEL: define ptx_kernel void @result_used(
define ptx_kernel void @global_bins(ptr %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lane = and i32 %tid, 31
  %a = getelementptr i32, ptr %in, i32 %tid
  %x = load i32, ptr %a
  %key = and i32 %x, 15
  %m = call i32 @llvm.nvvm.match.any.sync.i32(i32 -1, i32 %key)
  %first = call i32 @llvm.cttz.i32(i32 %m, i1 true)
  %lead = icmp eq i32 %first, %lane
  br i1 %lead, label %add, label %join
add:
  %p = getelementptr [16 x i32], ptr addrspace(1) @gbins, i32 0, i32 %key
  %n = call i32 @llvm.ctpop.i32(i32 %m)
  %old = atomicrmw add ptr addrspace(1) %p, i32 %n monotonic
  br label %join
join:
  ret void
}

; Refused: the leader's old value is used (an aggregated increment that
; hands out slots).
; REMARK: remark: <unknown>:0:0: result_used: {{.*}} stays: the result of `%old` is used
define ptx_kernel void @result_used(ptr %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lane = and i32 %tid, 31
  %a = getelementptr i32, ptr %in, i32 %tid
  %x = load i32, ptr %a
  %key = and i32 %x, 15
  %m = call i32 @llvm.nvvm.match.any.sync.i32(i32 -1, i32 %key)
  %first = call i32 @llvm.cttz.i32(i32 %m, i1 true)
  %lead = icmp eq i32 %first, %lane
  br i1 %lead, label %add, label %join
add:
  %p = getelementptr [16 x i32], ptr addrspace(3) @bins, i32 0, i32 %key
  %n = call i32 @llvm.ctpop.i32(i32 %m)
  %old = atomicrmw add ptr addrspace(3) %p, i32 %n monotonic
  store i32 %old, ptr %a
  br label %join
join:
  ret void
}

; Refused: a work-item reads the bins between the same barriers, where it
; could see a partial sum (this read is in the join, before the barrier).
; REMARK: remark: <unknown>:0:0: read_between: {{.*}} stays: `%v`, between the same barriers, may see the partial sums in %bins
define ptx_kernel void @read_between(ptr %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lane = and i32 %tid, 31
  %a = getelementptr i32, ptr %in, i32 %tid
  %x = load i32, ptr %a
  %key = and i32 %x, 15
  %m = call i32 @llvm.nvvm.match.any.sync.i32(i32 -1, i32 %key)
  %first = call i32 @llvm.cttz.i32(i32 %m, i1 true)
  %lead = icmp eq i32 %first, %lane
  br i1 %lead, label %add, label %join
add:
  %p = getelementptr [16 x i32], ptr addrspace(3) @bins, i32 0, i32 %key
  %n = call i32 @llvm.ctpop.i32(i32 %m)
  %old = atomicrmw add ptr addrspace(3) %p, i32 %n monotonic
  br label %join
join:
  %q = getelementptr [16 x i32], ptr addrspace(3) @bins, i32 0, i32 %lane
  %v = load i32, ptr addrspace(3) %q
  store i32 %v, ptr %a
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}

; Refused: the same read at the top of the loop around the atomic, before
; it: with no barrier in the loop, the next iteration's read may run while
; another work-item adds.
; REMARK: remark: <unknown>:0:0: read_in_loop: {{.*}} stays: `%v`, between the same barriers, may see the partial sums in %bins
define ptx_kernel void @read_in_loop(ptr %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lane = and i32 %tid, 31
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %join ]
  %q = getelementptr [16 x i32], ptr addrspace(3) @bins, i32 0, i32 %lane
  %v = load i32, ptr addrspace(3) %q
  %i = add i32 %tid, %k
  %a = getelementptr i32, ptr %in, i32 %i
  store i32 %v, ptr %a
  %key = and i32 %i, 15
  %m = call i32 @llvm.nvvm.match.any.sync.i32(i32 -1, i32 %key)
  %first = call i32 @llvm.cttz.i32(i32 %m, i1 true)
  %lead = icmp eq i32 %first, %lane
  br i1 %lead, label %add, label %join
add:
  %p = getelementptr [16 x i32], ptr addrspace(3) @bins, i32 0, i32 %key
  %n = call i32 @llvm.ctpop.i32(i32 %m)
  %old = atomicrmw add ptr addrspace(3) %p, i32 %n monotonic
  br label %join
join:
  %k1 = add i32 %k, 128
  %more = icmp ult i32 %k1, 1024
  br i1 %more, label %loop, label %exit
exit:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}

; Refused: the address is the lane's, not the group's.
; REMARK: remark: <unknown>:0:0: lane_address: {{.*}} stays: the address of `%old` may differ within a group
define ptx_kernel void @lane_address(ptr %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lane = and i32 %tid, 31
  %a = getelementptr i32, ptr %in, i32 %tid
  %x = load i32, ptr %a
  %key = and i32 %x, 15
  %m = call i32 @llvm.nvvm.match.any.sync.i32(i32 -1, i32 %key)
  %first = call i32 @llvm.cttz.i32(i32 %m, i1 true)
  %lead = icmp eq i32 %first, %lane
  br i1 %lead, label %add, label %join
add:
  %slot = and i32 %lane, 15
  %p = getelementptr [16 x i32], ptr addrspace(3) @bins, i32 0, i32 %slot
  %n = call i32 @llvm.ctpop.i32(i32 %m)
  %old = atomicrmw add ptr addrspace(3) %p, i32 %n monotonic
  br label %join
join:
  ret void
}

; Refused: between the match and the test, a branch on the lane's parity
; may keep the leader away while others of its group get there.
; REMARK: remark: <unknown>:0:0: split: {{.*}} stays: `br i1 %even, label %test, label %join`, between the warp function and the test, may split a group
define ptx_kernel void @split(ptr %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lane = and i32 %tid, 31
  %a = getelementptr i32, ptr %in, i32 %tid
  %x = load i32, ptr %a
  %key = and i32 %x, 15
  %m = call i32 @llvm.nvvm.match.any.sync.i32(i32 -1, i32 %key)
  %bit = and i32 %tid, 1
  %even = icmp eq i32 %bit, 0
  br i1 %even, label %test, label %join
test:
  %first = call i32 @llvm.cttz.i32(i32 %m, i1 true)
  %lead = icmp eq i32 %first, %lane
  br i1 %lead, label %add, label %join
add:
  %p = getelementptr [16 x i32], ptr addrspace(3) @bins, i32 0, i32 %key
  %n = call i32 @llvm.ctpop.i32(i32 %m)
  %old = atomicrmw add ptr addrspace(3) %p, i32 %n monotonic
  br label %join
join:
  ret void
}

; Refused: the leader also stores, which the other lanes must not.
; REMARK: remark: <unknown>:0:0: store_too: {{.*}} stays: the leader's side also does `store i32 %n, ptr addrspace(3) @count, align 4`
define ptx_kernel void @store_too(ptr %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lane = and i32 %tid, 31
  %a = getelementptr i32, ptr %in, i32 %tid
  %x = load i32, ptr %a
  %key = and i32 %x, 15
  %m = call i32 @llvm.nvvm.match.any.sync.i32(i32 -1, i32 %key)
  %first = call i32 @llvm.cttz.i32(i32 %m, i1 true)
  %lead = icmp eq i32 %first, %lane
  br i1 %lead, label %add, label %join
add:
  %p = getelementptr [16 x i32], ptr addrspace(3) @bins, i32 0, i32 %key
  %n = call i32 @llvm.ctpop.i32(i32 %m)
  %old = atomicrmw add ptr addrspace(3) %p, i32 %n monotonic
  store i32 %n, ptr addrspace(3) @count
  br label %join
join:
  ret void
}

; Refused: the branch also tests the element's sign, which lanes of one
; key's group need not share.
; REMARK: remark: <unknown>:0:0: not_key: {{.*}} stays: the branch also tests %pos, which may differ within a group
define ptx_kernel void @not_key(ptr %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lane = and i32 %tid, 31
  %a = getelementptr i32, ptr %in, i32 %tid
  %x = load i32, ptr %a
  %key = and i32 %x, 15
  %m = call i32 @llvm.nvvm.match.any.sync.i32(i32 -1, i32 %key)
  %first = call i32 @llvm.cttz.i32(i32 %m, i1 true)
  %lead = icmp eq i32 %first, %lane
  %pos = icmp sgt i32 %x, 0
  %c = and i1 %pos, %lead
  br i1 %c, label %add, label %join
add:
  %p = getelementptr [16 x i32], ptr addrspace(3) @bins, i32 0, i32 %key
  %n = call i32 @llvm.ctpop.i32(i32 %m)
  %old = atomicrmw add ptr addrspace(3) %p, i32 %n monotonic
  br label %join
join:
  ret void
}

; Refused: the leader adds 1, not its group's count (a count of groups).
; REMARK: remark: <unknown>:0:0: not_popc: {{.*}} stays: `%old` does not add the group's popc
define ptx_kernel void @not_popc(ptr %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lane = and i32 %tid, 31
  %a = getelementptr i32, ptr %in, i32 %tid
  %x = load i32, ptr %a
  %key = and i32 %x, 15
  %m = call i32 @llvm.nvvm.match.any.sync.i32(i32 -1, i32 %key)
  %first = call i32 @llvm.cttz.i32(i32 %m, i1 true)
  %lead = icmp eq i32 %first, %lane
  br i1 %lead, label %add, label %join
add:
  %p = getelementptr [16 x i32], ptr addrspace(3) @bins, i32 0, i32 %key
  %old = atomicrmw add ptr addrspace(3) %p, i32 1 monotonic
  br label %join
join:
  ret void
}

; Refused: a float sum rounds differently one at a time.
; REMARK: remark: <unknown>:0:0: float: {{.*}} stays: `%old` is not an integer add or subtract
define ptx_kernel void @float(ptr %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lane = and i32 %tid, 31
  %a = getelementptr i32, ptr %in, i32 %tid
  %x = load i32, ptr %a
  %key = and i32 %x, 15
  %m = call i32 @llvm.nvvm.match.any.sync.i32(i32 -1, i32 %key)
  %first = call i32 @llvm.cttz.i32(i32 %m, i1 true)
  %lead = icmp eq i32 %first, %lane
  br i1 %lead, label %add, label %join
add:
  %p = getelementptr [16 x float], ptr addrspace(3) @bins, i32 0, i32 %key
  %n = call i32 @llvm.ctpop.i32(i32 %m)
  %f = uitofp i32 %n to float
  %old = atomicrmw fadd ptr addrspace(3) %p, float %f monotonic
  br label %join
join:
  ret void
}

; Refused: a call between the same barriers might read the bins.
; REMARK: remark: <unknown>:0:0: call_between: {{.*}} stays: `call void @unknown()`, between the same barriers, may touch %bins
define ptx_kernel void @call_between(ptr %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lane = and i32 %tid, 31
  %a = getelementptr i32, ptr %in, i32 %tid
  %x = load i32, ptr %a
  %key = and i32 %x, 15
  %m = call i32 @llvm.nvvm.match.any.sync.i32(i32 -1, i32 %key)
  %first = call i32 @llvm.cttz.i32(i32 %m, i1 true)
  %lead = icmp eq i32 %first, %lane
  br i1 %lead, label %add, label %join
add:
  %p = getelementptr [16 x i32], ptr addrspace(3) @bins, i32 0, i32 %key
  %n = call i32 @llvm.ctpop.i32(i32 %m)
  %old = atomicrmw add ptr addrspace(3) %p, i32 %n monotonic
  br label %join
join:
  call void @unknown()
  ret void
}

; Refused: the join's phi tells the leader (1) from the rest (0).
; REMARK: remark: <unknown>:0:0: phi_join: {{.*}} stays: %was at the join tells the leader from the rest
define ptx_kernel void @phi_join(ptr %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lane = and i32 %tid, 31
  %a = getelementptr i32, ptr %in, i32 %tid
  %x = load i32, ptr %a
  %key = and i32 %x, 15
  %m = call i32 @llvm.nvvm.match.any.sync.i32(i32 -1, i32 %key)
  %first = call i32 @llvm.cttz.i32(i32 %m, i1 true)
  %lead = icmp eq i32 %first, %lane
  br i1 %lead, label %add, label %join
add:
  %p = getelementptr [16 x i32], ptr addrspace(3) @bins, i32 0, i32 %key
  %n = call i32 @llvm.ctpop.i32(i32 %m)
  %old = atomicrmw add ptr addrspace(3) %p, i32 %n monotonic
  br label %join
join:
  %was = phi i32 [ 1, %add ], [ 0, %entry ]
  store i32 %was, ptr %a
  ret void
}

; Not a leader test: with half the warp in the mask, a lane of the other
; half would be in no group (undefined in CUDA); the match stays, silently.
; CHECK-LABEL: define ptx_kernel void @half_mask(
; CHECK:       %m = call i32 @llvm.nvvm.match.any.sync.i32(i32 65535, i32 %key)
; CHECK:       atomicrmw add ptr addrspace(3) %p, i32 %n monotonic
define ptx_kernel void @half_mask(ptr %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lane = and i32 %tid, 31
  %a = getelementptr i32, ptr %in, i32 %tid
  %x = load i32, ptr %a
  %key = and i32 %x, 15
  %m = call i32 @llvm.nvvm.match.any.sync.i32(i32 65535, i32 %key)
  %first = call i32 @llvm.cttz.i32(i32 %m, i1 true)
  %lead = icmp eq i32 %first, %lane
  br i1 %lead, label %add, label %join
add:
  %p = getelementptr [16 x i32], ptr addrspace(3) @bins, i32 0, i32 %key
  %n = call i32 @llvm.ctpop.i32(i32 %m)
  %old = atomicrmw add ptr addrspace(3) %p, i32 %n monotonic
  br label %join
join:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.laneid()
declare i32 @llvm.nvvm.match.any.sync.i32(i32, i32)
declare i32 @llvm.nvvm.activemask()
declare i32 @llvm.nvvm.vote.ballot.sync(i32, i1)
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)
declare i32 @llvm.cttz.i32(i32, i1)
declare i32 @llvm.ctlz.i32(i32, i1)
declare i32 @llvm.ctpop.i32(i32)
declare void @unknown()
