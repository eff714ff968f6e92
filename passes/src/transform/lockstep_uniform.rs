//! `simt-lockstep-loops<uniform=RULE>`: a loop whose trip count is the same
//! for every work-item (start, step and bound uniform) gets a barrier at the
//! top of its body, so that `simt-wiloops` runs all work-items for one step
//! of the loop before the next: `for (k…) acc += A[i*K+k] * B[k*N+j]` then
//! reads `B[k*N + j..j+L]` contiguously in its work-item loop, which the
//! vectoriser widens. Each work-item's operations run in the same order on
//! the same values: results are bit-identical. pocl's implicit loop
//! barriers (`ImplicitLoopBarriers.cc`), extended to a loop under one
//! divergent branch `x` (a bounds check): the loop runs for the whole
//! work-group, each step's body only for the work-items `x` sent to it.
//!
//! ```text
//!  x: br c, IN, OUT               x: br c, IN, J
//! [g: br u, e, Xg]  (uniform)     [g: br u, e, J]
//!  e: …; br H                      e: …; br J
//!  H: k = phi [s, e], [k', T]      J: phis of g's and e's values (poison from x)
//!     …body…                          br u, U.body, U.exit      (or br U.body)
//!  T: k' = k + st                  U.body: m = phi [s, J], [m + st, U.latch]
//!     br (k' P n), H, X                    carried values; barrier
//!  X: phis [.., g], [.., T]                br c', H, U.latch   (c' = c again)
//!                                  H…T: the body, k = m; T ──▶ U.latch
//!                                  U.latch: br (m + st P n), U.body, U.exit
//!                                  U.exit: barrier; each work-item on to OUT,
//!                                          Xg or X, the way x and g sent it
//! ```
//!
//! Legality: `s`, `st`, `n` uniform and available at `x` (or speculatable
//! code in g/e, copied there); `g`'s branch uniform; `x` reached by all; no
//! barrier or convergent call in the loop; innermost, one latch that is its
//! only exiting block; values used after it only through the exit's phis.
//! Why each, the U.exit barrier and `c'`: `passes/DESIGN.md`.
//!
//! When (`uniform=`): `contiguous` (default) where across the local id x
//! every address is uniform or consecutive, and one is consecutive or at
//! least 4 + 2 per carried value of the body's instructions compute values
//! that differ between work-items; none is private memory, the local size
//! in x is at least 8, the divergent branch, if any, is a bounds check, and
//! the body holds at least 4 instructions plus 2 per carried value (the
//! rule's reasons and figures: DESIGN.md and BENCHMARKS.md); `any`: every legal loop (for tests); `off`: none.
//!
//! Limits: only the counted form (`k += st`, `k' P n` with P any integer
//! compare); one divergent branch at most, directly before the loop or its
//! uniform guard; the first such loop of a kernel is taken, then the next
//! on the changed function; kernels with a grid-stride loop taken are left
//! to that. Host only. Seed: none; pocl's implicit loop barriers.

use super::lockstep::{available_at, barrier, hoist, hoistable, speculatable, stay_test, synchronizes};
use crate::analysis::affine_guard::{linear, Term};
use crate::analysis::cache::FunctionAnalyses;
use crate::cfg::BlockId;
use crate::ir::{data_layout_of, instructions, target_triple, terminator, Builder, Inst, IntOp, Ty, Value};
use crate::kernel_model::{builtin_of, Builtin};
use inkwell::basic_block::BasicBlock;
use inkwell::module::Module;
use inkwell::targets::TargetData;
use inkwell::values::FunctionValue;
use llvm_sys::{LLVMIntPredicate, LLVMOpcode};
use std::collections::{HashMap, HashSet};

/// Which work-group-uniform loops are put in lockstep.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UniformRule {
    Off,
    #[default]
    Contiguous,
    Any,
}

impl UniformRule {
    pub fn parse(s: Option<&str>) -> Result<UniformRule, String> {
        match s {
            Some("off") => Ok(UniformRule::Off),
            Some("contiguous") => Ok(UniformRule::Contiguous),
            Some("any") => Ok(UniformRule::Any),
            other => Err(format!("uniform= takes off, contiguous or any, not {}", other.unwrap_or("nothing"))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            UniformRule::Off => "off",
            UniformRule::Contiguous => "contiguous",
            UniformRule::Any => "any",
        }
    }
}

/// The uniform guard of the loop right after the divergent branch.
struct Guard<'ctx> {
    g: BasicBlock<'ctx>,
    /// `u` and whether `u` true enters the loop.
    cond: Value<'ctx>,
    into_on_true: bool,
    skip: BasicBlock<'ctx>,
}

