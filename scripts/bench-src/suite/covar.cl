// Covariance of centred data (M rows of N variables): one work-item per
// column pair (j1, j2), j1 <= j2, summing over the rows; writes both halves
// of the symmetric result. Launch: global (N, N), local (16, 16).
// Args: data (f32 M x N), cov (f32 N x N), M, N (i32).
__kernel void covar(__global const float *data, __global float *cov, int m,
                    int n) {
  int j2 = get_global_id(0), j1 = get_global_id(1);
  if (j1 < n && j2 < n && j1 <= j2) {
    float s = 0.0f;
    for (int i = 0; i < m; ++i)
      s += data[i * n + j1] * data[i * n + j2];
    s /= (float)(m - 1);
    cov[j1 * n + j2] = s;
    cov[j2 * n + j1] = s;
  }
}
