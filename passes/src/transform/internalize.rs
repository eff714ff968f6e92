//! `simt-internalize<keep=NAME>`: the first step of every engine's front end
//! in `simt-run` (hidden from `-print-passes`). Every definition, function
//! or global variable, except the function NAME becomes internal, so that
//! the `globaldce` after it deletes everything the launched kernel does not
//! reach: another kernel's unsupported built-in, an unused image helper, or
//! an unused helper calling `get_local_id` (which would stay in the JIT's
//! module as an unresolved `_Z12get_local_idj`) no longer matter, and the
//! errors that remain are the launched kernel's own. LLVM's `internalize`
//! with `-internalize-public-api-list=NAME`, as a pipeline element.
//!
//! ```text
//!   define spir_kernel void @a() { call @scan() }     define spir_kernel void @a() { call @scan() }
//!   define spir_kernel void @b() { … }           ──▶  define internal spir_kernel void @b() { … }
//!   define void @scan() { … }                         define internal void @scan() { … }
//!   @table = global [4 x i32] …                       @table = internal global [4 x i32] …
//! ```
//!
//! Without `keep`, every kernel (by calling convention or `nvvm.annotations`)
//! stays external and everything else becomes internal. Declarations are
//! untouched; local visibility becomes default, as internal linkage needs.
//!
//! Limits: NAME is written inside `<…>`, so a function whose name holds `;`,
//! `,`, `<`, `>`, `(` or `)` cannot be kept (an error says so: no function
//! by that name is defined).

use crate::ir::globals::internalize_all_but;
use crate::ir::{defined_functions, function_name};
use crate::kernel_model::is_kernel;
use crate::pass::{ModulePass, PassContext, PassError, Preserved};

#[derive(Default)]
pub struct Internalize {
    keep: Option<String>,
}

const NAME: &str = "simt-internalize";

impl ModulePass for Internalize {
    fn name(&self) -> String {
        match &self.keep {
            Some(k) => format!("{NAME}<keep={k}>"),
            None => NAME.into(),
        }
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        let module = cx.module();
        let changed = match &self.keep {
            Some(keep) => {
                if !defined_functions(module).into_iter().any(|f| function_name(f) == *keep) {
                    return Err(PassError::Unsupported { pass: NAME.into(), message: format!("no function named '{keep}' is defined") });
                }
                internalize_all_but(module, |f| function_name(f) == *keep)
            }
            None => internalize_all_but(module, is_kernel),
        };
        // Linkage is no analysis's input, but LLVM (the plugin's host) must
        // hear that the module changed.
        Ok(if changed { Preserved::cfg_analyses() } else { Preserved::all() })
    }
}

impl crate::pass::DeclaredPass for Internalize {
    const NAME: &'static str = NAME;
    const SUMMARY: &'static str = "simt-run's front end: every definition but one function (or the kernels) internal";
    const OPTIONS: &'static [(&'static str, &'static str)] =
        &[("keep=NAME", "the one function that stays external (default: every kernel)")];
    const HIDDEN: bool = true;

    fn set_option(&mut self, key: &str, value: Option<&str>) -> Result<(), String> {
        match (key, value) {
            ("keep", Some(name)) if !name.is_empty() => self.keep = Some(name.to_string()),
            _ => return Err(crate::pass::unknown_option::<Self>(key)),
        }
        Ok(())
    }
}
