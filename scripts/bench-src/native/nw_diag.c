/* Needleman-Wunsch of each 64-symbol pair: the whole table row by row (no
 * wavefront is needed serially), pairs split between threads. Args as
 * suite/nw_diag.cl: a, b (u8 pairs*64), last (i32 pairs*64), penalty (i32). */
#define KERNEL_NAME "nw_diag"
#include "harness.h"

static void kernel(struct launch *L) {
  const uint8_t *restrict a = buf_arg(L, 0, T_U8), *restrict b = buf_arg(L, 1, T_U8);
  int32_t *restrict last = buf_arg(L, 2, T_I32);
  long pairs = (long)buf_count(L, 0) / 64;
  int pen = (int)int_arg(L, 3);
#pragma omp parallel for schedule(static)
  for (long p = 0; p < pairs; ++p) {
    int H[65][65];
    const uint8_t *sa = a + p * 64, *sb = b + p * 64;
    for (int t = 0; t <= 64; ++t) H[0][t] = H[t][0] = -t * pen;
    for (int i = 1; i <= 64; ++i)
      for (int j = 1; j <= 64; ++j) {
        int best = H[i - 1][j - 1] + (((sa[i - 1] ^ sb[j - 1]) & 3) == 0 ? 1 : -1);
        if (H[i - 1][j] - pen > best) best = H[i - 1][j] - pen;
        if (H[i][j - 1] - pen > best) best = H[i][j - 1] - pen;
        H[i][j] = best;
      }
    for (int t = 0; t < 64; ++t) last[p * 64 + t] = H[64][t + 1];
  }
}
