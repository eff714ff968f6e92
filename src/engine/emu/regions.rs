//! The emulator's mapped memory: a table of regions over byte buffers,
//! addressed by the tagged addresses of [`memory`](super::memory)
//! (`region << ADDR_BITS | offset`), every access bounds-checked.
//!
//! This is the one module of the emulator that touches memory through raw
//! pointers (the emulator's only other `unsafe` is in [`regfile`](super::regfile)
//! and [`math`](super::math), each with the reason it is sound). It needs them because the
//! table maps both buffers it borrows (the launch's arguments, for `'a`)
//! and buffers it owns (local, private and global memory), and lanes access
//! any of them, one to eight bytes at a time, at run-time addresses.
//!
//! The invariant: **every mapped region's `base` points to `len` bytes that
//! stay valid, and are accessed only through this table, for as long as the
//! table lives.** Borrowed buffers are held by the `&'a mut` they were
//! mapped from (the table's lifetime is tied to it); owned ones are leaked
//! boxes freed in `Drop`, never touched through a `Box` while mapped (so no
//! retag invalidates the pointers). An alias region maps a slice of another
//! one's bytes. Unmapped regions have `len` 0. Every
//! access checks `off + size <= len` first, so it stays inside its region.

use super::memory::{ADDR_BITS, OFF_MASK};
use std::marker::PhantomData;

#[derive(Clone, Copy, Debug)]
struct Region {
    base: *mut u8,
    len: u64,
}

impl Region {
    const EMPTY: Region = Region { base: std::ptr::null_mut(), len: 0 };
}

/// A buffer the table owns, to be cleared with [`Regions::zero`].
#[derive(Clone, Copy, Debug)]
pub struct Owned(usize);

/// Which side of a copy was outside its region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Dst,
    Src,
}

/// The region table; see the module documentation.
pub struct Regions<'a> {
    table: Vec<Region>,
    /// Owned buffers as leaked boxes (pointer, length), freed in `Drop`.
    owned: Vec<(*mut u8, usize)>,
    _borrowed: PhantomData<&'a mut [u8]>,
}

impl<'a> Regions<'a> {
    /// `n` unmapped regions.
    pub fn new(n: usize) -> Regions<'a> {
        Regions { table: vec![Region::EMPTY; n], owned: Vec::new(), _borrowed: PhantomData }
    }

    /// Maps region `r` onto `bytes`, borrowed for the table's life.
    pub fn map(&mut self, r: usize, bytes: &'a mut [u8]) {
        self.table[r] = Region { base: bytes.as_mut_ptr(), len: bytes.len() as u64 };
    }

    /// Maps region `r` onto `bytes`, which the table takes.
    pub fn map_owned(&mut self, r: usize, bytes: Vec<u8>) -> Owned {
        assert!(r < self.table.len(), "region {r} out of range");
        let (base, len) = self.own(bytes);
        self.table[r] = Region { base, len: len as u64 };
        Owned(self.owned.len() - 1)
    }

    /// Maps regions `first..first + count` onto consecutive `chunk`-byte
    /// pieces of one zeroed buffer the table owns.
    pub fn map_owned_split(&mut self, first: usize, count: usize, chunk: usize) -> Owned {
        assert!(first.checked_add(count).is_some_and(|end| end <= self.table.len()), "regions {first}+{count} out of range");
        let total = count.checked_mul(chunk).expect("private memory size overflows");
        let (base, _) = self.own(vec![0u8; total]);
        for k in 0..count {
            // SAFETY: `k * chunk + chunk <= total`, the buffer's length.
            self.table[first + k] = Region { base: unsafe { base.add(k * chunk) }, len: chunk as u64 };
        }
        Owned(self.owned.len() - 1)
    }

    /// Maps region `r` onto bytes `start..start + len` of the mapped
    /// region `of`: an alias, both name the same bytes (an object inside
    /// its memory, `engine::emu::objects`).
    pub fn map_alias(&mut self, r: usize, of: usize, start: u64, len: u64) {
        let o = self.table[of];
        assert!(start.checked_add(len).is_some_and(|end| end <= o.len), "alias {start}+{len} outside region {of} ({} bytes)", o.len);
        // SAFETY: `start + len <= o.len`, so the slice lies in `of`'s bytes.
        let base = if len == 0 { o.base } else { unsafe { o.base.add(start as usize) } };
        self.table[r] = Region { base, len };
    }

    fn own(&mut self, bytes: Vec<u8>) -> (*mut u8, usize) {
        let len = bytes.len();
        let base = Box::into_raw(bytes.into_boxed_slice()).cast::<u8>();
        self.owned.push((base, len));
        (base, len)
    }

    /// Sets an owned buffer's bytes to 0.
    pub fn zero(&mut self, o: Owned) {
        let (base, len) = self.owned[o.0];
        // SAFETY: an owned buffer is `len` bytes, live until `Drop`.
        unsafe { std::ptr::write_bytes(base, 0, len) }
    }

    /// The length of region `r` (0 when unmapped or out of range).
    pub fn len_of(&self, r: u64) -> u64 {
        usize::try_from(r).ok().and_then(|r| self.table.get(r)).map_or(0, |g| g.len)
    }

    /// The regions as a value the interpreter keeps in a local for a run
    /// (the table's address and length stay in machine registers).
    #[inline(always)]
    pub fn view(&mut self) -> Mem<'_> {
        Mem { table: &self.table }
    }
}

