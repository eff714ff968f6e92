//! `--check races`: data races on `__local` and `__global` memory.
//!
//! Two accesses race when they touch the same byte, come from different
//! work-items, at least one is a plain (non-atomic) write, and nothing
//! orders them: within a work-group, a barrier orders everything before it
//! with everything after it; work-groups of one launch are never ordered.
//! Atomics do not race with each other, nor with plain reads: OpenCL 1.2
//! has no atomic load, so a compare-and-swap loop starts with a plain read
//! of a location other work-items update atomically (`old = *p; while
//! (atomic_cmpxchg(p, old, f(old)) != old) …`), and the read gets some value
//! the atomics produced.
//!
//! The detector keys everything on work-item ids and barrier epochs (the
//! barriers a work-group has passed), never on lanes or warps, and decides
//! only at the end of an epoch, from summaries that do not depend on the
//! order in which the accesses happened: so warp width and reconvergence
//! policy, which change only that order, do not change what it reports.
//!
//! Per byte and epoch it keeps, for each kind of access (read, write,
//! atomic), the two smallest (instruction, work-item) pairs with different
//! work-items ([`Two`]): enough to find a conflicting pair whenever one
//! exists, and a canonical one. At the end of an epoch (a barrier, or the
//! work-group's end) every byte touched in it is checked; a `__global` byte
//! is also checked against the first access of each kind by an earlier
//! work-group (work-groups run one after another), and its own first
//! accesses are recorded there for the work-groups after it. Like Oclgrind's
//! race detector (per-byte access records checked at barriers and at the end
//! of each work-group), but without its per-fence distinction: any barrier
//! orders both address spaces here.

use super::shadow::Shadow;
use super::{Access, Finding, Kind, Space};

/// (instruction << 32 | work-item); `NONE` when absent. Ordered by
/// instruction first, so the pair a report names is the earliest in the code.
type Key = u64;
const NONE: Key = u64::MAX;

fn item_of(k: Key) -> u32 {
    k as u32
}

/// The two smallest keys with different work-items: `a` the smallest, `b`
/// the smallest of the others' work-items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Two {
    a: Key,
    b: Key,
}

impl Two {
    const EMPTY: Two = Two { a: NONE, b: NONE };

    fn add(&mut self, k: Key) {
        if k < self.a {
            if item_of(k) != item_of(self.a) {
                self.b = self.a;
            }
            self.a = k;
        } else if item_of(k) != item_of(self.a) && k < self.b {
            self.b = k;
        }
    }

    fn keys(&self) -> [Key; 2] {
        [self.a, self.b]
    }
}

/// A byte's accesses in the current epoch of the current work-group.
#[derive(Clone, Copy, Debug)]
struct EpochCell {
    /// The epoch these summaries belong to; 0: none yet.
    epoch: u64,
    read: Two,
    write: Two,
    atomic: Two,
}

impl Default for EpochCell {
    fn default() -> Self {
        EpochCell { epoch: 0, read: Two::EMPTY, write: Two::EMPTY, atomic: Two::EMPTY }
    }
}

/// A `__global` byte's first access of each kind over the work-groups done
/// so far, with its work-group.
#[derive(Clone, Copy, Debug)]
struct LaunchCell {
    read: (Key, u64),
    write: (Key, u64),
    atomic: (Key, u64),
}

impl Default for LaunchCell {
    fn default() -> Self {
        LaunchCell { read: (NONE, 0), write: (NONE, 0), atomic: (NONE, 0) }
    }
}

/// The kinds that conflict, in the order reports are looked for: a plain
/// write with anything.
const CONFLICTS: [(Kind, Kind); 3] = [(Kind::Write, Kind::Write), (Kind::Write, Kind::Read), (Kind::Write, Kind::Atomic)];

