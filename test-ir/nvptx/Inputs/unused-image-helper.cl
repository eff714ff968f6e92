// An image helper no kernel calls: it must not stop simt-to-nvptx.
__constant sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
float unused(read_only image2d_t im, int x) { return read_imagef(im, smp, (int2)(x, 0)).x; }
kernel void plain(global float *out) { out[get_global_id(0)] = 1.0f; }
