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
//!   uint64_t enqueued_local_size[3]; /* the launch's local size; 0: local_size */
//!   uint64_t global_size[3];   /* work-items per dimension; 0: num_groups *   */
//!                              /* local_size                                  */
//! };
//! /* args[i] points at the value of kernel parameter i: for a buffer, at the */
//! /* buffer's address; for a scalar, at the scalar; for a __local pointer    */
//! /* argument, at its address inside local_mem.                              */
//! uint32_t simt_wg_K(void *const *args, struct simt_wg_ctx *ctx);
//!          /* 0: done; 1: the work-items reached different barriers (error[]); */
//!          /* 2: compiled for another work-group size (local-size=…)         */
//! const uint64_t simt_wg_K_scratch_per_item;
//! const uint64_t simt_wg_K_local_bytes;
//! const uint64_t simt_wg_K_barrier_count;  /* entries in simt_wg_K_barriers */
//! const uint64_t simt_wg_K_linear;  /* 1: the linear form (one copy entered */
//!                                   /* through a resume switch); 0: regions */
//! const char *const simt_wg_K_barriers[]; /* barrier id -> "file:line:col" or */
//!                                         /* "block %name": id 0 is the entry, */
//!                                         /* the last id is the kernel's exit  */
//! ```
//!
//! Work-group sizes may be non-uniform (OpenCL 2.0): where the global size
//! is not a multiple of the enqueued local size, the last work-group of a
//! dimension has `local_size` below `enqueued_local_size`, and global ids are
//! `group_id * enqueued_local_size + local_id + global_offset`. A caller
//! that leaves the last two fields 0 (a C initialiser that does not name
//! them) gets the uniform launch `num_groups * local_size`.
//!
//! The struct is defined once, in the table [`CTX_FIELDS`] (with the Rust
//! [`WgContext`] and the LLVM field indices [`field`] from the same list);
//! `test-ir/aot/simt_wg.h` is generated from it ([`c_header`]) and checked by
//! a C compiler with `offsetof` (`passes/tests/wg_abi_header.rs`).

/// The scalar type of a context field (or of its array elements).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    U32,
    U64,
    /// `void *`, address space 0.
    Ptr,
}

impl Scalar {
    pub fn c_name(self) -> &'static str {
        match self {
            Scalar::U32 => "uint32_t",
            Scalar::U64 => "uint64_t",
            Scalar::Ptr => "void *",
        }
    }
}

/// One field of `struct simt_wg_ctx`: everything the pass (the LLVM struct
/// type), the runtime ([`WgContext`]) and C (`simt_wg.h`) need to agree on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CtxField {
    pub name: &'static str,
    pub scalar: Scalar,
    /// Array length, `None` for a scalar field.
    pub array: Option<u32>,
    /// Byte offset in the struct (from the `#[repr(C)]` definition).
    pub offset: usize,
    /// The comment in `simt_wg.h`.
    pub doc: &'static str,
}

