// Barriers inside work-group-uniform `if`s: one on a scalar kernel argument
// (reverse the group's slice), one on get_group_id (odd groups add their
// right-hand neighbour, cyclically within the group). Every work-item of a
// group takes the same side of each `if`, so the barriers are legal.
// Launch: 1-D, global = n (a multiple of local), local = any (32, 64, 256).
// Args: in (buf i32 n), out (buf i32 n), tile (local i32 local_size), reverse (i32).
// out[g*L + l] = v(l) + (g odd ? v((l + 1) % L) : 0), where
// v(l) = in[g*L + (reverse ? L - 1 - l : l)].
__kernel void uniform_if_barrier(__global const int *in, __global int *out,
                                 __local int *tile, int reverse) {
  int lid = get_local_id(0);
  int lsize = get_local_size(0);
  int gid = get_global_id(0);
  int v = in[gid];
  if (reverse) {
    tile[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    v = tile[lsize - 1 - lid];
  }
  if (get_group_id(0) & 1) {
    barrier(CLK_LOCAL_MEM_FENCE); // everyone has read tile before it is reused
    tile[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    v += tile[(lid + 1) % lsize];
  }
  out[gid] = v;
}
