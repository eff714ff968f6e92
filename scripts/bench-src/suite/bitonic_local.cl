// Bitonic sort of 512-key chunks in __local memory, 256 work-items per chunk
// (one pair each per step), a barrier after every step: each chunk comes out
// ascending. Launch: global (n/2), local (256). Args: keys (u32 n, in place).
__kernel void bitonic_local(__global uint *keys) {
  __local uint s[512];
  uint lid = get_local_id(0);
  __global uint *p = keys + get_group_id(0) * 512;
  s[lid] = p[lid];
  s[lid + 256] = p[lid + 256];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint k = 2; k <= 512; k <<= 1)
    for (uint j = k >> 1; j > 0; j >>= 1) {
      uint i = 2 * lid - (lid & (j - 1));
      uint a = s[i], b = s[i + j];
      bool up = (i & k) == 0;
      if ((a > b) == up) {
        s[i] = b;
        s[i + j] = a;
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  p[lid] = s[lid];
  p[lid + 256] = s[lid + 256];
}
