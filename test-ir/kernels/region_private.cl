// A private window used only between the two barriers of each step: filled
// from the __local tile at constant indices, then read at data-dependent
// indices (so it stays an array in memory). No element is read after a
// barrier before it is refilled, so simt-wiloops keeps one copy of it per
// work-group instead of one per work-item (seed 001's clean-up step).
// Launch: 1-D, global = n (a multiple of local), local = any.
// Args: in (buf i32 n, values in 0..2^20), out (buf i32 n),
// tile (local i32 local_size).
__kernel void region_private(__global const int *in, __global int *out,
                             __local int *tile) {
  int lid = get_local_id(0);
  int lsize = get_local_size(0);
  int acc = in[get_global_id(0)];
  for (int step = 0; step < 4; ++step) {
    tile[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    int win[8];
    win[0] = tile[lid];
    win[1] = tile[(lid + 1) % lsize];
    win[2] = tile[(lid + 2) % lsize];
    win[3] = tile[(lid + 3) % lsize];
    win[4] = tile[(lid + 4) % lsize];
    win[5] = tile[(lid + 5) % lsize];
    win[6] = tile[(lid + 6) % lsize];
    win[7] = tile[(lid + 7) % lsize];
    int m = 0;
    for (int k = 0; k < 8; ++k)
      m += win[(acc + 3 * k) & 7] * (k + 1); // below 36 * 2^20
    barrier(CLK_LOCAL_MEM_FENCE);
    acc = m & 0xfffff;
  }
  out[get_global_id(0)] = acc;
}
