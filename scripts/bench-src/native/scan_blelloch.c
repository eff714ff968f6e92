/* Exclusive scan of each 512-element block, serially, blocks split between
 * threads; block totals to sums. Args as suite/scan_blelloch.cl. */
#define KERNEL_NAME "scan_blelloch"
#include "harness.h"

static void kernel(struct launch *L) {
  const uint32_t *restrict in = buf_arg(L, 0, T_U32);
  uint32_t *restrict out = buf_arg(L, 1, T_U32), *restrict sums = buf_arg(L, 2, T_U32);
  long g = (long)buf_count(L, 2), m = 2 * (long)L->local[0];
#pragma omp parallel for schedule(static)
  for (long b = 0; b < g; ++b) {
    uint32_t run = 0;
    for (long i = b * m; i < b * m + m; ++i) { out[i] = run; run += in[i]; }
    sums[b] = run;
  }
}
