// Race-free: a local histogram built with atomics between barriers, then
// added to the global one with atomics by every work-group.
__kernel void atomics_ok(__global const uint *in, __global uint *bins) {
  __local uint local_bins[16];
  size_t l = get_local_id(0);
  if (l < 16)
    local_bins[l] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_inc(&local_bins[in[get_global_id(0)] % 16]);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l < 16)
    atomic_add(&bins[l], local_bins[l]);
}
