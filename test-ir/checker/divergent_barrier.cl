// A divergent barrier: only the first half of the work-group reaches it.
__kernel void divergent_barrier(__global int *out) {
  __local int tile[64];
  size_t l = get_local_id(0);
  tile[l] = (int)l;
  if (l < 32)
    barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = tile[63 - l];
}
