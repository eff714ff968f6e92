//! `simt-lockstep-loops<local-size=X,Y,Z>`: a loop whose trip count differs
//! between work-items only because each starts at its own place (a
//! grid-stride loop) becomes a work-group-uniform loop with a barrier at its
//! top, so that `simt-wiloops` puts the work-item loop *inside* it: step k
//! reads `in[m_k + lid]` for the whole work-group, contiguous and
//! vectorisable, where each work-item alone strides `global_size` apart (why
//! and what it gains: `passes/DESIGN.md`, BENCHMARKS.md).
//!
//! The rotated loop clang emits (G the guard, H…T the loop, X its exit):
//!
//! ```text
//!   G: br (start P n), H, X          G: ok = (no wrap, see below)
//!   H: i = phi [start, G], [i', T]      br ok, U.pre, G.orig ──▶ original loop
//!      …body…                        U.h: m = phi [s0, U.pre], [m + st, U.latch]
//!   T: i' = i + st                        br (m P n), U.body, U.exit
//!      br (i' P n), H, X             U.body: barrier; i = m + delta(lid)
//!   X: phi [v0, G], [v, T]                br (i P n), H, U.latch
//!                                    H…T: the body, T ──▶ U.latch
//!                                    U.latch: carried values; br U.h
//!                                    U.exit ──▶ X
//! ```
//!
//! P is `ult` or `slt`; `st` and `n` are uniform; `start = s0 + delta(lid)`
//! with `delta = cx*lx + cy*ly + cz*lz (mod 2^w)`, constants c ≥ 0 found by
//! walking `start`'s adds, subs, multiplications and shifts by constants,
//! truncations and id builtins. `s0` (work-item (0,0,0)'s start) makes `m`
//! uniform, and `i = m + delta` has the bits of the original `start + k*st`.
//! The guard `ok` checks at run time that nothing wraps (`s0`, `n` against
//! the span `Σ c_d (L_d − 1)` and `st`; the proof: `passes/DESIGN.md`);
//! when it fails the original loop runs, cloned. Carried and exit values
//! become phis that keep their value on steps a work-item sits out.
//!
//! Conditions (else the loop is left alone): one latch, the only exiting
//! block; guard and latch test the same `n` and predicate; no divergent
//! branch controls the guard (the new barrier would be illegal); no barrier
//! or convergent call in the loop; the local size known; some c nonzero.
//! `uniform=off|contiguous|any` (default `contiguous`) gives loops of one
//! trip count for all work-items the same treatment (`lockstep_uniform.rs`),
//! in kernels where no grid-stride loop was taken.
//!
//! Limits: only the rotated `for` with its guard (clang's at -O1 and up);
//! `i += st` with `st` uniform (not `i *= 2`); starts decreasing in a local
//! id are not taken; every work-item waits for the slowest (trip counts
//! differ by one here). Host only. Seed: none (seed 001 names the work-item
//! loops this feeds); pocl's implicit loop barriers, CuPBoP's loop handling.

use crate::analysis::affine_guard::{linear, mask, Term};
use crate::analysis::cache::FunctionAnalyses;
use crate::cfg::BlockId;
use crate::ir::globals::function_or_declare;
use crate::ir::{defined_functions, instructions, negated_predicate, swapped_predicate, terminator, Builder, Inst, IntOp, Ty, Value};
use crate::kernel_model::{builtin_of, is_kernel, Builtin};
use crate::pass::{DeclaredPass, ModulePass, PassContext, PassError, Preserved};
use crate::transform::lockstep_uniform::{self, UniformRule};
use crate::transform::loop_copy::{LoopCopy, Place};
use inkwell::basic_block::BasicBlock;
use inkwell::module::Module;
use inkwell::values::FunctionValue;
use llvm_sys::{LLVMCallConv, LLVMIntPredicate, LLVMOpcode};
use std::collections::HashMap;

#[derive(Clone, Debug, Default)]
pub struct LockstepLoops {
    /// The work-group size the kernel will run with (the span of `delta`).
    pub local_size: Option<[u64; 3]>,
    /// Which loops of a work-group-uniform trip count go in lockstep too
    /// (`lockstep_uniform.rs`).
    pub uniform: UniformRule,
}

