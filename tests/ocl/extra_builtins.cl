// The built-ins of passes/src/transform/ocl_builtins_extra.rs, one value
// each per work-item, for tests/ocl_builtins_exec.rs (which computes the
// expected values itself). Work-item i reads f[i], x[i], y[i].
__kernel void extra(__global const float *f, __global const int *x, __global const int *y,
                    __global int *oi, __global float *of, __global uchar *ou, __global uint *ouu) {
  int i = get_global_id(0);
  float v = f[i];
  int a = x[i], b = y[i];
  __global int *r = oi + i * 24;
  r[0] = convert_int_sat(v);
  r[1] = convert_int_sat_rte(v);
  r[2] = convert_int_sat_rtp(v);
  r[3] = convert_int_sat_rtn(v);
  r[4] = add_sat(a, b);
  r[5] = sub_sat(a, b);
  r[6] = hadd(a, b);
  r[7] = rhadd(a, b);
  r[8] = (int)abs_diff(a, b);
  r[9] = isnan(v);
  r[10] = isinf(v);
  r[11] = isfinite(v);
  r[12] = isnormal(v);
  r[13] = signbit(v);
  r[14] = isgreater(v, 0.5f);
  r[15] = islessgreater(v, 0.5f);
  r[16] = upsample((short)a, (ushort)b);
  r[17] = mad_hi(a, b, 7);
  r[18] = convert_char_sat(a);
  r[19] = convert_short_sat(v);
  int4 c4 = isless(vload4(0, f + (i & ~3)), (float4)(0.5f));
  vstore4(c4, 0, r + 20);
  ou[i] = convert_uchar_sat(a);
  ouu[i * 2] = add_sat((uint)a, (uint)b);
  ouu[i * 2 + 1] = convert_uint_sat(v);
  __global float *o = of + i * 8;
  float w = fabs(v) < 1e30f ? v : 1.25f;  // finite for the float forms
  o[0] = mix(w, 2.0f, 0.25f);
  o[1] = step(0.5f, w);
  o[2] = smoothstep(0.0f, 4.0f, w);
  o[3] = sign(v);
  o[4] = radians(w);
  o[5] = degrees(w);
  float4 p = (float4)(w, 1.0f, -2.0f, 0.5f);
  float4 q = (float4)(0.5f, w, 3.0f, -1.0f);
  o[6] = dot(p, q);
  o[7] = select(w, -w, (int)(a & 1));
}
