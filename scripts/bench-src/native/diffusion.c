/* Diffusion step: the interior of each row vectorised, the border cells with
 * clamped neighbours. Args as suite/diffusion.cl: u, kappa, out (f32 W*H),
 * W, H (i32), dt (f32). */
#define KERNEL_NAME "diffusion"
#include "harness.h"

static float border(const float *u, long w, long h, long x, long y) {
  float n = u[(y > 0 ? y - 1 : 0) * w + x], s = u[(y < h - 1 ? y + 1 : h - 1) * w + x];
  float wv = u[y * w + (x > 0 ? x - 1 : 0)], e = u[y * w + (x < w - 1 ? x + 1 : w - 1)];
  return n + s + e + wv - 4.0f * u[y * w + x];
}

static void kernel(struct launch *L) {
  const float *restrict u = buf_arg(L, 0, T_F32), *restrict k = buf_arg(L, 1, T_F32);
  float *restrict out = buf_arg(L, 2, T_F32);
  long w = int_arg(L, 3), h = int_arg(L, 4);
  float dt = f32_arg(L, 5);
#pragma omp parallel for schedule(static)
  for (long y = 0; y < h; ++y) {
    if (y == 0 || y == h - 1) {
      for (long x = 0; x < w; ++x) out[y * w + x] = u[y * w + x] + dt * k[y * w + x] * border(u, w, h, x, y);
      continue;
    }
    out[y * w] = u[y * w] + dt * k[y * w] * border(u, w, h, 0, y);
#pragma omp simd
    for (long x = 1; x < w - 1; ++x) {
      long i = y * w + x;
      out[i] = u[i] + dt * k[i] * (u[i - w] + u[i + w] + u[i - 1] + u[i + 1] - 4.0f * u[i]);
    }
    out[y * w + w - 1] = u[y * w + w - 1] + dt * k[y * w + w - 1] * border(u, w, h, w - 1, y);
  }
}