impl DeclaredPass for LockstepLoops {
    const NAME: &'static str = "simt-lockstep-loops";
    const SUMMARY: &'static str =
        "grid-stride loops become work-group-uniform loops with a barrier on top, so the work-item loop runs inside them (host)";
    const OPTIONS: &'static [(&'static str, &'static str)] =
        &[
            ("local-size=X,Y,Z", "the work-group size of the launch (required: without it no loop is changed)"),
            (
                "uniform=off|contiguous|any",
                "loops whose trip count is the same for all work-items: none, those whose addresses are uniform or consecutive across the local id x (default), all that are legal",
            ),
        ];

    fn set_option(&mut self, key: &str, value: Option<&str>) -> Result<(), String> {
        match key {
            "local-size" => {
                self.local_size = Some(crate::pass::parse_local_size(value)?);
                Ok(())
            }
            "uniform" => {
                self.uniform = UniformRule::parse(value)?;
                Ok(())
            }
            _ => Err(crate::pass::unknown_option::<Self>(key)),
        }
    }
}

impl ModulePass for LockstepLoops {
    fn name(&self) -> String {
        let uniform = if self.uniform == UniformRule::default() { String::new() } else { format!(";uniform={}", self.uniform.name()) };
        match self.local_size {
            Some([x, y, z]) => format!("{}<local-size={x},{y},{z}{uniform}>", Self::NAME),
            None => Self::NAME.into(),
        }
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        let Some(local_size) = self.local_size else { return Ok(Preserved::all()) };
        let mut changed = 0;
        for f in defined_functions(cx.module()).into_iter().filter(|&f| is_kernel(f)) {
            let plans = find_plans(cx.analyses(f), local_size);
            let grid_stride = !plans.is_empty();
            for p in plans {
                apply(cx.module(), f, &p);
                changed += 1;
            }
            if grid_stride {
                continue;
            }
            // One uniform loop at a time, each found on the function as the
            // last one left it (the analyses are recomputed: the CFG changed).
            let loops = cx.analyses(f).loops().loops().count();
            for _ in 0..loops {
                let Some(p) = lockstep_uniform::find(cx.analyses(f), local_size, self.uniform) else { break };
                lockstep_uniform::apply(cx.module(), f, &p);
                changed += 1;
            }
        }
        Ok(if changed > 0 { Preserved::none() } else { Preserved::all() })
    }
}

/// One grid-stride loop and what its lockstep form needs.
struct Plan<'ctx> {
    guard: BasicBlock<'ctx>,
    /// A block between the guard and the header (clang puts loop-invariant
    /// code there), all speculatable: it moves into the guard.
    pre: Option<BasicBlock<'ctx>>,
    header: BasicBlock<'ctx>,
    latch: BasicBlock<'ctx>,
    exit: BasicBlock<'ctx>,
    /// Where the guard sends work-items that skip the loop, when that is not
    /// `exit` (clang's dedicated exit block: `exit` then has the latch as its
    /// only predecessor, and the two paths meet further down).
    skip: Option<BasicBlock<'ctx>>,
    /// The loop's blocks in reverse post-order (definitions before uses).
    blocks: Vec<BasicBlock<'ctx>>,
    iv: Inst<'ctx>,
    start: Value<'ctx>,
    step: Value<'ctx>,
    bound: Value<'ctx>,
    /// `slt` rather than `ult`.
    signed: bool,
    /// `start`'s coefficients of the local ids x, y, z (mod 2^width).
    coef: [u64; 3],
    width: u32,
    /// Σ c_d (L_d − 1), below 2^w.
    span: u128,
    opencl: bool,
}

fn find_plans<'ctx>(fa: &FunctionAnalyses<'ctx>, local_size: [u64; 3]) -> Vec<Plan<'ctx>> {
    let cfg = &fa.cfg.cfg;
    let mut plans = Vec::new();
    for (_, lp) in fa.loops().loops() {
        if let Some(p) = plan(fa, lp, local_size) {
            plans.push(p);
        }
    }
    // Stable order for reproducible output.
    plans.sort_by_key(|p| fa.cfg.id(p.header).map(|b| cfg.rpo_position(b)));
    plans
}

