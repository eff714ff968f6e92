//! `simt-wiloops-version`: versions each work-item loop on its bounds
//! checks, so that full work-groups run a copy without them.
//!
//! Why: `if (i < n) c[i] = …` becomes, in `simt-wiloops`'s x loop, a branch
//! on `n > trunc(group·L + x + offset)`, which LLVM's vectoriser turns into
//! masked loads and stores (slow on AVX2) and IRCE does not take. The
//! compare is monotone in the work-item id `x`, so two tests before the loop
//! say whether it holds for every work-item of the group: it does for every
//! group but the last partial one (issue 13).
//!
//! ```text
//!            P (preheader)                    P: g(0), g(C-1), u; for every guard
//!            │                                   cond(0) ∧ cond(C-1) ∧ no wrap
//!            ▼                                   br freeze(all), H.fast, H
//!     ┌────▶ H ◀─ x = phi [0, P], [x+1, L]       ┌──────┴───────┐
//!     │      ▼                                  ▼              ▼
//!     │      G: br (g(x) pred u), T, F   ==>    H.fast … G.fast: br T.fast
//!     │     T  F                                (the loop, the guards           H … G … L
//!     │      ▼                                   now unconditional)             (original)
//!     └───── L: x+1 <u C ?                       L.fast ─────┐        ┌──────── L
//!            ▼                                               ▼        ▼
//!            E                                                  E (phis from both)
//! ```
//!
//! Loops: latch marked `llvm.loop.parallel_accesses` (`simt-wiloops`' x
//! loops), outermost only; one latch, the only exiting block, into one exit
//! block; a preheader `br label %header`; counter `x = phi [0, P], [x + 1,
//! latch]`, latch test `x + 1 <u C` or `!= C`, constant `C`; terminators
//! `br`, `switch`, `unreachable`; at most `max-size` instructions (default
//! 400: every version doubles the code) and at least `min-trips` work-items
//! (default 32: 16 are two vector iterations, whose masks cost less than a
//! copy; BENCHMARKS.md).
//!
//! Guards: conditional branches (the latch's aside) on `and`/`or` trees
//! (`select` forms and `xor c, true` included) of ordered integer compares
//! `g(x) pred u` of a modular-affine `g` and an invariant `u`
//! (`analysis/affine_guard.rs`: why two ends and a wrap test decide every
//! `x`), or of invariants, with at least one leaf on `x`; a guard that folds
//! to false is left out. Tests are built from fresh, flag-free instructions
//! and frozen; loop values used after it go through exit phis, one entry per
//! copy; each copy's latch gets a fresh loop id (details: `passes/DESIGN.md`).
//!
//! Then each work-item loop, copies included, is unswitched on its first
//! branch whose condition is the same for every work-item (a lockstep
//! step's `k + 1 < n`): one copy per side, chosen before the loop, so the
//! vectoriser sees no branch there to turn into masked stores (`unswitch`;
//! `no-unswitch` turns it off; `no-version` leaves only this step); then
//! both sides once more on their next such branch (two rounds, at most
//! four copies of a loop).
//!
//! Where a guard that every effect of the loop waits for fails at both ends
//! (monotone, so everywhere), the loop is skipped: a third way out of the
//! test, straight to the exit (a warp whose lanes are all past `tid < 16`;
//! not where the loop would split, or leaves values that differ by
//! work-item). In loops of at most 32 trips the checked copy stays scalar
//! (`SCALAR_CHECKED_MAX_TRIPS`: it runs for the odd partial warp, and its
//! vector masks' set-up would run for every warp).
//!
//! Last, every work-item loop whose effects all wait for `g(x) == u`, `g`
//! of odd step, is pinned to the one work-item that can pass (`pin.rs`:
//! `if (lane == 0)`, `if (lid == 0)`); `no-pin` turns it off.
//!
//! Limits: loops that carry a value besides counters (a stop-state
//! reduction: LLVM folds it in the copies into forms the vectoriser misses;
//! a second counter, the warp dispatcher's linear lane id, is copied, but
//! such a loop is not split);
//! one exit; guards on `eq`/`ne`, `zext`/`sext` of `x`, loads, or steps that
//! may wrap (`|s|·(C-1) >= 2^w`); nested loops are copied, not versioned;
//! calls are copied (`noduplicate` not checked: `simt-wiloops` makes none).

use crate::analysis::affine_guard::{direction, forwarded, is_ordered, nowrap_test, Direction, Scope};
use crate::ir::{
    branches_to, defined_functions, insert_block_before, instructions, negated_predicate, swapped_predicate, terminator, Builder, Inst,
    IntOp, Value,
};
use crate::pass::{ModulePass, PassContext, PassError, Preserved};
use crate::remarks::{Arg, RemarkKind};
use crate::transform::loop_copy::{LoopCopy, Place};

mod pin;
use inkwell::basic_block::BasicBlock;
use inkwell::values::FunctionValue;
use llvm_sys::{LLVMIntPredicate, LLVMOpcode as O};
use std::collections::{HashMap, HashSet};

pub struct WiloopsVersion {
    limits: Limits,
    remarks: bool,
}

/// Which loops are worth a second copy.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Limits {
    /// Largest loop versioned, in instructions.
    max_size: usize,
    /// Fewest work-items (trips) a versioned loop runs.
    min_trips: u64,
    /// Split the loop where the guard holds on a prefix (`no-split` turns
    /// it off).
    split: bool,
    /// Unswitch on branches the same for every work-item (`unswitch`;
    /// `no-unswitch` turns it off).
    unswitch: bool,
    /// Version on bounds checks (`no-version` turns it off: unswitching
    /// alone, which the fuzzer counts apart).
    version: bool,
    /// Run only the work-item an equality lets through (`pin`; `no-pin`
    /// turns it off).
    pin: bool,
}

const DEFAULT_LIMITS: Limits = Limits { max_size: 400, min_trips: 32, split: true, unswitch: true, version: true, pin: true };

/// Longest loop whose checked copy (the original) is kept scalar
/// (`llvm.loop.vectorize.enable` false). That copy runs only where a guard
/// fails at an end of the loop: in the warp dispatcher's 32-lane loops, one
/// warp per boundary. Vectorised, its masks are set up outside the loop,
/// and LICM moves that set-up into the code every warp runs:
/// block_sum_warp's bounds masks were 49 instructions a warp, and its
/// kernel ran 1.43 ms against 1.16 ms with the copy scalar (4M floats).
/// A longer loop's set-up is shared by more work-items.
const SCALAR_CHECKED_MAX_TRIPS: u64 = 32;

/// Largest loop split as well as versioned, in instructions: splitting
/// makes two more copies, and the loops it is for (a tree reduction's
/// step, a scan's) are a handful of instructions.
const SPLIT_MAX_SIZE: usize = 120;

impl Default for WiloopsVersion {
    fn default() -> Self {
        WiloopsVersion { limits: DEFAULT_LIMITS, remarks: false }
    }
}

