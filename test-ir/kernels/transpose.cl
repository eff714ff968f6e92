// Matrix transpose through a padded __local tile (16 x 17 floats, so that the
// column reads do not hit one bank): 2-D launch, one barrier, work-items
// write elements other work-items read.
// Launch: 2-D, global = (width, height) rounded up to multiples of 16,
// local = (16, 16) (the tile size). Args: in (buf f32 width*height, row-major,
// height rows), out (buf f32 height*width: out[x][y] = in[y][x]), width, height (i32).
#define TILE 16

__kernel void transpose(__global const float *in, __global float *out,
                        int width, int height) {
  __local float tile[TILE][TILE + 1];
  int tx = get_local_id(0), ty = get_local_id(1);
  int x = get_group_id(0) * TILE + tx;
  int y = get_group_id(1) * TILE + ty;
  if (x < width && y < height)
    tile[ty][tx] = in[y * width + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  // The block at (bx, by) of `in` goes to (by, bx) of `out`.
  x = get_group_id(1) * TILE + tx;
  y = get_group_id(0) * TILE + ty;
  if (x < height && y < width)
    out[y * height + x] = tile[tx][ty];
}
