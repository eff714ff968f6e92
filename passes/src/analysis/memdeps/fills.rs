//! Loops that fill memory: `for (i = 0; i < N; i++) a[i] = …;` writes every
//! byte of `a`, so at the loop's exit no definition from before the loop
//! reaches them. Each iteration's store has a variable offset, so seed 003's
//! rules (and [`super::dataflow`]'s sound ones) see only inexact definitions
//! that kill nothing; this module finds what a whole run of the loop is sure
//! to have written, for the dataflow to kill on the loop's exit edge.
//!
//! No SCEV: the loop is run on the integers. A loop qualifies when it has
//! one latch, one preheader, and one exit edge `E -> X` whose block `E` ends
//! in a conditional `br` and dominates the latch (the exit test runs every
//! iteration). Its header phis start from values computed from constants
//! (and, for a loop inside another being run, the outer loop's phis), and
//! every value the exit test and the addresses need is integer arithmetic
//! on them: `Eval` computes it exactly (wrapping at the type's width,
//! `None` for anything else: a load, an unknown phi, a shift too wide, a
//! division by zero, `freeze`). Iteration by iteration, the test says
//! whether the loop goes on; the writers that ran count:
//!
//! - a `store`, `memset`, `memcpy` or `memmove` (constant length) in a block
//!   of the loop outside its sub-loops, at an address `Eval` resolves to an
//!   object (alloca, global, `noalias` argument) plus a constant, inside the
//!   object;
//! - a sub-loop that qualifies itself, run with this iteration's values,
//!   whose exit edge stays inside the loop.
//!
//! A writer counts in an iteration that goes on when its block (a sub-loop:
//! its exit edge) dominates the latch, and in the last one when it dominates
//! `E`. Why that is enough: a path from the header to the latch (or `E`)
//! that misses it, after the path from the entry through the preheader
//! (outside the loop), would be a path from the entry that misses it. The
//! bytes written are what the fill kills: every arrival at `X` ends a run of
//! the loop (its only exit), during which the writers wrote those bytes, so
//! the last write of each happened in the loop, by one of the loop's own
//! definitions of that object ([`super::from_llvm`] lists them all, calls
//! included, as the fill's definitions).
//!
//! Poison: an exit test or address that is poison in a run is undefined
//! behaviour there (a branch on poison, a store to a poison pointer), so
//! the `nsw`/`nuw`/`exact` flags need no checking; `freeze` is the one
//! operation that turns poison into a value, and is not evaluated.
//!
//! Limits: trip counts must be constants (a bound from an argument, even
//! one a guard fixes, is not followed); runs longer than [`BUDGET`]
//! iterations in all are not followed; loops with an early exit, several
//! latches or a `switch` exit test, writers under a condition, and a
//! sub-loop with a variable trip count do not fill; a fill must be at most
//! [`MAX_PIECES`] intervals of an object (a stride-2 loop over many elements
//! is not one), of known size: in a buffer argument (`noalias`, size
//! unknown) every loop bound would make a descriptor of its own, and every
//! state a record more (on `scripts/gen-cfg.py`'s 10k-block kernel, 40 of
//! them made `simt-memdse` four times slower).

use super::intervals::IntervalSet;
use crate::analysis::dominators::DomTree;
use crate::analysis::loops::{LoopId, LoopInfo};
use crate::cfg::BlockId;
use crate::function_cfg::FunctionCfg;
use crate::ir::{Inst, Value};
use inkwell::targets::TargetData;
use llvm_sys::{LLVMIntPredicate, LLVMOpcode as O};
use std::cell::Cell;
use std::collections::HashMap;

/// Iterations simulated per function, over all loops and nesting levels.
pub const BUDGET: u64 = 1 << 17;
/// Intervals one loop may fill in one object.
pub const MAX_PIECES: usize = 4;

/// A loop whose every run writes `bytes` of `root` before it leaves by `from -> to`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopFill<'ctx> {
    pub from: BlockId,
    pub to: BlockId,
    pub root: Value<'ctx>,
    pub bytes: IntervalSet,
    /// The loop's blocks (its sub-loops' included).
    pub blocks: Vec<BlockId>,
}

