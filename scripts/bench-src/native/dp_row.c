/* Row-by-row minimum-path DP over `steps` rows: one row at a time, split
 * between threads (a barrier per row), two row buffers. Args as
 * suite/dp_row.cl: wall (i32), src, dst (i32 cols), cols, start, steps. */
#define KERNEL_NAME "dp_row"
#include "harness.h"

static void kernel(struct launch *L) {
  const int32_t *restrict wall = buf_arg(L, 0, T_I32), *restrict src = buf_arg(L, 1, T_I32);
  int32_t *restrict dst = buf_arg(L, 2, T_I32);
  long cols = int_arg(L, 3), start = int_arg(L, 4), steps = int_arg(L, 5);
  int32_t *a = malloc(sizeof(int32_t) * (size_t)cols), *b = malloc(sizeof(int32_t) * (size_t)cols);
  memcpy(a, src, sizeof(int32_t) * (size_t)cols);
#pragma omp parallel
  for (long s = 0; s < steps; ++s) {
    const int32_t *prev = s % 2 ? b : a;
    int32_t *cur = s % 2 ? a : b;
#pragma omp for schedule(static)
    for (long c = 0; c < cols; ++c) {
      int32_t m = prev[c];
      if (c > 0 && prev[c - 1] < m) m = prev[c - 1];
      if (c < cols - 1 && prev[c + 1] < m) m = prev[c + 1];
      cur[c] = m + wall[(start + s) * cols + c];
    }
  }
  memcpy(dst, steps % 2 ? b : a, sizeof(int32_t) * (size_t)cols);
  free(a);
  free(b);
}
