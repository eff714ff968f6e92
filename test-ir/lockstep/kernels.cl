// Grid-stride loops for simt-lockstep-loops (lockstep.test): each kernel
// runs on the host (lockstep form) against the emulator (original form).

// The common case: a private sum over a grid-stride loop.
__kernel void grid_sum(__global const float *in, __global float *out, uint n) {
  float sum = 0.0f;
  for (uint i = get_global_id(0); i < n; i += get_global_size(0))
    sum += in[i];
  out[get_global_id(0)] = sum;
}

// A step from an argument; with n + st > 2^32 the counter wraps and the
// original loop goes on: only the fallback is exact there.
__kernel void wrap_count(__global uint *count, __global uint *hash, uint n, uint st) {
  uint c = 0, h = 0;
  for (uint i = get_global_id(0); i < n; i += st) {
    c++;
    h ^= i * 2654435761u;
  }
  count[get_global_id(0)] = c;
  hash[get_global_id(0)] = h;
}

// Signed, starting below zero for the first work-items.
__kernel void signed_start(__global int *out, int n, int st) {
  int acc = 0;
  for (int i = (int)get_global_id(0) - 37; i < n; i += st)
    acc += i;
  out[get_global_id(0)] = acc;
}

// Start affine in two local ids (16 per row), and the counter's last value
// read after the loop (an exit value that is no carried value).
__kernel void two_d(__global const uint *in, __global uint *out, uint n) {
  uint i, s = 0;
  uint id = get_local_id(1) * 16 + get_global_id(0) * 2;
  for (i = id; i < n; i += 4096)
    s += in[i];
  out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = s + i;
}

// Not taken: the loop sits under a divergent branch (a barrier there would
// not be reached by all work-items).
__kernel void divergent_guard(__global const float *in, __global float *out, uint n) {
  float sum = 0.0f;
  if (get_local_id(0) < 3)
    for (uint i = get_global_id(0); i < n; i += get_global_size(0))
      sum += in[i];
  out[get_global_id(0)] = sum;
}

// Starts from an offset, which can make the starts of one work-group wrap
// (0xFFFFFFF8 + lid): the least start is then not work-item 0's.
__kernel void offset_start(__global uint *out, uint n, uint off) {
  uint acc = 0;
  for (uint i = get_global_id(0) + off; i < n; i += 64)
    acc += i * 3 + 1;
  out[get_global_id(0)] = acc;
}
