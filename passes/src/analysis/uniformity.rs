//! Uniformity (divergence) analysis: which values and branches can differ
//! between the work-items of one work-group.
//!
//! Follows the design of LLVM's `GenericUniformityAnalysis` (Karrenberg &
//! Hack, "Whole-function vectorization", CGO 2011; Rosemann et al., "An
//! abstract interpretation of divergence", for sync dependence), on the cycle
//! hierarchy of `cycles.rs`, so irreducible control flow is handled by the
//! same rules as loops:
//!
//! - **Sources**: the work-item id builtins of both dialects and every
//!   per-lane intrinsic (`kernel_model`), atomics, calls we cannot see into,
//!   loads from private memory that some work-item may have written
//!   differently (`private_memory.rs`: a load is uniform only if every write
//!   that may reach it stored a uniform value at a uniform address under
//!   uniform control), and the arguments of functions that are not kernels.
//! - **Data dependence**: an instruction using a divergent value is divergent.
//! - **Sync dependence**: a divergent branch at x makes the phis at its *join
//!   blocks* divergent: blocks two paths from different successors of x first
//!   meet at. Labels, one per successor, are carried through the nodes of the
//!   smallest cycle around x (the function if none): its blocks and its
//!   nested cycles contracted to one node each, edges into its header set
//!   apart. Nodes are visited in reverse post-order of their headers, which
//!   `cycles.rs` shows to be a topological order of that graph; a node reached
//!   with two labels is a join and passes on a label of its own.
//! - **Temporal divergence**: if the labels leave the cycle, work-items can
//!   leave it in different iterations. The cycle then has a divergent exit:
//!   every value defined in it is divergent where it is used outside (a branch
//!   on such a value included), each exit block reached from two exiting blocks
//!   is a join, and the cycle, contracted, acts as a divergent branch whose
//!   successors are its exit blocks, one level up: exits that meet later are
//!   joins there (a loop with a uniform and a divergent exit, a break out of
//!   two loops). Labels that only wrap into the header make it a join.
//! - A cycle with several entries entered by two labels has every block a
//!   join and every value defined in it divergent: work-items run through it
//!   out of step.
//!
//! Blocks that some but not all work-items run (those the labels pass
//! through, and all blocks of a cycle with a divergent exit) are *divergently
//! controlled*; a write to private memory there makes the object's loads
//! divergent. A phi whose incoming values are all the same value is never
//! made divergent by sync dependence alone. Values are uniform within a
//! work-group: group ids and sizes are uniform, local and global ids are not.
//!
//! Soundness is checked by execution: `simt-check-uniformity` makes the
//! emulator verify at run time that every value called uniform is the same in
//! all work-items that execute it together.

use crate::analysis::cycles::{CycleId, CycleInfo, Node};
use crate::analysis::private_memory::PrivateMemory;
use crate::cfg::BlockId;
use crate::function_cfg::FunctionCfg;
use crate::ir::{Inst, Value};
use crate::kernel_model::{builtin_of, is_divergent_intrinsic, is_kernel};
use llvm_sys::prelude::LLVMValueRef;
use llvm_sys::LLVMOpcode;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};

#[derive(Debug, Default, PartialEq, Eq)]
pub struct Uniformity {
    /// Identities of the divergent values (never dereferenced).
    divergent: HashSet<LLVMValueRef>,
    divergent_branches: Vec<BlockId>,
    joins: Vec<BlockId>,
    divergent_loop_headers: Vec<BlockId>,
}

impl Uniformity {
    pub fn compute(fc: &FunctionCfg<'_>, cycles: &CycleInfo) -> Uniformity {
        let private = PrivateMemory::compute(fc.function);
        let mut state = State {
            fc,
            ci: cycles,
            result: Uniformity::default(),
            work: Vec::new(),
            branches: Vec::new(),
            joined: HashSet::new(),
            lifted: HashSet::new(),
            controlled: vec![false; fc.cfg.len()],
            divergent_objects: vec![false; private.objects.len()],
            private,
        };
        state.seed();
        state.propagate();
        let mut result = state.result;
        result.divergent_branches.sort();
        result.joins.sort();
        result.divergent_loop_headers.sort();
        result
    }

