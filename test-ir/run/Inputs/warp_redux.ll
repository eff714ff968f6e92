; redux.sync (sm_80) and match.any.sync.i64 as IR, for the host engine's
; warp exchange and the emulator: per thread, the eight reductions of the
; ramp over its warp, and the lanes whose value / 4 equals its own.
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.redux.sync.add(i32, i32)
declare i32 @llvm.nvvm.redux.sync.min(i32, i32)
declare i32 @llvm.nvvm.redux.sync.max(i32, i32)
declare i32 @llvm.nvvm.redux.sync.umin(i32, i32)
declare i32 @llvm.nvvm.redux.sync.umax(i32, i32)
declare i32 @llvm.nvvm.redux.sync.and(i32, i32)
declare i32 @llvm.nvvm.redux.sync.or(i32, i32)
declare i32 @llvm.nvvm.redux.sync.xor(i32, i32)
declare i32 @llvm.nvvm.match.any.sync.i64(i32, i64)

define ptx_kernel void @redux(ptr %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %nt = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %bt = mul i32 %b, %nt
  %i = add i32 %bt, %t
  ; Values of both signs: i - 20.
  %x = sub i32 %i, 20
  %r0 = call i32 @llvm.nvvm.redux.sync.add(i32 %x, i32 -1)
  %r1 = call i32 @llvm.nvvm.redux.sync.min(i32 %x, i32 -1)
  %r2 = call i32 @llvm.nvvm.redux.sync.max(i32 %x, i32 -1)
  %r3 = call i32 @llvm.nvvm.redux.sync.umin(i32 %x, i32 -1)
  %r4 = call i32 @llvm.nvvm.redux.sync.umax(i32 %x, i32 -1)
  %r5 = call i32 @llvm.nvvm.redux.sync.and(i32 %x, i32 -1)
  %r6 = call i32 @llvm.nvvm.redux.sync.or(i32 %x, i32 -1)
  ; Over the lanes of the caller's parity: even lanes name the even lanes
  ; (0x55555555), odd lanes the odd ones (0xaaaaaaaa), so every lane is in
  ; its own mask (PTX: undefined otherwise; --check warp reports it).
  %odd = and i32 %t, 1
  %isodd = icmp ne i32 %odd, 0
  %parity = select i1 %isodd, i32 -1431655766, i32 1431655765
  %r7 = call i32 @llvm.nvvm.redux.sync.xor(i32 %x, i32 %parity)
  %q = sdiv i32 %i, 4
  %q64 = sext i32 %q to i64
  %r8 = call i32 @llvm.nvvm.match.any.sync.i64(i32 -1, i64 %q64)
  %base = mul i32 %i, 9
  %b64 = sext i32 %base to i64
  %o0 = add i64 %b64, 0
  %p0 = getelementptr inbounds i32, ptr %out, i64 %o0
  store i32 %r0, ptr %p0, align 4
  %o1 = add i64 %b64, 1
  %p1 = getelementptr inbounds i32, ptr %out, i64 %o1
  store i32 %r1, ptr %p1, align 4
  %o2 = add i64 %b64, 2
  %p2 = getelementptr inbounds i32, ptr %out, i64 %o2
  store i32 %r2, ptr %p2, align 4
  %o3 = add i64 %b64, 3
  %p3 = getelementptr inbounds i32, ptr %out, i64 %o3
  store i32 %r3, ptr %p3, align 4
  %o4 = add i64 %b64, 4
  %p4 = getelementptr inbounds i32, ptr %out, i64 %o4
  store i32 %r4, ptr %p4, align 4
  %o5 = add i64 %b64, 5
  %p5 = getelementptr inbounds i32, ptr %out, i64 %o5
  store i32 %r5, ptr %p5, align 4
  %o6 = add i64 %b64, 6
  %p6 = getelementptr inbounds i32, ptr %out, i64 %o6
  store i32 %r6, ptr %p6, align 4
  %o7 = add i64 %b64, 7
  %p7 = getelementptr inbounds i32, ptr %out, i64 %o7
  store i32 %r7, ptr %p7, align 4
  %o8 = add i64 %b64, 8
  %p8 = getelementptr inbounds i32, ptr %out, i64 %o8
  store i32 %r8, ptr %p8, align 4
  ret void
}
