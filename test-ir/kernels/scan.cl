// Inclusive prefix sum within each work-group (Hillis-Steele, double-buffered
// in a __local pointer argument): a barrier in a loop with a uniform trip
// count (log2 of the work-group size), a divergent `if (off <= lid)`, ping-pong
// buffer indices live across the barrier; the group total goes to block_sums
// (the input of the next level of a multi-level scan).
// Launch: 1-D, global = n (a multiple of local), local = any (64, 128, 256).
// Args: in (buf u32 n), out (buf u32 n), block_sums (buf u32 num_groups),
// tmp (local u32 2*local_size).
__kernel void scan_inclusive(__global const uint *in, __global uint *out,
                             __global uint *block_sums, __local uint *tmp) {
  uint lid = get_local_id(0);
  uint n = get_local_size(0);
  uint gid = get_global_id(0);
  int pout = 0, pin = 1;
  tmp[lid] = in[gid];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint off = 1; off < n; off <<= 1) {
    pout = 1 - pout;
    pin = 1 - pout;
    if (lid >= off)
      tmp[pout * n + lid] = tmp[pin * n + lid] + tmp[pin * n + lid - off];
    else
      tmp[pout * n + lid] = tmp[pin * n + lid];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[gid] = tmp[pout * n + lid];
  if (lid == n - 1)
    block_sums[get_group_id(0)] = tmp[pout * n + lid];
}
