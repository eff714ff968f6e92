// Divergent branches whose arms hold a uniform one (a kernel argument that
// switches a feature on), for partial linearisation (issue 26): measured by
// scripts/bench-ifconvert --partial. Written for this purpose, from the
// operations they name; `half` as in scripts/bench: clip_record and
// soft_threshold tune, outlier_fix and gated_residual report.

// Values above hi are folded back; with record, each clipped item is marked.
__kernel void clip_record(__global float *out, __global int *flags, __global const float *in, float hi, int record) {
  int i = get_global_id(0);
  float v = in[i];
  if (v > hi) {
    float over = v - hi;
    if (record)
      flags[i] = 1;
    v = hi - over * 0.5f;
  }
  out[i] = v;
}

// Soft thresholding: values past t shrink towards it; with keep, the
// original is saved beside.
__kernel void soft_threshold(__global float *out, __global float *saved, __global const float *in, float t, int keep) {
  int i = get_global_id(0);
  float v = in[i];
  float r = 0.0f;
  if (v > t) {
    if (keep)
      saved[i] = v;
    r = (v - t) * 0.75f;
  }
  out[i] = r;
}

// Integer outliers are replaced by the mean of their neighbours; with log,
// the replaced value is written to a side buffer.
__kernel void outlier_fix(__global int *out, __global int *side, __global const int *in, int limit, int log) {
  int i = get_global_id(0);
  int v = in[i];
  if (v > limit) {
    int l = in[i > 0 ? i - 1 : i];
    int m = (l + limit) / 2;
    if (log)
      side[i] = v;
    v = m + 1;
  }
  out[i] = v;
}

// A residual is added where the gate is open; with scale, it is scaled and
// the scaled value stored for the backward pass.
__kernel void gated_residual(__global float *out, __global float *cache, __global const float *x, __global const float *gate, float s, int scale) {
  int i = get_global_id(0);
  float g = gate[i];
  float v = x[i];
  if (g > 0.5f) {
    float r = v * g;
    if (scale) {
      r = r * s;
      cache[i] = r;
    }
    v = v + r * 0.5f;
  }
  out[i] = v;
}
