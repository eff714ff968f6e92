//! The emulator's memory: tagged addresses over bounds-checked regions.
//!
//! A pointer value is `region << ADDR_BITS | offset`. Region 0 is the null
//! region (nothing is mapped there, so `null` and small integers cast to
//! pointers fault); regions `1..=n` are the kernel's parameters (a buffer
//! argument's region is its data, other parameters map nothing); then the
//! work-group's local memory, the module's other global variables, and one
//! private region per work-item of the work-group; then each `__local`
//! variable and argument and each private array has a region of its own
//! that aliases its slice of that memory ([`super::objects`]). Every access
//! is checked against its region's bounds, so an out-of-bounds index is an
//! error that names the buffer or array instead of a silent corruption. Generic pointers (CUDA)
//! need no translation: `addrspacecast` keeps the bits.
//!
//! The region table itself, and the raw-pointer accesses it needs, live in
//! [`super::regions`].

/// Bits of a pointer that hold the offset inside its region (1 TiB, the
/// largest buffer simt-run allocates).
pub const ADDR_BITS: u32 = 40;
pub const OFF_MASK: u64 = (1u64 << ADDR_BITS) - 1;
/// Regions addressable with the bits left over.
pub const MAX_REGIONS: u64 = 1u64 << (64 - ADDR_BITS);