pub struct Races {
    /// Epochs counted over the whole launch (never reused, so a new
    /// work-group needs no clearing).
    epoch: u64,
    group: u64,
    epochs: Shadow<EpochCell>,
    launch: Shadow<LaunchCell>,
    /// Bytes first touched in this epoch: (region, offset, space).
    dirty: Vec<(u32, u64, Space)>,
}

impl Races {
    pub fn new() -> Races {
        Races { epoch: 1, group: 0, epochs: Shadow::new(), launch: Shadow::new(), dirty: Vec::new() }
    }

    /// Host bytes of shadow memory.
    pub fn host_bytes(&self) -> u64 {
        self.epochs.host_bytes() + self.launch.host_bytes()
    }

    pub fn begin_group(&mut self, group: u64) {
        self.group = group;
        self.epoch += 1;
    }

    /// `size` bytes at `off` of region `r` (in `space`), by work-item
    /// `item` at instruction `inst`, `by` = (`inst`, `item`).
    #[inline]
    pub fn access(&mut self, r: u32, off: u64, size: u64, space: Space, kind: Kind, by: (u32, u32)) {
        let key = (by.0 as u64) << 32 | by.1 as u64;
        let mut b = off;
        while b < off + size {
            let run = self.epochs.run_mut(r, b, off + size - b);
            for c in run.iter_mut() {
                if c.epoch != self.epoch {
                    *c = EpochCell { epoch: self.epoch, ..EpochCell::default() };
                    self.dirty.push((r, b, space));
                }
                match kind {
                    Kind::Read => c.read.add(key),
                    Kind::Write => c.write.add(key),
                    Kind::Atomic => c.atomic.add(key),
                }
                b += 1;
            }
        }
    }

    /// A barrier, or the end of the work-group: checks the epoch's bytes.
    pub fn end_epoch(&mut self, report: &mut impl FnMut(Finding)) {
        // Reported in address order (the order bytes were touched in
        // depends on the warps), the first of each pair of instructions
        // being the one kept.
        let mut found = Vec::new();
        let mut out = |f: Finding| found.push(f);
        let group = self.group;
        let side = |k: Key, kind: Kind, group: u64| Access { inst: (k >> 32) as u32, item: item_of(k), group, kind };
        for &(r, b, space) in &self.dirty {
            let c = *self.epochs.get_mut(r, b);
            let of = |kind: Kind| match kind {
                Kind::Read => c.read,
                Kind::Write => c.write,
                Kind::Atomic => c.atomic,
            };
            for (x, y) in CONFLICTS {
                let pair = of(x)
                    .keys()
                    .into_iter()
                    .flat_map(|kx| of(y).keys().into_iter().map(move |ky| (kx, ky)))
                    .find(|&(kx, ky)| kx != NONE && ky != NONE && item_of(kx) != item_of(ky));
                if let Some((kx, ky)) = pair {
                    out(Finding::Race { space, a: side(kx, x, group), b: side(ky, y, group), region: r, off: b });
                }
            }
            if space != Space::Global {
                continue;
            }
            // Against the earlier work-groups: their x with this epoch's y,
            // and their y with this epoch's x.
            let l = self.launch.get_mut(r, b);
            let earlier = |kind: Kind| match kind {
                Kind::Read => l.read,
                Kind::Write => l.write,
                Kind::Atomic => l.atomic,
            };
            for (x, y) in CONFLICTS {
                for (ex, my) in [(x, y), (y, x)] {
                    let ((ke, ge), km) = (earlier(ex), of(my).a);
                    if ke != NONE && ge != group && km != NONE {
                        out(Finding::Race { space, a: side(ke, ex, ge), b: side(km, my, group), region: r, off: b });
                    }
                    if x == y {
                        break;
                    }
                }
            }
            for (slot, k) in [(&mut l.read, c.read.a), (&mut l.write, c.write.a), (&mut l.atomic, c.atomic.a)] {
                if slot.0 == NONE && k != NONE {
                    *slot = (k, group);
                }
            }
        }
        self.dirty.clear();
        self.epoch += 1;
        found.sort_by_key(|f| match *f {
            Finding::Race { region, off, a, b, .. } => (region, off, a.group, b.group),
            Finding::Uninit { region, off, .. } => (region, off, 0, 0),
            // Not found here.
            Finding::Warp { .. } => (0, 0, 0, 0),
        });
        found.into_iter().for_each(report);
    }

