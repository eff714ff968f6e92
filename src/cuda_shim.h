// The CUDA device API that simt-run gives `.cu` sources, without the CUDA
// toolkit (clang runs with -nocudainc -nocudalib; src/source.rs).
//
// Why our own and not clang's __clang_cuda_runtime_wrapper.h: that wrapper
// includes the SDK's cuda.h and cuda_runtime.h, and clang's
// __clang_cuda_device_functions.h / __clang_cuda_math.h define every
// function as a call to libdevice's `__nv_*` (`__popc` → `__nv_popc`,
// `__int_as_float` → `__nv_int_as_float`, ...), whose bodies are NVVM
// intrinsics the host engine and the emulator cannot run. Here everything
// is written with portable clang builtins instead, so that the IR is plain
// LLVM: `atomicrmw`/`cmpxchg` for atomics, `llvm.ctpop`/`llvm.ctlz`/... for
// bit intrinsics, libm calls or LLVM math intrinsics for math. All three
// engines run that (the GPU path maps the math to libdevice itself).
// Only the builtin variables come from clang (__clang_cuda_builtin_vars.h).
//
// Warp functions run on all three engines (the host engine through
// simt-warp-exchange and the warp dispatcher of simt-wiloops, COX's
// hierarchical collapsing; README "Warp functions on the host").
// `__reduce_*_sync` use PTX's redux.sync from sm_80 and shuffles below it
// (simt-run compiles for sm_70). Limits: no textures, surfaces,
// cooperative groups, half/bfloat types, `printf`, `malloc`, `assert`.

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#include <__clang_cuda_builtin_vars.h>

#define __SIMT_D static __device__ __forceinline__
#define __SIMT_HD static __host__ __device__ __forceinline__

typedef unsigned long long __simt_ull;

// ---- synchronisation -------------------------------------------------------
__device__ void __syncthreads() __attribute__((convergent)) __asm("llvm.nvvm.barrier0");
__SIMT_D void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
__SIMT_D void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
__SIMT_D void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

// ---- atomics (relaxed, device scope, as CUDA's are) ------------------------
#define __SIMT_RMW(NAME, BUILTIN, T) \
  __SIMT_D T NAME(T *p, T v) { return BUILTIN(p, v, __ATOMIC_RELAXED); }
#define __SIMT_RMW_INTS(NAME, BUILTIN)   \
  __SIMT_RMW(NAME, BUILTIN, int)         \
  __SIMT_RMW(NAME, BUILTIN, unsigned int) \
  __SIMT_RMW(NAME, BUILTIN, __simt_ull)
__SIMT_RMW_INTS(atomicAdd, __atomic_fetch_add)
__SIMT_RMW(atomicAdd, __atomic_fetch_add, float)
__SIMT_RMW(atomicAdd, __atomic_fetch_add, double)
__SIMT_RMW(atomicSub, __atomic_fetch_sub, int)
__SIMT_RMW(atomicSub, __atomic_fetch_sub, unsigned int)
__SIMT_RMW_INTS(atomicMin, __atomic_fetch_min)
__SIMT_RMW(atomicMin, __atomic_fetch_min, long long)
__SIMT_RMW_INTS(atomicMax, __atomic_fetch_max)
__SIMT_RMW(atomicMax, __atomic_fetch_max, long long)
__SIMT_RMW_INTS(atomicAnd, __atomic_fetch_and)
__SIMT_RMW_INTS(atomicOr, __atomic_fetch_or)
__SIMT_RMW_INTS(atomicXor, __atomic_fetch_xor)
__SIMT_RMW_INTS(atomicExch, __atomic_exchange_n)
__SIMT_D float atomicExch(float *p, float v) {
  float old;
  __atomic_exchange(p, &v, &old, __ATOMIC_RELAXED);
  return old;
}
#undef __SIMT_RMW_INTS
#undef __SIMT_RMW
#define __SIMT_CAS(T)                                                        \
  __SIMT_D T atomicCAS(T *p, T compare, T v) {                               \
    __atomic_compare_exchange_n(p, &compare, v, false, __ATOMIC_RELAXED,     \
                                __ATOMIC_RELAXED);                           \
    return compare;                                                          \
  }
