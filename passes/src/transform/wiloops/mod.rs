//! `simt-wiloops`: SIMT kernels with barriers become CPU functions that run a
//! whole work-group (seed 001, Samsung CN104133668: work-item coalescing
//! loops; pocl's `WorkitemLoops`; Karrenberg & Hack's and the CuPBoP/COX line
//! of continuation-based synchronization for the general case).
//!
//! For each kernel `K` it emits `simt_wg_K(args, ctx)` with the C ABI of
//! [`crate::wg_abi`], and removes `K`. The method:
//!
//! 1. **Regions.** Each barrier gets a block of its own; the entry and every
//!    barrier start a region, the blocks reachable without passing another
//!    barrier, each region its own copy of blocks they share.
//! 2. **Scalar expansion.** SSA values live across a barrier are demoted to
//!    private memory, and private allocations get one copy per work-item in
//!    the scratch area, except arrays no value of which crosses a barrier
//!    (`region_local.rs`) and values uniform in the work-group (one slot);
//!    arrays indexed alike in all work-items interleave their copies
//!    (`innermost.rs`); slots get no-alias scopes (`scopes.rs`); local
//!    memory moves to `ctx.local_mem`.
//! 3. **Work-item loops.** Each region is wrapped in a z/y/x loop nest, the
//!    innermost marked parallel; a dispatcher runs the region after the
//!    barrier where the work-items stopped. Where a divergent branch controls
//!    a region's barriers or returns, the loop checks that all work-items
//!    stopped alike (else status 1, naming both barriers).
//!    **Linear form**: past [`REGION_COPY_BUDGET`] times the kernel's blocks,
//!    or with `<linear>`, one copy of the kernel in one nest, entered through
//!    a resume `switch` (continuation style, `emit/resume.rs`).
//! 4. **Interleaving** (seed 001's own, `<interleave=N>`): for kernels whose
//!    barriers are all in straight-line code, `simt_wgi_K` runs a sequence of
//!    work-groups, regions merged into balanced loop groups (`groups.rs`),
//!    statement k of a group running for work-group i − k.
//!
//! Barriers may sit anywhere a valid kernel has them (uniform `if`s, loops
//! with `break`, loops whose trip count differs between work-items as long
//! as every dynamic barrier instance is reached by all): the next region is
//! chosen at run time. Barriers under divergent control are warned about at
//! compile time, never rejected. Each step's reasons: `passes/DESIGN.md`.
//!
//! Limitations: calls to functions that use barriers or work-item builtins
//! must be inlined first (`simt-flatten-calls`, which `simt-run` runs);
//! `indirectbr`/`callbr` in kernels with barriers, variable-sized `alloca`s,
//! `byval` parameters and dynamically sized local memory are reported as
//! unsupported.

mod emit;
pub mod flatten;
pub mod groups;
mod innermost;
mod layout;
pub(crate) mod prepare;
mod region_local;
mod scopes;
mod warp_ids;

use crate::analysis::cache::FunctionAnalyses;
use crate::cfg::{BlockId, Cfg};
use crate::ir::{defined_functions, function_name, SlotNames, Value};
use crate::kernel_model::is_kernel;
use crate::pass::{ModulePass, PassContext, PassError, Preserved};
use emit::{Emitter, Region};
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::basic_block::BasicBlock;
use inkwell::targets::TargetData;
use inkwell::values::FunctionValue;
use llvm_sys::LLVMOpcode;
use std::collections::{HashMap, HashSet};

#[derive(Clone, Debug)]
pub struct WorkItemLoops {
    /// Work-groups interleaved by `simt_wgi_K` (seed 001); 1 emits none.
    pub interleave: u32,
    /// Specialise for this work-group size (as pocl does): the work-item
    /// loops get constant trip counts. Calls with another size return
    /// `STATUS_WRONG_LOCAL_SIZE`.
    pub local_size: Option<[u64; 3]>,
    /// Emit the linear (resume) form whatever the regions' size
    /// (`simt-wiloops<linear>`); otherwise only past [`REGION_COPY_BUDGET`].
    pub linear: bool,
}

impl Default for WorkItemLoops {
    fn default() -> Self {
        WorkItemLoops { interleave: 1, local_size: None, linear: false }
    }
}

