//! Uniformity (divergence) analysis: which values and branches can differ
//! between the work-items of one work-group.
//!
//! Follows the design of LLVM's `UniformityAnalysis` (Karrenberg & Hack,
//! "Whole-function vectorization", CGO 2011; Rosemann et al., "An abstract
//! interpretation of divergence", for sync dependence):
//!
//! - **Sources**: the work-item id builtins of both dialects (`kernel_model`),
//!   atomics, calls we cannot see into, loads from private memory (an
//!   `alloca`'s contents differ per work-item), and the arguments of functions
//!   that are not kernels (their callers may pass anything).
//! - **Data dependence**: an instruction using a divergent value is divergent.
//! - **Sync dependence**: a divergent branch at x makes the phis at its *join
//!   blocks* divergent: blocks reached from two different successors of x by
//!   disjoint paths before the paths meet (found by propagating one label per
//!   successor in reverse post-order; a block reached with two labels is a
//!   join). The immediate post-dominator of x is the last possible join.
//! - **Temporal divergence**: when the paths from a divergent branch can
//!   leave a cycle, or wrap into its next iteration, before they meet,
//!   work-items leave the cycle in different iterations: its exit blocks
//!   reached by two divergent edges are joins, and every value defined in the
//!   cycle is divergent where it is used outside it. Irreducible cycles are
//!   treated the same way through their entry blocks.
//!
//! A phi whose incoming values are all the same value is never made divergent
//! by sync dependence alone. Values are uniform within a work-group: group ids
//! and sizes are uniform, local and global ids are not.

use crate::analysis::loops::LoopInfo;
use crate::analysis::post_dominators::PostDomTree;
use crate::cfg::BlockId;
use crate::function_cfg::FunctionCfg;
use crate::kernel_model::{builtin_of, is_kernel};
use inkwell::values::AsValueRef;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};

#[derive(Debug, Default)]
pub struct Uniformity {
    divergent: HashSet<LLVMValueRef>,
    divergent_branches: Vec<BlockId>,
    joins: Vec<BlockId>,
    divergent_loop_headers: Vec<BlockId>,
}

impl Uniformity {
    pub fn compute(fc: &FunctionCfg<'_>, pdt: &PostDomTree, li: &LoopInfo) -> Uniformity {
        let mut state = State { fc, pdt, li, result: Uniformity::default(), work: Vec::new(), joined: HashSet::new() };
        state.seed();
        state.propagate();
        let mut result = state.result;
        result.divergent_branches.sort();
        result.joins.sort();
        result.divergent_loop_headers.sort();
        result
    }

    /// Whether the value (instruction or argument) can differ between work-items.
    pub fn is_divergent(&self, v: LLVMValueRef) -> bool {
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

    /// Headers of loops that work-items can leave in different iterations.
    pub fn divergent_loop_headers(&self) -> &[BlockId] {
        &self.divergent_loop_headers
    }
}

struct State<'a, 'ctx> {
    fc: &'a FunctionCfg<'ctx>,
    pdt: &'a PostDomTree,
    li: &'a LoopInfo,
    result: Uniformity,
    work: Vec<LLVMValueRef>,
    joined: HashSet<BlockId>,
}

impl State<'_, '_> {
    fn mark(&mut self, v: LLVMValueRef) {
        if self.result.divergent.insert(v) {
            self.work.push(v);
        }
    }

    fn seed(&mut self) {
        let f = self.fc.function;
        if !is_kernel(f) {
            for p in crate::ir::params(f) {
                self.mark(p);
            }
        }
        for bb in self.fc.blocks() {
            for inst in bb.get_instructions() {
                let v = inst.as_value_ref();
                if is_source(v) {
                    self.mark(v);
                }
            }
        }
    }

    fn propagate(&mut self) {
        while let Some(v) = self.work.pop() {
            unsafe {
                let mut u = LLVMGetFirstUse(v);
                while !u.is_null() {
                    let user = LLVMGetUser(u);
                    u = LLVMGetNextUse(u);
                    if LLVMIsAInstruction(user).is_null() {
                        continue;
                    }
                    if LLVMIsATerminatorInst(user).is_null() {
                        // Void users (stores) are marked too, as LLVM does:
                        // they write work-item dependent data.
                        self.mark(user);
                    } else if is_conditional_terminator(user) {
                        let Some(b) = self.fc.id_of_ref(LLVMGetInstructionParent(user)) else { continue };
                        if self.result.divergent.insert(user) {
                            self.result.divergent_branches.push(b);
                            self.divergent_branch(b);
                        }
                    } else if produces_value(user) {
                        // invoke/callbr results follow their operands.
                        self.mark(user);
                    }
                }
            }
        }
    }

