//! The one front end of `simt-run`'s engines: the module is parsed and
//! verified once ([`load`]), then [`prepare`] turns it into what one engine
//! compiles: the launched kernel and the functions it needs, nothing else,
//! in the dialect that engine's back end takes.
//!
//! # The pipelines, and why in this order
//!
//! ```text
//!              load: parse, verify         (a broken module is rejected
//!                    │                      before any pass sees it)
//!   every engine     ▼
//!     1. the kernel exists; every other definition internal, globaldce
//!                    │
//!   host, emu        ▼
//!     2. by-value parameters: a private copy each (byval_to_private_copies)
//!        simt-flatten-calls, globaldce
//!                    │
//!   host             ▼                     emu                       gpu (OpenCL input only)
//!     3. always-inline                     3. other functions         3. always-inline
//!        simt-lower-ocl-builtins              alwaysinline (not __nv_)   simt-lower-ocl-builtins
//!        simt-wiloops<interleave;size>        always-inline              simt-to-nvptx
//!        simt-local-atomics                   simt-lower-ocl-builtins
//!        simt-wiloops-version                 [simt-check-uniformity]
//!   then the engine's back end: host: retarget, default<O3>, object, JIT;
//!   emu: decode; gpu: default<O3> for NVPTX, PTX, the CUDA driver.
//! ```
//!
//! 1. First, so that nothing below sees code the launch does not run: another
//!    kernel's unsupported built-in, an unused image helper, or an unused
//!    helper calling `get_local_id` (which would stay in the JIT's module as
//!    an unresolved `_Z12get_local_idj`) no longer matter. Errors that remain
//!    are the launched kernel's own.
//! 2. Host and emulator only: a struct passed by value is one block of bytes
//!    per launch (the engines point the parameter at it), so each work-item
//!    first copies it, as OpenCL gives each its own. Then `simt-wiloops` and the emulator handle barriers
//!    and work-item builtins in the kernel's body, so every call to a helper
//!    that reaches one is inlined (as pocl flattens such functions); a
//!    recursive one is an error naming it. The GPU keeps its calls: PTX has
//!    calls, and `bar.sync` in a callee is fine.
//! 3. `always-inline` before anything else, because clang's OpenCL kernels at
//!    `-O0` only call an always-inline twin (`__clang_ocl_kern_imp_K`): until
//!    it is inlined, the kernel has no body to transform. Built-ins are then
//!    lowered to IR (`simt-lower-ocl-builtins`) before `simt-wiloops`, so the
//!    work-item loops wrap plain IR and only barriers and work-item builtins
//!    remain for the pass; the same lowering before `simt-to-nvptx`, whose
//!    math mapping starts from LLVM intrinsics. `simt-wiloops` runs last in
//!    the host front end, before the back end's `default<O3>`, so that O3
//!    optimises the work-group function: it sees the work-item loops (and
//!    vectorises them) rather than one work-item's body with barriers as
//!    opaque calls. After it, `simt-local-atomics`, which works on
//!    the work-group functions `simt-wiloops` made: one thread runs a whole
//!    work-group, so their `__local` atomics need no atomicity. The emulator inlines every helper (no per-lane call stack),
//!    except libdevice's `__nv_*`, which it runs as the C functions they
//!    name; `simt-check-uniformity` comes last, so it instruments exactly
//!    what is decoded. The analyses the last of our passes kept valid come
//!    back from [`prepare`], so the decoder computes none twice.
//!
//! ```text
//!   module: kernel A ─▶ scan(noinline) ─▶ barrier     kernel B ─▶ vstore_half
//!           helper  ─▶ get_local_id (no kernel calls it)
//!   step 1:   A ─▶ scan ─▶ barrier
//!   step 2:   A: …barrier…
//! ```

use crate::diag::ToolError;
use crate::input::ModuleInput;
use crate::pipeline::{self, RunOptions};
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::values::FunctionValue;
use simt_passes::analysis::cache::AnalysisCache;
use simt_passes::ir::globals::internalize_all_but;
use simt_passes::ir::{defined_functions, function_name};
use simt_passes::kernel_model::is_kernel;