/// How many blocks all region copies together may have, per block of the
/// (prepared) kernel, before the kernel is emitted in the linear form.
/// Region copies are what vectorises best, but their total follows the
/// barriers' reach, not the kernel: one barrier region copies everything up
/// to the next barriers, so barriers in loops and under branches multiply
/// it (a random one every 50 blocks of `gen-cfg.py`: 20x at 10k blocks,
/// 21x at 30k), and compile time follows. Real kernels with their barriers
/// in a few loops stay well below 4x (the corpus at most 1.4x, matmul; the
/// generated kernels of `tests/wiloops_exec.rs` at most 1.9x; BENCHMARKS.md),
/// so 4x leaves them on the region form while any kernel's output stays
/// within a constant factor of its input.
pub const REGION_COPY_BUDGET: usize = 4;

const NAME: &str = "simt-wiloops";

impl ModulePass for WorkItemLoops {
    fn name(&self) -> String {
        let mut opts = Vec::new();
        if self.interleave > 1 {
            opts.push(format!("interleave={}", self.interleave));
        }
        if let Some([x, y, z]) = self.local_size {
            opts.push(format!("local-size={x},{y},{z}"));
        }
        if self.linear {
            opts.push("linear".into());
        }
        if opts.is_empty() {
            NAME.into()
        } else {
            format!("{NAME}<{}>", opts.join(";"))
        }
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        let kernels: Vec<FunctionValue<'_>> = defined_functions(cx.module()).into_iter().filter(|f| is_kernel(*f)).collect();
        if kernels.is_empty() {
            return Ok(Preserved::all());
        }
        let simt_callees = crate::transform::call_graph::CallGraph::new(cx.module()).builtin_users();
        // The layout as the module holds it now: inkwell's `get_data_layout`
        // returns a stale string once the layout was set through the C API
        // (`simt-opt -mtriple` retargets before any pass).
        let td = crate::ir::data_layout_of(kernels[0]);
        for k in kernels {
            let name = function_name(k);
            let warnings = lower_kernel(cx, &td, k, &name, &simt_callees, self)
                .map_err(|message| PassError::Unsupported { pass: NAME.into(), message: format!("kernel '{name}': {message}") })?;
            for w in warnings {
                let _ = writeln!(cx.out(), "{NAME}: warning: kernel '{name}': {w}");
            }
        }
        crate::ir::remove_unused_kernel_twins(cx.module_mut());
        // Kernels are rebuilt and their twins deleted.
        Ok(Preserved::none())
    }
}

