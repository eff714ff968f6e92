// An endless `for (;;)` with barriers, left by a uniform `break` after the
// second barrier: the loop's only exit is inside a region that starts at a
// barrier.
kernel void loop_exit(global int *out, local int *tmp, int rounds) {
  size_t lid = get_local_id(0);
  size_t n = get_local_size(0);
  int acc = (int)lid;
  int r = 0;
  for (;;) {
    tmp[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    acc += tmp[(lid + 1) % n];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (++r >= rounds)
      break;
  }
  out[get_global_id(0)] = acc;
}
