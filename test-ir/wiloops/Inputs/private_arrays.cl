// Private arrays live across barriers, for tests/wiloops_private_arrays.rs.
// simt-wiloops' innermost.rs interleaves the per-work-item copies of p
// (int, 4, zeroed by a memset) and q (long, 2): indexed alike in all
// work-items, accessed outside any barrier-free loop. acc (int, 8), wide
// (long, 4) and flags (char, 16) are indexed alike too but walked by such
// loops, and hist (int, 4) is indexed by lid % 4: those stay whole. Each
// round a work-item reads its neighbours' tile values after a barrier.
__kernel void private_arrays(__global const int *in, __global int *out, __local int *tile) {
  int lid = get_local_id(0), n = get_local_size(0), gid = get_global_id(0);
  int acc[8] = {0};
  long wide[4];
  char flags[16] = {0};
  int hist[4];
  int p[4] = {0};
  long q[2];
  q[0] = gid;
  q[1] = -(long)gid * 3;
  for (int j = 0; j < 4; ++j) {
    hist[j] = j;
    wide[j] = (long)gid << 20;
  }
  for (int round = 0; round < 3; ++round) {
    tile[lid] = in[gid] + round;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = 0; j < 8; ++j)
      acc[j] += tile[(lid + j) % n] * (j + 1);
    for (int j = 0; j < 4; ++j)
      wide[j] += tile[(lid + n - j) % n];
    flags[round * 5] = (char)(tile[(lid + 1) % n] & 127);
    hist[lid % 4] += tile[(lid + 1) % n];
    p[round & 3] += tile[(lid + 2) % n];
    q[round & 1] += tile[(lid + 3) % n];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int j = 0; j < 8; ++j)
    out[gid * 16 + j] = acc[j];
  for (int j = 0; j < 4; ++j)
    out[gid * 16 + 8 + j] = (int)(wide[j] - ((long)gid << 20)) + hist[j];
  int f = 0;
  for (int j = 0; j < 16; ++j)
    f = f * 3 + flags[j];
  out[gid * 16 + 12] = f;
  out[gid * 16 + 13] = p[0] + 3 * p[1] + 5 * p[2] + 7 * p[3];
  out[gid * 16 + 14] = (int)(q[0] - 2 * q[1]);
}
