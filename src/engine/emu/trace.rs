//! `simt-run --engine emu --trace FILE`: what the lane groups of each warp
//! do, one line per block a group runs and per decision of the policy.
//!
//! ```text
//! # simt-run trace: kernel 'figure3c', policy markers, warp width 4, ...
//! # ISSUED wWARP EVENT BLOCK pc=PC LANES [DETAILS]; ...
//! # work-group (0,0,0)
//! 0 w0 run entry pc=0 ####
//! 3 w0 enter bb0 pc=3 ####
//! 10 w0 enter bb1 pc=11 ####
//! 15 w0 split bb1 pc=15 #### -> bb2 ##.. bb3 ..##
//! 15 w0 run bb2 pc=16 ##..
//! 18 w0 enter bb4 pc=25 ##..
//! 18 w0 check bb4 pc=26 ##.. merged=0
//! 18 w0 run bb3 pc=19 ..##
//! ```
//!
//! Fields, separated by one space: the warp-instructions issued so far in
//! the launch (all warps, all work-groups; a clock), `w` and the warp's index
//! in its work-group, the event, the block (its IR name; `%` dropped), `pc=`
//! the instruction index, then the lanes: one character per lane, lane 0
//! first, `#` for a lane in the group, `.` for one that is not. Events:
//!
//! - `run` — the policy picked this group; it runs from `pc` (the start of
//!   the block, or inside it after a convergence check or a barrier).
//!   Left out when the group that runs is the one the previous line of the
//!   warp already showed at that PC.
//! - `enter` — the running group took a uniform branch into the block.
//! - `split` — a divergent branch at the end of the block; after `->` each
//!   target block with its lanes (a target's lanes under `ipdom` that are at
//!   the reconvergence point wait there); `ipdom` adds `reconverge=BLOCK`.
//! - `check` — `markers`: a convergence check at the start of the block (an
//!   explicit `@simt.converge` or a check the decoder placed); the lanes are
//!   the group after the check, `merged=N` the groups that joined it. Checks
//!   of a group alone in its warp merge nothing and are not shown.
//! - `reconverge` — `ipdom`: the group arrived at its reconvergence point
//!   (the block) and waits there for the entry below it on the stack.
//! - `barrier` — the group waits at a work-group barrier (after it: the PC
//!   shown); `release` lines (no warp) end the waits of a work-group.
//! - `exit` — the lanes returned.
//!
//! Lines starting with `#` are comments: the header, one per work-group, and
//! at the end either nothing or the note that the trace was cut at its limit
//! ([`TRACE_LINE_LIMIT`] lines; the launch runs to its end regardless).

use super::program::Program;
use crate::launch::Policy;
use std::fmt::Write as _;
use std::io::{self, Write};

/// Lines written at most (about 50 bytes each: 10 MB).
pub const TRACE_LINE_LIMIT: u64 = 200_000;

/// A trace being written. Errors writing it are kept and reported by
/// [`Trace::finish`].
pub struct Trace {
    out: Box<dyn Write>,
    width: u32,
    names: Vec<String>,
    inst_block: Vec<u32>,
    policy: Policy,
    lines: u64,
    limit: u64,
    stopped: bool,
    error: Option<io::Error>,
    /// Per warp: the (pc, lanes) the previous line of that warp left it at.
    last: Vec<Option<(u32, u64)>>,
    buf: String,
}

impl Trace {
    /// A trace of launches of `p` written to `out`, starting with a header
    /// line that says what ran (`what`: the launch, in words).
    pub fn new(out: Box<dyn Write>, p: &Program, what: &str) -> Trace {
        let names = p.blocks().iter().map(|b| b.name.trim_start_matches('%').to_string()).collect();
        let mut t = Trace::bare(out, p.policy(), p.width(), names, p.inst_block().to_vec());
        let markers = match p.policy() {
            Policy::Markers if p.explicit_markers() > 0 => format!(", {} @simt.converge markers", p.explicit_markers()),
            Policy::Markers => {
                format!(", checks at {} join/loop-exit blocks (no markers in the IR)", p.blocks().iter().filter(|b| b.check).count())
            }
            _ => String::new(),
        };
        t.comment(format_args!(
            "simt-run trace: kernel '{}', policy {}, warp width {}{markers}{}",
            p.kernel(),
            p.policy().name(),
            p.width(),
            if what.is_empty() { String::new() } else { format!(", {what}") }
        ));
        t.comment(format_args!("ISSUED wWARP EVENT BLOCK pc=PC LANES [DETAILS]; LANES: lane 0 first, # in the group, . not"));
        t
    }

