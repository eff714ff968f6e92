/* Iterative radix-2 DIT FFT of each 1024-point block (bit-reversed copy, 10
 * butterfly stages, cosf/sinf twiddles), blocks split between threads. Args
 * as suite/fft_r2.cl: in, out (f32 2*blocks*1024, interleaved complex). */
#define KERNEL_NAME "fft_r2"
#include "harness.h"
#include <math.h>

static void kernel(struct launch *L) {
  const float *restrict in = buf_arg(L, 0, T_F32);
  float *restrict out = buf_arg(L, 1, T_F32);
  long blocks = (long)buf_count(L, 0) / 2048;
#pragma omp parallel for schedule(static)
  for (long g = 0; g < blocks; ++g) {
    float *x = out + g * 2048;
    const float *src = in + g * 2048;
    for (int k = 0; k < 1024; ++k) {
      int r = 0;
      for (int b = 0; b < 10; ++b) r |= ((k >> b) & 1) << (9 - b);
      x[2 * r] = src[2 * k];
      x[2 * r + 1] = src[2 * k + 1];
    }
    for (int hs = 1; hs < 1024; hs <<= 1)
      for (int t = 0; t < 512; ++t) {
        int j = t & (hs - 1), i0 = (t - j) * 2 + j, i1 = i0 + hs;
        float ang = -3.14159265358979f * (float)j / (float)hs, c = cosf(ang), s = sinf(ang);
        float br = x[2 * i1] * c - x[2 * i1 + 1] * s, bi = x[2 * i1] * s + x[2 * i1 + 1] * c;
        float ar = x[2 * i0], ai = x[2 * i0 + 1];
        x[2 * i0] = ar + br; x[2 * i0 + 1] = ai + bi;
        x[2 * i1] = ar - br; x[2 * i1 + 1] = ai - bi;
      }
  }
}