/// Lowers one kernel of `module`; returns warnings.
fn lower_kernel<'ctx>(
    cx: &mut PassContext<'_, 'ctx>,
    td: &TargetData,
    k: FunctionValue<'ctx>,
    name: &str,
    simt_callees: &HashSet<FunctionValue<'ctx>>,
    options: &WorkItemLoops,
) -> Result<Vec<String>, String> {
    let interleave = options.interleave;
    if !Value::from(k).global_value_type().return_type().is_void() {
        return Err("kernels must return void".into());
    }
    let byval = Attribute::get_named_enum_kind_id("byval");
    for i in 0..k.count_params() {
        if k.get_enum_attribute(AttributeLoc::Param(i), byval).is_some() {
            return Err(format!("parameter {i} is passed by value (byval), which is not supported yet"));
        }
    }
    // Before any analysis of the kernel: the ids it rewrites are values the
    // analyses would name.
    if let Some(local_size) = options.local_size.filter(|_| calls_warp_barrier(k)) {
        if warp_ids::rewrite(cx.module(), k, local_size) > 0 {
            cx.forget_analyses();
        }
    }
    prepare::remove_unreachable_blocks(&cx.analyses(k).cfg);
    prepare::release_unroll_hints(k);
    let names = SlotNames::new(k);
    let sites = prepare::split_at_barriers(k, &names);
    let barrier_ids: HashMap<BasicBlock<'ctx>, u32> = sites.iter().enumerate().map(|(i, s)| (s.block, i as u32 + 1)).collect();
    let warp_barriers = warp_barrier_ids(&sites);
    if !sites.is_empty() {
        for bb in k.get_basic_block_iter() {
            for i in crate::ir::instructions(bb) {
                if let Some(reason) = prepare::unsupported_reason(i) {
                    return Err(reason);
                }
            }
        }
    }

    // The CFG changed (barriers split, dead blocks gone): the cache rebuilds
    // the view, and every analysis below is computed on it once.
    let fa = cx.analyses(k);
    let mut warnings = divergent_barrier_warnings(fa, &sites);
    let uniformity = fa.uniformity();
    let loops = fa.loops();
    let cfg = &fa.cfg;
    let barrier_ids: HashMap<BlockId, u32> =
        barrier_ids.iter().map(|(&b, &id)| (cfg.id(b).expect("barrier blocks are reachable"), id)).collect();
    // Past the budget (or asked to), the linear form: `None` here.
    let region_blocks = if options.linear { None } else { regions(fa, &barrier_ids, REGION_COPY_BUDGET * cfg.blocks().len()) };
    if region_blocks.is_none() && !warp_barriers.is_empty() {
        return Err(
            "warp functions need the region form, and this kernel is emitted in the linear form (linear, or past the region budget)".into(),
        );
    }
    let region_sets: Vec<HashSet<BlockId>> = region_blocks.iter().flatten().map(|r| r.blocks.iter().copied().collect()).collect();
    // One slot per work-group is right for a value equal in all work-items
    // as long as, within a region, no read of it can follow a write to it:
    // work-items of a region run one after another, so such a read would see
    // a later work-item's update... Each region instead reads the slot once,
    // before its work-item loop (emit.rs), and only writes follow.
    let mut barrier_blocks: Vec<BlockId> = barrier_ids.keys().copied().collect();
    barrier_blocks.sort();
    // Before demotion adds its slots: those cross barriers by construction.
    let region_local = region_local::region_local_allocas(fa, &barrier_blocks);
    let private_addresses = private_addresses(fa, &region_local);
    let per_item: Vec<crate::ir::Inst<'ctx>> = if barrier_blocks.is_empty() {
        Vec::new()
    } else {
        cfg.blocks().iter().flat_map(|&b| crate::ir::instructions(b)).filter(|i| i.is_alloca() && !region_local.contains(i)).collect()
    };
    // Before demotion, whose loads the uniformity analysis does not know.
    let barrier_set: HashSet<BlockId> = barrier_blocks.iter().copied().collect();
    let in_item_loop = |i: crate::ir::Inst<'ctx>| match cfg.id(i.block()).and_then(|b| loops.innermost(b)) {
        None => true,
        Some(l) => loops.get(l).blocks.iter().any(|b| barrier_set.contains(b)),
    };
    let innermost = innermost::choose(td, uniformity, &per_item, &in_item_loop);
    let since_barrier = prepare::SinceBarrier::new(fa, &barrier_blocks);
    let shareable = |v: Value<'ctx>| {
        // The linear form has no region sets to search (see emit/resume.rs).
        if region_blocks.is_none() || uniformity.is_divergent(v) || private_addresses.may_hold(v) {
            return false;
        }
        let Some(def) = v.as_inst().and_then(|i| cfg.id(i.block())) else { return false };
        let mut l = loops.innermost(def);
        while let Some(id) = l {
            if uniformity.divergent_loop_headers().contains(&loops.get(id).header) {
                return false;
            }
            l = loops.get(id).parent;
        }
        // Only the uses that read the slot matter: the others take the
        // value of the same region's definition.
        let inst = v.as_inst().expect("checked above");
        let uses: Vec<BlockId> =
            prepare::use_blocks(v).into_iter().filter(|&u| since_barrier.needs_slot(fa, inst, u)).filter_map(|u| cfg.id(u)).collect();
        !region_sets.iter().any(|r| r.contains(&def) && uses.iter().any(|&u| reaches_within(&cfg.cfg, def, u, r)))
    };
    let mut demoted = prepare::demote_cross_barrier_values(fa, &barrier_blocks, &since_barrier, &shareable)?;
    // Warps run a region one after another (emit/warp.rs): with one slot
    // per work-group, a later warp would read what an earlier one wrote.
    // Such a value gets one slot per warp instead, in its first lane's
    // scratch, which the warp's lane loops read once and all write alike.
    let mut warp_uniform = HashSet::new();
    if !warp_barriers.is_empty() {
        for d in demoted.iter_mut().filter(|d| d.shared) {
            d.shared = false;
            warp_uniform.insert(d.alloca);
        }
    }
    let to_region = |r: RegionBlocks| Region {
        state: r.state,
        entry: cfg.block(r.entry),
        blocks: r.blocks.iter().map(|&b| cfg.block(b)).collect(),
        exit_states: r.exit_states,
        uniform_exits: r.uniform_exits,
    };
    let form = match region_blocks {
        Some(rs) => Form::Regions(rs.into_iter().map(to_region).collect()),
        None => {
            let mut by_id: Vec<(BlockId, u32)> = barrier_ids.iter().map(|(&b, &id)| (b, id)).collect();
            by_id.sort_by_key(|&(_, id)| id);
            let resume = by_id.iter().map(|&(b, id)| (id, cfg.block(cfg.cfg.succs(b)[0]))).collect();
            Form::Linear { kernel: to_region(whole_kernel(fa, &by_id)), resume }
        }
    };
    let barrier_ids: HashMap<BasicBlock<'ctx>, u32> = barrier_ids.into_iter().map(|(b, id)| (cfg.block(b), id)).collect();
    let layout = layout::compute(td, k, &demoted, &region_local, innermost)?;

    let roots = scopes::Roots::new(&layout, &demoted);
    // Shared slots that every work-item of a region writes or none does:
    // their definition runs under uniform control (emit/clone.rs).
    let stored_by_all: HashSet<crate::ir::Inst<'ctx>> = demoted
        .iter()
        .filter(|d| d.shared && cfg.id(d.def.block()).is_some_and(|b| fa.divergent_controller(b).is_none()))
        .map(|d| d.alloca)
        .collect();
    let mut emitter = Emitter::new(cx.module_mut(), k, name, layout, barrier_ids, simt_callees.clone(), options.local_size);
    emitter.set_roots(roots);
    emitter.set_warp_uniform(warp_uniform);
    emitter.set_stored_by_all(stored_by_all);
    match &form {
        Form::Regions(regions) if !warp_barriers.is_empty() => emitter.emit_warps(regions, &warp_barriers)?,
        Form::Regions(regions) => emitter.emit(regions)?,
        Form::Linear { kernel, resume } => emitter.emit_linear(kernel, resume)?,
    }
    let mut barrier_names = vec![crate::wg_abi::ENTRY_NAME.to_string()];
    barrier_names.extend(sites.iter().map(|s| s.description.clone()));
    barrier_names.push(crate::wg_abi::EXIT_NAME.to_string());
    let ring = if interleave <= 1 {
        None
    } else if !warp_barriers.is_empty() {
        warnings.push("not interleaved: the kernel calls warp functions".into());
        None
    } else if let Form::Regions(regions) = &form {
        let ring = emitter.emit_interleaved(name, regions, interleave as usize)?;
        if ring.is_none() {
            warnings.push(format!(
                "not interleaved: work-group interleaving needs barriers in straight-line code only ({} barrier(s), some inside control flow or none at all)",
                sites.len()
            ));
        }
        ring
    } else {
        warnings.push(
            "not interleaved: the kernel is emitted in the linear form (one copy entered through a resume switch), which work-group interleaving does not take"
                .into(),
        );
        None
    };
    emitter.emit_symbols(name, &barrier_names, ring, matches!(form, Form::Linear { .. }));
    if Value::from(k).has_uses() {
        return Err("the kernel is also called as a function, which is not supported".into());
    }
    crate::ir::delete_function(k);
    Ok(warnings)
}

