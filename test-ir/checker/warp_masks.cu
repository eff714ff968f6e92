// Warp functions whose member mask breaks CUDA's rules (one kernel per
// rule), and one that follows them with partial masks. Launched as one
// block of 32 threads: one warp, lane = threadIdx.x.

// Lanes 16-31 call the shuffle with a mask that leaves them out.
extern "C" __global__ void not_in_mask(int *out) {
  int lane = threadIdx.x;
  int v = __shfl_sync(0x0000ffffu, lane * 10, 0);
  out[lane] = v;
}

// Lanes 0-15 shuffle with the full mask while lanes 16-31 wait at the
// store below: they have not exited and do not take part.
extern "C" __global__ void diverged(int *out) {
  int lane = threadIdx.x;
  int v = lane;
  if (lane < 16)
    v = __shfl_xor_sync(0xffffffffu, v, 1);
  out[lane] = v;
}

// Lanes 0-7 vote with mask 0xff, the others with the full mask, which
// names lanes 0-7.
extern "C" __global__ void other_mask(int *out) {
  int lane = threadIdx.x;
  unsigned m = lane < 8 ? 0xffu : 0xffffffffu;
  out[lane] = (int)__ballot_sync(m, lane & 1);
}

// Lane 15 reads lane 16 (delta 1, whole-warp segment), which the mask
// 0xffff leaves out.
extern "C" __global__ void source_outside(int *out) {
  int lane = threadIdx.x;
  int v = lane;
  if (lane < 16)
    v = __shfl_down_sync(0x0000ffffu, v, 1);
  out[lane] = v;
}

// Odd lanes wait at __syncwarp for even lanes that never call it.
extern "C" __global__ void syncwarp_odd(int *out) {
  int lane = threadIdx.x;
  if (lane & 1)
    __syncwarp();
  out[lane] = lane;
}

// The same functions, masks right: a 16-lane segment (lane 15 would read
// past its segment, so keeps its own value); a mask from a ballot of the
// lanes that take the branch; two 16-lane tiles, each with its own mask,
// in one call. out[lane] holds what each lane computes (checked by
// tests/checker.rs).
extern "C" __global__ void masks_ok(int *out) {
  int lane = threadIdx.x;
  int v = lane;
  if (lane < 16)
    v = __shfl_down_sync(0x0000ffffu, v, 1, 16);
  v = __shfl_sync(0xffffffffu, v, 3) + v;
  unsigned m = __ballot_sync(0xffffffffu, lane % 3 == 0);
  if (lane % 3 == 0) {
    v += __shfl_sync(m, lane, 3);
    __syncwarp(m);
  }
  unsigned tile = 0xffffu << (lane & 16);
  v += __reduce_add_sync(tile, 1) * 100 + __shfl_xor_sync(tile, lane, 8, 16) * 1000;
  out[lane] = v;
}

// Lanes at or past n return; the others name them in full masks (exited
// threads are allowed) and read only lanes below n.
extern "C" __global__ void returned_ok(int *out, int n) {
  int lane = threadIdx.x;
  if (lane >= n)
    return;
  int v = __shfl_sync(0xffffffffu, lane * 10, n - 1);
  int any = __any_sync(0xffffffffu, lane == 2);
  __syncwarp();
  out[lane] = v + any;
}
