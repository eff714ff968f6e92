/* Stable scatter of each 4096-key block from its digit offsets, blocks split
 * between threads. Args as suite/radix_scatter.cl: keys, out (u32 n), goff
 * (u32 16*n/4096), shift (u32). */
#define KERNEL_NAME "radix_scatter"
#include "harness.h"

static void kernel(struct launch *L) {
  const uint32_t *restrict keys = buf_arg(L, 0, T_U32), *restrict goff = buf_arg(L, 2, T_U32);
  uint32_t *restrict out = buf_arg(L, 1, T_U32);
  long g = (long)buf_count(L, 0) / 4096;
  unsigned sh = (unsigned)int_arg(L, 3);
#pragma omp parallel for schedule(static)
  for (long b = 0; b < g; ++b) {
    uint32_t pos[16];
    for (int d = 0; d < 16; ++d) pos[d] = goff[d * g + b];
    for (long i = b * 4096; i < b * 4096 + 4096; ++i) out[pos[(keys[i] >> sh) & 15]++] = keys[i];
  }
}
