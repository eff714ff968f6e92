// Kernels with per-work-item branches for the host measurement of
// simt-ifconvert (issue 10, BENCHMARKS.md "If-conversion … Host").
// Launch: 1-D, global = n (a multiple of local), any local size.

// Piecewise by a switch on a key: one case reads a second buffer.
__kernel void piecewise_switch(__global const int *key, __global const float *x,
                               __global const float *tab, __global float *out, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  float v = x[i], y;
  switch (key[i] & 3) {
  case 0: y = 2.0f * v + 1.0f; break;
  case 1: y = tab[i] - v; break;
  case 2: y = v * v; break;
  default: y = -v; break;
  }
  out[i] = y;
}

// Clamp to a per-element range read only where it is needed.
__kernel void clamp_lookup(__global const float *x, __global const float *lo,
                           __global const float *hi, __global float *out, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  float v = x[i];
  if (v < 0.25f) v = lo[i];
  else if (v > 0.75f) v = hi[i];
  out[i] = v;
}

// Threshold: elements above t are scaled in place, the others left alone.
__kernel void threshold(__global float *x, float t, float s, int n) {
  int i = get_global_id(0);
  if (i < n && x[i] > t) x[i] = x[i] * s;
}

// One step of a bitonic sort: item i with partner i ^ 1 orders the pair
// ascending where bit 1 of i is 0, descending elsewhere.
__kernel void bitonic_cx(__global const int *in, __global int *out) {
  int i = get_global_id(0);
  int j = i ^ 1;
  if (i < j) {
    int a = in[i], b = in[j];
    if ((a > b) == ((i & 2) == 0)) {
      out[i] = b;
      out[j] = a;
    } else {
      out[i] = a;
      out[j] = b;
    }
  }
}
