/* Weight normalisation: the partial sums added once (in order), then every
 * weight divided by the total. Args as suite/particle_norm.cl. */
#define KERNEL_NAME "particle_norm"
#include "harness.h"

static void kernel(struct launch *L) {
  float *restrict w = buf_arg(L, 0, T_F32);
  const float *restrict part = buf_arg(L, 1, T_F32);
  long np = int_arg(L, 2), n = int_arg(L, 3);
  float total = 0.0f;
  for (long k = 0; k < np; ++k) total += part[k];
#pragma omp parallel for simd schedule(static)
  for (long i = 0; i < n; ++i) w[i] /= total;
}
