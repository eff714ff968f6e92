/* One global bitonic compare-exchange step (j, k). Args as
 * suite/bitonic_step.cl: keys (u32 n, in place), j, k (u32). */
#define KERNEL_NAME "bitonic_step"
#include "harness.h"

static void kernel(struct launch *L) {
  uint32_t *restrict keys = buf_arg(L, 0, T_U32);
  uint64_t n = buf_count(L, 0), j = (uint64_t)int_arg(L, 1), k = (uint64_t)int_arg(L, 2);
#pragma omp parallel for simd schedule(static)
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t ixj = i ^ j;
    if (ixj > i) {
      uint32_t a = keys[i], b = keys[ixj];
      if ((a > b) == ((i & k) == 0)) { keys[i] = b; keys[ixj] = a; }
    }
  }
}
