// Lennard-Jones forces over a neighbour list (column-major: neighbour k of
// atom i at neigh[k*n + i]), a cut-off test per pair.
// Launch: global (n), local (128). Args: pos (f32 4n, read as float4), neigh
// (i32 maxn*n), nneigh (i32 n), force (f32 4n), n (i32), cut2, lj1, lj2 (f32).
__kernel void lj_force(__global const float4 *pos, __global const int *neigh,
                       __global const int *nneigh, __global float4 *force,
                       int n, float cut2, float lj1, float lj2) {
  int i = get_global_id(0);
  if (i >= n)
    return;
  float4 p = pos[i];
  float fx = 0.0f, fy = 0.0f, fz = 0.0f;
  int m = nneigh[i];
  for (int k = 0; k < m; ++k) {
    float4 q = pos[neigh[k * n + i]];
    float dx = p.x - q.x, dy = p.y - q.y, dz = p.z - q.z;
    float r2 = dx * dx + dy * dy + dz * dz;
    if (r2 < cut2) {
      float r2i = 1.0f / r2;
      float r6i = r2i * r2i * r2i;
      float f = r2i * r6i * (lj1 * r6i - lj2);
      fx += dx * f;
      fy += dy * f;
      fz += dz * f;
    }
  }
  force[i] = (float4)(fx, fy, fz, 0.0f);
}
