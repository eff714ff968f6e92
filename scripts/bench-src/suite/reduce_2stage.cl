// First stage of a two-stage sum: each work-item sums a contiguous chunk of
// `per` elements, then an unsigned tree over the work-group; the second
// stage (one small group over the partial sums) is not timed.
// Launch: global (n/per), local (128). Args: in (f32 n), partial (f32
// n/per/128), scratch (local f32 128), per (u32).
__kernel void reduce_2stage(__global const float *in, __global float *partial,
                            __local float *scratch, uint per) {
  uint lid = get_local_id(0);
  __global const float *p = in + get_global_id(0) * per;
  float s = 0.0f;
  for (uint k = 0; k < per; ++k)
    s += p[k];
  scratch[lid] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint st = get_local_size(0) >> 1; st > 0; st >>= 1) {
    if (lid < st)
      scratch[lid] += scratch[lid + st];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0)
    partial[get_group_id(0)] = scratch[0];
}
