// INVALID on purpose: the barrier is under a divergent `if`, so work-items 0..4
// of each group wait at it and the others go straight to the end of the
// kernel. A runner must report that the work-items reached different barriers
// (and name the kernel), not hang or return garbage.
// Launch: 1-D, global = 64, local = 16 (any local size above 5 shows it).
// Args: data (buf i32 global size).
__kernel void invalid_barrier(__global int *data) {
  __local int tile[64];
  int lid = get_local_id(0);
  int gid = get_global_id(0);
  if (lid < 5) {
    tile[lid] = data[gid];
    barrier(CLK_LOCAL_MEM_FENCE);
    data[gid] = tile[(lid + 1) % 5];
  }
}
