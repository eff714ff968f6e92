//! Emission: a chosen region's blocks merged into its head in topological
//! order (predicates, select trees, guarded and sunk accesses), the joins
//! merged afterwards, and `guard=branch`'s branches around single accesses.

use super::guards::{branch_kind, classify, Branch, Guard};
use super::{Blocks, Island, Region, Target};
use crate::analysis::predicates::PredId;
use crate::cfg::BlockId;
use crate::ir::{delete_block, instructions, terminator, Builder, Inst, Value};
use crate::transform::select_tree::{self, Node, Tree};
use inkwell::basic_block::BasicBlock;
use llvm_sys::{LLVMIntPredicate, LLVMOpcode};
use std::collections::{BTreeSet, HashMap};

/// Where the guarded accesses of a function go.
pub(super) enum Guarding<'ctx> {
    /// The scratch slot (none when no access is guarded).
    Scratch(Option<Value<'ctx>>),
    /// Each access and its guard, to be put under a branch, and the set of
    /// those guards (conversion must not erase them as unused meanwhile).
    Branch { accesses: Vec<(Inst<'ctx>, Value<'ctx>)>, guards: BTreeSet<Value<'ctx>> },
}

/// The per-lane scratch slot: `alloca [bytes x i8], align 16` at the top of
/// the entry block, as a pointer in the generic address space.
pub(super) fn make_scratch<'ctx>(entry: BasicBlock<'ctx>, bytes: u64, target: Target) -> Value<'ctx> {
    let first: Inst<'ctx> = entry.get_first_instruction().expect("the entry block is not empty").into();
    let mut bld = Builder::new(first.value());
    bld.position_before(first);
    let i8t = first.value().ty().int_in_context_of(8);
    let slot = bld.alloca(i8t.array(bytes), "ifc.scratch");
    slot.set_alignment(16);
    if target.generic == 0 {
        slot.value()
    } else {
        bld.addrspace_cast(slot.value(), i8t.pointer_in_context_of(target.generic), "ifc.scratch.generic")
    }
}

/// Emission state for one region: everything goes to the end of the head.
/// Edge predicates and guards are made on first use, so an edge no predicate
/// or phi reads costs nothing.
pub(super) struct Emit<'a, 'ctx> {
    region: &'a Region<'ctx>,
    bld: Builder<'ctx>,
    t: Value<'ctx>,
    f: Value<'ctx>,
    /// The terminators of the region's blocks, erased, as the edges need them.
    branches: HashMap<BlockId, Branch<'ctx>>,
    /// `g ∧ (a took the edge to s)` per edge out of the region's blocks.
    edge: HashMap<(BlockId, BlockId), Value<'ctx>>,
    pred: HashMap<PredId, Value<'ctx>>,
    /// Switch case compares of the select trees, per (block, case).
    cases: HashMap<(BlockId, usize), Value<'ctx>>,
}

