// Radix sort, scan stage: exclusive prefix sum of the digit counts, 16
// consecutive elements per work-item summed serially, a Hillis-Steele scan
// of the 256 chunk totals in __local memory (two barriers per level), then
// each work-item writes its chunk's prefixes; the block total goes to sums.
// Launch: global (n/16), local (256). Args: in, out (u32 n), sums (u32
// n/4096).
__kernel void radix_scan(__global const uint *in, __global uint *out,
                         __global uint *sums) {
  __local uint s[256];
  int lid = get_local_id(0);
  __global const uint *p = in + get_global_id(0) * 16;
  uint tot = 0;
  for (int t = 0; t < 16; ++t)
    tot += p[t];
  s[lid] = tot;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int off = 1; off < 256; off <<= 1) {
    uint v = lid >= off ? s[lid - off] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    s[lid] += v;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  uint run = s[lid] - tot;
  __global uint *o = out + get_global_id(0) * 16;
  for (int t = 0; t < 16; ++t) {
    o[t] = run;
    run += p[t];
  }
  if (lid == 255)
    sums[get_group_id(0)] = s[255];
}
