// A state machine in a switch (CUDA): each thread runs `steps` steps of a
// four-state machine over its own stream of inputs; each state does its own
// work and picks the next state from the data. State 2 can stop the machine
// (`goto finish`, out of the loop), so the immediate post-dominator of the
// switch is the kernel's end, not the loop latch where the states meet
// again: a reconvergence stack runs the threads of each state apart for all
// the remaining steps (and splits them further at every step). Convergence
// checks at the latch (a join) merge them again every step.
// extern "C" keeps the kernel's name unmangled.
// Launch: 1-D, grid * block >= n, block = any (64, 128).
// Args: in (buf i32 n, values 0..999), out (buf i32 n), n (i32), steps (i32,
// e.g. 32).
extern "C" __global__ void state_machine(const int *in, int *out, int n, int steps) {
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (gid >= n)
    return;
  unsigned acc = (unsigned)in[gid];
  int state = (int)(acc & 3u);
  unsigned v;
  int k; // the locals at the top: no cleanup dispatch on `goto finish`
  for (k = 0; k < steps; ++k) {
    v = (unsigned)in[(gid + 3 * k) % n];
    switch (state) {
    case 0:
      acc = acc * 3u + v;
      acc ^= acc >> 5;
      state = (v & 1u) ? 1 : 2;
      break;
    case 1:
      acc ^= v << 3;
      acc = (acc << 7) | (acc >> 25);
      acc += 0x7f4a7c15u;
      state = (int)((acc >> 4) & 3u);
      break;
    case 2:
      acc += v * 7u;
      acc *= 0x85ebca6bu;
      if ((acc & 1023u) == 5u)
        goto finish;
      state = (v % 3u == 0u) ? 0 : 3;
      break;
    default:
      acc = acc - v;
      acc ^= acc >> 11;
      acc *= 0xc2b2ae35u;
      state = (int)(acc & 1u);
      break;
    }
  }
  out[gid] = (int)(acc & 0x7fffffffu);
  return;
finish:
  out[gid] = -k - 1;
}
