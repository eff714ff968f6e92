/* Bitonic sorting network on each 512-key chunk, chunks split between
 * threads. Args as suite/bitonic_local.cl: keys (u32 n, in place). */
#define KERNEL_NAME "bitonic_local"
#include "harness.h"

static void kernel(struct launch *L) {
  uint32_t *restrict keys = buf_arg(L, 0, T_U32);
  long chunks = (long)buf_count(L, 0) / 512;
#pragma omp parallel for schedule(static)
  for (long c = 0; c < chunks; ++c) {
    uint32_t *s = keys + c * 512;
    for (unsigned k = 2; k <= 512; k <<= 1)
      for (unsigned j = k >> 1; j > 0; j >>= 1)
        for (unsigned t = 0; t < 256; ++t) {
          unsigned i = 2 * t - (t & (j - 1));
          uint32_t a = s[i], b = s[i + j];
          if ((a > b) == ((i & k) == 0)) { s[i] = b; s[i + j] = a; }
        }
  }
}
