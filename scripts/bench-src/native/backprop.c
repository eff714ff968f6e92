/* Layer forward partial sums: for each 256-input chunk and hidden unit, the
 * sum of weight*input; chunks split between threads, vectorised across the
 * hidden units (a row of w). Args as suite/backprop.cl: in, w, partial
 * (f32), n_hid (i32). */
#define KERNEL_NAME "backprop"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict in = buf_arg(L, 0, T_F32), *restrict w = buf_arg(L, 1, T_F32);
  float *restrict part = buf_arg(L, 2, T_F32);
  long nh = int_arg(L, 3), chunks = (long)buf_count(L, 0) / 256;
#pragma omp parallel for schedule(static)
  for (long g = 0; g < chunks; ++g) {
    float s[64] = {0};
    for (long i = g * 256; i < g * 256 + 256; ++i)
#pragma omp simd
      for (long j = 0; j < nh; ++j) s[j] += w[i * nh + j] * in[i];
    for (long j = 0; j < nh; ++j) part[g * nh + j] = s[j];
  }
}