/// The divergent branch the loop sits under.
struct Control<'ctx> {
    x: BasicBlock<'ctx>,
    cond: Value<'ctx>,
    into_on_true: bool,
    out: BasicBlock<'ctx>,
    guard: Option<Guard<'ctx>>,
}

/// One uniform loop and what its lockstep form needs.
pub(super) struct UniformPlan<'ctx> {
    control: Option<Control<'ctx>>,
    /// The header's one predecessor from outside the loop.
    pre: BasicBlock<'ctx>,
    header: BasicBlock<'ctx>,
    latch: BasicBlock<'ctx>,
    exit: BasicBlock<'ctx>,
    iv: Inst<'ctx>,
    start: Value<'ctx>,
    step: Value<'ctx>,
    bound: Value<'ctx>,
    pred: LLVMIntPredicate,
    opencl: bool,
}

/// The first (in reverse post-order) loop `rule` takes, if any.
pub(super) fn find<'ctx>(fa: &FunctionAnalyses<'ctx>, local_size: [u64; 3], rule: UniformRule) -> Option<UniformPlan<'ctx>> {
    if rule == UniformRule::Off {
        return None;
    }
    let cfg = &fa.cfg.cfg;
    let mut loops: Vec<_> = fa.loops().loops().map(|(_, lp)| lp).filter(|lp| lp.children.is_empty()).collect();
    loops.sort_by_key(|lp| cfg.rpo_position(lp.header));
    let td = data_layout_of(fa.cfg.function);
    loops.into_iter().find_map(|lp| plan(fa, lp, local_size, rule, &td))
}

