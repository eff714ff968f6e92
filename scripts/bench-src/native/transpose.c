/* out (width x height) = transpose of in (height x width), in 32x32 blocks so
 * both sides stay in cache. Args as transpose.cl: in, out (buf f32),
 * width, height (i32). */
#define KERNEL_NAME "transpose"
#include "harness.h"

#define B 32

static void kernel(struct launch *L) {
  const float *restrict in = buf_arg(L, 0, T_F32);
  float *restrict out = buf_arg(L, 1, T_F32);
  long width = int_arg(L, 2), height = int_arg(L, 3);
#pragma omp parallel for schedule(static)
  for (long by = 0; by < height; by += B)
    for (long bx = 0; bx < width; bx += B) {
      long ye = by + B < height ? by + B : height;
      long xe = bx + B < width ? bx + B : width;
      for (long x = bx; x < xe; ++x)
        for (long y = by; y < ye; ++y)
          out[x * height + y] = in[y * width + x];
    }
}