impl<'ctx> Emit<'_, 'ctx> {
    fn and(&self, g: Option<Value<'ctx>>, c: Value<'ctx>) -> Value<'ctx> {
        match g {
            Some(g) => self.bld.select(g, c, self.f, "ifc.and"),
            None => c,
        }
    }

    fn or(&self, a: Value<'ctx>, b: Value<'ctx>) -> Value<'ctx> {
        self.bld.select(a, self.t, b, "ifc.or")
    }

    fn not(&self, c: Value<'ctx>) -> Value<'ctx> {
        self.bld.icmp(LLVMIntPredicate::LLVMIntEQ, c, self.f, "ifc.not")
    }

    /// The value of predicate `p`: the OR of its K edges, whose blocks come
    /// first in topological order; `None` for TRUE.
    fn guard(&mut self, p: PredId) -> Option<Value<'ctx>> {
        if p == PredId::TRUE {
            return None;
        }
        if let Some(&v) = self.pred.get(&p) {
            return Some(v);
        }
        let k = self.region.preds.k(p).to_vec();
        let mut v = self.edge(k[0].from, k[0].to);
        for e in &k[1..] {
            let term = self.edge(e.from, e.to);
            v = self.or(term, v);
        }
        self.pred.insert(p, v);
        Some(v)
    }

    /// The predicate of edge `a → s`.
    fn edge(&mut self, a: BlockId, s: BlockId) -> Value<'ctx> {
        if let Some(&v) = self.edge.get(&(a, s)) {
            return v;
        }
        let g = self.guard(self.region.preds.r(a));
        let v = match self.branches.get(&a).expect("a branch of the region") {
            Branch::Jump => g.unwrap_or(self.t),
            Branch::Cond { on_true, on_false, .. } if on_true == on_false => g.unwrap_or(self.t),
            &Branch::Cond { c, on_true, .. } if s == on_true => self.and(g, c),
            &Branch::Cond { c, .. } => {
                let n = self.not(c);
                self.and(g, n)
            }
            Branch::Switch { default, cases, .. } => {
                let default = *default;
                let picked: Vec<usize> =
                    (0..cases.len()).filter(|&k| if s == default { cases[k].1 != default } else { cases[k].1 == s }).collect();
                let mut any: Option<Value<'ctx>> = None;
                for k in picked {
                    let eq = self.case(a, k);
                    any = Some(match any {
                        Some(prev) => self.or(eq, prev),
                        None => eq,
                    });
                }
                match (any, s == default) {
                    (None, _) => g.unwrap_or(self.t),
                    (Some(c), false) => self.and(g, c),
                    (Some(c), true) => {
                        let n = self.not(c);
                        self.and(g, n)
                    }
                }
            }
        };
        self.edge.insert((a, s), v);
        v
    }

    /// The value of a phi at `to` (or of stores sunk into it) from its
    /// select tree (`select_tree.rs`): one `select` per branch whose arms
    /// differ, conditions read from the branches already linearised (every
    /// block of the tree comes before `to`).
    fn phi(&mut self, entries: &[(Value<'ctx>, BlockId)], to: BlockId) -> Value<'ctx> {
        let mut scope = vec![self.region.head];
        scope.extend(&self.region.body);
        let arms = |b: BlockId| self.region.arms[&b].clone();
        match select_tree::build(&scope, &arms, to, entries) {
            Some(t) => self.tree_value(&t),
            None => entries[0].0,
        }
    }

    /// A phi's value: its chain when the plan chose one, else its tree.
    fn phi_value(&mut self, phi: Inst<'ctx>, entries: &[(Value<'ctx>, BlockId)], to: BlockId) -> Value<'ctx> {
        let Some(order) = self.region.chains.get(&phi) else { return self.phi(entries, to) };
        let ordered: Vec<(Value<'ctx>, BlockId)> =
            order.iter().map(|&a| *entries.iter().find(|e| e.1 == a).expect("the planned entries")).collect();
        let (mut v, _) = ordered[ordered.len() - 1];
        for &(val, from) in ordered[..ordered.len() - 1].iter().rev() {
            let c = self.edge(from, to);
            v = self.bld.select(c, val, v, "ifc.phi");
        }
        v
    }

    /// The tree's nodes the root reads, each made once (arms come first).
    fn tree_value(&mut self, t: &Tree<Value<'ctx>>) -> Value<'ctx> {
        let live = t.live();
        let mut vals: Vec<Option<Value<'ctx>>> = vec![None; t.nodes.len()];
        let val = |vals: &[Option<Value<'ctx>>], k: usize| vals[k].expect("arms are made before their node");
        for (k, node) in t.nodes.iter().enumerate() {
            if !live[k] {
                continue;
            }
            vals[k] = Some(match node {
                Node::Leaf(v) => *v,
                &Node::Cond { at, on_true, on_false } => {
                    let Some(&Branch::Cond { c, .. }) = self.branches.get(&at) else { unreachable!("a conditional branch before the phi") };
                    self.bld.select(c, val(&vals, on_true), val(&vals, on_false), "ifc.phi")
                }
                Node::Switch { at, default, cases } => {
                    let mut v = val(&vals, *default);
                    for &(case, arm) in cases {
                        let eq = self.case(*at, case);
                        v = self.bld.select(eq, val(&vals, arm), v, "ifc.phi");
                    }
                    v
                }
            });
        }
        val(&vals, t.root)
    }

    /// `x == case_k` of the switch ending block `at`, made once.
    fn case(&mut self, at: BlockId, k: usize) -> Value<'ctx> {
        if let Some(&v) = self.cases.get(&(at, k)) {
            return v;
        }
        let Some(Branch::Switch { v, cases, .. }) = self.branches.get(&at) else { unreachable!("a switch before the phi") };
        let (v, case) = (*v, cases[k].0);
        let eq = self.bld.icmp(LLVMIntPredicate::LLVMIntEQ, v, case, "ifc.case");
        self.cases.insert((at, k), eq);
        eq
    }
}

/// A phi's entries with one per predecessor block.
pub(super) fn phi_entries<'ctx>(id: &dyn Fn(BasicBlock<'ctx>) -> BlockId, phi: Inst<'ctx>) -> Vec<(Value<'ctx>, BlockId)> {
    let mut out: Vec<(Value<'ctx>, BlockId)> = Vec::new();
    for (v, bb) in phi.incoming() {
        let b = id(bb);
        if !out.iter().any(|e| e.1 == b) {
            out.push((v, b));
        }
    }
    out
}

pub(super) fn convert_region<'ctx>(bl: &Blocks<'ctx>, r: &Region<'ctx>, guarding: &mut Guarding<'ctx>, target: Target) {
    let head = bl.block(r.head);
    let head_term = terminator(head).expect("a branch");
    let i1 = head_term.value().ty().int_in_context_of(1);
    let mut e = Emit {
        region: r,
        bld: Builder::new(head_term.value()),
        t: i1.const_int(1),
        f: i1.const_int(0),
        branches: HashMap::new(),
        edge: HashMap::new(),
        pred: HashMap::new(),
        cases: HashMap::new(),
    };
    e.branches.insert(r.head, branch_kind(&|bb| bl.id(bb), head).expect("checked"));
    head_term.erase();
    e.bld.position_at_end(head);
    // The sunk stores, read as their arms are linearised (operands as the
    // moves before them left them) and made after the last arm.
    let mut sunk: HashMap<Inst<'ctx>, (usize, usize)> = HashMap::new();
    for (gi, g) in r.sinks.iter().enumerate() {
        for (k, row) in g.stores.iter().enumerate() {
            sunk.extend(row.iter().map(|&s| (s, (gi, k))));
        }
    }
    let mut read: Vec<Vec<SunkStore<'ctx>>> = r.sinks.iter().map(|g| vec![SunkStore::default(); g.stores.len()]).collect();
    // The straight-line code goes to the head, then to each island's join
    // (`islands.rs`): `cur`, the last of `chain`.
    let mut cur = head;
    let mut chain = vec![head];
    for &b in &r.body {
        let bb = bl.block(b);
        let at_join = r.islands.iter().any(|isl| isl.join == b);
        if at_join {
            cur = bb;
            chain.push(bb);
            e.bld.position_at_end(cur);
        }
        // Read before a join's instructions move past its terminator.
        let mut kind = Some(branch_kind(&|bb| bl.id(bb), bb).expect("checked"));
        let insts: Vec<Inst<'ctx>> = instructions(bb).collect();
        for i in insts {
            if let Some(&(gi, k)) = sunk.get(&i) {
                read[gi][k].read(i, b);
                i.erase();
            } else if i.is_phi() && at_join {
                // An island's join keeps its phis: the island is entered
                // from `cur` and its blocks stay.
            } else if i.is_phi() {
                let v = e.phi_value(i, &phi_entries(&|bb| bl.id(bb), i), b);
                i.value().replace_all_uses_with(v);
                i.erase();
            } else if i.is_terminator() {
                match r.islands.iter().find(|isl| isl.head == b) {
                    Some(island) => {
                        e.branches.insert(b, Branch::Jump);
                        keep_island(&mut e, bl, island, i, cur, guarding, target);
                    }
                    None => {
                        e.branches.insert(b, kind.take().expect("one terminator"));
                        i.erase();
                    }
                }
            } else {
                let guarded = classify(i, target).expect("checked") != Guard::None;
                let g = if guarded { e.guard(r.preds.r(b)) } else { None };
                move_guarded(&mut e.bld, i, g, cur, guarding, target);
            }
        }
        for (g, stores) in r.sinks.iter().zip(&read) {
            if g.from.last() != Some(&b) {
                continue;
            }
            let guard = e.guard(r.preds.r(g.guard_block));
            for st in stores {
                let v = e.phi(&st.values, g.to);
                let ptr = st.ptr.expect("every arm's store was read");
                let new = e.bld.store(v, ptr);
                if let Some(a) = st.align {
                    new.set_alignment(a);
                }
                move_guarded(&mut e.bld, new, guard, cur, guarding, target);
            }
        }
    }
    // The join's phis: entries from the region become one from the head.
    let join = bl.block(r.join);
    let phis: Vec<Inst<'ctx>> = instructions(join).take_while(|i| i.is_phi()).collect();
    let mut jb = Builder::new(Value::of_block(join));
    for phi in phis {
        let (inside, outside): (Vec<_>, Vec<_>) =
            phi_entries(&|bb| bl.id(bb), phi).into_iter().partition(|&(_, a)| a == r.head || r.body.contains(&a));
        let v = e.phi_value(phi, &inside, r.join);
        if outside.is_empty() {
            // The head is the join's only way in: the value itself.
            phi.value().replace_all_uses_with(v);
            phi.erase();
            continue;
        }
        jb.position_before(phi);
        let new = jb.phi(phi.ty(), "");
        let mut entries: Vec<(Value<'ctx>, BasicBlock<'ctx>)> = outside.iter().map(|&(val, a)| (val, bl.block(a))).collect();
        entries.push((v, cur));
        new.add_incoming(&entries);
        let name = phi.value().name_bytes();
        phi.value().replace_all_uses_with(new.value());
        phi.erase();
        new.value().set_name(&name);
    }
    e.bld.br(join);
    // A branch condition no select tree or predicate read (an inner branch
    // with equal arms) is dead now.
    // guard=branch puts its branches in later, on guards that may be such
    // conditions: those stay.
    let none = BTreeSet::new();
    let pending = match guarding {
        Guarding::Branch { guards, .. } => &*guards,
        Guarding::Scratch(_) => &none,
    };
    let conditions = e.branches.values().filter_map(|br| match br {
        Branch::Cond { c, .. } => Some(*c),
        Branch::Switch { v, .. } => Some(*v),
        Branch::Jump => None,
    });
    erase_dead(conditions.collect(), &chain, pending);
    for &b in &r.body {
        if !r.islands.iter().any(|isl| isl.join == b) {
            delete_block(bl.block(b));
        }
    }
}