fn plan<'ctx>(
    fa: &FunctionAnalyses<'ctx>,
    lp: &crate::analysis::loops::Loop,
    local_size: [u64; 3],
    rule: UniformRule,
    td: &TargetData,
) -> Option<UniformPlan<'ctx>> {
    let cfg = &fa.cfg.cfg;
    let bb = |b: BlockId| fa.cfg.block(b);
    let (&[t], &[exiting], &[x_exit]) = (lp.latches.as_slice(), lp.exiting.as_slice(), lp.exits.as_slice()) else { return None };
    let h = lp.header;
    if exiting != t {
        return None;
    }
    let outside: Vec<BlockId> = cfg.preds(h).iter().copied().filter(|&p| p != t).collect();
    let &[p] = outside.as_slice() else { return None };
    let blocks: Vec<BasicBlock<'ctx>> = lp.blocks.iter().map(|&b| bb(b)).collect();
    if blocks.iter().any(|&b| instructions(b).any(synchronizes)) {
        return None;
    }
    // Values of the loop leave it only through the exit block's phis.
    let members: HashSet<BasicBlock<'ctx>> = blocks.iter().copied().collect();
    for &b in &blocks {
        for i in instructions(b).filter(|i| !i.is_void()) {
            if i.users().iter().any(|u| !(members.contains(&u.block()) || u.is_phi() && u.block() == bb(x_exit))) {
                return None;
            }
        }
    }
    let t_br = terminator(bb(t))?;
    if t_br.opcode() != LLVMOpcode::LLVMBr || !t_br.is_conditional_terminator() {
        return None;
    }
    let uniform = |v: Value<'ctx>| !fa.uniformity().is_divergent(v);
    let in_loop = |v: Value<'ctx>| v.as_inst().is_some_and(|i| members.contains(&i.block()));
    let (iv, start, step, pred, bound) = instructions(bb(h)).take_while(|i| i.is_phi()).find_map(|iv| {
        if !iv.ty().is_integer() {
            return None;
        }
        let inc = iv.incoming().into_iter().find(|&(_, from)| from == bb(t))?.0;
        let start = iv.incoming().into_iter().find(|&(_, from)| from == bb(p))?.0;
        let add = inc.as_inst().filter(|a| a.opcode() == LLVMOpcode::LLVMAdd)?;
        let step = match (add.operand(0) == iv.value(), add.operand(1) == iv.value()) {
            (true, false) => add.operand(1),
            (false, true) => add.operand(0),
            _ => return None,
        };
        let (pred, bound) = stay_test(t_br, inc, bb(h))?;
        let ok = [start, step, bound].iter().all(|&v| uniform(v) && !in_loop(v));
        ok.then_some((iv, start, step, pred, bound))
    })?;
    let control = control(fa, p, h)?;
    // Where the counter's pieces must be: before the divergent branch.
    let pre_block = (cfg.succs(p) == [h]).then_some(p);
    let (top, movable): (BlockId, Vec<BlockId>) = match &control {
        Some((x, g, _)) => (*x, [pre_block, *g].into_iter().flatten().collect()),
        None => (p, vec![]),
    };
    let movable_bbs: Vec<BlockId> = movable.clone();
    let reachable = |v: Value<'ctx>| available_at(fa, v, top) || hoistable(fa, v, &movable_bbs, 4);
    if ![start, step, bound].into_iter().all(reachable) {
        return None;
    }
    let control = match control {
        None => None,
        Some((x, g, out)) => {
            let x_br = terminator(bb(x))?;
            let cond = x_br.branch_condition();
            let into = g.unwrap_or(if cfg.succs(p) == [h] { p } else { h });
            let into_on_true = x_br.successors()[0] == bb(into);
            let guard = match g {
                None => None,
                Some(g) => {
                    let g_br = terminator(bb(g))?;
                    let u = g_br.branch_condition();
                    if !reachable(u) {
                        return None;
                    }
                    let into = if cfg.succs(p) == [h] { p } else { h };
                    let into_on_true = g_br.successors()[0] == bb(into);
                    let skip = g_br.successors()[usize::from(into_on_true)];
                    Some(Guard { g: bb(g), cond: u, into_on_true, skip })
                }
            };
            // The exit is entered from the latch, from the guard's skip and
            // from the divergent branch's other side only.
            let ok = cfg.preds(x_exit).iter().all(|&q| {
                q == t || guard.as_ref().is_some_and(|gd| fa.cfg.id(gd.g) == Some(q) && gd.skip == bb(x_exit)) || q == x && out == x_exit
            });
            if !ok {
                return None;
            }
            Some(Control { x: bb(x), cond, into_on_true, out: bb(out), guard })
        }
    };
    if rule == UniformRule::Contiguous {
        if !worth_it(fa, &blocks, bb(h), iv, local_size, td) {
            return None;
        }
        if control.as_ref().is_some_and(|c| !bounds_check(fa, c.cond, 6)) {
            return None;
        }
    }
    Some(UniformPlan {
        control,
        pre: bb(p),
        header: bb(h),
        latch: bb(t),
        exit: bb(x_exit),
        iv,
        start,
        step,
        bound,
        pred,
        opencl: target_triple(fa.cfg.function).starts_with("spir"),
    })
}

/// `None` when no work-item is kept from the loop by a divergent branch;
/// `Some((x, guard, out))` for the one form taken: `x` (reached by all)
/// branches on a divergent value towards the loop, or towards a uniform
/// guard `g` of it, and to `out` otherwise. `None` for any other form.
#[allow(clippy::type_complexity)]
fn control(fa: &FunctionAnalyses<'_>, p: BlockId, h: BlockId) -> Option<Option<(BlockId, Option<BlockId>, BlockId)>> {
    let cfg = &fa.cfg.cfg;
    let Some(x) = fa.divergent_controller(h) else { return Some(None) };
    if fa.divergent_controller(x).is_some() {
        return None;
    }
    // The block that branches towards the loop's entry `into`.
    let (q, into) = if cfg.succs(p) == [h] {
        match cfg.preds(p) {
            &[q] => (q, p),
            _ => return None,
        }
    } else {
        (p, h)
    };
    let other = |b: BlockId, to: BlockId| match *cfg.succs(b) {
        [a, c] if a == to && c != to => Some(c),
        [a, c] if c == to && a != to => Some(a),
        _ => None,
    };
    if q == x {
        let out = other(x, into)?;
        return Some(Some((x, None, out)));
    }
    // q is the loop's uniform guard, right after x.
    let g = q;
    if fa.uniformity().is_divergent_branch(g) || cfg.preds(g) != [x] || fa.divergent_controller(g) != Some(x) {
        return None;
    }
    other(g, into)?;
    let out = other(x, g)?;
    Some(Some((x, Some(g), out)))
}