impl crate::pass::DeclaredPass for WiloopsVersion {
    const NAME: &'static str = "simt-wiloops-version";
    const SUMMARY: &'static str =
        "versions work-item loops on bounds checks monotone in the work-item id: a copy without them runs when both ends of the loop pass";
    const OPTIONS: &'static [(&'static str, &'static str)] = &[
        ("max-size=N", "largest loop versioned, in instructions (default 400)"),
        ("min-trips=N", "fewest work-items a versioned loop runs (default 32)"),
        ("remarks", "say what was done to each parallel loop"),
        ("no-split", "version only: no index-set split where the one guard holds on a prefix of the work-items"),
        ("no-unswitch", "no copy per side of a branch that is the same for every work-item"),
        ("no-version", "unswitch only: no copy without the bounds checks"),
        ("no-pin", "no pinning of a loop whose effects wait for `g(x) == u` to the one work-item that passes"),
    ];

    fn set_option(&mut self, key: &str, value: Option<&str>) -> Result<(), String> {
        match (key, value) {
            ("max-size", Some(v)) => {
                self.limits.max_size = v.parse().map_err(|_| format!("max-size takes a number of instructions, got '{v}'"))?;
                Ok(())
            }
            ("min-trips", Some(v)) => {
                self.limits.min_trips = v.parse().map_err(|_| format!("min-trips takes a number of work-items, got '{v}'"))?;
                Ok(())
            }
            ("remarks", None) => {
                self.remarks = true;
                Ok(())
            }
            ("no-split", None) => {
                self.limits.split = false;
                Ok(())
            }
            ("no-unswitch", None) => {
                self.limits.unswitch = false;
                Ok(())
            }
            ("no-version", None) => {
                self.limits.version = false;
                Ok(())
            }
            ("no-pin", None) => {
                self.limits.pin = false;
                Ok(())
            }
            _ => Err(crate::pass::unknown_option::<Self>(key)),
        }
    }
}

impl ModulePass for WiloopsVersion {
    fn name(&self) -> String {
        let mut opts = Vec::new();
        if self.limits.max_size != DEFAULT_LIMITS.max_size {
            opts.push(format!("max-size={}", self.limits.max_size));
        }
        if self.limits.min_trips != DEFAULT_LIMITS.min_trips {
            opts.push(format!("min-trips={}", self.limits.min_trips));
        }
        if self.remarks {
            opts.push("remarks".to_string());
        }
        if !self.limits.split {
            opts.push("no-split".to_string());
        }
        if !self.limits.unswitch {
            opts.push("no-unswitch".to_string());
        }
        if !self.limits.version {
            opts.push("no-version".to_string());
        }
        if !self.limits.pin {
            opts.push("no-pin".to_string());
        }
        if opts.is_empty() {
            "simt-wiloops-version".into()
        } else {
            format!("simt-wiloops-version<{}>", opts.join(";"))
        }
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        let mut changed = false;
        let mut notes = String::new();
        for f in defined_functions(cx.module()) {
            // The loops from one analysis: versioning one adds blocks but
            // leaves the others' blocks as they were (they are disjoint).
            let shapes = if self.limits.version { parallel_loops(cx.analyses(f)) } else { Vec::new() };
            for shape in shapes {
                let header = shape.header_name();
                let fname = crate::ir::function_name(f);
                match version(&shape, self.limits) {
                    Ok((guards, trips, split)) => {
                        let how = match (guards, split) {
                            (0, _) => "split where its guard holds".to_string(),
                            (n, false) => format!("versioned on {n} guard(s)"),
                            (n, true) => format!("versioned on {n} guard(s), and split where it holds"),
                        };
                        notes += &format!("simt-wiloops-version: {fname}: loop %{header} ({trips} trips): {how}\n");
                        cx.remark(RemarkKind::Passed, "Versioned", f, || loop_remark(&fname, &header, [Arg::text(format!(": {how}"))]));
                        changed = true;
                    }
                    Err(why) => {
                        notes += &format!("simt-wiloops-version: {fname}: loop %{header}: not versioned: {why}\n");
                        cx.remark(RemarkKind::Missed, "NotVersioned", f, || {
                            loop_remark(&fname, &header, [Arg::text(": not versioned: "), Arg::new("Reason", &why)])
                        });
                    }
                }
            }
            let fname = crate::ir::function_name(f);
            if self.limits.unswitch {
                changed |= self.unswitch_all(cx, f, &mut notes);
            }
            if !self.limits.pin {
                continue;
            }
            // Last, so that it sees every copy (an unswitched `warp == 0`
            // side holds the `lane == 0` test); found by name after each
            // change, as unswitching does.
            drop_unreachable(cx, f);
            for header in parallel_loops(cx.analyses(f)).iter().map(Shape::header_name).collect::<Vec<_>>() {
                let Some(shape) = shape_named(cx, f, &header) else { continue };
                if let Ok(Some(at)) = pin::pin(&shape) {
                    notes += &format!("simt-wiloops-version: {fname}: loop %{header}: pinned by the branch in %{at}\n");
                    cx.remark(RemarkKind::Passed, "Pinned", f, || {
                        loop_remark(
                            &fname,
                            &header,
                            [Arg::text(": pinned to the work-item that passes the branch in %"), Arg::new("Block", &at)],
                        )
                    });
                    changed = true;
                }
            }
            cx.forget_analyses();
        }
        if self.remarks {
            cx.out().write_all(notes.as_bytes()).map_err(|e| PassError::Output { pass: self.name(), message: e.to_string() })?;
        }
        // New blocks and edges: nothing cached stays valid.
        Ok(if changed { Preserved::none() } else { Preserved::all() })
    }
}

impl WiloopsVersion {
    /// Unswitches `f`'s work-item loops; whether anything changed.
    fn unswitch_all<'ctx>(&self, cx: &mut PassContext<'_, 'ctx>, f: FunctionValue<'ctx>, notes: &mut String) -> bool {
        let mut changed = false;
        // The loops again, copies included (the analyses see the new CFG).
        drop_unreachable(cx, f);
        let fname = crate::ir::function_name(f);
        // Each unswitch changes the function: the loops are taken afresh
        // after every one (shapes kept across a change named deleted
        // blocks and phis: a crash in 4% of runs of fuzz seed 3), found
        // by their header's name. Round 1 tries the loops there were at
        // the start; each later round, both sides of what the round
        // before unswitched, whose next uniform branch may be the one
        // that matters (a warp lane loop's first is its row test, its
        // second `if (warp == 0)`): at most 2^UNSWITCH_ROUNDS copies of
        // a loop.
        let mut todo: Vec<String> = parallel_loops(cx.analyses(f)).iter().map(Shape::header_name).collect();
        for round in 0..UNSWITCH_ROUNDS {
            if round > 0 {
                drop_unreachable(cx, f);
            }
            let mut next = Vec::new();
            for header in todo {
                let Some(shape) = shape_named(cx, f, &header) else { continue };
                if let Ok(Some((cond, copy))) = unswitch(&shape, self.limits) {
                    *notes += &format!("simt-wiloops-version: {fname}: loop %{header}: unswitched on %{cond}\n");
                    cx.remark(RemarkKind::Passed, "Unswitched", f, || {
                        loop_remark(&fname, &header, [Arg::text(": unswitched on %"), Arg::new("Condition", &cond)])
                    });
                    changed = true;
                    next.extend([header, copy]);
                }
            }
            todo = next;
        }
        changed
    }
}

/// Forgets the analyses and removes `f`'s blocks that no path reaches,
/// which versioning and unswitching leave where they fold a branch: their
/// edges into a loop would reach a copy's phis as entries from no
/// predecessor, and their uses of a loop's values come from no block that
/// runs (both were found by the fuzzer or the tests before this was done).
fn drop_unreachable<'ctx>(cx: &mut PassContext<'_, 'ctx>, f: FunctionValue<'ctx>) {
    cx.forget_analyses();
    crate::transform::wiloops::prepare::remove_unreachable_blocks(&cx.analyses(f).cfg);
}