/// Whether `k` calls `simt-warp-exchange`'s warp barrier (and so gets the
/// warp dispatcher).
fn calls_warp_barrier(k: FunctionValue<'_>) -> bool {
    k.get_basic_block_iter()
        .flat_map(crate::ir::instructions)
        .any(|i| i.called_function_name().as_deref() == Some(crate::transform::warp_exchange::WARP_BARRIER))
}

/// The ids of the barriers that are `simt-warp-exchange`'s warp barriers.
fn warp_barrier_ids(sites: &[prepare::BarrierSite<'_>]) -> HashSet<u32> {
    let is_warp = |i: crate::ir::Inst<'_>| {
        i.is_call() && i.called_function().is_some_and(|f| function_name(f) == crate::transform::warp_exchange::WARP_BARRIER)
    };
    sites.iter().enumerate().filter(|(_, s)| crate::ir::instructions(s.block).any(is_warp)).map(|(k, _)| k as u32 + 1).collect()
}

/// Whether the end of `from` (where a demoted value is stored, after its
/// definition) can reach `to` (where it is loaded) inside region `r`: `to` is
/// `from` itself (a use after the definition) or reachable along region edges.
fn reaches_within(cfg: &Cfg, from: BlockId, to: BlockId, r: &HashSet<BlockId>) -> bool {
    if from == to {
        return true;
    }
    let mut seen: HashSet<BlockId> = HashSet::new();
    let mut work: Vec<BlockId> = cfg.succs(from).to_vec();
    while let Some(b) = work.pop() {
        if !r.contains(&b) || !seen.insert(b) {
            continue;
        }
        if b == to {
            return true;
        }
        work.extend_from_slice(cfg.succs(b));
    }
    false
}

