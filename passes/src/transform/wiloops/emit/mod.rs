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
//! - [`resume`]: the linear form, one copy of the kernel entered through a
//!   resume switch, for kernels whose region copies would be too many;
//! - [`interleave`]: seed 001's interleaved function;
//! - [`warp`]: the warp dispatcher (COX) for kernels with warp barriers;
//! - [`abi`]: what the C ABI fixes (`ctx` fields, parameters, data symbols).

mod abi;
mod clone;
mod dispatch;
mod interleave;
mod nest;
mod resume;
mod warp;

use super::layout::{Layout, Slot};
use super::scopes::{Root, Roots};
use crate::ir::{AccessGroup, AliasScope, Builder, Inst, Ty, Value};
use crate::wg_abi::{Scalar, CTX_FIELDS};
use inkwell::basic_block::BasicBlock;
use inkwell::module::Module;
use inkwell::types::{BasicType, BasicTypeEnum};
use inkwell::values::FunctionValue;
use inkwell::AddressSpace;
use nest::Nest;
use std::collections::{HashMap, HashSet};

/// A region: the blocks reachable from `entry` without entering a barrier block.
pub struct Region<'ctx> {
    /// The state that starts it: 0 for the kernel entry, b for barrier b.
    pub state: u32,
    pub entry: BasicBlock<'ctx>,
    /// In reverse post-order of the kernel, so definitions precede uses.
    pub blocks: Vec<BasicBlock<'ctx>>,
    /// The states its work-items can stop at, sorted.
    pub exit_states: Vec<u32>,
    /// Whether every one of its exits (barriers, returns) is reached under
    /// uniform control only, so that all work-items stop at the same one.
    pub uniform_exits: bool,
}