/// What an engine's front end is asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineFront {
    /// Work-item loops for this CPU: `simt-wiloops` with these options
    /// (work-groups interleaved per call, 1 = off; the local size to
    /// specialise for; the linear form whatever the kernel's size).
    Host { interleave: u32, local_size: Option<[u64; 3]>, linear: bool },
    /// The emulator's decoder input; `check` is the `simt-check-uniformity`
    /// pass text to instrument it with, if any.
    Emu { check: Option<&'static str> },
    /// CUDA-dialect IR for the NVPTX back end.
    Gpu,
}

/// Parses and verifies the module: once per launch, whatever runs it.
pub fn load<'ctx>(ctx: &'ctx Context, input: &ModuleInput) -> Result<Module<'ctx>, ToolError> {
    input.parse_verified(ctx)
}

/// Prepares `module` for the engine `front` runs `kernel` on (see the
/// module's documentation for the pipelines); returns the cache of analyses,
/// holding what the last of our passes kept valid. The host's front end
/// leaves the work-group function (`simt-wiloops`) in place of the kernel.
pub fn prepare<'ctx>(module: &mut Module<'ctx>, kernel: &str, front: &EngineFront) -> Result<AnalysisCache<'ctx>, ToolError> {
    let mut analyses = AnalysisCache::new();
    find_kernel(module, kernel)?;
    internalize_all_but(module, kernel);
    if !matches!(front, EngineFront::Gpu) {
        byval_to_private_copies(module, find_kernel(module, kernel)?)?;
    }
    let text = match front {
        EngineFront::Host { interleave, local_size, linear } => {
            let mut options = Vec::new();
            if *interleave > 1 {
                options.push(format!("interleave={interleave}"));
            }
            if let Some([x, y, z]) = local_size {
                options.push(format!("local-size={x},{y},{z}"));
            }
            if *linear {
                options.push("linear".to_string());
            }
            let wiloops = if options.is_empty() { "simt-wiloops".to_string() } else { format!("simt-wiloops<{}>", options.join(";")) };
            // Grid-stride loops in lockstep need the span of the local ids.
            let lockstep = match local_size {
                Some([x, y, z]) => format!("simt-lockstep-loops<local-size={x},{y},{z}>,"),
                None => String::new(),
            };
            format!("globaldce,simt-subgroups,simt-flatten-calls,globaldce,always-inline,simt-lower-ocl-builtins,{lockstep}simt-warp-exchange,{wiloops},simt-local-atomics,simt-wiloops-version")
        }
        EngineFront::Emu { check } => {
            run(module, "globaldce,simt-subgroups,simt-flatten-calls,globaldce", &mut analyses)?;
            inline_all_but(module, find_kernel(module, kernel)?);
            let mut text = "always-inline,simt-lower-ocl-builtins".to_string();
            if let Some(check) = check {
                text = format!("{text},{check}");
            }
            text
        }
        // CUDA input is in the NVPTX dialect already.
        EngineFront::Gpu if !is_opencl(module) => "globaldce".to_string(),
        EngineFront::Gpu => "globaldce,always-inline,simt-lower-ocl-builtins,simt-to-nvptx".to_string(),
    };
    run(module, &text, &mut analyses)?;
    Ok(analyses)
}

/// OpenCL C compiled by clang (`spir`/`spir64`), rather than CUDA (`nvptx64`).
pub fn is_opencl(module: &Module<'_>) -> bool {
    module.get_triple().as_str().to_string_lossy().starts_with("spir")
}

/// The kernel named `kernel`, or an error listing the module's kernels.
pub fn find_kernel<'ctx>(module: &Module<'ctx>, kernel: &str) -> Result<FunctionValue<'ctx>, ToolError> {
    let kernels: Vec<FunctionValue<'ctx>> = defined_functions(module).into_iter().filter(|f| is_kernel(*f)).collect();
    if let Some(f) = kernels.iter().find(|f| function_name(**f) == kernel) {
        return Ok(*f);
    }
    let names: Vec<String> = kernels.into_iter().map(function_name).collect();
    Err(ToolError::Run(format!(
        "{}: no kernel named '{kernel}' (kernels: {})",
        module.get_name().to_string_lossy(),
        if names.is_empty() { "none".to_string() } else { names.join(", ") }
    )))
}