    /// A trace without a header: `names` of the blocks, `inst_block` the
    /// block of each PC.
    fn bare(out: Box<dyn Write>, policy: Policy, width: u32, names: Vec<String>, inst_block: Vec<u32>) -> Trace {
        Trace {
            out,
            width,
            names,
            inst_block,
            policy,
            lines: 0,
            limit: TRACE_LINE_LIMIT,
            stopped: false,
            error: None,
            last: Vec::new(),
            buf: String::new(),
        }
    }

    /// Lines written so far (comments included).
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// Sets the line limit (default [`TRACE_LINE_LIMIT`]).
    pub fn set_limit(&mut self, limit: u64) {
        self.limit = limit;
    }

    /// Flushes; the first error writing the trace, if any.
    pub fn finish(mut self) -> io::Result<u64> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()?;
        Ok(self.lines)
    }

    fn block_of(&self, pc: u32) -> &str {
        self.inst_block.get(pc as usize).and_then(|&b| self.names.get(b as usize)).map_or("?", String::as_str)
    }

    fn lanes(&self, mask: u64, s: &mut String) {
        for l in 0..self.width {
            s.push(if mask >> l & 1 != 0 { '#' } else { '.' });
        }
    }

    /// Writes `self.buf` as one line, unless the limit was reached.
    fn emit(&mut self) {
        if self.stopped {
            return;
        }
        if self.lines >= self.limit {
            self.stopped = true;
            let note = format!("# trace cut after {} lines (the limit); the launch ran to its end\n", self.lines);
            self.write_raw(note.as_bytes());
            return;
        }
        self.lines += 1;
        self.buf.push('\n');
        let line = std::mem::take(&mut self.buf);
        self.write_raw(line.as_bytes());
        self.buf = line;
    }

    fn write_raw(&mut self, bytes: &[u8]) {
        if self.error.is_none() {
            if let Err(e) = self.out.write_all(bytes) {
                self.error = Some(e);
                self.stopped = true;
            }
        }
    }

    /// Whether lines are still being written.
    pub fn active(&self) -> bool {
        !self.stopped
    }

    pub fn comment(&mut self, text: std::fmt::Arguments<'_>) {
        self.buf.clear();
        let _ = write!(self.buf, "# {text}");
        self.emit();
    }

    /// The start of a work-group with `warps` warps.
    pub fn group(&mut self, g: [u64; 3], warps: usize) {
        self.last = vec![None; warps];
        self.comment(format_args!("work-group ({},{},{})", g[0], g[1], g[2]));
    }

    /// The common part of a line; returns with `self.buf` holding it.
    fn head(&mut self, issued: u64, warp: u32, event: &str, pc: u32, mask: u64) {
        let mut s = std::mem::take(&mut self.buf);
        s.clear();
        let _ = write!(s, "{issued} w{warp} {event} {} pc={pc} ", self.block_of(pc));
        self.lanes(mask, &mut s);
        self.buf = s;
    }

    fn set_last(&mut self, warp: u32, state: Option<(u32, u64)>) {
        if let Some(l) = self.last.get_mut(warp as usize) {
            *l = state;
        }
    }

    /// The policy picked the group at `pc` with `mask`.
    pub fn run(&mut self, issued: u64, warp: u32, pc: u32, mask: u64) {
        if self.last.get(warp as usize).copied().flatten() == Some((pc, mask)) {
            return;
        }
        self.head(issued, warp, "run", pc, mask);
        self.emit();
        self.set_last(warp, Some((pc, mask)));
    }

    /// The running group entered the block at `pc` by a uniform branch.
    pub fn enter(&mut self, issued: u64, warp: u32, pc: u32, mask: u64) {
        self.head(issued, warp, "enter", pc, mask);
        self.emit();
        self.set_last(warp, Some((pc, mask)));
    }

    /// A divergent branch at the end of the block of `pc`; `targets`: (PC,
    /// lanes); `ipdom_pc`: where `ipdom` reconverges them.
    pub fn split(&mut self, issued: u64, warp: u32, pc: u32, mask: u64, targets: &[(u32, u64)], ipdom_pc: u32) {
        self.head(issued, warp, "split", pc, mask);
        let mut s = std::mem::take(&mut self.buf);
        s.push_str(" ->");
        let mut sorted = targets.to_vec();
        sorted.sort_unstable_by_key(|t| t.0);
        for (tpc, m) in sorted {
            let _ = write!(s, " {} ", self.block_of(tpc));
            self.lanes(m, &mut s);
        }
        if self.policy == Policy::Ipdom {
            let r = if ipdom_pc == super::program::EXIT_PC { "exit" } else { self.block_of(ipdom_pc) };
            let _ = write!(s, " reconverge={r}");
        }
        self.buf = s;
        self.emit();
        self.set_last(warp, None);
    }

    /// `markers`: a check at the block of `pc`; `mask` the group after it,
    /// `merged` groups joined it.
    pub fn check(&mut self, issued: u64, warp: u32, pc: u32, mask: u64, merged: u64) {
        self.head(issued, warp, "check", pc, mask);
        let _ = write!(self.buf, " merged={merged}");
        self.emit();
        self.set_last(warp, Some((pc, mask)));
    }

    /// `ipdom`: the group arrived at its reconvergence point `pc`.
    pub fn reconverge(&mut self, issued: u64, warp: u32, pc: u32, mask: u64) {
        self.head(issued, warp, "reconverge", pc, mask);
        self.emit();
        self.set_last(warp, None);
    }

    /// The group waits at barrier `id` (`name`), to go on at `pc`.
    pub fn barrier(&mut self, issued: u64, warp: u32, pc: u32, mask: u64, name: &str) {
        self.head(issued, warp, "barrier", pc, mask);
        let _ = write!(self.buf, " {name}");
        self.emit();
        self.set_last(warp, None);
    }

    /// The waits at a barrier of the work-group end.
    pub fn release(&mut self, issued: u64, name: &str) {
        self.buf.clear();
        let _ = write!(self.buf, "{issued} release {name}");
        self.emit();
        for l in &mut self.last {
            *l = None;
        }
    }

    /// The lanes returned (from the block of `pc`).
    pub fn exit(&mut self, issued: u64, warp: u32, pc: u32, mask: u64) {
        self.head(issued, warp, "exit", pc, mask);
        self.emit();
        self.set_last(warp, None);
    }
}

