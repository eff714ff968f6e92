// Private values live across several barriers: a private array (indexed by a
// data-dependent value, so it stays an array in memory, not registers), a
// float and integers computed before the first barrier and used after the
// last. Four barriers, each separating a write of the __local tile from reads
// of other work-items' slots.
// Launch: 1-D, global = n (a multiple of local), local = any (32, 64, 128).
// Args: in (buf i32 8*n, values in 0..2^20: work-item i owns in[8i .. 8i+7]),
// out (buf i32 8*n), tile (local i32 local_size).
__kernel void live_across_barriers(__global const int *in, __global int *out,
                                   __local int *tile) {
  int lid = get_local_id(0);
  int lsize = get_local_size(0);
  int gid = get_global_id(0);
  int priv[8];
  for (int k = 0; k < 8; ++k)
    priv[k] = in[gid * 8 + k];
  int sel = priv[0] & 7;                // data-dependent index into priv
  float scale = 1.0f + (float)(lid & 3); // exact small integers as floats
  int right = (lid + 1) % lsize;
  float mid = 0.5f * (float)priv[1];   // exact: in values are below 2^20

  tile[lid] = priv[sel];
  barrier(CLK_LOCAL_MEM_FENCE);
  int a = tile[right];
  barrier(CLK_LOCAL_MEM_FENCE);
  priv[sel] += a;
  tile[lid] = priv[(sel + 1) & 7];
  barrier(CLK_LOCAL_MEM_FENCE);
  int b = tile[(lid + 2) % lsize];
  barrier(CLK_LOCAL_MEM_FENCE);
  priv[(sel + 2) & 7] ^= b;
  for (int k = 0; k < 8; ++k)
    out[gid * 8 + k] = priv[k] * (int)scale + (k == sel ? right : 0) + (int)(mid * scale);
}