/// Keeps an island (`islands.rs`): its head's branch `term`, whose block was
/// linearised, moves to the end of `cur`; its interior stays, each
/// instruction that needs a guard guarded in place by the head's predicate
/// (made in `cur`, before the branch).
fn keep_island<'ctx>(
    e: &mut Emit<'_, 'ctx>,
    bl: &Blocks<'ctx>,
    island: &Island,
    term: Inst<'ctx>,
    cur: BasicBlock<'ctx>,
    guarding: &mut Guarding<'ctx>,
    target: Target,
) {
    let needs = |i: Inst<'ctx>| !i.is_phi() && !i.is_terminator() && classify(i, target).expect("checked") != Guard::None;
    let guarded = island.interior.iter().any(|&s| instructions(bl.block(s)).any(needs));
    let g = if guarded { e.guard(e.region.preds.r(island.head)) } else { None };
    let hb = bl.block(island.head);
    term.move_to_end(cur);
    for succ in term.successors() {
        retarget_phis(succ, hb, cur);
    }
    for &s in &island.interior {
        let sb = bl.block(s);
        let t = terminator(sb).expect("a branch");
        let mut bld = Builder::new(t.value());
        bld.position_at_end(sb);
        // Each instruction goes to the end, after the terminator for now,
        // with what its guard makes before it; the terminator goes last.
        let insts: Vec<Inst<'ctx>> = instructions(sb).filter(|i| !i.is_phi() && !i.is_terminator()).collect();
        for i in insts {
            move_guarded(&mut bld, i, if needs(i) { g } else { None }, sb, guarding, target);
        }
        t.move_to_end(sb);
    }
}