__SIMT_CAS(int)
__SIMT_CAS(unsigned int)
__SIMT_CAS(__simt_ull)
__SIMT_CAS(unsigned short)
#undef __SIMT_CAS
// ((old >= v) ? 0 : old + 1) and ((old == 0 || old > v) ? v : old - 1):
// LLVM's `atomicrmw uinc_wrap` / `udec_wrap`, which clang emits for these.
__SIMT_D unsigned int atomicInc(unsigned int *p, unsigned int v) { return __nvvm_atom_inc_gen_ui(p, v); }
__SIMT_D unsigned int atomicDec(unsigned int *p, unsigned int v) { return __nvvm_atom_dec_gen_ui(p, v); }
#define __SIMT_SCOPED(NAME) \
  template <class T, class U> __SIMT_D T NAME##_block(T *p, U v) { return NAME(p, (T)v); } \
  template <class T, class U> __SIMT_D T NAME##_system(T *p, U v) { return NAME(p, (T)v); }
__SIMT_SCOPED(atomicAdd)
__SIMT_SCOPED(atomicSub)
__SIMT_SCOPED(atomicMin)
__SIMT_SCOPED(atomicMax)
__SIMT_SCOPED(atomicExch)
__SIMT_SCOPED(atomicAnd)
__SIMT_SCOPED(atomicOr)
__SIMT_SCOPED(atomicXor)
#undef __SIMT_SCOPED

// ---- integer intrinsics ----------------------------------------------------
__SIMT_D int __popc(unsigned int x) { return __builtin_popcount(x); }
__SIMT_D int __popcll(__simt_ull x) { return __builtin_popcountll(x); }
__SIMT_D int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
__SIMT_D int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((__simt_ull)x); }
__SIMT_D int __ffs(int x) { return __builtin_ffs(x); }
__SIMT_D int __ffsll(long long x) { return __builtin_ffsll(x); }
__SIMT_D unsigned int __brev(unsigned int x) { return __builtin_bitreverse32(x); }
__SIMT_D __simt_ull __brevll(__simt_ull x) { return __builtin_bitreverse64(x); }
// Low 24 bits of each operand, sign- or zero-extended, multiplied.
__SIMT_D int __mul24(int a, int b) { return ((a << 8) >> 8) * ((b << 8) >> 8); }
__SIMT_D unsigned int __umul24(unsigned int a, unsigned int b) { return (a & 0xffffffu) * (b & 0xffffffu); }
__SIMT_D int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
__SIMT_D unsigned int __umulhi(unsigned int a, unsigned int b) { return (unsigned int)(((__simt_ull)a * b) >> 32); }
__SIMT_D long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
__SIMT_D __simt_ull __umul64hi(__simt_ull a, __simt_ull b) { return (__simt_ull)(((unsigned __int128)a * b) >> 64); }
__SIMT_D unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int s) {
  return (unsigned int)((((__simt_ull)hi << 32 | lo) << (s & 31)) >> 32);
}
__SIMT_D unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int s) {
  return (unsigned int)(((__simt_ull)hi << 32 | lo) >> (s & 31));
}
__SIMT_D int __sad(int a, int b, unsigned int c) { return (a > b ? a - b : b - a) + c; }
__SIMT_D unsigned int __usad(unsigned int a, unsigned int b, unsigned int c) { return (a > b ? a - b : b - a) + c; }
__SIMT_D int __hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
__SIMT_D int __rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
__SIMT_D unsigned int __uhadd(unsigned int a, unsigned int b) { return (unsigned int)(((__simt_ull)a + b) >> 1); }
__SIMT_D unsigned int __urhadd(unsigned int a, unsigned int b) { return (unsigned int)(((__simt_ull)a + b + 1) >> 1); }

