/* 64-bin histogram of [0,1) floats: a private histogram per thread, merged.
 * Args as suite/hist_bins.cl: x (f32 n), hist (u32 64), n (i32). */
#define KERNEL_NAME "hist_bins"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict x = buf_arg(L, 0, T_F32);
  uint32_t *hist = buf_arg(L, 1, T_U32);
  long n = int_arg(L, 2);
#pragma omp parallel
  {
    uint32_t h[64] = {0};
#pragma omp for schedule(static)
    for (long i = 0; i < n; ++i) {
      int b = (int)(x[i] * 64.0f);
      h[b < 63 ? b : 63]++;
    }
    for (int b = 0; b < 64; ++b)
      if (h[b]) __atomic_fetch_add(&hist[b], h[b], __ATOMIC_RELAXED);
  }
}
