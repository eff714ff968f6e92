// Twenty-four steps, each a uniform if (the flags are the same for every
// work-item) whose then side exchanges values through local memory between
// two barriers and whose else side does not. The region after a step's
// second barrier reaches every later step's else side up to the next
// barrier taken, so the region copies add up to about 6x the kernel's
// blocks, past simt-wiloops' budget of 4x: the kernel gets the linear form.
// Race-free: tile[lid] is written only by its own work-item, and read by
// others only between a step's two barriers, when nobody writes.
#define STEP(i)                                                          \
  if (flags[i]) {                                                        \
    barrier(CLK_LOCAL_MEM_FENCE);                                        \
    int x = tile[(lid + i + 1) % n];                                     \
    barrier(CLK_LOCAL_MEM_FENCE);                                        \
    acc = acc + x * (i + 1);                                             \
  } else {                                                               \
    acc = acc * 3 + i;                                                   \
  }                                                                      \
  tile[lid] = acc;

kernel void many_barriers(global int *out, global const int *flags, local int *tile) {
  int lid = get_local_id(0);
  int n = get_local_size(0);
  int acc = get_global_id(0);
  tile[lid] = acc;
  STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7)
  STEP(8) STEP(9) STEP(10) STEP(11) STEP(12) STEP(13) STEP(14) STEP(15)
  STEP(16) STEP(17) STEP(18) STEP(19) STEP(20) STEP(21) STEP(22) STEP(23)
  out[get_global_id(0)] = acc;
}