/// A loop as the loop analysis saw it.
struct Shape<'c> {
    header: BasicBlock<'c>,
    /// In layout order.
    blocks: Vec<BasicBlock<'c>>,
    members: HashSet<BasicBlock<'c>>,
    latches: Vec<BasicBlock<'c>>,
    exiting: Vec<BasicBlock<'c>>,
    exits: Vec<BasicBlock<'c>>,
}

impl Shape<'_> {
    /// The name of the loop's header, by which a loop is found again
    /// after the function changed.
    fn header_name(&self) -> String {
        self.header.get_name().to_string_lossy().into_owned()
    }
}

/// The work-item loop whose header is named `header`, from analyses taken
/// afresh (the function may have changed since its name was taken).
fn shape_named<'ctx>(cx: &mut PassContext<'_, 'ctx>, f: FunctionValue<'ctx>, header: &str) -> Option<Shape<'ctx>> {
    cx.forget_analyses();
    parallel_loops(cx.analyses(f)).into_iter().find(|s| s.header_name() == header)
}

/// A remark about work-item loop `%header` of `fname`: what was done to
/// it (or why not) follows in `rest`.
fn loop_remark<const N: usize>(fname: &str, header: &str, rest: [Arg; N]) -> Vec<Arg> {
    let mut args = vec![Arg::text(format!("{fname}: work-item loop %")), Arg::new("Loop", header)];
    args.extend(rest);
    args
}

/// The outermost loops whose latch says they are parallel.
fn parallel_loops<'c>(fa: &crate::analysis::cache::FunctionAnalyses<'c>) -> Vec<Shape<'c>> {
    let li = fa.loops();
    let parallel = |l: &crate::analysis::loops::Loop| {
        l.latches.iter().any(|&b| terminator(fa.cfg.block(b)).is_some_and(|t| t.is_parallel_loop_latch()))
    };
    let mut out = Vec::new();
    for (_, l) in li.loops() {
        let mut up = l.parent;
        let mut nested = false;
        while let Some(p) = up {
            nested |= parallel(li.get(p));
            up = li.get(p).parent;
        }
        if parallel(l) && !nested {
            let blocks = |ids: &[crate::cfg::BlockId]| ids.iter().map(|&b| fa.cfg.block(b)).collect::<Vec<_>>();
            out.push(Shape {
                header: fa.cfg.block(l.header),
                blocks: blocks(&l.blocks),
                members: blocks(&l.blocks).into_iter().collect(),
                latches: blocks(&l.latches),
                exiting: blocks(&l.exiting),
                exits: blocks(&l.exits),
            });
        }
    }
    out
}

/// One leaf of a guard's condition, and the value the fast copy needs it to have.
#[derive(Clone, Copy)]
struct Leaf<'c> {
    cond: Value<'c>,
    want: bool,
    /// For a compare monotone in the counter: which operand is `g(x)`, and
    /// which way it moves. `None`: the condition is loop-invariant.
    monotone: Option<(u32, Direction)>,
}

/// A branch the fast copy makes unconditional.
struct Guard<'c> {
    branch: Inst<'c>,
    /// The successor slot it keeps (0: true, 1: false).
    taken: u32,
    leaves: Vec<Leaf<'c>>,
}

/// What versioning and unswitching both need of a loop: one latch, which
/// is its only exiting block, and one exit block; at most `max-size`
/// instructions; only branches and switches as terminators; one block
/// entering the header. Returns the latch, the exit block, the entering
/// branch and the loop's size in instructions.
fn plain_loop<'c>(shape: &Shape<'c>, limits: Limits) -> Result<(BasicBlock<'c>, BasicBlock<'c>, Inst<'c>, usize), String> {
    let ([latch], [exit]) = (shape.latches.as_slice(), shape.exits.as_slice()) else {
        return Err(format!("{} latches and {} exit blocks (one each handled)", shape.latches.len(), shape.exits.len()));
    };
    if shape.exiting != [*latch] {
        return Err("a block other than the latch leaves the loop".into());
    }
    let size: usize = shape.blocks.iter().map(|&b| instructions(b).count()).sum();
    if size > limits.max_size {
        return Err(format!("{size} instructions, more than max-size={}", limits.max_size));
    }
    for &b in &shape.blocks {
        let t = terminator(b).ok_or("a block without terminator")?;
        if !matches!(t.opcode(), O::LLVMBr | O::LLVMSwitch | O::LLVMUnreachable) {
            return Err(format!("a {:?} in the loop", t.opcode()));
        }
    }
    let entries: Vec<Inst<'c>> = branches_to(shape.header).into_iter().filter(|t| !shape.members.contains(&t.block())).collect();
    let [enter] = entries.as_slice() else { return Err(format!("{} blocks enter the loop (one preheader handled)", entries.len())) };
    Ok((*latch, *exit, *enter, size))
}