fn plan<'ctx>(fa: &FunctionAnalyses<'ctx>, lp: &crate::analysis::loops::Loop, local_size: [u64; 3]) -> Option<Plan<'ctx>> {
    let cfg = &fa.cfg.cfg;
    let (&[t], &[exiting], &[x]) = (lp.latches.as_slice(), lp.exiting.as_slice(), lp.exits.as_slice()) else { return None };
    let h = lp.header;
    if exiting != t {
        return None;
    }
    let outside: Vec<BlockId> = cfg.preds(h).iter().copied().filter(|&p| p != t).collect();
    let &[e] = outside.as_slice() else { return None };
    let bb = |b: BlockId| fa.cfg.block(b);
    // The block entering the loop is the guard, or a preheader of
    // speculatable code right after it.
    let (g, pre) = match (cfg.preds(e), cfg.succs(e)) {
        (&[g], &[only]) if only == h && instructions(bb(e)).all(|i| i.is_terminator() || speculatable(i)) => (g, Some(e)),
        _ => (e, None),
    };
    let into = pre.unwrap_or(h);
    let skip = match *cfg.succs(g) {
        [a, b] if a == into && b != into => b,
        [a, b] if b == into && a != into => a,
        _ => return None,
    };
    let mut xp = cfg.preds(x).to_vec();
    xp.sort();
    let skip = if skip == x {
        let mut want_x = vec![g, t];
        want_x.sort();
        if xp != want_x {
            return None;
        }
        None
    } else {
        if xp != [t] {
            return None;
        }
        Some(skip)
    };
    if fa.divergent_controller(g).is_some() {
        return None;
    }
    let in_loop = |v: Value<'ctx>| v.as_inst().is_some_and(|i| fa.cfg.id(i.block()).is_some_and(|b| lp.blocks.contains(&b)));
    let uniform = |v: Value<'ctx>| !fa.uniformity().is_divergent(v);
    for &b in &lp.blocks {
        if instructions(bb(b)).any(synchronizes) {
            return None;
        }
    }
    let (g_br, t_br) = (terminator(bb(g))?, terminator(bb(t))?);
    let cond_br = |i: Inst<'_>| i.opcode() == LLVMOpcode::LLVMBr && i.is_conditional_terminator();
    if !cond_br(g_br) || !cond_br(t_br) {
        return None;
    }
    for iv in instructions(bb(h)).take_while(|i| i.is_phi()) {
        if !iv.ty().is_integer() {
            continue;
        }
        let inc = iv.incoming().into_iter().find(|&(_, from)| from == bb(t))?.0;
        let start = iv.incoming().into_iter().find(|&(_, from)| from == bb(e))?.0;
        let Some(add) = inc.as_inst().filter(|a| a.opcode() == LLVMOpcode::LLVMAdd) else { continue };
        let step = if add.operand(0) == iv.value() {
            add.operand(1)
        } else if add.operand(1) == iv.value() {
            add.operand(0)
        } else {
            continue;
        };
        // A step computed in the loop (a builtin call clang did not hoist)
        // is computed again in the guard.
        let in_pre = |v: Value<'ctx>| v.as_inst().is_some_and(|i| Some(i.block()) == pre.map(bb));
        if !uniform(step) || !(in_pre(step) || available_at(fa, step, g) || hoistable(fa, step, &lp.blocks, 4)) {
            continue;
        }
        // The latch stays while `inc P n`; the guard enters while `start P n`.
        let Some((pred_t, bound)) = stay_test(t_br, inc, bb(h)) else { continue };
        if in_loop(bound) || !uniform(bound) {
            continue;
        }
        let Some((pred_g, bound_g)) = stay_test(g_br, start, pre.map(bb).unwrap_or(bb(h))) else { continue };
        if bound_g != bound || pred_g != pred_t {
            continue;
        }
        let signed = match pred_t {
            LLVMIntPredicate::LLVMIntULT => false,
            LLVMIntPredicate::LLVMIntSLT => true,
            _ => continue,
        };
        let mut opencl = None;
        let Some(coef) = affine_of(fa, start, &mut opencl) else { continue };
        let width = start.ty().int_width();
        if coef == [0; 3] {
            continue;
        }
        let span = (0..3).try_fold(0u128, |acc, d| acc.checked_add(u128::from(coef[d]).checked_mul(local_size[d] as u128 - 1)?))?;
        if span > u128::from(mask(width)) {
            continue;
        }
        let mut rpo: Vec<BlockId> = lp.blocks.clone();
        rpo.sort_by_key(|&b| cfg.rpo_position(b));
        return Some(Plan {
            guard: bb(g),
            pre: pre.map(bb),
            header: bb(h),
            latch: bb(t),
            exit: bb(x),
            skip: skip.map(bb),
            blocks: rpo.into_iter().map(bb).collect(),
            iv,
            start,
            step,
            bound,
            signed,
            coef,
            width,
            span,
            opencl: opencl?,
        });
    }
    None
}

