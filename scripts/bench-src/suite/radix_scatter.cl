// Radix sort, scatter stage (stable): each work-item counts the digits of its
// 16 keys in a private array, a __local [16][256] table of those counts is
// turned into per-work-item offsets (16 work-items each scan one digit's
// row), and every key goes to goff[digit*groups + group] + its rank.
// Launch: global (n/16), local (256). Args: keys, out (u32 n), goff (u32
// 16*groups: the exclusive scan of radix_count's counts), shift (u32).
__kernel void radix_scatter(__global const uint *keys, __global uint *out,
                            __global const uint *goff, uint shift) {
  __local uint cnt[16][256];
  int lid = get_local_id(0);
  __global const uint *k = keys + get_global_id(0) * 16;
  uint my[16];
  for (int d = 0; d < 16; ++d)
    my[d] = 0;
  for (int t = 0; t < 16; ++t)
    my[(k[t] >> shift) & 15]++;
  for (int d = 0; d < 16; ++d)
    cnt[d][lid] = my[d];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < 16) {
    uint run = 0;
    for (int i = 0; i < 256; ++i) {
      uint c = cnt[lid][i];
      cnt[lid][i] = run;
      run += c;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  int g = get_group_id(0), ng = get_num_groups(0);
  for (int d = 0; d < 16; ++d)
    my[d] = goff[d * ng + g] + cnt[d][lid];
  for (int t = 0; t < 16; ++t) {
    uint key = k[t];
    out[my[(key >> shift) & 15]++] = key;
  }
}
