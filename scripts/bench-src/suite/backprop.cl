// Forward pass of a fully connected layer, partial sums: a 16x16 work-group
// takes 256 inputs (staged in __local memory) against 16 hidden units; work-
// item (j, r) sums inputs r, r+16, ... of the chunk times their weights to
// unit j, then a tree reduction over r (`for (s = get_local_size(1)/2; ...)`)
// leaves one partial sum per (chunk, unit).
// Launch: global (n_hid, n_in/16), local (16, 16). Args: in (f32 n_in), w (f32
// n_in*n_hid, row i = input i), partial (f32 n_in/256 * n_hid), n_hid (i32).
__kernel void backprop(__global const float *in, __global const float *w,
                       __global float *partial, int n_hid) {
  __local float xin[256];
  __local float acc[16][16];
  int j = get_local_id(0), r = get_local_id(1);
  int hid = get_global_id(0);
  int base = get_group_id(1) * 256;
  xin[r * 16 + j] = in[base + r * 16 + j];
  barrier(CLK_LOCAL_MEM_FENCE);
  float s = 0.0f;
  for (int i = r; i < 256; i += 16)
    s += w[(base + i) * n_hid + hid] * xin[i];
  acc[r][j] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int st = get_local_size(1) / 2; st > 0; st /= 2) {
    if (r < st)
      acc[r][j] += acc[r + st][j];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (r == 0)
    partial[get_group_id(1) * n_hid + hid] = acc[0][j];
}
