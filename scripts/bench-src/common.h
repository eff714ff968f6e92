/* The launch description shared by the pocl host program (pocl_host.c) and
 * the native OpenMP kernels (native/NAME.c): the same command line as simt-run,
 *
 *   --kernel NAME --global X[,Y,Z] --local X[,Y,Z] --arg SPEC ... \
 *   [--repeat R] [--dump DIR] [--dump-in DIR] [--stats json]
 *
 * SPEC, one per kernel parameter in order:
 *   buf:TYPE:COUNT[=FILL]  a buffer; FILL = zero | ramp | const:V | rand:SEED |
 *                          file:PATH (raw little-endian); default zero
 *   TYPE:VALUE             a scalar
 *   local:TYPE:COUNT       a __local pointer argument (COUNT elements)
 * TYPE = i8 i16 i32 i64 u8 u16 u32 u64 f32 f64.
 *
 * rand:SEED is simt-run's: splitmix64 seeded with SEED, one 64-bit draw r per
 * element; f32 = (r >> 40) / 2^24 and f64 = (r >> 11) / 2^53, uniform in
 * [0, 1); integers r % 1000 (i8: r % 128, u8: r % 256). So all engines see the
 * same inputs; --dump-in saves them for file: fills all the same.
 *
 * Every run starts from the initial buffer contents (restored, untimed), so
 * in/out buffers (saxpy's y, histogram's hist) hold the result of one launch
 * whatever --repeat is. --dump DIR writes buffer argument N after the last run
 * to DIR/argN.bin; --dump-in DIR writes the initial contents the same way.
 * Timing: one warm-up launch, then R timed; best and median in ms.
 */
#ifndef SIMT_BENCH_COMMON_H
#define SIMT_BENCH_COMMON_H

#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

enum ty { T_I8, T_I16, T_I32, T_I64, T_U8, T_U16, T_U32, T_U64, T_F32, T_F64 };
static const char *const ty_names[] = {"i8", "i16", "i32", "i64", "u8",
                                       "u16", "u32", "u64", "f32", "f64"};
static const size_t ty_sizes[] = {1, 2, 4, 8, 1, 2, 4, 8, 4, 8};

enum arg_kind { A_BUF, A_SCALAR, A_LOCAL };

struct arg {
  enum arg_kind kind;
  enum ty ty;
  size_t count;   /* elements, for buffers and local arguments */
  void *data;     /* buffer contents, or the scalar's bytes (8 bytes) */
  void *initial;  /* buffers: contents before the first run */
  union { int64_t i; uint64_t u; double f; } scalar;
};

#define MAX_ARGS 32
struct launch {
  const char *source; /* pocl: the .cl file */
  const char *kernel;
  size_t global[3], local[3];
  unsigned dims;
  int nargs;
  struct arg args[MAX_ARGS];
  int repeat;
  const char *dump_dir, *dump_in_dir, *stats;
};

static inline void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "error: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(1);
}

static inline enum ty parse_ty(const char *s, size_t len) {
  for (int t = 0; t <= T_F64; ++t)
    if (strlen(ty_names[t]) == len && strncmp(s, ty_names[t], len) == 0)
      return (enum ty)t;
  die("unknown type '%.*s'", (int)len, s);
  return T_I8;
}

static inline int is_float(enum ty t) { return t == T_F32 || t == T_F64; }
static inline int is_signed(enum ty t) { return t <= T_I64; }

/* splitmix64's output function: state -> draw (Steele, Lea, Flood 2014). */
static inline uint64_t splitmix64_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Store v (as the double d for floats, the integer i otherwise) in element idx. */
static inline void store_elem(void *p, enum ty t, size_t idx, int64_t i, double d) {
  switch (t) {
  case T_I8: case T_U8: ((uint8_t *)p)[idx] = (uint8_t)i; break;
  case T_I16: case T_U16: ((uint16_t *)p)[idx] = (uint16_t)i; break;
  case T_I32: case T_U32: ((uint32_t *)p)[idx] = (uint32_t)i; break;
  case T_I64: case T_U64: ((uint64_t *)p)[idx] = (uint64_t)i; break;
  case T_F32: ((float *)p)[idx] = (float)d; break;
  case T_F64: ((double *)p)[idx] = d; break;
  }
}

/* Buffers of 2 MiB or more are 2 MiB-aligned and asked for transparent huge
 * pages, as simt-run's are (src/engine/guard.rs): under THP's `madvise` setting a
 * plain allocation gets 4 KiB pages, and a kernel that strides across a big
 * buffer (transpose's writes) then spends its time in TLB misses. So native C
 * is measured with the same pages as simt; pocl allocates its own buffers. */
