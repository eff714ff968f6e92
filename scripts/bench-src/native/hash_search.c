/* Open-addressing lookups (the hash and probing of suite/hash_search.cl),
 * queries split between threads. Args: tkeys, tvals (u32 cap), queries,
 * result (u32 q), mask (u32). */
#define KERNEL_NAME "hash_search"
#include "harness.h"

static void kernel(struct launch *L) {
  const uint32_t *restrict tk = buf_arg(L, 0, T_U32), *restrict tv = buf_arg(L, 1, T_U32);
  const uint32_t *restrict q = buf_arg(L, 2, T_U32);
  uint32_t *restrict res = buf_arg(L, 3, T_U32);
  uint32_t mask = (uint32_t)int_arg(L, 4);
  long n = (long)buf_count(L, 3);
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {
    uint32_t k = q[i], h = ((k ^ (k >> 16)) * 0x45d9f3bu) & mask, r = 0xffffffffu;
    for (;;) {
      if (tk[h] == k) { r = tv[h]; break; }
      if (tk[h] == 0xffffffffu) break;
      h = (h + 1) & mask;
    }
    res[i] = r;
  }
}