// ---- reinterpretation and conversion ---------------------------------------
__SIMT_D float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
__SIMT_D int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
__SIMT_D float __uint_as_float(unsigned int x) { return __builtin_bit_cast(float, x); }
__SIMT_D unsigned int __float_as_uint(float x) { return __builtin_bit_cast(unsigned int, x); }
__SIMT_D double __longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }
__SIMT_D long long __double_as_longlong(double x) { return __builtin_bit_cast(long long, x); }
// Rounding modes of the conversions: _rn to nearest even, _rz toward zero,
// _rd down, _ru up. Out-of-range values are undefined here (CUDA saturates).
__SIMT_D int __float2int_rn(float x) { return (int)__builtin_rintf(x); }
__SIMT_D int __float2int_rz(float x) { return (int)x; }
__SIMT_D int __float2int_rd(float x) { return (int)__builtin_floorf(x); }
__SIMT_D int __float2int_ru(float x) { return (int)__builtin_ceilf(x); }
__SIMT_D unsigned int __float2uint_rn(float x) { return (unsigned int)__builtin_rintf(x); }
__SIMT_D unsigned int __float2uint_rz(float x) { return (unsigned int)x; }
__SIMT_D long long __float2ll_rn(float x) { return (long long)__builtin_rintf(x); }
__SIMT_D long long __float2ll_rz(float x) { return (long long)x; }
__SIMT_D int __double2int_rn(double x) { return (int)__builtin_rint(x); }
__SIMT_D int __double2int_rz(double x) { return (int)x; }
__SIMT_D long long __double2ll_rn(double x) { return (long long)__builtin_rint(x); }
__SIMT_D float __int2float_rn(int x) { return (float)x; }
__SIMT_D float __uint2float_rn(unsigned int x) { return (float)x; }
__SIMT_D double __int2double_rn(int x) { return (double)x; }
__SIMT_D float __double2float_rn(double x) { return (float)x; }
__SIMT_D float __saturatef(float x) { return x != x ? 0.0f : __builtin_fminf(__builtin_fmaxf(x, 0.0f), 1.0f); }

// ---- read-only loads -------------------------------------------------------
template <class T> __SIMT_D T __ldg(const T *p) { return *p; }

// ---- constants <cmath>, <cfloat> and <climits> would give ------------------
#ifndef INFINITY
#define INFINITY __builtin_huge_valf()
#endif
#ifndef NAN
#define NAN __builtin_nanf("")
#endif
#ifndef FLT_MAX
#define FLT_MAX __FLT_MAX__
#define FLT_MIN __FLT_MIN__
#define FLT_EPSILON __FLT_EPSILON__
#define DBL_MAX __DBL_MAX__
#define DBL_EPSILON __DBL_EPSILON__
#endif
#ifndef INT_MAX
#define INT_MAX __INT_MAX__
#define INT_MIN (-__INT_MAX__ - 1)
#define UINT_MAX (__INT_MAX__ * 2U + 1U)
#endif