/// Every fill of `fc`'s function.
pub fn find<'ctx>(fc: &FunctionCfg<'ctx>, dom: &DomTree, td: &TargetData) -> Vec<LoopFill<'ctx>> {
    let li = LoopInfo::compute(&fc.cfg, dom);
    let shapes = Shapes { fc, dom, li: &li, td };
    let mut shapes: Vec<Option<Shape<'ctx>>> = li.loops().map(|(id, _)| shapes.shape(id)).collect();
    // A sub-loop that writes nothing it could fill is no writer (to a fixed
    // point: one level a round).
    loop {
        let idle: Vec<bool> = shapes.iter().map(|s| s.as_ref().is_none_or(|s| s.writers.is_empty())).collect();
        let mut changed = false;
        for s in shapes.iter_mut().flatten() {
            let before = s.writers.len();
            s.writers.retain(|w| !matches!(w, Writer::Loop { id, .. } if idle[id.0 as usize]));
            changed |= s.writers.len() != before;
        }
        if !changed {
            break;
        }
    }
    let mut sim = Sim { shapes: &shapes, td, budget: BUDGET };
    let mut ids: Vec<LoopId> = li.loops().map(|(id, _)| id).collect();
    // Inner loops first: an outer loop that uses up the budget leaves
    // them theirs.
    ids.sort_by_key(|&id| (std::cmp::Reverse(li.get(id).depth), li.get(id).header));
    let mut out = Vec::new();
    for id in ids {
        let Some(shape) = &shapes[id.0 as usize] else { continue };
        if shape.writers.is_empty() {
            continue;
        }
        let Some(written) = sim.run(shape, &HashMap::new()) else { continue };
        let mut written: Vec<_> = written.into_iter().collect();
        written.sort_by_key(|(root, _)| *root);
        for (root, bytes) in written {
            let sized = super::from_llvm::object_size(root, td).is_some();
            if sized && !bytes.is_empty() && bytes.runs().len() <= MAX_PIECES {
                out.push(LoopFill { from: shape.exiting, to: shape.exit, root, bytes, blocks: li.get(id).blocks.clone() });
            }
        }
    }
    out
}

/// What a qualifying loop looks like.
struct Shape<'ctx> {
    exiting: BlockId,
    exit: BlockId,
    /// The exit test, and whether its true side leaves.
    cond: Value<'ctx>,
    leaves_on_true: bool,
    /// Header phis: the value from the preheader, the value from the latch.
    phis: Vec<(Value<'ctx>, Value<'ctx>, Value<'ctx>)>,
    writers: Vec<Writer<'ctx>>,
}

enum Writer<'ctx> {
    /// `len` bytes at `ptr`.
    Store {
        ptr: Value<'ctx>,
        len: u64,
        every: Every,
    },
    Loop {
        id: LoopId,
        every: Every,
    },
}

/// In which iterations a writer surely runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Every {
    /// Every one (it dominates the exiting block).
    Iteration,
    /// Every one that goes on to the latch, not the last.
    ButLast,
}

/// What the loops look like, computed once.
struct Shapes<'a, 'ctx> {
    fc: &'a FunctionCfg<'ctx>,
    dom: &'a DomTree,
    li: &'a LoopInfo,
    td: &'a TargetData,
}

/// Runs loops on the integers, within a budget of iterations.
struct Sim<'a, 'ctx> {
    shapes: &'a [Option<Shape<'ctx>>],
    td: &'a TargetData,
    budget: u64,
}

type Env<'ctx> = HashMap<Value<'ctx>, u64>;

