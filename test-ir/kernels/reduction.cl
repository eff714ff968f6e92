// Sum reduction, one partial sum per work-group: a grid-stride loop
// accumulates privately, then a tree reduction in a __local pointer argument
// with a barrier inside a loop whose trip count (log2 of the work-group size)
// is uniform, and a divergent `if (lid < s)` inside that loop.
// Launch: 1-D, global = groups * local (fewer work-items than n), local = a
// power of two (64, 128, 256). Args: in (buf f32 n), partial (buf f32
// num_groups), scratch (local f32 local_size), n (u32).
// partial[g] = sum of in[i] for i = g*L + lid + k*global_size (lid < L, k >= 0).
__kernel void reduce_sum(__global const float *in, __global float *partial,
                         __local float *scratch, uint n) {
  uint lid = get_local_id(0);
  uint lsize = get_local_size(0);
  uint stride = get_global_size(0);
  float sum = 0.0f;
  for (uint i = get_global_id(0); i < n; i += stride)
    sum += in[i];
  scratch[lid] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = lsize / 2; s > 0; s >>= 1) {
    if (lid < s)
      scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0)
    partial[get_group_id(0)] = scratch[0];
}
