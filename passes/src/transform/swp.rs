//! `simt-swp`: software pipelining (seed 002's setting): each eligible
//! innermost loop is modulo scheduled on a machine model and emitted as
//! prologue, kernel and epilogue, so the schedule is proven by running it.
//!
//! ```text
//!   P (the guard) ──(tc < stages)──> B (the original loop, fallback) ──> E
//!           └──> prologue ──> kernel ⟲ ──> epilogue ──> E
//! ```
//!
//! With S stages, virtual time t runs from 0 to tc + S - 2; at time t an
//! instruction of stage s works on iteration t - s when that iteration
//! exists. The prologue is times 0..S-2 (straight line), the kernel times
//! S-1..tc-1 (a loop of tc - S + 1 trips, every instruction once), the
//! epilogue times tc..tc+S-2. Every non-phi instruction of the body gets a
//! stage: ops their schedule's; the rest (addresses, casts, the counter)
//! the latest stage of their same-iteration operands. A use of X by A
//! across `d` phis is `δ = stage(A) - stage(X) + d` kernel trips old (the
//! schedule makes δ ≥ 0); δ ≥ 1 rotates through δ kernel phis, which is
//! what rotating registers do on IA-64. Within one time step instructions
//! go in a topological order of the δ = 0 register and memory arcs.
//!
//! Eligible: single-block innermost loops whose graph `loop_ddg` builds, with
//! a dedicated preheader and one exit, a counter `iv.next = iv + 1` whose
//! value or increment the latch tests against a loop-invariant bound with
//! `!=`/`==` or a signed/unsigned `<` in either spelling (trip count
//! `bound - start (+ 1)`, assumed not to overflow, as the `nsw`/`nuw`
//! counters clang emits), values used after the loop only by phis of the exit block (made
//! here when the loop is the exit's only predecessor), and more than one
//! stage. Others are left alone. Remarks (`-pass-remarks=simt-swp`): each
//! loop pipelined and its II, each one left and why (`-pass-remarks-missed`);
//! `SIMT_SWP_NOTES=1` prints the same as notes on the pass output.

use crate::analysis::loop_ddg::body_graph;
use crate::ir::{defined_functions, instructions, negated_predicate, swapped_predicate, Builder, Inst, IntOp, SlotNames, Value};
use crate::pass::{ModulePass, PassContext, PassError, Preserved};
use crate::remarks::{Arg, RemarkKind};
use crate::sched::automaton::Automaton;
use crate::sched::bundle::Bundler;
use crate::sched::kernel::Kernel;
use crate::sched::machine::Machine;
use inkwell::basic_block::BasicBlock;
use llvm_sys::{LLVMIntPredicate, LLVMOpcode as O};
use std::collections::HashMap;

pub struct Swp {
    machine: String,
}

impl Default for Swp {
    fn default() -> Swp {
        Swp { machine: "itanium2".into() }
    }
}

impl crate::pass::DeclaredPass for Swp {
    const NAME: &'static str = "simt-swp";
    const SUMMARY: &'static str =
        "software-pipelines single-block counted innermost loops by their modulo schedule: prologue, kernel with rotating phis, epilogue, fallback for short trips";
    const SEED: Option<&'static str> = Some("002");
    const OPTIONS: &'static [(&'static str, &'static str)] = &[("machine=NAME", "machine model (itanium2, hexagon or a .toml path)")];

    fn set_option(&mut self, key: &str, value: Option<&str>) -> Result<(), String> {
        match (key, value) {
            ("machine", Some(v)) => {
                self.machine = v.to_string();
                Ok(())
            }
            _ => Err(format!("unknown option '{key}' (expected machine=NAME)")),
        }
    }
}

