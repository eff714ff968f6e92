//! Lowering like `llc`: x86-64 assembly or objects and NVPTX PTX from the same
//! binary. Codegen mutates the module it is given, so it runs on a clone, from
//! which convergence markers are stripped first.

use crate::diag::ToolError;
use inkwell::module::Module;
use inkwell::targets::{CodeModel, FileType, RelocMode, Target, TargetMachine, TargetTriple};
use inkwell::OptimizationLevel;

#[derive(Clone, Debug, Default)]
pub struct TargetSpec {
    /// `-mtriple`; the module's own triple when absent.
    pub triple: Option<String>,
    pub cpu: String,
    pub features: String,
    pub opt_level: u8,
}

/// The triple to use: the override, else the module's.
pub fn effective_triple(spec: &TargetSpec, module: &Module<'_>) -> String {
    spec.triple.clone().unwrap_or_else(|| module.get_triple().as_str().to_string_lossy().into_owned())
}

/// A target machine for `triple`, or `None` for triples no backend here knows
/// (such as `spir64`): LLVM's passes then run without target information.
pub fn target_machine(triple: &str, spec: &TargetSpec) -> Result<Option<TargetMachine>, ToolError> {
    let arch = triple.split('-').next().unwrap_or("");
    if !matches!(arch, "x86_64" | "nvptx64" | "nvptx") {
        return Ok(None);
    }
    let t = TargetTriple::create(triple);
    let target = Target::from_triple(&t).map_err(|e| ToolError::Llvm(format!("unknown target '{triple}': {e}")))?;
    let level = match spec.opt_level {
        0 => OptimizationLevel::None,
        1 => OptimizationLevel::Less,
        3 => OptimizationLevel::Aggressive,
        _ => OptimizationLevel::Default,
    };
    let (cpu, features) = match spec.cpu.as_str() {
        // As in llc: the CPU this runs on, with all of its features.
        "native" if arch == "x86_64" => (host_cpu_name(), join_features(&host_cpu_features(), &spec.features)),
        "" if arch == "x86_64" => ("x86-64".to_string(), spec.features.clone()),
        other => (other.to_string(), spec.features.clone()),
    };
    target
        .create_target_machine(&t, &cpu, &features, level, RelocMode::PIC, CodeModel::Default)
        .map(Some)
        .ok_or_else(|| ToolError::Llvm(format!("cannot create a target machine for '{triple}' (cpu '{cpu}')")))
}

/// The pipeline that turns OpenCL C kernels into NVPTX-ready IR.
pub const OPENCL_TO_NVPTX: &str = "always-inline,simt-lower-ocl-builtins,simt-to-nvptx";

/// Emits assembly or an object for `module`, which is left untouched.
pub fn emit(module: &Module<'_>, triple: &str, spec: &TargetSpec, file_type: FileType) -> Result<Vec<u8>, ToolError> {
    let opencl = opencl_leftover(module);
    let with_ptx;
    let spec = match module_ptx_feature(module, &spec.cpu) {
        Some(ptx) if triple.starts_with("nvptx") && !spec.features.contains("ptx") => {
            with_ptx = TargetSpec { features: join_features(&spec.features, &ptx), ..spec.clone() };
            &with_ptx
        }
        _ => spec,
    };
    let tm = target_machine(triple, spec)?.ok_or_else(|| {
        let hint = if opencl.is_some() || triple.starts_with("spir") {
            format!("; for OpenCL C kernels use -passes='{OPENCL_TO_NVPTX}' (NVPTX) or -passes='always-inline,simt-lower-ocl-builtins,simt-wiloops' with -mtriple=x86_64-unknown-linux-gnu (CPU)")
        } else {
            String::new()
        };
        ToolError::Llvm(format!("no code generator for '{triple}' (x86_64 and nvptx64 are built in){hint}"))
    })?;
    // Without simt-to-nvptx, an OpenCL module "lowers" to PTX that calls
    // unresolved `_Z13get_global_idj`: stop and name the pipeline instead.
    if triple.starts_with("nvptx") {
        if let Some(what) = opencl {
            return Err(ToolError::Llvm(format!(
                "the module is OpenCL C ({what}), which NVPTX cannot run as it is: lower it with -passes='{OPENCL_TO_NVPTX}' first"
            )));
        }
    }
    let copy = simt_passes::ir::clone_module(module);
    if triple.starts_with("nvptx") {
        simt_passes::transform::to_nvptx::cuda_math_to_libdevice(&copy).map_err(ToolError::Llvm)?;
    }
    // Convergence markers and tokens mean nothing to a code generator (and
    // llc -O0 crashes on convergence.loop): lowering takes them out.
    simt_passes::transform::strip_markers::strip_module(&copy).map_err(ToolError::Llvm)?;
    retarget_for(&copy, &tm, true);
    let buf = tm.write_to_memory_buffer(&copy, file_type).map_err(|e| ToolError::Llvm(format!("code generation failed: {e}")))?;
    Ok(buf.as_slice().to_vec())
}

