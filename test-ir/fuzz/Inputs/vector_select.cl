// select() on a vector mask picks per element by the mask's most significant
// bit; on a scalar mask, by the mask being non-zero (OpenCL C 6.15.6). The
// masks include 2 (non-zero, sign bit clear) to tell the two rules apart.
__kernel void vsel(__global uint4 *out, __global uint *scalar) {
  int i = (int)get_global_id(0);
  uint4 a = (uint4)(1u, 2u, 3u, 4u), b = (uint4)(10u, 20u, 30u, 40u);
  int4 m = (int4)(i - 1, 2, 1 - i, (int)((uint)i << 31));
  out[i] = select(a, b, m);
  scalar[i] = select(5u, 6u, (uint)i * 2u);
}
