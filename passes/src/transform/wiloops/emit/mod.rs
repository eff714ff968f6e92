//! Building the work-group function `simt_wg_K(args, ctx)` from a prepared
//! kernel (see `prepare.rs`): a dispatcher over regions, each region cloned
//! into a z/y/x nest of work-item loops.
//!
//! ```text
//!  entry: read ctx, params, local-memory and scratch bases
//!    │
//!  dispatch: switch next ──▶ r0.pre ─▶ z ─▶ y ─▶ x: clone of region 0 ─▶ x.latch ─▶ … ─▶ r0.done ─┐
//!    ▲         │         ──▶ rB.pre ─▶ …                                                         │
//!    └─────────┴──── next = state every work-item stopped at (barrier b or exit) ◀───────────────┘
//! ```
//!
//! A region whose exits all lead to one state needs no bookkeeping. Otherwise
//! the x loop carries the minimum and maximum exit state as reductions (which
//! the vectorizer keeps), and `done` checks they agree: if not, the work-items
//! reached different barriers, the ids go to `ctx.error` and the function
//! returns 1. The innermost loop is marked `llvm.loop.parallel_accesses`:
//! between barriers, OpenCL and CUDA give work-items no ordering, so
//! iterations are independent and the loop vectorizer may run them in lanes.

//!
//! One builder per concern, each a file:
//! - [`dispatch`]: the dispatcher loop and each region's nest, with the
//!   barrier-divergence check;
//! - [`nest`]: z/y/x loop nests over the work-items, parallel-loop metadata;
//! - [`clone`]: cloning a region into a nest, mapping kernel values;
//! - [`interleave`]: seed 001's interleaved function;
//! - [`abi`]: what the C ABI fixes (`ctx` fields, parameters, data symbols).

mod abi;
mod clone;
mod dispatch;
mod interleave;
mod nest;

use super::layout::{Layout, Slot};
use crate::wg_abi::{Scalar, CTX_FIELDS};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use nest::{distinct_empty_node, Nest};
use std::collections::{HashMap, HashSet};
use std::ffi::CString;

/// A region: the blocks reachable from `entry` without entering a barrier block.
pub struct Region {
    /// The state that starts it: 0 for the kernel entry, b for barrier b.
    pub state: u32,
    pub entry: LLVMBasicBlockRef,
    /// In reverse post-order of the kernel, so definitions precede uses.
    pub blocks: Vec<LLVMBasicBlockRef>,
    /// The states its work-items can stop at, sorted.
    pub exit_states: Vec<u32>,
}

pub struct Emitter {
    ctx: LLVMContextRef,
    module: LLVMModuleRef,
    b: LLVMBuilderRef,
    kernel: LLVMValueRef,
    f: LLVMValueRef,
    i64t: LLVMTypeRef,
    i32t: LLVMTypeRef,
    i8t: LLVMTypeRef,
    ctx_ty: LLVMTypeRef,
    ctx_arg: LLVMValueRef,
    local_size: [LLVMValueRef; 3],
    num_groups: [LLVMValueRef; 3],
    offset: [LLVMValueRef; 3],
    work_dim: LLVMValueRef,
    n_items: LLVMValueRef,
    /// Kernel parameters, as values in the new function.
    params: HashMap<LLVMValueRef, LLVMValueRef>,
    barrier_blocks: HashMap<LLVMBasicBlockRef, u32>,
    exit_state: u32,
    layout: Layout,
    /// The work-group the code being cloned runs for.
    view: Option<WgView>,
    access_group: LLVMMetadataRef,
    kind_loop: u32,
    kind_access_group: u32,
    /// Defined functions that use work-item builtins or barriers.
    simt_callees: HashSet<LLVMValueRef>,
    /// The work-item the region being cloned runs for.
    items: Option<Items>,
    /// The last nest's exit, not yet terminated, while groups are chained.
    pending_done: Option<LLVMBasicBlockRef>,
    /// The work-group size the function is specialised for, if any.
    fixed_local_size: Option<[u64; 3]>,
    /// Per-work-group slots as read once before the current region's
    /// work-item loop: loads of them in the loop become these scalars.
    snapshots: HashMap<LLVMValueRef, LLVMValueRef>,
}

pub(super) fn cs(s: &str) -> CString {
    CString::new(s).expect("no NUL")
}