    /// The end of the work-group: its last epoch.
    pub fn end_group(&mut self, out: &mut impl FnMut(Finding)) {
        self.end_epoch(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Two` against brute force: the smallest key, and the smallest key of
    /// another work-item, over every order of a few accesses.
    #[test]
    fn two_keeps_the_two_smallest_with_distinct_items() {
        let keys: Vec<Key> = [(3, 1), (1, 2), (2, 1), (1, 1), (5, 3), (0, 3)].iter().map(|&(i, w)| (i as u64) << 32 | w).collect();
        let mut rng = 1u64;
        for _ in 0..200 {
            let mut ks = keys.clone();
            for k in (1..ks.len()).rev() {
                rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ks.swap(k, (rng >> 33) as usize % (k + 1));
            }
            let n = (rng >> 40) as usize % ks.len() + 1;
            let mut t = Two::EMPTY;
            for &k in &ks[..n] {
                t.add(k);
            }
            let a = *ks[..n].iter().min().unwrap();
            let b = ks[..n].iter().copied().filter(|&k| item_of(k) != item_of(a)).min().unwrap_or(NONE);
            assert_eq!(t, Two { a, b }, "{:?}", &ks[..n]);
        }
    }

    fn races(r: &mut Races, f: impl FnOnce(&mut Races, &mut dyn FnMut(Finding))) -> Vec<Finding> {
        let mut v = Vec::new();
        f(r, &mut |x| v.push(x));
        v
    }

    #[test]
    fn a_barrier_orders_a_work_group_but_not_work_groups() {
        let mut r = Races::new();
        r.begin_group(0);
        // Work-item 1 writes byte 0, work-item 2 reads it after a barrier: no race.
        r.access(1, 0, 1, Space::Local, Kind::Write, (7, 1));
        assert!(races(&mut r, |r, o| r.end_epoch(&mut |x| o(x))).is_empty());
        r.access(1, 0, 1, Space::Local, Kind::Read, (8, 2));
        // Work-item 3 writes it in the same epoch: a race with the read.
        r.access(1, 0, 1, Space::Local, Kind::Write, (9, 3));
        // Atomics of two work-items: no race.
        r.access(2, 4, 4, Space::Global, Kind::Atomic, (10, 1));
        r.access(2, 4, 4, Space::Global, Kind::Atomic, (10, 2));
        let found = races(&mut r, |r, o| r.end_group(&mut |x| o(x)));
        assert_eq!(found.len(), 1, "{found:?}");
        let Finding::Race { a, b, .. } = found[0] else { panic!() };
        assert_eq!((a.inst, a.item, a.kind, b.inst, b.item, b.kind), (9, 3, Kind::Write, 8, 2, Kind::Read));
        // Another work-group's plain read of the atomically updated bytes
        // does not race with them; its plain write does.
        r.begin_group(1);
        r.access(2, 4, 1, Space::Global, Kind::Read, (11, 0));
        assert!(races(&mut r, |r, o| r.end_epoch(&mut |x| o(x))).is_empty());
        r.access(2, 5, 1, Space::Global, Kind::Write, (12, 0));
        let found = races(&mut r, |r, o| r.end_group(&mut |x| o(x)));
        assert_eq!(found.len(), 1, "{found:?}");
        let Finding::Race { a, b, .. } = found[0] else { panic!() };
        assert_eq!((a.group, a.kind, b.group, b.kind), (0, Kind::Atomic, 1, Kind::Write));
    }
}
