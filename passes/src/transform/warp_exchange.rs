//! `simt-warp-exchange`: CUDA's warp functions on the host engine, the
//! warp half of COX's hierarchical collapsing (Han et al., "COX: Exposing
//! CUDA Warp-level Functions to CPUs", 2022).
//!
//! Why: on a GPU the 32 lanes of a warp run a shuffle or a vote together; on
//! the host, `simt-wiloops` runs a block's work-items one after another, so a
//! lane cannot read another lane's register. COX makes every warp function a
//! *warp-level barrier*: the lanes of one warp each write their operand to a
//! per-warp buffer and stop; once all 32 have, each reads the result from the
//! buffer. This pass does the exchange; `simt-wiloops` (its warp dispatcher,
//! `wiloops/emit/warp.rs`) runs the block as a loop over warps whose body is
//! a loop over their 32 lanes, split at these barriers, so that warp barriers
//! need only the lanes of one warp while `__syncthreads` still needs all.
//!
//! ```text
//!   %r = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %v, i32 16, i32 31)
//! becomes
//!   call @simt.warp.put32(@simt.warp.xbuf, phase, %lane, %v)        ; row[phase & 1][32 + lane] = v
//!   call void @simt.warp.barrier()                                  ; a region boundary
//!   %r = call @simt.warp.shfl(@simt.warp.xbuf, phase, 2, %lane, %n, 16, 31)   ; the other row's [32 + src]
//! ```
//!
//! The buffer alternates between two rows: lane 0 reads instance k's row in
//! the same region where it writes instance k+1's, before lane 1 has read
//! instance k's. The row is the warp's phase (`simt.warp.phase`), which the
//! warp dispatcher flips at every warp barrier, so it is the same for all
//! lanes of a region run: the lane loop's addresses stay affine in the lane
//! and the loop vectorises (COX's point: the 32-lane loops must become SIMD
//! code). For the same reason the helpers are inlined here, before
//! `simt-wiloops` clones the kernel, so that their loads and stores join the
//! lane loop's parallel accesses, and the lane, the phase and the warp's
//! size are read again after the barrier instead of being kept across it
//! (per lane, in memory).
//!
//! First, a loop of shuffles whose control is known at compile time (a
//! constant trip count and offsets: the usual warp reduction, scan or
//! butterfly) is collapsed instead (`warp_collapse.rs`): it runs once per
//! warp on vectors of the 32 lanes, between two warp barriers, so that
//! its steps exchange values in registers; `no-collapse` turns it off.
//!
//! Last, a loop of warp functions gets warp barriers on its back edge and
//! exit (`warp_loops.rs`), so that each of its regions is straight-line
//! and its lane loop vectorises.
//!
//! Handled: `shfl.sync.{idx,up,down,bfly}.{i32,f32}`, `vote.{all,any,uni,
//! ballot}.sync`, `activemask`, `bar.warp.sync` (`__syncwarp`),
//! `match.any.sync.{i32,i64}`, `redux.sync.*`; the readers are the IR of
//! `warp_exchange.ll`, with the emulator's semantics (`src/engine/emu`).
//! Functions that call them are inlined into the kernel first.
//!
//! Limits: the lanes of a warp must reach each warp function together (the
//! warp dispatcher stops with both barriers named otherwise): warp functions
//! under a branch that splits a warp, and lanes that returned early while the
//! rest shuffle, are not run (the emulator runs both). Lanes that do not exist
//! (past the end of a partial warp) take part in nothing; a shuffle from one
//! returns the caller's own value, as on the emulator. The member mask of a
//! shuffle is not checked.

use crate::ir::globals::function_or_declare;
use crate::ir::{defined_functions, function_name, instructions, Builder, Inst, Ty, Value};
use crate::kernel_model::is_kernel;
use crate::pass::{DeclaredPass, ModulePass, PassContext, PassError, Preserved};
use crate::transform::warp_collapse;
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::{Linkage, Module};
use inkwell::values::FunctionValue;
use std::collections::HashSet;

/// The warp-level barrier this pass leaves for `simt-wiloops`.
pub const WARP_BARRIER: &str = "simt.warp.barrier";
/// The warp's exchange phase, which `simt-wiloops` gives each region run:
/// 0 when the warp starts after a block barrier, flipped at every warp
/// barrier. It picks the buffer's row (see `warp_exchange.ll`).
pub const WARP_PHASE: &str = "simt.warp.phase";
const BUFFER: &str = "simt.warp.xbuf";
const HELPERS: &str = include_str!("warp_exchange.ll");
const NAME: &str = "simt-warp-exchange";

