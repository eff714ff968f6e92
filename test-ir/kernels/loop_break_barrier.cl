// A barrier in a loop left by `break` on a work-group-uniform condition: each
// step every work-item adds its left-hand neighbour's value (cyclically within
// the group, through local memory); the group stops once tile[0], read by all
// after the same barrier, exceeds `limit`, or after max_iter steps. Groups
// stop after different numbers of steps; within a group all stop together.
// Launch: 1-D, global = n (a multiple of local), local = any (16, 64, 128).
// Args: in (buf i32 n, values in 1..1000), out (buf i32 n), steps (buf i32
// num_groups), tile (local i32 local_size), limit (i32), max_iter (i32).
__kernel void loop_break_barrier(__global const int *in, __global int *out,
                                 __global int *steps, __local int *tile,
                                 int limit, int max_iter) {
  int lid = get_local_id(0);
  int lsize = get_local_size(0);
  int v = in[get_global_id(0)];
  int it;
  for (it = 0; it < max_iter; ++it) {
    tile[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    int left = tile[(lid + lsize - 1) % lsize];
    int first = tile[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (first > limit)
      break;
    v += left;
  }
  out[get_global_id(0)] = v;
  if (lid == 0)
    steps[get_group_id(0)] = it;
}
