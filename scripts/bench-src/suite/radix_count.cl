// Radix sort, counting stage (4-bit digit at `shift`): a work-group of 256
// takes 4096 keys, 16 consecutive per work-item, counts digits with
// atomic_inc on a __local histogram, and writes counts[digit*groups + group]
// (digit-major, ready for the scan).
// Launch: global (n/16), local (256). Args: keys (u32 n), counts (u32
// 16*groups), shift (u32).
__kernel void radix_count(__global const uint *keys, __global uint *counts,
                          uint shift) {
  __local uint lh[16];
  int lid = get_local_id(0);
  if (lid < 16)
    lh[lid] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  __global const uint *k = keys + get_global_id(0) * 16;
  for (int t = 0; t < 16; ++t)
    atomic_inc(&lh[(k[t] >> shift) & 15]);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < 16)
    counts[lid * get_num_groups(0) + get_group_id(0)] = lh[lid];
}