/// How `simt_wg_K` runs the kernel's regions.
enum Form<'ctx> {
    /// A copy of each region in a nest of its own (`emit/dispatch.rs`).
    Regions(Vec<Region<'ctx>>),
    /// One copy of the whole kernel (every block but the barriers) in one
    /// nest, entered at the block after barrier b (`resume`, by id) or at the
    /// entry (`emit/resume.rs`).
    Linear { kernel: Region<'ctx>, resume: Vec<(u32, BasicBlock<'ctx>)> },
}

/// A region as blocks of the CFG view (see [`Region`]).
struct RegionBlocks {
    state: u32,
    entry: BlockId,
    blocks: Vec<BlockId>,
    exit_states: Vec<u32>,
    uniform_exits: bool,
}

/// Whether no divergent branch controls (through iterated control
/// dependence) any of `exits`, the barrier and return blocks a region stops
/// at: then the work-items that run the region all stop at the same one, and
/// its work-item loop needs no reduction of their stop states nor a check
/// that they agree (the reduction is a loop-carried value that
/// `simt-wiloops-version` must leave alone, and the vectoriser must match).
fn exits_are_uniform(fa: &FunctionAnalyses<'_>, exits: &[BlockId]) -> bool {
    exits.iter().all(|&b| fa.divergent_controller(b).is_none())
}

/// The linear form's one copy: every block but the barriers, in reverse
/// post-order, stopping at every barrier (`by_id`, sorted by id) and at the
/// exit.
fn whole_kernel(fa: &FunctionAnalyses<'_>, by_id: &[(BlockId, u32)]) -> RegionBlocks {
    let cfg = &fa.cfg.cfg;
    let barriers: HashSet<BlockId> = by_id.iter().map(|&(b, _)| b).collect();
    let mut exit_states: Vec<u32> = by_id.iter().map(|&(_, id)| id).collect();
    exit_states.push(crate::wg_abi::exit_id(by_id.len() as u32));
    let blocks: Vec<BlockId> = cfg.rpo().iter().copied().filter(|b| !barriers.contains(b)).collect();
    let exits: Vec<BlockId> = barriers.iter().copied().chain(blocks.iter().copied().filter(|&b| cfg.succs(b).is_empty())).collect();
    RegionBlocks { state: 0, entry: cfg.entry(), uniform_exits: exits_are_uniform(fa, &exits), blocks, exit_states }
}

/// The regions of a prepared kernel: from the entry and after each barrier;
/// `None` as soon as their blocks add up to more than `budget`, so the cost
/// is bounded by the budget, not by what the regions would have been.
fn regions(fa: &FunctionAnalyses<'_>, barrier_ids: &HashMap<BlockId, u32>, budget: usize) -> Option<Vec<RegionBlocks>> {
    let cfg = &fa.cfg.cfg;
    let mut total = 0usize;
    let exit_state = crate::wg_abi::exit_id(barrier_ids.len() as u32);
    let mut starts = vec![(0u32, cfg.entry())];
    let mut by_id: Vec<(&BlockId, &u32)> = barrier_ids.iter().collect();
    by_id.sort_by_key(|(_, id)| **id);
    for (&bb, &id) in by_id {
        starts.push((id, cfg.succs(bb)[0]));
    }
    let mut out = Vec::with_capacity(starts.len());
    for (state, entry) in starts {
        out.push({
            let mut member: HashSet<BlockId> = HashSet::new();
            let mut exits: Vec<u32> = Vec::new();
            let mut exit_blocks: Vec<BlockId> = Vec::new();
            let mut work = vec![entry];
            while let Some(b) = work.pop() {
                if let Some(&id) = barrier_ids.get(&b) {
                    if !exits.contains(&id) {
                        exits.push(id);
                    }
                    exit_blocks.push(b);
                    continue;
                }
                if !member.insert(b) {
                    continue;
                }
                total += 1;
                if total > budget {
                    return None;
                }
                let succ = cfg.succs(b);
                if succ.is_empty() {
                    exit_blocks.push(b);
                    if !exits.contains(&exit_state) {
                        exits.push(exit_state);
                    }
                }
                work.extend_from_slice(succ);
            }
            exits.sort();
            let mut blocks: Vec<BlockId> = member.into_iter().collect();
            blocks.sort_by_key(|&b| cfg.rpo_position(b).unwrap_or(usize::MAX));
            RegionBlocks { state, entry, blocks, exit_states: exits, uniform_exits: exits_are_uniform(fa, &exit_blocks) }
        });
    }
    Some(out)
}