/// The rule `contiguous` (see the header).
fn worth_it<'ctx>(
    fa: &FunctionAnalyses<'ctx>,
    blocks: &[BasicBlock<'ctx>],
    h: BasicBlock<'ctx>,
    iv: Inst<'ctx>,
    local_size: [u64; 3],
    td: &TargetData,
) -> bool {
    if local_size[0] < 8 {
        return false;
    }
    let carried = instructions(h).take_while(|i| i.is_phi()).filter(|&i| i != iv).count();
    let mut work = 0;
    // Arithmetic whose value differs between work-items: what the step's
    // work-item loop widens when no access is consecutive (a tile of
    // `__local` points read at uniform addresses, a force per work-item).
    let mut lane_work = 0;
    let mut consecutive = false;
    for &b in blocks {
        for i in instructions(b) {
            let (ptr, ty) = match i.opcode() {
                LLVMOpcode::LLVMLoad => (i.operand(0), i.ty()),
                LLVMOpcode::LLVMStore => (i.operand(1), i.operand(0).ty()),
                LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg => return false,
                LLVMOpcode::LLVMPHI | LLVMOpcode::LLVMBr => continue,
                LLVMOpcode::LLVMGetElementPtr => {
                    work += 1;
                    continue;
                }
                _ => {
                    work += 1;
                    if fa.uniformity().is_divergent(i.value()) {
                        lane_work += 1;
                    }
                    continue;
                }
            };
            work += 1;
            if ptr.address_space() == Some(0) {
                return false;
            }
            match x_stride(fa, ptr, td, 6) {
                Some(0) => {}
                Some(s) if s > 0 && s as u64 == ty.store_size(td) => consecutive = true,
                _ => return false,
            }
        }
    }
    let enough = 4 + 2 * carried;
    (consecutive || lane_work >= enough) && work >= enough
}

/// Whether `c` is a bounds check: `and`/`or` (or their `select` forms) of
/// compares between a divergent and a uniform value. Such a check leaves
/// whole work-groups in or out but at the edge of the range; a compare of
/// two ids (`j1 <= j2`, a triangle) leaves whole groups idle, each still
/// stepping through the loop.
fn bounds_check<'ctx>(fa: &FunctionAnalyses<'ctx>, c: Value<'ctx>, depth: u32) -> bool {
    let divergent = |v: Value<'ctx>| fa.uniformity().is_divergent(v);
    let Some(i) = c.as_inst().filter(|_| divergent(c) && depth > 0) else { return true };
    match i.opcode() {
        LLVMOpcode::LLVMICmp => divergent(i.operand(0)) != divergent(i.operand(1)),
        LLVMOpcode::LLVMAnd | LLVMOpcode::LLVMOr | LLVMOpcode::LLVMXor => {
            bounds_check(fa, i.operand(0), depth - 1) && bounds_check(fa, i.operand(1), depth - 1)
        }
        LLVMOpcode::LLVMSelect => (0..3).all(|k| bounds_check(fa, i.operand(k), depth - 1)),
        _ => false,
    }
}

/// How many bytes `ptr` moves from one work-item to the next in x, when
/// that is a constant.
fn x_stride<'ctx>(fa: &FunctionAnalyses<'ctx>, ptr: Value<'ctx>, td: &TargetData, depth: u32) -> Option<i64> {
    if !fa.uniformity().is_divergent(ptr) {
        return Some(0);
    }
    let i = ptr.as_inst().filter(|_| depth > 0)?;
    match i.opcode() {
        LLVMOpcode::LLVMAddrSpaceCast | LLVMOpcode::LLVMBitCast => x_stride(fa, i.operand(0), td, depth - 1),
        LLVMOpcode::LLVMGetElementPtr => {
            let mut total = x_stride(fa, i.operand(0), td, depth - 1)?;
            let mut ty = i.value().gep_source_element_type();
            for k in 1..i.num_operands() {
                let idx = i.operand(k);
                let c = index_coefficient(fa, idx)?;
                let scale = if k == 1 {
                    ty.alloc_size(td)
                } else if ty.is_struct() {
                    if c != 0 {
                        return None;
                    }
                    ty = ty.struct_field(idx.const_u64()? as u32);
                    continue;
                } else {
                    ty = ty.element_type();
                    ty.alloc_size(td)
                };
                total = total.checked_add(c.checked_mul(i64::try_from(scale).ok()?)?)?;
            }
            Some(total)
        }
        _ => None,
    }
}

