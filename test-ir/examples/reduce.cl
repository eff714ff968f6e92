// Work-group sum reduction in local memory: barriers inside a loop whose trip
// count is uniform, and a divergent `if` on the work-item id.
__kernel void reduce_sum(__global const float *in, __global float *out, __local float *scratch) {
  size_t lid = get_local_id(0);
  size_t gid = get_global_id(0);
  scratch[lid] = in[gid];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (lid < s)
      scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0)
    out[get_group_id(0)] = scratch[0];
}
