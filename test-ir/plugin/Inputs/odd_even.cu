// A divergent if/else of arithmetic alone (odd and even values take different
// paths), too long for LLVM's simplifycfg to speculate: simt-ifconvert turns
// it into straight-line code with selects. The input of plugin/clang.test.
// Unsigned, so that no overflow is undefined.
// Args: in (buf u32 n), out (buf u32 n), n (i32).
extern "C" __global__ void odd_even(const unsigned *in, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  unsigned v = in[i];
  unsigned r;
  if (v & 1) {
    r = v * 3 + 1;
    r ^= r >> 3;
    r = r * 7 - v;
  } else {
    r = v / 3 - 7;
    r *= r;
    r += v << 2;
  }
  out[i] = r;
}