/// The coefficient of the local id x in an integer index, signed.
fn index_coefficient<'ctx>(fa: &FunctionAnalyses<'ctx>, v: Value<'ctx>) -> Option<i64> {
    let width = v.ty().int_width();
    let [c] = linear(v, 8, &mut |v| {
        let Some(i) = v.as_inst().filter(|_| !x_free(fa, v, 8)) else { return Term::Known([0]) };
        match (builtin_of(i), i.opcode()) {
            (Some(Builtin::LocalId(0) | Builtin::GlobalId(0)), _) => Term::Known([1]),
            (Some(Builtin::LocalId(_) | Builtin::GlobalId(_)), _) => Term::Known([0]),
            (None, LLVMOpcode::LLVMSExt | LLVMOpcode::LLVMZExt) => Term::Via(i.operand(0)),
            _ => Term::Walk,
        }
    })?;
    let shift = 64 - width.min(64);
    Some(((c << shift) as i64) >> shift)
}

/// Whether `v` is the same for work-items that differ only in their local
/// id x (`linear` multiplies by constants only; `i * n` with `i` the global
/// id y is such a value).
fn x_free<'ctx>(fa: &FunctionAnalyses<'ctx>, v: Value<'ctx>, depth: u32) -> bool {
    let Some(i) = v.as_inst().filter(|_| fa.uniformity().is_divergent(v)) else { return true };
    match builtin_of(i) {
        Some(Builtin::LocalId(d) | Builtin::GlobalId(d)) => d != 0,
        Some(_) => false,
        None => depth > 0 && !i.is_phi() && i.operands().all(|op| op.as_block().is_none() && x_free(fa, op, depth - 1)),
    }
}

