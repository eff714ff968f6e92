// Finite-volume flux on an unstructured mesh: each cell gathers its four
// neighbours through an index array (neighbour k of cell i at nb[k*n + i], -1
// at the boundary, which takes a fixed far-field value) and sums a Burgers-
// type face flux weighted by the face area.
// Launch: global (n), local (128). Args: nb (i32 4n), area (f32 4n), u (f32
// n), flux (f32 n), n (i32).
__kernel void flux(__global const int *nb, __global const float *area,
                   __global const float *u, __global float *flux, int n) {
  int i = get_global_id(0);
  if (i >= n)
    return;
  float ui = u[i], f = 0.0f;
  for (int k = 0; k < 4; ++k) {
    int j = nb[k * n + i];
    float uj = j >= 0 ? u[j] : 0.5f;
    f += area[k * n + i] * (0.25f * (uj * uj - ui * ui) - 0.1f * (uj - ui));
  }
  flux[i] = f;
}