/// Barriers control dependent on a divergent branch: legal only if every
/// dynamic instance is still reached by all work-items, so warn, not reject.
fn divergent_barrier_warnings(fa: &FunctionAnalyses<'_>, sites: &[prepare::BarrierSite<'_>]) -> Vec<String> {
    let names = SlotNames::new(fa.cfg.function);
    let mut out = Vec::new();
    for site in sites {
        let Some(b) = fa.cfg.id(site.block) else { continue };
        if let Some(x) = fa.divergent_controller(b) {
            out.push(format!(
                "{} depends on the divergent branch in block {}; a launch whose work-items do not all reach it stops with an error",
                site.description,
                names.of_block(fa.cfg.block(x))
            ));
        }
    }
    out
}

impl crate::pass::DeclaredPass for WorkItemLoops {
    const NAME: &'static str = NAME;
    const SUMMARY: &'static str = "kernels with barriers become CPU functions running one work-group (work-item loops)";
    const SEED: Option<&'static str> = Some("001");
    const OPTIONS: &'static [(&'static str, &'static str)] = &[
        ("interleave=N", "also emit simt_wgi_K, interleaving N work-groups in balanced loop groups"),
        ("local-size=X,Y,Z", "specialise for this work-group size (constant trip counts, as pocl does)"),
        ("linear", "always emit one copy of the kernel entered through a resume switch (the form kernels whose region copies exceed 4x their blocks get)"),
    ];

    fn set_option(&mut self, key: &str, value: Option<&str>) -> Result<(), String> {
        match (key, value.map(str::parse::<u32>)) {
            ("interleave", Some(Ok(n))) if (1..=64).contains(&n) => self.interleave = n,
            ("linear", None) => self.linear = true,
            ("local-size", _) => self.local_size = Some(crate::pass::parse_local_size(value)?),
            _ => return Err(format!("unknown or invalid option '{key}' (expected interleave=N, N in 1..=64, local-size=X,Y,Z or linear)")),
        }
        Ok(())
    }
}

/// The values that may hold the address of a private `alloca` that has a
/// copy per work-item (not `region_local`), or a number made from one. The uniformity analysis calls such an address uniform (as
/// LLVM's does: on a GPU each lane has its own private memory at the same
/// address), but here each work-item's copy lives at its own address, so
/// one slot per work-group cannot carry it across a barrier. Found by
/// following each alloca's address forward through what computes with it;
/// an address stored to memory makes every pointer loaded in the function
/// suspect.
struct PrivateAddresses<'ctx> {
    tainted: HashSet<Value<'ctx>>,
    stored: bool,
}

impl<'ctx> PrivateAddresses<'ctx> {
    fn may_hold(&self, v: Value<'ctx>) -> bool {
        self.tainted.contains(&v) || (self.stored && v.ty().is_pointer() && v.as_inst().is_some_and(|i| i.opcode() == LLVMOpcode::LLVMLoad))
    }
}

fn private_addresses<'ctx>(fa: &FunctionAnalyses<'ctx>, region_local: &HashSet<crate::ir::Inst<'ctx>>) -> PrivateAddresses<'ctx> {
    use LLVMOpcode::*;
    let mut work: Vec<Value<'ctx>> = fa
        .cfg
        .blocks()
        .iter()
        .flat_map(|&b| crate::ir::instructions(b))
        .filter(|i| i.is_alloca() && !region_local.contains(i))
        .map(|i| i.value())
        .collect();
    let mut tainted: HashSet<Value<'ctx>> = work.iter().copied().collect();
    let mut stored = false;
    while let Some(v) = work.pop() {
        for (user, operand) in v.uses() {
            let carries = match user.opcode() {
                LLVMGetElementPtr => operand == 0,
                LLVMBitCast | LLVMAddrSpaceCast | LLVMPtrToInt | LLVMIntToPtr | LLVMPHI | LLVMFreeze => true,
                LLVMSelect => operand != 0,
                LLVMAdd | LLVMSub | LLVMMul | LLVMAnd | LLVMOr | LLVMXor | LLVMShl | LLVMLShr | LLVMAShr | LLVMTrunc | LLVMZExt
                | LLVMSExt => true,
                LLVMStore if operand == 0 => {
                    stored = true;
                    false
                }
                _ => false,
            };
            if carries && tainted.insert(user.value()) {
                work.push(user.value());
            }
        }
    }
    PrivateAddresses { tainted, stored }
}
