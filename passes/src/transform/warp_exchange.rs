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
//!   %row = call @simt.warp.put(@simt.warp.xbuf, %counter, %lane, zext %v)   ; xbuf[k&1][lane] = v
//!   call void @simt.warp.barrier()                                          ; a region boundary
//!   %r64 = call @simt.warp.shfl(%row, 2, %lane, %nlanes, 16, 31)            ; row[src lane]
//! ```
//!
//! The buffer alternates between two rows by the parity of a per-lane count
//! of warp functions: lane 0 reads instance k's row in the same region where
//! it writes instance k+1's, before lane 1 has read instance k's.
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
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::{Linkage, Module};
use inkwell::values::FunctionValue;
use std::collections::HashSet;

/// The warp-level barrier this pass leaves for `simt-wiloops`.
pub const WARP_BARRIER: &str = "simt.warp.barrier";
const BUFFER: &str = "simt.warp.xbuf";
const HELPERS: &str = include_str!("warp_exchange.ll");
const NAME: &str = "simt-warp-exchange";

#[derive(Default)]
pub struct WarpExchange;

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
}

impl ModulePass for WarpExchange {
    fn name(&self) -> String {
        NAME.into()
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
        for k in defined_functions(m).into_iter().filter(|&f| is_kernel(f)) {
            let calls: Vec<(Inst<'_>, WarpFn)> =
                k.get_basic_block_iter().flat_map(instructions).filter_map(|i| Some((i, warp_call(i)?))).collect();
            if calls.is_empty() {
                continue;
            }
            let counter = lane_counter(m, k);
            for (call, op) in calls {
                rewrite(m, call, op, counter);
            }
        }
        Ok(Preserved::none())
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
/// `simt-wiloops` splits it, and use the kernel's one lane counter.
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

/// A private counter of the warp functions this lane has run, 0 at entry.
fn lane_counter<'ctx>(m: &Module<'ctx>, k: FunctionValue<'ctx>) -> Value<'ctx> {
    let entry = k.get_first_basic_block().expect("a defined kernel");
    let first = instructions(entry).next().expect("a terminated block");
    let mut b = Builder::new(Value::from(k));
    b.position_before(first);
    let i32t = Ty::of(m.get_context().i32_type());
    let counter = b.alloca(i32t, "warp.count");
    b.store(i32t.const_int(0), counter.value());
    counter.value()
}

fn helper<'ctx>(m: &Module<'ctx>, name: &str) -> Value<'ctx> {
    Value::from(m.get_function(name).unwrap_or_else(|| panic!("{name} is in warp_exchange.ll")))
}

fn sreg<'ctx>(m: &Module<'ctx>, b: &mut Builder<'ctx>, reg: &str) -> Value<'ctx> {
    let i32t = Ty::of(m.get_context().i32_type());
    let f = function_or_declare(m, &format!("llvm.nvvm.read.ptx.sreg.{reg}"), Ty::function(i32t, &[]));
    b.call_function(f, &[], reg).value()
}

/// Replaces the warp function `call` by the exchange (see the header).
fn rewrite<'ctx>(m: &Module<'ctx>, call: Inst<'ctx>, op: WarpFn, counter: Value<'ctx>) {
    let ctx = m.get_context();
    let (i32t, i64t) = (Ty::of(ctx.i32_type()), Ty::of(ctx.i64_type()));
    let mut b = Builder::new(call.value());
    b.position_before(call);
    let args = call.call_args();
    let lane = sreg(m, &mut b, "laneid");
    let dims: Vec<Value<'ctx>> = ["ntid.x", "ntid.y", "ntid.z", "warpid"].iter().map(|r| sreg(m, &mut b, r)).collect();
    let n = b.call_function(helper(m, "simt.warp.count"), &dims, "warp.lanes").value();
    let c32 = |v: u32| i32t.const_int(u64::from(v));
    // The operand each lane writes, as the i64 of its bits.
    let operand = match op {
        WarpFn::Shfl(_) | WarpFn::Vote(_) | WarpFn::MatchAny => Some(args[1]),
        WarpFn::Redux(_) => Some(args[0]),
        WarpFn::Active | WarpFn::Sync => None,
    };
    let row = operand.map(|v| {
        let bits = if v.ty().is_integer() { v } else { b.bit_cast(v, i32t, "") };
        let wide = b.zext(bits, i64t, "");
        let bufs = Value::of(m.get_global(BUFFER).expect("linked from warp_exchange.ll").as_pointer_value());
        b.call_function(helper(m, "simt.warp.put"), &[bufs, counter, lane, wide], "warp.row").value()
    });
    let barrier = function_or_declare(m, WARP_BARRIER, Ty::function(Ty::of(ctx.void_type()), &[]));
    // The barrier names the warp function's line in a divergence error.
    b.call_function(barrier, &[], "").copy_debug_location(call);
    let result = match op {
        WarpFn::Sync => None,
        WarpFn::Active => Some(b.call_function(helper(m, "simt.warp.active"), &[n], "warp.active").value()),
        WarpFn::Shfl(mode) => {
            let row = row.expect("an operand");
            let r = b.call_function(helper(m, "simt.warp.shfl"), &[row, c32(mode), lane, n, args[2], args[3]], "").value();
            let r32 = b.trunc(r, i32t, "");
            Some(if call.ty() == i32t { r32 } else { b.bit_cast(r32, call.ty(), "shfl") })
        }
        WarpFn::Vote(mode) => {
            let r = b.call_function(helper(m, "simt.warp.vote"), &[row.expect("an operand"), c32(mode), n, args[0]], "vote").value();
            Some(if call.ty() == i32t { r } else { b.trunc(r, call.ty(), "") })
        }
        WarpFn::MatchAny => {
            let wide = if args[1].ty() == i64t { args[1] } else { b.zext(args[1], i64t, "") };
            Some(b.call_function(helper(m, "simt.warp.match"), &[row.expect("an operand"), n, args[0], wide], "match").value())
        }
        WarpFn::Redux(mode) => {
            Some(b.call_function(helper(m, "simt.warp.redux"), &[row.expect("an operand"), c32(mode), n, args[1]], "redux").value())
        }
    };
    if let Some(r) = result {
        call.value().replace_all_uses_with(r);
    }
    call.erase();
}
