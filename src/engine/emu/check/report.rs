//! The text of `--check` findings: a header line naming what, where (address
//! as argument or variable + offset) and in which work-group(s), then one
//! line per access (kind, work-item, source line or IR instruction). A warp
//! function's mask finding names the function, the calling work-item and
//! lane, its mask, and the lane it names or reads.

use super::warp::{Rule, Violation};
use super::{Finding, Findings, MAX_REPORTS};

/// How the launch names things (the interpreter knows).
pub trait Names {
    /// Instruction text `inst`: `file:line`, or the IR instruction and block.
    fn place(&self, inst: u32) -> String;
    /// Linear local id → `(x,y,z)`.
    fn work_item(&self, item: u32) -> String;
    /// Linear work-group index → `(x,y,z)`.
    fn work_group(&self, group: u64) -> String;
    /// Byte `off` of region `region`, as argument or variable + offset.
    fn address(&self, region: u32, off: u64) -> String;
}

/// One finding as text (several lines, no trailing newline).
pub fn render(f: &Finding, n: &dyn Names) -> String {
    match *f {
        Finding::Race { space, a, b, region, off } => {
            let at = n.address(region, off);
            if a.group == b.group {
                format!(
                    "data race on {} memory in work-group {}, at {at}:\n  {} by work-item {} at {}\n  {} by work-item {} at {}\n  with no barrier between them",
                    space.name(),
                    n.work_group(a.group),
                    a.kind.name(),
                    n.work_item(a.item),
                    n.place(a.inst),
                    b.kind.name(),
                    n.work_item(b.item),
                    n.place(b.inst)
                )
            } else {
                let (ga, gb) = (n.work_group(a.group), n.work_group(b.group));
                format!(
                    "data race on {} memory between work-groups {ga} and {gb}, at {at}:\n  {} by work-item {} of work-group {ga} at {}\n  {} by work-item {} of work-group {gb} at {}\n  (the work-groups of a launch are not ordered)",
                    space.name(),
                    a.kind.name(),
                    n.work_item(a.item),
                    n.place(a.inst),
                    b.kind.name(),
                    n.work_item(b.item),
                    n.place(b.inst)
                )
            }
        }
        Finding::Uninit { space, at, region, off } => format!(
            "uninitialised read of {} memory in work-group {}, at {}:\n  {} by work-item {} at {}\n  no work-item of the work-group wrote it before",
            space.name(),
            n.work_group(at.group),
            n.address(region, off),
            at.kind.name(),
            n.work_item(at.item),
            n.place(at.inst)
        ),
        Finding::Warp { op, inst, item, group, v } => {
            let (ptx, cuda) = op.names();
            let head = match v.rule {
                Rule::NotInMask => "warp function called by a lane its mask leaves out",
                Rule::NotRunning => "warp function mask names a lane that does not take part",
                Rule::OtherMask => "warp function mask names a lane that calls it with another mask",
                Rule::SourceOutside => "shuffle reads a lane its mask leaves out",
            };
            format!("{head} in work-group {}: {cuda} ({ptx}) at {}:\n  {}", n.work_group(group), n.place(inst), warp_lines(&v, item, n))
        }
    }
}

/// The lines under a warp finding's header: the caller, what it names, why.
fn warp_lines(v: &Violation, item: u32, n: &dyn Names) -> String {
    let caller = format!("work-item {} (lane {}) calls it with mask {:#010x}", n.work_item(item), v.lane, v.mask);
    // Lanes of one warp are consecutive linear ids.
    let other = format!("lane {} (work-item {})", v.other, n.work_item(item - v.lane + v.other));
    match v.rule {
        Rule::NotInMask => format!(
            "{caller}, which leaves out lane {}\n  (PTX ISA: the behavior is undefined if the executing thread is not in the membermask)",
            v.lane
        ),
        Rule::NotRunning => format!(
            "{caller}\n  {other} is in the mask and has not exited, but is not running this call with lane {}\n  (CUDA: all non-exited threads named in the mask must execute the same function with the same mask)",
            v.lane
        ),
        Rule::OtherMask => format!(
            "{caller}\n  {other} runs it with mask {:#010x}\n  (CUDA: all non-exited threads named in the mask must execute the same function with the same mask)",
            v.other_mask
        ),
        Rule::SourceOutside => format!(
            "{caller} and reads {other}, which the mask leaves out\n  (CUDA: a shuffle may only read a thread taking part in it; the value read is undefined)"
        ),
    }
}