/// Versions the loop; returns the number of guards it is versioned on (0:
/// split only), the trip count and whether it was split.
/// Refuses (with the reason) before changing anything.
fn version<'c>(shape: &Shape<'c>, limits: Limits) -> Result<(usize, u64, bool), String> {
    let (latch, exit, pre_term, size) = plain_loop(shape, limits)?;
    let header = shape.header;
    if branches_to(exit).iter().any(|t| t.block() != latch) {
        return Err("the exit block has predecessors outside the loop".into());
    }
    if pre_term.opcode() != O::LLVMBr || pre_term.is_conditional_terminator() {
        return Err("the preheader does not end in an unconditional branch".into());
    }
    let pre = pre_term.block();
    let latch_term = terminator(latch).ok_or("no latch terminator")?;
    let (x, trips) = counter(latch_term, header, pre, latch)?;
    if trips < limits.min_trips {
        return Err(format!("{trips} trips, fewer than min-trips={}", limits.min_trips));
    }
    // Other counters (the warp dispatcher's linear lane id beside the
    // lane's offset, `emit/warp.rs`) are copied like any value; a split
    // would have to start the second loop's at the first's end, so there is
    // none then.
    let others: Vec<Inst<'c>> = instructions(header).take_while(|i| i.is_phi()).filter(|&p| p != x).collect();
    let may_split = others.is_empty();
    if !others.iter().all(|&p| is_counter(p, pre, latch)) {
        // simt-wiloops' stop-state reduction, where work-items may stop at
        // different barriers. In each copy LLVM folds it differently (in
        // scan's loop region the fast copy is the last iteration, and the
        // other copy's `umax` becomes `select(max == 0, 2, max)`), which
        // the vectorizer no longer takes for a reduction: scan ran 2x
        // slower versioned.
        return Err("the loop carries a value besides its counter (a reduction the vectorizer must recognise in both copies)".into());
    }

    let mut scope = Scope::new(shape.blocks.iter().copied(), x.value());
    let mut guards = Vec::new();
    for &b in &shape.blocks {
        let t = terminator(b).expect("checked above");
        if b != latch && t.opcode() == O::LLVMBr && t.is_conditional_terminator() {
            let s = t.successors();
            if s[0] != s[1] {
                guards.extend(guard(t, &mut scope, trips));
            }
        }
    }
    if guards.is_empty() {
        return Err("no branch on a compare monotone in the work-item id".into());
    }

    // The test, in the preheader; given up (and its instructions erased)
    // when every guard fails at compile time.
    let mut emit = Emit::new(pre_term, &mut scope, trips);
    let mut all: Option<Value<'c>> = None;
    let mut kept = Vec::new();
    let mut never = Vec::new();
    for g in guards {
        let tests: Vec<Value<'c>> = g.leaves.iter().map(|l| emit.leaf(l)).collect();
        let ok = tests.into_iter().reduce(|a, b| emit.and(a, b)).expect("a guard has leaves");
        if ok.const_u64() == Some(0) {
            never.push(g);
            continue;
        }
        all = Some(match all {
            Some(a) => emit.and(a, ok),
            None => ok,
        });
        kept.push(g);
    }
    let Some(all) = all else {
        emit.erase_unused();
        // No group passes everywhere (`lid < 64` in a loop of 128), but the
        // loop may still split.
        if let ([g], true) = (never.as_slice(), may_split) {
            if let Some((at, g)) = split_block(shape, limits, size, g, latch, exit) {
                let mut b = Builder::new(x.value());
                b.position_before(pre_term);
                b.br(at);
                pre_term.erase();
                split(shape, &g, x, pre, exit, at, trips);
                return Ok((0, trips, true));
            }
        }
        return Err("every guard fails at an end of the loop (known at compile time)".into());
    };
    // Work-items with nothing to do: where a guard that every effect of the
    // loop waits for fails at both ends of it, and so everywhere, the loop
    // is skipped (a warp whose lanes are all past `tid < 16`). Not where a
    // split may come, or values of the loop are used after it (the exit
    // would need phis for a path that made none), unless they are the same
    // for every work-item and made before it (a region's stop state).
    let before = |v: Value<'c>| from_before(v, &shape.members);
    let used_after = shape
        .blocks
        .iter()
        .flat_map(|&b| instructions(b))
        .any(|i| i.users().iter().any(|u| !shape.members.contains(&u.block())) && before(i.value()).is_none());
    let exit_phis = instructions(exit)
        .take_while(|i| i.is_phi())
        .any(|p| p.incoming().into_iter().any(|(v, from)| from == latch && before(v).is_none()));
    let mut none = None;
    let splits = kept.len() == 1 && may_split;
    if !splits && !used_after && !exit_phis {
        for g in &kept {
            let taken = g.branch.successors()[g.taken as usize];
            if pin::only_through(shape, g.branch.block(), taken) {
                for leaf in &g.leaves {
                    let never = emit.never(leaf);
                    none = Some(match none {
                        Some(n) => emit.or(n, never),
                        None => never,
                    });
                }
            }
        }
    }
    // Not among `built`: they are what keeps the tests that count alive.
    let ok = emit.b.freeze(all, "wiver.ok");
    let none = none.filter(|n| n.const_u64() != Some(0)).map(|n| emit.b.freeze(n, "wiver.none"));
    emit.erase_unused();
    let n_guards = kept.len();

    // From here on the function changes.
    let split_at = match kept.as_slice() {
        [g] if may_split => split_block(shape, limits, size, g, latch, exit),
        _ => {
            crate::transform::lcssa::close_over_exit(&shape.blocks, latch, exit);
            None
        }
    };
    let copy = LoopCopy::make(&shape.blocks, Place::Before(exit), "fast", None);
    let mut b = Builder::new(x.value());
    b.position_before(pre_term);
    let enter = b.cond_br(ok, copy.block(header), split_at.as_ref().map_or(header, |s| s.0));
    pre_term.erase();
    if let Some(none) = none {
        // (`preheader` rebuilds the header's phis: `x` is stale from here
        // on, and only a split would use it.)
        let to_header = preheader(enter, header);
        let skip = to_header.block();
        let mut b = Builder::new(none);
        b.position_before(to_header);
        b.cond_br(none, exit, header);
        to_header.erase();
        for p in instructions(exit).take_while(|p| p.is_phi()).collect::<Vec<_>>() {
            let v = p.incoming().into_iter().find(|(_, from)| *from == latch).expect("an exit phi has the latch's entry").0;
            p.add_incoming(&[(before(v).expect("checked before the change"), skip)]);
        }
    }
    let latch_copy = copy.block(latch);
    for p in instructions(exit).take_while(|p| p.is_phi()).collect::<Vec<_>>() {
        let from_latch: Vec<_> =
            p.incoming().into_iter().filter(|(_, from)| *from == latch).map(|(v, _)| (copy.value(v), latch_copy)).collect();
        p.add_incoming(&from_latch);
    }
    for g in &kept {
        fold(&copy, g, g.taken);
    }
    if trips <= SCALAR_CHECKED_MAX_TRIPS {
        terminator(latch).expect("a latch").add_loop_flag("llvm.loop.vectorize.enable", false);
    }
    let split_any = split_at.is_some();
    if let Some((at, g)) = split_at {
        split(shape, &g, x, pre, exit, at, trips);
    }
    Ok((n_guards, trips, split_any))
}

/// The value `v` stands for, when that is one made before the loop
/// `members` (or a constant): `v` itself, or what phis of the loop that pass
/// on one value whatever the edge pass on.
fn from_before<'c>(mut v: Value<'c>, members: &HashSet<BasicBlock<'c>>) -> Option<Value<'c>> {
    while let Some(i) = v.as_inst().filter(|i| members.contains(&i.block())) {
        v = forwarded(i)?;
    }
    Some(v)
}

/// Whether header phi `p` counts up by a constant: `[_, pre], [p + c,
/// latch]`.
fn is_counter<'c>(p: Inst<'c>, pre: BasicBlock<'c>, latch: BasicBlock<'c>) -> bool {
    let inc = p.incoming();
    let step = inc.iter().find(|(_, from)| *from == latch).and_then(|(v, _)| v.as_inst());
    inc.len() == 2
        && inc.iter().any(|(_, from)| *from == pre)
        && step.is_some_and(|s| {
            s.opcode() == O::LLVMAdd
                && s.num_operands() == 2
                && ((s.operand(0) == p.value() && s.operand(1).is_constant_int())
                    || (s.operand(1) == p.value() && s.operand(0).is_constant_int()))
        })
}

/// Where the loop splits ([`split`]), a new block before its header for
/// the search; `None` where it does not. Puts the loop in loop-closed form
/// either way. Splitting needs one guard true on a prefix.
fn split_block<'c>(
    shape: &Shape<'c>,
    limits: Limits,
    size: usize,
    guard: &Guard<'c>,
    latch: BasicBlock<'c>,
    exit: BasicBlock<'c>,
) -> Option<(BasicBlock<'c>, Guard<'c>)> {
    crate::transform::lcssa::close_over_exit(&shape.blocks, latch, exit);
    if !limits.split || size > SPLIT_MAX_SIZE {
        return None;
    }
    let same = |want: bool| Leaf { cond: guard.leaves[0].cond, want, monotone: guard.leaves[0].monotone };
    let prefix = if guard.leaves.iter().all(holds_on_prefix) {
        // The guard as the fast copy reads it.
        Guard { branch: guard.branch, taken: guard.taken, leaves: guard.leaves.clone() }
    } else if let [l] = guard.leaves.as_slice() {
        // One compare true on a suffix: its other side holds on a prefix
        // (`lid >= off` is `lid < off` for the other branch).
        let flipped = same(!l.want);
        if !holds_on_prefix(&flipped) {
            return None;
        }
        Guard { branch: guard.branch, taken: 1 - guard.taken, leaves: vec![flipped] }
    } else {
        return None;
    };
    Some((insert_block_before(shape.header, "wiver.split"), prefix))
}