    /// Whether the value (instruction or argument) can differ between work-items.
    pub fn is_divergent<'ctx>(&self, v: impl Into<Value<'ctx>>) -> bool {
        self.divergent.contains(&v.into().raw())
    }

    /// The same by raw handle, for code not yet on the `ir` layer (the
    /// handle is only compared, never dereferenced).
    pub fn is_divergent_raw(&self, v: LLVMValueRef) -> bool {
        self.divergent.contains(&v)
    }

    /// Blocks ending in a branch whose direction can differ between work-items.
    pub fn divergent_branches(&self) -> &[BlockId] {
        &self.divergent_branches
    }

    pub fn is_divergent_branch(&self, b: BlockId) -> bool {
        self.divergent_branches.binary_search(&b).is_ok()
    }

    /// Blocks where work-items that went different ways meet again.
    pub fn join_blocks(&self) -> &[BlockId] {
        &self.joins
    }

    /// Headers of cycles that work-items can leave in different iterations.
    pub fn divergent_loop_headers(&self) -> &[BlockId] {
        &self.divergent_loop_headers
    }
}

struct State<'a, 'ctx> {
    fc: &'a FunctionCfg<'ctx>,
    ci: &'a CycleInfo,
    result: Uniformity,
    /// Divergent values whose users are still to be visited.
    work: Vec<Value<'ctx>>,
    /// Divergent branches still to be analysed.
    branches: Vec<BlockId>,
    joined: HashSet<BlockId>,
    /// Cycles found to have a divergent exit (handled once each).
    lifted: HashSet<CycleId>,
    /// Blocks that some work-items may run and others not.
    controlled: Vec<bool>,
    private: PrivateMemory<'ctx>,
    divergent_objects: Vec<bool>,
}

/// The labels that reached a node: the first, and whether another did.
#[derive(Clone, Copy)]
struct Arrivals {
    first: Node,
    many: bool,
}

impl Arrivals {
    fn add(slot: &mut Option<Arrivals>, label: Node) {
        match slot {
            None => *slot = Some(Arrivals { first: label, many: false }),
            Some(a) => a.many |= a.first != label,
        }
    }
}