impl<'ctx> Shapes<'_, 'ctx> {
    fn id(&self, bb: inkwell::basic_block::BasicBlock<'ctx>) -> Option<BlockId> {
        self.fc.id(bb)
    }

    /// The edges leaving loop `id`.
    fn exit_edges(&self, id: LoopId) -> Vec<(BlockId, BlockId)> {
        let l = self.li.get(id);
        let mut out = Vec::new();
        for &b in &l.blocks {
            for &s in self.fc.cfg.succs(b) {
                if !self.li.contains(id, s) {
                    out.push((b, s));
                }
            }
        }
        out
    }

    /// Whether every path from the entry to `b` takes the edge `u -> v`
    /// (once in `u`'s successors; `v`'s other predecessors come back from it).
    fn edge_dominates(&self, (u, v): (BlockId, BlockId), b: BlockId) -> bool {
        self.fc.cfg.succs(u).iter().filter(|&&s| s == v).count() == 1
            && self.dom.block_dominates(v, b)
            && self.fc.cfg.preds(v).iter().all(|&p| p == u || self.dom.block_dominates(v, p))
    }

    /// Whether a pointer is based on an object of known size (through
    /// GEPs and casts, whatever their indices).
    fn sized_root(&self, mut p: Value<'ctx>) -> bool {
        for _ in 0..MAX_DEPTH {
            if super::from_llvm::is_object(p) {
                return super::from_llvm::object_size(p, self.td).is_some();
            }
            match p.opcode() {
                Some(O::LLVMGetElementPtr | O::LLVMBitCast | O::LLVMAddrSpaceCast) => p = p.operand(0),
                _ => return false,
            }
        }
        false
    }

    fn every(&self, dominates: impl Fn(BlockId) -> bool, latch: BlockId, exiting: BlockId) -> Option<Every> {
        if dominates(exiting) {
            Some(Every::Iteration)
        } else if dominates(latch) {
            Some(Every::ButLast)
        } else {
            None
        }
    }

    fn shape(&self, id: LoopId) -> Option<Shape<'ctx>> {
        let l = self.li.get(id);
        let [latch] = l.latches[..] else { return None };
        let [(exiting, exit)] = self.exit_edges(id)[..] else { return None };
        if !self.dom.block_dominates(exiting, latch) {
            return None;
        }
        let outside: Vec<BlockId> = self.fc.cfg.preds(l.header).iter().copied().filter(|&p| !self.li.contains(id, p)).collect();
        let [pre] = outside[..] else { return None };
        if self.fc.cfg.preds(l.header).len() != 2 {
            return None;
        }
        let term = crate::ir::terminator(self.fc.block(exiting))?;
        if term.opcode() != O::LLVMBr || !term.is_conditional_terminator() {
            return None;
        }
        let succs = term.successors();
        let leaves_on_true = self.id(succs[0]) == Some(exit);
        if leaves_on_true == (self.id(succs[1]) == Some(exit)) {
            return None;
        }
        let mut phis = Vec::new();
        for i in crate::ir::instructions(self.fc.block(l.header)).take_while(|i| i.is_phi()) {
            let incoming = i.incoming();
            let from = |b: BlockId| incoming.iter().find(|(_, bb)| self.id(*bb) == Some(b)).map(|(v, _)| *v);
            if let (Some(init), Some(next)) = (from(pre), from(latch)) {
                phis.push((i.value(), init, next));
            }
        }
        let mut writers = Vec::new();
        for &b in &l.blocks {
            if self.li.innermost(b) != Some(id) {
                continue;
            }
            let Some(every) = self.every(|x| self.dom.block_dominates(b, x), latch, exiting) else { continue };
            for i in crate::ir::instructions(self.fc.block(b)) {
                // Only objects of known size are filled: a store elsewhere
                // need not be followed.
                if let Some((ptr, len)) = written_by(i, self.td).filter(|&(p, _)| self.sized_root(p)) {
                    writers.push(Writer::Store { ptr, len, every });
                }
            }
        }
        for &c in &l.children {
            let edges = self.exit_edges(c);
            let [edge] = edges[..] else { continue };
            if !self.li.contains(id, edge.1) {
                continue;
            }
            if let Some(every) = self.every(|x| self.edge_dominates(edge, x), latch, exiting) {
                writers.push(Writer::Loop { id: c, every });
            }
        }
        Some(Shape { exiting, exit, cond: term.operand(0), leaves_on_true, phis, writers })
    }
}