impl ModulePass for Swp {
    fn name(&self) -> String {
        format!("simt-swp<machine={}>", self.machine)
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        let m = Machine::load(&self.machine).map_err(|e| PassError::BadOption { pass: "simt-swp".into(), message: e.to_string() })?;
        let a = Automaton::new(&m);
        let mut changed = false;
        let mut notes = String::new();
        for f in defined_functions(cx.module()) {
            // Plan from the loop analysis, then rewrite each loop in turn.
            let bodies: Vec<BasicBlock<'_>> = {
                let fa = cx.analyses(f);
                let li = fa.loops();
                li.loops().filter(|(_, l)| l.children.is_empty() && l.blocks.len() == 1).map(|(_, l)| fa.cfg.block(l.header)).collect()
            };
            for body in bodies {
                let names = SlotNames::new(f);
                let header = names.of_block(body).to_string();
                let fname = crate::ir::function_name(f);
                match pipeline(cx.module_mut(), &m, &a, body, &names) {
                    Ok((stages, ii)) => {
                        notes += &format!("simt-swp: {fname}: loop {header}: pipelined, {stages} stages\n");
                        cx.remark(RemarkKind::Passed, "Pipelined", f, || {
                            vec![
                                Arg::new("Function", &fname),
                                Arg::text(": loop "),
                                Arg::new("Loop", &header),
                                Arg::text(" pipelined with II "),
                                Arg::new("II", ii),
                                Arg::text(" ("),
                                Arg::new("Stages", stages),
                                Arg::text(" stages)"),
                            ]
                        });
                        changed = true;
                    }
                    Err(why) => {
                        notes += &format!("simt-swp: {fname}: loop {header}: not pipelined: {why}\n");
                        cx.remark(RemarkKind::Missed, "NotPipelined", f, || {
                            vec![
                                Arg::new("Function", &fname),
                                Arg::text(": loop "),
                                Arg::new("Loop", &header),
                                Arg::text(" not pipelined: "),
                                Arg::new("Reason", why),
                            ]
                        });
                    }
                }
            }
        }
        if std::env::var_os("SIMT_SWP_NOTES").is_some() {
            cx.out().write_all(notes.as_bytes()).map_err(|e| PassError::Output { pass: self.name(), message: e.to_string() })?;
        }
        // New blocks and edges: nothing cached stays valid.
        Ok(if changed { Preserved::none() } else { Preserved::all() })
    }
}

/// A use by an instruction of the body: where its value comes from.
#[derive(Clone, Copy)]
enum Src<'c> {
    /// Defined outside the loop.
    Invariant(Value<'c>),
    /// Body instruction `x` (index), `d` iterations back, `delta` kernel trips old.
    Body { x: usize, delta: u32 },
}

