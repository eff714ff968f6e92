// SAXPY, y = a * x + y: a scalar float argument, a read-modify-write buffer,
// a bounds check; no barrier. clang contracts a * x + y into llvm.fmuladd.
// Launch: 1-D, global = n rounded up to a multiple of local, local = any.
// Args: n (i32), a (f32), x (buf f32 n), y (buf f32 n, in/out).
__kernel void saxpy(int n, float a, __global const float *x, __global float *y) {
  int i = get_global_id(0);
  if (i < n)
    y[i] = a * x[i] + y[i];
}
