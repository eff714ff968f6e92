/* cmpbin TYPE GOT.bin WANT.bin [ATOL [RTOL]]: compares two raw little-endian
 * arrays element by element. Integers must be equal; floats may differ by
 * ATOL + RTOL * |want| (both 0 by default: bit-equal up to NaN payloads and
 * the sign of zero). Prints one line; exit 0 when they match, 1 otherwise.
 * Build: cc -O2 cmpbin.c -o cmpbin */
#include "common.h"
#include <math.h>

static void *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) die("cannot open %s: %s", path, strerror(errno));
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *p = malloc((size_t)n + 1);
  if (fread(p, 1, (size_t)n, f) != (size_t)n) die("cannot read %s", path);
  fclose(f);
  *len = (size_t)n;
  return p;
}

static double get(const void *p, enum ty t, size_t i) {
  switch (t) {
  case T_I8: return ((const int8_t *)p)[i];
  case T_I16: return ((const int16_t *)p)[i];
  case T_I32: return ((const int32_t *)p)[i];
  case T_I64: return (double)((const int64_t *)p)[i];
  case T_U8: return ((const uint8_t *)p)[i];
  case T_U16: return ((const uint16_t *)p)[i];
  case T_U32: return ((const uint32_t *)p)[i];
  case T_U64: return (double)((const uint64_t *)p)[i];
  case T_F32: return ((const float *)p)[i];
  case T_F64: return ((const double *)p)[i];
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 4) die("usage: cmpbin TYPE GOT.bin WANT.bin [ATOL [RTOL]]");
  enum ty t = parse_ty(argv[1], strlen(argv[1]));
  double atol = argc > 4 ? strtod(argv[4], NULL) : 0, rtol = argc > 5 ? strtod(argv[5], NULL) : 0;
  size_t la, lb;
  const void *a = slurp(argv[2], &la), *b = slurp(argv[3], &lb);
  size_t sz = ty_sizes[t];
  if (la != lb || la % sz) {
    printf("size mismatch: %s has %zu bytes, %s %zu\n", argv[2], la, argv[3], lb);
    return 1;
  }
  size_t n = la / sz, bad = 0, first = 0;
  double max_err = 0;
  for (size_t i = 0; i < n; ++i) {
    int ok;
    if (is_float(t)) {
      double x = get(a, t, i), y = get(b, t, i);
      double err = fabs(x - y);
      ok = (isnan(x) && isnan(y)) || x == y || err <= atol + rtol * fabs(y);
      if (!isnan(err) && err > max_err) max_err = err;
    } else {
      ok = memcmp((const char *)a + i * sz, (const char *)b + i * sz, sz) == 0;
    }
    if (!ok && bad++ == 0) first = i;
  }
  if (bad) {
    printf("MISMATCH: %zu of %zu %s elements differ; first [%zu]: got %.9g, want %.9g (max abs err %.3g, atol %.3g, rtol %.3g)\n",
           bad, n, ty_names[t], first, get(a, t, first), get(b, t, first), max_err, atol, rtol);
    return 1;
  }
  if (is_float(t))
    printf("ok: %zu %s elements, max abs err %.3g (atol %.3g, rtol %.3g)\n", n, ty_names[t], max_err, atol, rtol);
  else
    printf("ok: %zu %s elements, equal\n", n, ty_names[t]);
  return 0;
}
