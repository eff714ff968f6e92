/* Inclusive prefix sum within each block of L elements (L = the local size),
 * block totals to block_sums; blocks split between threads. Args as scan.cl:
 * in, out, block_sums (buf u32), tmp (local, unused here). */
#define KERNEL_NAME "scan_inclusive"
#include "harness.h"

static void kernel(struct launch *L) {
  const uint32_t *restrict in = buf_arg(L, 0, T_U32);
  uint32_t *restrict out = buf_arg(L, 1, T_U32);
  uint32_t *restrict sums = buf_arg(L, 2, T_U32);
  size_t lsize = L->local[0], groups = L->global[0] / lsize;
#pragma omp parallel for schedule(static)
  for (size_t g = 0; g < groups; ++g) {
    uint32_t s = 0;
    for (size_t i = g * lsize; i < (g + 1) * lsize; ++i)
      out[i] = s += in[i];
    sums[g] = s;
  }
}
