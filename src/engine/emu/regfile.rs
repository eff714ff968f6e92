//! A warp's register file for the emulator, indexed by (register offset,
//! lane) without a bounds check.
//!
//! The interpreter (`src/engine/emu/exec.rs`) reads and writes registers at
//! `offset + lane` (offset = slot × width) several times per lane per
//! instruction, in loops over the lanes that the compiler vectorises when
//! nothing can panic inside them. A bounds check on each access costs it
//! 15 % and more (bench-emu's launches). The decoder's `Program::validate`
//! already guarantees every offset's leaves lie below `nslots × width`, but a
//! safe type cannot rely on a check made elsewhere, so this one makes every
//! index harmless instead:
//!
//! **Invariant: `words.len() == span + LANES`, where `span` is a power of
//! two, `omask == span - 1`.** [`RegFile::new`], the only constructor, sets
//! it up and nothing changes the length afterwards. An access at
//! `(offset, lane)` reads word `(offset & omask) + (lane & (LANES - 1))`,
//! at most `span - 1 + LANES - 1 < words.len()`: in bounds for every
//! argument. For a validated program (`offset + lane < nslots × width <=
//! span`, `lane < width <= LANES`) both masks change nothing, and for
//! consecutive lanes the words are consecutive, so the lane loops still
//! vectorise; a bug elsewhere would read or write another register of the
//! same warp, never memory outside it.

use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// Lanes per warp at most.
pub const LANES: usize = 64;

#[derive(Clone, Debug)]
pub struct RegFile {
    words: Box<[u64]>,
    omask: usize,
}

impl RegFile {
    /// At least `len` zeroed registers.
    pub fn new(len: usize) -> RegFile {
        let span = len.max(1).checked_next_power_of_two().expect("register file too large");
        RegFile { words: vec![0u64; span + LANES].into_boxed_slice(), omask: span - 1 }
    }

    /// The registers as a value the interpreter keeps in a local for the
    /// length of a run: its base and mask then stay in machine registers
    /// instead of being reloaded after every store (which the compiler
    /// must assume could alias a `RegFile` behind a reference).
    #[inline(always)]
    pub fn view(&mut self) -> Regs<'_> {
        Regs { base: self.words.as_mut_ptr(), omask: self.omask, _file: PhantomData }
    }

    /// Sets registers `start..start + n` to `v` (bounds-checked).
    pub fn fill(&mut self, start: usize, n: usize, v: u64) {
        self.words[start..start + n].fill(v);
    }
}

impl Default for RegFile {
    fn default() -> RegFile {
        RegFile::new(0)
    }
}

/// Word `i`, bounds-checked (for setting up, not for the interpreter's loop).
impl Index<usize> for RegFile {
    type Output = u64;

    fn index(&self, i: usize) -> &u64 {
        &self.words[i]
    }
}

impl IndexMut<usize> for RegFile {
    fn index_mut(&mut self, i: usize) -> &mut u64 {
        &mut self.words[i]
    }
}

/// A [`RegFile`] borrowed exclusively for `'a`: its base (`omask + 1 +
/// LANES` words) and offset mask, the same invariant.
pub struct Regs<'a> {
    base: *mut u64,
    omask: usize,
    _file: PhantomData<&'a mut [u64]>,
}

impl Regs<'_> {
    #[inline(always)]
    fn word(&self, offset: u32, lane: usize) -> usize {
        (offset as usize & self.omask) + (lane & (LANES - 1))
    }
}

/// Register `(offset, lane)`; see the module documentation.
impl Index<(u32, usize)> for Regs<'_> {
    type Output = u64;

    #[inline(always)]
    fn index(&self, (offset, lane): (u32, usize)) -> &u64 {
        // SAFETY: `word(..) <= omask + LANES - 1`, below the `omask + 1 +
        // LANES` words `base` points to, borrowed for the view's life.
        unsafe { &*self.base.add(self.word(offset, lane)) }
    }
}

impl IndexMut<(u32, usize)> for Regs<'_> {
    #[inline(always)]
    fn index_mut(&mut self, (offset, lane): (u32, usize)) -> &mut u64 {
        // SAFETY: as in `index`; `&mut self` makes the access exclusive.
        unsafe { &mut *self.base.add(self.word(offset, lane)) }
    }
}

#[cfg(test)]
mod tests {
    use super::RegFile;

    #[test]
    fn every_index_stays_inside() {
        let mut r = RegFile::new(5);
        r[3] = 7;
        r.fill(4, 2, 1);
        let mut v = r.view();
        assert_eq!(v[(3, 0)], 7);
        assert_eq!(v[(2, 1)], 7);
        assert_eq!(v[(8 + 3, 64)], 7); // both masks wrap: no UB
        v[(u32::MAX, usize::MAX)] = 9;
        assert_eq!(v[(7, 63)], 9);
        assert_eq!(r[5], 1);
        assert_eq!(RegFile::new(0).view()[(123, 456)], 0);
    }
}
