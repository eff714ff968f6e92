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

use crate::ir::{delete_function, CallBuilder, Value};
use crate::pass::{ModulePass, PassContext, PassError, Preserved};
use crate::transform::converge::{bundle_tags, function_instructions, is_convergence_intrinsic, BUNDLE, INTRINSIC_PREFIX, MARKER};
use inkwell::module::Module;
use inkwell::values::FunctionValue;

#[derive(Default)]
pub struct StripMarkers;

const NAME: &str = "simt-strip-markers";

impl ModulePass for StripMarkers {
    fn name(&self) -> String {
        NAME.into()
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        let changed = strip_module(cx.module_mut()).map_err(|message| PassError::Unsupported { pass: NAME.into(), message })?;
        // Calls, bundles and declarations go; blocks and edges stay.
        Ok(if changed { Preserved::cfg_analyses() } else { Preserved::all() })
    }
}

/// Removes markers, bundles and tokens from every function; whether anything changed.
pub fn strip_module(module: &Module<'_>) -> Result<bool, String> {
    let mut changed = false;
    for f in module.get_functions() {
        changed |= strip_function(f)?;
    }
    // The declarations left without uses: the marker and the intrinsics.
    let functions: Vec<FunctionValue<'_>> = module.get_functions().collect();
    for f in functions {
        let name = crate::ir::function_name(f);
        let v = Value::from(f);
        if (name == MARKER || name.starts_with(INTRINSIC_PREFIX)) && v.is_declaration() && !v.has_uses() {
            delete_function(f);
            changed = true;
        }
    }
    Ok(changed)
}

fn strip_function(f: FunctionValue<'_>) -> Result<bool, String> {
    let mut changed = false;
    let mut tokens = Vec::new();
    let mut builder = CallBuilder::new(Value::from(f));
    for i in function_instructions(f) {
        if !i.is_call_site() {
            continue;
        }
        if i.called_function_name().as_deref() == Some(MARKER) {
            i.erase();
            changed = true;
        } else if is_convergence_intrinsic(i) {
            tokens.push(i);
        } else if i.is_callbr() {
            if i.num_operand_bundles() > 0 {
                return Err("a callbr with operand bundles cannot be rebuilt without them".into());
            }
        } else if bundle_tags(i).iter().any(|t| t == BUNDLE) {
            builder.rebuild_call(i, &|tag| tag != BUNDLE, &[])?;
            changed = true;
        }
    }
    // Tokens are used by bundles only: those of other tokens are left. Delete
    // the unused ones until none remain (one round per nesting level).
    while !tokens.is_empty() {
        let before = tokens.len();
        tokens.retain(|&t| {
            if t.value().has_uses() {
                true
            } else {
                t.erase();
                false
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