/// Makes the copy of `guard`'s branch in `copy` go to successor `slot`.
fn fold<'c>(copy: &LoopCopy<'c>, guard: &Guard<'c>, slot: u32) {
    fold_branch(copy.value(guard.branch.value()).as_inst().expect("a copied branch"), slot);
}

/// Makes the conditional branch `t` go to successor `slot` only.
fn fold_branch(t: Inst<'_>, slot: u32) {
    let succ = t.successors();
    let (keep, skip) = (succ[slot as usize], succ[1 - slot as usize]);
    let from = t.block();
    let mut b = Builder::new(t.value());
    b.position_before(t);
    b.br(keep);
    t.erase();
    if keep != skip {
        for p in instructions(skip).take_while(|p| p.is_phi()).collect::<Vec<_>>() {
            p.retain_incoming(|b| b != from);
        }
    }
}

/// Unswitching: a branch of the loop whose condition is the same for every
/// work-item (it reads only values from before the loop: a lockstep loop's
/// `k + 1 < n` at the end of its step, an `if (flag)` on a kernel argument)
/// gets a copy of the loop per side, chosen once before it:
///
/// ```text
///   P: c' = freeze(c rebuilt before the loop); br c', H.uniform, H
///   H.uniform … (the branch goes to its true side)  ─▶ E
///   H …         (the branch goes to its false side) ─▶ E
/// ```
///
/// Why: the vectoriser predicates such a branch like any other, so each
/// side's stores become masked stores (`vmaskmovps`, a dozen µops each on
/// AVX2 machines) even though the mask is all ones or all zeros. mm3_1's
/// lockstep step stored its sum to one slot when the loop goes on and to
/// another when it ends: two masked stores per 8 work-items, where the time
/// went (BENCHMARKS.md). LLVM's own unswitching leaves these loops alone: its
/// cost grows with the sibling loops, and versioning makes several copies of
/// each work-item loop. One branch per loop (the first in layout order), so
/// a loop is at most doubled; runs after versioning, on every copy.
///
/// Returns the name of the branch's block and that of the copy's header,
/// `None` for a loop without such a branch; refuses (with the reason)
/// before changing anything.
fn unswitch<'c>(shape: &Shape<'c>, limits: Limits) -> Result<Option<(String, String)>, String> {
    let (latch, exit, enter, _) = plain_loop(shape, limits)?;
    let header = shape.header;
    // Invariance does not depend on the counter, and the split copies count
    // to a bound known only at run time: any phi of the header will do.
    let x = instructions(header).next().filter(|i| i.is_phi()).ok_or("the header has no counter")?;
    let mut scope = Scope::new(shape.blocks.iter().copied(), x.value());
    let mut found = None;
    for &b in &shape.blocks {
        let t = terminator(b).expect("checked above");
        if b == latch || t.opcode() != O::LLVMBr || !t.is_conditional_terminator() {
            continue;
        }
        let (s, c) = (t.successors(), t.branch_condition());
        if s[0] != s[1] && c.const_u64().is_none() && scope.is_invariant(c) && rebuildable(c, &scope, REBUILD_DEPTH) {
            found = Some(t);
            break;
        }
    }
    let Some(branch) = found else { return Ok(None) };
    // A versioned loop is entered by the test's conditional branch: the
    // choice between the sides needs a block of its own on that edge.
    let pre_term = if enter.opcode() == O::LLVMBr && !enter.is_conditional_terminator() { enter } else { preheader(enter, header) };
    // A new preheader rebuilt the header's phis (`retain_incoming`): `x`
    // and the scope's counter are deleted values from here on, and were
    // used later on (a crash in `LLVMGetTypeContext`, rarely: only where the
    // freed memory had been reused; the second unswitching round enters
    // every copy through a conditional branch, so makes a preheader each
    // time). Both are taken again.
    let x = instructions(header).next().filter(|i| i.is_phi()).expect("the header keeps its phis");
    let mut scope = Scope::new(shape.blocks.iter().copied(), x.value());
    if branches_to(exit).iter().all(|t| t.block() == latch) {
        crate::transform::lcssa::close_over_exit(&shape.blocks, latch, exit);
    } else {
        // A versioned loop: its exit joins the copies, and `version` closed it.
        let outside = shape
            .blocks
            .iter()
            .flat_map(|&bb| instructions(bb))
            .any(|i| i.users().into_iter().any(|u| !(shape.members.contains(&u.block()) || u.is_phi() && u.block() == exit)));
        if outside {
            return Err("values of the loop are used after it other than through its exit's phis".into());
        }
    }
    let mut emit = Emit::new(pre_term, &mut scope, 1);
    let c = emit.at(branch.branch_condition(), End::Any);
    let c = emit.b.freeze(c, "wiuns.cond");
    let copy = LoopCopy::make(&shape.blocks, Place::Before(exit), "uniform", None);
    let mut b = Builder::new(x.value());
    b.position_before(pre_term);
    b.cond_br(c, copy.block(header), header);
    pre_term.erase();
    let latch_copy = copy.block(latch);
    for p in instructions(exit).take_while(|p| p.is_phi()).collect::<Vec<_>>() {
        let from_latch: Vec<_> =
            p.incoming().into_iter().filter(|(_, from)| *from == latch).map(|(v, _)| (copy.value(v), latch_copy)).collect();
        p.add_incoming(&from_latch);
    }
    let at = branch.block().get_name().to_string_lossy().into_owned();
    let copy_header = copy.block(header).get_name().to_string_lossy().into_owned();
    fold_branch(copy.value(branch.value()).as_inst().expect("a copied branch"), 0);
    fold_branch(branch, 1);
    Ok(Some((at, copy_header)))
}

/// A new block on the edge from `enter` (a terminator outside the loop) to
/// `header`; returns its branch to the header.
fn preheader<'c>(enter: Inst<'c>, header: BasicBlock<'c>) -> Inst<'c> {
    let from = enter.block();
    let pre = insert_block_before(header, "wiuns.pre");
    for (k, to) in enter.successors().into_iter().enumerate() {
        if to == header {
            enter.set_successor(k as u32, pre);
        }
    }
    for p in instructions(header).take_while(|p| p.is_phi()).collect::<Vec<_>>() {
        let moved: Vec<_> = p.incoming().into_iter().filter(|(_, b)| *b == from).map(|(v, _)| (v, pre)).collect();
        p.add_incoming(&moved);
        p.retain_incoming(|b| b != from);
    }
    let mut b = Builder::new(enter.value());
    b.position_at_end(pre);
    b.br(header)
}

/// How many times a loop and its copies are unswitched, one uniform branch
/// each time.
const UNSWITCH_ROUNDS: usize = 2;

/// How deep a condition [`unswitch`] rebuilds before the loop may be.
const REBUILD_DEPTH: u32 = 8;

