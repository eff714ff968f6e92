/* One partial sum per work-group, as reduction.cl computes them: with G
 * work-items in groups of L, group g sums in[i] for every i < n with
 * (i mod G) / L == g. Args: in (buf f32), partial (buf f32 G/L),
 * scratch (local, unused here), n (u32). */
#define KERNEL_NAME "reduce_sum"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict in = buf_arg(L, 0, T_F32);
  float *restrict partial = buf_arg(L, 1, T_F32);
  size_t n = (size_t)int_arg(L, 3);
  size_t stride = L->global[0], lsize = L->local[0], groups = stride / lsize;
#pragma omp parallel for schedule(static)
  for (size_t g = 0; g < groups; ++g) {
    float sum = 0.0f;
    for (size_t base = g * lsize; base < n; base += stride) {
      size_t end = base + lsize < n ? base + lsize : n;
#pragma omp simd reduction(+ : sum)
      for (size_t i = base; i < end; ++i)
        sum += in[i];
    }
    partial[g] = sum;
  }
}