/// Rewrites the loop of `p` into its lockstep form.
pub(super) fn apply<'ctx>(module: &Module<'ctx>, f: FunctionValue<'ctx>, p: &UniformPlan<'ctx>) {
    let ctx = module.get_context();
    let mut b = Builder::new(Value::from(f));
    let h = p.header;
    // 0. A preheader of the loop's own: e.
    let e = if crate::ir::successors(p.pre) == [h] { p.pre } else { split_edge(&mut b, p.pre, h) };
    let movable: Vec<BasicBlock<'ctx>> = match &p.control {
        Some(c) => [Some(e), c.guard.as_ref().map(|g| g.g)].into_iter().flatten().collect(),
        None => vec![],
    };
    let top = p.control.as_ref().map_or(e, |c| c.x);
    let (start, step, bound) =
        (hoist(&mut b, p.start, top, &movable), hoist(&mut b, p.step, top, &movable), hoist(&mut b, p.bound, top, &movable));
    let u = p.control.as_ref().and_then(|c| c.guard.as_ref()).map(|gd| {
        let u = hoist(&mut b, gd.cond, top, &movable);
        b.position_before(terminator(top).expect("a terminated block"));
        if gd.into_on_true {
            u
        } else {
            b.int_op(IntOp::Xor, u, u.ty().const_int(1), "lockstep.u")
        }
    });
    // 1. The join J, where every work-item meets before the loop.
    let j = match &p.control {
        None => e,
        Some(c) => {
            let j = ctx.insert_basic_block_after(e, "lockstep.join");
            redirect(c.x, c.out, j);
            if let Some(gd) = &c.guard {
                redirect(gd.g, gd.skip, j);
            }
            redirect(e, h, j);
            join_values(&mut b, &movable, j, c);
            j
        }
    };
    let header_phis: Vec<Inst<'ctx>> = instructions(h).take_while(|i| i.is_phi()).filter(|&i| i != p.iv).collect();
    let exit_phis: Vec<Inst<'ctx>> = instructions(p.exit).take_while(|i| i.is_phi()).collect();
    let incoming = |phi: Inst<'ctx>, from: BasicBlock<'ctx>| {
        phi.incoming().into_iter().find(|&(_, b)| b == from).map(|(v, _)| v).expect("an incoming value")
    };
    let ubody = ctx.insert_basic_block_after(j, "lockstep.body");
    let ulatch = ctx.append_basic_block(f, "lockstep.latch");
    let uexit = ctx.append_basic_block(f, "lockstep.exit");
    if j == e {
        terminator(e).expect("a terminated preheader").erase();
    }
    b.position_at_end(j);
    match u {
        Some(u) => b.cond_br(u, ubody, uexit),
        None => b.br(ubody),
    };

    // 2. The uniform loop.
    b.position_at_end(ubody);
    let m = b.phi(start.ty(), "lockstep.m");
    let carried: Vec<Inst<'ctx>> = header_phis.iter().map(|hp| b.phi(hp.ty(), "lockstep.carried")).collect();
    let exit_value: Vec<Option<usize>> =
        exit_phis.iter().map(|xp| header_phis.iter().position(|&hp| incoming(hp, p.latch) == incoming(*xp, p.latch))).collect();
    let last: Vec<Option<Inst<'ctx>>> =
        exit_value.iter().zip(&exit_phis).map(|(ev, xp)| ev.is_none().then(|| b.phi(xp.ty(), "lockstep.last"))).collect();
    barrier(module, &mut b, p.opencl);
    match &p.control {
        Some(c) => {
            let again = recompute(&mut b, c.cond, &mut HashMap::new(), 8).unwrap_or(c.cond);
            let (t, f) = if c.into_on_true { (h, ulatch) } else { (ulatch, h) };
            b.cond_br(again, t, f);
        }
        None => {
            b.br(h);
        }
    }
    // Work-items skip the body only under a divergent branch.
    let skips = p.control.is_some();
    b.position_at_end(ulatch);
    let updates: Vec<Inst<'ctx>> = header_phis
        .iter()
        .zip(&carried)
        .map(|(&hp, &c)| {
            let u = b.phi(hp.ty(), "lockstep.update");
            u.add_incoming(&[(incoming(hp, p.latch), p.latch)]);
            if skips {
                u.add_incoming(&[(c.value(), ubody)]);
            }
            u
        })
        .collect();
    let last_updates: Vec<Option<Inst<'ctx>>> = last
        .iter()
        .zip(&exit_phis)
        .map(|(l, xp)| {
            l.map(|l| {
                let u = b.phi(xp.ty(), "lockstep.lastupd");
                u.add_incoming(&[(incoming(*xp, p.latch), p.latch)]);
                if skips {
                    u.add_incoming(&[(l.value(), ubody)]);
                }
                u
            })
        })
        .collect();
    let next = b.int_op(IntOp::Add, m.value(), step, "lockstep.next");
    let more = b.icmp(p.pred, next, bound, "lockstep.more");
    b.cond_br(more, ubody, uexit);
    m.add_incoming(&[(start, j), (next, ulatch)]);
    for ((&hp, &c), u) in header_phis.iter().zip(&carried).zip(&updates) {
        c.add_incoming(&[(incoming(hp, p.pre), j), (u.value(), ulatch)]);
    }
    for (l, u) in last.iter().zip(&last_updates) {
        if let (Some(l), Some(u)) = (l, u) {
            l.add_incoming(&[(l.ty().poison(), j), (u.value(), ulatch)]);
        }
    }
    // What the loop leaves: the last update, on every way out.
    b.position_at_end(uexit);
    let guarded = u.is_some();
    let fin: Vec<Value<'ctx>> = exit_phis
        .iter()
        .enumerate()
        .map(|(n, xp)| {
            let phi = b.phi(xp.ty(), "lockstep.final");
            let (from_latch, from_join) = match (exit_value[n], last_updates[n]) {
                (Some(k), _) => (updates[k].value(), incoming(header_phis[k], p.pre)),
                (None, Some(lu)) => (lu.value(), xp.ty().poison()),
                (None, None) => unreachable!("an exit phi is a carried value or has its own"),
            };
            phi.add_incoming(&[(from_latch, ulatch)]);
            if guarded {
                phi.add_incoming(&[(from_join, j)]);
            }
            phi.value()
        })
        .collect();

    // A second barrier as the loop ends: the step's region then ends at a
    // barrier either way, without the code after the loop in it (with it,
    // the work-item loop holds a branch to two different tails and is not
    // vectorised: mm3_1 and covar of scripts/bench). Once per loop.
    b.position_at_end(uexit);
    barrier(module, &mut b, p.opencl);
    // 3. The old loop hangs off the new one.
    let t_br = terminator(p.latch).expect("a terminated latch");
    b.position_before(t_br);
    b.br(ulatch);
    t_br.erase();
    p.iv.value().replace_all_uses_with(m.value());
    p.iv.erase();
    for (&hp, &c) in header_phis.iter().zip(&carried) {
        hp.value().replace_all_uses_with(c.value());
        hp.erase();
    }
    // 4. Every work-item leaves the way it would have.
    let fin_of: HashMap<Inst<'ctx>, Value<'ctx>> = exit_phis.iter().copied().zip(fin).collect();
    dispatch(&mut b, p, uexit, u, &fin_of);
}

