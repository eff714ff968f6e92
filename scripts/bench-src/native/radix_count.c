/* 4-bit digit counts of each 4096-key block, digit-major. Args as
 * suite/radix_count.cl: keys (u32 n), counts (u32 16*n/4096), shift (u32). */
#define KERNEL_NAME "radix_count"
#include "harness.h"

static void kernel(struct launch *L) {
  const uint32_t *restrict keys = buf_arg(L, 0, T_U32);
  uint32_t *restrict counts = buf_arg(L, 1, T_U32);
  long g = (long)buf_count(L, 0) / 4096;
  unsigned sh = (unsigned)int_arg(L, 2);
#pragma omp parallel for schedule(static)
  for (long b = 0; b < g; ++b) {
    uint32_t c[16] = {0};
    for (long i = b * 4096; i < b * 4096 + 4096; ++i) c[(keys[i] >> sh) & 15]++;
    for (int d = 0; d < 16; ++d) counts[d * g + b] = c[d];
  }
}
