/* Distance of every (lat, lng) record to the target. Args as suite/nn.cl:
 * rec (f32 2n), dist (f32 n), n (i32), lat, lng (f32). */
#define KERNEL_NAME "nn"
#include "harness.h"
#include <math.h>

static void kernel(struct launch *L) {
  const float *restrict r = buf_arg(L, 0, T_F32);
  float *restrict d = buf_arg(L, 1, T_F32);
  long n = int_arg(L, 2);
  float lat = f32_arg(L, 3), lng = f32_arg(L, 4);
#pragma omp parallel for simd schedule(static)
  for (long i = 0; i < n; ++i)
    d[i] = sqrtf((lat - r[2 * i]) * (lat - r[2 * i]) + (lng - r[2 * i + 1]) * (lng - r[2 * i + 1]));
}
