/* One sum per 256 consecutive elements. Args as suite/reduce_tree_sz.cl:
 * in (f32 n), partial (f32 n/256), scratch (local, unused). */
#define KERNEL_NAME "reduce_tree_sz"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict in = buf_arg(L, 0, T_F32);
  float *restrict part = buf_arg(L, 1, T_F32);
  long g = (long)buf_count(L, 1), ls = (long)L->local[0];
#pragma omp parallel for schedule(static)
  for (long b = 0; b < g; ++b) {
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (long i = 0; i < ls; ++i) s += in[b * ls + i];
    part[b] = s;
  }
}