#[derive(Default)]
pub struct WarpExchange {
    /// Leave loops of shuffles to the exchange (`no-collapse`), for
    /// comparisons and the tests of what the exchange does alone.
    no_collapse: bool,
}

/// A warp function, with the mode its reader takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpFn {
    /// 0 idx, 1 up, 2 down, 3 bfly.
    Shfl(u32),
    /// 0 ballot, 1 all, 2 any, 3 uni.
    Vote(u32),
    Active,
    Sync,
    MatchAny,
    /// 0 add, 1 min, 2 max, 3 umin, 4 umax, 5 and, 6 or, 7 xor.
    Redux(u32),
}

/// The warp function the intrinsic `name` is, if it is one.
pub fn warp_fn(name: &str) -> Option<WarpFn> {
    let rest = name.strip_prefix("llvm.nvvm.")?;
    Some(match rest {
        "activemask" => WarpFn::Active,
        "bar.warp.sync" => WarpFn::Sync,
        "vote.ballot.sync" => WarpFn::Vote(0),
        "vote.all.sync" => WarpFn::Vote(1),
        "vote.any.sync" => WarpFn::Vote(2),
        "vote.uni.sync" => WarpFn::Vote(3),
        "match.any.sync.i32" | "match.any.sync.i64" => WarpFn::MatchAny,
        _ => {
            if let Some(op) = rest.strip_prefix("redux.sync.") {
                let modes = ["add", "min", "max", "umin", "umax", "and", "or", "xor"];
                return modes.iter().position(|m| *m == op).map(|k| WarpFn::Redux(k as u32));
            }
            let shfl = rest.strip_prefix("shfl.sync.")?;
            let kind = shfl.strip_suffix(".i32").or_else(|| shfl.strip_suffix(".f32"))?;
            WarpFn::Shfl(["idx", "up", "down", "bfly"].iter().position(|m| *m == kind)? as u32)
        }
    })
}

fn warp_call(i: Inst<'_>) -> Option<WarpFn> {
    if !i.is_call() {
        return None;
    }
    warp_fn(&function_name(i.called_function()?))
}

impl DeclaredPass for WarpExchange {
    const NAME: &'static str = NAME;
    const SUMMARY: &'static str =
        "CUDA warp functions become writes to a per-warp buffer, a warp barrier and a read (COX, for simt-wiloops)";
    const OPTIONS: &'static [(&'static str, &'static str)] =
        &[("no-collapse", "no loop of shuffles runs once per warp on vectors (warp_collapse.rs): every shuffle is exchanged")];

    fn set_option(&mut self, key: &str, value: Option<&str>) -> Result<(), String> {
        match (key, value) {
            ("no-collapse", None) => {
                self.no_collapse = true;
                Ok(())
            }
            _ => Err(crate::pass::unknown_option::<Self>(key)),
        }
    }
}