pub struct Emitter<'a, 'ctx> {
    module: &'a Module<'ctx>,
    b: Builder<'ctx>,
    kernel: FunctionValue<'ctx>,
    f: FunctionValue<'ctx>,
    i64t: Ty<'ctx>,
    i32t: Ty<'ctx>,
    i8t: Ty<'ctx>,
    ptr: Ty<'ctx>,
    ctx_ty: Ty<'ctx>,
    ctx_arg: Value<'ctx>,
    /// Read from `ctx` by `emit_launch_values`, at the start of each function.
    launch: Option<Launch<'ctx>>,
    /// Kernel parameters, as values in the new function.
    params: HashMap<Value<'ctx>, Value<'ctx>>,
    barrier_blocks: HashMap<BasicBlock<'ctx>, u32>,
    exit_state: u32,
    layout: Layout<'ctx>,
    /// The work-group the code being cloned runs for.
    view: Option<WgView<'ctx>>,
    access_group: AccessGroup<'ctx>,
    /// Defined functions that use work-item builtins or barriers.
    simt_callees: HashSet<FunctionValue<'ctx>>,
    /// The work-item the region being cloned runs for.
    items: Option<Items<'ctx>>,
    /// The last nest's exit, not yet terminated, while groups are chained.
    pending_done: Option<BasicBlock<'ctx>>,
    /// The work-group size the function is specialised for, if any.
    fixed_local_size: Option<[u64; 3]>,
    /// Per-work-group slots as read once before the current region's
    /// work-item loop: loads of them in the loop become these scalars.
    snapshots: HashMap<Value<'ctx>, Value<'ctx>>,
    /// Per-work-group slots that every work-item of a region writes or none
    /// does (the definition they hold runs under uniform control).
    stored_by_all: HashSet<Inst<'ctx>>,
    /// Whether the region being cloned starts each work-item by writing
    /// those slots' snapshots back (`clone_region`): the dispatcher's
    /// regions, one nest each.
    reset_shared: bool,
    /// Rematerialized values by block of the new function: a block
    /// recomputes each at most once (its later uses follow the copy).
    remat: std::cell::RefCell<HashMap<(Value<'ctx>, BasicBlock<'ctx>), Value<'ctx>>>,
    /// Where the kernel's addresses point, for `scopes`.
    roots: Option<Roots<'ctx>>,
    /// This function's no-alias scopes: the scratch and the uniform slots
    /// (`super::scopes`).
    scopes: [AliasScope<'ctx>; 2],
    /// The warp dispatcher's exchange phase (`warp.rs`), which calls to
    /// `simt.warp.phase` in the region being cloned stand for.
    warp_phase: Option<Value<'ctx>>,
    /// Per-work-item slots of values uniform in the work-group, which the
    /// warp dispatcher keeps once per warp, in the first lane's copy.
    warp_uniform: HashSet<Inst<'ctx>>,
}

/// The launch-wide values, as read at the start of the function.
#[derive(Clone, Copy)]
pub(super) struct Launch<'ctx> {
    /// This work-group's size (smaller in a non-uniform launch's last ones).
    local_size: [Value<'ctx>; 3],
    /// The launch's local size (`get_enqueued_local_size`).
    enqueued: [Value<'ctx>; 3],
    global_size: [Value<'ctx>; 3],
    num_groups: [Value<'ctx>; 3],
    offset: [Value<'ctx>; 3],
    work_dim: Value<'ctx>,
    n_items: Value<'ctx>,
}

impl<'a, 'ctx> Emitter<'a, 'ctx> {
    /// An emitter for `kernel`, a prepared kernel of `module`; adds the
    /// (empty) function `simt_wg_K`.
    pub fn new(
        module: &'a Module<'ctx>,
        kernel: FunctionValue<'ctx>,
        name: &str,
        layout: Layout<'ctx>,
        barrier_blocks: HashMap<BasicBlock<'ctx>, u32>,
        simt_callees: HashSet<FunctionValue<'ctx>>,
        fixed_local_size: Option<[u64; 3]>,
    ) -> Emitter<'a, 'ctx> {
        let ctx = module.get_context();
        let (i64t, i32t, i8t) = (ctx.i64_type(), ctx.i32_type(), ctx.i8_type());
        let ptr = ctx.ptr_type(AddressSpace::default());
        let fields: Vec<BasicTypeEnum<'ctx>> = CTX_FIELDS
            .iter()
            .map(|f| {
                let t: BasicTypeEnum<'ctx> = match f.scalar {
                    Scalar::U32 => i32t.into(),
                    Scalar::U64 => i64t.into(),
                    Scalar::Ptr => ptr.into(),
                };
                f.array.map_or(t, |n| t.array_type(n).into())
            })
            .collect();
        let ctx_ty = ctx.struct_type(&fields, false);
        let fn_ty = i32t.fn_type(&[ptr.into(), ptr.into()], false);
        let f = module.add_function(&crate::wg_abi::wg_function(name), fn_ty, None);
        let exit_state = crate::wg_abi::exit_id(barrier_blocks.len() as u32);
        Emitter {
            module,
            b: Builder::new(Value::from(f)),
            kernel,
            f,
            i64t: Ty::of(i64t),
            i32t: Ty::of(i32t),
            i8t: Ty::of(i8t),
            ptr: Ty::of(ptr),
            ctx_ty: Ty::of(ctx_ty),
            ctx_arg: crate::ir::parameters(f)[1],
            launch: None,
            params: HashMap::new(),
            barrier_blocks,
            exit_state,
            layout,
            view: None,
            access_group: AccessGroup::new(module),
            simt_callees,
            items: None,
            pending_done: None,
            fixed_local_size,
            snapshots: HashMap::new(),
            stored_by_all: HashSet::new(),
            reset_shared: false,
            remat: Default::default(),
            roots: None,
            scopes: {
                let s = AliasScope::domain(module, "simt-wiloops slots", &["scratch", "uniform"]);
                [s[0], s[1]]
            },
            warp_phase: None,
            warp_uniform: HashSet::new(),
        }
    }

    /// Gives the emitter the roots of the kernel's addresses: from then on
    /// cloned loads and stores carry no-alias scopes (`super::scopes`).
    pub fn set_roots(&mut self, roots: Roots<'ctx>) {
        self.roots = Some(roots);
    }

    /// The slots of values uniform in the work-group (for the warp
    /// dispatcher, which keeps them per warp).
    pub fn set_warp_uniform(&mut self, slots: HashSet<Inst<'ctx>>) {
        self.warp_uniform = slots;
    }

    /// Gives the emitter the per-work-group slots that every work-item of a
    /// region writes or none does.
    pub fn set_stored_by_all(&mut self, slots: HashSet<Inst<'ctx>>) {
        self.stored_by_all = slots;
    }

    /// The scopes of a load or store whose kernel address is `ptr`.
    pub(super) fn tag_access(&self, access: Inst<'ctx>, ptr: Value<'ctx>) {
        let [scratch, uniform] = self.scopes;
        match self.roots.as_ref().and_then(|r| r.of(ptr)) {
            Some(Root::Scratch) => access.set_alias_scopes(&[scratch], &[uniform]),
            Some(Root::Uniform) => access.set_alias_scopes(&[uniform], &[scratch]),
            Some(Root::Outside) => access.set_alias_scopes(&[], &[scratch, uniform]),
            None => {}
        }
    }

    pub(super) fn block(&self, name: &str) -> BasicBlock<'ctx> {
        self.module.get_context().append_basic_block(self.f, name)
    }

    pub(super) fn c64(&self, v: u64) -> Value<'ctx> {
        self.i64t.const_int(v)
    }

    pub(super) fn c32(&self, v: u32) -> Value<'ctx> {
        self.i32t.const_int(v as u64)
    }

    pub(super) fn load(&mut self, ty: Ty<'ctx>, ptr: Value<'ctx>, name: &str) -> Value<'ctx> {
        self.b.load(ty, ptr, name).value()
    }

    pub(super) fn launch(&self) -> Launch<'ctx> {
        self.launch.expect("launch values read at the start of the function")
    }

    pub(super) fn view(&self) -> &WgView<'ctx> {
        self.view.as_ref().expect("a work-group view")
    }
}

/// The values that differ between the work-groups one function runs.
pub(super) struct WgView<'ctx> {
    group_id: [Value<'ctx>; 3],
    /// Local-memory variables (and, interleaved, `__local` pointer
    /// arguments) → their address in this work-group's block.
    locals: HashMap<Value<'ctx>, Value<'ctx>>,
    /// Allocas → the base of their slots in this work-group's memory.
    slot_base: HashMap<Inst<'ctx>, Value<'ctx>>,
}

#[derive(Clone, Copy)]
pub(super) struct Items<'ctx> {
    x: Value<'ctx>,
    y: Value<'ctx>,
    z: Value<'ctx>,
    w: Value<'ctx>,
    /// In the warp dispatcher's lane loops (`warp.rs`).
    warp: Option<WarpItems<'ctx>>,
}

/// The lane's offset in its warp and the warp's index, affine and
/// invariant in the lane loop where `w % 32` and `w / 32` would not be seen
/// to be, and the warp's first work-item.
#[derive(Clone, Copy)]
pub(super) struct WarpItems<'ctx> {
    lane: Value<'ctx>,
    warp: Value<'ctx>,
    first: Value<'ctx>,
}

/// Adds one incoming entry to `phi`.
pub(super) fn add_incoming<'ctx>(phi: Inst<'ctx>, v: Value<'ctx>, from: BasicBlock<'ctx>) {
    phi.add_incoming(&[(v, from)]);
}
