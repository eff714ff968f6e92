//! Shadow memory: one `T` per byte of the emulator's regions, allocated a
//! page at a time on first touch, so a checker costs memory only for the
//! bytes a launch touches (a 1 GiB buffer of which a kernel reads 4 KiB costs
//! 4 KiB of shadow pages).

/// Bytes per shadow page.
const PAGE: u64 = 1024;

/// Per region, per page: the shadow of each byte, `T::default()` until set.
pub struct Shadow<T> {
    regions: Vec<Vec<Option<Box<[T]>>>>,
    /// Pages made so far.
    pages: u64,
}

impl<T: Copy + Default> Shadow<T> {
    pub fn new() -> Shadow<T> {
        Shadow { regions: Vec::new(), pages: 0 }
    }

    /// The shadows of bytes `off..off + len` of region `r`, up to the end
    /// of `off`'s page (at least one byte when `len > 0`).
    #[inline]
    pub fn run_mut(&mut self, r: u32, off: u64, len: u64) -> &mut [T] {
        let n = len.min(PAGE - off % PAGE) as usize;
        self.get_mut(r, off); // makes the page
        let page = self.regions[r as usize][(off / PAGE) as usize].as_mut().expect("made by get_mut");
        let start = (off % PAGE) as usize;
        &mut page[start..start + n]
    }

    /// The shadow of byte `off` of region `r`.
    #[inline]
    pub fn get_mut(&mut self, r: u32, off: u64) -> &mut T {
        let r = r as usize;
        if r >= self.regions.len() {
            self.regions.resize_with(r + 1, Vec::new);
        }
        let pages = &mut self.regions[r];
        let page = (off / PAGE) as usize;
        if page >= pages.len() {
            pages.resize_with(page + 1, || None);
        }
        let made = &mut self.pages;
        let bytes = pages[page].get_or_insert_with(|| {
            *made += 1;
            vec![T::default(); PAGE as usize].into_boxed_slice()
        });
        &mut bytes[(off % PAGE) as usize]
    }

    /// Host bytes the pages take.
    pub fn host_bytes(&self) -> u64 {
        self.pages * PAGE * std::mem::size_of::<T>() as u64
    }

    /// The shadow of byte `off` of region `r`, if its page was touched.
    #[inline]
    pub fn get(&self, r: u32, off: u64) -> Option<&T> {
        self.regions.get(r as usize)?.get((off / PAGE) as usize)?.as_ref().map(|p| &p[(off % PAGE) as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_made_on_first_touch() {
        let mut s: Shadow<u32> = Shadow::new();
        assert!(s.get(3, 5000).is_none());
        *s.get_mut(3, 5000) = 7;
        assert_eq!(s.get(3, 5000), Some(&7));
        assert_eq!(s.get(3, 5001), Some(&0));
        assert!(s.get(3, 1).is_none());
        assert!(s.get(2, 5000).is_none());
        // A run stops at the end of its page.
        assert_eq!(s.run_mut(3, 1020, 10).len(), 4);
        assert_eq!(s.run_mut(3, 5000, 2), &[7, 0]);
    }
}
