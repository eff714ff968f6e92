//! Linking NVIDIA's libdevice (`libdevice.10.bc`, 349 `__nv_*` math
//! functions in LLVM bitcode) into a module that calls it, the way clang's
//! CUDA driver does with `-mlink-builtin-bitcode`: link, keep only what is
//! called, make it internal, and resolve libdevice's `__nvvm_reflect`
//! queries (`__CUDA_FTZ`: no flush-to-zero, as OpenCL's default;
//! `__CUDA_ARCH`: sm_70, the oldest architecture simt targets, so the
//! module is valid on every newer one).
//!
//! Where the file is: `$SIMT_LIBDEVICE`, else `.tools/libdevice.10.bc` in the
//! repository (found from the running executable's folders, then from where
//! this crate was built); `scripts/setup` puts it there from the PyPI wheel
//! `nvidia-cuda-nvcc-cu12` (NVIDIA's license; it is not committed).
//!
//! After `nvvm-reflect` the functions are plain LLVM IR plus a few
//! `llvm.nvvm.*` intrinsics, so the module still runs on the emulator where
//! it implements those.

use inkwell::module::Linkage;
use inkwell::module::{FlagBehavior, Module};
use std::path::PathBuf;

pub const ENV: &str = "SIMT_LIBDEVICE";
const FILE: &str = "libdevice.10.bc";

/// The libdevice file, or an error saying how to get it.
pub fn locate() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os(ENV) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!(
                "${ENV} is '{}', which is not a file (it names NVIDIA's {FILE}, which scripts/setup unpacks into .tools/)",
                p.display()
            ))
        };
    }
    let mut candidates = Vec::new();
    if let Ok(exe) = std::env::current_exe() {
        candidates.extend(exe.ancestors().skip(1).map(|d| d.join(".tools").join(FILE)));
    }
    candidates.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join(".tools").join(FILE));
    candidates.into_iter().find(|p| p.is_file()).ok_or_else(|| {
        format!("math functions on NVPTX need NVIDIA's {FILE}: run scripts/setup (it unpacks it into .tools/ from the PyPI wheel nvidia-cuda-nvcc-cu12) or set ${ENV} to its path")
    })
}

/// Links libdevice into `m`, keeping only the functions `m` calls.
pub fn link(m: &Module<'_>) -> Result<(), String> {
    let path = locate()?;
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let lib = super::rebuild::parse(m, &bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    // libdevice says `nvptx64-nvidia-gpulibs` and an older data layout; the
    // linker would warn about the mismatch.
    lib.set_target_of(m);
    crate::ir::link::link_into(m, lib)?;
    for f in m.get_functions() {
        if f.count_basic_blocks() > 0 && crate::ir::function_name(f).starts_with("__nv_") {
            f.set_linkage(Linkage::Internal);
        }
    }
    m.add_basic_value_flag("nvvm-reflect-ftz", FlagBehavior::Override, m.get_context().i32_type().const_int(0, false));
    // sccp and simplifycfg drop the branches reflect decided (ftz ones).
    super::run_llvm_passes(m, "nvvm-reflect,function(sccp,simplifycfg),globaldce")
}