    /// Sync and temporal divergence caused by a divergent branch at `x`.
    fn divergent_branch(&mut self, x: BlockId) {
        let cfg = &self.fc.cfg;
        let ipdom = self.pdt.ipdom(x);
        let Some(x_pos) = cfg.rpo_position(x) else { return };

        // Labels, one per successor of x, carried forward in reverse
        // post-order through the blocks they reach (a min-heap on RPO
        // position), as LLVM's `computeJoinPoints` does: a block reached with
        // two labels is a join and gets its own. The walk stops once a single
        // block is left on the frontier: every path from x goes through it,
        // so nothing after it can be a join of x. This bounds the work by
        // where the paths meet, not by the rest of the function (a divergent
        // early return meets at once). If a path wrapped, the walk instead
        // runs to ipdom(x), the last place the paths can meet. Edges back to a
        // block not after the
        // current one in RPO wrap into a cycle's next iteration: their
        // targets are collected apart, joins if two labels arrive.
        let rpo_of = |b: BlockId| cfg.rpo_position(b).unwrap_or(usize::MAX);
        let mut arrivals: HashMap<BlockId, Vec<BlockId>> = HashMap::new();
        let mut wrapped: HashMap<BlockId, Vec<BlockId>> = HashMap::new();
        let mut frontier: BinaryHeap<Reverse<(usize, BlockId)>> = BinaryHeap::new();
        let mut queued: HashSet<BlockId> = HashSet::new();
        let mut region: HashSet<BlockId> = HashSet::new();
        let mut joins: Vec<BlockId> = Vec::new();
        // A block whose predecessors before it in RPO are all done (or x)
        // can take no further label: it need not wait for RPO order. This
        // lets a divergent early return be done with at once.
        let ready = |b: BlockId, region: &HashSet<BlockId>| {
            cfg.preds(b).iter().all(|&p| p == x || region.contains(&p) || rpo_of(p) >= rpo_of(b))
        };
        // First in, first out: x's successors are looked at before what
        // they lead to, so a path that ends at once (a return) is done first.
        let mut ready_now: VecDeque<BlockId> = VecDeque::new();
        let arrive = |b: BlockId, l: BlockId, from_pos: usize, arrivals: &mut HashMap<BlockId, Vec<BlockId>>,
                          wrapped: &mut HashMap<BlockId, Vec<BlockId>>| {
            if rpo_of(b) <= from_pos {
                let w = wrapped.entry(b).or_default();
                if !w.contains(&l) {
                    w.push(l);
                }
                return;
            }
            let a = arrivals.entry(b).or_default();
            if !a.contains(&l) {
                a.push(l);
            }
        };
        let enqueue = |b: BlockId, frontier: &mut BinaryHeap<Reverse<(usize, BlockId)>>, queued: &mut HashSet<BlockId>| {
            if queued.insert(b) {
                frontier.push(Reverse((rpo_of(b), b)));
            }
        };
        for &s in cfg.succs(x) {
            arrive(s, s, x_pos, &mut arrivals, &mut wrapped);
            if rpo_of(s) > x_pos {
                enqueue(s, &mut frontier, &mut queued);
                if ready(s, &region) {
                    ready_now.push_back(s);
                }
            }
        }
        let mut parked = false; // some path stopped at ipdom(x)
        let mut pending = frontier.len();
        loop {
            // Ready blocks first, else the earliest in RPO.
            let b = match ready_now.pop_front() {
                Some(b) => b,
                None => match frontier.pop() {
                    Some(Reverse((_, b))) => b,
                    None => break,
                },
            };
            if !region.insert(b) {
                continue;
            }
            pending -= 1;
            let labels = &arrivals[&b];
            let own = if labels.len() >= 2 {
                joins.push(b);
                b
            } else {
                labels[0]
            };
            if Some(b) == ipdom {
                parked = true; // the last place x's paths can meet
                continue;
            }
            if pending == 0 && wrapped.is_empty() && !parked {
                // Every one of x's paths goes through b: nothing after it can
                // be a join of x.
                break;
            }
            let pos = rpo_of(b);
            for &s in cfg.succs(b) {
                arrive(s, own, pos, &mut arrivals, &mut wrapped);
                if rpo_of(s) > pos && !queued.contains(&s) {
                    enqueue(s, &mut frontier, &mut queued);
                    pending += 1;
                    if ready(s, &region) {
                        ready_now.push_back(s);
                    }
                }
            }
        }
        for (b, labels) in &wrapped {
            region.insert(*b);
            if labels.len() >= 2 {
                joins.push(*b);
            }
        }

        // Temporal divergence. A cycle around x has a divergent exit when
        // work-items can leave it, or wrap into its next iteration, before
        // they reconverge: the region reaches a block outside the cycle or
        // the cycle's header. Work-items then leave it in different
        // iterations. Its exits are joins when two divergent edges reach
        // them, and its values are divergent wherever used outside.
        let reached = |b: BlockId| b == x || region.contains(&b);
        let mut l = self.li.innermost(x);
        while let Some(id) = l {
            let lp = self.li.get(id);
            let escapes = region.contains(&lp.header) || region.iter().any(|&b| !self.li.contains(id, b));
            if !escapes {
                break;
            }
            if ipdom.is_some_and(|p| self.li.contains(id, p)) {
                // Work-items that wrap around reach ipdom(x) only in a later
                // iteration, so within this one it is no meeting point: carry
                // the labels on through the iteration.
                joins.extend(self.iteration_joins(x, id));
            }
            if !self.result.divergent_loop_headers.contains(&lp.header) {
                self.result.divergent_loop_headers.push(lp.header);
                for &e in &lp.exits {
                    if cfg.preds(e).iter().filter(|&&p| reached(p)).count() >= 2 {
                        joins.push(e);
                    }
                }
                let blocks = lp.blocks.clone();
                self.values_leaving(&blocks);
            }
            l = lp.parent;
        }
        // Irreducible cycles have no header; the same reasoning with all of
        // their entries. Entering one at two entries from divergent paths
        // makes every phi in it a join.
        for c in self.li.irreducible_cycles() {
            let inside = |b: &BlockId| c.blocks.binary_search(b).is_ok();
            let entered = c.entries.iter().filter(|e| region.contains(e)).count();
            if !inside(&x) && entered >= 2 {
                joins.extend(c.blocks.iter().copied());
            }
            if inside(&x) && (entered > 0 || region.iter().any(|b| !inside(b))) {
                for &b in &c.blocks {
                    for &s in cfg.succs(b) {
                        if !inside(&s) {
                            joins.push(s);
                        }
                    }
                }
                let blocks = c.blocks.clone();
                self.values_leaving(&blocks);
            }
        }

        for j in joins {
            if self.joined.insert(j) {
                self.result.joins.push(j);
                self.join_phis(j);
            }
        }
    }