/// The accesses, on a [`Regions`] borrowed exclusively for `'b` (so, through
/// the invariant, nothing else touches its memory meanwhile).
pub struct Mem<'b> {
    table: &'b [Region],
}

impl Mem<'_> {
    /// The host address of `size` bytes at tagged address `a`, if they lie
    /// inside one region.
    #[inline(always)]
    fn resolve(&self, a: u64, size: u64) -> Option<*mut u8> {
        let reg = self.table.get((a >> ADDR_BITS) as usize)?;
        let off = a & OFF_MASK;
        if size <= reg.len && off <= reg.len - size {
            // SAFETY: off + size <= len, and base points to len bytes.
            Some(unsafe { reg.base.add(off as usize) })
        } else {
            None
        }
    }

    /// Reads `size` (1 to 8) bytes little-endian at `a`.
    #[inline(always)]
    pub fn load(&self, a: u64, size: u8) -> Option<u64> {
        assert!((1..=8).contains(&size), "a load of {size} bytes");
        let p = self.resolve(a, size as u64)?;
        // SAFETY: `resolve` checked that `size` bytes at `p` lie in a mapped region.
        Some(unsafe { read(p, size) })
    }

    /// Writes the low `size` (1 to 8) bytes of `v` little-endian at `a`.
    #[inline(always)]
    pub fn store(&self, a: u64, size: u8, v: u64) -> Option<()> {
        assert!((1..=8).contains(&size), "a store of {size} bytes");
        let p = self.resolve(a, size as u64)?;
        // SAFETY: as in `load`; the table holds the only access to the region.
        unsafe { write(p, size, v) };
        Some(())
    }

    /// Reads `size` bytes at `a`, then writes `f(old)` there if it is
    /// `Some`; answers the old value.
    #[inline(always)]
    pub fn update(&self, a: u64, size: u8, f: impl FnOnce(u64) -> Option<u64>) -> Option<u64> {
        assert!((1..=8).contains(&size), "an access of {size} bytes");
        let p = self.resolve(a, size as u64)?;
        // SAFETY: as in `load` and `store`.
        unsafe {
            let old = read(p, size);
            if let Some(new) = f(old) {
                write(p, size, new);
            }
            Some(old)
        }
    }

    /// Copies `len` bytes from `src` to `dst` (which may overlap).
    pub fn copy(&self, dst: u64, src: u64, len: u64) -> Result<(), Side> {
        let dp = self.resolve(dst, len).ok_or(Side::Dst)?;
        let sp = self.resolve(src, len).ok_or(Side::Src)?;
        // SAFETY: both ranges lie in mapped regions; `copy` allows overlap.
        unsafe { std::ptr::copy(sp, dp, len as usize) };
        Ok(())
    }

    /// Sets `len` bytes at `dst` to `byte`.
    pub fn fill(&self, dst: u64, byte: u8, len: u64) -> Option<()> {
        let dp = self.resolve(dst, len)?;
        // SAFETY: the range lies in a mapped region.
        unsafe { std::ptr::write_bytes(dp, byte, len as usize) };
        Some(())
    }
}

