//! `--check uninit`: reads of `__local` or private memory that no work-item
//! of the work-group wrote before (in any order: an uninitialised read is
//! about values, not ordering; `races` is about ordering).
//!
//! A byte's shadow is the serial of the last work-group that wrote it, so a
//! new work-group starts with every byte unwritten and nothing to clear.
//! Copies (`llvm.memcpy`) copy the shadow with the bytes and report nothing:
//! copying a struct with an unwritten field is fine until the field is read.
//! `__global` memory is initialised by the host and never checked.

use super::shadow::Shadow;

pub struct Uninit {
    /// Work-group serial + 1 (0 is "never written").
    serial: u32,
    written: Shadow<u32>,
}

impl Uninit {
    pub fn new() -> Uninit {
        Uninit { serial: 0, written: Shadow::new() }
    }

    pub fn begin_group(&mut self) {
        self.serial += 1;
    }

    /// Records a write of `size` bytes at `off` of region `r`.
    #[inline]
    pub fn write(&mut self, r: u32, off: u64, size: u64) {
        for b in off..off + size {
            *self.written.get_mut(r, b) = self.serial;
        }
    }

    /// The first byte of `size` at `off` of region `r` not yet written.
    #[inline]
    pub fn unwritten(&self, r: u32, off: u64, size: u64) -> Option<u64> {
        (off..off + size).find(|&b| self.written.get(r, b).is_none_or(|&s| s != self.serial))
    }

    /// `len` bytes copied from `src` (`None`: memory never checked, so
    /// written) to `dst`, byte by byte in order (as `memmove` does, the
    /// shadow of overlapping ranges is read before it is overwritten).
    pub fn copy(&mut self, dst: (u32, u64), src: Option<(u32, u64)>, len: u64) {
        let tags: Vec<bool> = match src {
            Some((r, off)) => (off..off + len).map(|b| self.written.get(r, b).is_some_and(|&s| s == self.serial)).collect(),
            None => vec![true; len as usize],
        };
        for (k, ok) in tags.into_iter().enumerate() {
            *self.written.get_mut(dst.0, dst.1 + k as u64) = if ok { self.serial } else { 0 };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_bytes_are_per_work_group() {
        let mut u = Uninit::new();
        u.begin_group();
        u.write(5, 4, 4);
        assert_eq!(u.unwritten(5, 4, 4), None);
        assert_eq!(u.unwritten(5, 2, 4), Some(2));
        u.copy((5, 16), Some((5, 3)), 3);
        assert_eq!(u.unwritten(5, 16, 1), Some(16));
        assert_eq!(u.unwritten(5, 17, 2), None);
        u.begin_group();
        assert_eq!(u.unwritten(5, 4, 4), Some(4));
    }
}
