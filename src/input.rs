//! The input module, read once.
//!
//! `simt-run` parses its module several times (the kernel's signature, then
//! the engine's compile), each time from these bytes, never by opening the
//! path again: a pipe, a FIFO or `/dev/stdin` can be read only once, and `-`
//! names standard input, so `simt-opt … | simt-run - …` works.

use crate::diag::ToolError;
use crate::source::{Dialect, SourceOptions};
use std::io::Read;
use std::path::Path;

/// A module's name (for messages, in LLVM's `file:line:col` format) and its
/// bytes (text IR or bitcode).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleInput {
    pub name: String,
    pub bytes: Vec<u8>,
}

impl ModuleInput {
    /// Reads `path` whole, or standard input when it is `-` (named `<stdin>`,
    /// as `opt` does); a kernel source (`.cl`, `.cu`) is compiled first, with
    /// clang's default options.
    pub fn read(path: &Path) -> Result<ModuleInput, ToolError> {
        Self::read_with(path, &SourceOptions::default())
    }

    /// [`ModuleInput::read`], with the options a kernel source is compiled
    /// with (`-D`, `-I`, `-cl-std`, `--keep-ir`).
    pub fn read_with(path: &Path, source: &SourceOptions) -> Result<ModuleInput, ToolError> {
        if let Some(dialect) = Dialect::of(path) {
            return crate::source::compile(dialect, path, source);
        }
        if path.as_os_str() == "-" {
            let mut bytes = Vec::new();
            std::io::stdin()
                .lock()
                .read_to_end(&mut bytes)
                .map_err(|e| ToolError::Io { path: "<stdin>".into(), message: e.to_string() })?;
            return Ok(ModuleInput { name: "<stdin>".into(), bytes });
        }
        let name = path.display().to_string();
        let bytes =
            std::fs::read(path).map_err(|e| ToolError::Io { path: name.clone(), message: format!("could not open input file: {e}") })?;
        Ok(ModuleInput { name, bytes })
    }

    /// The module as `simt_passes::ir::parse_ir` reads it, in `ctx`.
    pub fn parse<'ctx>(&self, ctx: &'ctx inkwell::context::Context) -> Result<inkwell::module::Module<'ctx>, ToolError> {
        Ok(simt_passes::ir::parse_ir(ctx, &self.name, &self.bytes)?)
    }

    /// [`ModuleInput::parse`], then LLVM's verifier: a module that parses but
    /// is broken is rejected before any pass runs.
    pub fn parse_verified<'ctx>(&self, ctx: &'ctx inkwell::context::Context) -> Result<inkwell::module::Module<'ctx>, ToolError> {
        let module = self.parse(ctx)?;
        simt_passes::ir::verify(&module).map_err(|message| ToolError::BrokenInput { path: self.name.clone(), message })?;
        Ok(module)
    }
}