impl<'ctx> Sim<'_, 'ctx> {
    /// The bytes, per object, that a run of loop `id` entered with `outer`
    /// writes before it leaves; `None` when the run cannot be followed.
    fn run(&mut self, shape: &Shape<'ctx>, outer: &Env<'ctx>) -> Option<HashMap<Value<'ctx>, IntervalSet>> {
        let mut env = outer.clone();
        let start = Eval::new(outer, self.td);
        for &(phi, init, _) in &shape.phis {
            if let Some(v) = start.int(init, 0) {
                env.insert(phi, v);
            }
        }
        let mut out: HashMap<Value<'ctx>, IntervalSet> = HashMap::new();
        loop {
            self.budget = self.budget.checked_sub(1)?;
            let taken = Eval::new(&env, self.td).int(shape.cond, 0)? & 1 == 1;
            let last = taken == shape.leaves_on_true;
            for w in &shape.writers {
                let every = match w {
                    Writer::Store { every, .. } | Writer::Loop { every, .. } => *every,
                };
                if last && every == Every::ButLast {
                    continue;
                }
                match *w {
                    Writer::Store { ptr, len, .. } => match self.place(ptr, len, &env) {
                        Place::Inside(root, lo) => out.entry(root).or_default().insert((lo, lo + len - 1)),
                        Place::Unknown => {}
                        // Undefined behaviour in the run; no claim about it.
                        Place::Outside => return None,
                    },
                    Writer::Loop { id: c, .. } => {
                        // A sub-loop that cannot be followed writes nothing sure.
                        let Some(inner) = &self.shapes[c.0 as usize] else { continue };
                        match self.run(inner, &env) {
                            Some(w) => {
                                for (root, bytes) in w {
                                    let set = out.entry(root).or_default();
                                    *set = set.union(&bytes);
                                }
                            }
                            None if self.budget == 0 => return None,
                            None => {}
                        }
                    }
                }
            }
            if last {
                return Some(out);
            }
            let eval = Eval::new(&env, self.td);
            let next: Vec<(Value<'ctx>, Option<u64>)> = shape.phis.iter().map(|&(phi, _, next)| (phi, eval.int(next, 0))).collect();
            for (phi, v) in next {
                match v {
                    Some(v) => env.insert(phi, v),
                    None => env.remove(&phi),
                };
            }
        }
    }

    /// Where `len` bytes at `ptr` are.
    fn place(&self, ptr: Value<'ctx>, len: u64, env: &Env<'ctx>) -> Place<'ctx> {
        let Some((root, off)) = Eval::new(env, self.td).ptr(ptr, 0) else { return Place::Unknown };
        let size = super::from_llvm::object_size(root, self.td);
        match u64::try_from(off).ok().and_then(|lo| Some((lo, lo.checked_add(len)?))) {
            Some((lo, end)) if len > 0 && size.is_none_or(|n| end <= n) => Place::Inside(root, lo),
            _ if len == 0 => Place::Unknown,
            _ => Place::Outside,
        }
    }
}

enum Place<'ctx> {
    /// In an object, at this offset.
    Inside(Value<'ctx>, u64),
    /// Not computed (a value the run does not know).
    Unknown,
    /// Partly or wholly outside its object.
    Outside,
}

/// The pointer and byte count an instruction surely writes.
fn written_by<'ctx>(i: Inst<'ctx>, td: &TargetData) -> Option<(Value<'ctx>, u64)> {
    match i.opcode() {
        O::LLVMStore => {
            let ty = i.operand(0).ty();
            ty.is_sized().then(|| (i.operand(1), ty.store_size(td)))
        }
        O::LLVMCall => {
            let name = i.intrinsic_name()?;
            let known = ["llvm.memset", "llvm.memcpy", "llvm.memmove"].iter().any(|p| name.starts_with(p));
            known.then_some(())?;
            Some((i.operand(0), i.operand(2).const_u64()?))
        }
        _ => None,
    }
}

/// Integer values computed from constants and the values in `env`.
struct Eval<'e, 'ctx> {
    env: &'e Env<'ctx>,
    td: &'e TargetData,
    /// Operations left: a DAG that shares operands (`x2 = x1 + x1`, …)
    /// would take exponential time to walk as a tree.
    steps: Cell<u32>,
}

const MAX_DEPTH: u32 = 48;
const MAX_STEPS: u32 = 4096;

fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

fn sext(v: u64, width: u32) -> i64 {
    if width >= 64 {
        v as i64
    } else {
        let s = 64 - width;
        ((v << s) as i64) >> s
    }
}

impl<'e, 'ctx> Eval<'e, 'ctx> {
    fn new(env: &'e Env<'ctx>, td: &'e TargetData) -> Self {
        Eval { env, td, steps: Cell::new(MAX_STEPS) }
    }

    /// Takes one step; false when none is left.
    fn step(&self) -> bool {
        let left = self.steps.get();
        self.steps.set(left.saturating_sub(1));
        left > 0
    }

    fn width(v: Value<'ctx>) -> Option<u32> {
        let ty = v.ty();
        (ty.is_integer() && ty.int_width() <= 64).then(|| ty.int_width())
    }

