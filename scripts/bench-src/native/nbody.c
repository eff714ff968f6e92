/* All-pairs n-body accelerations: bodies split between threads, the inner
 * loop over all bodies vectorised (reductions). Args as suite/nbody.cl: pos,
 * acc (f32 4n), n (i32), eps2 (f32). */
#define KERNEL_NAME "nbody"
#include "harness.h"
#include <math.h>

static void kernel(struct launch *L) {
  const float *restrict p = buf_arg(L, 0, T_F32);
  float *restrict acc = buf_arg(L, 1, T_F32);
  long n = int_arg(L, 2);
  float eps2 = f32_arg(L, 3);
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {
    float ax = 0.0f, ay = 0.0f, az = 0.0f, x = p[4 * i], y = p[4 * i + 1], z = p[4 * i + 2];
#pragma omp simd reduction(+ : ax, ay, az)
    for (long k = 0; k < n; ++k) {
      float dx = p[4 * k] - x, dy = p[4 * k + 1] - y, dz = p[4 * k + 2] - z;
      float inv = 1.0f / sqrtf(dx * dx + dy * dy + dz * dz + eps2);
      float s = p[4 * k + 3] * inv * inv * inv;
      ax += dx * s; ay += dy * s; az += dz * s;
    }
    acc[4 * i] = ax; acc[4 * i + 1] = ay; acc[4 * i + 2] = az; acc[4 * i + 3] = 0.0f;
  }
}
