// Two `local:` arguments, side by side in local memory: work-item l writes
// a[l + 1], so the last work-item writes one past the end of a, into b.
__kernel void oob_local_arg(__global int *out, __local int *a, __local int *b) {
  size_t l = get_local_id(0);
  b[l] = 0;
  a[l + 1] = (int)l;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = a[l] + b[l];
}