/// Barriers and convergent operations: work-items would meet them in other
/// company once the loop runs in lockstep.
pub(super) fn synchronizes(i: Inst<'_>) -> bool {
    if i.opcode() != LLVMOpcode::LLVMCall {
        return false;
    }
    // Clang marks every OpenCL builtin call convergent; the work-item
    // queries only read the launch.
    if let Some(b) = builtin_of(i) {
        return b == Builtin::Barrier;
    }
    if i.has_call_site_fn_attribute("convergent") {
        return true;
    }
    i.called_function().is_some_and(|f| crate::ir::has_fn_attribute(f, "convergent"))
        || i.called_function_name().is_some_and(|n| n.starts_with("llvm.nvvm.") && !n.starts_with("llvm.nvvm.read.ptx.sreg."))
}

/// Whether `i` can run where it would not have: no memory access, no
/// division, no call but to the work-item builtins (which read only the
/// launch).
pub(super) fn speculatable(i: Inst<'_>) -> bool {
    use LLVMOpcode::*;
    match i.opcode() {
        LLVMAdd | LLVMSub | LLVMMul | LLVMShl | LLVMLShr | LLVMAShr | LLVMAnd | LLVMOr | LLVMXor | LLVMFAdd | LLVMFSub | LLVMFMul
        | LLVMFNeg | LLVMTrunc | LLVMZExt | LLVMSExt | LLVMFPTrunc | LLVMFPExt | LLVMFPToUI | LLVMFPToSI | LLVMUIToFP | LLVMSIToFP
        | LLVMBitCast | LLVMAddrSpaceCast | LLVMPtrToInt | LLVMIntToPtr | LLVMICmp | LLVMFCmp | LLVMSelect | LLVMGetElementPtr => true,
        LLVMCall => builtin_of(i).is_some_and(|b| b != Builtin::Barrier),
        _ => false,
    }
}

/// Whether `v`, defined in the loop `blocks`, is speculatable code over
/// values from outside it, `depth` levels deep: it can be computed again
/// before the loop.
pub(super) fn hoistable(fa: &FunctionAnalyses<'_>, v: Value<'_>, blocks: &[BlockId], depth: u32) -> bool {
    let Some(i) = v.as_inst() else { return true };
    let inside = fa.cfg.id(i.block()).is_some_and(|b| blocks.contains(&b));
    if !inside {
        return true;
    }
    depth > 0 && !i.is_phi() && speculatable(i) && i.operands().all(|op| op.as_block().is_none() && hoistable(fa, op, blocks, depth - 1))
}

/// Whether `v` (outside the loop) may be used at the end of block `g`.
pub(super) fn available_at(fa: &FunctionAnalyses<'_>, v: Value<'_>, g: BlockId) -> bool {
    match v.as_inst() {
        None => true,
        Some(i) => fa.cfg.id(i.block()).is_some_and(|d| fa.dom().dominates(d.0, g.0)),
    }
}

/// For a conditional branch on `icmp`, which has `x` as one operand, the
/// predicate P and other operand `n` such that control goes to `stay` iff
/// `x P n`.
pub(super) fn stay_test<'ctx>(br: Inst<'ctx>, x: Value<'ctx>, stay: BasicBlock<'ctx>) -> Option<(LLVMIntPredicate, Value<'ctx>)> {
    let cond = br.branch_condition().as_inst().filter(|c| c.opcode() == LLVMOpcode::LLVMICmp)?;
    let succ = br.successors();
    let mut p = cond.icmp_predicate();
    let n = if cond.operand(0) == x {
        cond.operand(1)
    } else if cond.operand(1) == x {
        p = swapped_predicate(p);
        cond.operand(0)
    } else {
        return None;
    };
    if succ[0] == stay && succ[1] != stay {
        Some((p, n))
    } else if succ[1] == stay && succ[0] != stay {
        Some((negated_predicate(p), n))
    } else {
        None
    }
}

/// `v` as `s0 + Σ c_d lid_d (mod 2^w)`: the coefficients, or `None` when
/// `v` is not of that form within 6 operations. Notes in `opencl` which
/// dialect's builtins it met.
fn affine_of<'ctx>(fa: &FunctionAnalyses<'ctx>, v: Value<'ctx>, opencl: &mut Option<bool>) -> Option<[u64; 3]> {
    linear(v, 6, &mut |v| {
        let Some(i) = v.as_inst().filter(|_| fa.uniformity().is_divergent(v)) else { return Term::Known([0; 3]) };
        match builtin_of(i) {
            Some(Builtin::LocalId(d) | Builtin::GlobalId(d)) if d < 3 => {
                *opencl = i.called_function_name().map(|n| !n.starts_with("llvm."));
                let mut c = [0; 3];
                c[d as usize] = 1;
                Term::Known(c)
            }
            // Other builtins and operations: followed, and refused there
            // unless they are of `linear`'s forms.
            _ => Term::Walk,
        }
    })
}

