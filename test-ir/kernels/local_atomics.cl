// Every OpenCL atomic on __local memory, used so that the results do not
// depend on the order in which work-items run: each work-group folds its
// inputs into counters in local memory, then work-item 0 writes them out.
// atomic_inc's old values are tickets 0..L-1: each work-item marks its
// ticket, so every slot of a group's range is marked exactly once. The
// cmpxchg counter is an add done as a compare-and-swap loop, as OpenCL 1.2
// code adds floats.
// Launch: 1-D, local = L (any), global = groups * L. Args: in (buf i32
// global), out (buf i32 groups * 13), tickets (buf i32 global, zero-filled).
__kernel void local_atomics(__global const int *in, __global int *out,
                            __global int *tickets) {
  __local int c[11];
  __local uint u[2];
  uint lid = get_local_id(0);
  uint group = get_group_id(0);
  uint size = get_local_size(0);
  if (lid == 0) {
    c[0] = 0;          // add
    c[1] = 0;          // sub
    c[2] = 0x7fffffff; // min
    c[3] = -0x7fffffff - 1; // max
    c[4] = -1;         // and
    c[5] = 0;          // or
    c[6] = 0;          // xor
    c[7] = 0;          // inc (tickets)
    c[8] = 0;          // dec
    c[9] = 0;          // cmpxchg loop add
    c[10] = 0;         // xchg
    u[0] = 0xffffffffu; // umin
    u[1] = 0;          // umax
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  int x = in[get_global_id(0)];
  atomic_add(&c[0], x);
  atomic_sub(&c[1], x);
  atomic_min(&c[2], x);
  atomic_max(&c[3], x);
  atomic_and(&c[4], x | 0x00ff00ff);
  atomic_or(&c[5], x & 0x0f0f0f0f);
  atomic_xor(&c[6], x);
  tickets[group * size + atomic_inc(&c[7])] += 1;
  atomic_dec(&c[8]);
  int old;
  do {
    old = c[9];
  } while (atomic_cmpxchg(&c[9], old, old + (x >> 8)) != old);
  atomic_xchg(&c[10], 7);
  atomic_min(&u[0], (uint)x);
  atomic_max(&u[1], (uint)x);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    for (int k = 0; k < 11; k++)
      out[group * 13 + k] = c[k];
    out[group * 13 + 11] = (int)u[0];
    out[group * 13 + 12] = (int)u[1];
  }
}