    fn join_phis(&mut self, b: BlockId) {
        for inst in self.fc.block(b).get_instructions() {
            let v = inst.as_value_ref();
            unsafe {
                if LLVMIsAPHINode(v).is_null() {
                    break;
                }
                let n = LLVMCountIncoming(v);
                let first = LLVMGetIncomingValue(v, 0);
                if (1..n).any(|i| LLVMGetIncomingValue(v, i) != first) {
                    self.mark(v);
                }
            }
        }
    }

    /// Joins of the branch at `x` within one iteration of loop `id`: labels
    /// propagated in reverse post-order over the blocks reached from x's
    /// successors without passing the header or leaving the loop.
    fn iteration_joins(&self, x: BlockId, id: crate::analysis::loops::LoopId) -> Vec<BlockId> {
        let cfg = &self.fc.cfg;
        let header = self.li.get(id).header;
        let in_iteration = |b: BlockId| b != header && self.li.contains(id, b);
        let mut region: HashSet<BlockId> = HashSet::new();
        let mut stack: Vec<BlockId> = cfg.succs(x).iter().copied().filter(|&b| in_iteration(b)).collect();
        while let Some(b) = stack.pop() {
            if region.insert(b) {
                stack.extend(cfg.succs(b).iter().copied().filter(|&s| in_iteration(s)));
            }
        }
        let x_pos = cfg.rpo_position(x).unwrap_or(0);
        let mut label: HashMap<BlockId, BlockId> = HashMap::new();
        let mut joins = Vec::new();
        let mut ordered: Vec<BlockId> =
            region.iter().copied().filter(|&b| cfg.rpo_position(b).is_some_and(|p| p > x_pos)).collect();
        ordered.sort_by_key(|&b| cfg.rpo_position(b));
        for b in ordered {
            let b_pos = cfg.rpo_position(b);
            let labels: HashSet<BlockId> = cfg
                .preds(b)
                .iter()
                .filter_map(|&p| if p == x { Some(b) } else { label.get(&p).copied().filter(|_| cfg.rpo_position(p) < b_pos) })
                .collect();
            match labels.len() {
                0 => {}
                1 => {
                    label.insert(b, *labels.iter().next().unwrap());
                }
                _ => {
                    joins.push(b);
                    label.insert(b, b);
                }
            }
        }
        joins
    }

