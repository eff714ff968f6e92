; A kernel that reads an image: out[i] = read_imagef(img, s, (i, 0)).x.
target triple = "spir64"
define spir_kernel void @sample_row(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0) %img, target("spirv.Sampler") %s, ptr addrspace(1) %out) {
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %x = trunc i64 %gid to i32
  %at0 = insertelement <2 x i32> zeroinitializer, i32 %x, i32 0
  %px = call spir_func <4 x float> @_Z11read_imagef14ocl_image2d_ro11ocl_samplerDv2_i(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0) %img, target("spirv.Sampler") %s, <2 x i32> %at0)
  %v = extractelement <4 x float> %px, i32 0
  %p = getelementptr float, ptr addrspace(1) %out, i64 %gid
  store float %v, ptr addrspace(1) %p
  ret void
}
declare i64 @_Z13get_global_idj(i32)
declare spir_func <4 x float> @_Z11read_imagef14ocl_image2d_ro11ocl_samplerDv2_i(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0), target("spirv.Sampler"), <2 x i32>)
