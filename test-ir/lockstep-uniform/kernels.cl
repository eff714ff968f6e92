// Loops of a work-group-uniform trip count, for simt-lockstep-loops<uniform=…>
// (passes/src/transform/lockstep_uniform.rs). Written here; see uniform.test.

// Taken: a bounds check (divergent), then the loop's own uniform guard
// (k < nk), A[i*nk+k] uniform and B[k*nj+j] consecutive across x.
__kernel void gemm(__global const float *A, __global const float *B,
                   __global float *C, int ni, int nj, int nk) {
  int j = get_global_id(0), i = get_global_id(1);
  if (i >= ni || j >= nj)
    return;
  float s = 0.0f;
  for (int k = 0; k < nk; ++k)
    s += A[i * nk + k] * B[k * nj + j];
  C[i * nj + j] = s;
}

// Taken: the guard and the loop test merged by clang (j < n && n > 0), a
// load before the loop, a store in it, the counter's last value used after.
__kernel void col_update(__global const float *A, __global const float *y,
                         __global float *x, __global int *last, int n,
                         int st) {
  int j = get_global_id(0);
  int k = 0;
  if (j < n) {
    for (k = 0; k < n; k += st)
      x[j] += A[k * n + j] * y[k];
    last[j] = k;
  }
}

// Taken: every work-item reaches the loop (no divergent branch), an
// unsigned counter from a uniform start and step.
__kernel void all_reach(__global const uint *in, __global uint *out, uint lo,
                        uint hi, uint st) {
  uint g = get_global_id(0);
  uint h = 2166136261u;
  for (uint k = lo; k < hi; k += st)
    h = (h ^ in[(k % 61u) * 64u + g]) * 16777619u;
  out[g] = h;
}

// A row walk: A[i*n + k] is n floats apart across x. Left alone by the
// default rule; taken (and still exact) with uniform=any.
__kernel void row_walk(__global const float *A, __global const float *x,
                       __global float *out, int m, int n) {
  int i = get_global_id(0);
  if (i < m) {
    float s = 0.0f;
    for (int k = 0; k < n; ++k)
      s += A[i * n + k] * x[k];
    out[i] = s;
  }
}

// Never taken: the bound differs between work-items.
__kernel void own_bound(__global const float *in, __global float *out, int n) {
  int j = get_global_id(0);
  float s = 0.0f;
  for (int k = 0; k < (j & 7) + n; ++k)
    s += in[k * 64 + j];
  out[j] = s;
}

// Never taken: two divergent branches control the loop (work-items that
// leave at the first could not be told from those that leave at the second
// without a second flag).
__kernel void nested_guard(__global const float *in, __global float *out,
                           int n, int m) {
  int j = get_global_id(0);
  float s = 0.0f;
  if (j < n) {
    out[j] = 1.0f;
    if (in[j] < 0.5f) {
      for (int k = 0; k < m; ++k)
        s += in[k * 64 + j];
      out[j] = s;
    }
  }
}

// Never taken: the loop holds a barrier already.
__kernel void has_barrier(__global const float *in, __global float *out,
                          __local float *tile, int n) {
  int l = get_local_id(0), j = get_global_id(0);
  float s = 0.0f;
  for (int k = 0; k < n; ++k) {
    tile[l] = in[k * 64 + j];
    barrier(CLK_LOCAL_MEM_FENCE);
    s += tile[(l + 1) % 16];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[j] = s;
}

// A triangle (j1 <= j2 compares two ids): whole work-groups would step
// through the loop with nothing to do. Left alone by the default rule;
// taken (and exact) with uniform=any.
__kernel void triangle(__global const float *d, __global float *out, int m,
                       int n) {
  int j2 = get_global_id(0), j1 = get_global_id(1);
  if (j1 <= j2 && j2 < n) {
    float s = 0.0f;
    for (int i = 0; i < m; ++i)
      s += d[i * n + j1] * d[i * n + j2];
    out[j1 * n + j2] = s;
  }
}