// ---- math: the C library's names (the engines run them as libm does) ------
extern "C" {
#define __SIMT_F1(N) __device__ float N##f(float); __device__ double N(double);
#define __SIMT_F2(N) __device__ float N##f(float, float); __device__ double N(double, double);
__SIMT_F1(sqrt) __SIMT_F1(cbrt) __SIMT_F1(fabs) __SIMT_F1(floor) __SIMT_F1(ceil)
__SIMT_F1(trunc) __SIMT_F1(round) __SIMT_F1(rint) __SIMT_F1(nearbyint)
__SIMT_F1(exp) __SIMT_F1(exp2) __SIMT_F1(exp10) __SIMT_F1(expm1)
__SIMT_F1(log) __SIMT_F1(log2) __SIMT_F1(log10) __SIMT_F1(log1p)
__SIMT_F1(sin) __SIMT_F1(cos) __SIMT_F1(tan) __SIMT_F1(asin) __SIMT_F1(acos) __SIMT_F1(atan)
__SIMT_F1(sinh) __SIMT_F1(cosh) __SIMT_F1(tanh) __SIMT_F1(asinh) __SIMT_F1(acosh) __SIMT_F1(atanh)
__SIMT_F1(erf) __SIMT_F1(erfc) __SIMT_F1(tgamma) __SIMT_F1(lgamma)
__SIMT_F2(pow) __SIMT_F2(atan2) __SIMT_F2(hypot) __SIMT_F2(fdim) __SIMT_F2(fmod)
__SIMT_F2(remainder) __SIMT_F2(fmin) __SIMT_F2(fmax) __SIMT_F2(copysign)
__device__ float fmaf(float, float, float);
__device__ double fma(double, double, double);
#undef __SIMT_F1
#undef __SIMT_F2
}
// C++ float overloads (CUDA's <cmath>): sqrt(float) is sqrtf.
#define __SIMT_O1(N) __SIMT_D float N(float x) { return N##f(x); }
#define __SIMT_O2(N) __SIMT_D float N(float x, float y) { return N##f(x, y); }
__SIMT_O1(sqrt) __SIMT_O1(cbrt) __SIMT_O1(fabs) __SIMT_O1(floor) __SIMT_O1(ceil)
__SIMT_O1(trunc) __SIMT_O1(round) __SIMT_O1(rint) __SIMT_O1(exp) __SIMT_O1(exp2)
__SIMT_O1(expm1) __SIMT_O1(log) __SIMT_O1(log2) __SIMT_O1(log10) __SIMT_O1(log1p)
__SIMT_O1(sin) __SIMT_O1(cos) __SIMT_O1(tan) __SIMT_O1(asin) __SIMT_O1(acos) __SIMT_O1(atan)
__SIMT_O1(sinh) __SIMT_O1(cosh) __SIMT_O1(tanh) __SIMT_O1(erf)
__SIMT_O2(pow) __SIMT_O2(atan2) __SIMT_O2(hypot) __SIMT_O2(fmod) __SIMT_O2(fmin) __SIMT_O2(fmax)
__SIMT_O2(copysign)
#undef __SIMT_O1
#undef __SIMT_O2
__SIMT_D float fma(float a, float b, float c) { return fmaf(a, b, c); }
__SIMT_D float rsqrtf(float x) { return 1.0f / sqrtf(x); }
__SIMT_D double rsqrt(double x) { return 1.0 / sqrt(x); }
__SIMT_D float rcbrtf(float x) { return 1.0f / cbrtf(x); }
__SIMT_D void sincosf(float x, float *s, float *c) { *s = sinf(x); *c = cosf(x); }
__SIMT_D void sincos(double x, double *s, double *c) { *s = sin(x); *c = cos(x); }
__SIMT_D float sinpif(float x) { return sinf(3.14159265358979323846f * x); }
__SIMT_D float cospif(float x) { return cosf(3.14159265358979323846f * x); }
__SIMT_D float fdividef(float a, float b) { return a / b; }
__SIMT_D bool isnan(float x) { return __builtin_isnan(x); }
__SIMT_D bool isnan(double x) { return __builtin_isnan(x); }
__SIMT_D bool isinf(float x) { return __builtin_isinf(x); }
__SIMT_D bool isinf(double x) { return __builtin_isinf(x); }
__SIMT_D bool isfinite(float x) { return __builtin_isfinite(x); }
__SIMT_D bool isfinite(double x) { return __builtin_isfinite(x); }
__SIMT_D bool signbit(float x) { return __builtin_signbit(x); }
__SIMT_D bool signbit(double x) { return __builtin_signbit(x); }
// The fast intrinsics: here the accurate functions (a GPU's approximations
// are within their documented error of these; the engines agree exactly).
__SIMT_D float __expf(float x) { return expf(x); }
__SIMT_D float __exp10f(float x) { return exp10f(x); }
__SIMT_D float __logf(float x) { return logf(x); }
__SIMT_D float __log2f(float x) { return log2f(x); }
__SIMT_D float __log10f(float x) { return log10f(x); }
__SIMT_D float __sinf(float x) { return sinf(x); }
__SIMT_D float __cosf(float x) { return cosf(x); }
__SIMT_D float __tanf(float x) { return tanf(x); }
__SIMT_D void __sincosf(float x, float *s, float *c) { sincosf(x, s, c); }
__SIMT_D float __powf(float x, float y) { return powf(x, y); }
__SIMT_D float __fdividef(float a, float b) { return a / b; }
__SIMT_D float __frcp_rn(float x) { return 1.0f / x; }
__SIMT_D float __fsqrt_rn(float x) { return sqrtf(x); }
__SIMT_D float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }
__SIMT_D float __fadd_rn(float a, float b) { return a + b; }
__SIMT_D float __fsub_rn(float a, float b) { return a - b; }
__SIMT_D float __fmul_rn(float a, float b) { return a * b; }
__SIMT_D float __fdiv_rn(float a, float b) { return a / b; }
__SIMT_D float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
__SIMT_D double __dadd_rn(double a, double b) { return a + b; }
__SIMT_D double __dmul_rn(double a, double b) { return a * b; }
__SIMT_D double __fma_rn(double a, double b, double c) { return fma(a, b, c); }

