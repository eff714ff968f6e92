//! Warp-uniform ids for the warp dispatcher (`emit/warp.rs`): in a kernel
//! with warp functions and a known local size, `threadIdx.x / 32` and
//! `threadIdx.x % 32` (as CUDA writes `threadIdx.x / warpSize`,
//! `threadIdx.x >> 5`, `& 31`, `% warpSize`) become the warp's index and the
//! lane's offset in it, which the dispatcher has per region run.
//!
//! Why: the dispatcher runs a warp's region as a loop over its 32 lanes.
//! LLVM sees `threadIdx.x >> 5` computed per lane, so a branch on it
//! (`if (warp == 0)`, the second level of a block reduction) is divergent to
//! it: the vectorised lane loop masks every load and store under it
//! (`vmaskmovps`), in every warp. The warp's index is invariant in the lane
//! loop: LLVM unswitches the branch, and warps that do not take it skip the
//! region's work (block_sum_warp, BENCHMARKS.md issue 24). COX (Han et al.,
//! 2022) gets the same from its warp-level loop; here it is a rewrite of the
//! ids the kernel computes, before the regions are cloned.
//!
//! When it holds: the lanes of every warp lie in one row of x starting at a
//! multiple of 32, that is, the block's x size is a multiple of 32 or the
//! block is one row (`ny = nz = 1`; the last warp may be partial). Then for
//! the warp `w` of a row of `nx / 32` warps, `x / 32 = w mod (nx / 32)` (`w`
//! itself for a one-row block) and `x % 32` is the lane. Any other block
//! shape, or a local size not known at compile time, is left alone.
//!
//! Limits: only the x id, and only these shapes of it (directly, or through
//! a `zext`/`sext` of the id, which is never negative); other warp-uniform
//! values (`blockIdx`, arguments) are already uniform to LLVM.

use crate::ir::globals::function_or_declare;
use crate::ir::{instructions, Builder, Inst, IntOp, Ty, Value};
use crate::kernel_model::{builtin_of, Builtin};
use inkwell::module::Module;
use inkwell::values::FunctionValue;
use llvm_sys::LLVMOpcode;

const WARP: u64 = 32;

/// What an instruction computes from the x id.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Part {
    /// `x / 32`.
    Warp,
    /// `x % 32`.
    Lane,
}

/// Rewrites `kernel`'s `x / 32` and `x % 32` (see the header) where the
/// block shape `local_size` allows; returns how many it rewrote.
pub fn rewrite<'ctx>(m: &Module<'ctx>, kernel: FunctionValue<'ctx>, local_size: [u64; 3]) -> usize {
    let [nx, ny, nz] = local_size;
    let one_row = ny == 1 && nz == 1;
    if nx == 0 || !(one_row || nx % WARP == 0) {
        return 0;
    }
    let ids: Vec<Inst<'ctx>> =
        kernel.get_basic_block_iter().flat_map(instructions).filter(|&i| builtin_of(i) == Some(Builtin::LocalId(0))).collect();
    let mut found = Vec::new();
    for id in ids {
        let mut of_id = vec![id];
        of_id.extend(id.users().into_iter().filter(|u| matches!(u.opcode(), LLVMOpcode::LLVMZExt | LLVMOpcode::LLVMSExt)));
        for v in of_id {
            found.extend(v.users().into_iter().filter_map(|u| Some((u, part(u, v.value())?))));
        }
    }
    let i32t = Ty::of(m.get_context().i32_type());
    for &(u, p) in &found {
        let mut b = Builder::new(u.value());
        b.position_before(u);
        let reg = if p == Part::Warp { "warpid" } else { "laneid" };
        let f = function_or_declare(m, &format!("llvm.nvvm.read.ptx.sreg.{reg}"), Ty::function(i32t, &[]));
        let mut v = b.call_function(f, &[], reg).value();
        if p == Part::Warp && !one_row {
            v = b.int_op(IntOp::URem, v, i32t.const_int(nx / WARP), "warp.in.row");
        }
        let v = if u.ty() == i32t { v } else { b.zext(v, u.ty(), "") };
        u.value().replace_all_uses_with(v);
        u.erase();
    }
    found.len()
}

/// Whether `u` is `x / 32` or `x % 32` of the x id `x` (never negative, so
/// signed and unsigned agree).
fn part<'ctx>(u: Inst<'ctx>, x: Value<'ctx>) -> Option<Part> {
    if u.num_operands() != 2 || u.operand(0) != x {
        return None;
    }
    let c = u.operand(1).const_u64()?;
    match (u.opcode(), c) {
        (LLVMOpcode::LLVMLShr, 5) | (LLVMOpcode::LLVMUDiv | LLVMOpcode::LLVMSDiv, WARP) => Some(Part::Warp),
        (LLVMOpcode::LLVMAnd, 31) | (LLVMOpcode::LLVMURem | LLVMOpcode::LLVMSRem, WARP) => Some(Part::Lane),
        _ => None,
    }
}
