//! Memory-descriptor dependences (seed 003, Cambricon's patent): use-def and
//! def-use chains between memory instructions, byte-precise where offsets
//! and sizes are constant.
//!
//! Memory is described by descriptors (object, offset, size); an instruction
//! must-defines or must-uses the descriptor it names and may-defines or
//! may-uses every descriptor of the same object that overlaps it. Each
//! descriptor keeps its reaching definitions and a **kill set**, the ordered
//! intervals of it that later definitions overwrote. Blocks are visited in
//! reverse post-order to a fixed point; at a join definitions are united and
//! kill sets intersected.
//!
//! Compared with LLVM: MemorySSA gives each use one clobbering access and is
//! blind to bytes (a 4-byte store into a 16-byte slot clobbers a 16-byte
//! load); DSE tracks partial overwrites but only to find dead stores; GCC's
//! tree-ssa-dse keeps live-bytes bitmaps per store. Here every use gets the
//! set of stores that may supply any of its bytes, and an exact use that set
//! byte by byte (`Solution::use_bytes`): what `simt-memfwd` forwards from.
//!
//! - [`intervals`]: kill sets as sorted interval lists.
//! - [`model`]: objects, descriptors and accesses as plain data.
//! - [`dataflow`]: the fixed point, with the patent's literal rules and sound ones.
//! - [`from_llvm`]: descriptors from LLVM IR.
//! - [`fills`]: loops that write every byte of (part of) an object, such
//!   as `for (i = 0; i < N; i++) a[i] = …` over `a[N]`; the sound rules
//!   kill those bytes on the loop's exit edge, as an exact definition by
//!   the loop's own stores (an addition to the patent, whose inexact
//!   definitions kill nothing; [`dataflow::Config::fills`]).
//!
//! Limits: one record per descriptor, so a definition that may not
//! overwrite (inexact, predicated, through an unknown pointer) clears its
//! record's kill set; a loop fill is recognised only with constant trip
//! counts, an unconditional store and one exit (see [`fills`]); objects are
//! whole allocas, globals and `noalias` arguments, with no points-to
//! analysis beyond tracing a pointer to them.

pub mod dataflow;
pub mod fills;
pub mod from_llvm;
pub mod intervals;
pub mod model;

use crate::analysis::dominators::DomTree;
use crate::function_cfg::FunctionCfg;
use crate::ir::{Inst, Value};
use dataflow::{Config, Solution};
use model::Program;

/// The analysis of one function: its program, the instruction behind each
/// access (`#N` is `insts[N-1]`) and the fixed point.
#[derive(Debug, PartialEq, Eq)]
pub struct MemDeps<'ctx> {
    pub program: Program,
    pub insts: Vec<Inst<'ctx>>,
    /// The alloca, global or argument behind each object (`None` for `?`).
    pub objects: Vec<Option<Value<'ctx>>>,
    /// Blocks that leave the function (no successors).
    pub exit_blocks: Vec<usize>,
    pub solution: Solution,
}

impl<'ctx> MemDeps<'ctx> {
    pub fn compute(fc: &FunctionCfg<'ctx>, dom: &DomTree, config: Config) -> MemDeps<'ctx> {
        let (program, insts, objects) = from_llvm::build(fc, dom);
        let solution = dataflow::solve(&program, &fc.cfg, dom, config);
        let exit_blocks = fc.cfg.exits().map(|b| b.index()).collect();
        MemDeps { program, insts, objects, exit_blocks, solution }
    }

    /// The access number of an instruction (`#N` is `N - 1`).
    pub fn access_of(&self, i: Inst<'ctx>) -> Option<usize> {
        self.insts.iter().position(|&x| x == i)
    }
}

#[cfg(test)]
mod tests;