/// A computation without side effects that may go when unused.
pub(super) fn is_erasable(i: Inst<'_>) -> bool {
    use LLVMOpcode::*;
    !matches!(
        i.opcode(),
        LLVMLoad | LLVMStore | LLVMCall | LLVMAlloca | LLVMPHI | LLVMFence | LLVMAtomicRMW | LLVMAtomicCmpXchg | LLVMVAArg
    ) && !i.is_terminator()
}

/// Erases the values of `cands` that are unused computations of `head`
/// with no side effect, then their operands the same way, never one of
/// `keep`. A value is erased only through the set, so no erased value is
/// looked at again.
pub(super) fn erase_dead<'ctx>(mut cands: BTreeSet<Value<'ctx>>, blocks: &[BasicBlock<'ctx>], keep: &BTreeSet<Value<'ctx>>) {
    let dead = |v: Value<'ctx>| {
        !keep.contains(&v) && v.as_inst().is_some_and(|i| is_erasable(i) && blocks.contains(&i.block()) && v.uses().is_empty())
    };
    while let Some(v) = cands.iter().copied().find(|&v| dead(v)) {
        cands.remove(&v);
        let i = v.as_inst().expect("an instruction");
        cands.extend(i.operands());
        i.erase();
    }
}

/// A sunk store as its arms' copies are read: the value per arm, the
/// pointer (one value), the smallest alignment.
#[derive(Clone, Default)]
pub(super) struct SunkStore<'ctx> {
    values: Vec<(Value<'ctx>, BlockId)>,
    ptr: Option<Value<'ctx>>,
    align: Option<u32>,
}

