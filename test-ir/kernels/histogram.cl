// 256-bin histogram of bytes: a per-work-group histogram in a __local array
// updated with atomic_inc, then merged into the global one with atomic_add.
// Loops whose trip counts differ per work-item (`for (i = lid; i < 256; i += L)`)
// sit between the barriers, never around them.
// Launch: 1-D, global = groups * local (a grid-stride loop covers n), local =
// any (64, 128, 256). Args: data (buf u8 n), n (u32), hist (buf u32 256,
// zero-filled: the kernel adds to it).
#define BINS 256

__kernel void histogram256(__global const uchar *data, uint n,
                           __global uint *hist) {
  __local uint lhist[BINS];
  uint lid = get_local_id(0);
  uint lsize = get_local_size(0);
  for (uint b = lid; b < BINS; b += lsize)
    lhist[b] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint i = get_global_id(0); i < n; i += get_global_size(0))
    atomic_inc(&lhist[data[i]]);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint b = lid; b < BINS; b += lsize)
    if (lhist[b] != 0)
      atomic_add(&hist[b], lhist[b]);
}