/// Rewrites the loop of `p` into its lockstep form, keeping a clone of the
/// original for launches the run-time check turns away.
fn apply<'ctx>(module: &Module<'ctx>, f: FunctionValue<'ctx>, p: &Plan<'ctx>) {
    let ctx = module.get_context();
    let mut b = Builder::new(Value::from(f));
    let w = p.width;
    let ity = p.start.ty();
    let k = |v: u128| ity.const_int(v as u64);
    let (pred, h) = (if p.signed { LLVMIntPredicate::LLVMIntSLT } else { LLVMIntPredicate::LLVMIntULT }, p.header);

    if p.skip.is_some() {
        // A dedicated exit: code after the loop may use the loop's values
        // directly; through exit phis, the exit phis carry all that leaves.
        crate::transform::lcssa::close_over_exit(&p.blocks, p.latch, p.exit);
    }
    // What leaves the loop, read before anything changes.
    let header_phis: Vec<Inst<'ctx>> = instructions(h).take_while(|i| i.is_phi()).filter(|&i| i != p.iv).collect();
    let incoming = |phi: Inst<'ctx>, from: BasicBlock<'ctx>| {
        phi.incoming().into_iter().find(|&(_, b)| b == from).map(|(v, _)| v).expect("an incoming value")
    };
    let exit_phis: Vec<Inst<'ctx>> = instructions(p.exit).take_while(|i| i.is_phi()).collect();

    // 0. The preheader's code runs in the guard, for all work-items.
    let entry = p.pre.unwrap_or(h);
    if let Some(pre) = p.pre {
        let moved: Vec<Inst<'ctx>> = instructions(pre).filter(|i| !i.is_terminator()).collect();
        for i in moved {
            i.move_to_end(p.guard);
        }
        terminator_before_moved(p.guard);
    }
    let loop_blocks: Vec<BasicBlock<'ctx>> = p.blocks.clone();
    let step = hoist(&mut b, p.step, p.guard, &loop_blocks);

    // 1. The original loop, cloned, behind `G.orig`: the fallback.
    let g_br = terminator(p.guard).expect("a terminated guard");
    let orig = ctx.insert_basic_block_after(p.guard, "lockstep.orig");
    let copy = LoopCopy::make(&p.blocks, Place::End, "orig", Some((entry_block(p), orig)));
    b.position_at_end(orig);
    let to = |s: BasicBlock<'ctx>| if s == entry { copy.block(h) } else { s };
    let (c0, succ) = (g_br.branch_condition(), g_br.successors());
    b.cond_br(c0, to(succ[0]), to(succ[1]));

    // 2. The run-time check, at the end of the guard block.
    b.position_before(g_br);
    let s0 = at_origin(module, &mut b, p, p.start, &mut HashMap::new());
    let bias = |v: Value<'ctx>| if p.signed { b.int_op(IntOp::Xor, v, k(1u128 << (w - 1)), "") } else { v };
    let (s0b, nb) = (bias(s0), bias(p.bound));
    let max = u128::from(mask(w));
    let mut ok = b.icmp(LLVMIntPredicate::LLVMIntULE, s0b, k(max - p.span), "lockstep.starts");
    let step_nz = b.icmp(LLVMIntPredicate::LLVMIntNE, step, k(0), "");
    let neg_step = b.int_op(IntOp::Sub, k(0), step, "");
    let room = b.icmp(LLVMIntPredicate::LLVMIntULE, nb, neg_step, "lockstep.room");
    for c in [step_nz, room] {
        ok = b.int_op(IntOp::And, ok, c, "");
    }
    if p.span > 0 {
        let c = b.icmp(LLVMIntPredicate::LLVMIntULE, nb, k(max + 1 - p.span), "lockstep.span");
        ok = b.int_op(IntOp::And, ok, c, "lockstep.ok");
    }
    let upre = ctx.insert_basic_block_after(p.guard, "lockstep.pre");
    let uh = ctx.insert_basic_block_after(upre, "lockstep.head");
    let ubody = ctx.insert_basic_block_after(uh, "lockstep.body");
    let ulatch = ctx.append_basic_block(f, "lockstep.latch");
    let uexit = ctx.append_basic_block(f, "lockstep.exit");
    b.cond_br(ok, upre, orig);
    g_br.erase();

    // 3. The uniform loop over m.
    b.position_at_end(upre);
    b.br(uh);
    b.position_at_end(uh);
    let m = b.phi(ity, "lockstep.m");
    let carried: Vec<Inst<'ctx>> = header_phis.iter().map(|hp| b.phi(hp.ty(), "lockstep.carried")).collect();
    // An exit phi that takes a carried value's update (or init) needs no
    // phi of its own: that carried value is it, once the loop is done.
    let exit_value: Vec<Option<usize>> = exit_phis
        .iter()
        .map(|xp| {
            // Work-items that skip the loop reach `exit` only in the first
            // form, with the guard's value; then the init must agree too.
            let v_g = p.skip.is_none().then(|| incoming(*xp, p.guard));
            let v_t = incoming(*xp, p.latch);
            header_phis.iter().position(|&hp| v_g.is_none_or(|v| incoming(hp, entry_block(p)) == v) && incoming(hp, p.latch) == v_t)
        })
        .collect();
    let last: Vec<Option<Inst<'ctx>>> =
        exit_value.iter().zip(&exit_phis).map(|(e, xp)| e.is_none().then(|| b.phi(xp.ty(), "lockstep.last"))).collect();
    let more = b.icmp(pred, m.value(), p.bound, "lockstep.more");
    b.cond_br(more, ubody, uexit);

    b.position_at_end(ubody);
    barrier(module, &mut b, p.opencl);
    let mut i = m.value();
    for d in 0..3 {
        let c = p.coef[d];
        if c != 0 {
            let lid = builtin_call(module, &mut b, p.opencl, Builtin::LocalId(d as u32));
            let lid = b.int_cast(lid, ity, false, "");
            let term = if c == 1 { lid } else { b.int_op(IntOp::Mul, lid, k(c.into()), "") };
            i = b.int_op(IntOp::Add, i, term, "lockstep.i");
        }
    }
    let active = b.icmp(pred, i, p.bound, "lockstep.active");
    b.cond_br(active, h, ulatch);

    b.position_at_end(ulatch);
    let mut updates = Vec::new();
    for (&hp, &c) in header_phis.iter().zip(&carried) {
        let u = b.phi(hp.ty(), "lockstep.update");
        u.add_incoming(&[(c.value(), ubody), (incoming(hp, p.latch), p.latch)]);
        updates.push(u);
    }
    for (l, xp) in last.iter().zip(&exit_phis) {
        if let Some(l) = l {
            let u = b.phi(xp.ty(), "lockstep.lastupd");
            u.add_incoming(&[(l.value(), ubody), (incoming(*xp, p.latch), p.latch)]);
            let init = if p.skip.is_none() { incoming(*xp, p.guard) } else { xp.ty().poison() };
            l.add_incoming(&[(init, upre), (u.value(), ulatch)]);
        }
    }
    let next = b.int_op(IntOp::Add, m.value(), step, "lockstep.next");
    b.br(uh);
    m.add_incoming(&[(s0, upre), (next, ulatch)]);
    for ((&hp, &c), u) in header_phis.iter().zip(&carried).zip(&updates) {
        c.add_incoming(&[(incoming(hp, entry_block(p)), upre), (u.value(), ulatch)]);
    }
    b.position_at_end(uexit);
    match p.skip {
        None => {
            b.br(p.exit);
        }
        Some(_) => {
            // Each work-item leaves the way the guard sent it.
            let to = |s: BasicBlock<'ctx>| if s == entry { p.exit } else { s };
            b.cond_br(c0, to(succ[0]), to(succ[1]));
        }
    }

    // 4. The latch goes round the new loop; the exit takes three ways in.
    let t_br = terminator(p.latch).expect("a terminated latch");
    b.position_before(t_br);
    b.br(ulatch);
    t_br.erase();
    for (n, xp) in exit_phis.iter().enumerate() {
        b.position_before(*xp);
        let np = b.phi(xp.ty(), "");
        let v_t = incoming(*xp, p.latch);
        let done = match (exit_value[n], last[n]) {
            (Some(j), _) => carried[j].value(),
            (None, Some(l)) => l.value(),
            (None, None) => unreachable!("an exit phi is a carried value or has its own"),
        };
        if p.skip.is_none() {
            np.add_incoming(&[(incoming(*xp, p.guard), orig)]);
        }
        np.add_incoming(&[(copy.value(v_t), copy.block(p.latch)), (done, uexit)]);
        xp.value().replace_all_uses_with(np.value());
        let name = xp.value().name_bytes();
        xp.erase();
        np.value().set_name(&name);
    }
    if let Some(skip) = p.skip {
        // The skipping work-items now come from the fallback's branch or
        // from the lockstep loop's exit, with the guard's values.
        for sp in instructions(skip).take_while(|i| i.is_phi()).collect::<Vec<_>>() {
            b.position_before(sp);
            let np = b.phi(sp.ty(), "");
            for (v, from) in sp.incoming() {
                if from == p.guard {
                    np.add_incoming(&[(v, orig), (v, uexit)]);
                } else {
                    np.add_incoming(&[(v, from)]);
                }
            }
            sp.value().replace_all_uses_with(np.value());
            let name = sp.value().name_bytes();
            sp.erase();
            np.value().set_name(&name);
        }
    }
    // The header's phis give way to the new loop's values.
    p.iv.value().replace_all_uses_with(i);
    p.iv.erase();
    for (&hp, &c) in header_phis.iter().zip(&carried) {
        hp.value().replace_all_uses_with(c.value());
        hp.erase();
    }
    if let Some(pre) = p.pre {
        // Only its branch was left, and nothing branches to it now.
        crate::ir::delete_block(pre);
    }
}

