/* 3x3 convolution with the weights of suite/conv2d.cl on the interior,
 * rows split between threads, vectorised along x. Args: in, out (f32 W*H),
 * W, H (i32). */
#define KERNEL_NAME "conv2d"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict in = buf_arg(L, 0, T_F32);
  float *restrict out = buf_arg(L, 1, T_F32);
  long w = int_arg(L, 2), h = int_arg(L, 3);
#pragma omp parallel for schedule(static)
  for (long y = 1; y < h - 1; ++y)
#pragma omp simd
    for (long x = 1; x < w - 1; ++x)
      out[y * w + x] = 0.2f * in[(y - 1) * w + x - 1] + -0.3f * in[(y - 1) * w + x] +
                       0.4f * in[(y - 1) * w + x + 1] + 0.5f * in[y * w + x - 1] +
                       0.6f * in[y * w + x] + 0.7f * in[y * w + x + 1] +
                       -0.8f * in[(y + 1) * w + x - 1] + -0.9f * in[(y + 1) * w + x] +
                       0.1f * in[(y + 1) * w + x + 1];
}
