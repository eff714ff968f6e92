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
//! - **Temporal divergence**: when a divergent branch can leave a loop (its
//!   immediate post-dominator lies outside), work-items leave the loop in
//!   different iterations: the loop's exit blocks are joins, and every value
//!   defined in the loop is divergent where it is used outside it.
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
use std::collections::{HashMap, HashSet};

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
            for p in f.get_param_iter() {
                self.mark(p.as_value_ref());
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

        // The region: blocks reached from x's successors before ipdom(x).
        let mut region: HashSet<BlockId> = HashSet::new();
        let mut stack: Vec<BlockId> = cfg.succs(x).iter().copied().filter(|&s| Some(s) != ipdom).collect();
        while let Some(b) = stack.pop() {
            if region.insert(b) {
                stack.extend(cfg.succs(b).iter().copied().filter(|&s| Some(s) != ipdom));
            }
        }

        // One label per successor, carried forward in reverse post-order.
        let mut label: HashMap<BlockId, BlockId> = HashMap::new();
        let mut joins: Vec<BlockId> = Vec::new();
        let incoming = |b: BlockId, label: &HashMap<BlockId, BlockId>, forward_only: bool| -> HashSet<BlockId> {
            let b_pos = cfg.rpo_position(b);
            let mut labels = HashSet::new();
            for &p in cfg.preds(b) {
                if p == x {
                    labels.insert(b);
                } else if let Some(&l) = label.get(&p) {
                    if !forward_only || cfg.rpo_position(p) < b_pos {
                        labels.insert(l);
                    }
                }
            }
            labels
        };
        for &b in &cfg.rpo()[x_pos + 1..] {
            if !region.contains(&b) {
                continue;
            }
            let labels = incoming(b, &label, true);
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
        // Loop headers reached again through back edges, and the ipdom itself,
        // can receive labels from any direction.
        let mut late: Vec<BlockId> = region.iter().copied().filter(|&b| cfg.rpo_position(b).is_some_and(|p| p <= x_pos)).collect();
        late.extend(ipdom);
        for b in late {
            if incoming(b, &label, false).len() >= 2 {
                joins.push(b);
            }
        }

        // Temporal divergence: loops around x that the paths leave before meeting.
        let mut l = self.li.innermost(x);
        while let Some(id) = l {
            let lp = self.li.get(id);
            if ipdom.is_some_and(|p| self.li.contains(id, p)) {
                break;
            }
            if !self.result.divergent_loop_headers.contains(&lp.header) {
                self.result.divergent_loop_headers.push(lp.header);
                joins.extend(lp.exits.iter().copied());
                self.values_leaving_loop(id);
            }
            l = lp.parent;
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

    /// Uses outside loop `id` of values defined inside it become divergent.
    fn values_leaving_loop(&mut self, id: crate::analysis::loops::LoopId) {
        let blocks = self.li.get(id).blocks.clone();
        for b in blocks {
            for inst in self.fc.block(b).get_instructions() {
                let v = inst.as_value_ref();
                unsafe {
                    let mut u = LLVMGetFirstUse(v);
                    while !u.is_null() {
                        let user = LLVMGetUser(u);
                        u = LLVMGetNextUse(u);
                        let inside = self
                            .fc
                            .id_of_ref(LLVMGetInstructionParent(user))
                            .is_some_and(|ub| self.li.contains(id, ub));
                        if !inside && LLVMIsATerminatorInst(user).is_null() {
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