/// The block the loop header is entered from.
fn entry_block<'ctx>(p: &Plan<'ctx>) -> BasicBlock<'ctx> {
    p.pre.unwrap_or(p.guard)
}

/// Puts the terminator of `bb` back at its end, after instructions moved in.
fn terminator_before_moved(bb: BasicBlock<'_>) {
    let t = instructions(bb).find(|i| i.is_terminator()).expect("a terminated block");
    t.move_to_end(bb);
}

/// `v` where the end of `guard` can use it: itself, or (for code in the
/// loop that `hoistable` accepted) a copy made before the guard's branch.
pub(super) fn hoist<'ctx>(b: &mut Builder<'ctx>, v: Value<'ctx>, guard: BasicBlock<'ctx>, blocks: &[BasicBlock<'ctx>]) -> Value<'ctx> {
    let Some(i) = v.as_inst().filter(|i| blocks.contains(&i.block())) else { return v };
    let mut c = i.clone_detached();
    for k in 0..c.num_operands() {
        let op = hoist(b, c.operand(k), guard, blocks);
        c.set_operand(k, op);
    }
    b.position_before(terminator(guard).expect("a terminated guard"));
    b.insert(c, b"").value()
}

/// `v` (a piece of the loop's start) for work-item (0,0,0), from values all
/// work-items share, so that the uniformity analysis sees it as uniform.
fn at_origin<'ctx>(
    module: &Module<'ctx>,
    b: &mut Builder<'ctx>,
    p: &Plan<'ctx>,
    v: Value<'ctx>,
    memo: &mut HashMap<Value<'ctx>, Value<'ctx>>,
) -> Value<'ctx> {
    if let Some(&done) = memo.get(&v) {
        return done;
    }
    // Walked by `affine_of` already: only its forms occur.
    let Some(i) = v.as_inst() else { return v };
    let ty = v.ty();
    let out = match (builtin_of(i), i.opcode()) {
        (Some(Builtin::LocalId(_)), _) => ty.const_int(0),
        (Some(Builtin::GlobalId(d)), _) => {
            // group * local size + offset: work-item 0 of this group.
            let g = builtin_call(module, b, p.opencl, Builtin::GroupId(d));
            let l = builtin_call(module, b, p.opencl, Builtin::LocalSize(d));
            let gl = b.int_op(IntOp::Mul, g, l, "");
            let o = builtin_call(module, b, p.opencl, Builtin::GlobalOffset(d));
            let s = b.int_op(IntOp::Add, gl, o, "");
            b.int_cast(s, ty, false, "")
        }
        (Some(_), _) => v,
        (None, LLVMOpcode::LLVMTrunc | LLVMOpcode::LLVMAdd | LLVMOpcode::LLVMSub | LLVMOpcode::LLVMMul | LLVMOpcode::LLVMShl)
            if operands_differ(i, module, b, p, memo) =>
        {
            let a = at_origin(module, b, p, i.operand(0), memo);
            match i.opcode() {
                LLVMOpcode::LLVMTrunc => b.int_cast(a, ty, false, ""),
                op => {
                    let c = at_origin(module, b, p, i.operand(1), memo);
                    let op = match op {
                        LLVMOpcode::LLVMAdd => IntOp::Add,
                        LLVMOpcode::LLVMSub => IntOp::Sub,
                        LLVMOpcode::LLVMMul => IntOp::Mul,
                        _ => {
                            // shl by a constant k: a * 2^k, without poison flags.
                            let k = c.const_u64().expect("affine_of took constant shifts only");
                            let pow = ty.const_int(1u64 << k);
                            return remember(memo, v, b.int_op(IntOp::Mul, a, pow, ""));
                        }
                    };
                    b.int_op(op, a, c, "")
                }
            }
        }
        _ => v,
    };
    remember(memo, v, out)
}