#define HUGE_PAGE ((size_t)2 << 20)
static inline void *alloc_buffer(size_t bytes) {
  size_t align = bytes >= HUGE_PAGE ? HUGE_PAGE : 64;
  void *p = aligned_alloc(align, bytes ? (bytes + align - 1) / align * align : align);
  if (!p) die("out of memory (%zu bytes)", bytes);
#ifdef MADV_HUGEPAGE
  if (align == HUGE_PAGE) madvise(p, (bytes + align - 1) / align * align, MADV_HUGEPAGE);
#endif
  return p;
}

static inline void fill(struct arg *a, const char *spec) {
  size_t bytes = a->count * ty_sizes[a->ty];
  a->data = alloc_buffer(bytes);
  if (!spec || strcmp(spec, "zero") == 0) {
    memset(a->data, 0, bytes);
  } else if (strcmp(spec, "ramp") == 0) {
    for (size_t i = 0; i < a->count; ++i) store_elem(a->data, a->ty, i, (int64_t)i, (double)i);
  } else if (strncmp(spec, "const:", 6) == 0) {
    double d = strtod(spec + 6, NULL);
    int64_t v = strtoll(spec + 6, NULL, 0);
    for (size_t i = 0; i < a->count; ++i) store_elem(a->data, a->ty, i, v, d);
  } else if (strncmp(spec, "rand:", 5) == 0) {
    uint64_t state = strtoull(spec + 5, NULL, 0);
    uint64_t bound = a->ty == T_I8 ? 128 : a->ty == T_U8 ? 256 : 1000;
    for (size_t i = 0; i < a->count; ++i) {
      state += 0x9e3779b97f4a7c15ull;
      uint64_t r = splitmix64_mix(state);
      if (a->ty == T_F32) ((float *)a->data)[i] = (float)(r >> 40) * (1.0f / 16777216.0f);
      else if (a->ty == T_F64) ((double *)a->data)[i] = (double)(r >> 11) * (1.0 / 9007199254740992.0);
      else store_elem(a->data, a->ty, i, (int64_t)(r % bound), 0);
    }
  } else if (strncmp(spec, "file:", 5) == 0) {
    FILE *f = fopen(spec + 5, "rb");
    if (!f) die("cannot open %s: %s", spec + 5, strerror(errno));
    size_t got = fread(a->data, 1, bytes, f);
    int extra = fgetc(f);
    fclose(f);
    if (got != bytes || extra != EOF)
      die("%s: expected %zu bytes for %zu x %s", spec + 5, bytes, a->count, ty_names[a->ty]);
  } else {
    die("unknown fill '%s'", spec);
  }
  a->initial = malloc(bytes ? bytes : 1);
  memcpy(a->initial, a->data, bytes);
}

static inline void parse_arg(struct arg *a, const char *spec) {
  const char *c1 = strchr(spec, ':');
  if (!c1) die("bad --arg '%s'", spec);
  memset(a, 0, sizeof *a);
  if (strncmp(spec, "buf:", 4) == 0 || strncmp(spec, "local:", 6) == 0) {
    a->kind = spec[0] == 'b' ? A_BUF : A_LOCAL;
    const char *c2 = strchr(c1 + 1, ':');
    if (!c2) die("bad --arg '%s' (want %s:TYPE:COUNT)", spec, spec[0] == 'b' ? "buf" : "local");
    a->ty = parse_ty(c1 + 1, (size_t)(c2 - c1 - 1));
    char *end;
    a->count = strtoull(c2 + 1, &end, 0);
    if (a->kind == A_BUF)
      fill(a, *end == '=' ? end + 1 : NULL);
    else if (*end)
      die("bad --arg '%s'", spec);
  } else {
    a->kind = A_SCALAR;
    a->ty = parse_ty(spec, (size_t)(c1 - spec));
    const char *v = c1 + 1;
    if (is_float(a->ty)) a->scalar.f = strtod(v, NULL);
    else if (is_signed(a->ty)) a->scalar.i = strtoll(v, NULL, 0);
    else a->scalar.u = strtoull(v, NULL, 0);
    a->data = &a->scalar;
    if (a->ty == T_F32) { float f = (float)a->scalar.f; memcpy(&a->scalar, &f, 4); }
    /* integers: little-endian, so the low bytes of the union are the value */
  }
}

static inline unsigned parse_dims(const char *s, size_t out[3]) {
  unsigned n = 0;
  out[0] = out[1] = out[2] = 1;
  while (*s) {
    if (n == 3) die("more than 3 dimensions in '%s'", s);
    char *end;
    out[n++] = strtoull(s, &end, 0);
    if (*end == ',') ++end;
    else if (*end) die("bad size '%s'", s);
    s = end;
  }
  return n;
}

