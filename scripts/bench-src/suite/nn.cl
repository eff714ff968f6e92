// Nearest-neighbour search, distance step: the Euclidean distance of every
// record (lat, lng as a float2) to a target point.
// Launch: global (n), local (256). Args: rec (f32 2n, read as float2), dist
// (f32 n), n (i32), lat, lng (f32).
__kernel void nn(__global const float2 *rec, __global float *dist, int n,
                 float lat, float lng) {
  int i = get_global_id(0);
  if (i < n) {
    float2 r = rec[i];
    dist[i] = sqrt((lat - r.x) * (lat - r.x) + (lng - r.y) * (lng - r.y));
  }
}
