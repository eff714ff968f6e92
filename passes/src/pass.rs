//! What a pass is: a small type with a name and a `run` over a module.
//!
//! The driver runs every pass the same way (verification, dumps, timing), so
//! passes implement none of that. A pass says what it changed; the driver uses
//! that to drop analyses that may have gone stale.

use crate::analysis::cache::AnalysisCache;
use inkwell::module::Module;
use std::io::Write;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Changed {
    /// Nothing: every analysis stays valid.
    Nothing,
    /// Instructions, not the CFG.
    Instructions,
    /// Blocks or edges.
    Cfg,
}

/// A pass failed for a reason the user must hear (unsupported input, …).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PassError {
    #[error("unknown pass name '{name}'")]
    UnknownPass { name: String },
    #[error("pass '{pass}': {message}")]
    BadOption { pass: String, message: String },
    #[error("{pass}: {message}")]
    Unsupported { pass: String, message: String },
    #[error("{pass}: could not write output: {message}")]
    Output { pass: String, message: String },
}

pub struct PassContext<'a, 'ctx> {
    pub module: &'a Module<'ctx>,
    pub analyses: &'a mut AnalysisCache<'ctx>,
    /// Where printers and remarks go (stderr in `simt-opt`, like `opt`'s).
    pub out: &'a mut dyn Write,
}

pub trait ModulePass {
    /// The name as written in a pipeline, options included.
    fn name(&self) -> String;
    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Changed, PassError>;
}