/// A new block on the edge `from -> to`; the phis of `to` still name
/// `from` (the caller replaces them).
fn split_edge<'ctx>(b: &mut Builder<'ctx>, from: BasicBlock<'ctx>, to: BasicBlock<'ctx>) -> BasicBlock<'ctx> {
    let mid = crate::ir::insert_block_before(to, "lockstep.pre");
    redirect(from, to, mid);
    b.position_at_end(mid);
    b.br(to);
    mid
}

/// Points the branch of `from` that goes to `to` at `new` instead.
fn redirect<'ctx>(from: BasicBlock<'ctx>, to: BasicBlock<'ctx>, new: BasicBlock<'ctx>) {
    let t = terminator(from).expect("a terminated block");
    for (k, s) in t.successors().into_iter().enumerate() {
        if s == to {
            t.set_successor(k as u32, new);
        }
    }
}

/// Values of the guard and preheader (`movable`) used beyond them reach
/// those uses through phis of `j` (poison from work-items that skipped them).
fn join_values<'ctx>(b: &mut Builder<'ctx>, movable: &[BasicBlock<'ctx>], j: BasicBlock<'ctx>, c: &Control<'ctx>) {
    let preds: Vec<BasicBlock<'ctx>> = [Some(c.x), c.guard.as_ref().map(|g| g.g), movable.first().copied()].into_iter().flatten().collect();
    for &blk in movable.iter().rev() {
        for i in instructions(blk).filter(|i| !i.is_void()).collect::<Vec<_>>() {
            let outside: Vec<Inst<'ctx>> = i.users().into_iter().filter(|u| !movable.contains(&u.block())).collect();
            if outside.is_empty() {
                continue;
            }
            // Arithmetic on values from before `x` is computed there, for
            // all (a slot the vectoriser cannot see through otherwise).
            let joined = if liftable(i.value(), movable, 4) {
                hoist(b, i.value(), c.x, movable)
            } else {
                b.position_at_end(j);
                if let Some(first) = instructions(j).next() {
                    b.position_before(first);
                }
                let phi = b.phi(i.ty(), "lockstep.joined");
                for &q in &preds {
                    // Defined in the guard: there on both of its ways to J.
                    let has = q == blk || movable.first() == Some(&q) && blk != q && c.guard.as_ref().is_some_and(|g| g.g == blk);
                    phi.add_incoming(&[(if has { i.value() } else { i.ty().poison() }, q)]);
                }
                phi.value()
            };
            for u in outside {
                for k in 0..u.num_operands() {
                    if u.operand(k) == i.value() {
                        u.set_operand(k, joined);
                    }
                }
            }
        }
    }
}

/// Whether `v` is speculatable code over values from outside `movable`
/// (within `depth` operations), so it can be computed before them.
fn liftable<'ctx>(v: Value<'ctx>, movable: &[BasicBlock<'ctx>], depth: u32) -> bool {
    let Some(i) = v.as_inst().filter(|i| movable.contains(&i.block())) else { return true };
    depth > 0 && !i.is_phi() && speculatable(i) && i.operands().all(|op| op.as_block().is_none() && liftable(op, movable, depth - 1))
}

/// `v` built again at `b`'s position from work-item ids and uniform values,
/// when it is speculatable arithmetic on them within `depth` operations.
fn recompute<'ctx>(b: &mut Builder<'ctx>, v: Value<'ctx>, memo: &mut HashMap<Value<'ctx>, Value<'ctx>>, depth: u32) -> Option<Value<'ctx>> {
    if let Some(&done) = memo.get(&v) {
        return Some(done);
    }
    let Some(i) = v.as_inst() else { return Some(v) };
    if i.is_phi() || !speculatable(i) || depth == 0 {
        return None;
    }
    let mut c = i.clone_detached();
    for k in 0..c.num_operands() {
        let op = c.operand(k);
        if op.as_block().is_some() || op.is_constant() {
            continue;
        }
        let again = if builtin_of(i).is_some() { op } else { recompute(b, op, memo, depth - 1)? };
        c.set_operand(k, again);
    }
    let out = b.insert(c, b"").value();
    memo.insert(v, out);
    Some(out)
}