impl<'ctx> State<'_, 'ctx> {
    fn mark(&mut self, v: impl Into<Value<'ctx>>) {
        let v: Value<'ctx> = v.into();
        if let Some(t) = v.as_inst().filter(|i| i.is_terminator()) {
            if t.is_conditional_terminator() {
                if let Some(b) = self.fc.id(t.block()) {
                    if self.result.divergent.insert(v.raw()) {
                        self.result.divergent_branches.push(b);
                        self.branches.push(b);
                    }
                }
            } else if !t.is_void() && self.result.divergent.insert(v.raw()) {
                // invoke results follow their operands.
                self.work.push(v);
            }
            return;
        }
        // Void users (stores) are marked too, as LLVM does: they write
        // work-item dependent data.
        if self.result.divergent.insert(v.raw()) {
            self.work.push(v);
            if let Some(i) = v.as_inst() {
                let objects = self.private.objects_written_by(i).to_vec();
                for o in objects {
                    self.divergent_object(o);
                }
            }
        }
    }

    /// Private object `o` may hold different data in different work-items:
    /// everything that reads it is divergent.
    fn divergent_object(&mut self, o: usize) {
        if std::mem::replace(&mut self.divergent_objects[o], true) {
            return;
        }
        let readers = self.private.objects[o].readers.clone();
        for r in readers {
            self.mark(r);
        }
    }

    /// Block `b` may run in some work-items and not others: its private
    /// writes leave the objects divergent.
    fn control(&mut self, b: BlockId) {
        if std::mem::replace(&mut self.controlled[b.index()], true) {
            return;
        }
        for inst in crate::ir::instructions(self.fc.block(b)) {
            let objects = self.private.objects_written_by(inst).to_vec();
            for o in objects {
                self.divergent_object(o);
            }
        }
    }

    fn seed(&mut self) {
        let f = self.fc.function;
        if !is_kernel(f) {
            for p in crate::ir::parameters(f) {
                self.mark(p);
            }
        }
        for &bb in self.fc.blocks() {
            for inst in crate::ir::instructions(bb) {
                if is_source(inst) {
                    self.mark(inst);
                }
            }
        }
        let sources: Vec<Inst<'ctx>> = self.private.unknown_loads.iter().chain(&self.private.divergent_values).copied().collect();
        for v in sources {
            self.mark(v);
        }
        for o in 0..self.private.objects.len() {
            if self.private.objects[o].escaped {
                self.divergent_object(o);
            }
        }
    }

    fn propagate(&mut self) {
        loop {
            if let Some(v) = self.work.pop() {
                for user in v.users() {
                    self.mark(user);
                }
            } else if let Some(b) = self.branches.pop() {
                self.divergent_branch(b);
            } else {
                break;
            }
        }
    }

    /// Sync and temporal divergence caused by a divergent branch at `x`.
    fn divergent_branch(&mut self, x: BlockId) {
        if !self.fc.cfg.is_reachable(x) {
            return;
        }
        let mut level = self.ci.innermost(x);
        let mut origin = Node::Block(x);
        let mut targets: Vec<BlockId> = self.fc.cfg.succs(x).to_vec();
        loop {
            let escaped = self.propagate_in(level, origin, &targets);
            let Some(c) = level else { break };
            if !escaped || !self.lifted.insert(c) {
                // Either every work-item stays in this iteration of `c`, or
                // `c`'s divergent exit was already carried up.
                break;
            }
            self.divergent_exit(c);
            let cycle = self.ci.get(c);
            origin = Node::Cycle(c);
            targets = cycle.exits.clone();
            level = cycle.parent;
        }
    }

    /// Carries one label per target from `origin` through the nodes of
    /// `level` (see the header); returns whether a label left the level.
    fn propagate_in(&mut self, level: Option<CycleId>, origin: Node, targets: &[BlockId]) -> bool {
        let ci = self.ci;
        let cfg = &self.fc.cfg;
        let header = level.map(|c| ci.get(c).header);
        let key = |n: Node| match n {
            Node::Block(b) => cfg.rpo_position(b).unwrap_or(usize::MAX),
            Node::Cycle(c) => cfg.rpo_position(ci.get(c).header).unwrap_or(usize::MAX),
        };
        let mut arrivals: HashMap<Node, Option<Arrivals>> = HashMap::new();
        let mut wrapped: Option<Arrivals> = None;
        let mut escaped = false;
        let mut frontier: BinaryHeap<Reverse<(usize, u32, bool)>> = BinaryHeap::new();
        let mut done: HashSet<Node> = HashSet::new();
        // A node all of whose predecessors in the level are done can take no
        // further label: it need not wait for its turn in reverse post-order.
        // First in, first out, so that a path that ends at once (a divergent
        // early return) is done with first and the frontier can collapse.
        let mut ready_now: VecDeque<Node> = VecDeque::new();
        let mut pending = 0usize;
        let encode = |n: Node| match n {
            Node::Block(b) => (b.0, false),
            Node::Cycle(c) => (c.0, true),
        };
        let decode = |(i, is_cycle): (u32, bool)| if is_cycle { Node::Cycle(CycleId(i)) } else { Node::Block(BlockId(i)) };

        let entries_of = |n: Node| -> Vec<BlockId> {
            match n {
                Node::Block(b) => vec![b],
                Node::Cycle(c) => ci.get(c).entries.clone(),
            }
        };
        let is_ready = |n: Node, done: &HashSet<Node>| {
            entries_of(n).into_iter().all(|e| {
                cfg.preds(e).iter().all(|&p| {
                    if !cfg.is_reachable(p) || !ci.contains(level, p) {
                        return true;
                    }
                    let pn = ci.node_at(level, p);
                    pn == n || pn == origin || done.contains(&pn)
                })
            })
        };

        macro_rules! send {
            ($t:expr, $label:expr) => {{
                let t: BlockId = $t;
                if !ci.contains(level, t) {
                    escaped = true;
                } else if Some(t) == header {
                    Arrivals::add(&mut wrapped, $label);
                } else {
                    let n = ci.node_at(level, t);
                    if n != origin {
                        let slot = arrivals.entry(n).or_insert(None);
                        let first = slot.is_none();
                        Arrivals::add(slot, $label);
                        if first {
                            pending += 1;
                            let (i, c) = encode(n);
                            frontier.push(Reverse((key(n), i, c)));
                            if is_ready(n, &done) {
                                ready_now.push_back(n);
                            }
                        }
                    }
                }
            }};
        }

        for &t in targets {
            send!(t, Node::Block(t));
        }
        loop {
            let n = match ready_now.pop_front() {
                Some(n) => n,
                None => match frontier.pop() {
                    Some(Reverse((_, i, c))) => decode((i, c)),
                    None => break,
                },
            };
            if !done.insert(n) {
                continue;
            }
            pending -= 1;
            let a = arrivals[&n].expect("queued nodes have a label");
            let own = if a.many {
                self.join_node(n);
                n
            } else {
                a.first
            };
            if pending == 0 && wrapped.is_none() {
                // Every path from the origin that stays in this iteration goes
                // through n: from here on the work-items still in it run
                // together (those that left are the caller's business).
                break;
            }
            let outs: Vec<BlockId> = match n {
                Node::Block(b) => {
                    self.control(b);
                    cfg.succs(b).to_vec()
                }
                Node::Cycle(c) => {
                    for &b in &ci.get(c).blocks {
                        self.control(b);
                    }
                    ci.get(c).exits.clone()
                }
            };
            for t in outs {
                send!(t, own);
            }
        }
        if let (Some(h), Some(w)) = (header, wrapped) {
            if w.many {
                self.add_join(h);
            }
        }
        escaped
    }

    /// Cycle `c` can be left by work-items in different iterations.
    fn divergent_exit(&mut self, c: CycleId) {
        let ci = self.ci;
        let cycle = ci.get(c);
        self.result.divergent_loop_headers.push(cycle.header);
        for &b in &cycle.blocks {
            self.control(b);
        }
        for &e in &cycle.exits {
            let exiting = self.fc.cfg.preds(e).iter().filter(|&&p| ci.contains(Some(c), p)).count();
            if exiting >= 2 {
                self.add_join(e);
            }
        }
        // Temporal divergence: uses outside of values defined inside.
        for &b in &cycle.blocks {
            for inst in crate::ir::instructions(self.fc.block(b)) {
                for user in inst.users() {
                    let outside = self.fc.id(user.block()).is_some_and(|ub| !ci.contains(Some(c), ub));
                    if outside {
                        self.mark(user);
                    }
                }
            }
        }
    }

    /// Node `n` was reached by two labels.
    fn join_node(&mut self, n: Node) {
        match n {
            Node::Block(b) => self.add_join(b),
            Node::Cycle(c) => {
                let cycle = self.ci.get(c);
                if cycle.is_reducible() {
                    self.add_join(cycle.header);
                    return;
                }
                // Work-items entered at different entries run through the
                // cycle out of step: nothing defined in it is uniform.
                for &b in &cycle.blocks {
                    self.add_join(b);
                    for inst in crate::ir::instructions(self.fc.block(b)) {
                        if !inst.is_void() || inst.is_terminator() {
                            self.mark(inst);
                        }
                    }
                }
            }
        }
    }

    fn add_join(&mut self, b: BlockId) {
        if !self.joined.insert(b) {
            return;
        }
        self.result.joins.push(b);
        for inst in crate::ir::instructions(self.fc.block(b)) {
            if !inst.is_phi() {
                break;
            }
            let incoming = inst.incoming_values();
            if incoming.iter().any(|&v| v != incoming[0]) {
                self.mark(inst);
            }
        }
    }
}

/// Whether an instruction's result can differ between work-items whatever its
/// operands are. Loads are judged by the private-memory rule instead.
fn is_source(i: Inst<'_>) -> bool {
    match i.opcode() {
        LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg | LLVMOpcode::LLVMVAArg => true,
        LLVMOpcode::LLVMLandingPad | LLVMOpcode::LLVMCatchPad | LLVMOpcode::LLVMCleanupPad => true,
        LLVMOpcode::LLVMLoad => i.is_volatile() || i.is_atomic(),
        LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr => {
            if let Some(b) = builtin_of(i) {
                return b.is_divergent();
            }
            match i.intrinsic_name() {
                Some(name) => is_divergent_intrinsic(&name),
                // Unknown code may read the work-item id or private state.
                None => !i.is_void(),
            }
        }
        _ => false,
    }
}
