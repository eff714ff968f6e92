// A barrier in a loop whose trip count differs per work-item (8, 9 or 10
// iterations, by lid % 3), where the barrier sits under `if (i < 8)`: every
// work-item runs the first 8 iterations, so every dynamic instance of the
// barriers is reached by all work-items of the group; the extra iterations
// only do private work. Values wrap modulo 2^32 (unsigned).
// Launch: 1-D, global = n (a multiple of local), local = any (32, 64, 96).
// Args: in (buf u32 n), out (buf u32 n), extra (buf u32 n), tile (local u32 local_size).
__kernel void varying_trip_barrier(__global const uint *in, __global uint *out,
                                   __global uint *extra, __local uint *tile) {
  uint lid = get_local_id(0);
  uint lsize = get_local_size(0);
  uint gid = get_global_id(0);
  uint v = in[gid];
  uint e = 0;
  for (uint i = 0; i < 8 + lid % 3; ++i) {
    if (i < 8) {
      tile[lid] = v;
      barrier(CLK_LOCAL_MEM_FENCE);
      v = v * 3u + tile[(lid + 1) % lsize];
      barrier(CLK_LOCAL_MEM_FENCE);
    } else {
      e += v ^ i;
    }
  }
  out[gid] = v;
  extra[gid] = e;
}
