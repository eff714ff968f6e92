// Tree reduction, one element per work-item, `size_t` counters bounded by
// get_local_size: one partial sum per work-group.
// Launch: global (n), local (256). Args: in (f32 n), partial (f32 n/256),
// scratch (local f32 256).
__kernel void reduce_tree_sz(__global const float *in, __global float *partial,
                             __local float *scratch) {
  size_t lid = get_local_id(0);
  scratch[lid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (lid < s)
      scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0)
    partial[get_group_id(0)] = scratch[0];
}
