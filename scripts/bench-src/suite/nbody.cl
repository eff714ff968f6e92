// All-pairs n-body accelerations with softening: each work-item holds one
// body; the bodies pass through a __local tile of local_size at a time, two
// barriers per tile. Launch: global (n), local (256); n % 256 == 0.
// Args: pos (f32 4n, read as float4: x y z mass), acc (f32 4n), n (i32), eps2
// (f32).
__kernel void nbody(__global const float4 *pos, __global float4 *acc, int n,
                    float eps2) {
  __local float4 tile[256];
  int lid = get_local_id(0), ls = get_local_size(0);
  float4 p = pos[get_global_id(0)];
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int t = 0; t < n; t += ls) {
    tile[lid] = pos[t + lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < ls; ++k) {
      float4 q = tile[k];
      float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
      float d2 = dx * dx + dy * dy + dz * dz + eps2;
      float inv = 1.0f / sqrt(d2);
      float s = q.w * inv * inv * inv;
      ax += dx * s;
      ay += dy * s;
      az += dz * s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  acc[get_global_id(0)] = (float4)(ax, ay, az, 0.0f);
}