/// Defines, from one list, the `#[repr(C)]` struct [`WgContext`], its field
/// indices in [`field`] (the LLVM struct's element numbers) and [`CTX_FIELDS`].
macro_rules! wg_context {
    ($($index:literal $konst:ident $name:ident: $rust:ty = $scalar:ident $(x $len:literal)?, $doc:literal;)*) => {
        /// Bit-for-bit `struct simt_wg_ctx` (the module documentation).
        #[repr(C)]
        #[derive(Clone, Copy, Debug)]
        pub struct WgContext {
            $(#[doc = $doc] pub $name: $rust,)*
        }

        /// Field indices of [`WgContext`] in the LLVM struct type the pass builds.
        pub mod field {
            $(pub const $konst: u32 = $index;)*
        }

        /// The fields of [`WgContext`], in order.
        pub const CTX_FIELDS: &[CtxField] = &[
            $(CtxField {
                name: stringify!($name),
                scalar: Scalar::$scalar,
                array: wg_context!(@len $($len)?),
                offset: std::mem::offset_of!(WgContext, $name),
                doc: $doc,
            },)*
        ];
    };
    (@len) => { None };
    (@len $len:literal) => { Some($len) };
}

wg_context! {
    0 GROUP_ID group_id: [u64; 3] = U64 x 3, "this work-group's id";
    1 NUM_GROUPS num_groups: [u64; 3] = U64 x 3, "work-groups in the launch, per dimension";
    2 LOCAL_SIZE local_size: [u64; 3] = U64 x 3, "work-items per work-group, per dimension";
    3 GLOBAL_OFFSET global_offset: [u64; 3] = U64 x 3, "the launch's global offset";
    4 WORK_DIM work_dim: u32 = U32, "1, 2 or 3";
    5 ERROR error: [u32; 3] = U32 x 3, "on return 1: two barrier ids that disagreed, then 0";
    6 LOCAL_MEM local_mem: *mut u8 = Ptr, "simt_wg_K_local_bytes (+ __local arguments)";
    7 SCRATCH scratch: *mut u8 = Ptr, "simt_wg_K_scratch_per_item x work-items, 64-byte aligned";
    8 ENQUEUED_LOCAL_SIZE enqueued_local_size: [u64; 3] = U64 x 3, "full work-groups' size; 0: local_size (uniform)";
    9 GLOBAL_SIZE global_size: [u64; 3] = U64 x 3, "work-items per dimension; 0: num_groups x local_size";
}

/// `struct simt_wg_ctx` in C, generated from [`CTX_FIELDS`].
pub fn c_struct() -> String {
    let mut out = String::from("struct simt_wg_ctx {\n");
    for f in CTX_FIELDS {
        let decl = match (f.scalar, f.array) {
            (Scalar::Ptr, None) => format!("void *{};", f.name),
            (s, None) => format!("{} {};", s.c_name(), f.name),
            (s, Some(n)) => format!("{} {}[{n}];", s.c_name(), f.name),
        };
        out += &format!("  {decl:<26} /* {} */\n", f.doc);
    }
    out += "};\n";
    out
}

/// `test-ir/aot/simt_wg.h`, generated from this module's tables; a test
/// checks the file is up to date (`SIMT_BLESS=1` rewrites it).
pub fn c_header() -> String {
    format!(
        r#"/* The C ABI of work-group functions made by simt-wiloops. GENERATED from
 * passes/src/wg_abi.rs (the authoritative description) by its tests: edit
 * the tables there and run them with SIMT_BLESS=1. For a kernel K,
 * `simt-opt -passes='always-inline,simt-lower-ocl-builtins,simt-wiloops,default<O3>'
 *  -mtriple=x86_64-unknown-linux-gnu --filetype=obj K.ll -o K.o` defines: */
#ifndef SIMT_WG_H
#define SIMT_WG_H
#include <stdint.h>

{c_struct}
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
"#,
        c_struct = c_struct()
    )
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

/// `const uint64_t simt_wg_K_linear`: 1 where `simt-wiloops` emitted the
/// kernel in the linear form (one copy entered through a resume switch), 0
/// for the region form.
pub fn linear_symbol(kernel: &str) -> String {
    format!("simt_wg_{kernel}_linear")
}

/// `const uint64_t simt_wg_K_barrier_count`: the number of names in
/// `simt_wg_K_barriers`, [`barrier_table_len`] of the kernel's barriers.
pub fn barrier_count_symbol(kernel: &str) -> String {
    format!("simt_wg_{kernel}_barrier_count")
}

/// The barrier-name table, indexed by barrier id (the states the
/// dispatcher runs on): id 0 is the kernel's entry, ids `1..=n` its `n`
/// barriers in layout order, id `n + 1` (= [`exit_id`]) its exit.
pub fn barrier_table_len(barriers: u32) -> u32 {
    barriers + 2
}

/// The id of the kernel's exit in a kernel with `barriers` barriers.
pub fn exit_id(barriers: u32) -> u32 {
    barriers + 1
}

/// The names of the table's first and last entries.
pub const ENTRY_NAME: &str = "the kernel's entry";
pub const EXIT_NAME: &str = "the kernel's exit";

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
        assert_eq!(std::mem::offset_of!(WgContext, enqueued_local_size), 128);
        assert_eq!(std::mem::size_of::<WgContext>(), 176);
    }
}