/// One parsed line of a trace (for tests and tools).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub issued: u64,
    pub warp: u32,
    pub event: String,
    pub block: String,
    pub pc: u32,
    /// Lane `l` is bit `l`.
    pub mask: u64,
    pub details: String,
}

/// Parses a trace's lines (comments and `release` lines left out).
pub fn parse(text: &str) -> Vec<Line> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let mut f = l.splitn(7, ' ');
            let issued = f.next()?.parse().ok()?;
            let warp = f.next()?.strip_prefix('w')?.parse().ok()?;
            let event = f.next()?.to_string();
            let block = f.next()?.to_string();
            let pc = f.next()?.strip_prefix("pc=")?.parse().ok()?;
            let lanes = f.next()?;
            let mask = lanes.chars().enumerate().fold(0u64, |m, (i, c)| if c == '#' { m | 1 << i } else { m });
            Some(Line { issued, warp, event, block, pc, mask, details: f.next().unwrap_or("").to_string() })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// A writer whose bytes the test can read afterwards.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn trace(policy: Policy) -> (Trace, Shared) {
        let out = Shared::default();
        // Blocks a (PCs 0-1), b (2-3), c (4).
        let t = Trace::bare(Box::new(out.clone()), policy, 4, vec!["a".into(), "b".into(), "c".into()], vec![0, 0, 1, 1, 2]);
        (t, out)
    }

    fn text(out: &Shared) -> String {
        String::from_utf8(out.0.lock().unwrap().clone()).unwrap()
    }

    #[test]
    fn events_and_their_format() {
        let (mut t, out) = trace(Policy::Ipdom);
        t.group([1, 0, 0], 2);
        t.run(0, 0, 0, 0b1111);
        t.split(2, 0, 1, 0b1111, &[(4, 0b1100), (2, 0b0011)], 4);
        t.run(2, 0, 2, 0b0011);
        t.reconverge(4, 0, 4, 0b0011);
        t.run(4, 1, 4, 0b0001);
        t.run(4, 1, 4, 0b0001); // the same group again: left out
        t.barrier(5, 1, 4, 0b0001, "barrier #1");
        t.release(5, "barrier #1");
        t.run(5, 1, 4, 0b0001); // after a release: shown again
        t.exit(6, 1, 4, 0b0001);
        assert_eq!(t.finish().unwrap(), 10);
        assert_eq!(
            text(&out),
            "# work-group (1,0,0)\n\
             0 w0 run a pc=0 ####\n\
             2 w0 split a pc=1 #### -> b ##.. c ..## reconverge=c\n\
             2 w0 run b pc=2 ##..\n\
             4 w0 reconverge c pc=4 ##..\n\
             4 w1 run c pc=4 #...\n\
             5 w1 barrier c pc=4 #... barrier #1\n\
             5 release barrier #1\n\
             5 w1 run c pc=4 #...\n\
             6 w1 exit c pc=4 #...\n"
        );
        let (mut t, out) = trace(Policy::Markers);
        t.group([0, 0, 0], 1);
        t.enter(3, 0, 2, 0b0110);
        t.check(3, 0, 3, 0b0111, 1);
        t.run(3, 0, 3, 0b0111); // what the check left: not repeated
        t.split(9, 0, 3, 0b0111, &[(4, 0b0001), (0, 0b0110)], 4);
        t.finish().unwrap();
        assert_eq!(
            text(&out),
            "# work-group (0,0,0)\n\
             3 w0 enter b pc=2 .##.\n\
             3 w0 check b pc=3 ###. merged=1\n\
             9 w0 split b pc=3 ###. -> a .##. c #...\n"
        );
    }

    #[test]
    fn the_trace_stops_at_its_limit() {
        let (mut t, out) = trace(Policy::None);
        t.set_limit(3);
        t.group([0, 0, 0], 1);
        for k in 0..10 {
            t.enter(k, 0, 2 * (k as u32 % 2), 0b1);
        }
        assert!(!t.active());
        assert_eq!(t.finish().unwrap(), 3);
        let s = text(&out);
        assert_eq!(s.lines().count(), 4, "{s}");
        assert!(s.ends_with("# trace cut after 3 lines (the limit); the launch ran to its end\n"), "{s}");
    }

    #[test]
    fn lines_parse_back() {
        let text =
            "# header\n12 w3 split bb1 pc=13 #### -> bb2 ##.. bb3 ..## reconverge=bb5\n14 w0 run bb2 pc=14 ##..\n20 release barrier #1\n";
        let l = parse(text);
        assert_eq!(l.len(), 2);
        assert_eq!(
            l[0],
            Line {
                issued: 12,
                warp: 3,
                event: "split".into(),
                block: "bb1".into(),
                pc: 13,
                mask: 0b1111,
                details: "-> bb2 ##.. bb3 ..## reconverge=bb5".into()
            }
        );
        assert_eq!(l[1].mask, 0b0011);
        assert_eq!(l[1].details, "");
    }
}
