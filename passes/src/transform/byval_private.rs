//! `simt-byval-to-private`: each work-item gets its own copy of the kernel's
//! by-value parameters. Part of `simt-run`'s host and emulator front ends
//! (hidden from `-print-passes`).
//!
//! Why: a struct passed by value (`byval`) is one block of bytes per launch,
//! which the engines point the parameter at, while OpenCL gives each
//! work-item its own copy to write. So an `alloca` at the kernel's entry,
//! filled by `memcpy` from the parameter, stands for the parameter
//! everywhere else, and the parameter loses `byval` (it is now a plain
//! pointer the kernel only reads). `simt-wiloops` then places the copy like
//! any private variable (per work-item where it lives across a barrier), and
//! SROA removes it where the kernel never writes it.
//!
//! ```text
//!   define void @k(ptr byval(%S) align 8 %s) {      define void @k(ptr %s) {
//!   entry:                                          entry:
//!     %x = load i32, ptr %s                  ──▶      %byval.copy = alloca %S, align 8
//!                                                     call void @llvm.memcpy(ptr %byval.copy, ptr %s, i64 <size of %S>)
//!                                                     %x = load i32, ptr %byval.copy
//! ```
//!
//! The copy's alignment is the parameter's `align`, else the type's ABI
//! alignment in the module's data layout. The GPU needs none of this: the
//! CUDA ABI passes by-value parameters in parameter space, per thread.
//!
//! Limits: only kernels with external linkage (entry points: after
//! `simt-internalize<keep=K>`, K alone) that no call calls (a caller's call
//! makes its own copy; `globaldce` first removes the internalized kernels
//! that might); a by-value parameter of unsized type is an error.

use crate::ir::{defined_functions, function_name, Value};
use crate::kernel_model::is_kernel;
use crate::pass::{ModulePass, PassContext, PassError, Preserved};
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::{Linkage, Module};
use inkwell::values::FunctionValue;

#[derive(Default)]
pub struct ByvalToPrivate;

const NAME: &str = "simt-byval-to-private";

impl ModulePass for ByvalToPrivate {
    fn name(&self) -> String {
        NAME.into()
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        let module = cx.module();
        let mut changed = false;
        for k in defined_functions(module) {
            if is_kernel(k) && k.get_linkage() == Linkage::External && !Value::from(k).users().iter().any(|u| u.is_call_site()) {
                changed |= copy_byval_parameters(module, k).map_err(|message| PassError::Unsupported { pass: NAME.into(), message })?;
            }
        }
        // An alloca, a memcpy and the parameter's uses: no block or edge.
        Ok(if changed { Preserved::cfg_analyses() } else { Preserved::all() })
    }
}

impl crate::pass::DeclaredPass for ByvalToPrivate {
    const NAME: &'static str = NAME;
    const SUMMARY: &'static str = "simt-run's front end: a private copy of each by-value kernel parameter per work-item";
    const HIDDEN: bool = true;
}

/// Rewrites the `byval` parameters of `kernel`; whether it had any.
fn copy_byval_parameters(module: &Module<'_>, kernel: FunctionValue<'_>) -> Result<bool, String> {
    let ctx = module.get_context();
    let byval = Attribute::get_named_enum_kind_id("byval");
    let align_kind = Attribute::get_named_enum_kind_id("align");
    let layout = inkwell::targets::TargetData::create(&module.get_data_layout().as_str().to_string_lossy());
    let mut changed = false;
    for i in 0..kernel.count_params() {
        let Some(attr) = kernel.get_enum_attribute(AttributeLoc::Param(i), byval) else { continue };
        let ty = attr.get_type_value();
        let Ok(basic) = inkwell::types::BasicTypeEnum::try_from(ty) else {
            return Err(format!("kernel '{}': parameter {i} is passed by value as an unsized type", function_name(kernel)));
        };
        let p = kernel.get_nth_param(i).expect("a parameter below the count").into_pointer_value();
        let align = kernel
            .get_enum_attribute(AttributeLoc::Param(i), align_kind)
            .map_or(layout.get_abi_alignment(&basic), |a| a.get_enum_value() as u32);
        let entry = kernel.get_first_basic_block().expect("the kernel has a body");
        let b = ctx.create_builder();
        match entry.get_first_instruction() {
            Some(first) => b.position_before(&first),
            None => b.position_at_end(entry),
        }
        let build = |e: inkwell::builder::BuilderError| format!("copying by-value parameter {i}: {e}");
        let copy = b.build_alloca(basic, "byval.copy").map_err(build)?;
        if let Some(inst) = copy.as_instruction() {
            inst.set_alignment(align).map_err(|e| e.to_string())?;
        }
        p.replace_all_uses_with(copy);
        let size = ctx.i64_type().const_int(layout.get_abi_size(&basic), false);
        b.build_memcpy(copy, align, p, align, size).map_err(build)?;
        kernel.remove_enum_attribute(AttributeLoc::Param(i), byval);
        changed = true;
    }
    Ok(changed)
}
