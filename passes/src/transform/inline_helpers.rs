//! `simt-always-inline-helpers`: marks every function but the entry kernels
//! `alwaysinline`, for the `always-inline` after it. Part of `simt-run`'s
//! emulator front end (hidden from `-print-passes`).
//!
//! Why: the emulator keeps no call stack per lane, so the kernel it decodes
//! must have no calls to defined functions. `noinline` and `optnone`, which
//! would stop LLVM's inliner, go. libdevice's `__nv_*` are the exception:
//! the decoder runs them as the C math functions they name (their bodies use
//! `llvm.nvvm.*` arithmetic the emulator does not implement), so they become
//! `noinline` and lose the `alwaysinline` libdevice gives them.
//!
//! ```text
//!   define spir_kernel void @k()  { call @helper() ; call @__nv_sinf(…) }    (kept as it is)
//!   define internal void @helper() #0        #0 = { noinline optnone }   ──▶  { alwaysinline }
//!   define internal float @__nv_sinf(float) #1  #1 = { alwaysinline }     ──▶  { noinline }
//! ```
//!
//! Entry kernels are kernels with external linkage (after
//! `simt-internalize<keep=K>`, K alone); another kernel the launched one
//! calls is internal by then, and is inlined like any helper.
//!
//! Limits: marks only; a recursive helper stays a call after
//! `always-inline` (the front end's `simt-flatten-calls` before it reports
//! recursion by name).

use crate::ir::{defined_functions, function_name};
use crate::kernel_model::is_kernel;
use crate::pass::{ModulePass, PassContext, PassError, Preserved};
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::Linkage;

#[derive(Default)]
pub struct AlwaysInlineHelpers;

const NAME: &str = "simt-always-inline-helpers";

impl ModulePass for AlwaysInlineHelpers {
    fn name(&self) -> String {
        NAME.into()
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        let module = cx.module();
        let ctx = module.get_context();
        let kind = Attribute::get_named_enum_kind_id;
        let (noinline, optnone, always) = (kind("noinline"), kind("optnone"), kind("alwaysinline"));
        let at = AttributeLoc::Function;
        let has = |g: inkwell::values::FunctionValue<'_>, k| g.get_enum_attribute(at, k).is_some();
        let mut changed = false;
        for g in defined_functions(module) {
            if is_kernel(g) && g.get_linkage() == Linkage::External {
                continue;
            }
            let (drop, add): (&[u32], u32) =
                if function_name(g).starts_with("__nv_") { (&[always], noinline) } else { (&[noinline, optnone], always) };
            for &k in drop {
                if has(g, k) {
                    g.remove_enum_attribute(at, k);
                    changed = true;
                }
            }
            if !has(g, add) {
                g.add_attribute(at, ctx.create_enum_attribute(add, 0));
                changed = true;
            }
        }
        // Attributes only; LLVM (the plugin's host) must hear of the change.
        Ok(if changed { Preserved::cfg_analyses() } else { Preserved::all() })
    }
}

impl crate::pass::DeclaredPass for AlwaysInlineHelpers {
    const NAME: &'static str = NAME;
    const SUMMARY: &'static str = "simt-run's emulator front end: every helper alwaysinline (libdevice's __nv_* noinline)";
    const HIDDEN: bool = true;
}
