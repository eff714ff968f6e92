//! The C ABI of the work-group functions `simt-wiloops` emits: the contract
//! between the pass, the host runtime (`simt-run --engine host`) and anyone
//! linking an object made by `simt-opt --filetype=obj`.
//!
//! For each kernel `K` the module gets:
//!
//! ```c
//! struct simt_wg_ctx {
//!   uint64_t group_id[3];      /* this work-group's id                        */
//!   uint64_t num_groups[3];    /* work-groups in the launch, per dimension    */
//!   uint64_t local_size[3];    /* work-items per work-group, per dimension    */
//!   uint64_t global_offset[3];
//!   uint32_t work_dim;         /* 1, 2 or 3                                   */
//!   uint32_t error[3];         /* on return 1: error[0] and error[1] are two  */
//!                              /* barrier ids where work-items stopped;       */
//!                              /* error[2] is reserved (0)                    */
//!   void    *local_mem;        /* this work-group's local memory: the         */
//!                              /* kernel's __local/__shared__ variables at    */
//!                              /* offsets chosen by the pass (K's             */
//!                              /* simt_local_bytes bytes), then the __local   */
//!                              /* pointer arguments, placed by the runtime    */
//!   void    *scratch;          /* context arrays: simt_scratch_per_item bytes */
//!                              /* per work-item, 64-byte aligned              */
//! };
//! /* args[i] points at the value of kernel parameter i: for a buffer, at the */
//! /* buffer's address; for a scalar, at the scalar; for a __local pointer    */
//! /* argument, at its address inside local_mem.                              */
//! uint32_t simt_wg_K(void *const *args, struct simt_wg_ctx *ctx);
//!          /* 0: done; 1: the work-items reached different barriers (error[]); */
//!          /* 2: compiled for another work-group size (local-size=…)         */
//! const uint64_t simt_wg_K_scratch_per_item;
//! const uint64_t simt_wg_K_local_bytes;
//! const char *const simt_wg_K_barriers[]; /* barrier id -> "file:line:col" or */
//!                                         /* "block %name": id 0 is the entry, */
//!                                         /* the last id is the kernel's exit  */
//! ```
//!
//! Work-group sizes are uniform: the global size is `num_groups * local_size`.

/// Bit-for-bit the C struct above.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct WgContext {
    pub group_id: [u64; 3],
    pub num_groups: [u64; 3],
    pub local_size: [u64; 3],
    pub global_offset: [u64; 3],
    pub work_dim: u32,
    pub error: [u32; 3],
    pub local_mem: *mut u8,
    pub scratch: *mut u8,
}

/// Field indices of [`WgContext`] in the LLVM struct type the pass builds.
pub mod field {
    pub const GROUP_ID: u32 = 0;
    pub const NUM_GROUPS: u32 = 1;
    pub const LOCAL_SIZE: u32 = 2;
    pub const GLOBAL_OFFSET: u32 = 3;
    pub const WORK_DIM: u32 = 4;
    pub const ERROR: u32 = 5;
    pub const LOCAL_MEM: u32 = 6;
    pub const SCRATCH: u32 = 7;
}

/// `extern "C" fn(args, ctx) -> status`.
pub type WgFn = unsafe extern "C" fn(args: *const *mut std::ffi::c_void, ctx: *mut WgContext) -> u32;

pub const STATUS_OK: u32 = 0;
pub const STATUS_BARRIER_DIVERGENCE: u32 = 1;
/// A function specialised for one work-group size was called with another.
pub const STATUS_WRONG_LOCAL_SIZE: u32 = 2;

pub fn wg_function(kernel: &str) -> String {
    format!("simt_wg_{kernel}")
}

/// `uint32_t simt_wgi_K(void *const *args, struct simt_wg_ctx *ctxs,
/// uint32_t count)`: runs the `count` work-groups `ctxs[0..count)` with seed
/// 001's interleaving, emitted by `simt-wiloops<interleave=N>` for kernels
/// whose barriers are all in straight-line code. `ctxs[j]` must give work-group
/// j its own memory; `simt_wgi_K_ring` consecutive work-groups are in flight
/// at once, so memory sets may be reused with that period (`j % ring`).
pub fn wgi_function(kernel: &str) -> String {
    format!("simt_wgi_{kernel}")
}

pub fn wgi_ring_symbol(kernel: &str) -> String {
    format!("simt_wgi_{kernel}_ring")
}

/// `extern "C" fn(args, ctxs, count) -> status`.
pub type WgiFn = unsafe extern "C" fn(args: *const *mut std::ffi::c_void, ctxs: *mut WgContext, count: u32) -> u32;

pub fn scratch_per_item_symbol(kernel: &str) -> String {
    format!("simt_wg_{kernel}_scratch_per_item")
}

pub fn local_bytes_symbol(kernel: &str) -> String {
    format!("simt_wg_{kernel}_local_bytes")
}

pub fn barriers_symbol(kernel: &str) -> String {
    format!("simt_wg_{kernel}_barriers")
}

/// Alignment of every context array and of `scratch` itself.
pub const SCRATCH_ALIGN: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_matches_the_c_struct() {
        assert_eq!(std::mem::offset_of!(WgContext, work_dim), 96);
        assert_eq!(std::mem::offset_of!(WgContext, error), 100);
        assert_eq!(std::mem::offset_of!(WgContext, local_mem), 112);
        assert_eq!(std::mem::offset_of!(WgContext, scratch), 120);
        assert_eq!(std::mem::size_of::<WgContext>(), 128);
    }
}
