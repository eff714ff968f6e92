// FDTD-2D, the H_z update of one time step from E_x and E_y.
// Launch: global (NY, NX), local (32, 8). Args: ex, ey, hz (f32 NX*NY), NX,
// NY (i32).
__kernel void fdtd_hz(__global const float *ex, __global const float *ey,
                      __global float *hz, int nx, int ny) {
  int j = get_global_id(0), i = get_global_id(1);
  if (i < nx - 1 && j < ny - 1)
    hz[i * ny + j] -= 0.7f * (ex[i * ny + j + 1] - ex[i * ny + j] +
                              ey[(i + 1) * ny + j] - ey[i * ny + j]);
}
