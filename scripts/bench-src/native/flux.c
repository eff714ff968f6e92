/* Unstructured-mesh face fluxes through the neighbour index array, cells
 * split between threads. Args as suite/flux.cl: nb (i32 4n), area (f32 4n),
 * u, flux (f32 n), n (i32). */
#define KERNEL_NAME "flux"
#include "harness.h"

static void kernel(struct launch *L) {
  const int32_t *restrict nb = buf_arg(L, 0, T_I32);
  const float *restrict area = buf_arg(L, 1, T_F32), *restrict u = buf_arg(L, 2, T_F32);
  float *restrict fl = buf_arg(L, 3, T_F32);
  long n = int_arg(L, 4);
#pragma omp parallel for simd schedule(static)
  for (long i = 0; i < n; ++i) {
    float ui = u[i], f = 0.0f;
    for (int k = 0; k < 4; ++k) {
      int32_t j = nb[k * n + i];
      float uj = j >= 0 ? u[j] : 0.5f;
      f += area[k * n + i] * (0.25f * (uj * uj - ui * ui) - 0.1f * (uj - ui));
    }
    fl[i] = f;
  }
}
