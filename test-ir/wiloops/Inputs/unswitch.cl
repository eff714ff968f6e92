// A branch on a kernel argument inside the work-item loop, the same for
// every work-item; its sides store to different places, so LLVM cannot
// merge them into one store of a select (for version-unswitch.test).
__kernel void two_ways(__global const float *in, __global float *out,
                       __global float *alt, int n, int mode, float a) {
  int i = get_global_id(0);
  if (i < n) {
    float x = in[i];
    if (mode > 0) {
      out[i] = x * a;
    } else {
      alt[i] = x + a;
      alt[i + n] = x - a;
    }
  }
}
