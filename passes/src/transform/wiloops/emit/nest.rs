//! Loop nests over the work-items of a work-group: z/y/x loops whose
//! innermost one is marked `llvm.loop.parallel_accesses` (with one access
//! group for the region's loads and stores), optionally carrying the minimum
//! and maximum stop state of the work-items as reductions.
//!
//! ```text
//!  pre ─▶ z ─▶ y ─▶ x ─▶ item: body … ─▶ x.next ─▶ y.next ─▶ z.next ─▶ done
//!         ▲    ▲    ▲                      │         │         │
//!         │    │    └──────────────────────┘         │         │
//!         │    └─────────────────────────────────────┘         │
//!         └────────────────────────────────────────────────────┘
//! ```

use super::*;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::debuginfo::{LLVMMetadataReplaceAllUsesWith, LLVMTemporaryMDNode};
use llvm_sys::LLVMIntPredicate;

impl Emitter {
    /// Opens a z/y/x loop nest over the work-items; the builder is left at
    /// the end of the (unterminated) body block, with `self.items` set.
    pub(super) unsafe fn open_nest(&mut self, tag: &str, track_states: bool) -> Nest {
        let pre = self.block(&format!("{tag}.pre"));
        let heads: Vec<LLVMBasicBlockRef> = ["z", "y", "x"].iter().map(|d| self.block(&format!("{tag}.{d}"))).collect();
        let body = self.block(&format!("{tag}.item"));
        LLVMPositionBuilderAtEnd(self.b, pre);
        LLVMBuildBr(self.b, heads[0]);
        let (mut ivs, mut mins, mut maxs) = (Vec::new(), Vec::new(), Vec::new());
        for (level, &h) in heads.iter().enumerate() {
            LLVMPositionBuilderAtEnd(self.b, h);
            ivs.push(LLVMBuildPhi(self.b, self.i64t, cs(["wi.z", "wi.y", "wi.x"][level]).as_ptr()));
            if track_states {
                mins.push(LLVMBuildPhi(self.b, self.i32t, c"state.min".as_ptr()));
                maxs.push(LLVMBuildPhi(self.b, self.i32t, c"state.max".as_ptr()));
            }
            LLVMBuildBr(self.b, if level < 2 { heads[level + 1] } else { body });
        }
        let (z, y, x) = (ivs[0], ivs[1], ivs[2]);
        LLVMPositionBuilderAtEnd(self.b, body);
        let yz = LLVMBuildNUWAdd(self.b, y, LLVMBuildNUWMul(self.b, self.local_size[1], z, c"".as_ptr()), c"".as_ptr());
        let w = LLVMBuildNUWAdd(self.b, x, LLVMBuildNUWMul(self.b, self.local_size[0], yz, c"".as_ptr()), c"wi.linear".as_ptr());
        self.items = Some(Items { x, y, z, w });
        let latches: Vec<LLVMBasicBlockRef> = ["x", "y", "z"].iter().map(|d| self.block(&format!("{tag}.{d}.next"))).collect();
        let done = self.block(&format!("{tag}.done"));
        LLVMPositionBuilderAtEnd(self.b, body);
        Nest { pre, heads, ivs, mins, maxs, latches, done }
    }

