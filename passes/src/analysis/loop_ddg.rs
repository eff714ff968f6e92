//! The dependence graph (seed 002's DDG) of an innermost loop whose body is
//! one block, for the modulo scheduler (`sched`):
//!
//! ```text
//!   preheader ──> body ──┐      ops: the body's instructions but phis,
//!                  ^  │  │      address arithmetic and loop control;
//!                  └──┘  v      arcs: register (omega from phis) and memory
//!                      exit
//! ```
//!
//! * Ops: every instruction of the body except phis, no-op casts, GEPs used
//!   only as load/store addresses (addressing modes, post-increment on both
//!   modelled machines), casts feeding only such GEPs, extensions of a load
//!   and truncations feeding only stores (`ld1`/`memub` extend, `st1`/
//!   `memb` truncate), the compare of a
//!   counter (a body phi stepped by a constant) feeding only the latch
//!   branch, and the counter's constant-step increment when the counter is
//!   used only by skipped ops (a counted-loop branch, IA-64 `br.ctop`, Hexagon `loop0`, replaces
//!   them). The branch itself is an op of class `branch` when the
//!   model has that class. Each op's class (`alu`, `load`, ...) gives its
//!   unit kind and latency through the machine model.
//! * Register arcs: def -> use, omega 0; a use of a body phi is an arc from
//!   the phi's value on the back edge with omega 1 (phi of phi: 2, ...).
//!   Uses through skipped ops (a GEP, a cast) count as uses of their operands.
//! * Memory arcs, between two accesses of which one stores: with the same
//!   loop-invariant base and GEP indices that differ only in a last index
//!   `iv + c` of the same counter phi with constant step `s` (casts
//!   allowed), the exact distance (c1 - c2) / s, or none when `s` does not
//!   divide it. The same address value alone proves nothing across
//!   iterations (`h[idx[i]] += 1` reads what an earlier iteration stored):
//!   it is the conservative case unless it is such a GEP. Different
//!   allocas or globals, or a `noalias` (C `restrict`) parameter against
//!   another base: none; otherwise conservative, both X -> Y (omega 0)
//!   and Y -> X (omega 1) for X before Y. Latency: the store's from a store,
//!   0 from a load (an anti dependence may share a cycle in order).
//!   Where the function's memory-descriptor chains (seed 003,
//!   [`MemoryFacts`]) know more, the conservative case is sharpened: two
//!   accesses whose objects differ have no arc, and a store that supplies no
//!   byte a load reads, in any iteration (it is not among the load's
//!   reaching definitions at the loop's fixed point), has no flow arc to it;
//!   the anti arc stays.
//!
//! Not eligible (the reason is reported): bodies of several blocks (run
//! `simt-ifconvert` first), calls other than a few pure intrinsics,
//! volatile or atomic accesses, and ops of a class the model lacks.

use crate::analysis::cache::FunctionAnalyses;
use crate::analysis::memdeps::model::{AccessId, Def, ObjId, Ref};
use crate::analysis::memdeps::MemDeps;
use crate::cfg::BlockId;
use crate::ir::{instructions, Inst, SlotNames, Value};
use crate::sched::ddg::{Arc, Ddg, Op, MAX_OMEGA};
use crate::sched::machine::Machine;
use llvm_sys::LLVMOpcode as O;
use std::collections::HashMap;

/// One innermost loop: its header and its graph or why there is none.
pub struct LoopGraph {
    pub header: BlockId,
    pub graph: Result<Ddg, String>,
}

