// Two __local arrays of one work-group, side by side in local memory:
// work-item l writes a[l + 1], so the last work-item writes a[64], one past
// the end of a, which is b[0] (no memory outside the work-group's is hit).
__kernel void oob_local(__global int *out) {
  __local int a[64];
  __local int b[64];
  size_t l = get_local_id(0);
  b[l] = 0;
  a[l + 1] = (int)l;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = a[l] + b[l];
}