/// Parameters passed by value (`byval`, a struct argument) point at the
/// launch's one copy of the bytes; each work-item gets its own: an `alloca`
/// at the kernel's entry, filled by `memcpy` from the parameter, stands for
/// the parameter everywhere else, and the parameter loses `byval` (it is
/// now a plain pointer the kernel only reads). `simt-wiloops` then places
/// the copy like any private variable (per work-item where it lives across
/// a barrier), and SROA removes it where the kernel never writes it.
fn byval_to_private_copies(module: &Module<'_>, kernel: FunctionValue<'_>) -> Result<(), ToolError> {
    let ctx = module.get_context();
    let byval = Attribute::get_named_enum_kind_id("byval");
    let align_kind = Attribute::get_named_enum_kind_id("align");
    let layout = inkwell::targets::TargetData::create(&module.get_data_layout().as_str().to_string_lossy());
    for i in 0..kernel.count_params() {
        let Some(attr) = kernel.get_enum_attribute(AttributeLoc::Param(i), byval) else { continue };
        let ty = attr.get_type_value();
        let Ok(basic) = inkwell::types::BasicTypeEnum::try_from(ty) else {
            return Err(ToolError::Run(format!("kernel '{}': parameter {i} is passed by value as an unsized type", function_name(kernel))));
        };
        let p = kernel.get_nth_param(i).expect("a parameter below the count").into_pointer_value();
        let align = kernel
            .get_enum_attribute(AttributeLoc::Param(i), align_kind)
            .map_or(layout.get_abi_alignment(&basic), |a| a.get_enum_value() as u32);
        let entry = kernel.get_first_basic_block().expect("the kernel has a body");
        let b = ctx.create_builder();
        match entry.get_first_instruction() {
            Some(first) => b.position_before(&first),
            None => b.position_at_end(entry),
        }
        let build = |e: inkwell::builder::BuilderError| ToolError::Llvm(format!("copying by-value parameter {i}: {e}"));
        let copy = b.build_alloca(basic, "byval.copy").map_err(build)?;
        if let Some(inst) = copy.as_instruction() {
            inst.set_alignment(align).map_err(|e| ToolError::Llvm(e.to_string()))?;
        }
        p.replace_all_uses_with(copy);
        let size = ctx.i64_type().const_int(layout.get_abi_size(&basic), false);
        b.build_memcpy(copy, align, p, align, size).map_err(build)?;
        kernel.remove_enum_attribute(AttributeLoc::Param(i), byval);
    }
    Ok(())
}

/// The emulator keeps no call stack per lane: every defined function but the
/// kernel becomes `alwaysinline`, except libdevice's `__nv_*`, which the
/// decoder runs as the C math functions they name (their bodies use
/// `llvm.nvvm.*` arithmetic the emulator does not implement; libdevice marks
/// them alwaysinline, so that goes).
fn inline_all_but(module: &Module<'_>, kernel: FunctionValue<'_>) {
    let ctx = module.get_context();
    let kind = Attribute::get_named_enum_kind_id;
    let (noinline, optnone, always) = (kind("noinline"), kind("optnone"), kind("alwaysinline"));
    let at = AttributeLoc::Function;
    for g in defined_functions(module) {
        if g == kernel {
            continue;
        }
        if function_name(g).starts_with("__nv_") {
            g.remove_enum_attribute(at, always);
            g.add_attribute(at, ctx.create_enum_attribute(noinline, 0));
            continue;
        }
        g.remove_enum_attribute(at, noinline);
        g.remove_enum_attribute(at, optnone);
        g.add_attribute(at, ctx.create_enum_attribute(always, 0));
    }
}

fn run<'ctx>(module: &mut Module<'ctx>, text: &str, analyses: &mut AnalysisCache<'ctx>) -> Result<(), ToolError> {
    let steps = pipeline::parse(text, None)?;
    pipeline::run_with_analyses(module, &steps, None, &RunOptions::default(), &mut std::io::sink(), analyses)?;
    Ok(())
}
