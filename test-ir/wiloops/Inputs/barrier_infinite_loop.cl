// pocl's regression test "infinite loop after barrier"
// (tests/regression/test_infinite_loop_with_barrier.cpp): the kernel never
// returns. It must compile; running it hangs on every engine, as on pocl.
kernel void test_kernel(global int *input, global int *output) {
  size_t lid = get_local_id(0);
  output[lid] = input[lid] + 1;
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  for (;;)
    ;
}
