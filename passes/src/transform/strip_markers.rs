//! `simt-strip-markers`: removes what `simt-converge` added, so that the
//! module lowers with any backend at any level (seed 000's markers are for an
//! executor that reads them, not for a CPU or PTX).
//!
//! - Calls to `@simt.converge` are deleted, and its declaration (and those of
//!   the intrinsics below) when unused.
//! - `convergencectrl` operand bundles are dropped from every call and invoke
//!   (the call is rebuilt without them, keeping its other bundles, attributes,
//!   metadata and name), then the convergence control intrinsics
//!   (`llvm.experimental.convergence.entry/loop/anchor`) are deleted, users
//!   before the tokens they use. `llc -O0` crashes on `convergence.loop` in
//!   LLVM 22, and a token left without users is deleted by LLVM's own DCE
//!   anyway, so tokens are stripped whoever placed them: a module that came
//!   with convergence control loses it (its convergent calls become
//!   uncontrolled, LLVM's default meaning).
//!
//! Idempotent; a module without markers is left untouched. [`strip_module`]
//! is the same as a function, for drivers that lower modules.
//!
//! Limitation: a `callbr` with a `convergencectrl` bundle cannot be rebuilt
//! through the C API and is reported as unsupported.

use crate::ir::called_function_name;
use crate::pass::{Changed, ModulePass, PassContext, PassError};
use crate::transform::converge::{bundle_tags, instructions, is_convergence_intrinsic, rebuild_call, BUNDLE, INTRINSIC_PREFIX, MARKER};
use inkwell::module::Module;
use llvm_sys::core::*;
use llvm_sys::prelude::*;

#[derive(Default)]
pub struct StripMarkers;

const NAME: &str = "simt-strip-markers";

impl ModulePass for StripMarkers {
    fn name(&self) -> String {
        NAME.into()
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Changed, PassError> {
        let changed = strip_module(cx.module).map_err(|message| PassError::Unsupported { pass: NAME.into(), message })?;
        Ok(if changed { Changed::Instructions } else { Changed::Nothing })
    }
}

/// Removes markers, bundles and tokens from every function; whether anything changed.
pub fn strip_module(module: &Module<'_>) -> Result<bool, String> {
    let m = module.as_mut_ptr();
    let mut changed = false;
    unsafe {
        let builder = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
        let mut f = LLVMGetFirstFunction(m);
        while !f.is_null() {
            let result = strip_function(builder, f);
            match result {
                Ok(c) => changed |= c,
                Err(e) => {
                    LLVMDisposeBuilder(builder);
                    return Err(e);
                }
            }
            f = LLVMGetNextFunction(f);
        }
        LLVMDisposeBuilder(builder);
        // The declarations left without uses: the marker and the intrinsics.
        let mut f = LLVMGetFirstFunction(m);
        while !f.is_null() {
            let next = LLVMGetNextFunction(f);
            let name = crate::ir::function_name(inkwell::values::FunctionValue::new(f).expect("a function"));
            if (name == MARKER || name.starts_with(INTRINSIC_PREFIX)) && LLVMIsDeclaration(f) != 0 && LLVMGetFirstUse(f).is_null() {
                LLVMDeleteFunction(f);
                changed = true;
            }
            f = next;
        }
    }
    Ok(changed)
}

unsafe fn strip_function(builder: LLVMBuilderRef, f: LLVMValueRef) -> Result<bool, String> {
    let mut changed = false;
    let mut tokens = Vec::new();
    for i in instructions(f) {
        if LLVMIsACallInst(i).is_null() && LLVMIsAInvokeInst(i).is_null() && LLVMIsACallBrInst(i).is_null() {
            continue;
        }
        if called_function_name(i).as_deref() == Some(MARKER) {
            LLVMInstructionEraseFromParent(i);
            changed = true;
        } else if is_convergence_intrinsic(i) {
            tokens.push(i);
        } else if !LLVMIsACallBrInst(i).is_null() {
            if LLVMGetNumOperandBundles(i) > 0 {
                return Err("a callbr with operand bundles cannot be rebuilt without them".into());
            }
        } else if bundle_tags(i).iter().any(|t| t == BUNDLE) {
            LLVMPositionBuilderBefore(builder, i);
            rebuild_call(builder, i, &|tag| tag != BUNDLE, None)?;
            changed = true;
        }
    }
    // Tokens are used by bundles only: those of other tokens are left. Delete
    // the unused ones until none remain (one round per nesting level).
    while !tokens.is_empty() {
        let before = tokens.len();
        tokens.retain(|&t| {
            if LLVMGetFirstUse(t).is_null() {
                LLVMInstructionEraseFromParent(t);
                false
            } else {
                true
            }
        });
        if tokens.len() == before {
            return Err("convergence tokens are used by something other than convergence intrinsics".into());
        }
        changed = true;
    }
    Ok(changed)
}

impl crate::pass::DeclaredPass for StripMarkers {
    const NAME: &'static str = "simt-strip-markers";
    const SUMMARY: &'static str = "removes @simt.converge calls and convergence control tokens and bundles, for lowering";
    const SEED: Option<&'static str> = Some("000");
}