impl ModulePass for WarpExchange {
    fn name(&self) -> String {
        if self.no_collapse {
            format!("{NAME}<no-collapse>")
        } else {
            NAME.into()
        }
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        let m = cx.module_mut();
        let err = |message: String| PassError::Unsupported { pass: NAME.into(), message };
        let users = warp_users(m);
        if users.is_empty() {
            return Ok(Preserved::all());
        }
        inline_into_kernels(m, &users).map_err(err)?;
        let helpers = crate::ir::link::parse_in(m, "warp_exchange.ll", HELPERS.as_bytes()).map_err(err)?;
        helpers.set_target_of(m);
        crate::ir::link::link_into(m, helpers).map_err(err)?;
        for f in m.get_functions().filter(|f| function_name(*f).starts_with("simt.warp.") && f.count_basic_blocks() > 0) {
            f.set_linkage(Linkage::Internal);
        }
        m.get_global(BUFFER).expect("linked from warp_exchange.ll").set_linkage(Linkage::Internal);
        let kernels: Vec<FunctionValue<'_>> = defined_functions(m).into_iter().filter(|&f| is_kernel(f)).collect();
        let mut exchanging = Vec::new();
        for &k in kernels.iter().filter(|_| !self.no_collapse) {
            warp_collapse::libm_as_intrinsics(cx.module(), k);
            if collapse(cx, k) {
                exchanging.push(k);
            }
        }
        let m = cx.module_mut();
        for k in kernels {
            let calls: Vec<(Inst<'_>, WarpFn)> =
                k.get_basic_block_iter().flat_map(instructions).filter_map(|i| Some((i, warp_call(i)?))).collect();
            if calls.is_empty() {
                continue;
            }
            for (call, op) in calls {
                rewrite(m, call, op);
            }
            if !exchanging.contains(&k) {
                exchanging.push(k);
            }
        }
        // The helpers' loads and stores must sit in the kernel when
        // `simt-wiloops` clones it, to join the lane loop's parallel accesses
        // (a call would keep the loop from vectorising).
        crate::ir::run_passes(m, "always-inline").map_err(|e| err(format!("LLVM's always-inline failed: {e}")))?;
        for f in m.get_functions().collect::<Vec<_>>() {
            if function_name(f).starts_with("simt.warp.") && f.count_basic_blocks() > 0 && !Value::from(f).has_uses() {
                crate::ir::delete_function(f);
            }
        }
        // Once the kernels hold their final CFG: loops of warp functions get
        // warp barriers at their back edge and exit (`warp_loops.rs`).
        for k in exchanging {
            let plans = crate::transform::warp_loops::plan(cx.analyses(k));
            crate::transform::warp_loops::insert(cx.module(), &plans);
        }
        Ok(Preserved::none())
    }
}

/// Collapses kernel `k`'s loops of shuffles that can run once per warp
/// (`warp_collapse.rs`), one at a time: a loop's values that another uses
/// are read from the buffer once it is collapsed, so the other is planned
/// again. Whether any was.
fn collapse<'ctx>(cx: &mut PassContext<'_, 'ctx>, k: FunctionValue<'ctx>) -> bool {
    let mut refused = HashSet::new();
    let mut any = false;
    loop {
        let plans = warp_collapse::plan(cx.analyses(k));
        let Some(c) = plans.into_iter().find(|c| !refused.contains(&c.header())) else { return any };
        if warp_collapse::apply(cx.module(), &c) {
            any = true;
            // The loop's blocks are left unreachable.
            cx.forget_analyses();
            crate::transform::wiloops::prepare::remove_unreachable_blocks(&cx.analyses(k).cfg);
            cx.forget_analyses();
        } else {
            refused.insert(c.header());
        }
    }
}

/// Defined functions that call a warp function, directly or through others.
fn warp_users<'ctx>(m: &Module<'ctx>) -> HashSet<FunctionValue<'ctx>> {
    let graph = crate::transform::call_graph::CallGraph::new(m);
    let mut users: HashSet<FunctionValue<'ctx>> = defined_functions(m)
        .into_iter()
        .filter(|f| f.get_basic_block_iter().flat_map(instructions).any(|i| warp_call(i).is_some()))
        .collect();
    loop {
        let more: Vec<FunctionValue<'ctx>> = defined_functions(m)
            .into_iter()
            .filter(|f| !users.contains(f) && graph.callees(*f).iter().any(|c| users.contains(c)))
            .collect();
        if more.is_empty() {
            return users;
        }
        users.extend(more);
    }
}

/// Inlines every non-kernel function of `users` (as `simt-flatten-calls`
/// does for barriers): each warp function must sit in the kernel, where
/// `simt-wiloops` splits it.
fn inline_into_kernels<'ctx>(m: &Module<'ctx>, users: &HashSet<FunctionValue<'ctx>>) -> Result<(), String> {
    let kind = Attribute::get_named_enum_kind_id;
    let ctx = m.get_context();
    let helpers: Vec<FunctionValue<'ctx>> = users.iter().copied().filter(|&f| !is_kernel(f)).collect();
    if helpers.is_empty() {
        return Ok(());
    }
    for f in &helpers {
        f.remove_enum_attribute(AttributeLoc::Function, kind("noinline"));
        f.remove_enum_attribute(AttributeLoc::Function, kind("optnone"));
        f.add_attribute(AttributeLoc::Function, ctx.create_enum_attribute(kind("alwaysinline"), 0));
    }
    crate::ir::run_passes(m, "always-inline").map_err(|e| format!("LLVM's always-inline failed: {e}"))?;
    for k in defined_functions(m).into_iter().filter(|&f| is_kernel(f)) {
        for i in k.get_basic_block_iter().flat_map(instructions) {
            if let Some(callee) = i.is_call().then(|| i.called_function()).flatten() {
                if helpers.contains(&callee) {
                    return Err(format!(
                        "kernel '{}': the call to '{}' (which uses warp functions) could not be inlined (recursive?)",
                        function_name(k),
                        function_name(callee)
                    ));
                }
            }
        }
    }
    Ok(())
}

fn helper<'ctx>(m: &Module<'ctx>, name: &str) -> Value<'ctx> {
    Value::from(m.get_function(name).unwrap_or_else(|| panic!("{name} is in warp_exchange.ll")))
}

