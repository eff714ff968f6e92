// Each work-item writes, at its place from the launch's start, its global id
// as an `int` plus c (0 in the tests), widened to `long`: negative where the
// id is 2^31 or more (the `int` wrapped).
__kernel void id_wrap(__global long *wide, long off, int c) {
  int x = get_global_id(0);
  wide[get_global_id(0) - off] = x + c;
}
