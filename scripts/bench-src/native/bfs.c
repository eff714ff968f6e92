/* One BFS frontier expansion: frontier vertices split between threads, an
 * unvisited neighbour claimed with a compare-and-swap. Args as suite/bfs.cl:
 * row_ptr, cols, frontier, cost (in/out), next (i32), n, level (i32). */
#define KERNEL_NAME "bfs"
#include "harness.h"

static void kernel(struct launch *L) {
  const int32_t *restrict rp = buf_arg(L, 0, T_I32), *restrict cols = buf_arg(L, 1, T_I32);
  const int32_t *restrict fr = buf_arg(L, 2, T_I32);
  int32_t *cost = buf_arg(L, 3, T_I32), *next = buf_arg(L, 4, T_I32);
  long n = int_arg(L, 5);
  int32_t level = (int32_t)int_arg(L, 6);
#pragma omp parallel for schedule(dynamic, 1024)
  for (long u = 0; u < n; ++u) {
    if (!fr[u]) continue;
    for (int32_t e = rp[u]; e < rp[u + 1]; ++e) {
      int32_t v = cols[e], expect = -1;
      if (__atomic_compare_exchange_n(&cost[v], &expect, level + 1, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        next[v] = 1;
    }
  }
}
