//! `simt-run --engine emu --check LIST`: the emulator as a kernel checker.
//!
//! The emulator already executes every work-item and checks every access
//! against its region's bounds (`bounds`) and that all work-items of a
//! work-group reach the same barriers (`barriers`); both are always on and
//! stop the launch with an error. This module adds checks that watch memory
//! through per-byte shadow state and report what they find without stopping
//! the launch:
//!
//! - `races` (`races.rs`): data races on `__local` and `__global` memory (a plain
//!   write and another access of the same byte by another work-item), within
//!   a work-group (accesses not separated by a barrier) and between the
//!   work-groups of the launch;
//! - `uninit` (`uninit.rs`): reads of `__local` or private memory never written in the
//!   work-group (judged by barrier intervals, as races are);
//! - `warp` (`warp.rs`): CUDA warp functions whose member mask leaves out
//!   the calling lane, names a lane that does not take part in the call, or
//!   (shuffles) does not name the lane read.
//!
//! The interpreter calls [`Checker`] only when one of them is on (its loop
//! is compiled twice, `exec::<CHECKED>`, and the unchecked copy has no
//! checker calls at all); it names each access by
//! work-item (linear local id), instruction (index of its IR text) and
//! work-group, never by lane or warp (except `warp`'s, which are about
//! lanes). Findings are counted once per pair of instructions (per
//! instruction for `uninit`, per instruction and rule for `warp`); the
//! first [`MAX_REPORTS`] are
//! kept for the report ([`report`]). Shadow memory is capped at
//! [`MAX_SHADOW_BYTES`] per launch. The reference is Oclgrind's race
//! detector and uninitialised-memory plugins, and compute-sanitizer's
//! racecheck and initcheck.

mod races;
pub mod report;
mod shadow;
mod uninit;
pub mod warp;

use super::memory::{ADDR_BITS, OFF_MASK};
use super::program::WarpOp;
use crate::launch::Checks;
use std::collections::HashSet;

/// Reports kept in full; the others are counted.
pub const MAX_REPORTS: usize = 20;

/// Shadow memory allowed (host bytes): the races check keeps about 100
/// bytes per `__global` byte touched, so a launch touching more than about
/// 40 MiB of buffers stops with an error instead of exhausting the host.
pub const MAX_SHADOW_BYTES: u64 = 4 << 30;

/// What an access does to its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Read,
    Write,
    /// An atomic read-modify-write: races only with plain writes.
    Atomic,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Read => "read",
            Kind::Write => "write",
            Kind::Atomic => "atomic update",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Space {
    Global,
    Local,
    Private,
}

impl Space {
    pub fn name(self) -> &'static str {
        match self {
            Space::Global => "__global",
            Space::Local => "__local",
            Space::Private => "private",
        }
    }
}

/// One access of a finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// Index of the IR instruction's text ([`super::Program::text_place`]).
    pub inst: u32,
    /// Linear local id.
    pub item: u32,
    /// Linear work-group index.
    pub group: u64,
    pub kind: Kind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finding {
    /// `a` and `b` touch byte `off` of region `region`; for races between
    /// work-groups, `a` is in the earlier one.
    Race { space: Space, a: Access, b: Access, region: u32, off: u64 },
    /// `at` read byte `off` of `region`, never written in its work-group.
    Uninit { space: Space, at: Access, region: u32, off: u64 },
    /// The warp function `op` at instruction text `inst`, called by
    /// work-item `item` of work-group `group`, broke a rule of its mask
    /// (`v`'s lanes are lanes of the caller's warp).
    Warp { op: WarpOp, inst: u32, item: u32, group: u64, v: warp::Violation },
}

/// What makes two findings one report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum ReportKey {
    /// The space, the two (instruction, kind) sides in order, and whether
    /// between work-groups.
    Race(Space, (u32, Kind), (u32, Kind), bool),
    Uninit(Space, u32),
    Warp(warp::Rule, u32),
}

impl Finding {
    /// Findings with the same key are one report.
    fn key(&self) -> ReportKey {
        match *self {
            Finding::Race { space, a, b, .. } => {
                let (x, y) = ((a.inst, a.kind), (b.inst, b.kind));
                ReportKey::Race(space, x.min(y), x.max(y), a.group != b.group)
            }
            Finding::Uninit { space, at, .. } => ReportKey::Uninit(space, at.inst),
            Finding::Warp { inst, v, .. } => ReportKey::Warp(v.rule, inst),
        }
    }
}

/// Where the regions are (see `memory`): what the checker needs of the
/// launch's layout.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Length of every region, by region number.
    pub lens: Vec<u64>,
    /// Per region, the region and offset its bytes are watched as: an
    /// object's region (`objects`) is its memory's, at the object's
    /// offset; every other region itself, at 0.
    pub canon: Vec<(u32, u64)>,
    pub local_region: u32,
    pub first_private_region: u32,
    pub items: u64,
}

/// The findings of one launch.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Findings {
    seen: HashSet<ReportKey>,
    /// The first [`MAX_REPORTS`], in the order found.
    pub kept: Vec<Finding>,
    pub races: u64,
    pub uninit: u64,
    /// Warp functions that broke a rule of their mask.
    pub warp: u64,
}

impl Findings {
    fn add(&mut self, f: Finding) {
        if !self.seen.insert(f.key()) {
            return;
        }
        match f {
            Finding::Race { .. } => self.races += 1,
            Finding::Uninit { .. } => self.uninit += 1,
            Finding::Warp { .. } => self.warp += 1,
        }
        if self.kept.len() < MAX_REPORTS {
            self.kept.push(f);
        }
    }

    pub fn total(&self) -> u64 {
        self.races + self.uninit + self.warp
    }
}

