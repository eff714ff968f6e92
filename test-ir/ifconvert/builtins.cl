// OpenCL built-ins that clang declares `convergent` but that are lane-local
// (builtins.test): divergent diamonds whose arms call them.
__kernel void maths(__global float *out, __global const float *in) {
  int i = get_global_id(0);
  float x = in[i];
  float r;
  if (x > 0.5f)
    r = sqrt(x);
  else
    r = fabs(x);
  float s;
  if (x < 0.25f)
    s = mad(x, r, 1.0f);
  else
    s = fmin(r, x);
  out[i] = r + s;
}

__kernel void ints(__global int *out, __global const int *in) {
  int i = get_global_id(0);
  int x = in[i];
  int r;
  if (x & 1)
    r = min(x, 7);
  else
    r = abs(x);
  out[i] = r;
}

// mul_hi lowers to five instructions: the default rule keeps this diamond,
// lowered first or not.
__kernel void wide(__global int *out, __global const int *in) {
  int i = get_global_id(0);
  int x = in[i];
  int r;
  if (x & 1)
    r = min(x, 7);
  else
    r = mul_hi(x, 12345);
  out[i] = r;
}

// Conversions, saturating and common built-ins (ocl_builtins_extra) are
// lane-local too: lane_local_size asks the lowering itself, and what they
// lower to (llvm.sadd.sat, llvm.fptosi.sat) is speculatable to LLVM.
__kernel void extras(__global int *out, __global const float *in) {
  int i = get_global_id(0);
  float x = in[i];
  int n = (int)(x * 100.0f);
  int r;
  if (n & 1)
    r = add_sat(n, 7);
  else
    r = convert_int_sat(x);
  float s;
  if (x < 0.25f)
    s = degrees(x);
  else
    s = radians(x);
  out[i] = r + (int)(s * 64.0f);
}