static inline void parse_launch(struct launch *L, int argc, char **argv, int want_source) {
  memset(L, 0, sizeof *L);
  L->repeat = 5;
  unsigned gd = 0, ld = 0;
  for (int i = 1; i < argc; ++i) {
    const char *o = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEXT() (v ? (++i, v) : (die("%s needs a value", o), ""))
    if (!strcmp(o, "--kernel")) L->kernel = NEXT();
    else if (!strcmp(o, "--global")) gd = parse_dims(NEXT(), L->global);
    else if (!strcmp(o, "--local")) ld = parse_dims(NEXT(), L->local);
    else if (!strcmp(o, "--arg")) {
      if (L->nargs == MAX_ARGS) die("too many --arg");
      parse_arg(&L->args[L->nargs++], NEXT());
    } else if (!strcmp(o, "--repeat")) L->repeat = atoi(NEXT());
    else if (!strcmp(o, "--dump")) L->dump_dir = NEXT();
    else if (!strcmp(o, "--dump-in")) L->dump_in_dir = NEXT();
    else if (!strcmp(o, "--stats")) L->stats = NEXT();
    else if (o[0] != '-' && want_source && !L->source) L->source = o;
    else die("unknown option '%s'", o);
#undef NEXT
  }
  if (want_source && !L->source) die("no kernel source given");
  if (!gd) die("--global is required");
  if (!ld) { ld = gd; for (unsigned d = 0; d < 3; ++d) L->local[d] = 1; }
  if (gd != ld) die("--global and --local have different dimensions");
  L->dims = gd;
  for (unsigned d = 0; d < 3; ++d)
    if (!L->local[d] || L->global[d] % L->local[d])
      die("global size %zu is not a multiple of local size %zu (dimension %u)",
          L->global[d], L->local[d], d);
  if (L->repeat < 1) L->repeat = 1;
}

static inline void restore_buffers(struct launch *L) {
  for (int i = 0; i < L->nargs; ++i)
    if (L->args[i].kind == A_BUF)
      memcpy(L->args[i].data, L->args[i].initial, L->args[i].count * ty_sizes[L->args[i].ty]);
}

static inline void mkdir_p(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s", dir);
  for (char *s = path + 1; *s; ++s)
    if (*s == '/') { *s = 0; mkdir(path, 0777); *s = '/'; }
  mkdir(path, 0777);
}

static inline void write_file(const char *dir, int idx, const void *p, size_t bytes) {
  char path[4096];
  mkdir_p(dir);
  snprintf(path, sizeof path, "%s/arg%d.bin", dir, idx);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(p, 1, bytes, f) != bytes || fclose(f)) die("cannot write %s", path);
}

/* which = 0: initial contents (--dump-in), 1: current contents (--dump). */
static inline void dump_buffers(struct launch *L, const char *dir, int which) {
  if (!dir) return;
  for (int i = 0; i < L->nargs; ++i)
    if (L->args[i].kind == A_BUF)
      write_file(dir, i, which ? L->args[i].data : L->args[i].initial,
                 L->args[i].count * ty_sizes[L->args[i].ty]);
}

static inline double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static inline int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Prints the timing line the bench script reads. */
static inline void report(const char *engine, const struct launch *L, double *ms, int n) {
  qsort(ms, (size_t)n, sizeof *ms, cmp_double);
  double best = ms[0], median = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  if (L->stats && !strcmp(L->stats, "json"))
    printf("{\"engine\": \"%s\", \"kernel\": \"%s\", \"runs\": %d, \"best_ms\": %.4f, \"median_ms\": %.4f}\n",
           engine, L->kernel ? L->kernel : "?", n, best, median);
  else
    printf("%s: %s: best %.4f ms, median %.4f ms over %d runs\n", engine,
           L->kernel ? L->kernel : "?", best, median, n);
}

/* Typed access for the native kernels, checked against the command line. */
static inline void *buf_arg(struct launch *L, int i, enum ty t) {
  if (i >= L->nargs || L->args[i].kind != A_BUF || L->args[i].ty != t)
    die("argument %d must be buf:%s", i, ty_names[t]);
  return L->args[i].data;
}
static inline size_t buf_count(struct launch *L, int i) { return L->args[i].count; }
static inline int64_t int_arg(struct launch *L, int i) {
  if (i >= L->nargs || L->args[i].kind != A_SCALAR || is_float(L->args[i].ty))
    die("argument %d must be an integer scalar", i);
  switch (L->args[i].ty) {
  case T_I8: return (int8_t)L->args[i].scalar.i;
  case T_I16: return (int16_t)L->args[i].scalar.i;
  case T_I32: return (int32_t)L->args[i].scalar.i;
  case T_U8: return (uint8_t)L->args[i].scalar.u;
  case T_U16: return (uint16_t)L->args[i].scalar.u;
  case T_U32: return (uint32_t)L->args[i].scalar.u;
  default: return L->args[i].scalar.i;
  }
}
static inline float f32_arg(struct launch *L, int i) {
  if (i >= L->nargs || L->args[i].kind != A_SCALAR || L->args[i].ty != T_F32)
    die("argument %d must be an f32 scalar", i);
  float f;
  memcpy(&f, &L->args[i].scalar, 4);
  return f;
}

#endif