    /// Closes a nest whose x latch (`nest.latches[0]`) the body branches to.
    /// With state tracking, `state` is this work-item's stop state and the
    /// result the minimum and maximum over all work-items, valid in `done`.
    pub(super) unsafe fn close_nest(&mut self, nest: &Nest, state: Option<LLVMValueRef>) -> Option<(LLVMValueRef, LLVMValueRef)> {
        // Latches after the body they close, so the function reads in order.
        for &bb in nest.latches.iter().chain([&nest.done]) {
            LLVMMoveBasicBlockAfter(bb, LLVMGetLastBasicBlock(self.f));
        }
        LLVMPositionBuilderAtEnd(self.b, nest.latches[0]);
        let reduced = state.map(|st| {
            let lt = LLVMBuildICmp(self.b, LLVMIntPredicate::LLVMIntULT, st, nest.mins[2], c"".as_ptr());
            let mn = LLVMBuildSelect(self.b, lt, st, nest.mins[2], c"".as_ptr());
            let gt = LLVMBuildICmp(self.b, LLVMIntPredicate::LLVMIntUGT, st, nest.maxs[2], c"".as_ptr());
            let mx = LLVMBuildSelect(self.b, gt, st, nest.maxs[2], c"".as_ptr());
            (mn, mx)
        });
        for level in 0..3 {
            // level 0 = x (innermost), 1 = y, 2 = z.
            let iv = nest.ivs[2 - level];
            LLVMPositionBuilderAtEnd(self.b, nest.latches[level]);
            let inc = LLVMBuildNUWAdd(self.b, iv, self.c64(1), c"".as_ptr());
            let more = LLVMBuildICmp(self.b, LLVMIntPredicate::LLVMIntULT, inc, self.local_size[level], c"".as_ptr());
            let after = if level < 2 { nest.latches[level + 1] } else { nest.done };
            let br = LLVMBuildCondBr(self.b, more, nest.heads[2 - level], after);
            if level == 0 {
                self.mark_parallel_loop(br);
            }
            add_incoming(iv, inc, nest.latches[level]);
            let outer_entry = if level < 2 { nest.heads[1 - level] } else { nest.pre };
            add_incoming(iv, self.c64(0), outer_entry);
            if let Some((mn, mx)) = reduced {
                add_incoming(nest.mins[2 - level], mn, nest.latches[level]);
                add_incoming(nest.maxs[2 - level], mx, nest.latches[level]);
                let (init_min, init_max) =
                    if level < 2 { (nest.mins[1 - level], nest.maxs[1 - level]) } else { (self.c32(u32::MAX), self.c32(0)) };
                add_incoming(nest.mins[2 - level], init_min, outer_entry);
                add_incoming(nest.maxs[2 - level], init_max, outer_entry);
            }
        }
        reduced
    }

    pub(super) unsafe fn mark_parallel_loop(&self, br: LLVMValueRef) {
        let ctx = self.ctx;
        let md_str = |s: &str| LLVMMDStringInContext2(ctx, s.as_ptr().cast(), s.len());
        let mut pa = [md_str("llvm.loop.parallel_accesses"), self.access_group];
        let parallel = LLVMMDNodeInContext2(ctx, pa.as_mut_ptr(), 2);
        let mut mp = [md_str("llvm.loop.mustprogress")];
        let progress = LLVMMDNodeInContext2(ctx, mp.as_mut_ptr(), 1);
        let temp = LLVMTemporaryMDNode(ctx, std::ptr::null_mut(), 0);
        let mut ops = [temp, parallel, progress];
        let id = LLVMMDNodeInContext2(ctx, ops.as_mut_ptr(), 3);
        LLVMMetadataReplaceAllUsesWith(temp, id);
        LLVMSetMetadata(br, self.kind_loop, LLVMMetadataAsValue(ctx, id));
    }

}

/// A z/y/x loop nest over the work-items of a work-group.
pub(super) struct Nest {
    pub(super) pre: LLVMBasicBlockRef,
    pub(super) heads: Vec<LLVMBasicBlockRef>,
    pub(super) ivs: Vec<LLVMValueRef>,
    pub(super) mins: Vec<LLVMValueRef>,
    pub(super) maxs: Vec<LLVMValueRef>,
    pub(super) latches: Vec<LLVMBasicBlockRef>,
    pub(super) done: LLVMBasicBlockRef,
}

/// A fresh `distinct !{}`, the form LLVM requires of an access group. The C
/// API cannot create distinct nodes, so one is parsed (nodes belong to the
/// context and outlive the scratch module).
pub(super) unsafe fn distinct_empty_node(ctx: LLVMContextRef) -> LLVMMetadataRef {
    let src = "define void @f(ptr %p) {\n  store i8 0, ptr %p, !llvm.access.group !0\n  ret void\n}\n!0 = distinct !{}\n";
    let buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(src.as_ptr().cast(), src.len(), c"access-group".as_ptr());
    let mut m: LLVMModuleRef = std::ptr::null_mut();
    let mut msg = std::ptr::null_mut();
    let failed = llvm_sys::ir_reader::LLVMParseIRInContext2(ctx, buf, &mut m, &mut msg);
    LLVMDisposeMemoryBuffer(buf);
    assert!(failed == 0, "the access-group snippet parses");
    let f = LLVMGetNamedFunction(m, c"f".as_ptr());
    let store = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(f));
    let k = "llvm.access.group";
    let kind = LLVMGetMDKindIDInContext(ctx, k.as_ptr().cast(), k.len() as u32);
    let node = LLVMValueAsMetadata(LLVMGetMetadata(store, kind));
    LLVMDisposeModule(m);
    node
}
