// Work-efficient (Blelloch) exclusive scan of 2*local_size elements per
// work-group in a __local pointer argument: an up-sweep and a down-sweep,
// one barrier per level; the block total goes to sums.
// Launch: global (n/2), local (256). Args: in, out (u32 n), sums (u32
// n/512), t (local u32 512).
__kernel void scan_blelloch(__global const uint *in, __global uint *out,
                            __global uint *sums, __local uint *t) {
  int lid = get_local_id(0);
  int n = 2 * get_local_size(0);
  int base = get_group_id(0) * n;
  t[2 * lid] = in[base + 2 * lid];
  t[2 * lid + 1] = in[base + 2 * lid + 1];
  int off = 1;
  for (int d = n >> 1; d > 0; d >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < d) {
      int ai = off * (2 * lid + 1) - 1, bi = off * (2 * lid + 2) - 1;
      t[bi] += t[ai];
    }
    off <<= 1;
  }
  if (lid == 0) {
    sums[get_group_id(0)] = t[n - 1];
    t[n - 1] = 0;
  }
  for (int d = 1; d < n; d <<= 1) {
    off >>= 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < d) {
      int ai = off * (2 * lid + 1) - 1, bi = off * (2 * lid + 2) - 1;
      uint x = t[ai];
      t[ai] = t[bi];
      t[bi] += x;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  out[base + 2 * lid] = t[2 * lid];
  out[base + 2 * lid + 1] = t[2 * lid + 1];
}
