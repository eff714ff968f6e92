; out[gid + 4] = gid: the last 4 work-items write past the end of the buffer.
target triple = "spir64"
define spir_kernel void @past_the_end(ptr addrspace(1) %out) {
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %i = add i64 %gid, 4
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %i
  %v = trunc i64 %gid to i32
  store i32 %v, ptr addrspace(1) %p
  ret void
}
declare i64 @_Z13get_global_idj(i32)
