/* out[i] = 0.25 in[i-1] + 0.5 in[i] + 0.25 in[i+1], 0 outside [0, n).
 * Args as stencil1d.cl: in, out (buf f32), tile (local, unused), n (i32). */
#define KERNEL_NAME "stencil1d"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict in = buf_arg(L, 0, T_F32);
  float *restrict out = buf_arg(L, 1, T_F32);
  long n = int_arg(L, 3);
  if (n <= 0) return;
  if (n == 1) { out[0] = 0.5f * in[0]; return; }
  out[0] = 0.5f * in[0] + 0.25f * in[1];
#pragma omp parallel for simd schedule(static)
  for (long i = 1; i < n - 1; ++i)
    out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];
  out[n - 1] = 0.25f * in[n - 2] + 0.5f * in[n - 1];
}
