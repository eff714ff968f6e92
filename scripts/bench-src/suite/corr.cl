// Correlation matrix from data, column means and standard deviations: one
// work-item per column j1, a loop over j2 > j1 and, inside, over the rows;
// the diagonal is 1. Launch: global (N), local (64).
// Args: data (f32 M x N), mean, stddev (f32 N), corr (f32 N x N), M, N (i32).
__kernel void corr(__global const float *data, __global const float *mean,
                   __global const float *stddev, __global float *corr, int m,
                   int n) {
  int j1 = get_global_id(0);
  if (j1 >= n)
    return;
  corr[j1 * n + j1] = 1.0f;
  for (int j2 = j1 + 1; j2 < n; ++j2) {
    float s = 0.0f;
    for (int i = 0; i < m; ++i)
      s += (data[i * n + j1] - mean[j1]) * (data[i * n + j2] - mean[j2]);
    s /= (float)m * (stddev[j1] + 0.5f) * (stddev[j2] + 0.5f);
    corr[j1 * n + j2] = s;
    corr[j2 * n + j1] = s;
  }
}