impl<'ctx> SunkStore<'ctx> {
    fn read(&mut self, store: Inst<'ctx>, arm: BlockId) {
        self.values.push((store.operand(0), arm));
        self.ptr = Some(store.operand(1));
        let a = store.value().alignment();
        if a > 0 {
            self.align = Some(self.align.map_or(a, |b| b.min(a)));
        }
    }
}

/// Merges each converted region's join into its head when the head is now
/// its only predecessor (one `br` fewer per region). Heads are visited in
/// reverse post-order, so a join that heads another region is merged after
/// that region was converted, and chains merge into the first head.
pub(super) fn merge_joins<'ctx>(bl: &Blocks<'ctx>, regions: &[Region<'ctx>]) {
    let cfg = &bl.cfg;
    let mut into: HashMap<BlockId, BlockId> = HashMap::new();
    let mut order: Vec<&Region<'ctx>> = regions.iter().collect();
    order.sort_by_key(|r| cfg.rpo_position(r.head));
    for r in order {
        let only_from_region = cfg.preds(r.join).iter().all(|&p| p == r.head || r.body.contains(&p));
        if !only_from_region || r.join == cfg.entry() {
            continue;
        }
        let tail = r.tail();
        let head = *into.get(&tail).unwrap_or(&tail);
        let (hb, jb) = (bl.block(head), bl.block(r.join));
        terminator(hb).expect("the head's br").erase();
        let insts: Vec<Inst<'ctx>> = instructions(jb).collect();
        for i in insts {
            i.move_to_end(hb);
        }
        // The join's successors now come from the head: their phis say so.
        for succ in terminator(hb).map(|t| t.successors()).unwrap_or_default() {
            retarget_phis(succ, jb, hb);
        }
        delete_block(jb);
        into.insert(r.join, head);
    }
}

/// Rebuilds the phis of `bb` with entries from `from` coming from `to`
/// (the C API cannot set an entry's block).
pub(super) fn retarget_phis<'ctx>(bb: BasicBlock<'ctx>, from: BasicBlock<'ctx>, to: BasicBlock<'ctx>) {
    let phis: Vec<Inst<'ctx>> = instructions(bb).take_while(|i| i.is_phi()).collect();
    let mut b = Builder::new(Value::of_block(bb));
    for phi in phis {
        let entries: Vec<(Value<'ctx>, BasicBlock<'ctx>)> =
            phi.incoming().into_iter().map(|(v, p)| (v, if p == from { to } else { p })).collect();
        if !entries.iter().zip(phi.incoming()).any(|(a, b)| a.1 != b.1) {
            continue;
        }
        b.position_before(phi);
        let new = b.phi(phi.ty(), "");
        new.add_incoming(&entries);
        let name = phi.value().name_bytes();
        phi.value().replace_all_uses_with(new.value());
        phi.erase();
        if !name.is_empty() {
            new.value().set_name(&name);
        }
    }
}

