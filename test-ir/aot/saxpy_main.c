/* Calls the work-group function of test-ir/kernels/saxpy.ll directly, from an
 * object simt-opt made: no runtime, no JIT. Checks y = a*x + y. */
#include <stdio.h>
#include <stdlib.h>
#include "simt_wg.h"

SIMT_WG_DECLARE(saxpy)

int main(void) {
  enum { N = 1000, LOCAL = 64 };
  const uint64_t groups = (N + LOCAL - 1) / LOCAL;
  float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
  for (int i = 0; i < N; ++i) { x[i] = (float)i; y[i] = 1.0f; }
  float a = 2.0f;
  int n = N;
  void *scratch = aligned_alloc(64, simt_wg_saxpy_scratch_per_item * LOCAL + 64);
  void *local_mem = aligned_alloc(64, simt_wg_saxpy_local_bytes + 64);
  /* Parameter order of saxpy.cl: n, a, x, y. */
  void *args[4];
  int param_n = n; float param_a = a; float *param_x = x; float *param_y = y;
  args[0] = &param_n; args[1] = &param_a; args[2] = &param_x; args[3] = &param_y;
  for (uint64_t g = 0; g < groups; ++g) {
    struct simt_wg_ctx ctx = {
      .group_id = {g, 0, 0}, .num_groups = {groups, 1, 1}, .local_size = {LOCAL, 1, 1},
      .global_offset = {0, 0, 0}, .work_dim = 1, .local_mem = local_mem, .scratch = scratch};
    if (simt_wg_saxpy(args, &ctx) != 0) { printf("barrier divergence\n"); return 1; }
  }
  for (int i = 0; i < N; ++i)
    if (y[i] != 2.0f * i + 1.0f) { printf("mismatch at %d: %f\n", i, y[i]); return 1; }
  printf("saxpy via the C ABI: %d elements ok\n", N);
  return 0;
}
