//! The emulator's memory: tagged addresses over bounds-checked regions.
//!
//! A pointer value is `region << ADDR_BITS | offset`. Region 0 is the null
//! region (nothing is mapped there, so `null` and small integers cast to
//! pointers fault); regions `1..=n` are the kernel's parameters (a buffer
//! argument's region is its data, other parameters map nothing); then the
//! work-group's local memory, the module's other global variables, and one
//! private region per work-item of the work-group. Every access is checked
//! against its region's bounds, so an out-of-bounds index is an error that
//! names the buffer instead of a silent corruption. Generic pointers (CUDA)
//! need no translation: `addrspacecast` keeps the bits.

/// Bits of a pointer that hold the offset inside its region (1 TiB, the
/// largest buffer simt-run allocates).
pub const ADDR_BITS: u32 = 40;
pub const OFF_MASK: u64 = (1u64 << ADDR_BITS) - 1;
/// Regions addressable with the bits left over.
pub const MAX_REGIONS: u64 = 1u64 << (64 - ADDR_BITS);

/// A mapped block of memory.
#[derive(Clone, Copy, Debug)]
pub struct Region {
    pub base: *mut u8,
    pub len: u64,
}

impl Region {
    pub const EMPTY: Region = Region { base: std::ptr::null_mut(), len: 0 };
}

/// The host address of `size` bytes at tagged address `a`, if they lie
/// inside one region.
#[inline(always)]
pub fn resolve(regions: &[Region], a: u64, size: u64) -> Option<*mut u8> {
    let r = (a >> ADDR_BITS) as usize;
    let off = a & OFF_MASK;
    let reg = regions.get(r)?;
    if size <= reg.len && off <= reg.len - size {
        // SAFETY: off + size <= len, and base points to len bytes.
        Some(unsafe { reg.base.add(off as usize) })
    } else {
        None
    }
}

/// Reads `size` (1 to 8) bytes little-endian.
///
/// # Safety
/// `p` must point to `size` readable bytes.
#[inline(always)]
pub unsafe fn read(p: *const u8, size: u8) -> u64 {
    match size {
        1 => *p as u64,
        2 => (p as *const u16).read_unaligned() as u64,
        4 => (p as *const u32).read_unaligned() as u64,
        8 => (p as *const u64).read_unaligned(),
        n => {
            let mut b = [0u8; 8];
            std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), n as usize);
            u64::from_le_bytes(b)
        }
    }
}

/// Writes the low `size` (1 to 8) bytes of `v` little-endian.
///
/// # Safety
/// `p` must point to `size` writable bytes.
#[inline(always)]
pub unsafe fn write(p: *mut u8, size: u8, v: u64) {
    match size {
        1 => *p = v as u8,
        2 => (p as *mut u16).write_unaligned(v as u16),
        4 => (p as *mut u32).write_unaligned(v as u32),
        8 => (p as *mut u64).write_unaligned(v),
        n => std::ptr::copy_nonoverlapping(v.to_le_bytes().as_ptr(), p, n as usize),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds() {
        let mut a = [0u8; 16];
        let regions = [Region::EMPTY, Region { base: a.as_mut_ptr(), len: 16 }];
        let base = 1u64 << ADDR_BITS;
        assert!(resolve(&regions, 0, 1).is_none());
        assert!(resolve(&regions, base, 16).is_some());
        assert!(resolve(&regions, base + 12, 4).is_some());
        assert!(resolve(&regions, base + 13, 4).is_none());
        assert!(resolve(&regions, base.wrapping_sub(4), 4).is_none());
        assert!(resolve(&regions, 2 << ADDR_BITS, 1).is_none());
        assert!(resolve(&regions, base + 8, u64::MAX - 4).is_none());
        unsafe {
            write(a.as_mut_ptr().add(3), 4, 0xdead_beef);
            assert_eq!(read(a.as_ptr().add(3), 4), 0xdead_beef);
            write(a.as_mut_ptr(), 3, 0x0102_0304);
            assert_eq!(read(a.as_ptr(), 3), 0x02_0304);
        }
    }
}
