; What LLVM's optimiser introduces at -O2/-O3, one work-item per 4 inputs:
; every vector reduction, shuffles, insert/extract, vector compare and
; select, funnel shifts, bit counts, abs, min/max, saturating arithmetic,
; three-way compares, assume and lifetime markers. Floats are small whole
; numbers, so every reduction order gives the same exact result.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spir64"

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @intrinsics(ptr addrspace(1) %in, ptr addrspace(1) %out, ptr addrspace(1) %fout) {
entry:
  %priv = alloca [4 x i32], align 4
  call void @llvm.lifetime.start.p0(i64 16, ptr %priv)
  %g = call i64 @_Z13get_global_idj(i32 0)
  %b4 = mul i64 %g, 4
  %p = getelementptr i32, ptr addrspace(1) %in, i64 %b4
  %v = load <4 x i32>, ptr addrspace(1) %p, align 4
  %nonneg = icmp sge i64 %g, 0
  call void @llvm.assume(i1 %nonneg)
  %add = call i32 @llvm.vector.reduce.add.v4i32(<4 x i32> %v)
  %mul = call i32 @llvm.vector.reduce.mul.v4i32(<4 x i32> %v)
  %and = call i32 @llvm.vector.reduce.and.v4i32(<4 x i32> %v)
  %or = call i32 @llvm.vector.reduce.or.v4i32(<4 x i32> %v)
  %xor = call i32 @llvm.vector.reduce.xor.v4i32(<4 x i32> %v)
  %smin = call i32 @llvm.vector.reduce.smin.v4i32(<4 x i32> %v)
  %smax = call i32 @llvm.vector.reduce.smax.v4i32(<4 x i32> %v)
  %umin = call i32 @llvm.vector.reduce.umin.v4i32(<4 x i32> %v)
  %umax = call i32 @llvm.vector.reduce.umax.v4i32(<4 x i32> %v)
  %rev = shufflevector <4 x i32> %v, <4 x i32> poison, <4 x i32> <i32 3, i32 2, i32 1, i32 0>
  %ins = insertelement <4 x i32> %rev, i32 %add, i32 1
  %ext = extractelement <4 x i32> %ins, i32 0
  %gt = icmp sgt <4 x i32> %v, %ins
  %sel = select <4 x i1> %gt, <4 x i32> %v, <4 x i32> %ins
  %selx = call i32 @llvm.vector.reduce.add.v4i32(<4 x i32> %sel)
  %narrow = trunc <4 x i32> %v to <4 x i8>
  %n8 = call i8 @llvm.vector.reduce.umax.v4i8(<4 x i8> %narrow)
  %n32 = zext i8 %n8 to i32
  %e0 = extractelement <4 x i32> %v, i32 0
  %e1 = extractelement <4 x i32> %v, i32 1
  %e2 = extractelement <4 x i32> %v, i32 2
  %e3 = extractelement <4 x i32> %v, i32 3
  %fshl = call i32 @llvm.fshl.i32(i32 %e0, i32 %e1, i32 %e2)
  %fshr = call i32 @llvm.fshr.i32(i32 %e0, i32 %e1, i32 %e3)
  %ctpop = call i32 @llvm.ctpop.i32(i32 %e0)
  %ctlz = call i32 @llvm.ctlz.i32(i32 %e1, i1 false)
  %cttz = call i32 @llvm.cttz.i32(i32 %e2, i1 false)
  %abs = call i32 @llvm.abs.i32(i32 %e3, i1 false)
  %smin2 = call i32 @llvm.smin.i32(i32 %e0, i32 %e1)
  %umax2 = call i32 @llvm.umax.i32(i32 %e2, i32 %e3)
  %usub = call i32 @llvm.usub.sat.i32(i32 %e0, i32 %e1)
  %sadd = call i32 @llvm.sadd.sat.i32(i32 %e2, i32 %e3)
  %bswap = call i32 @llvm.bswap.i32(i32 %e0)
  %brev = call i32 @llvm.bitreverse.i32(i32 %e1)
  %scmp8 = call i8 @llvm.scmp.i8.i32(i32 %e0, i32 %e1)
  %scmp = sext i8 %scmp8 to i32
  %ucmp = call i32 @llvm.ucmp.i32.i32(i32 %e2, i32 %e3)
  store <4 x i32> %sel, ptr %priv, align 4
  %pe = getelementptr i32, ptr %priv, i64 2
  %priv2 = load i32, ptr %pe, align 4
  call void @llvm.lifetime.end.p0(i64 16, ptr %priv)
  ; floats: whole numbers below 64
  %small = and <4 x i32> %v, <i32 63, i32 63, i32 63, i32 63>
  %one = or <4 x i32> %small, <i32 1, i32 1, i32 1, i32 1>
  %f = sitofp <4 x i32> %small to <4 x float>
  %f1 = sitofp <4 x i32> %one to <4 x float>
  %fadd = call float @llvm.vector.reduce.fadd.v4f32(float 0.5, <4 x float> %f)
  %fadd.fast = call reassoc float @llvm.vector.reduce.fadd.v4f32(float -0.0, <4 x float> %f)
  %fmul = call float @llvm.vector.reduce.fmul.v4f32(float 1.0, <4 x float> %f1)
  %fmul.fast = call reassoc float @llvm.vector.reduce.fmul.v4f32(float 2.0, <4 x float> %f1)
  %fmin = call float @llvm.vector.reduce.fmin.v4f32(<4 x float> %f)
  %fmax = call float @llvm.vector.reduce.fmax.v4f32(<4 x float> %f)
  %fminimum = call float @llvm.vector.reduce.fminimum.v4f32(<4 x float> %f)
  %fmaximum = call float @llvm.vector.reduce.fmaximum.v4f32(<4 x float> %f)
  %d = sitofp <4 x i32> %small to <4 x double>
  %dadd = call double @llvm.vector.reduce.fadd.v4f64(double 0.25, <4 x double> %d)
  %dadd32 = fptrunc double %dadd to float
  %ob = mul i64 %g, 32
  %o = getelementptr i32, ptr addrspace(1) %out, i64 %ob
  %ints = insertelement <32 x i32> poison, i32 %add, i32 0
  %i1 = insertelement <32 x i32> %ints, i32 %mul, i32 1
  %i2 = insertelement <32 x i32> %i1, i32 %and, i32 2
  %i3 = insertelement <32 x i32> %i2, i32 %or, i32 3
  %i4 = insertelement <32 x i32> %i3, i32 %xor, i32 4
  %i5 = insertelement <32 x i32> %i4, i32 %smin, i32 5
  %i6 = insertelement <32 x i32> %i5, i32 %smax, i32 6
  %i7 = insertelement <32 x i32> %i6, i32 %umin, i32 7
  %i8 = insertelement <32 x i32> %i7, i32 %umax, i32 8
  %i9 = insertelement <32 x i32> %i8, i32 %ext, i32 9
  %i10 = insertelement <32 x i32> %i9, i32 %selx, i32 10
  %i11 = insertelement <32 x i32> %i10, i32 %n32, i32 11
  %i12 = insertelement <32 x i32> %i11, i32 %fshl, i32 12
  %i13 = insertelement <32 x i32> %i12, i32 %fshr, i32 13
  %i14 = insertelement <32 x i32> %i13, i32 %ctpop, i32 14
  %i15 = insertelement <32 x i32> %i14, i32 %ctlz, i32 15
  %i16 = insertelement <32 x i32> %i15, i32 %cttz, i32 16
  %i17 = insertelement <32 x i32> %i16, i32 %abs, i32 17
  %i18 = insertelement <32 x i32> %i17, i32 %smin2, i32 18
  %i19 = insertelement <32 x i32> %i18, i32 %umax2, i32 19
  %i20 = insertelement <32 x i32> %i19, i32 %usub, i32 20
  %i21 = insertelement <32 x i32> %i20, i32 %sadd, i32 21
  %i22 = insertelement <32 x i32> %i21, i32 %bswap, i32 22
  %i23 = insertelement <32 x i32> %i22, i32 %brev, i32 23
  %i24 = insertelement <32 x i32> %i23, i32 %scmp, i32 24
  %i25 = insertelement <32 x i32> %i24, i32 %ucmp, i32 25
  %i26 = insertelement <32 x i32> %i25, i32 %priv2, i32 26
  %i27 = insertelement <32 x i32> %i26, i32 0, i32 27
  %i28 = insertelement <32 x i32> %i27, i32 0, i32 28
  %i29 = insertelement <32 x i32> %i28, i32 0, i32 29
  %i30 = insertelement <32 x i32> %i29, i32 0, i32 30
  %i31 = insertelement <32 x i32> %i30, i32 0, i32 31
  store <32 x i32> %i31, ptr addrspace(1) %o, align 4
  %fb = mul i64 %g, 9
  %fo = getelementptr float, ptr addrspace(1) %fout, i64 %fb
  store float %fadd, ptr addrspace(1) %fo, align 4
  %fo1 = getelementptr float, ptr addrspace(1) %fo, i64 1
  store float %fadd.fast, ptr addrspace(1) %fo1, align 4
  %fo2 = getelementptr float, ptr addrspace(1) %fo, i64 2
  store float %fmul, ptr addrspace(1) %fo2, align 4
  %fo3 = getelementptr float, ptr addrspace(1) %fo, i64 3
  store float %fmul.fast, ptr addrspace(1) %fo3, align 4
  %fo4 = getelementptr float, ptr addrspace(1) %fo, i64 4
  store float %fmin, ptr addrspace(1) %fo4, align 4
  %fo5 = getelementptr float, ptr addrspace(1) %fo, i64 5
  store float %fmax, ptr addrspace(1) %fo5, align 4
  %fo6 = getelementptr float, ptr addrspace(1) %fo, i64 6
  store float %fminimum, ptr addrspace(1) %fo6, align 4
  %fo7 = getelementptr float, ptr addrspace(1) %fo, i64 7
  store float %fmaximum, ptr addrspace(1) %fo7, align 4
  %fo8 = getelementptr float, ptr addrspace(1) %fo, i64 8
  store float %dadd32, ptr addrspace(1) %fo8, align 4
  ret void
}
