/* One sum per local_size*per consecutive elements. Args as
 * suite/reduce_2stage.cl: in, partial (f32), scratch (unused), per (u32). */
#define KERNEL_NAME "reduce_2stage"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict in = buf_arg(L, 0, T_F32);
  float *restrict part = buf_arg(L, 1, T_F32);
  long g = (long)buf_count(L, 1), m = (long)L->local[0] * int_arg(L, 3);
#pragma omp parallel for schedule(static)
  for (long b = 0; b < g; ++b) {
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (long i = 0; i < m; ++i) s += in[b * m + i];
    part[b] = s;
  }
}
