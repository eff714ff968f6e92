//! Loop-closed form for one loop: values of the loop used after it reach
//! those uses through phis in its exit block. Passes that copy or reshape a
//! loop (`simt-wiloops-version`, `simt-lockstep-loops`) then find, in the
//! exit block's phis, everything that leaves the loop, and join their copies
//! there.

use crate::ir::{instructions, Builder, Inst};
use inkwell::basic_block::BasicBlock;
use std::collections::HashSet;

/// Gives every value of the loop `blocks` used outside it a phi at the top
/// of `exit`, whose only predecessor must be `latch`, and makes those uses
/// read the phi. Phis of `exit` itself already are such phis.
/// The phis come in the order of `blocks` and of their instructions.
pub fn close_over_exit<'c>(blocks: &[BasicBlock<'c>], latch: BasicBlock<'c>, exit: BasicBlock<'c>) {
    let members: HashSet<BasicBlock<'c>> = blocks.iter().copied().collect();
    for &bb in blocks {
        for i in instructions(bb).filter(|i| !i.is_void()) {
            let outside: Vec<Inst<'c>> =
                i.users().into_iter().filter(|u| !(members.contains(&u.block()) || u.is_phi() && u.block() == exit)).collect();
            if outside.is_empty() {
                continue;
            }
            let mut b = Builder::new(i.value());
            match instructions(exit).next() {
                Some(first) => b.position_before(first),
                None => b.position_at_end(exit),
            }
            let name = String::from_utf8_lossy(&i.value().name_bytes()).into_owned();
            let phi = b.phi(i.ty(), &if name.is_empty() { name } else { format!("{name}.lcssa") });
            phi.add_incoming(&[(i.value(), latch)]);
            for u in outside {
                for k in 0..u.num_operands() {
                    if u.operand(k) == i.value() {
                        u.set_operand(k, phi.value());
                    }
                }
            }
        }
    }
}
