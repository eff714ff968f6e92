//! The one front end of `simt-run`'s engines: the module is parsed and
//! verified once ([`load`]), then [`prepare`] turns it into what one engine
//! compiles: the launched kernel and the functions it needs, nothing else,
//! in the dialect that engine's back end takes. Each engine's front end is
//! one pipeline ([`pipeline()`]); its steps that are not optimisations
//! (`simt-internalize`, `simt-byval-to-private`, `simt-always-inline-helpers`)
//! are passes hidden from `simt-opt -print-passes` but runnable by name.
//!
//! # The pipelines, and why in this order
//!
//! ```text
//!              load: parse, verify         (a broken module is rejected
//!                    │                      before any pass sees it)
//!   every engine     ▼
//!     1. the kernel exists; simt-internalize<keep=K>, globaldce
//!                    │
//!   host, emu        ▼
//!     2. simt-byval-to-private, simt-subgroups,
//!        simt-flatten-calls, globaldce
//!                    │
//!   host             ▼                     emu                       gpu (OpenCL input only)
//!     3. always-inline                     3. simt-always-inline-     3. always-inline
//!        simt-lower-ocl-builtins              helpers (not __nv_)        simt-lower-ocl-builtins
//!        simt-widen-indices[<ids-fit-i32>]    always-inline              simt-to-nvptx
//!        [simt-lockstep-loops<size>]          simt-lower-ocl-builtins
//!        simt-warp-exchange                   [simt-check-uniformity]
//!        simt-wiloops<interleave;size>
//!        simt-local-atomics
//!        simt-wiloops-version
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
//!    math mapping starts from LLVM intrinsics. `simt-widen-indices` comes
//!    while the work-item functions are still calls: with the launch's
//!    ids below 2^31 (`ids-fit-i32`) their `int` truncations are exact, and
//!    `int` index arithmetic over them becomes 64-bit, which O3 sees as
//!    affine in the work-item loop's counter. `simt-wiloops` runs last in
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
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::values::FunctionValue;
use simt_passes::analysis::cache::AnalysisCache;
use simt_passes::ir::{defined_functions, function_name};
use simt_passes::kernel_model::is_kernel;

/// What an engine's front end is asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineFront {
    /// Work-item loops for this CPU: `simt-wiloops` with these options
    /// (work-groups interleaved per call, 1 = off; the local size to
    /// specialise for; the linear form whatever the kernel's size), and
    /// whether the launch keeps every id and size below 2^31
    /// (`simt-widen-indices<ids-fit-i32>`; see `Grid::ids_fit_i32`).
    Host { interleave: u32, local_size: Option<[u64; 3]>, linear: bool, ids_fit_i32: bool },
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

/// Prepares `module` for the engine `front` runs `kernel` on: the engine's
/// [`pipeline()`], run with a cache of analyses that comes back holding what
/// the last of our passes kept valid. The host's front end leaves the
/// work-group function (`simt-wiloops`) in place of the kernel.
pub fn prepare<'ctx>(module: &mut Module<'ctx>, kernel: &str, front: &EngineFront) -> Result<AnalysisCache<'ctx>, ToolError> {
    find_kernel(module, kernel)?;
    let text = pipeline(kernel, front, is_opencl(module))?;
    let mut analyses = AnalysisCache::new();
    let steps = pipeline::parse(&text, None)?;
    pipeline::run_with_analyses(module, &steps, None, &RunOptions::default(), &mut std::io::sink(), &mut analyses)?;
    Ok(analyses)
}

/// The front end of the engine `front` for `kernel`, as one pipeline (see
/// the module's documentation); `opencl`: the module is OpenCL C
/// ([`is_opencl`]), not CUDA.
pub fn pipeline(kernel: &str, front: &EngineFront, opencl: bool) -> Result<String, ToolError> {
    // The kernel's name is a pass option, written inside `<…>`.
    if kernel.is_empty() || kernel.trim() != kernel || kernel.contains([',', ';', '<', '>', '(', ')']) {
        return Err(ToolError::Run(format!("kernel '{kernel}': a kernel whose name holds `,;<>()` or spaces at its ends cannot be run")));
    }
    let keep = format!("simt-internalize<keep={kernel}>,");
    let text = match front {
        EngineFront::Host { interleave, local_size, linear, ids_fit_i32 } => {
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
            // The lane may be `threadIdx.x & 31` where the block says so.
            let deaggregate = match local_size {
                Some([x, y, z]) => format!("simt-deaggregate-atomics<local-size={x},{y},{z}>,"),
                None => "simt-deaggregate-atomics,".to_string(),
            };
            // `int` index arithmetic in 64 bits, over the ids' exact
            // truncations where the launch allows (before the work-item
            // functions become the loops' arithmetic).
            let widen = if *ids_fit_i32 { "simt-widen-indices<ids-fit-i32>" } else { "simt-widen-indices" };
            format!(
                "{keep}globaldce,simt-byval-to-private,simt-subgroups,simt-flatten-calls,globaldce,always-inline,simt-lower-ocl-builtins,\
                 {widen},{lockstep}{deaggregate}simt-warp-exchange,{wiloops},simt-local-atomics,simt-wiloops-version"
            )
        }
        EngineFront::Emu { check } => {
            let check = check.map(|c| format!(",{c}")).unwrap_or_default();
            format!(
                "{keep}globaldce,simt-byval-to-private,simt-subgroups,simt-flatten-calls,globaldce,simt-always-inline-helpers,always-inline,\
                 simt-lower-ocl-builtins{check}"
            )
        }
        // CUDA input is in the NVPTX dialect already.
        EngineFront::Gpu if !opencl => format!("{keep}globaldce"),
        EngineFront::Gpu => format!("{keep}globaldce,always-inline,simt-lower-ocl-builtins,simt-to-nvptx"),
    };
    Ok(text)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every engine's front end is one pipeline that parses, hidden passes
    /// included; a name that would break the pipeline's syntax is refused.
    #[test]
    fn each_front_end_is_one_pipeline() {
        let fronts = [
            EngineFront::Host { interleave: 1, local_size: None, linear: false, ids_fit_i32: false },
            EngineFront::Host { interleave: 2, local_size: Some([16, 4, 1]), linear: true, ids_fit_i32: true },
            EngineFront::Emu { check: None },
            EngineFront::Emu { check: Some("simt-check-uniformity<assume-uniform>") },
            EngineFront::Gpu,
        ];
        for front in &fronts {
            for opencl in [false, true] {
                let text = pipeline("_Z3fooPf", front, opencl).unwrap();
                assert!(text.starts_with("simt-internalize<keep=_Z3fooPf>,"), "{text}");
                pipeline::parse(&text, None).unwrap_or_else(|e| panic!("{text}: {e}"));
            }
        }
        for bad in ["a,b", "a<b>", "k;x", " k", ""] {
            assert!(pipeline(bad, &EngineFront::Gpu, false).is_err(), "{bad:?}");
        }
    }
}