/// Whether [`Emit::at`] can rebuild the invariant `v` before the loop: values
/// from outside it, and the integer operations `at` knows over them.
fn rebuildable<'c>(v: Value<'c>, scope: &Scope<'c>, depth: u32) -> bool {
    let Some(i) = scope.inside(v) else { return true };
    if depth == 0 {
        return false;
    }
    if let Some(w) = forwarded(i) {
        return rebuildable(w, scope, depth - 1);
    }
    matches!(
        i.opcode(),
        O::LLVMAdd
            | O::LLVMSub
            | O::LLVMMul
            | O::LLVMAnd
            | O::LLVMOr
            | O::LLVMXor
            | O::LLVMShl
            | O::LLVMLShr
            | O::LLVMAShr
            | O::LLVMTrunc
            | O::LLVMZExt
            | O::LLVMSExt
            | O::LLVMICmp
            | O::LLVMSelect
    ) && i.operands().all(|o| rebuildable(o, scope, depth - 1))
}

/// Whether `leaf` holds for the first work-items and fails for the rest
/// (once `g` does not wrap): `g(x) < u` with `g` rising, `g(x) > u` with
/// `g` falling, in any spelling; invariant leaves too (all or nothing).
fn holds_on_prefix(leaf: &Leaf<'_>) -> bool {
    use LLVMIntPredicate as P;
    let Some((side, dir)) = leaf.monotone else { return true };
    let pred = leaf.cond.as_inst().expect("a compare").icmp_predicate();
    let p = if leaf.want { pred } else { negated_predicate(pred) };
    let p = if side == 0 { p } else { swapped_predicate(p) };
    let below = matches!(p, P::LLVMIntULT | P::LLVMIntULE | P::LLVMIntSLT | P::LLVMIntSLE);
    below == (dir == Direction::Up)
}

/// Index-set splitting for the groups that fail the all-pass test: where
/// the one guard (read with the side it takes on a prefix: `lid >= off`
/// splits as `lid < off`) holds on a prefix `[0, k)` of the work-items
/// (found by a binary search, a loop of one probe per bit of `C`), a second
/// unchecked copy runs `[0, k)` and a third, with the guard folded to its
/// other side, runs `[k, C)`; `k = 0` (or a `g` that wraps) keeps the
/// original loop. A tree reduction's `if (lid < s)` then costs `s`
/// work-items, not `C` masked ones.
///
/// ```text
///   P ─ all pass ─▶ H.fast …              (as before)
///   └▶ S ⟲: k = #{x : guard(x)} (binary search), br (k > 0 ∧ no wrap)
///        ├──▶ H.split … [0, k) ─▶ T: br k <u C ─▶ H.tail … [k, C) ─▶ E
///        │                           └──────────────────────────▶ E
///        └──▶ H … [0, C) (original) ──────────────────────────────▶ E
/// ```
fn split<'c>(shape: &Shape<'c>, guard: &Guard<'c>, x: Inst<'c>, pre: BasicBlock<'c>, exit: BasicBlock<'c>, at: BasicBlock<'c>, trips: u64) {
    let (header, latch) = (shape.header, shape.latches[0]);
    let ty = x.ty();
    // The search is a loop of its own (one probe per bit of the trip
    // count), kept rolled: straight-line, LLVM hoists it out of the
    // work-item nest's outer loops into code every group runs.
    let search = insert_block_before(header, "wiver.search");
    let found = insert_block_before(header, "wiver.found");
    let mut b = Builder::new(x.value());
    b.position_at_end(at);
    b.br(search);
    b.position_at_end(search);
    let pos = b.phi(ty, "wiver.pos");
    let step = b.phi(ty, "wiver.step");
    let placeholder = b.br(found);
    // The original loop is entered from the search's end now (a new phi:
    // the C API cannot move an entry).
    let x = x.retain_incoming(|from| from != pre);
    x.add_incoming(&[(ty.const_int(0), found)]);
    let mut scope = Scope::new(shape.blocks.iter().copied(), x.value());
    let mut emit = Emit::new(placeholder, &mut scope, trips);
    let mut nowrap = guard.leaves[0].cond.ty().const_int(1);
    for leaf in &guard.leaves {
        let t = emit.nowrap(leaf);
        nowrap = emit.and(nowrap, t);
    }
    let next = emit.search_step(guard, pos.value(), step.value());
    let half = emit.b.lshr(step.value(), ty.const_int(1), "wiver.step.next");
    let more = emit.b.icmp(LLVMIntPredicate::LLVMIntNE, half, ty.const_int(0), "wiver.more.steps");
    placeholder.erase();
    b.position_at_end(search);
    b.cond_br(more, search, found).mark_rolled_loop();
    pos.add_incoming(&[(ty.const_int(0), at), (next, search)]);
    step.add_incoming(&[(ty.const_int(1u64 << (63 - trips.leading_zeros())), at), (half, search)]);
    b.position_at_end(found);
    let k = b.freeze(next, "wiver.k");
    let some = b.icmp(LLVMIntPredicate::LLVMIntNE, k, ty.const_int(0), "wiver.some");
    let go = b.int_op(IntOp::And, nowrap, some, "wiver.go");
    let go = b.freeze(go, "wiver.go.fr");
    let placeholder = b.br(header);

    let mid = LoopCopy::make(&shape.blocks, Place::Before(exit), "split", None);
    b.position_before(placeholder);
    b.cond_br(go, mid.block(header), header);
    placeholder.erase();
    // [0, k): the latch compares with k, and leaves for the tail's test.
    let tail_pre = insert_block_before(exit, "wiver.tail");
    let latch_term = terminator(latch).expect("a latch ends in a branch");
    let mid_latch = mid.value(latch_term.value()).as_inst().expect("a copied latch");
    let cmp = mid_latch.branch_condition().as_inst().expect("the latch compares");
    let bound = (0..2).find(|&k| cmp.operand(k).const_u64() == Some(trips)).expect("the latch compares with the trip count");
    cmp.set_operand(bound, k);
    for op in 0..mid_latch.num_operands() {
        if mid_latch.operand(op).as_block() == Some(exit) {
            mid_latch.set_operand(op, Value::of_block(tail_pre));
        }
    }
    // [k, C): the guard fails there.
    let tail = LoopCopy::make(&shape.blocks, Place::Before(exit), "tail", Some((found, tail_pre)));
    let tail_x = tail.value(x.value()).as_inst().expect("a copied counter");
    tail_x.retain_incoming(|from| from != tail_pre).add_incoming(&[(k, tail_pre)]);
    b.position_at_end(tail_pre);
    let more = b.icmp(LLVMIntPredicate::LLVMIntULT, k, ty.const_int(trips), "wiver.more");
    b.cond_br(more, tail.block(header), exit);
    // What leaves the loop is the last work-item's (the loop carries
    // nothing else): the tail's, or the split copy's when k = C. Each
    // computes what the original does for that work-item, the guard
    // folded to the side it takes there. The entries go in before the
    // folding: it rebuilds phis that lose an entry (a stop state's), which
    // the copies' maps would still name (a freed phi: a crash, found by
    // version-pin.ll's @skip); uses already made follow the rebuilt one.
    let tail_latch = tail.block(latch);
    for p in instructions(exit).take_while(|p| p.is_phi()).collect::<Vec<_>>() {
        let v = p.incoming().into_iter().find(|(_, from)| *from == latch).expect("an exit phi has the latch's entry").0;
        p.add_incoming(&[(tail.value(v), tail_latch), (mid.value(v), tail_pre)]);
    }
    fold(&mid, guard, guard.taken);
    fold(&tail, guard, 1 - guard.taken);
}

