/* 256-bin histogram of bytes, added to hist: a private histogram per thread,
 * merged at the end. Args as histogram.cl: data (buf u8), n (u32),
 * hist (buf u32 256). */
#define KERNEL_NAME "histogram256"
#include "harness.h"

static void kernel(struct launch *L) {
  const uint8_t *restrict data = buf_arg(L, 0, T_U8);
  size_t n = (size_t)int_arg(L, 1);
  uint32_t *restrict hist = buf_arg(L, 2, T_U32);
#pragma omp parallel
  {
    uint32_t h[256] = {0};
#pragma omp for schedule(static)
    for (size_t i = 0; i < n; ++i)
      h[data[i]]++;
    for (int b = 0; b < 256; ++b)
      if (h[b]) {
#pragma omp atomic
        hist[b] += h[b];
      }
  }
}
