//! The CFG view of one LLVM function: its blocks in layout order, the plain
//! [`Cfg`] over them, and the terminator slots behind each edge.
//!
//! Successors come from `LLVMGetSuccessor`, which covers every terminator:
//! `br`, `switch`, `indirectbr`, `invoke`, `callbr`, `catchswitch`, ….

use crate::cfg::{BlockId, Cfg};
use inkwell::basic_block::BasicBlock;
use inkwell::values::FunctionValue;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;
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
        let succs = blocks.iter().map(|b| successor_refs(*b).iter().map(|s| index[s].0).collect()).collect();
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
        let bb = self.block(from).as_mut_ptr();
        let target = self.block(to).as_mut_ptr();
        unsafe {
            let term = LLVMGetBasicBlockTerminator(bb);
            if term.is_null() {
                return String::new();
            }
            let slots: Vec<u32> =
                (0..LLVMGetNumSuccessors(term)).filter(|&i| LLVMGetSuccessor(term, i) == target).collect();
            let opcode = LLVMGetInstructionOpcode(term);
            let names: Vec<String> = slots
                .iter()
                .map(|&i| match opcode {
                    LLVMOpcode::LLVMBr if LLVMIsConditional(term) != 0 => {
                        if i == 0 { "true".into() } else { "false".into() }
                    }
                    LLVMOpcode::LLVMSwitch if i == 0 => "default".into(),
                    LLVMOpcode::LLVMSwitch => {
                        format!("case {}", LLVMConstIntGetSExtValue(LLVMGetSwitchCaseValue(term, i)))
                    }
                    _ => format!("succ {i}"),
                })
                .collect();
            names.join("|")
        }
    }
}

/// Successor blocks of `bb`'s terminator in slot order (duplicates kept).
pub fn successor_refs(bb: BasicBlock<'_>) -> Vec<LLVMBasicBlockRef> {
    unsafe {
        let term = LLVMGetBasicBlockTerminator(bb.as_mut_ptr());
        if term.is_null() {
            return Vec::new();
        }
        (0..LLVMGetNumSuccessors(term)).map(|i| LLVMGetSuccessor(term, i)).collect()
    }
}
