// Kernels that reach outside their arguments when `shift` says so, for
// tests/guard_regions.rs: with shift 0 every access is in bounds (out = 2 * in + 1),
// with shift s work-item i touches element i + s of the shifted argument.
// Launch: 1-D, global = elements of `in` and `out` (e.g. 1000), local = 100 (or any divisor).

// Reads past `in`: out[i] = 2 * in[i + shift] + 1.
__kernel void read_shifted(__global const float *in, __global float *out, int shift) {
  int i = get_global_id(0);
  out[i] = 2.0f * in[i + shift] + 1.0f;
}

// Writes past `out`: out[i + shift] = 2 * in[i] + 1.
__kernel void write_shifted(__global const float *in, __global float *out, int shift) {
  int i = get_global_id(0);
  out[i + shift] = 2.0f * in[i] + 1.0f;
}

// Writes past the __local argument `tmp` (local:f32:LOCAL_SIZE):
// tmp[lid + shift] = in[i]; barrier; out[i] = 2 * tmp[lid] + 1.
__kernel void local_shifted(__global const float *in, __global float *out, __local float *tmp, int shift) {
  int i = get_global_id(0);
  int lid = get_local_id(0);
  tmp[lid + shift] = in[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[i] = 2.0f * tmp[lid] + 1.0f;
}