/// The lanes the warp has (`simt.warp.count` of the block's size and the
/// warp's id): 32, or fewer in a partial last warp.
pub(crate) fn warp_lanes<'ctx>(m: &Module<'ctx>, b: &mut Builder<'ctx>) -> Value<'ctx> {
    let dims: Vec<Value<'ctx>> = ["ntid.x", "ntid.y", "ntid.z", "warpid"].iter().map(|r| sreg(m, b, r)).collect();
    b.call_function(helper(m, "simt.warp.count"), &dims, "warp.lanes").value()
}

pub(crate) fn sreg<'ctx>(m: &Module<'ctx>, b: &mut Builder<'ctx>, reg: &str) -> Value<'ctx> {
    let i32t = Ty::of(m.get_context().i32_type());
    let f = function_or_declare(m, &format!("llvm.nvvm.read.ptx.sreg.{reg}"), Ty::function(i32t, &[]));
    b.call_function(f, &[], reg).value()
}

/// Replaces the warp function `call` by the exchange (see the header).
/// The lane, the phase and the warp's size are read again after the
/// barrier rather than kept across it, which would store them per lane.
fn rewrite<'ctx>(m: &Module<'ctx>, call: Inst<'ctx>, op: WarpFn) {
    let ctx = m.get_context();
    let (i32t, i64t) = (Ty::of(ctx.i32_type()), Ty::of(ctx.i64_type()));
    let mut b = Builder::new(call.value());
    b.position_before(call);
    let args = call.call_args();
    let c32 = |v: u32| i32t.const_int(u64::from(v));
    let bufs = Value::of(m.get_global(BUFFER).expect("linked from warp_exchange.ll").as_pointer_value());
    let phase_fn = function_or_declare(m, WARP_PHASE, Ty::function(i32t, &[]));
    // The operand each lane writes: 32 bits, or 64 for a 64-bit match.
    let operand = match op {
        WarpFn::Shfl(_) | WarpFn::Vote(_) | WarpFn::MatchAny => Some(args[1]),
        WarpFn::Redux(_) => Some(args[0]),
        WarpFn::Active | WarpFn::Sync => None,
    };
    if let Some(v) = operand {
        let lane = sreg(m, &mut b, "laneid");
        let phase = b.call_function(phase_fn, &[], "warp.phase").value();
        if v.ty() == i64t {
            b.call_function(helper(m, "simt.warp.put64"), &[bufs, phase, lane, v], "");
        } else {
            let bits = if v.ty().is_integer() { v } else { b.bit_cast(v, i32t, "") };
            let bits = if bits.ty() == i32t { bits } else { b.zext(bits, i32t, "") };
            b.call_function(helper(m, "simt.warp.put32"), &[bufs, phase, lane, bits], "");
        }
    }
    let barrier = function_or_declare(m, WARP_BARRIER, Ty::function(Ty::of(ctx.void_type()), &[]));
    // The barrier names the warp function's line in a divergence error.
    b.call_function(barrier, &[], "").copy_debug_location(call);
    let lane = sreg(m, &mut b, "laneid");
    let phase = b.call_function(phase_fn, &[], "warp.phase").value();
    let n = warp_lanes(m, &mut b);
    let result = match op {
        WarpFn::Sync => None,
        WarpFn::Active => Some(b.call_function(helper(m, "simt.warp.active"), &[n], "warp.active").value()),
        WarpFn::Shfl(mode) => {
            let r = b.call_function(helper(m, "simt.warp.shfl"), &[bufs, phase, c32(mode), lane, n, args[2], args[3]], "").value();
            Some(if call.ty() == i32t { r } else { b.bit_cast(r, call.ty(), "shfl") })
        }
        WarpFn::Vote(mode) => {
            let r = b.call_function(helper(m, "simt.warp.vote"), &[bufs, phase, c32(mode), n, args[0]], "vote").value();
            Some(if call.ty() == i32t { r } else { b.trunc(r, call.ty(), "") })
        }
        WarpFn::MatchAny if args[1].ty() == i64t => {
            Some(b.call_function(helper(m, "simt.warp.match64"), &[bufs, phase, n, args[0], args[1]], "match").value())
        }
        WarpFn::MatchAny => Some(b.call_function(helper(m, "simt.warp.match32"), &[bufs, phase, n, args[0], args[1]], "match").value()),
        WarpFn::Redux(mode) => Some(b.call_function(helper(m, "simt.warp.redux"), &[bufs, phase, c32(mode), n, args[1]], "redux").value()),
    };
    if let Some(r) = result {
        call.value().replace_all_uses_with(r);
    }
    call.erase();
}