    /// The value of an integer of at most 64 bits (its low bits, zero-extended).
    fn int(&self, v: Value<'ctx>, depth: u32) -> Option<u64> {
        if let Some(&x) = self.env.get(&v) {
            return Some(x);
        }
        let w = Self::width(v)?;
        if let Some(c) = v.const_u64() {
            return Some(c & mask(w));
        }
        if depth > MAX_DEPTH || !self.step() {
            return None;
        }
        let op = v.opcode()?;
        let arg = |k: u32| self.int(v.operand(k), depth + 1);
        let warg = |k: u32| Self::width(v.operand(k));
        let r = match op {
            O::LLVMAdd => arg(0)?.wrapping_add(arg(1)?),
            O::LLVMSub => arg(0)?.wrapping_sub(arg(1)?),
            O::LLVMMul => arg(0)?.wrapping_mul(arg(1)?),
            O::LLVMAnd => arg(0)? & arg(1)?,
            O::LLVMOr => arg(0)? | arg(1)?,
            O::LLVMXor => arg(0)? ^ arg(1)?,
            O::LLVMShl | O::LLVMLShr | O::LLVMAShr => {
                let (a, s) = (arg(0)?, arg(1)?);
                if s >= u64::from(w) {
                    return None;
                }
                match op {
                    O::LLVMShl => a << s,
                    O::LLVMLShr => a >> s,
                    _ => (sext(a, w) >> s) as u64,
                }
            }
            O::LLVMUDiv | O::LLVMURem => {
                let (a, b) = (arg(0)?, arg(1)?);
                if b == 0 {
                    return None;
                }
                if op == O::LLVMUDiv {
                    a / b
                } else {
                    a % b
                }
            }
            O::LLVMSDiv | O::LLVMSRem => {
                let (a, b) = (sext(arg(0)?, w), sext(arg(1)?, w));
                if b == 0 || (b == -1 && a == sext(1u64 << (w - 1), w)) {
                    return None;
                }
                (if op == O::LLVMSDiv { a / b } else { a % b }) as u64
            }
            O::LLVMZExt => arg(0)?,
            O::LLVMSExt => sext(arg(0)?, warg(0)?) as u64,
            O::LLVMTrunc => arg(0)?,
            O::LLVMICmp => {
                let inst = v.as_inst()?;
                let ow = warg(0)?;
                let (a, b) = (arg(0)?, arg(1)?);
                let (sa, sb) = (sext(a, ow), sext(b, ow));
                u64::from(match inst.icmp_predicate() {
                    LLVMIntPredicate::LLVMIntEQ => a == b,
                    LLVMIntPredicate::LLVMIntNE => a != b,
                    LLVMIntPredicate::LLVMIntUGT => a > b,
                    LLVMIntPredicate::LLVMIntUGE => a >= b,
                    LLVMIntPredicate::LLVMIntULT => a < b,
                    LLVMIntPredicate::LLVMIntULE => a <= b,
                    LLVMIntPredicate::LLVMIntSGT => sa > sb,
                    LLVMIntPredicate::LLVMIntSGE => sa >= sb,
                    LLVMIntPredicate::LLVMIntSLT => sa < sb,
                    LLVMIntPredicate::LLVMIntSLE => sa <= sb,
                })
            }
            O::LLVMSelect => {
                if Self::width(v.operand(0)) != Some(1) {
                    return None;
                }
                if arg(0)? & 1 == 1 {
                    arg(1)?
                } else {
                    arg(2)?
                }
            }
            _ => return None,
        };
        Some(r & mask(w))
    }

    /// An object and the constant byte offset a pointer has into it.
    fn ptr(&self, v: Value<'ctx>, depth: u32) -> Option<(Value<'ctx>, i64)> {
        if super::from_llvm::is_object(v) {
            return Some((v, 0));
        }
        if depth > MAX_DEPTH || !self.step() {
            return None;
        }
        match v.opcode()? {
            O::LLVMBitCast | O::LLVMAddrSpaceCast => self.ptr(v.operand(0), depth + 1),
            O::LLVMGetElementPtr => {
                let (root, mut off) = self.ptr(v.operand(0), depth + 1)?;
                let mut ty = v.gep_source_element_type();
                for k in 1..v.num_operands() {
                    let idx = v.operand(k);
                    let i = sext(self.int(idx, depth + 1)?, Self::width(idx)?);
                    let step = if k == 1 {
                        ty.is_sized().then_some(())?;
                        i.checked_mul(ty.alloc_size(self.td) as i64)?
                    } else if ty.is_struct() {
                        let f = u32::try_from(i).ok().filter(|&f| (f as usize) < ty.struct_fields().len())?;
                        let field = ty.field_offset(self.td, f) as i64;
                        ty = ty.struct_field(f);
                        field
                    } else if ty.is_array() || ty.is_vector() {
                        ty = ty.element_type();
                        i.checked_mul(ty.alloc_size(self.td) as i64)?
                    } else {
                        return None;
                    };
                    off = off.checked_add(step)?;
                }
                Some((root, off))
            }
            _ => None,
        }
    }
}