/// `2 data races and 1 uninitialised read`.
pub fn summary(f: &Findings) -> String {
    let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut parts = Vec::new();
    if f.races > 0 {
        parts.push(plural(f.races, "data race", "data races"));
    }
    if f.uninit > 0 {
        parts.push(plural(f.uninit, "uninitialised read", "uninitialised reads"));
    }
    if f.warp > 0 {
        parts.push(plural(f.warp, "warp-function mask violation", "warp-function mask violations"));
    }
    let mut s = parts.join(" and ");
    if f.total() > MAX_REPORTS as u64 {
        s.push_str(&format!(" (the first {MAX_REPORTS} reported)"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::super::{Access, Kind, Space};
    use super::*;

    struct N;
    impl Names for N {
        fn place(&self, inst: u32) -> String {
            format!("k.cl:{inst}")
        }
        fn work_item(&self, item: u32) -> String {
            format!("({item},0,0)")
        }
        fn work_group(&self, group: u64) -> String {
            format!("({group},0,0)")
        }
        fn address(&self, region: u32, off: u64) -> String {
            format!("offset {off} of argument {}", region - 1)
        }
    }

    #[test]
    fn texts() {
        let a = Access { inst: 7, item: 3, group: 0, kind: Kind::Write };
        let b = Access { inst: 5, item: 4, group: 0, kind: Kind::Read };
        let f = Finding::Race { space: Space::Local, a, b, region: 1, off: 12 };
        assert_eq!(
            render(&f, &N),
            "data race on __local memory in work-group (0,0,0), at offset 12 of argument 0:\n  write by work-item (3,0,0) at k.cl:7\n  read by work-item (4,0,0) at k.cl:5\n  with no barrier between them"
        );
        let f = Finding::Race { space: Space::Global, a, b: Access { group: 2, ..b }, region: 1, off: 0 };
        assert!(render(&f, &N).starts_with("data race on __global memory between work-groups (0,0,0) and (2,0,0), at offset 0"));
        let mut fs = Findings::default();
        for inst in 0..25 {
            fs.add(Finding::Uninit { space: Space::Private, at: Access { inst, ..b }, region: 1, off: 0 });
        }
        fs.add(Finding::Race { space: Space::Local, a, b, region: 1, off: 12 });
        fs.add(Finding::Race { space: Space::Local, a: b, b: a, region: 1, off: 13 });
        assert_eq!(summary(&fs), format!("1 data race and 25 uninitialised reads (the first {MAX_REPORTS} reported)"));
        assert_eq!(fs.kept.len(), MAX_REPORTS);
        let v = Violation { rule: Rule::SourceOutside, lane: 15, mask: 0xffff, other: 16, other_mask: 0 };
        let f = Finding::Warp { op: crate::engine::emu::program::WarpOp::ShflDown, inst: 9, item: 47, group: 1, v };
        assert_eq!(
            render(&f, &N),
            "shuffle reads a lane its mask leaves out in work-group (1,0,0): __shfl_down_sync (shfl.sync.down) at k.cl:9:\n  work-item (47,0,0) (lane 15) calls it with mask 0x0000ffff and reads lane 16 (work-item (48,0,0)), which the mask leaves out\n  (CUDA: a shuffle may only read a thread taking part in it; the value read is undefined)"
        );
        fs.add(f);
        fs.add(f);
        assert_eq!(fs.warp, 1);
        assert!(summary(&fs).contains("and 1 warp-function mask violation"));
    }
}
