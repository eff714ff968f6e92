/* The C ABI of work-group functions made by simt-wiloops. GENERATED from
 * passes/src/wg_abi.rs (the authoritative description) by its tests: edit
 * the tables there and run them with SIMT_BLESS=1. For a kernel K,
 * `simt-opt -passes='always-inline,simt-lower-ocl-builtins,simt-wiloops,default<O3>'
 *  -mtriple=x86_64-unknown-linux-gnu --filetype=obj K.ll -o K.o` defines: */
#ifndef SIMT_WG_H
#define SIMT_WG_H
#include <stdint.h>

struct simt_wg_ctx {
  uint64_t group_id[3];      /* this work-group's id */
  uint64_t num_groups[3];    /* work-groups in the launch, per dimension */
  uint64_t local_size[3];    /* work-items per work-group, per dimension */
  uint64_t global_offset[3]; /* the launch's global offset */
  uint32_t work_dim;         /* 1, 2 or 3 */
  uint32_t error[3];         /* on return 1: two barrier ids that disagreed, then 0 */
  void *local_mem;           /* simt_wg_K_local_bytes (+ __local arguments) */
  void *scratch;             /* simt_wg_K_scratch_per_item x work-items, 64-byte aligned */
  uint64_t enqueued_local_size[3]; /* full work-groups' size; 0: local_size (uniform) */
  uint64_t global_size[3];   /* work-items per dimension; 0: num_groups x local_size */
};

/* args[i] points at the value of kernel parameter i (for a buffer: at the
 * buffer's address). Returns 0, 1 if work-items reached different barriers,
 * 2 if compiled for another work-group size. simt_wg_K_barriers holds
 * simt_wg_K_barrier_count names: id 0 the entry, then each barrier, last the exit.
 * simt_wg_K_linear is 1 where the kernel was emitted in the linear form. */
#define SIMT_WG_DECLARE(K)                                                     \
  uint32_t simt_wg_##K(void *const *args, struct simt_wg_ctx *ctx);           \
  extern const uint64_t simt_wg_##K##_scratch_per_item;                        \
  extern const uint64_t simt_wg_##K##_local_bytes;                             \
  extern const uint64_t simt_wg_##K##_barrier_count;                           \
  extern const uint64_t simt_wg_##K##_linear;                                  \
  extern const char *const simt_wg_##K##_barriers[];

#endif
