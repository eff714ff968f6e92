// Barriers inside helpers clang does not inline (pocl's
// test_flatten_barrier_subs, reduced): the launcher must inline them. `my_id`
// uses a work-item builtin and only the other kernel calls it: launching
// `sums` must not need it.
__attribute__((noinline)) int group_sum(local int *shmem, int v) {
  size_t lid = get_local_id(0);
  size_t n = get_local_size(0);
  shmem[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = n / 2; s > 0; s >>= 1) {
    if (lid < s)
      shmem[lid] += shmem[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  int r = shmem[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return r;
}

// Reaches a barrier only through group_sum.
__attribute__((noinline)) int group_sum_plus(local int *shmem, int v, int k) {
  return group_sum(shmem, v) + k;
}

__attribute__((noinline)) int my_id(void) { return (int)get_local_id(0); }

kernel void sums(global const int *in, global int *out, local int *shmem) {
  size_t g = get_global_id(0);
  int s = group_sum(shmem, in[g]);
  out[g] = group_sum_plus(shmem, s - in[g], 7);
}

kernel void ids(global int *out) { out[get_global_id(0)] = my_id(); }
