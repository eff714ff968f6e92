/* One sum per 512 consecutive elements (a work-group's two loads each).
 * Args as suite/reduce_tree_int.cl: in (f32 n), partial (f32 n/512). */
#define KERNEL_NAME "reduce_tree_int"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict in = buf_arg(L, 0, T_F32);
  float *restrict part = buf_arg(L, 1, T_F32);
  long g = (long)buf_count(L, 1), m = 2 * (long)L->local[0];
#pragma omp parallel for schedule(static)
  for (long b = 0; b < g; ++b) {
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (long i = 0; i < m; ++i) s += in[b * m + i];
    part[b] = s;
  }
}
