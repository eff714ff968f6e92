; Each {u,s}{add,sub,mul}.with.overflow at i3, i8 and i32 on operands made
; from the work-item id; out[g*18 + k] = result | overflow << 31.
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @ovf(ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %ctaid, %ntid
  %g = add i32 %base, %tid
  %x32 = mul i32 %g, 2654435761
  %y32 = xor i32 %x32, 1431655765
  %ya = lshr i32 %x32, 13
  %y32b = mul i32 %ya, 40503
  %slot = mul i32 %g, 18
  %a3 = trunc i32 %x32 to i3
  %b3 = trunc i32 %y32b to i3
  %r.uadd3 = call {i3, i1} @llvm.uadd.with.overflow.i3(i3 %a3, i3 %b3)
  %v.uadd3 = extractvalue {i3, i1} %r.uadd3, 0
  %o.uadd3 = extractvalue {i3, i1} %r.uadd3, 1
  %vz.uadd3 = zext i3 %v.uadd3 to i32
  %oz.uadd3 = zext i1 %o.uadd3 to i32
  %os.uadd3 = shl i32 %oz.uadd3, 31
  %w.uadd3 = or i32 %vz.uadd3, %os.uadd3
  %i.uadd3 = add i32 %slot, 0
  %ix.uadd3 = zext i32 %i.uadd3 to i64
  %p.uadd3 = getelementptr i32, ptr addrspace(1) %out, i64 %ix.uadd3
  store i32 %w.uadd3, ptr addrspace(1) %p.uadd3, align 4
  %r.sadd3 = call {i3, i1} @llvm.sadd.with.overflow.i3(i3 %a3, i3 %b3)
  %v.sadd3 = extractvalue {i3, i1} %r.sadd3, 0
  %o.sadd3 = extractvalue {i3, i1} %r.sadd3, 1
  %vz.sadd3 = zext i3 %v.sadd3 to i32
  %oz.sadd3 = zext i1 %o.sadd3 to i32
  %os.sadd3 = shl i32 %oz.sadd3, 31
  %w.sadd3 = or i32 %vz.sadd3, %os.sadd3
  %i.sadd3 = add i32 %slot, 1
  %ix.sadd3 = zext i32 %i.sadd3 to i64
  %p.sadd3 = getelementptr i32, ptr addrspace(1) %out, i64 %ix.sadd3
  store i32 %w.sadd3, ptr addrspace(1) %p.sadd3, align 4
  %r.usub3 = call {i3, i1} @llvm.usub.with.overflow.i3(i3 %a3, i3 %b3)
  %v.usub3 = extractvalue {i3, i1} %r.usub3, 0
  %o.usub3 = extractvalue {i3, i1} %r.usub3, 1
  %vz.usub3 = zext i3 %v.usub3 to i32
  %oz.usub3 = zext i1 %o.usub3 to i32
  %os.usub3 = shl i32 %oz.usub3, 31
  %w.usub3 = or i32 %vz.usub3, %os.usub3
  %i.usub3 = add i32 %slot, 2
  %ix.usub3 = zext i32 %i.usub3 to i64
  %p.usub3 = getelementptr i32, ptr addrspace(1) %out, i64 %ix.usub3
  store i32 %w.usub3, ptr addrspace(1) %p.usub3, align 4
  %r.ssub3 = call {i3, i1} @llvm.ssub.with.overflow.i3(i3 %a3, i3 %b3)
  %v.ssub3 = extractvalue {i3, i1} %r.ssub3, 0
  %o.ssub3 = extractvalue {i3, i1} %r.ssub3, 1
  %vz.ssub3 = zext i3 %v.ssub3 to i32
  %oz.ssub3 = zext i1 %o.ssub3 to i32
  %os.ssub3 = shl i32 %oz.ssub3, 31
  %w.ssub3 = or i32 %vz.ssub3, %os.ssub3
  %i.ssub3 = add i32 %slot, 3
  %ix.ssub3 = zext i32 %i.ssub3 to i64
  %p.ssub3 = getelementptr i32, ptr addrspace(1) %out, i64 %ix.ssub3
  store i32 %w.ssub3, ptr addrspace(1) %p.ssub3, align 4
  %r.umul3 = call {i3, i1} @llvm.umul.with.overflow.i3(i3 %a3, i3 %b3)
  %v.umul3 = extractvalue {i3, i1} %r.umul3, 0
  %o.umul3 = extractvalue {i3, i1} %r.umul3, 1
  %vz.umul3 = zext i3 %v.umul3 to i32
  %oz.umul3 = zext i1 %o.umul3 to i32
  %os.umul3 = shl i32 %oz.umul3, 31
  %w.umul3 = or i32 %vz.umul3, %os.umul3
  %i.umul3 = add i32 %slot, 4
  %ix.umul3 = zext i32 %i.umul3 to i64
  %p.umul3 = getelementptr i32, ptr addrspace(1) %out, i64 %ix.umul3
  store i32 %w.umul3, ptr addrspace(1) %p.umul3, align 4
  %r.smul3 = call {i3, i1} @llvm.smul.with.overflow.i3(i3 %a3, i3 %b3)
  %v.smul3 = extractvalue {i3, i1} %r.smul3, 0
  %o.smul3 = extractvalue {i3, i1} %r.smul3, 1
  %vz.smul3 = zext i3 %v.smul3 to i32
  %oz.smul3 = zext i1 %o.smul3 to i32
  %os.smul3 = shl i32 %oz.smul3, 31
  %w.smul3 = or i32 %vz.smul3, %os.smul3
  %i.smul3 = add i32 %slot, 5
  %ix.smul3 = zext i32 %i.smul3 to i64
  %p.smul3 = getelementptr i32, ptr addrspace(1) %out, i64 %ix.smul3
  store i32 %w.smul3, ptr addrspace(1) %p.smul3, align 4
  %a8 = trunc i32 %x32 to i8
  %b8 = trunc i32 %y32b to i8
  %r.uadd8 = call {i8, i1} @llvm.uadd.with.overflow.i8(i8 %a8, i8 %b8)
  %v.uadd8 = extractvalue {i8, i1} %r.uadd8, 0
  %o.uadd8 = extractvalue {i8, i1} %r.uadd8, 1
  %vz.uadd8 = zext i8 %v.uadd8 to i32
  %oz.uadd8 = zext i1 %o.uadd8 to i32
  %os.uadd8 = shl i32 %oz.uadd8, 31
  %w.uadd8 = or i32 %vz.uadd8, %os.uadd8
  %i.uadd8 = add i32 %slot, 6
  %ix.uadd8 = zext i32 %i.uadd8 to i64
  %p.uadd8 = getelementptr i32, ptr addrspace(1) %out, i64 %ix.uadd8
  store i32 %w.uadd8, ptr addrspace(1) %p.uadd8, align 4
  %r.sadd8 = call {i8, i1} @llvm.sadd.with.overflow.i8(i8 %a8, i8 %b8)
  %v.sadd8 = extractvalue {i8, i1} %r.sadd8, 0
  %o.sadd8 = extractvalue {i8, i1} %r.sadd8, 1
  %vz.sadd8 = zext i8 %v.sadd8 to i32
  %oz.sadd8 = zext i1 %o.sadd8 to i32
  %os.sadd8 = shl i32 %oz.sadd8, 31
  %w.sadd8 = or i32 %vz.sadd8, %os.sadd8
  %i.sadd8 = add i32 %slot, 7
  %ix.sadd8 = zext i32 %i.sadd8 to i64
  %p.sadd8 = getelementptr i32, ptr addrspace(1) %out, i64 %ix.sadd8
  store i32 %w.sadd8, ptr addrspace(1) %p.sadd8, align 4
  %r.usub8 = call {i8, i1} @llvm.usub.with.overflow.i8(i8 %a8, i8 %b8)
  %v.usub8 = extractvalue {i8, i1} %r.usub8, 0
  %o.usub8 = extractvalue {i8, i1} %r.usub8, 1
  %vz.usub8 = zext i8 %v.usub8 to i32
  %oz.usub8 = zext i1 %o.usub8 to i32
  %os.usub8 = shl i32 %oz.usub8, 31
  %w.usub8 = or i32 %vz.usub8, %os.usub8
  %i.usub8 = add i32 %slot, 8
  %ix.usub8 = zext i32 %i.usub8 to i64
  %p.usub8 = getelementptr i32, ptr addrspace(1) %out, i64 %ix.usub8
  store i32 %w.usub8, ptr addrspace(1) %p.usub8, align 4
  %r.ssub8 = call {i8, i1} @llvm.ssub.with.overflow.i8(i8 %a8, i8 %b8)
  %v.ssub8 = extractvalue {i8, i1} %r.ssub8, 0
  %o.ssub8 = extractvalue {i8, i1} %r.ssub8, 1
  %vz.ssub8 = zext i8 %v.ssub8 to i32
  %oz.ssub8 = zext i1 %o.ssub8 to i32
  %os.ssub8 = shl i32 %oz.ssub8, 31
  %w.ssub8 = or i32 %vz.ssub8, %os.ssub8
  %i.ssub8 = add i32 %slot, 9
  %ix.ssub8 = zext i32 %i.ssub8 to i64
  %p.ssub8 = getelementptr i32, ptr addrspace(1) %out, i64 %ix.ssub8
  store i32 %w.ssub8, ptr addrspace(1) %p.ssub8, align 4
  %r.umul8 = call {i8, i1} @llvm.umul.with.overflow.i8(i8 %a8, i8 %b8)
  %v.umul8 = extractvalue {i8, i1} %r.umul8, 0
  %o.umul8 = extractvalue {i8, i1} %r.umul8, 1
  %vz.umul8 = zext i8 %v.umul8 to i32
  %oz.umul8 = zext i1 %o.umul8 to i32
  %os.umul8 = shl i32 %oz.umul8, 31
  %w.umul8 = or i32 %vz.umul8, %os.umul8
  %i.umul8 = add i32 %slot, 10
  %ix.umul8 = zext i32 %i.umul8 to i64
  %p.umul8 = getelementptr i32, ptr addrspace(1) %out, i64 %ix.umul8
  store i32 %w.umul8, ptr addrspace(1) %p.umul8, align 4
  %r.smul8 = call {i8, i1} @llvm.smul.with.overflow.i8(i8 %a8, i8 %b8)
  %v.smul8 = extractvalue {i8, i1} %r.smul8, 0
  %o.smul8 = extractvalue {i8, i1} %r.smul8, 1
  %vz.smul8 = zext i8 %v.smul8 to i32
  %oz.smul8 = zext i1 %o.smul8 to i32
  %os.smul8 = shl i32 %oz.smul8, 31
  %w.smul8 = or i32 %vz.smul8, %os.smul8
  %i.smul8 = add i32 %slot, 11
  %ix.smul8 = zext i32 %i.smul8 to i64
  %p.smul8 = getelementptr i32, ptr addrspace(1) %out, i64 %ix.smul8
  store i32 %w.smul8, ptr addrspace(1) %p.smul8, align 4
  %a32 = add i32 %x32, 0
  %b32 = add i32 %y32b, 0
  %r.uadd32 = call {i32, i1} @llvm.uadd.with.overflow.i32(i32 %a32, i32 %b32)
  %v.uadd32 = extractvalue {i32, i1} %r.uadd32, 0
  %o.uadd32 = extractvalue {i32, i1} %r.uadd32, 1
  %vz.uadd32 = and i32 %v.uadd32, 2147483647
  %oz.uadd32 = zext i1 %o.uadd32 to i32
  %os.uadd32 = shl i32 %oz.uadd32, 31
  %w.uadd32 = or i32 %vz.uadd32, %os.uadd32
  %i.uadd32 = add i32 %slot, 12
  %ix.uadd32 = zext i32 %i.uadd32 to i64
  %p.uadd32 = getelementptr i32, ptr addrspace(1) %out, i64 %ix.uadd32
  store i32 %w.uadd32, ptr addrspace(1) %p.uadd32, align 4
  %r.sadd32 = call {i32, i1} @llvm.sadd.with.overflow.i32(i32 %a32, i32 %b32)
  %v.sadd32 = extractvalue {i32, i1} %r.sadd32, 0
  %o.sadd32 = extractvalue {i32, i1} %r.sadd32, 1
  %vz.sadd32 = and i32 %v.sadd32, 2147483647
  %oz.sadd32 = zext i1 %o.sadd32 to i32
  %os.sadd32 = shl i32 %oz.sadd32, 31
  %w.sadd32 = or i32 %vz.sadd32, %os.sadd32
  %i.sadd32 = add i32 %slot, 13
  %ix.sadd32 = zext i32 %i.sadd32 to i64
  %p.sadd32 = getelementptr i32, ptr addrspace(1) %out, i64 %ix.sadd32
  store i32 %w.sadd32, ptr addrspace(1) %p.sadd32, align 4
  %r.usub32 = call {i32, i1} @llvm.usub.with.overflow.i32(i32 %a32, i32 %b32)
  %v.usub32 = extractvalue {i32, i1} %r.usub32, 0
  %o.usub32 = extractvalue {i32, i1} %r.usub32, 1
  %vz.usub32 = and i32 %v.usub32, 2147483647
  %oz.usub32 = zext i1 %o.usub32 to i32
  %os.usub32 = shl i32 %oz.usub32, 31
  %w.usub32 = or i32 %vz.usub32, %os.usub32
  %i.usub32 = add i32 %slot, 14
  %ix.usub32 = zext i32 %i.usub32 to i64
  %p.usub32 = getelementptr i32, ptr addrspace(1) %out, i64 %ix.usub32
  store i32 %w.usub32, ptr addrspace(1) %p.usub32, align 4
  %r.ssub32 = call {i32, i1} @llvm.ssub.with.overflow.i32(i32 %a32, i32 %b32)
  %v.ssub32 = extractvalue {i32, i1} %r.ssub32, 0
  %o.ssub32 = extractvalue {i32, i1} %r.ssub32, 1
  %vz.ssub32 = and i32 %v.ssub32, 2147483647
  %oz.ssub32 = zext i1 %o.ssub32 to i32
  %os.ssub32 = shl i32 %oz.ssub32, 31
  %w.ssub32 = or i32 %vz.ssub32, %os.ssub32
  %i.ssub32 = add i32 %slot, 15
  %ix.ssub32 = zext i32 %i.ssub32 to i64
  %p.ssub32 = getelementptr i32, ptr addrspace(1) %out, i64 %ix.ssub32
  store i32 %w.ssub32, ptr addrspace(1) %p.ssub32, align 4
  %r.umul32 = call {i32, i1} @llvm.umul.with.overflow.i32(i32 %a32, i32 %b32)
  %v.umul32 = extractvalue {i32, i1} %r.umul32, 0
  %o.umul32 = extractvalue {i32, i1} %r.umul32, 1
  %vz.umul32 = and i32 %v.umul32, 2147483647
  %oz.umul32 = zext i1 %o.umul32 to i32
  %os.umul32 = shl i32 %oz.umul32, 31
  %w.umul32 = or i32 %vz.umul32, %os.umul32
  %i.umul32 = add i32 %slot, 16
  %ix.umul32 = zext i32 %i.umul32 to i64
  %p.umul32 = getelementptr i32, ptr addrspace(1) %out, i64 %ix.umul32
  store i32 %w.umul32, ptr addrspace(1) %p.umul32, align 4
  %r.smul32 = call {i32, i1} @llvm.smul.with.overflow.i32(i32 %a32, i32 %b32)
  %v.smul32 = extractvalue {i32, i1} %r.smul32, 0
  %o.smul32 = extractvalue {i32, i1} %r.smul32, 1
  %vz.smul32 = and i32 %v.smul32, 2147483647
  %oz.smul32 = zext i1 %o.smul32 to i32
  %os.smul32 = shl i32 %oz.smul32, 31
  %w.smul32 = or i32 %vz.smul32, %os.smul32
  %i.smul32 = add i32 %slot, 17
  %ix.smul32 = zext i32 %i.smul32 to i64
  %p.smul32 = getelementptr i32, ptr addrspace(1) %out, i64 %ix.smul32
  store i32 %w.smul32, ptr addrspace(1) %p.smul32, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare {i3, i1} @llvm.sadd.with.overflow.i3(i3, i3)
declare {i3, i1} @llvm.smul.with.overflow.i3(i3, i3)
declare {i3, i1} @llvm.ssub.with.overflow.i3(i3, i3)
declare {i3, i1} @llvm.uadd.with.overflow.i3(i3, i3)
declare {i3, i1} @llvm.umul.with.overflow.i3(i3, i3)
declare {i3, i1} @llvm.usub.with.overflow.i3(i3, i3)
declare {i32, i1} @llvm.sadd.with.overflow.i32(i32, i32)
declare {i32, i1} @llvm.smul.with.overflow.i32(i32, i32)
declare {i32, i1} @llvm.ssub.with.overflow.i32(i32, i32)
declare {i32, i1} @llvm.uadd.with.overflow.i32(i32, i32)
declare {i32, i1} @llvm.umul.with.overflow.i32(i32, i32)
declare {i32, i1} @llvm.usub.with.overflow.i32(i32, i32)
declare {i8, i1} @llvm.sadd.with.overflow.i8(i8, i8)
declare {i8, i1} @llvm.smul.with.overflow.i8(i8, i8)
declare {i8, i1} @llvm.ssub.with.overflow.i8(i8, i8)
declare {i8, i1} @llvm.uadd.with.overflow.i8(i8, i8)
declare {i8, i1} @llvm.umul.with.overflow.i8(i8, i8)
declare {i8, i1} @llvm.usub.with.overflow.i8(i8, i8)