impl Drop for Regions<'_> {
    fn drop(&mut self) {
        for &(base, len) in &self.owned {
            // SAFETY: each owned buffer came from `Box::into_raw` of a boxed
            // slice of `len` bytes and is freed once, here.
            drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(base, len)) });
        }
    }
}

/// # Safety
/// `p` must point to `size` (1 to 8) readable bytes.
#[inline(always)]
unsafe fn read(p: *const u8, size: u8) -> u64 {
    // SAFETY: the caller's promise.
    unsafe {
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
}

/// # Safety
/// `p` must point to `size` (1 to 8) writable bytes.
#[inline(always)]
unsafe fn write(p: *mut u8, size: u8, v: u64) {
    // SAFETY: the caller's promise.
    unsafe {
        match size {
            1 => *p = v as u8,
            2 => (p as *mut u16).write_unaligned(v as u16),
            4 => (p as *mut u32).write_unaligned(v as u32),
            8 => (p as *mut u64).write_unaligned(v),
            n => std::ptr::copy_nonoverlapping(v.to_le_bytes().as_ptr(), p, n as usize),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_and_widths() {
        let mut a = vec![0u8; 16];
        let mut regions = Regions::new(3);
        regions.map(1, &mut a);
        let o = regions.map_owned(2, vec![7u8; 4]);
        let base = 1u64 << ADDR_BITS;
        {
            let m = regions.view();
            assert!(m.load(base + 12, 4).is_some());
            assert!(m.load(base + 13, 4).is_none());
            assert!(m.load(base.wrapping_sub(4), 4).is_none());
            assert!(m.load(3 << ADDR_BITS, 1).is_none());
            assert!(m.fill(base + 8, 0, u64::MAX - 4).is_none());
            m.store(base + 3, 4, 0xdead_beef).unwrap();
            assert_eq!(m.load(base + 3, 4), Some(0xdead_beef));
            m.store(base, 3, 0x0102_0304).unwrap();
            assert_eq!(m.load(base, 3), Some(0x02_0304));
            assert_eq!(m.copy(base + 15, base, 2), Err(Side::Dst));
            assert_eq!(m.copy(base, base + 15, 2), Err(Side::Src));
            m.copy(base + 1, base, 4).unwrap();
            assert_eq!(m.load(base + 1, 4), Some(0xef02_0304)); // byte 3 is 0xef from the first store
            assert_eq!(m.load(2 << ADDR_BITS, 4), Some(0x0707_0707));
        }
        regions.zero(o);
        assert_eq!(regions.view().load(2 << ADDR_BITS, 4), Some(0));
        assert_eq!(regions.len_of(1), 16);
        drop(regions);
        assert_eq!(a[1..5], [4, 3, 2, 0xef]);
    }

    #[test]
    fn aliases_share_bytes_and_have_their_own_bounds() {
        let mut regions = Regions::new(4);
        let o = regions.map_owned(1, vec![0u8; 16]);
        regions.map_alias(2, 1, 4, 8);
        regions.map_alias(3, 1, 12, 4);
        let (whole, a, b) = (1u64 << ADDR_BITS, 2u64 << ADDR_BITS, 3u64 << ADDR_BITS);
        {
            let m = regions.view();
            m.store(a + 4, 4, 0xdead_beef).unwrap();
            assert_eq!(m.load(whole + 8, 4), Some(0xdead_beef));
            // One past the alias's end is out of bounds, though its memory goes on.
            assert!(m.load(a + 8, 4).is_none());
            assert!(m.load(whole + 12, 4).is_some());
            m.store(b, 4, 7).unwrap();
            assert_eq!(m.load(whole + 12, 4), Some(7));
        }
        regions.zero(o);
        assert_eq!(regions.view().load(a + 4, 4), Some(0));
        assert_eq!((regions.len_of(2), regions.len_of(3)), (8, 4));
    }
}