/// The counter `x = phi [0, pre], [x + 1, latch]` that the latch tests
/// against a constant `C` (`x + 1 <u C` or `!= C`, in any spelling), and `C`.
fn counter<'c>(
    latch_term: Inst<'c>,
    header: BasicBlock<'c>,
    pre: BasicBlock<'c>,
    latch: BasicBlock<'c>,
) -> Result<(Inst<'c>, u64), String> {
    use LLVMIntPredicate as P;
    if latch_term.opcode() != O::LLVMBr || !latch_term.is_conditional_terminator() {
        return Err("the latch does not end in a conditional branch".into());
    }
    let cmp =
        latch_term.branch_condition().as_inst().filter(|c| c.opcode() == O::LLVMICmp).ok_or("the latch does not branch on an icmp")?;
    let mut pred = cmp.icmp_predicate();
    let (next, bound) = if cmp.operand(1).const_u64().is_some() {
        (cmp.operand(0), cmp.operand(1))
    } else {
        pred = swapped_predicate(pred);
        (cmp.operand(1), cmp.operand(0))
    };
    if latch_term.successors()[0] != header {
        pred = negated_predicate(pred);
    }
    let trips = bound.const_u64().ok_or("the latch does not compare with a constant")?;
    if !matches!(pred, P::LLVMIntULT | P::LLVMIntNE) || trips == 0 {
        return Err("the latch test is not `x + 1 <u C` or `x + 1 != C` with C >= 1".into());
    }
    let add = next.as_inst().filter(|i| i.opcode() == O::LLVMAdd).ok_or("the latch does not test an increment")?;
    let x = match (add.operand(0).const_u64(), add.operand(1).const_u64()) {
        (_, Some(1)) => add.operand(0),
        (Some(1), _) => add.operand(1),
        _ => return Err("the latch does not test x + 1".into()),
    };
    let phi = x.as_inst().filter(|p| p.is_phi() && p.block() == header).ok_or("the latch does not test a counter of the header")?;
    let inc = phi.incoming();
    let canonical = inc.len() == 2
        && inc.iter().any(|(v, b)| *b == pre && v.const_u64() == Some(0))
        && inc.iter().any(|(v, b)| *b == latch && *v == next);
    if !canonical {
        return Err("the counter does not run from 0 by 1".into());
    }
    Ok((phi, trips))
}

/// The guard of branch `t`, if its condition is one the module
/// documentation describes.
fn guard<'c>(t: Inst<'c>, scope: &mut Scope<'c>, trips: u64) -> Option<Guard<'c>> {
    let c = t.branch_condition();
    for (want, taken) in [(true, 0), (false, 1)] {
        let mut leaves = Vec::new();
        if collect(c, want, scope, trips, &mut leaves) && leaves.iter().any(|l| l.monotone.is_some()) {
            return Some(Guard { branch: t, taken, leaves });
        }
    }
    None
}

/// Whether `v` must be `want` for every work-item exactly when every leaf
/// pushed onto `leaves` is its own `want` for every work-item.
fn collect<'c>(v: Value<'c>, want: bool, scope: &mut Scope<'c>, trips: u64, leaves: &mut Vec<Leaf<'c>>) -> bool {
    if !v.ty().is_integer() || v.ty().int_width() != 1 {
        return false;
    }
    if scope.is_invariant(v) {
        leaves.push(Leaf { cond: v, want, monotone: None });
        return true;
    }
    let Some(i) = scope.inside(v) else { return false };
    let op = |k: u32| i.operand(k);
    match i.opcode() {
        O::LLVMAnd if want => collect(op(0), true, scope, trips, leaves) && collect(op(1), true, scope, trips, leaves),
        O::LLVMOr if !want => collect(op(0), false, scope, trips, leaves) && collect(op(1), false, scope, trips, leaves),
        O::LLVMSelect if want && op(2).const_u64() == Some(0) => {
            collect(op(0), true, scope, trips, leaves) && collect(op(1), true, scope, trips, leaves)
        }
        O::LLVMSelect if !want && op(1).const_u64() == Some(1) => {
            collect(op(0), false, scope, trips, leaves) && collect(op(2), false, scope, trips, leaves)
        }
        O::LLVMXor if op(1).const_u64() == Some(1) => collect(op(0), !want, scope, trips, leaves),
        O::LLVMICmp if is_ordered(i.icmp_predicate()) => {
            let side = if scope.is_invariant(op(1)) {
                0
            } else if scope.is_invariant(op(0)) {
                1
            } else {
                return false;
            };
            let g = op(side);
            let Some(step) = scope.step(g) else { return false };
            let Some(dir) = direction(step, g.ty().int_width(), trips) else { return false };
            leaves.push(Leaf { cond: v, want, monotone: Some((side, dir)) });
            true
        }
        _ => false,
    }
}

/// Which value of the counter an expression is rebuilt for.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum End {
    /// Loop-invariant: the same for every x.
    Any,
    First,
    Last,
    /// The `k`-th point of [`Emit::points`] (the split search's probes).
    At(usize),
}

/// Builds the test before the preheader's branch.
struct Emit<'c, 's> {
    b: Builder<'c>,
    scope: &'s mut Scope<'c>,
    trips: u64,
    rebuilt: HashMap<(Value<'c>, End), Value<'c>>,
    /// Everything built, in order (operands before users).
    built: Vec<Value<'c>>,
    /// Counter values that `End::At` names.
    points: Vec<Value<'c>>,
}

impl<'c, 's> Emit<'c, 's> {
    fn new(before: Inst<'c>, scope: &'s mut Scope<'c>, trips: u64) -> Self {
        let mut b = Builder::new(before.value());
        b.position_before(before);
        Emit { b, scope, trips, rebuilt: HashMap::new(), built: Vec::new(), points: Vec::new() }
    }

    fn made(&mut self, v: Value<'c>) -> Value<'c> {
        self.built.push(v);
        v
    }

    /// `a ∧ b`, folded where either is a constant (LLVM's builder folds
    /// only when both are), so a test known false stays visibly false.
    fn and(&mut self, a: Value<'c>, b: Value<'c>) -> Value<'c> {
        self.logic(true, a, b)
    }

    /// `a ∨ b`, folded where either is a constant.
    fn or(&mut self, a: Value<'c>, b: Value<'c>) -> Value<'c> {
        self.logic(false, a, b)
    }

