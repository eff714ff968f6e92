// -O2 turns the product of two such terms into llvm.vector.reduce.mul.v2i32
// (SLP); found by the kernel fuzzer (tests/cl_fuzz.rs, seed 1 of an early run).
__kernel void k(__global uint *out, __global const uint *in) {
  uint g = get_global_id(0);
  uint a = in[g] ^ 5u, b = in[g + 32] ^ 5u;
  out[g] = (uint)(((ulong)a * 2231626204ul) >> 17) * (uint)(((ulong)b * 2231626204ul) >> 17);
}