/// Moves `i` to the end of `head`; under a guard, divisions get a safe
/// divisor and accesses the scratch slot when the guard is false (or are
/// noted for [`branch_around`]).
pub(super) fn move_guarded<'ctx>(
    bld: &mut Builder<'ctx>,
    i: Inst<'ctx>,
    g: Option<Value<'ctx>>,
    head: BasicBlock<'ctx>,
    guarding: &mut Guarding<'ctx>,
    target: Target,
) {
    let guard = match g {
        Some(g) => (g, classify(i, target).expect("checked")),
        None => {
            i.move_to_end(head);
            return;
        }
    };
    match guard {
        (_, Guard::None) => i.move_to_end(head),
        (g, Guard::Divisor) => {
            let d = i.operand(1);
            let safe = bld.select(g, d, d.ty().const_int(1), "ifc.div");
            i.move_to_end(head);
            i.set_operand(1, safe);
        }
        (g, Guard::Address(idx)) => {
            let scratch = match guarding {
                Guarding::Branch { accesses, guards } => {
                    i.move_to_end(head);
                    accesses.push((i, g));
                    guards.insert(g);
                    return;
                }
                Guarding::Scratch(scratch) => scratch.expect("a scratch slot for guarded accesses"),
            };
            let p = i.operand(idx);
            let generic =
                if p.ty().address_space() == Some(target.generic) { p } else { bld.addrspace_cast(p, scratch.ty(), "ifc.generic") };
            let at = bld.select(g, generic, scratch, "ifc.addr");
            let align = i.value().alignment();
            let new = if i.opcode() == LLVMOpcode::LLVMStore { bld.store(i.operand(0), at) } else { bld.load(i.ty(), at, "") };
            if align > 0 {
                new.set_alignment(align);
            }
            let name = i.value().name_bytes();
            if !i.is_void() {
                i.value().replace_all_uses_with(new.value());
            }
            i.erase();
            if !name.is_empty() {
                new.value().set_name(&name);
            }
        }
    }
}

/// `guard=branch`: puts the access `i` in a block of its own, entered when
/// `g` holds; a load's value is a phi with `poison` on the skipping edge
/// (every use of it is guarded by `g` or selected away where `g` is false).
///
/// ```text
///   bb: …; g; i; rest          bb:  …; g; br g, do, cont
///                     ==>      do:  i; br cont
///                              cont: v = phi [i, do], [poison, bb]; rest
/// ```
pub(super) fn branch_around<'ctx>(i: Inst<'ctx>, g: Value<'ctx>) {
    let bb = i.block();
    let ctx = bb.get_context();
    let cont = ctx.insert_basic_block_after(bb, "ifc.cont");
    let act = ctx.insert_basic_block_after(bb, "ifc.do");
    let rest: Vec<Inst<'ctx>> = instructions(bb).skip_while(|&x| x != i).skip(1).collect();
    for x in rest {
        x.move_to_end(cont);
    }
    for succ in terminator(cont).map(|t| t.successors()).unwrap_or_default() {
        retarget_phis(succ, bb, cont);
    }
    i.move_to_end(act);
    let mut bld = Builder::new(i.value());
    bld.position_at_end(act);
    bld.br(cont);
    bld.position_at_end(bb);
    bld.cond_br(g, act, cont);
    if i.is_void() {
        return;
    }
    let first: Inst<'ctx> = cont.get_first_instruction().expect("the moved terminator").into();
    bld.position_before(first);
    let phi = bld.phi(i.ty(), "ifc.ld");
    i.value().replace_all_uses_with(phi.value());
    phi.add_incoming(&[(i.value(), act), (i.ty().poison(), bb)]);
}
