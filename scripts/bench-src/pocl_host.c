/* pocl_host: runs one OpenCL C kernel with pocl (or any OpenCL platform) from
 * the same launch description as simt-run (see common.h):
 *
 *   pocl_host KERNEL.cl --kernel NAME --global X[,Y,Z] --local X[,Y,Z] \
 *     --arg SPEC ... [--repeat R] [--dump DIR] [--dump-in DIR] [--stats json]
 *
 * The program is built from source with the device's default OpenCL C version
 * (pocl 3.1: OpenCL C 1.2). One warm-up launch, then R timed launches; before
 * each, every buffer is rewritten with its initial contents (untimed). The
 * time of a launch is the wall clock from clEnqueueNDRangeKernel to the end of
 * clFinish; the profiling events' START..END is reported beside it.
 * Build: cc -O2 pocl_host.c -o pocl_host -lOpenCL
 * Environment: SIMT_OCL_PLATFORM=substring picks a platform (default: the
 * first whose name contains "Portable", else the first).
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "common.h"

#define CHECK(call)                                                           \
  do {                                                                        \
    cl_int err_ = (call);                                                     \
    if (err_ != CL_SUCCESS) die("%s failed: OpenCL error %d", #call, err_);   \
  } while (0)

static char *read_text(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) die("cannot open %s: %s", path, strerror(errno));
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (fread(s, 1, (size_t)n, f) != (size_t)n) die("cannot read %s", path);
  s[n] = 0;
  fclose(f);
  *len = (size_t)n;
  return s;
}

static cl_platform_id pick_platform(void) {
  cl_uint n = 0;
  CHECK(clGetPlatformIDs(0, NULL, &n));
  if (!n) die("no OpenCL platform");
  cl_platform_id ids[16];
  if (n > 16) n = 16;
  CHECK(clGetPlatformIDs(n, ids, NULL));
  const char *want = getenv("SIMT_OCL_PLATFORM");
  if (!want) want = "Portable";
  for (cl_uint i = 0; i < n; ++i) {
    char name[256] = {0};
    clGetPlatformInfo(ids[i], CL_PLATFORM_NAME, sizeof name - 1, name, NULL);
    if (strstr(name, want)) return ids[i];
  }
  return ids[0];
}

int main(int argc, char **argv) {
  struct launch L;
  parse_launch(&L, argc, argv, 1);
  if (!L.kernel) die("--kernel is required");

  cl_platform_id platform = pick_platform();
  cl_device_id dev;
  CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  CHECK(err);
  cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
  CHECK(err);

  size_t src_len;
  const char *src = read_text(L.source, &src_len);
  cl_program prog = clCreateProgramWithSource(ctx, 1, &src, &src_len, &err);
  CHECK(err);
  if (clBuildProgram(prog, 1, &dev, "", NULL, NULL) != CL_SUCCESS) {
    size_t n = 0;
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
    char *log = malloc(n + 1);
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL);
    log[n] = 0;
    die("building %s failed:\n%s", L.source, log);
  }
  cl_kernel k = clCreateKernel(prog, L.kernel, &err);
  if (err != CL_SUCCESS) die("%s: no kernel '%s' (OpenCL error %d)", L.source, L.kernel, err);
  cl_uint nparams = 0;
  CHECK(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nparams, &nparams, NULL));
  if (nparams != (cl_uint)L.nargs)
    die("kernel %s has %u parameters, %d --arg given", L.kernel, nparams, L.nargs);

  cl_mem mems[MAX_ARGS] = {0};
  for (int i = 0; i < L.nargs; ++i) {
    struct arg *a = &L.args[i];
    size_t bytes = a->count * ty_sizes[a->ty];
    if (a->kind == A_BUF) {
      mems[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, &err);
      CHECK(err);
      CHECK(clSetKernelArg(k, (cl_uint)i, sizeof(cl_mem), &mems[i]));
    } else if (a->kind == A_LOCAL) {
      CHECK(clSetKernelArg(k, (cl_uint)i, bytes, NULL));
    } else {
      CHECK(clSetKernelArg(k, (cl_uint)i, ty_sizes[a->ty], a->data));
    }
  }

  dump_buffers(&L, L.dump_in_dir, 0);
  int runs = L.repeat + 1; /* the first is the warm-up */
  double *wall = malloc(sizeof(double) * (size_t)runs);
  double *dev_ms = malloc(sizeof(double) * (size_t)runs);
  for (int r = 0; r < runs; ++r) {
    for (int i = 0; i < L.nargs; ++i)
      if (L.args[i].kind == A_BUF)
        CHECK(clEnqueueWriteBuffer(q, mems[i], CL_TRUE, 0,
                                   L.args[i].count * ty_sizes[L.args[i].ty],
                                   L.args[i].initial, 0, NULL, NULL));
    CHECK(clFinish(q));
    cl_event ev;
    double t0 = now_ms();
    CHECK(clEnqueueNDRangeKernel(q, k, L.dims, NULL, L.global, L.local, 0, NULL, &ev));
    CHECK(clFinish(q));
    wall[r] = now_ms() - t0;
    cl_ulong s = 0, e = 0;
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof s, &s, NULL);
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof e, &e, NULL);
    dev_ms[r] = (double)(e - s) * 1e-6;
    clReleaseEvent(ev);
  }
  for (int i = 0; i < L.nargs; ++i)
    if (L.args[i].kind == A_BUF)
      CHECK(clEnqueueReadBuffer(q, mems[i], CL_TRUE, 0,
                                L.args[i].count * ty_sizes[L.args[i].ty],
                                L.args[i].data, 0, NULL, NULL));
  dump_buffers(&L, L.dump_dir, 1);
  qsort(dev_ms + 1, (size_t)L.repeat, sizeof(double), cmp_double);
  if (!L.stats)
    printf("pocl: profiling events: best %.4f ms\n", dev_ms[1]);
  report("pocl", &L, wall + 1, L.repeat);
  return 0;
}
