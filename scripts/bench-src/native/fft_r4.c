/* Iterative radix-4 DIT FFT of each 1024-point block (base-4 digit-reversed
 * copy, 5 radix-4 stages, cosf/sinf twiddles), blocks split between
 * threads. Args as suite/fft_r4.cl. */
#define KERNEL_NAME "fft_r4"
#include "harness.h"
#include <math.h>

static void cmul(float *re, float *im, float c, float s) {
  float r = *re * c - *im * s, i = *re * s + *im * c;
  *re = r; *im = i;
}

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
      for (int d = 0; d < 5; ++d) r |= ((k >> (2 * d)) & 3) << (8 - 2 * d);
      x[2 * r] = src[2 * k];
      x[2 * r + 1] = src[2 * k + 1];
    }
    for (int q = 1; q < 1024; q <<= 2)
      for (int t = 0; t < 256; ++t) {
        int j = t & (q - 1), i0 = (t - j) * 4 + j;
        float ang = -2.0f * 3.14159265358979f * (float)j / (float)(4 * q);
        float r[4], im[4];
        for (int m = 0; m < 4; ++m) { r[m] = x[2 * (i0 + m * q)]; im[m] = x[2 * (i0 + m * q) + 1]; }
        cmul(&r[1], &im[1], cosf(ang), sinf(ang));
        cmul(&r[2], &im[2], cosf(2.0f * ang), sinf(2.0f * ang));
        cmul(&r[3], &im[3], cosf(3.0f * ang), sinf(3.0f * ang));
        float s02r = r[0] + r[2], s02i = im[0] + im[2], d02r = r[0] - r[2], d02i = im[0] - im[2];
        float s13r = r[1] + r[3], s13i = im[1] + im[3], d13r = r[1] - r[3], d13i = im[1] - im[3];
        x[2 * i0] = s02r + s13r; x[2 * i0 + 1] = s02i + s13i;
        x[2 * (i0 + q)] = d02r + d13i; x[2 * (i0 + q) + 1] = d02i - d13r;
        x[2 * (i0 + 2 * q)] = s02r - s13r; x[2 * (i0 + 2 * q) + 1] = s02i - s13i;
        x[2 * (i0 + 3 * q)] = d02r - d13i; x[2 * (i0 + 3 * q) + 1] = d02i + d13r;
      }
  }
}
