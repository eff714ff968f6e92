/* The main() of every native kernel: parse the launch (common.h), run the
 * kernel once to warm up and R times timed (each from the initial buffer
 * contents, restored untimed), dump, report. A kernel file defines
 * KERNEL_NAME and `static void kernel(struct launch *L)` before including
 * this. The kernels are what a C programmer writes for the same job with
 * OpenMP; they read the same arguments, by index, as the OpenCL kernel, and
 * produce the same output buffers (e.g. one partial sum per work-group).
 * Build: clang-22 -O3 -march=native -fopenmp -fno-math-errno NAME.c -o NAME
 * (OpenCL C has no errno either; with it sqrtf is a call and no loop using
 * it vectorises)
 */
#include "../common.h"
#include <omp.h>

static void kernel(struct launch *L);

int main(int argc, char **argv) {
  struct launch L;
  parse_launch(&L, argc, argv, 0);
  if (!L.kernel) L.kernel = KERNEL_NAME;
  dump_buffers(&L, L.dump_in_dir, 0);
  int runs = L.repeat + 1;
  double *ms = malloc(sizeof(double) * (size_t)runs);
  for (int r = 0; r < runs; ++r) {
    restore_buffers(&L);
    double t0 = now_ms();
    kernel(&L);
    ms[r] = now_ms() - t0;
  }
  dump_buffers(&L, L.dump_dir, 1);
  report("native", &L, ms + 1, L.repeat);
  return 0;
}
