// 64-bin histogram of floats in [0, 1), one value per work-item: the bin is
// computed (min((int)(x*64), 63)) and counted with atomic_inc in a __local
// histogram, merged into the global one with atomic_add.
// Launch: global (n), local (256). Args: x (f32 n), hist (u32 64, zeroed), n
// (i32).
__kernel void hist_bins(__global const float *x, __global uint *hist, int n) {
  __local uint lh[64];
  int lid = get_local_id(0), i = get_global_id(0);
  if (lid < 64)
    lh[lid] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i < n)
    atomic_inc(&lh[min((int)(x[i] * 64.0f), 63)]);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < 64 && lh[lid] != 0)
    atomic_add(&hist[lid], lh[lid]);
}
