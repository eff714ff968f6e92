// FDTD-2D, the E_y update of one time step: row 0 takes the source value
// fict[t], the others ey -= 0.5 (hz[i][j] - hz[i-1][j]).
// Launch: global (NY, NX), local (32, 8). Args: fict (f32), ey, hz (f32 NX*NY),
// NX, NY, t (i32).
__kernel void fdtd_ey(__global const float *fict, __global float *ey,
                      __global const float *hz, int nx, int ny, int t) {
  int j = get_global_id(0), i = get_global_id(1);
  if (i < nx && j < ny) {
    if (i == 0)
      ey[j] = fict[t];
    else
      ey[i * ny + j] = ey[i * ny + j] - 0.5f * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
  }
}