/// The graphs of every innermost loop of the function, by header order.
pub fn innermost_loop_graphs(fa: &FunctionAnalyses<'_>, names: &SlotNames, m: &Machine) -> Vec<LoopGraph> {
    let li = fa.loops();
    let facts = MemoryFacts::new(fa.memdeps());
    let mut out: Vec<LoopGraph> = li
        .loops()
        .filter(|(_, l)| l.children.is_empty())
        .map(|(_, l)| {
            let graph = if l.blocks.len() != 1 {
                Err(format!("body has {} blocks (run simt-ifconvert first)", l.blocks.len()))
            } else {
                body_graph(fa.cfg.block(l.header), names, m, Some(&facts)).map(|(g, _)| g)
            };
            LoopGraph { header: l.header, graph }
        })
        .collect();
    out.sort_by_key(|g| g.header);
    out
}

/// What the memory-descriptor chains of a function say about pairs of its
/// memory instructions.
pub struct MemoryFacts<'a, 'ctx> {
    deps: &'a MemDeps<'ctx>,
    access: HashMap<llvm_sys::prelude::LLVMValueRef, AccessId>,
}

impl<'a, 'ctx> MemoryFacts<'a, 'ctx> {
    pub fn new(deps: &'a MemDeps<'ctx>) -> Self {
        let access = deps.insts.iter().enumerate().map(|(n, i)| (i.raw(), n as AccessId)).collect();
        MemoryFacts { deps, access }
    }

    fn objects(&self, r: &Ref) -> Vec<ObjId> {
        match r {
            Ref::Must(d) => vec![self.deps.program.descs[*d as usize].obj],
            Ref::May(objs) => objs.clone(),
        }
    }

    /// The objects an access may touch (use and definition).
    fn touched(&self, i: Inst<'_>) -> Option<Vec<ObjId>> {
        let a = &self.deps.program.accesses[*self.access.get(&i.raw())? as usize];
        Some([&a.use_, &a.def].into_iter().flatten().flat_map(|r| self.objects(r)).collect())
    }

    /// Whether `x` and `y` touch no object in common.
    pub fn disjoint(&self, x: Inst<'_>, y: Inst<'_>) -> bool {
        match (self.touched(x), self.touched(y)) {
            (Some(a), Some(b)) => a.iter().all(|o| !b.contains(o)),
            _ => false,
        }
    }