// ---- min, max, abs (CUDA's overloads) --------------------------------------
#define __SIMT_MM(T)                                            \
  __SIMT_HD T min(T a, T b) { return a < b ? a : b; }            \
  __SIMT_HD T max(T a, T b) { return a > b ? a : b; }
__SIMT_MM(int)
__SIMT_MM(unsigned int)
__SIMT_MM(long long)
__SIMT_MM(__simt_ull)
#undef __SIMT_MM
__SIMT_D float min(float a, float b) { return fminf(a, b); }
__SIMT_D float max(float a, float b) { return fmaxf(a, b); }
__SIMT_D double min(double a, double b) { return fmin(a, b); }
__SIMT_D double max(double a, double b) { return fmax(a, b); }
__SIMT_D unsigned int min(int a, unsigned int b) { return min((unsigned int)a, b); }
__SIMT_D unsigned int min(unsigned int a, int b) { return min(a, (unsigned int)b); }
__SIMT_D unsigned int max(int a, unsigned int b) { return max((unsigned int)a, b); }
__SIMT_D unsigned int max(unsigned int a, int b) { return max(a, (unsigned int)b); }
__SIMT_D int abs(int x) { return x < 0 ? -x : x; }
__SIMT_D long long llabs(long long x) { return x < 0 ? -x : x; }
__SIMT_D long long abs(long long x) { return llabs(x); }
__SIMT_D float abs(float x) { return fabsf(x); }
__SIMT_D double abs(double x) { return fabs(x); }

// ---- warp functions (CUDA semantics on the host and the emulator) ----------
__SIMT_D unsigned int __activemask() { return __nvvm_activemask(); }
__SIMT_D int __all_sync(unsigned int m, int p) { return __nvvm_vote_all_sync(m, p); }
__SIMT_D int __any_sync(unsigned int m, int p) { return __nvvm_vote_any_sync(m, p); }
__SIMT_D unsigned int __ballot_sync(unsigned int m, int p) { return __nvvm_vote_ballot_sync(m, p); }
__SIMT_D int __shfl_sync(unsigned int m, int v, int src, int w = 32) {
  return __nvvm_shfl_sync_idx_i32(m, v, src, ((32 - w) << 8) | 0x1f);
}
__SIMT_D float __shfl_sync(unsigned int m, float v, int src, int w = 32) {
  return __nvvm_shfl_sync_idx_f32(m, v, src, ((32 - w) << 8) | 0x1f);
}
__SIMT_D int __shfl_up_sync(unsigned int m, int v, unsigned int d, int w = 32) {
  return __nvvm_shfl_sync_up_i32(m, v, d, (32 - w) << 8);
}
__SIMT_D float __shfl_up_sync(unsigned int m, float v, unsigned int d, int w = 32) {
  return __nvvm_shfl_sync_up_f32(m, v, d, (32 - w) << 8);
}
__SIMT_D int __shfl_down_sync(unsigned int m, int v, unsigned int d, int w = 32) {
  return __nvvm_shfl_sync_down_i32(m, v, d, ((32 - w) << 8) | 0x1f);
}
__SIMT_D float __shfl_down_sync(unsigned int m, float v, unsigned int d, int w = 32) {
  return __nvvm_shfl_sync_down_f32(m, v, d, ((32 - w) << 8) | 0x1f);
}
__SIMT_D int __shfl_xor_sync(unsigned int m, int v, int l, int w = 32) {
  return __nvvm_shfl_sync_bfly_i32(m, v, l, ((32 - w) << 8) | 0x1f);
}
__SIMT_D float __shfl_xor_sync(unsigned int m, float v, int l, int w = 32) {
  return __nvvm_shfl_sync_bfly_f32(m, v, l, ((32 - w) << 8) | 0x1f);
}
__SIMT_D void __syncwarp(unsigned int m = 0xffffffffu) { __nvvm_bar_warp_sync(m); }

