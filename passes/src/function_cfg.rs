//! The CFG view of one LLVM function: its blocks in layout order, the plain
//! [`Cfg`] over them, and the terminator slots behind each edge.
//!
//! Successors come from `LLVMGetSuccessor`, which covers every terminator:
//! `br`, `switch`, `indirectbr`, `invoke`, `callbr`, `catchswitch`, ….

use crate::cfg::{BlockId, Cfg};
use crate::ir::{edge_kinds, successors, EdgeKind};
use inkwell::basic_block::BasicBlock;
use inkwell::values::FunctionValue;
use llvm_sys::prelude::LLVMBasicBlockRef;
use std::collections::HashMap;

pub struct FunctionCfg<'ctx> {
    pub function: FunctionValue<'ctx>,
    blocks: Vec<BasicBlock<'ctx>>,
    index: HashMap<LLVMBasicBlockRef, BlockId>,
    pub cfg: Cfg,
}

impl<'ctx> FunctionCfg<'ctx> {
    pub fn new(function: FunctionValue<'ctx>) -> FunctionCfg<'ctx> {
        let blocks: Vec<BasicBlock<'ctx>> = function.get_basic_block_iter().collect();
        let index: HashMap<LLVMBasicBlockRef, BlockId> =
            blocks.iter().enumerate().map(|(i, b)| (b.as_mut_ptr(), BlockId(i as u32))).collect();
        let succs = blocks.iter().map(|b| successors(*b).iter().map(|s| index[&s.as_mut_ptr()].0).collect()).collect();
        FunctionCfg { function, blocks, index, cfg: Cfg::from_successors(succs) }
    }

    pub fn block(&self, id: BlockId) -> BasicBlock<'ctx> {
        self.blocks[id.index()]
    }

    pub fn blocks(&self) -> &[BasicBlock<'ctx>] {
        &self.blocks
    }

    pub fn id(&self, bb: BasicBlock<'ctx>) -> Option<BlockId> {
        self.index.get(&bb.as_mut_ptr()).copied()
    }

    pub fn id_of_ref(&self, bb: LLVMBasicBlockRef) -> Option<BlockId> {
        self.index.get(&bb).copied()
    }

    /// What selects the edge `from → to`: `true`/`false` for a conditional
    /// branch, `default`/`case N` for a switch, else the successor slots.
    pub fn edge_label(&self, from: BlockId, to: BlockId) -> String {
        let names: Vec<String> = edge_kinds(self.block(from), self.block(to))
            .into_iter()
            .map(|k| match k {
                EdgeKind::Branch(true) => "true".into(),
                EdgeKind::Branch(false) => "false".into(),
                EdgeKind::SwitchDefault => "default".into(),
                EdgeKind::SwitchCase(v) => format!("case {v}"),
                EdgeKind::Slot(i) => format!("succ {i}"),
            })
            .collect();
        names.join("|")
    }
}
