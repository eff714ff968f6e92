// Particle-filter weight normalisation: work-item 0 of each group adds up the
// partial sums of the previous reduction into a __local total, a barrier,
// then every work-item divides its weight by it.
// Launch: global (n), local (256). Args: w (f32 n, in place), partial (f32
// nparts), nparts, n (i32).
__kernel void particle_norm(__global float *w, __global const float *partial,
                            int nparts, int n) {
  __local float total;
  if (get_local_id(0) == 0) {
    float s = 0.0f;
    for (int k = 0; k < nparts; ++k)
      s += partial[k];
    total = s;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  int i = get_global_id(0);
  if (i < n)
    w[i] /= total;
}