// The other 32-bit types by their bits; 64-bit ones as two 32-bit halves.
#define __SIMT_SHFL_AS(T, U)                                                                   \
  __SIMT_D T __shfl_sync(unsigned int m, T v, int s, int w = 32) {                             \
    return __builtin_bit_cast(T, __shfl_sync(m, __builtin_bit_cast(U, v), s, w));               \
  }                                                                                            \
  __SIMT_D T __shfl_up_sync(unsigned int m, T v, unsigned int d, int w = 32) {                 \
    return __builtin_bit_cast(T, __shfl_up_sync(m, __builtin_bit_cast(U, v), d, w));            \
  }                                                                                            \
  __SIMT_D T __shfl_down_sync(unsigned int m, T v, unsigned int d, int w = 32) {               \
    return __builtin_bit_cast(T, __shfl_down_sync(m, __builtin_bit_cast(U, v), d, w));          \
  }                                                                                            \
  __SIMT_D T __shfl_xor_sync(unsigned int m, T v, int l, int w = 32) {                         \
    return __builtin_bit_cast(T, __shfl_xor_sync(m, __builtin_bit_cast(U, v), l, w));           \
  }
struct __simt_pair { int lo, hi; };
#define __SIMT_SHFL_PAIR(F, T, K)                                                               \
  __SIMT_D T F(unsigned int m, T v, K k, int w = 32) {                                         \
    __simt_pair p = __builtin_bit_cast(__simt_pair, v);                                        \
    p.lo = F(m, p.lo, k, w);                                                                   \
    p.hi = F(m, p.hi, k, w);                                                                   \
    return __builtin_bit_cast(T, p);                                                           \
  }
#define __SIMT_SHFL_64(T)                                                                      \
  __SIMT_SHFL_PAIR(__shfl_sync, T, int)                                                        \
  __SIMT_SHFL_PAIR(__shfl_up_sync, T, unsigned int)                                            \
  __SIMT_SHFL_PAIR(__shfl_down_sync, T, unsigned int)                                          \
  __SIMT_SHFL_PAIR(__shfl_xor_sync, T, int)
__SIMT_SHFL_AS(unsigned int, int)
__SIMT_SHFL_64(long long)
__SIMT_SHFL_64(unsigned long long)
__SIMT_SHFL_64(double)
#undef __SIMT_SHFL_AS
#undef __SIMT_SHFL_PAIR
#undef __SIMT_SHFL_64

// Lanes: this one's number and the masks of the lanes below/above it.
__SIMT_D unsigned int __simt_laneid() { return __nvvm_read_ptx_sreg_laneid(); }
__SIMT_D unsigned int __lanemask_lt() { return (1u << __simt_laneid()) - 1u; }
__SIMT_D unsigned int __lanemask_le() { return (2u << __simt_laneid()) - 1u; }
__SIMT_D unsigned int __lanemask_eq() { return 1u << __simt_laneid(); }
__SIMT_D unsigned int __lanemask_gt() { return ~__lanemask_le(); }
__SIMT_D unsigned int __lanemask_ge() { return ~__lanemask_lt(); }

