/* Exclusive scan of each 4096-element block, serially, blocks split between
 * threads; block totals to sums. Args as suite/radix_scan.cl. */
#define KERNEL_NAME "radix_scan"
#include "harness.h"

static void kernel(struct launch *L) {
  const uint32_t *restrict in = buf_arg(L, 0, T_U32);
  uint32_t *restrict out = buf_arg(L, 1, T_U32), *restrict sums = buf_arg(L, 2, T_U32);
  long g = (long)buf_count(L, 2);
#pragma omp parallel for schedule(static)
  for (long b = 0; b < g; ++b) {
    uint32_t run = 0;
    for (long i = b * 4096; i < b * 4096 + 4096; ++i) { out[i] = run; run += in[i]; }
    sums[b] = run;
  }
}