/// The shadow-memory checks of one launch, driven by the interpreter.
pub struct Checker {
    layout: Layout,
    races: Option<races::Races>,
    uninit: Option<uninit::Uninit>,
    warp: bool,
    group: u64,
    pub findings: Findings,
}

impl Checker {
    pub fn new(checks: Checks, layout: Layout) -> Checker {
        Checker {
            layout,
            races: checks.races.then(races::Races::new),
            uninit: checks.uninit.then(uninit::Uninit::new),
            warp: checks.warp,
            group: 0,
            findings: Findings::default(),
        }
    }

    /// The region, offset and space of `size` bytes at `a`, when they lie
    /// inside one region (an access outside faults right after the check).
    #[inline]
    fn place(&self, a: u64, size: u64) -> Option<(u32, u64, Space)> {
        let r = a >> ADDR_BITS;
        let off = a & OFF_MASK;
        let len = *self.layout.lens.get(r as usize)?;
        if r == 0 || size > len || off > len - size {
            return None;
        }
        let l = &self.layout;
        let (r, off) = match l.canon.get(r as usize) {
            Some(&(c, base)) => (c, base + off),
            None => (r as u32, off),
        };
        let space = if r == l.local_region {
            Space::Local
        } else if r < l.first_private_region {
            Space::Global
        } else {
            Space::Private
        };
        Some((r, off, space))
    }

    pub fn begin_group(&mut self, group: u64) {
        self.group = group;
        if let Some(r) = &mut self.races {
            r.begin_group(group);
        }
        if let Some(u) = &mut self.uninit {
            u.begin_group();
        }
    }

    /// All work-items of the work-group passed a barrier.
    pub fn barrier(&mut self) {
        let findings = &mut self.findings;
        if let Some(r) = &mut self.races {
            r.end_epoch(&mut |f| findings.add(f));
        }
        self.end_uninit_epoch();
    }

    /// Host bytes of shadow memory in use.
    pub fn host_bytes(&self) -> u64 {
        self.races.as_ref().map_or(0, races::Races::host_bytes) + self.uninit.as_ref().map_or(0, uninit::Uninit::host_bytes)
    }

    /// Every work-item of the work-group finished.
    pub fn end_group(&mut self) {
        let findings = &mut self.findings;
        if let Some(r) = &mut self.races {
            r.end_group(&mut |f| findings.add(f));
        }
        self.end_uninit_epoch();
    }

    fn end_uninit_epoch(&mut self) {
        let (findings, group) = (&mut self.findings, self.group);
        let (local, first_private) = (self.layout.local_region, self.layout.first_private_region);
        if let Some(u) = &mut self.uninit {
            u.end_epoch(&mut |(inst, item, region, off)| {
                let space = if region == local {
                    Space::Local
                } else if region >= first_private {
                    Space::Private
                } else {
                    Space::Global
                };
                findings.add(Finding::Uninit { space, at: Access { inst, item, group, kind: Kind::Read }, region, off });
            });
        }
    }

    /// Work-item `item` accesses `size` bytes at `a` at instruction `inst`.
    #[inline]
    pub fn access(&mut self, item: u32, a: u64, size: u64, kind: Kind, inst: u32) {
        let Some((r, off, space)) = self.place(a, size) else { return };
        if let (Some(races), false) = (&mut self.races, space == Space::Private) {
            races.access(r, off, size, space, kind, (inst, item));
        }
        if let (Some(u), true) = (&mut self.uninit, space != Space::Global) {
            if kind != Kind::Write {
                u.read(r, off, size, item, inst);
            }
            if kind != Kind::Read {
                u.write(r, off, size, item);
            }
        }
    }

    /// `llvm.memcpy`/`memmove` of `len` bytes from `src` to `dst`.
    pub fn copy(&mut self, item: u32, dst: u64, src: u64, len: u64, inst: u32) {
        let (Some(d), Some(s)) = (self.place(dst, len), self.place(src, len)) else { return };
        if let Some(races) = &mut self.races {
            if s.2 != Space::Private {
                races.access(s.0, s.1, len, s.2, Kind::Read, (inst, item));
            }
            if d.2 != Space::Private {
                races.access(d.0, d.1, len, d.2, Kind::Write, (inst, item));
            }
        }
        if let (Some(u), true) = (&mut self.uninit, d.2 != Space::Global) {
            u.copy((d.0, d.1), (s.2 != Space::Global).then_some((s.0, s.1)), len, item);
        }
    }

    /// Whether `warp` is on.
    pub fn watches_warp(&self) -> bool {
        self.warp
    }

    /// The lanes of a warp whose lane 0 is work-item `item0` ran `call` at
    /// instruction text `inst`.
    pub fn warp_call(&mut self, call: &warp::Call<'_>, item0: u32, inst: u32) {
        let (findings, group, op) = (&mut self.findings, self.group, call.op);
        warp::check(call, &mut |v| findings.add(Finding::Warp { op, inst, item: item0 + v.lane, group, v }));
    }

    /// `llvm.memset` of `len` bytes at `dst`.
    pub fn fill(&mut self, item: u32, dst: u64, len: u64, inst: u32) {
        self.access(item, dst, len, Kind::Write, inst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_lists() {
        let all = Checks::parse("all").unwrap();
        assert!(all.races && all.uninit && all.bounds && all.barriers && all.warp && !all.uniformity);
        assert!(Checks::parse("warp").unwrap().runs_checker());
        let c = Checks::parse("races, uniformity").unwrap();
        assert!(c.races && c.uniformity && !c.uninit);
        assert!(Checks::parse("race").unwrap_err().contains("unknown check 'race'"));
        assert!(Checks::parse("races,").is_err());
        assert_eq!(Checks::parse(&c.to_string()), Ok(c));
    }
}