impl Emitter {
    /// # Safety
    /// `kernel` must be a prepared kernel of `module`.
    pub unsafe fn new(
        module: LLVMModuleRef,
        kernel: LLVMValueRef,
        name: &str,
        layout: Layout,
        barrier_blocks: HashMap<LLVMBasicBlockRef, u32>,
        simt_callees: HashSet<LLVMValueRef>,
        fixed_local_size: Option<[u64; 3]>,
    ) -> Emitter {
        let ctx = LLVMGetModuleContext(module);
        let i64t = LLVMInt64TypeInContext(ctx);
        let i32t = LLVMInt32TypeInContext(ctx);
        let i8t = LLVMInt8TypeInContext(ctx);
        let ptr = LLVMPointerTypeInContext(ctx, 0);
        let mut fields: Vec<LLVMTypeRef> = CTX_FIELDS
            .iter()
            .map(|f| {
                let t = match f.scalar {
                    Scalar::U32 => i32t,
                    Scalar::U64 => i64t,
                    Scalar::Ptr => ptr,
                };
                f.array.map_or(t, |n| LLVMArrayType2(t, n as u64))
            })
            .collect();
        let ctx_ty = LLVMStructTypeInContext(ctx, fields.as_mut_ptr(), fields.len() as u32, 0);
        let mut params = [ptr, ptr];
        let fn_ty = LLVMFunctionType(i32t, params.as_mut_ptr(), 2, 0);
        let f = LLVMAddFunction(module, cs(&crate::wg_abi::wg_function(name)).as_ptr(), fn_ty);
        let exit_state = crate::wg_abi::exit_id(barrier_blocks.len() as u32);
        let kind = |k: &str| LLVMGetMDKindIDInContext(ctx, k.as_ptr().cast(), k.len() as u32);
        Emitter {
            ctx,
            module,
            b: LLVMCreateBuilderInContext(ctx),
            kernel,
            f,
            i64t,
            i32t,
            i8t,
            ctx_ty,
            ctx_arg: LLVMGetParam(f, 1),
            local_size: [std::ptr::null_mut(); 3],
            num_groups: [std::ptr::null_mut(); 3],
            offset: [std::ptr::null_mut(); 3],
            work_dim: std::ptr::null_mut(),
            n_items: std::ptr::null_mut(),
            params: HashMap::new(),
            barrier_blocks,
            exit_state,
            layout,
            view: None,
            access_group: distinct_empty_node(ctx),
            kind_loop: kind("llvm.loop"),
            kind_access_group: kind("llvm.access.group"),
            simt_callees,
            items: None,
            pending_done: None,
            fixed_local_size,
            snapshots: HashMap::new(),
        }
    }

    pub(super) unsafe fn block(&self, name: &str) -> LLVMBasicBlockRef {
        LLVMAppendBasicBlockInContext(self.ctx, self.f, cs(name).as_ptr())
    }

    pub(super) unsafe fn c64(&self, v: u64) -> LLVMValueRef {
        LLVMConstInt(self.i64t, v, 0)
    }

    pub(super) unsafe fn c32(&self, v: u32) -> LLVMValueRef {
        LLVMConstInt(self.i32t, v as u64, 0)
    }

    pub(super) unsafe fn load(&self, ty: LLVMTypeRef, ptr: LLVMValueRef, name: &str) -> LLVMValueRef {
        LLVMBuildLoad2(self.b, ty, ptr, cs(name).as_ptr())
    }

}

impl Drop for Emitter {
    fn drop(&mut self) {
        unsafe { LLVMDisposeBuilder(self.b) };
    }
}

/// The values that differ between the work-groups one function runs.
pub(super) struct WgView {
    group_id: [LLVMValueRef; 3],
    /// Local-memory variables (and, interleaved, `__local` pointer
    /// arguments) → their address in this work-group's block.
    locals: HashMap<LLVMValueRef, LLVMValueRef>,
    /// Allocas → the base of their slots in this work-group's memory.
    slot_base: HashMap<LLVMValueRef, LLVMValueRef>,
}

#[derive(Clone, Copy)]
pub(super) struct Items {
    x: LLVMValueRef,
    y: LLVMValueRef,
    z: LLVMValueRef,
    w: LLVMValueRef,
}

pub(super) unsafe fn add_incoming(phi: LLVMValueRef, v: LLVMValueRef, from: LLVMBasicBlockRef) {
    let mut vs = [v];
    let mut bs = [from];
    LLVMAddIncoming(phi, vs.as_mut_ptr(), bs.as_mut_ptr(), 1);
}

/// The instructions of a kernel block, as raw values (for the builders not
/// yet moved onto `crate::ir`).
pub(super) unsafe fn instructions(bb: LLVMBasicBlockRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    let mut i = LLVMGetFirstInstruction(bb);
    while !i.is_null() {
        out.push(i);
        i = LLVMGetNextInstruction(i);
    }
    out
}
