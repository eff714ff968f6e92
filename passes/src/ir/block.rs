//! Terminators and edges: successors in slot order, what selects each.

use super::value::{Inst, Value};
use inkwell::basic_block::BasicBlock;
use llvm_sys::core::*;
use llvm_sys::LLVMOpcode;

/// What selects one successor slot of a terminator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EdgeKind {
    /// A conditional branch's true (slot 0) or false (slot 1) side.
    Branch(bool),
    SwitchDefault,
    /// A switch case, its value sign-extended.
    SwitchCase(i64),
    /// Any other terminator's slot.
    Slot(u32),
}

/// The terminator of `bb`, if the block has one.
pub fn terminator(bb: BasicBlock<'_>) -> Option<Inst<'_>> {
    bb.get_terminator().map(Inst::from)
}

/// Successor blocks of `bb`'s terminator in slot order (duplicates kept).
pub fn successors(bb: BasicBlock<'_>) -> Vec<BasicBlock<'_>> {
    let Some(term) = terminator(bb) else { return Vec::new() };
    // SAFETY: `term` is a live terminator; slots are below its successor
    // count, and each successor is a live block of the same function.
    unsafe {
        (0..LLVMGetNumSuccessors(term.raw()))
            .map(|i| BasicBlock::new(LLVMGetSuccessor(term.raw(), i)).expect("a successor block"))
            .collect()
    }
}

/// For each slot of `bb`'s terminator that leads to `target`, what selects it.
pub fn edge_kinds<'ctx>(bb: BasicBlock<'ctx>, target: BasicBlock<'ctx>) -> Vec<EdgeKind> {
    let Some(term) = terminator(bb) else { return Vec::new() };
    let conditional = term.opcode() == LLVMOpcode::LLVMBr && term.is_conditional_terminator();
    successors(bb)
        .into_iter()
        .enumerate()
        .filter(|(_, s)| *s == target)
        .map(|(i, _)| match term.opcode() {
            _ if conditional => EdgeKind::Branch(i == 0),
            LLVMOpcode::LLVMSwitch if i == 0 => EdgeKind::SwitchDefault,
            // SAFETY: `term` is a live switch and `i` one of its case slots.
            LLVMOpcode::LLVMSwitch => EdgeKind::SwitchCase(unsafe {
                let v = Value::from_raw(LLVMGetSwitchCaseValue(term.raw(), i as u32));
                LLVMConstIntGetSExtValue(v.raw())
            }),
            _ => EdgeKind::Slot(i as u32),
        })
        .collect()
}
