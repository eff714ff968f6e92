//! What `simt-run` compiles for a launch: the launched kernel and the
//! functions it needs, nothing else, with every call that hides a barrier or
//! a work-item builtin inlined (as pocl flattens such functions).
//!
//! ```text
//!   module: kernel A ─▶ scan(noinline) ─▶ barrier     kernel B ─▶ vstore_half
//!           helper  ─▶ get_local_id (no kernel calls it)
//!   1. everything but A internal, globaldce:   A ─▶ scan ─▶ barrier
//!   2. simt-flatten-calls, globaldce:           A: …barrier…
//! ```
//!
//! So another kernel's unsupported built-in, an unused image helper or an
//! unused helper calling `get_local_id` (which would otherwise stay in the
//! JIT's module as an unresolved `_Z12get_local_idj`) no longer matter: only
//! what the launched kernel runs is lowered, checked and linked. Errors that
//! remain are the launched kernel's own (a recursive helper that reaches a
//! barrier, an unsupported built-in it calls).

use crate::diag::ToolError;
use crate::pipeline::{self, RunOptions};
use inkwell::module::Module;
use inkwell::values::AsValueRef;
use llvm_sys::core::*;
use llvm_sys::{LLVMLinkage, LLVMVisibility};

/// Drops every function and global variable that kernel `kernel` does not
/// reach. The caller has checked that the kernel exists.
pub fn keep_only_kernel(module: &mut Module<'_>, kernel: &str) -> Result<(), ToolError> {
    internalize_all_but(module, kernel);
    run(module, "globaldce")
}

/// [`keep_only_kernel`], then every call from it to a function that uses
/// barriers or work-item builtins is inlined, and helpers left unused go.
pub fn prepare_launch(module: &mut Module<'_>, kernel: &str) -> Result<(), ToolError> {
    internalize_all_but(module, kernel);
    run(module, "globaldce,simt-flatten-calls,globaldce")
}

/// Gives every definition except `kernel` internal linkage, so that
/// `globaldce` may delete what the kernel does not reference.
fn internalize_all_but(module: &Module<'_>, kernel: &str) {
    let internalize = |v| unsafe {
        if LLVMIsDeclaration(v) == 0 {
            LLVMSetLinkage(v, LLVMLinkage::LLVMInternalLinkage);
            // Local linkage requires default visibility.
            LLVMSetVisibility(v, LLVMVisibility::LLVMDefaultVisibility);
        }
    };
    for f in module.get_functions() {
        if f.get_name().to_bytes() != kernel.as_bytes() {
            internalize(f.as_value_ref());
        }
    }
    for g in module.get_globals() {
        internalize(g.as_value_ref());
    }
}

fn run(module: &mut Module<'_>, text: &str) -> Result<(), ToolError> {
    let steps = pipeline::parse(text, None)?;
    pipeline::run(module, &steps, None, &RunOptions::default(), &mut std::io::sink()).map(|_| ())
}
