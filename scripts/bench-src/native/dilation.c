/* 5x5 grey-scale dilation, window clipped at the image border, rows split
 * between threads. Args as suite/dilation.cl: in, out (u8 W*H), W, H. */
#define KERNEL_NAME "dilation"
#include "harness.h"

static void kernel(struct launch *L) {
  const uint8_t *restrict in = buf_arg(L, 0, T_U8);
  uint8_t *restrict out = buf_arg(L, 1, T_U8);
  long w = int_arg(L, 2), h = int_arg(L, 3);
#pragma omp parallel for schedule(static)
  for (long y = 0; y < h; ++y) {
    long y0 = y - 2 < 0 ? 0 : y - 2, y1 = y + 2 >= h ? h - 1 : y + 2;
    for (long x = 0; x < w; ++x) {
      long x0 = x - 2 < 0 ? 0 : x - 2, x1 = x + 2 >= w ? w - 1 : x + 2;
      uint8_t m = 0;
      for (long yy = y0; yy <= y1; ++yy)
        for (long xx = x0; xx <= x1; ++xx) m = in[yy * w + xx] > m ? in[yy * w + xx] : m;
      out[y * w + x] = m;
    }
  }
}