// The lanes of `m` whose value equals this lane's; `__match_all_sync`: `m`
// if all of them hold the same value (and *pred = 1), else 0.
__SIMT_D unsigned int __match_any_sync(unsigned int m, unsigned int v) { return __nvvm_match_any_sync_i32(m, v); }
__SIMT_D unsigned int __match_any_sync(unsigned int m, int v) { return __nvvm_match_any_sync_i32(m, v); }
__SIMT_D unsigned int __match_any_sync(unsigned int m, float v) { return __nvvm_match_any_sync_i32(m, __builtin_bit_cast(int, v)); }
__SIMT_D unsigned int __match_any_sync(unsigned int m, unsigned long long v) { return __nvvm_match_any_sync_i64(m, v); }
__SIMT_D unsigned int __match_any_sync(unsigned int m, long long v) { return __nvvm_match_any_sync_i64(m, v); }
__SIMT_D unsigned int __match_any_sync(unsigned int m, double v) { return __nvvm_match_any_sync_i64(m, __builtin_bit_cast(long long, v)); }
template <class T> __SIMT_D unsigned int __match_all_sync(unsigned int m, T v, int *pred) {
  unsigned int same = __match_any_sync(m, v);
  *pred = same == m;
  return same == m ? m : 0u;
}

// __reduce_*_sync: PTX's redux.sync needs sm_80; below, shuffles (a
// butterfly for a full mask, else one broadcast per lane of the mask). Both
// give the same result: the operations are associative and commutative.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define __SIMT_REDUCE(NAME, T, OP, BUILTIN)                                                     \
  __SIMT_D T NAME(unsigned int m, T v) { return BUILTIN(v, m); }
#else
#define __SIMT_REDUCE(NAME, T, OP, BUILTIN)                                                     \
  __SIMT_D T NAME(unsigned int m, T v) {                                                       \
    if (m == 0xffffffffu) {                                                                    \
      for (int d = 16; d > 0; d >>= 1) {                                                       \
        T x = (T)__shfl_xor_sync(m, v, d); /* once: OP names its operands twice */             \
        v = OP(v, x);                                                                          \
      }                                                                                        \
      return v;                                                                                \
    }                                                                                          \
    T acc = v;                                                                                 \
    bool first = true;                                                                         \
    for (int k = 0; k < 32; k++) {                                                             \
      if (!(m >> k & 1u)) continue;                                                            \
      T x = (T)__shfl_sync(m, v, k);                                                           \
      acc = first ? x : OP(acc, x);                                                            \
      first = false;                                                                           \
    }                                                                                          \
    return acc;                                                                                \
  }
#endif
#define __SIMT_ADD(a, b) ((a) + (b))
#define __SIMT_MIN(a, b) ((b) < (a) ? (b) : (a))
#define __SIMT_MAX(a, b) ((a) < (b) ? (b) : (a))
#define __SIMT_AND(a, b) ((a) & (b))
#define __SIMT_OR(a, b) ((a) | (b))
#define __SIMT_XOR(a, b) ((a) ^ (b))
__SIMT_REDUCE(__reduce_add_sync, unsigned int, __SIMT_ADD, __nvvm_redux_sync_add)
__SIMT_REDUCE(__reduce_add_sync, int, __SIMT_ADD, __nvvm_redux_sync_add)
__SIMT_REDUCE(__reduce_min_sync, unsigned int, __SIMT_MIN, __nvvm_redux_sync_umin)
__SIMT_REDUCE(__reduce_min_sync, int, __SIMT_MIN, __nvvm_redux_sync_min)
__SIMT_REDUCE(__reduce_max_sync, unsigned int, __SIMT_MAX, __nvvm_redux_sync_umax)
__SIMT_REDUCE(__reduce_max_sync, int, __SIMT_MAX, __nvvm_redux_sync_max)
__SIMT_REDUCE(__reduce_and_sync, unsigned int, __SIMT_AND, __nvvm_redux_sync_and)
__SIMT_REDUCE(__reduce_or_sync, unsigned int, __SIMT_OR, __nvvm_redux_sync_or)
__SIMT_REDUCE(__reduce_xor_sync, unsigned int, __SIMT_XOR, __nvvm_redux_sync_xor)
#undef __SIMT_REDUCE
#undef __SIMT_ADD
#undef __SIMT_MIN
#undef __SIMT_MAX
#undef __SIMT_AND
#undef __SIMT_OR
#undef __SIMT_XOR

#undef __SIMT_D
#undef __SIMT_HD
