//! `--check uninit`: reads of `__local` or private memory that no work-item
//! of the work-group wrote.
//!
//! "Before" must not depend on the order the emulator happens to run
//! work-items in, so a read is judged as the races check judges accesses, by
//! barrier epochs: a byte written in an earlier epoch of the work-group, or
//! earlier by the same work-item, is initialised; one written in the same
//! epoch by another work-item is a race (the `races` check's business), not
//! an uninitialised read; anything else is. Reads that cannot be judged yet
//! (nothing wrote the byte so far in this epoch, but someone else still may)
//! wait for the end of the epoch.
//!
//! Each byte's shadow holds the epoch of its first write in the work-group
//! and the writer(s) of the current epoch; epochs are counted over the whole
//! launch, so a new work-group starts with every byte unwritten and nothing
//! to clear. Copies (`llvm.memcpy`) copy the bytes' state and report
//! nothing: copying a struct with an unwritten field is fine until the field
//! is read (a copied unwritten byte leaves the destination as it was).
//! `__global` memory is initialised by the host and not checked.

use super::shadow::Shadow;

#[derive(Clone, Copy, Debug, Default)]
struct Cell {
    /// Epoch of the first write in the current work-group (older: unwritten).
    first: u64,
    /// Epoch of `writer`.
    epoch: u64,
    /// A work-item that wrote the byte in `epoch`.
    writer: u32,
    /// Another work-item wrote it in `epoch` too.
    many: bool,
}

/// A byte read before anyone wrote it in this epoch: (instruction, work-item,
/// region, offset).
type Pending = (u32, u32, u32, u64);

pub struct Uninit {
    epoch: u64,
    /// The first epoch of the current work-group.
    group_start: u64,
    cells: Shadow<Cell>,
    pending: Vec<Pending>,
    /// `pending`'s length at which its duplicates are dropped (a loop that
    /// keeps reading the same unwritten bytes adds the same entries).
    compact_at: usize,
}

impl Uninit {
    pub fn new() -> Uninit {
        Uninit { epoch: 0, group_start: 1, cells: Shadow::new(), pending: Vec::new(), compact_at: 1 << 16 }
    }

    /// Host bytes of shadow memory.
    pub fn host_bytes(&self) -> u64 {
        self.cells.host_bytes()
    }

    pub fn begin_group(&mut self) {
        self.epoch += 1;
        self.group_start = self.epoch;
    }

    /// `item` wrote `size` bytes at `off` of region `r`.
    #[inline]
    pub fn write(&mut self, r: u32, off: u64, size: u64, item: u32) {
        let e = self.epoch;
        for b in off..off + size {
            let c = self.cells.get_mut(r, b);
            if c.first < self.group_start {
                c.first = e;
            }
            if c.epoch != e {
                *c = Cell { epoch: e, writer: item, many: false, ..*c };
            } else if c.writer != item {
                c.many = true;
            }
        }
    }

    /// `item` read `size` bytes at `off` of region `r` at instruction `inst`.
    #[inline]
    pub fn read(&mut self, r: u32, off: u64, size: u64, item: u32, inst: u32) {
        let e = self.epoch;
        for b in off..off + size {
            let c = self.cells.get(r, b).copied().unwrap_or_default();
            let earlier = c.first >= self.group_start && c.first < e;
            // Written in this epoch: by this work-item (initialised), or by
            // another (a race, not this check's).
            if !earlier && c.epoch != e {
                self.pending.push((inst, item, r, b));
            }
        }
        if self.pending.len() >= self.compact_at {
            self.pending.sort_unstable();
            self.pending.dedup();
            self.compact_at = (2 * self.pending.len()).max(1 << 16);
        }
    }

    /// Whether byte `off` of region `r` holds a value written in this
    /// work-group (for copies: no report, no waiting).
    fn written(&self, r: u32, off: u64) -> bool {
        self.cells.get(r, off).is_some_and(|c| c.first >= self.group_start)
    }

    /// `item` copied `len` bytes from `src` (`None`: memory not checked, so
    /// written) to `dst`.
    pub fn copy(&mut self, dst: (u32, u64), src: Option<(u32, u64)>, len: u64, item: u32) {
        for k in 0..len {
            if src.is_none_or(|(r, off)| self.written(r, off + k)) {
                self.write(dst.0, dst.1 + k, 1, item);
            }
        }
    }

    /// The end of an epoch (a barrier, or the work-group's end): the waiting
    /// reads that nobody else wrote in the epoch are uninitialised, in
    /// (instruction, work-item, address) order.
    pub fn end_epoch(&mut self, out: &mut impl FnMut(Pending)) {
        self.pending.sort_unstable();
        self.pending.dedup();
        let e = self.epoch;
        for &(inst, item, r, b) in &self.pending {
            let c = self.cells.get(r, b).copied().unwrap_or_default();
            if !(c.epoch == e && (c.many || c.writer != item)) {
                out((inst, item, r, b));
            }
        }
        self.pending.clear();
        self.epoch += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn end(u: &mut Uninit) -> Vec<Pending> {
        let mut v = Vec::new();
        u.end_epoch(&mut |p| v.push(p));
        v
    }

    #[test]
    fn judged_by_epochs_not_by_order() {
        let mut u = Uninit::new();
        u.begin_group();
        // Work-item 1 reads byte 0 before work-item 2 writes it: a race, not
        // an uninitialised read.
        u.read(5, 0, 1, 1, 10);
        u.write(5, 0, 1, 2);
        // Work-item 3 reads byte 8 before writing it itself: uninitialised.
        u.read(5, 8, 1, 3, 11);
        u.write(5, 8, 1, 3);
        // Work-item 4 writes byte 16, then reads it: fine.
        u.write(5, 16, 1, 4);
        u.read(5, 16, 1, 4, 12);
        assert_eq!(end(&mut u), vec![(11, 3, 5, 8)]);
        // After the barrier everything written before is initialised.
        u.read(5, 0, 1, 7, 13);
        u.read(5, 24, 1, 7, 14);
        assert_eq!(end(&mut u), vec![(14, 7, 5, 24)]);
        // A new work-group starts unwritten; copies carry the state.
        u.begin_group();
        u.write(5, 0, 2, 0);
        u.copy((5, 40), Some((5, 0)), 4, 0);
        u.read(5, 40, 4, 0, 15);
        assert_eq!(end(&mut u), vec![(15, 0, 5, 42), (15, 0, 5, 43)]);
    }
}