    /// Whether the store `store` supplies no byte that `load` reads, in any
    /// execution (not among the load's reaching definitions).
    pub fn never_supplies(&self, store: Inst<'_>, load: Inst<'_>) -> bool {
        let (Some(&s), Some(&l)) = (self.access.get(&store.raw()), self.access.get(&load.raw())) else { return false };
        match &self.deps.solution.use_defs[l as usize] {
            Some(defs) => !defs.iter().any(|d| matches!(d, Def::Any) || *d == Def::Access(s)),
            None => false,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Op(usize),
    /// Skipped: uses of it are uses of its operands.
    Through,
    Phi,
}

fn class_of(i: Inst<'_>) -> Result<Option<&'static str>, String> {
    Ok(Some(match i.opcode() {
        O::LLVMAdd | O::LLVMSub | O::LLVMAnd | O::LLVMOr | O::LLVMXor | O::LLVMGetElementPtr => "alu",
        O::LLVMZExt | O::LLVMSExt | O::LLVMTrunc => "alu",
        O::LLVMShl | O::LLVMLShr | O::LLVMAShr => "shift",
        O::LLVMICmp => "cmp",
        O::LLVMSelect => "select",
        O::LLVMMul => "mul",
        O::LLVMUDiv | O::LLVMSDiv | O::LLVMURem | O::LLVMSRem => "div",
        O::LLVMFAdd | O::LLVMFSub | O::LLVMFMul | O::LLVMFNeg | O::LLVMFCmp => "fpu",
        O::LLVMFPToSI | O::LLVMFPToUI | O::LLVMSIToFP | O::LLVMUIToFP | O::LLVMFPExt | O::LLVMFPTrunc => "fpu",
        O::LLVMFDiv | O::LLVMFRem => "fdiv",
        O::LLVMLoad | O::LLVMStore if i.is_volatile() || i.is_atomic() => return Err("volatile or atomic access".into()),
        O::LLVMLoad => "load",
        O::LLVMStore => "store",
        O::LLVMBr => "branch",
        O::LLVMBitCast | O::LLVMPtrToInt | O::LLVMIntToPtr | O::LLVMAddrSpaceCast | O::LLVMFreeze => return Ok(None),
        O::LLVMCall => {
            let name = i.intrinsic_name().unwrap_or_else(|| i.called_function_name().unwrap_or_else(|| "an indirect callee".into()));
            let pure = |p: &str| name.starts_with(p);
            if ["llvm.fmuladd", "llvm.fma", "llvm.fabs", "llvm.minnum", "llvm.maxnum"].iter().any(|p| pure(p)) {
                "fpu"
            } else if ["llvm.smax", "llvm.smin", "llvm.umax", "llvm.umin", "llvm.abs"].iter().any(|p| pure(p)) {
                "alu"
            } else if ["llvm.dbg", "llvm.lifetime", "llvm.assume", "llvm.experimental.noalias"].iter().any(|p| pure(p)) {
                return Ok(None);
            } else {
                return Err(format!("call to {name}"));
            }
        }
        other => return Err(format!("unsupported instruction {other:?}")),
    }))
}

/// The graph of a single-block loop body, with the instruction of each op.
pub fn body_graph<'c>(
    body: inkwell::basic_block::BasicBlock<'c>,
    names: &SlotNames,
    m: &Machine,
    facts: Option<&MemoryFacts<'_, '_>>,
) -> Result<(Ddg, Vec<Inst<'c>>), String> {
    let insts: Vec<Inst<'c>> = instructions(body).collect();
    let in_body = |v: Value<'c>| v.as_inst().filter(|i| i.block() == body);
    let users_in = |i: Inst<'c>| -> Vec<Inst<'c>> { i.users() };
    // Skipped ops, decided before any op is numbered.
    let mut through: Vec<bool> = vec![false; insts.len()];
    let index: HashMap<_, usize> = insts.iter().enumerate().map(|(k, i)| (i.raw(), k)).collect();
    let term = insts.last().copied();
    for (k, &i) in insts.iter().enumerate().rev() {
        let users = users_in(i);
        let all_users = |p: &dyn Fn(Inst<'c>) -> bool| !users.is_empty() && users.iter().all(|&u| p(u));
        let skip_of = |u: Inst<'c>| index.get(&u.raw()).is_some_and(|&x| through[x]);
        through[k] = match i.opcode() {
            O::LLVMBitCast | O::LLVMPtrToInt | O::LLVMIntToPtr | O::LLVMAddrSpaceCast | O::LLVMFreeze => true,
            O::LLVMGetElementPtr => all_users(&|u| is_address_of(u, i)),
            // Extending loads and truncating stores absorb the cast.
            O::LLVMSExt | O::LLVMZExt if i.operand(0).as_inst().is_some_and(|d| d.opcode() == O::LLVMLoad) => true,
            O::LLVMTrunc if all_users(&|u| u.opcode() == O::LLVMStore && u.operand(0) == i.value()) => true,
            O::LLVMSExt | O::LLVMZExt | O::LLVMTrunc => all_users(&skip_of),
            O::LLVMICmp => users.len() == 1 && Some(users[0]) == term && i.operands().any(|v| affine(v, body).is_some()),
            _ => false,
        };
    }
    // The counter increment: an add with a constant feeding only phis and
    // skipped ops (the loop-control compare).
    // The counter: phi = [.., add], add = phi + constant, each used only by
    // the other and by skipped ops of the body (addresses, the compare).
    for (k, &i) in insts.iter().enumerate() {
        if i.opcode() != O::LLVMAdd {
            continue;
        }
        let Some(phi) = i.operands().find_map(|v| in_body(v).filter(|p| p.is_phi())) else { continue };
        let counter = i.operands().any(|v| v.const_u64().is_some()) && phi.incoming().iter().any(|(v, b)| *b == body && *v == i.value());
        let skipped = |u: &Inst<'c>| index.get(&u.raw()).is_some_and(|&x| through[x]);
        through[k] = counter && users_in(i).iter().all(|u| *u == phi || skipped(u)) && users_in(phi).iter().all(|u| *u == i || skipped(u));
    }
    // Fusions of the machine: the producer disappears into its one user.
    let mut fused_class: HashMap<_, String> = HashMap::new();
    for (k, &i) in insts.iter().enumerate() {
        // A fused op is not fused again: the machine op has two sources.
        if through[k] || i.is_phi() || fused_class.contains_key(&i.raw()) {
            continue;
        }
        let Ok(Some(pc)) = class_of(i) else { continue };
        let users = users_in(i);
        let [u] = users.as_slice() else { continue };
        let Some(&uk) = index.get(&u.raw()) else { continue };
        let consumer_ok = matches!(u.opcode(), O::LLVMAdd | O::LLVMSub | O::LLVMAnd | O::LLVMOr | O::LLVMXor) || is_min_or_max(*u, i);
        let shift_by_const = !matches!(i.opcode(), O::LLVMShl | O::LLVMLShr | O::LLVMAShr) || i.operand(1).const_u64().is_some();
        if through[uk] || !consumer_ok || !shift_by_const || fused_class.contains_key(&u.raw()) {
            continue;
        }
        let uc = class_of(*u).ok().flatten();
        let named = |ops: &[String], x: Inst<'c>| ops.is_empty() || ops.iter().any(|o| o == mnemonic(x));
        if let Some(f) = m
            .fusions
            .iter()
            .find(|f| f.producer == pc && Some(f.consumer.as_str()) == uc && named(&f.producer_ops, i) && named(&f.consumer_ops, *u))
        {
            through[k] = true;
            fused_class.insert(u.raw(), f.fused.clone());
        }
    }
    let mut role: HashMap<_, Role> = HashMap::new();
    let mut ops: Vec<Op> = Vec::new();
    let mut op_inst: Vec<Inst<'c>> = Vec::new();
    for (k, &i) in insts.iter().enumerate() {
        if i.is_phi() {
            role.insert(i.raw(), Role::Phi);
            continue;
        }
        let class = class_of(i)?;
        let class = match class {
            Some(_) if fused_class.contains_key(&i.raw()) => fused_class[&i.raw()].as_str(),
            Some(c) if !through[k] => c,
            _ => {
                role.insert(i.raw(), Role::Through);
                continue;
            }
        };
        let Some(info) = m.classes.get(class) else {
            if class == "branch" {
                role.insert(i.raw(), Role::Through);
                continue;
            }
            return Err(format!("machine '{}' has no op class '{class}'", m.name));
        };
        let id = if i.is_void() { format!("{}#{}", mnemonic(i), ops.len()) } else { names.of_value(i.raw()).to_string() };
        let name = if i.is_void() { mnemonic(i).to_string() } else { format!("{id}={}", mnemonic(i)) };
        role.insert(i.raw(), Role::Op(ops.len()));
        ops.push(Op { id, name, unit: info.unit, latency: Some(info.latency), at: None });
        op_inst.push(i);
    }
    let mut arcs = Vec::new();
    // Register arcs.
    for (to, &i) in op_inst.iter().enumerate() {
        let mut seen = Vec::new();
        for v in i.operands() {
            reg_sources(v, 0, body, &role, &in_body, &mut seen);
        }
        seen.sort();
        seen.dedup();
        for (from, omega) in seen {
            arcs.push(Arc { from, to, latency: ops[from].latency.unwrap_or(1), omega });
        }
    }
    // Memory arcs.
    let mem: Vec<usize> = (0..ops.len()).filter(|&k| matches!(op_inst[k].opcode(), O::LLVMLoad | O::LLVMStore)).collect();
    for (a, &x) in mem.iter().enumerate() {
        for &y in &mem[a + 1..] {
            let (ix, iy) = (op_inst[x], op_inst[y]);
            let stores = (ix.opcode() == O::LLVMStore, iy.opcode() == O::LLVMStore);
            if !stores.0 && !stores.1 {
                continue;
            }
            let lat = |k: usize, is_store: bool| if is_store { ops[k].latency.unwrap_or(1) } else { 0 };
            match distance(ix, iy, body) {
                Dist::None => {}
                Dist::Exact(d) if d >= 0 => arcs.push(Arc { from: x, to: y, latency: lat(x, stores.0), omega: omega_of(d) }),
                Dist::Exact(d) => arcs.push(Arc { from: y, to: x, latency: lat(y, stores.1), omega: omega_of(d) }),
                Dist::Unknown if facts.is_some_and(|f| f.disjoint(ix, iy)) => {}
                Dist::Unknown => {
                    // A flow arc (store to load) is dropped where the chains
                    // show the store never supplies the load.
                    let flow_free = |s: Inst<'_>, l: Inst<'_>| facts.is_some_and(|f| f.never_supplies(s, l));
                    if !(stores.0 && !stores.1 && flow_free(ix, iy)) {
                        arcs.push(Arc { from: x, to: y, latency: lat(x, stores.0), omega: 0 });
                    }
                    if !(stores.1 && !stores.0 && flow_free(iy, ix)) {
                        arcs.push(Arc { from: y, to: x, latency: lat(y, stores.1), omega: 1 });
                    }
                }
            }
        }
    }
    Ok((Ddg::new(ops, arcs), op_inst))
}

fn mnemonic(i: Inst<'_>) -> &'static str {
    match i.opcode() {
        O::LLVMLoad => "load",
        O::LLVMStore => "store",
        O::LLVMBr => "br",
        O::LLVMAdd => "add",
        O::LLVMSub => "sub",
        O::LLVMMul => "mul",
        O::LLVMFAdd => "fadd",
        O::LLVMFSub => "fsub",
        O::LLVMFMul => "fmul",
        O::LLVMFDiv => "fdiv",
        O::LLVMICmp => "icmp",
        O::LLVMFCmp => "fcmp",
        O::LLVMSelect => "select",
        O::LLVMShl => "shl",
        O::LLVMLShr => "lshr",
        O::LLVMAShr => "ashr",
        O::LLVMAnd => "and",
        O::LLVMOr => "or",
        O::LLVMXor => "xor",
        O::LLVMGetElementPtr => "gep",
        O::LLVMSExt => "sext",
        O::LLVMZExt => "zext",
        O::LLVMTrunc => "trunc",
        O::LLVMCall => "call",
        _ => "op",
    }
}

/// `select (cmp a, b), a, b` or `select (cmp a, b), b, a` with an ordering
/// compare: a min or a max, one op where the machine has one.
fn is_min_or_max(sel: Inst<'_>, cmp: Inst<'_>) -> bool {
    use llvm_sys::{LLVMIntPredicate as IP, LLVMRealPredicate as RP};
    let ordering = match cmp.opcode() {
        O::LLVMICmp => !matches!(cmp.icmp_predicate(), IP::LLVMIntEQ | IP::LLVMIntNE),
        O::LLVMFCmp => !matches!(
            cmp.fcmp_predicate(),
            RP::LLVMRealOEQ
                | RP::LLVMRealONE
                | RP::LLVMRealUEQ
                | RP::LLVMRealUNE
                | RP::LLVMRealORD
                | RP::LLVMRealUNO
                | RP::LLVMRealPredicateFalse
                | RP::LLVMRealPredicateTrue
        ),
        _ => false,
    };
    if !ordering || sel.opcode() != O::LLVMSelect {
        return false;
    }
    let (a, b) = (cmp.operand(0), cmp.operand(1));
    sel.operand(0) == cmp.value() && ((sel.operand(1) == a && sel.operand(2) == b) || (sel.operand(1) == b && sel.operand(2) == a))
}

fn is_address_of(user: Inst<'_>, gep: Inst<'_>) -> bool {
    match user.opcode() {
        O::LLVMLoad => user.operand(0) == gep.value(),
        O::LLVMStore => user.operand(1) == gep.value() && user.operand(0) != gep.value(),
        _ => false,
    }
}

/// The ops whose results `v` carries into the body, with their distances.
fn reg_sources<'c>(
    v: Value<'c>,
    omega: u32,
    body: inkwell::basic_block::BasicBlock<'c>,
    role: &HashMap<llvm_sys::prelude::LLVMValueRef, Role>,
    in_body: &dyn Fn(Value<'c>) -> Option<Inst<'c>>,
    out: &mut Vec<(usize, u32)>,
) {
    let Some(i) = in_body(v) else { return };
    if omega > 8 || out.len() > 64 {
        return;
    }
    match role.get(&i.raw()) {
        Some(Role::Op(k)) => out.push((*k, omega)),
        Some(Role::Through) => {
            for o in i.operands() {
                reg_sources(o, omega, body, role, in_body, out);
            }
        }
        Some(Role::Phi) => {
            for (val, from) in i.incoming() {
                if from == body {
                    reg_sources(val, omega + 1, body, role, in_body, out);
                }
            }
        }
        None => {}
    }
}

enum Dist {
    None,
    Exact(i64),
    Unknown,
}

/// Iteration distance from access `x` to a later access `y` of the body.
fn distance<'c>(x: Inst<'c>, y: Inst<'c>, body: inkwell::basic_block::BasicBlock<'c>) -> Dist {
    let addr = |i: Inst<'c>| if i.opcode() == O::LLVMLoad { i.operand(0) } else { i.operand(1) };
    let access_ty = |i: Inst<'c>| if i.opcode() == O::LLVMLoad { i.value().ty().print() } else { i.operand(0).ty().print() };
    let (ax, ay) = (strip_casts(addr(x)), strip_casts(addr(y)));
    let (bx, by) = (base_object(ax), base_object(ay));
    let distinct_objects = |a: Value<'c>, b: Value<'c>| {
        a != b && [a, b].iter().all(|v| v.is_global() || v.as_inst().is_some_and(|i| i.opcode() == O::LLVMAlloca))
    };
    if distinct_objects(bx, by) || (bx != by && (is_noalias_param(bx, body) || is_noalias_param(by, body))) {
        return Dist::None;
    }
    // The same address value is the same location only within one
    // iteration: a loop-invariant address (`*p += x`) or one loaded or
    // computed in the body (`h[idx[i]] += 1`) may meet itself at any
    // distance, so only the affine GEP below gives an exact distance, also
    // when `ax == ay`.
    let (Some(gx), Some(gy)) = (ax.as_inst(), ay.as_inst()) else { return Dist::Unknown };
    if gx.opcode() != O::LLVMGetElementPtr || gy.opcode() != O::LLVMGetElementPtr || gx.num_operands() != gy.num_operands() {
        return Dist::Unknown;
    }
    let n = gx.num_operands();
    let same_ty = gx.value().gep_source_element_type().print() == gy.value().gep_source_element_type().print();
    // Every operand but the last index is shared and loop-invariant, so the
    // two addresses differ by the last index alone, in every iteration.
    let invariant = |v: Value<'c>| v.as_inst().is_none_or(|i| i.block() != body);
    if !same_ty || (0..n - 1).any(|k| gx.operand(k) != gy.operand(k) || !invariant(gx.operand(k))) || access_ty(x) != access_ty(y) || n < 2
    {
        return Dist::Unknown;
    }
    // The access must be the whole element the last index selects.
    if n == 2 && gx.value().gep_source_element_type().print() != access_ty(x) {
        return Dist::Unknown;
    }
    match (affine(gx.operand(n - 1), body), affine(gy.operand(n - 1), body)) {
        (Some((px, sx, cx)), Some((py, _, cy))) if px == py && sx != 0 => {
            let Some(diff) = cx.checked_sub(cy) else { return Dist::Unknown };
            if diff % sx != 0 {
                Dist::None
            } else {
                Dist::Exact(diff / sx)
            }
        }
        _ => Dist::Unknown,
    }
}

/// A `noalias` parameter of the body's function: memory reached through it
/// is reached through no pointer of another base.
fn is_noalias_param<'c>(v: Value<'c>, body: inkwell::basic_block::BasicBlock<'c>) -> bool {
    if !v.is_argument() {
        return false;
    }
    let Some(f) = body.get_parent() else { return false };
    crate::ir::parameters(f).iter().position(|&p| p == v).is_some_and(|k| crate::ir::has_param_attribute(f, k as u32, "noalias"))
}

/// The omega of an arc at iteration distance `d` (either sign). A distance
/// past [`MAX_OMEGA`] is cut to it, never wrapped: a smaller omega only
/// constrains the schedule more (2^32 + 1 once became 1).
fn omega_of(d: i64) -> u32 {
    u32::try_from(d.unsigned_abs()).map_or(MAX_OMEGA, |d| d.min(MAX_OMEGA))
}

fn strip_casts(mut v: Value<'_>) -> Value<'_> {
    while let Some(i) = v.as_inst() {
        if matches!(i.opcode(), O::LLVMBitCast | O::LLVMAddrSpaceCast) {
            v = i.operand(0);
        } else {
            break;
        }
    }
    v
}

fn base_object(mut v: Value<'_>) -> Value<'_> {
    for _ in 0..16 {
        match v.as_inst() {
            Some(i) if matches!(i.opcode(), O::LLVMGetElementPtr | O::LLVMBitCast | O::LLVMAddrSpaceCast) => v = i.operand(0),
            _ => break,
        }
    }
    v
}

fn signed(v: Value<'_>) -> Option<i64> {
    let u = v.const_u64()?;
    Some(match v.ty().print().as_str() {
        "i32" => u as u32 as i32 as i64,
        "i16" => u as u16 as i16 as i64,
        "i8" => u as u8 as i8 as i64,
        _ => u as i64,
    })
}

/// `v` as `phi + c` of a counter phi of the body with constant step: the
/// phi, its step and c.
fn affine<'c>(v: Value<'c>, body: inkwell::basic_block::BasicBlock<'c>) -> Option<(Value<'c>, i64, i64)> {
    let mut v = v;
    let mut c = 0i64;
    for _ in 0..8 {
        let i = v.as_inst()?;
        match i.opcode() {
            O::LLVMSExt | O::LLVMZExt => v = i.operand(0),
            O::LLVMAdd | O::LLVMOr => {
                if let Some(k) = signed(i.operand(1)) {
                    c = c.checked_add(k)?;
                    v = i.operand(0);
                } else if let Some(k) = signed(i.operand(0)) {
                    c = c.checked_add(k)?;
                    v = i.operand(1);
                } else {
                    return None;
                }
                // `or` is an add only on disjoint bits; only trust `or disjoint`.
                if i.opcode() == O::LLVMOr && !i.value().print().contains(" disjoint ") {
                    return None;
                }
            }
            O::LLVMPHI if i.block() == body => {
                let back = i.incoming().into_iter().find(|(_, b)| *b == body)?.0;
                let step_inst = back.as_inst()?;
                if step_inst.opcode() != O::LLVMAdd {
                    return None;
                }
                let step = if step_inst.operand(0) == i.value() {
                    signed(step_inst.operand(1))?
                } else if step_inst.operand(1) == i.value() {
                    signed(step_inst.operand(0))?
                } else {
                    return None;
                };
                return Some((i.value(), step, c));
            }
            _ => return None,
        }
    }
    None
}
