/* CSR y = A*x: rows split between threads, a dot product per row (the CPU
 * form of both suite/spmv_scalar.cl and suite/spmv_vector.cl). Args:
 * row_ptr, cols (i32), vals, x, y (f32), rows (i32). */
#define KERNEL_NAME "spmv_vector"
#include "harness.h"

static void kernel(struct launch *L) {
  const int32_t *restrict rp = buf_arg(L, 0, T_I32), *restrict col = buf_arg(L, 1, T_I32);
  const float *restrict v = buf_arg(L, 2, T_F32), *restrict x = buf_arg(L, 3, T_F32);
  float *restrict y = buf_arg(L, 4, T_F32);
  long rows = int_arg(L, 5);
#pragma omp parallel for schedule(static, 256)
  for (long r = 0; r < rows; ++r) {
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (int32_t e = rp[r]; e < rp[r + 1]; ++e) s += v[e] * x[col[e]];
    y[r] = s;
  }
}