/// The newest `+ptxNN` of the module's functions' `target-features`, where
/// they were compiled for `cpu` (`+sm_70`; or no cpu is asked for): the PTX
/// version clang compiled CUDA for (`+ptx70`, src/source.rs). NVPTX takes
/// the PTX version from the target machine only, not per function, so
/// without it `__activemask` ("Cannot select: llvm.nvvm.activemask", PTX
/// 6.2) fails at sm_70's default, 6.0. For another SM the default is its
/// own minimum (sm_90: 7.8), which an older version would be below.
fn module_ptx_feature(module: &Module<'_>, cpu: &str) -> Option<String> {
    let mut best: Option<u32> = None;
    for f in module.get_functions() {
        let Some(a) = f.get_string_attribute(inkwell::attributes::AttributeLoc::Function, "target-features") else { continue };
        let text = a.get_string_value().to_string_lossy().into_owned();
        let features: Vec<&str> = text.split(',').collect();
        if !cpu.is_empty() && !features.contains(&format!("+{cpu}").as_str()) {
            continue;
        }
        best = best.max(features.iter().filter_map(|s| s.strip_prefix("+ptx")?.parse::<u32>().ok()).max());
    }
    best.map(|v| format!("+ptx{v}"))
}

/// What marks `module` as OpenCL C not yet mapped to CUDA's dialect: a
/// `spir_kernel`/`spir_func` function or a call to an OpenCL built-in.
fn opencl_leftover(module: &Module<'_>) -> Option<String> {
    use simt_passes::kernel_model::builtin_of;
    for f in module.get_functions() {
        let name = simt_passes::ir::function_name(f);
        if simt_passes::kernel_model::is_spir_calling_convention(f.get_call_conventions()) {
            return Some(format!("'{name}' has the SPIR calling convention"));
        }
        for bb in f.get_basic_block_iter() {
            for i in simt_passes::ir::instructions(bb) {
                if i.is_call() && builtin_of(i).is_some() {
                    let callee = i.called_function_name().unwrap_or_default();
                    if !callee.starts_with("llvm.") {
                        return Some(format!("'{name}' calls the OpenCL built-in '{callee}'"));
                    }
                }
            }
        }
    }
    None
}

pub fn host_cpu_name() -> String {
    TargetMachine::get_host_cpu_name().to_string()
}

pub fn host_cpu_features() -> String {
    TargetMachine::get_host_cpu_features().to_string()
}

fn join_features(a: &str, b: &str) -> String {
    [a, b].iter().filter(|s| !s.is_empty()).copied().collect::<Vec<_>>().join(",")
}

/// Puts `module` on `tm`'s target: triple, data layout, target attributes,
/// and with `for_codegen` calling conventions too (see `ir::retarget`).
pub fn retarget_for(module: &Module<'_>, tm: &TargetMachine, for_codegen: bool) {
    let triple = tm.get_triple();
    let dl = tm.get_target_data().get_data_layout();
    simt_passes::ir::retarget(module, &triple.as_str().to_string_lossy(), &dl.as_str().to_string_lossy(), for_codegen);
}
