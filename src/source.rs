//! Kernel sources (`.cl`, `.cu`) given where IR is expected: compiled to
//! LLVM IR with clang-22, the way `test-ir/kernels/regen` makes the corpus,
//! so `simt-run k.cl` runs exactly what `simt-run k.ll` runs.
//!
//! - OpenCL C: `clang-22 -cl-std=CL2.0 -target spir64 -O1 -emit-llvm -S`,
//!   `-cl-std` overridable (pocl passes its build options the same way),
//!   plus pocl's `-Dinline=` (C99 `inline` functions get a body; no corpus
//!   kernel uses `inline`, so the corpus modules are unchanged).
//! - CUDA: device code only, without the CUDA toolkit: clang's own builtin
//!   variables, and the device API (atomics, math, intrinsics, warp
//!   functions) from our shim header `src/cuda_shim.h` (built into the
//!   tools; why not clang's `__clang_cuda_*` headers is said there),
//!   `--cuda-gpu-arch=sm_70` with PTX 7.0, `-ffp-contract=on`.
//!
//! `-O1` and not more: the loop structure and the work-item builtins reach
//! simt's passes as written, and `simt-run` optimises after them.
//! `-D`/`-I` go to clang as they are; `--keep-ir DIR` keeps the module as
//! `DIR/NAME.ll`. clang's diagnostics go to stderr as clang prints them.

use crate::diag::ToolError;
use crate::input::ModuleInput;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The compiler, by the name Debian's `clang-22` package installs.
const CLANG: &str = "clang-22";

/// The CUDA shim: the device API without the toolkit.
const CUDA_SHIM: &str = include_str!("cuda_shim.h");

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    OpenCl,
    Cuda,
}

impl Dialect {
    /// The dialect a file's extension names, if it is a source file.
    pub fn of(path: &Path) -> Option<Dialect> {
        match path.extension()?.to_str()? {
            "cl" => Some(Dialect::OpenCl),
            "cu" => Some(Dialect::Cuda),
            _ => None,
        }
    }
}

/// What the user passes to clang.
#[derive(Clone, Debug, Default)]
pub struct SourceOptions {
    /// `-D NAME` or `-D NAME=VALUE`.
    pub defines: Vec<String>,
    /// `-I DIR`.
    pub include_dirs: Vec<PathBuf>,
    /// `-cl-std=CL1.2` etc. (OpenCL only; default CL2.0).
    pub cl_std: Option<String>,
    /// Where to keep the compiled module.
    pub keep_ir: Option<PathBuf>,
    /// `-g`: debug info, so that `simt-run --check` reports name source lines.
    pub debug_info: bool,
}

/// The clang command line that compiles `path` into `out`.
pub fn clang_command(dialect: Dialect, path: &Path, out: &Path, shim: &Path, opts: &SourceOptions) -> Command {
    let mut c = Command::new(CLANG);
    match dialect {
        Dialect::OpenCl => {
            c.arg(format!("-cl-std={}", opts.cl_std.as_deref().unwrap_or("CL2.0"))).args(["-target", "spir64"]);
            // As pocl builds OpenCL C: `inline` defined away, so that a
            // plain (non-static) `inline` function is an ordinary definition.
            // Under C99's rules, which clang applies to OpenCL C, it is only
            // an inline definition: clang emits no body for it, and a call
            // its inliner declines stays a call to an undefined symbol.
            c.arg("-Dinline=");
        }
        Dialect::Cuda => {
            c.args(["-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib", "--cuda-gpu-arch=sm_70"])
                .args(["-Xclang", "-target-feature", "-Xclang", "+ptx70"])
                // Contraction only within an expression, as `llvm.fmuladd`,
                // which every engine evaluates fused: clang's CUDA default
                // (`fast`) leaves it to the back end, so the host fused
                // `a - m*b` where the emulator rounded twice.
                .arg("-ffp-contract=on")
                .arg("-include")
                .arg(shim);
        }
    }
    for d in &opts.defines {
        c.arg(format!("-D{d}"));
    }
    for i in &opts.include_dirs {
        c.arg("-I").arg(i);
    }
    if opts.debug_info {
        c.arg("-g");
    }
    c.args(["-O1", "-emit-llvm", "-S"]).arg(path).arg("-o").arg(out);
    c
}

/// Compiles the source `path` into a module input named after the source, so
/// that messages name the file the user gave.
pub fn compile(dialect: Dialect, path: &Path, opts: &SourceOptions) -> Result<ModuleInput, ToolError> {
    let name = path.display().to_string();
    if opts.cl_std.is_some() && dialect == Dialect::Cuda {
        return Err(ToolError::Usage(format!("-cl-std applies to OpenCL C, not to the CUDA source {name}")));
    }
    let dir =
        tempfile::tempdir().map_err(|e| ToolError::Io { path: name.clone(), message: format!("cannot make a temporary folder: {e}") })?;
    let shim = dir.path().join("cuda.h");
    std::fs::write(&shim, CUDA_SHIM).map_err(|e| ToolError::Io { path: shim.display().to_string(), message: e.to_string() })?;
    let stem = path.file_stem().map_or_else(|| "kernel".into(), |s| s.to_string_lossy().into_owned());
    let out = dir.path().join(format!("{stem}.ll"));
    let status = clang_command(dialect, path, &out, &shim, opts).status().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            ToolError::Run(format!("{name}: compiling kernel sources needs {CLANG} on PATH (Debian's clang-22 package; scripts/setup installs it), or give LLVM IR"))
        } else {
            ToolError::Run(format!("{name}: cannot run {CLANG}: {e}"))
        }
    })?;
    if !status.success() {
        return Err(ToolError::Run(format!("{name}: {CLANG} could not compile it (its messages are above)")));
    }
    let bytes = std::fs::read(&out).map_err(|e| ToolError::Io { path: out.display().to_string(), message: e.to_string() })?;
    if let Some(keep) = &opts.keep_ir {
        std::fs::create_dir_all(keep).map_err(|e| ToolError::Io { path: keep.display().to_string(), message: e.to_string() })?;
        let kept = keep.join(format!("{stem}.ll"));
        crate::output::write_atomically(&kept, &bytes)?;
    }
    Ok(ModuleInput { name, bytes })
}
