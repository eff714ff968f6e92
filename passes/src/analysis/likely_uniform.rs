//! Branches that are divergent to the uniformity analysis but likely
//! uniform at run time: bounds checks (`if (gid < n)`).
//!
//! A condition comparing a *work-item-affine* value (a work-item id, plus
//! or minus a uniform value, times or shifted by a uniform one, extended or
//! truncated) against a uniform value is monotone in the id, so over the
//! consecutive ids of a warp it changes at most once: only the warp holding
//! the boundary diverges, every other warp takes one side as a whole.
//! `and`/`or`/`xor` with a uniform value, logical `select`s and negations of
//! such compares keep that property per operand (a warp diverges only if an
//! operand does), so they count too. `%laneid` and `%warpid` are left out:
//! `laneid < k` splits every warp.
//!
//! This is a shape, not a proof: a 2-D work-group narrower than a warp puts
//! several rows in one warp, and a truncation can wrap. `simt-ifconvert`'s
//! cost model uses it only to price such a branch by the path a
//! non-diverging warp runs, never for correctness. Computed once per
//! function, one look at each conditional branch's condition (memoised over
//! the values it reaches).

use crate::analysis::cache::FunctionAnalyses;
use crate::cfg::BlockId;
use crate::ir::{terminator, Value};
use crate::kernel_model::{builtin_of, Builtin};
use llvm_sys::LLVMOpcode;
use std::collections::HashMap;

/// Per block: whether its conditional branch is likely uniform at run time.
pub struct LikelyUniform {
    blocks: Vec<bool>,
}

impl LikelyUniform {
    pub fn compute(fa: &FunctionAnalyses<'_>) -> LikelyUniform {
        let mut shapes = Shapes { fa, memo: HashMap::new() };
        let blocks = fa
            .cfg
            .blocks()
            .iter()
            .map(|&bb| match terminator(bb) {
                Some(t) if t.opcode() == LLVMOpcode::LLVMBr && t.is_conditional_terminator() => shapes.boundary(t.branch_condition(), 0),
                _ => false,
            })
            .collect();
        LikelyUniform { blocks }
    }

    /// No branch likely uniform (for callers that do not price branches).
    pub fn none() -> LikelyUniform {
        LikelyUniform { blocks: Vec::new() }
    }

    /// Whether block `b` ends in a branch a warp likely takes as a whole.
    pub fn is_likely_uniform(&self, b: BlockId) -> bool {
        self.blocks.get(b.index()).copied().unwrap_or(false)
    }
}

/// What a value is, as far as this analysis cares.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Uniform,
    /// Monotone in one work-item id, uniform otherwise.
    Affine,
    /// An `i1` that changes at most at the boundary warps.
    Boundary,
    Other,
}

/// Values deeper than this are `Other` (bounds the walk on long chains).
const MAX_DEPTH: u32 = 16;

struct Shapes<'a, 'ctx> {
    fa: &'a FunctionAnalyses<'ctx>,
    memo: HashMap<Value<'ctx>, Shape>,
}

impl<'ctx> Shapes<'_, 'ctx> {
    fn boundary(&mut self, c: Value<'ctx>, depth: u32) -> bool {
        self.shape(c, depth) == Shape::Boundary
    }

    fn shape(&mut self, v: Value<'ctx>, depth: u32) -> Shape {
        if !self.fa.uniformity().is_divergent(v) {
            return Shape::Uniform;
        }
        if let Some(&s) = self.memo.get(&v) {
            return s;
        }
        let s = if depth >= MAX_DEPTH { Shape::Other } else { self.compute(v, depth + 1) };
        self.memo.insert(v, s);
        s
    }

    fn compute(&mut self, v: Value<'ctx>, depth: u32) -> Shape {
        use LLVMOpcode::*;
        let Some(i) = v.as_inst() else { return Shape::Other };
        let mut op = |k: u32| self.shape(i.operand(k), depth);
        let uniform_or = |s: Shape, want: Shape| s == Shape::Uniform || s == want;
        match i.opcode() {
            LLVMCall => match builtin_of(i) {
                Some(Builtin::LocalId(_) | Builtin::GlobalId(_) | Builtin::LocalLinearId | Builtin::GlobalLinearId) => Shape::Affine,
                _ => Shape::Other,
            },
            LLVMAdd | LLVMSub => match (op(0), op(1)) {
                (Shape::Affine, Shape::Uniform) | (Shape::Uniform, Shape::Affine) => Shape::Affine,
                _ => Shape::Other,
            },
            LLVMMul => match (op(0), op(1)) {
                (Shape::Affine, Shape::Uniform) | (Shape::Uniform, Shape::Affine) => Shape::Affine,
                _ => Shape::Other,
            },
            LLVMShl => match (op(0), op(1)) {
                (Shape::Affine, Shape::Uniform) => Shape::Affine,
                _ => Shape::Other,
            },
            LLVMSExt | LLVMZExt | LLVMTrunc if op(0) == Shape::Affine => Shape::Affine,
            LLVMICmp => match (op(0), op(1)) {
                (Shape::Affine, Shape::Uniform) | (Shape::Uniform, Shape::Affine) => Shape::Boundary,
                _ => Shape::Other,
            },
            LLVMAnd | LLVMOr | LLVMXor if i.ty().is_integer() && i.ty().int_width() == 1 => {
                let (a, b) = (op(0), op(1));
                if uniform_or(a, Shape::Boundary) && uniform_or(b, Shape::Boundary) {
                    Shape::Boundary
                } else {
                    Shape::Other
                }
            }
            LLVMSelect if i.ty().is_integer() && i.ty().int_width() == 1 => {
                let all = (0..3).map(&mut op).all(|s| uniform_or(s, Shape::Boundary));
                if all {
                    Shape::Boundary
                } else {
                    Shape::Other
                }
            }
            _ => Shape::Other,
        }
    }
}
