// An image helper no kernel calls (pocl builds it; simt must ignore it),
// beside a kernel that uses no image.
float4 sample(read_only image2d_t img, sampler_t s, int2 at) {
  return read_imagef(img, s, at);
}

kernel void scale(global float *x, float a) {
  size_t i = get_global_id(0);
  x[i] = a * x[i];
}