/// Pipelines the loop `body` of the module (`_module` says it changes);
/// the answer is the stage count and the II, or why it was left alone.
fn pipeline<'c>(
    _module: &mut inkwell::module::Module<'c>,
    m: &Machine,
    a: &Automaton,
    body: BasicBlock<'c>,
    names: &SlotNames,
) -> Result<(u32, u32), String> {
    let f = body.get_parent().ok_or("no function")?;
    let term = crate::ir::terminator(body).ok_or("no terminator")?;
    let preds: Vec<BasicBlock<'c>> =
        f.get_basic_blocks().into_iter().filter(|&b| b != body && crate::ir::successors(b).contains(&body)).collect();
    let [pre] = preds.as_slice() else { return Err(format!("{} preheaders", preds.len())) };
    let pre = *pre;
    let succs = crate::ir::successors(body);
    let exits: Vec<_> = succs.iter().copied().filter(|&s| s != body).collect();
    if succs.len() != 2 || exits.len() != 1 || term.opcode() != O::LLVMBr {
        return Err("latch is not a two-way branch to the loop and one exit".into());
    }
    let exit = exits[0];
    let pterm = crate::ir::terminator(pre).ok_or("preheader without terminator")?;
    if pterm.opcode() != O::LLVMBr || pterm.is_conditional_terminator() {
        return Err("no dedicated preheader (its branch is conditional)".into());
    }
    // Trip count from the counter compare, read as "continue while X p B"
    // with X the counter (c = 0) or its increment (c = 1) and B invariant:
    // trips = B - start + 1 - c.
    let cond = term
        .operand(0)
        .as_inst()
        .filter(|c| c.block() == body && c.opcode() == O::LLVMICmp)
        .ok_or("exit condition is not an icmp of the body")?;
    let exit_on_true = crate::ir::successors(body)[0] == exit;
    let in_body = |v: Value<'c>| v.as_inst().is_some_and(|i| i.block() == body);
    let mut pred = cond.icmp_predicate();
    if exit_on_true {
        pred = negated_predicate(pred);
    }
    let (x, bound) = if in_body(cond.operand(0)) {
        (cond.operand(0), cond.operand(1))
    } else {
        pred = swapped_predicate(pred);
        (cond.operand(1), cond.operand(0))
    };
    if in_body(bound) {
        return Err("bound varies in the loop".into());
    }
    let counter_of = |v: Value<'c>| -> Option<(Inst<'c>, Value<'c>)> {
        let add = v.as_inst().filter(|i| i.opcode() == O::LLVMAdd && i.operand(1).const_u64() == Some(1))?;
        let phi = add.operand(0).as_inst().filter(|p| p.is_phi() && p.block() == body)?;
        phi.incoming().iter().any(|(w, b)| *b == body && *w == v).then_some((phi, v))
    };
    let (ivp, c) = match x.as_inst() {
        Some(p) if p.is_phi() && p.block() == body => {
            let back = p.incoming().into_iter().find(|(_, b)| *b == body).map(|e| e.0).ok_or("counter without back edge")?;
            (counter_of(back).ok_or("exit test is not on a counter of step 1")?.0, 0)
        }
        _ => (counter_of(x).ok_or("exit test is not on a counter of step 1")?.0, 1),
    };
    use LLVMIntPredicate as P;
    let signed = match pred {
        P::LLVMIntNE => None,
        P::LLVMIntSLT => Some(true),
        P::LLVMIntULT => Some(false),
        _ => return Err("exit test is not counter !=, < bound".into()),
    };
    let start = ivp.incoming().into_iter().find(|(_, b)| *b == pre).ok_or("counter has no preheader value")?.0;

    // Schedule, with the memory chains of the function as it is now (earlier
    // loops of it may have been pipelined already).
    let fc = crate::function_cfg::FunctionCfg::new(f);
    let dom = crate::analysis::dominators::DomTree::dominators(&fc.cfg);
    let deps = crate::analysis::memdeps::MemDeps::compute(&fc, &dom, crate::analysis::memdeps::dataflow::Config::SOUND);
    let facts = crate::analysis::loop_ddg::MemoryFacts::new(&deps);
    let (g, op_inst) = body_graph(body, names, m, Some(&facts))?;
    let k = Kernel::build(m, a, &g, Bundler::Cyclic).map_err(|e| e.to_string())?;
    let stages = k.schedule.stage_count();
    let ii = k.schedule.ii;
    if stages < 2 {
        return Err("one stage: nothing to overlap".into());
    }
    let insts: Vec<Inst<'c>> = instructions(body).filter(|i| !i.is_phi() && *i != term).collect();
    let index: HashMap<_, usize> = insts.iter().enumerate().map(|(n, i)| (i.raw(), n)).collect();
    let op_of: HashMap<_, usize> = op_inst.iter().enumerate().map(|(n, i)| (i.raw(), n)).collect();
    // Where each operand comes from, through phis.
    let source = |v: Value<'c>| -> Result<(Option<usize>, u32, Value<'c>), String> {
        let (mut v, mut d) = (v, 0u32);
        loop {
            match v.as_inst() {
                Some(i) if i.block() == body && i.is_phi() => {
                    v = i.incoming().into_iter().find(|(_, b)| *b == body).ok_or("phi without back edge")?.0;
                    d += 1;
                    if d > 64 {
                        return Err("phi cycle".into());
                    }
                }
                Some(i) if i.block() == body => return Ok((index.get(&i.raw()).copied(), d, v)),
                _ if d == 0 => return Ok((None, 0, v)),
                _ => return Err("a phi carries a loop-invariant value".into()),
            }
        }
    };
    // Stages of all instructions.
    let mut stage = vec![0u32; insts.len()];
    for (n, i) in insts.iter().enumerate() {
        stage[n] = match op_of.get(&i.raw()) {
            Some(&o) => k.schedule.stage(o),
            None => {
                let mut s = 0;
                for v in i.operands() {
                    if let (Some(x), 0, _) = source(v)? {
                        s = s.max(stage[x]);
                    }
                }
                s
            }
        };
    }
    // Uses, with their age in kernel trips.
    let mut uses: Vec<Vec<Src<'c>>> = Vec::new();
    let mut zero_arcs: Vec<(usize, usize)> = Vec::new();
    for (n, i) in insts.iter().enumerate() {
        let mut row = Vec::new();
        for v in i.operands() {
            if v.as_block().is_some() {
                row.push(Src::Invariant(v));
                continue;
            }
            row.push(match source(v)? {
                (Some(x), d, _) => {
                    let delta = stage[n] as i64 - stage[x] as i64 + d as i64;
                    if delta < 0 {
                        return Err(format!("internal: use {delta} trips in the future"));
                    }
                    if delta == 0 {
                        zero_arcs.push((x, n));
                    }
                    Src::Body { x, delta: delta as u32 }
                }
                (None, _, v) => Src::Invariant(v),
            });
        }
        uses.push(row);
    }
    for arc in &g.arcs {
        // The branch is no instruction of ours: the kernel has its own.
        let (Some(&x), Some(&y)) = (index.get(&op_inst[arc.from].raw()), index.get(&op_inst[arc.to].raw())) else { continue };
        if x != y && stage[y] as i64 - stage[x] as i64 + arc.omega as i64 == 0 {
            zero_arcs.push((x, y));
        }
    }
    let order = topological(insts.len(), &zero_arcs).ok_or("internal: a cycle of same-trip dependences")?;
    // Values used after the loop: through phis of the exit block, made here
    // (LCSSA) when the loop is the exit's only predecessor. Each is a
    // virtual use of stage S-1, read at the epilogue's last step.
    let exit_preds = f.get_basic_blocks().into_iter().filter(|&b| crate::ir::successors(b).contains(&exit)).count();
    let mut needs_lcssa = Vec::new();
    for i in instructions(body).filter(|i| !i.is_void()) {
        let outside: Vec<Inst<'c>> = i.users().into_iter().filter(|u| u.block() != body && !(u.is_phi() && u.block() == exit)).collect();
        if !outside.is_empty() {
            if exit_preds != 1 {
                return Err("a value is used after the loop outside an exit phi".into());
            }
            needs_lcssa.push((i, outside));
        }
    }
    let mut exit_vals: Vec<(Inst<'c>, usize, Value<'c>)> = Vec::new();
    let mut exit_srcs: Vec<Src<'c>> = Vec::new();
    let exit_phi_entries = |exit_vals: &mut Vec<(Inst<'c>, usize, Value<'c>)>| {
        for p in instructions(exit).take_while(|p| p.is_phi()) {
            for (k, (v, b)) in p.incoming().into_iter().enumerate() {
                if b == body {
                    exit_vals.push((p, k, v));
                }
            }
        }
    };
    exit_phi_entries(&mut exit_vals);
    for (_, _, v) in &exit_vals {
        exit_srcs.push(exit_source(source(*v)?, stages, &stage));
    }
    for (i, _) in &needs_lcssa {
        exit_srcs.push(exit_source(source(i.value())?, stages, &stage));
    }
    // No more reasons to refuse: from here on the function changes.
    for (i, outside) in needs_lcssa {
        let mut b = Builder::new(i.value());
        match instructions(exit).next() {
            Some(first) => b.position_before(first),
            None => b.position_at_end(exit),
        }
        let lcssa = b.phi(i.value().ty(), "");
        lcssa.add_incoming(&[(i.value(), body)]);
        for u in outside {
            for k in 0..u.num_operands() {
                if u.operand(k) == i.value() {
                    u.set_operand(k, lcssa.value());
                }
            }
        }
        exit_vals.push((lcssa, 0, i.value()));
    }
    let first_virtual = insts.len();
    for src in &exit_srcs {
        stage.push(stages - 1);
        uses.push(vec![*src]);
    }

    // ---- emission
    let s = stages;
    let ty = start.ty();
    let mut bld = Builder::new(body.get_parent().map(Value::from).unwrap());
    let prologue = crate::ir::insert_block_before(body, "swp.prologue");
    let kernel = crate::ir::insert_block_before(body, "swp.kernel");
    let epilogue = crate::ir::insert_block_before(body, "swp.epilogue");
    // The preheader becomes the guard: short trips take the original loop,
    // whose phis keep their preheader entries.
    pterm.erase();
    let guard = pre;
    bld.position_at_end(guard);
    let diff = bld.int_op(IntOp::Sub, bound, start, "swp.diff");
    let tc = if c == 0 { bld.int_op(IntOp::Add, diff, ty.const_int(1), "swp.tc") } else { diff };
    // Long enough for the pipeline: trips >= S. With `<` the loop runs once
    // when B is not above the first tested value, which the guard sends to
    // the original loop; `!=` trips wrap as the original's do.
    let short = match signed {
        None => bld.icmp(LLVMIntPredicate::LLVMIntULT, tc, ty.const_int(s as u64), "swp.short"),
        Some(true) => bld.icmp(LLVMIntPredicate::LLVMIntSLT, tc, ty.const_int(s as u64), "swp.short"),
        Some(false) => {
            let few = bld.icmp(LLVMIntPredicate::LLVMIntULT, tc, ty.const_int(s as u64), "swp.few");
            let first = if c == 0 { start } else { bld.int_op(IntOp::Add, start, ty.const_int(1), "swp.first") };
            let once = bld.icmp(LLVMIntPredicate::LLVMIntUGE, first, bound, "swp.once");
            bld.select(once, once, few, "swp.short")
        }
    };
    let trips = bld.int_op(IntOp::Sub, tc, ty.const_int(s as u64 - 1), "swp.trips");
    bld.cond_br(short, body, prologue);
    let clone_at = |bld: &Builder<'c>, n: usize, operand: &dyn Fn(usize, usize) -> Value<'c>| -> Value<'c> {
        let mut d = insts[n].clone_detached();
        for k in 0..d.num_operands() {
            if matches!(uses[n][k as usize], Src::Body { .. }) {
                d.set_operand(k, operand(n, k as usize));
            }
        }
        bld.insert(d, b"").value()
    };
    // Prologue: values by (instruction, iteration).
    let mut pro: HashMap<(usize, u32), Value<'c>> = HashMap::new();
    // The value `v` (an operand as written in the body) has at iteration j.
    fn resolve<'c>(
        v: Value<'c>,
        j: u32,
        body: BasicBlock<'c>,
        guard: BasicBlock<'c>,
        index: &HashMap<llvm_sys::prelude::LLVMValueRef, usize>,
        map: &HashMap<(usize, u32), Value<'c>>,
    ) -> Value<'c> {
        match v.as_inst() {
            Some(i) if i.block() == body && i.is_phi() => {
                let inc = i.incoming();
                if j == 0 {
                    inc.iter().find(|(_, b)| *b == guard).unwrap().0
                } else {
                    let back = inc.iter().find(|(_, b)| *b == body).unwrap().0;
                    resolve(back, j - 1, body, guard, index, map)
                }
            }
            Some(i) if i.block() == body => map[&(index[&i.raw()], j)],
            _ => v,
        }
    }
    bld.position_at_end(prologue);
    for t in 0..s - 1 {
        for &n in &order {
            if stage[n] <= t {
                let j = t - stage[n];
                let v = clone_at(&bld, n, &|n, k| resolve(insts[n].operand(k as u32), j, body, guard, &index, &pro));
                pro.insert((n, j), v);
            }
        }
    }
    bld.br(kernel);
    // Kernel: rotating phis per (use) of age >= 1.
    bld.position_at_end(kernel);
    let kc = bld.phi(ty, "swp.k");
    let mut chain: HashMap<(usize, usize), Vec<Inst<'c>>> = HashMap::new();
    let operand_of = |n: usize, k: usize| if n < first_virtual { insts[n].operand(k as u32) } else { exit_vals[n - first_virtual].2 };
    for n in order.iter().copied().chain(first_virtual..uses.len()) {
        for (k, u) in uses[n].iter().enumerate() {
            if let Src::Body { delta, .. } = *u {
                if delta >= 1 {
                    let v = operand_of(n, k);
                    let phis: Vec<Inst<'c>> = (1..=delta)
                        .map(|mm| {
                            let p = bld.phi(v.ty(), "swp.rot");
                            let j = (s - 1 + delta - mm) as i64 - stage[n] as i64;
                            let init = resolve(v, j as u32, body, guard, &index, &pro);
                            p.add_incoming(&[(init, prologue)]);
                            p
                        })
                        .collect();
                    chain.insert((n, k), phis);
                }
            }
        }
    }
    let mut kv: HashMap<usize, Value<'c>> = HashMap::new();
    for &n in &order {
        let v = clone_at(&bld, n, &|n, k| match uses[n][k] {
            Src::Body { x, delta: 0 } => kv[&x],
            Src::Body { .. } => chain[&(n, k)].last().unwrap().value(),
            Src::Invariant(v) => v,
        });
        kv.insert(n, v);
    }
    for (&(n, k), phis) in &chain {
        let Src::Body { x, .. } = uses[n][k] else { unreachable!() };
        phis[0].add_incoming(&[(kv[&x], kernel)]);
        for w in 1..phis.len() {
            phis[w].add_incoming(&[(phis[w - 1].value(), kernel)]);
        }
    }
    let kc1 = bld.int_op(IntOp::Add, kc.value(), ty.const_int(1), "swp.k.next");
    kc.add_incoming(&[(ty.const_int(0), prologue), (kc1, kernel)]);
    let done = bld.icmp(LLVMIntPredicate::LLVMIntEQ, kc1, trips, "swp.done");
    bld.cond_br(done, epilogue, kernel);
    // Epilogue: values by (instruction, time offset from the last kernel trip).
    bld.position_at_end(epilogue);
    let mut epi: HashMap<(usize, u32), Value<'c>> = HashMap::new();
    // Operand k of node n at epilogue step e: the kernel's last value, an
    // earlier epilogue step's, or one still in flight in the chain; `None`
    // for a loop invariant.
    let at_step = |epi: &HashMap<(usize, u32), Value<'c>>, n: usize, k: usize, e: u32| match uses[n][k] {
        Src::Body { x, delta } if delta <= e => {
            let off = e - delta;
            Some(if off == 0 { kv[&x] } else { epi[&(x, off)] })
        }
        Src::Body { delta, .. } => Some(chain[&(n, k)][(delta - e - 1) as usize].value()),
        Src::Invariant(_) => None,
    };
    for e in 1..s {
        for &n in &order {
            if stage[n] >= e {
                let v = clone_at(&bld, n, &|n, k| match uses[n][k] {
                    Src::Invariant(v) => v,
                    Src::Body { .. } => at_step(&epi, n, k, e).expect("a body value"),
                });
                epi.insert((n, e), v);
            }
        }
    }
    // The values leaving the loop: iteration tc-1, read at the last step.
    let e = s - 1;
    for (n, (p, _, v)) in (first_virtual..).zip(exit_vals.iter()) {
        let nv = at_step(&epi, n, 0, e).unwrap_or(*v);
        p.add_incoming(&[(nv, epilogue)]);
    }
    bld.br(exit);
    Ok((s, ii))
}

/// The source of a value leaving the loop, read by a virtual use of the
/// last stage.
fn exit_source<'c>(src: (Option<usize>, u32, Value<'c>), stages: u32, stage: &[u32]) -> Src<'c> {
    match src {
        (Some(x), d, _) => Src::Body { x, delta: stages - 1 - stage[x] + d },
        (None, _, v) => Src::Invariant(v),
    }
}

/// A topological order of `0..n` over `arcs`, ties by index.
fn topological(n: usize, arcs: &[(usize, usize)]) -> Option<Vec<usize>> {
    let mut indeg = vec![0usize; n];
    let mut out = vec![Vec::new(); n];
    for &(a, b) in arcs {
        if a != b {
            out[a].push(b);
            indeg[b] += 1;
        }
    }
    let mut ready: std::collections::BTreeSet<usize> = (0..n).filter(|&i| indeg[i] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(&i) = ready.iter().next() {
        ready.remove(&i);
        order.push(i);
        for &b in &out[i] {
            indeg[b] -= 1;
            if indeg[b] == 0 {
                ready.insert(b);
            }
        }
    }
    (order.len() == n).then_some(order)
}