fn remember<'ctx>(memo: &mut HashMap<Value<'ctx>, Value<'ctx>>, k: Value<'ctx>, v: Value<'ctx>) -> Value<'ctx> {
    memo.insert(k, v);
    v
}

/// Whether any operand of `i` changes at the origin (else `i` itself is
/// uniform and stays).
fn operands_differ<'ctx>(
    i: Inst<'ctx>,
    module: &Module<'ctx>,
    b: &mut Builder<'ctx>,
    p: &Plan<'ctx>,
    memo: &mut HashMap<Value<'ctx>, Value<'ctx>>,
) -> bool {
    let n = if i.opcode() == LLVMOpcode::LLVMTrunc { 1 } else { 2 };
    (0..n).any(|k| {
        let op = i.operand(k);
        at_origin(module, b, p, op, memo) != op
    })
}

/// A call of builtin `which` in the kernel's dialect, declared if needed.
fn builtin_call<'ctx>(module: &Module<'ctx>, b: &mut Builder<'ctx>, opencl: bool, which: Builtin) -> Value<'ctx> {
    let ctx = module.get_context();
    let i32t = Ty::of(ctx.i32_type());
    if opencl {
        let (name, d) = match which {
            Builtin::LocalId(d) => ("_Z12get_local_idj", d),
            Builtin::GroupId(d) => ("_Z12get_group_idj", d),
            Builtin::LocalSize(d) => ("_Z14get_local_sizej", d),
            Builtin::GlobalOffset(d) => ("_Z17get_global_offsetj", d),
            other => unreachable!("no OpenCL call made for {other:?}"),
        };
        let fty = Ty::function(Ty::of(ctx.i64_type()), &[i32t]);
        let callee = function_or_declare(module, name, fty);
        let call = b.call(fty, callee, &[i32t.const_int(u64::from(d))], "");
        call.set_call_conv(LLVMCallConv::LLVMSPIRFUNCCallConv as u32);
        return call.value();
    }
    let axis = |d: u32| ["x", "y", "z"][d as usize];
    let reg = match which {
        Builtin::LocalId(d) => format!("tid.{}", axis(d)),
        Builtin::GroupId(d) => format!("ctaid.{}", axis(d)),
        Builtin::LocalSize(d) => format!("ntid.{}", axis(d)),
        // CUDA has no global offset (and no global id builtin to need one).
        Builtin::GlobalOffset(_) => return i32t.const_int(0),
        other => unreachable!("no CUDA register read for {other:?}"),
    };
    let fty = Ty::function(i32t, &[]);
    let callee = function_or_declare(module, &format!("llvm.nvvm.read.ptx.sreg.{reg}"), fty);
    b.call(fty, callee, &[], "").value()
}

/// A work-group barrier in the kernel's dialect.
pub(super) fn barrier<'ctx>(module: &Module<'ctx>, b: &mut Builder<'ctx>, opencl: bool) {
    let ctx = module.get_context();
    let i32t = Ty::of(ctx.i32_type());
    let fty = Ty::function(Ty::of(ctx.void_type()), &[i32t]);
    if opencl {
        // CLK_LOCAL_MEM_FENCE, as `barrier(CLK_LOCAL_MEM_FENCE)`.
        let callee = function_or_declare(module, "_Z7barrierj", fty);
        let call = b.call(fty, callee, &[i32t.const_int(1)], "");
        call.set_call_conv(LLVMCallConv::LLVMSPIRFUNCCallConv as u32);
    } else {
        let callee = function_or_declare(module, "llvm.nvvm.barrier.cta.sync.aligned.all", fty);
        b.call(fty, callee, &[i32t.const_int(0)], "");
    }
}