    /// `a ∧ b` (`and`) or `a ∨ b`: a constant operand that decides the
    /// result is it, one that does not leaves the other operand.
    fn logic(&mut self, and: bool, a: Value<'c>, b: Value<'c>) -> Value<'c> {
        let decides = if and { 0 } else { 1 };
        match (a.const_u64(), b.const_u64()) {
            (Some(c), _) if c == decides => a,
            (_, Some(c)) if c == decides => b,
            (Some(_), _) => b,
            (_, Some(_)) => a,
            _ => {
                let (op, name) = if and { (IntOp::And, "wiver.and") } else { (IntOp::Or, "wiver.or") };
                let v = self.b.int_op(op, a, b, name);
                self.made(v)
            }
        }
    }

    /// `v` with the counter at `end`, from fresh instructions without
    /// poison-generating flags.
    fn at(&mut self, v: Value<'c>, end: End) -> Value<'c> {
        let x = self.scope.counter();
        if v == x {
            return match end {
                End::At(k) => self.points[k],
                End::Last => x.ty().const_int(self.trips - 1),
                End::First | End::Any => x.ty().const_int(0),
            };
        }
        let Some(i) = self.scope.inside(v) else { return v };
        if let Some(w) = forwarded(i) {
            return self.at(w, end);
        }
        let end = if self.scope.is_invariant(v) { End::Any } else { end };
        if let Some(&w) = self.rebuilt.get(&(v, end)) {
            return w;
        }
        let ops: Vec<Value<'c>> = i.operands().collect::<Vec<_>>().into_iter().map(|o| self.at(o, end)).collect();
        let (b, ty) = (&mut self.b, i.ty());
        let w = match i.opcode() {
            O::LLVMAdd => b.int_op(IntOp::Add, ops[0], ops[1], ""),
            O::LLVMSub => b.int_op(IntOp::Sub, ops[0], ops[1], ""),
            O::LLVMMul => b.int_op(IntOp::Mul, ops[0], ops[1], ""),
            O::LLVMAnd => b.int_op(IntOp::And, ops[0], ops[1], ""),
            O::LLVMOr => b.int_op(IntOp::Or, ops[0], ops[1], ""),
            O::LLVMXor => b.int_op(IntOp::Xor, ops[0], ops[1], ""),
            O::LLVMShl => b.shl(ops[0], ops[1], ""),
            O::LLVMLShr => b.lshr(ops[0], ops[1], ""),
            O::LLVMAShr => b.ashr(ops[0], ops[1], ""),
            O::LLVMTrunc => b.trunc(ops[0], ty, ""),
            O::LLVMZExt => b.zext(ops[0], ty, ""),
            O::LLVMSExt => b.sext(ops[0], ty, ""),
            O::LLVMICmp => b.icmp(i.icmp_predicate(), ops[0], ops[1], ""),
            O::LLVMSelect => b.select(ops[0], ops[1], ops[2], ""),
            other => unreachable!("only invariant or affine instructions are rebuilt, not {other:?}"),
        };
        self.rebuilt.insert((v, end), w);
        self.made(w)
    }

    /// The test that `leaf` is its `want` for every work-item.
    fn leaf(&mut self, leaf: &Leaf<'c>) -> Value<'c> {
        let Some((side, dir)) = leaf.monotone else {
            let c = self.at(leaf.cond, End::Any);
            if leaf.want {
                return c;
            }
            let not = self.b.int_op(IntOp::Xor, c, c.ty().const_int(1), "wiver.not");
            return self.made(not);
        };
        let cmp = leaf.cond.as_inst().expect("a compare");
        let pred = cmp.icmp_predicate();
        let p = if leaf.want { pred } else { negated_predicate(pred) };
        let u = self.at(cmp.operand(1 - side), End::Any);
        let first = self.at(cmp.operand(side), End::First);
        let last = self.at(cmp.operand(side), End::Last);
        let mut test = |g: Value<'c>, name: &str| {
            let (a, b) = if side == 0 { (g, u) } else { (u, g) };
            let v = self.b.icmp(p, a, b, name);
            self.made(v)
        };
        let at_first = test(first, "wiver.first");
        let at_last = test(last, "wiver.last");
        let (le, first_lhs) = nowrap_test(pred, dir);
        let (a, b) = if first_lhs { (first, last) } else { (last, first) };
        let nowrap = self.b.icmp(le, a, b, "wiver.nowrap");
        self.made(nowrap);
        let ends = self.and(at_first, at_last);
        self.and(ends, nowrap)
    }

    /// The test that `leaf` is not its `want` for any work-item: it fails
    /// at both ends, and (monotone, changing at most once) does not wrap.
    fn never(&mut self, leaf: &Leaf<'c>) -> Value<'c> {
        let Some((side, _)) = leaf.monotone else {
            let c = self.at(leaf.cond, End::Any);
            if !leaf.want {
                return c;
            }
            let not = self.b.int_op(IntOp::Xor, c, c.ty().const_int(1), "wiver.not");
            return self.made(not);
        };
        let cmp = leaf.cond.as_inst().expect("a compare");
        let pred = cmp.icmp_predicate();
        let fails = if leaf.want { negated_predicate(pred) } else { pred };
        let u = self.at(cmp.operand(1 - side), End::Any);
        let mut ends = Vec::new();
        for end in [End::First, End::Last] {
            let g = self.at(cmp.operand(side), end);
            let (a, b) = if side == 0 { (g, u) } else { (u, g) };
            let v = self.b.icmp(fails, a, b, "wiver.fails");
            ends.push(self.made(v));
        }
        let both = self.and(ends[0], ends[1]);
        let nowrap = self.nowrap(leaf);
        self.and(both, nowrap)
    }

    /// The run-time test that a monotone leaf's `g` does not wrap over the
    /// loop (true for an invariant leaf).
    fn nowrap(&mut self, leaf: &Leaf<'c>) -> Value<'c> {
        let Some((side, dir)) = leaf.monotone else { return leaf.cond.ty().const_int(1) };
        let cmp = leaf.cond.as_inst().expect("a compare");
        let first = self.at(cmp.operand(side), End::First);
        let last = self.at(cmp.operand(side), End::Last);
        let (le, first_lhs) = nowrap_test(cmp.icmp_predicate(), dir);
        let (a, b) = if first_lhs { (first, last) } else { (last, first) };
        let v = self.b.icmp(le, a, b, "wiver.nowrap");
        self.made(v)
    }

    /// Whether `leaf` is its `want` for the counter value `x`.
    fn holds_at(&mut self, leaf: &Leaf<'c>, x: Value<'c>) -> Value<'c> {
        self.points.push(x);
        let at = End::At(self.points.len() - 1);
        let cond = match leaf.monotone {
            None => self.at(leaf.cond, End::Any),
            Some(_) => self.at(leaf.cond, at),
        };
        if leaf.want {
            return cond;
        }
        let not = self.b.int_op(IntOp::Xor, cond, cond.ty().const_int(1), "wiver.not");
        self.made(not)
    }

    /// One step of the search for how many work-items from the first
    /// pass every leaf of `guard` (one that holds on a prefix, see
    /// [`holds_on_prefix`]): with `pos` of them known to pass, whether
    /// `pos + step` do too, and the new `pos`.
    fn search_step(&mut self, guard: &Guard<'c>, pos: Value<'c>, step: Value<'c>) -> Value<'c> {
        let ty = self.scope.counter().ty();
        let trips = ty.const_int(self.trips);
        let cand = self.b.int_op(IntOp::Add, pos, step, "wiver.cand");
        self.made(cand);
        let inside = self.b.icmp(LLVMIntPredicate::LLVMIntULE, cand, trips, "wiver.inside");
        self.made(inside);
        // Probe min(cand, C) - 1, inside the loop's range.
        let clamped = self.b.select(inside, cand, trips, "wiver.clamp");
        self.made(clamped);
        let probe = self.b.int_op(IntOp::Sub, clamped, ty.const_int(1), "wiver.probe");
        self.made(probe);
        let mut ok = inside;
        for leaf in &guard.leaves {
            let h = self.holds_at(leaf, probe);
            ok = self.and(ok, h);
        }
        let next = self.b.select(ok, cand, pos, "wiver.pos.next");
        self.made(next)
    }

    /// Erases what was built and is not used (tests left out, or all of
    /// them when the loop is not versioned), users first.
    fn erase_unused(&mut self) {
        for v in self.built.drain(..).rev() {
            if let Some(i) = v.as_inst() {
                if !v.has_uses() {
                    i.erase();
                }
            }
        }
    }
}
