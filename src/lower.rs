//! Lowering like `llc`: x86-64 assembly or objects and NVPTX PTX from the same
//! binary. Codegen mutates the module it is given, so it runs on a clone.

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
    let cpu = if spec.cpu.is_empty() && arch == "x86_64" { "x86-64".to_string() } else { spec.cpu.clone() };
    target
        .create_target_machine(&t, &cpu, &spec.features, level, RelocMode::PIC, CodeModel::Default)
        .map(Some)
        .ok_or_else(|| ToolError::Llvm(format!("cannot create a target machine for '{triple}' (cpu '{cpu}')")))
}

/// Emits assembly or an object for `module`, which is left untouched.
pub fn emit(module: &Module<'_>, triple: &str, spec: &TargetSpec, file_type: FileType) -> Result<Vec<u8>, ToolError> {
    let tm = target_machine(triple, spec)?
        .ok_or_else(|| ToolError::Llvm(format!("no code generator for '{triple}' (x86_64 and nvptx64 are built in)")))?;
    let copy = simt_passes::ir::clone_module(module);
    copy.set_triple(&tm.get_triple());
    copy.set_data_layout(&tm.get_target_data().get_data_layout());
    let buf = tm
        .write_to_memory_buffer(&copy, file_type)
        .map_err(|e| ToolError::Llvm(format!("code generation failed: {e}")))?;
    Ok(buf.as_slice().to_vec())
}
