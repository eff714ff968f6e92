// k-means assignment: each point (features stored feature-major, f*n + i)
// takes the index of the nearest of k centres (squared distance, first on
// ties). Launch: global (n), local (256). Args: feat (f32 nf*n), centres (f32
// k*nf), member (i32 n), n, k, nf (i32).
__kernel void kmeans(__global const float *feat, __global const float *centres,
                     __global int *member, int n, int k, int nf) {
  int i = get_global_id(0);
  if (i >= n)
    return;
  int best = 0;
  float bestd = FLT_MAX;
  for (int c = 0; c < k; ++c) {
    float d = 0.0f;
    for (int f = 0; f < nf; ++f) {
      float t = feat[f * n + i] - centres[c * nf + f];
      d += t * t;
    }
    if (d < bestd) {
      bestd = d;
      best = c;
    }
  }
  member[i] = best;
}