/// After the lockstep loop, sends each work-item on to where the divergent
/// branch, the guard or the loop's exit sent it, with the values it had.
fn dispatch<'ctx>(
    b: &mut Builder<'ctx>,
    p: &UniformPlan<'ctx>,
    uexit: BasicBlock<'ctx>,
    u: Option<Value<'ctx>>,
    fin: &HashMap<Inst<'ctx>, Value<'ctx>>,
) {
    let ctx = uexit.get_context();
    let i1 = Ty::of(ctx.bool_type());
    let Some(c) = &p.control else {
        b.position_at_end(uexit);
        b.br(p.exit);
        for xp in instructions(p.exit).take_while(|i| i.is_phi()).collect::<Vec<_>>() {
            let v = fin[&xp];
            xp.retain_incoming(|bb| bb != p.latch).add_incoming(&[(v, uexit)]);
        }
        return;
    };
    b.position_at_end(uexit);
    let taken = if c.into_on_true { c.cond } else { b.int_op(IntOp::Xor, c.cond, i1.const_int(1), "") };
    // (target, original predecessor, when)
    let mut ways: Vec<(BasicBlock<'ctx>, BasicBlock<'ctx>, Value<'ctx>)> = Vec::new();
    match (&c.guard, u) {
        (Some(gd), Some(u)) => {
            ways.push((p.exit, p.latch, b.int_op(IntOp::And, taken, u, "")));
            let not_u = b.int_op(IntOp::Xor, u, i1.const_int(1), "");
            ways.push((gd.skip, gd.g, b.int_op(IntOp::And, taken, not_u, "")));
        }
        _ => ways.push((p.exit, p.latch, taken)),
    }
    let not_taken = b.int_op(IntOp::Xor, taken, i1.const_int(1), "");
    ways.push((c.out, c.x, not_taken));
    let mut targets: Vec<BasicBlock<'ctx>> = Vec::new();
    for w in &ways {
        if !targets.contains(&w.0) {
            targets.push(w.0);
        }
    }
    // The phis' values, chosen in uexit (which dominates every way out).
    let mut values: Vec<(BasicBlock<'ctx>, Inst<'ctx>, Value<'ctx>)> = Vec::new();
    for &t in &targets {
        for phi in instructions(t).take_while(|i| i.is_phi()) {
            let mut acc: Option<Value<'ctx>> = None;
            for &(to, from, when) in ways.iter().filter(|w| w.0 == t).rev() {
                let v = if from == p.latch {
                    fin[&phi]
                } else {
                    phi.incoming().into_iter().find(|&(_, bb)| bb == from).map(|(v, _)| v).expect("an entry")
                };
                acc = Some(match acc {
                    None => v,
                    Some(a) => b.select(when, v, a, ""),
                });
                let _ = to;
            }
            values.push((t, phi, acc.expect("a way in")));
        }
    }
    let mut at = uexit;
    for (n, &t) in targets.iter().enumerate() {
        b.position_at_end(at);
        let from_block = at;
        if n + 1 == targets.len() {
            b.br(t);
        } else {
            let mut cond: Option<Value<'ctx>> = None;
            for w in ways.iter().filter(|w| w.0 == t) {
                cond = Some(match cond {
                    None => w.2,
                    Some(a) => b.int_op(IntOp::Or, a, w.2, ""),
                });
            }
            let next = ctx.insert_basic_block_after(at, "lockstep.way");
            b.cond_br(cond.expect("a way"), t, next);
            at = next;
        }
        let olds: Vec<BasicBlock<'ctx>> = ways.iter().filter(|w| w.0 == t).map(|w| w.1).collect();
        for (_, phi, v) in values.iter().filter(|w| w.0 == t) {
            phi.retain_incoming(|bb| !olds.contains(&bb)).add_incoming(&[(*v, from_block)]);
        }
    }
}
