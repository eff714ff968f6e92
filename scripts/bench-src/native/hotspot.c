/* Hotspot thermal step straight from the grid (a CPU needs no staging
 * tile): neighbours clamped at the border, the update of suite/hotspot.cl.
 * Args: power, temp, out (f32 W*H), W, H (i32), sdc, rx, ry, rz (f32). */
#define KERNEL_NAME "hotspot"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict p = buf_arg(L, 0, T_F32), *restrict t = buf_arg(L, 1, T_F32);
  float *restrict out = buf_arg(L, 2, T_F32);
  long w = int_arg(L, 3), h = int_arg(L, 4);
  float sdc = f32_arg(L, 5), rx = f32_arg(L, 6), ry = f32_arg(L, 7), rz = f32_arg(L, 8);
#pragma omp parallel for schedule(static)
  for (long y = 0; y < h; ++y) {
    long yn = y > 0 ? y - 1 : 0, ys = y < h - 1 ? y + 1 : h - 1;
#pragma omp simd
    for (long x = 0; x < w; ++x) {
      long xw = x > 0 ? x - 1 : 0, xe = x < w - 1 ? x + 1 : w - 1;
      float c = t[y * w + x];
      out[y * w + x] = c + sdc * (p[y * w + x] + (t[yn * w + x] + t[ys * w + x] - 2.0f * c) * ry +
                                  (t[y * w + xe] + t[y * w + xw] - 2.0f * c) * rx + (80.0f - c) * rz);
    }
  }
}