    /// Uses outside `blocks` of values defined inside them become divergent.
    fn values_leaving(&mut self, blocks: &[BlockId]) {
        let inside: HashSet<BlockId> = blocks.iter().copied().collect();
        for &b in blocks {
            for inst in self.fc.block(b).get_instructions() {
                let v = inst.as_value_ref();
                unsafe {
                    let mut u = LLVMGetFirstUse(v);
                    while !u.is_null() {
                        let user = LLVMGetUser(u);
                        u = LLVMGetNextUse(u);
                        let user_block = self.fc.id_of_ref(LLVMGetInstructionParent(user));
                        if user_block.is_some_and(|ub| !inside.contains(&ub)) && LLVMIsATerminatorInst(user).is_null() {
                            self.mark(user);
                        }
                    }
                }
            }
        }
    }
}

fn produces_value(v: LLVMValueRef) -> bool {
    unsafe { LLVMGetTypeKind(LLVMTypeOf(v)) != llvm_sys::LLVMTypeKind::LLVMVoidTypeKind }
}

fn is_conditional_terminator(t: LLVMValueRef) -> bool {
    unsafe {
        match LLVMGetInstructionOpcode(t) {
            LLVMOpcode::LLVMBr => LLVMIsConditional(t) != 0,
            LLVMOpcode::LLVMSwitch | LLVMOpcode::LLVMIndirectBr | LLVMOpcode::LLVMCallBr => true,
            _ => false,
        }
    }
}

/// Whether an instruction's result can differ between work-items whatever its
/// operands are.
fn is_source(v: LLVMValueRef) -> bool {
    unsafe {
        match LLVMGetInstructionOpcode(v) {
            LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg | LLVMOpcode::LLVMVAArg => true,
            LLVMOpcode::LLVMLandingPad | LLVMOpcode::LLVMCatchPad | LLVMOpcode::LLVMCleanupPad => true,
            LLVMOpcode::LLVMLoad => LLVMGetVolatile(v) != 0 || points_to_private(LLVMGetOperand(v, 0)),
            LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr => {
                if let Some(b) = builtin_of(v) {
                    return b.is_divergent();
                }
                let callee = LLVMGetCalledValue(v);
                let intrinsic = !callee.is_null() && !LLVMIsAFunction(callee).is_null() && LLVMGetIntrinsicID(callee) != 0;
                // Unknown code may read the work-item id or private state.
                !intrinsic && produces_value(v)
            }
            _ => false,
        }
    }
}

/// Whether `ptr` is (an offset of) an `alloca`: private memory of one work-item.
fn points_to_private(mut ptr: LLVMValueRef) -> bool {
    unsafe {
        loop {
            if !LLVMIsAAllocaInst(ptr).is_null() {
                return true;
            }
            if !LLVMIsAGetElementPtrInst(ptr).is_null()
                || !LLVMIsABitCastInst(ptr).is_null()
                || !LLVMIsAAddrSpaceCastInst(ptr).is_null()
            {
                ptr = LLVMGetOperand(ptr, 0);
                continue;
            }
            if !LLVMIsAConstantExpr(ptr).is_null() {
                return false;
            }
            return false;
        }
    }
}
