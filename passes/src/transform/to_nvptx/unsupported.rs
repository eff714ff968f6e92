//! What `simt-to-nvptx` cannot map, reported per kernel: only a construct a
//! kernel actually reaches (itself or through the functions it calls) stops
//! the pass, with the kernel, the function and the construct named. Helpers
//! no kernel calls were deleted before this check runs.
//!
//! Today that is OpenCL's images and samplers (`image2d_t`, `read_imagef`,
//! `sampler_t`): clang gives them target extension types
//! (`target("spirv.Image", …)`), which LLVM's NVPTX code generator crashes
//! on; CUDA's texture objects would need a different launch interface.

use crate::ir::{instructions, parameters, Ty};
use inkwell::values::FunctionValue;
use llvm_sys::LLVMTypeKind;
use std::collections::HashSet;

/// The first unsupported construct `kernel` reaches, as an error message.
pub fn check_kernel(kernel: FunctionValue<'_>) -> Result<(), String> {
    let kname = crate::ir::function_name(kernel);
    let mut seen = HashSet::new();
    let mut work = vec![kernel];
    while let Some(f) = work.pop() {
        if !seen.insert(f) {
            continue;
        }
        let fname = crate::ir::function_name(f);
        let in_fn = if f == kernel { String::new() } else { format!(" through '{fname}'") };
        for (i, p) in parameters(f).into_iter().enumerate() {
            let ty = p.ty();
            if is_target_ext(ty) {
                return Err(format!("kernel '{kname}' uses {}{in_fn} (parameter {i}): {}", describe(ty), WHY));
            }
        }
        for bb in f.get_basic_block_iter() {
            for inst in instructions(bb) {
                if let Some(ty) = std::iter::once(inst.ty()).chain(inst.operands().map(|o| o.ty())).find(|&t| is_target_ext(t)) {
                    let what = inst.called_function_name().map_or(String::new(), |c| format!(" in a call to '{c}'"));
                    return Err(format!("kernel '{kname}' uses {}{in_fn}{what}: {}", describe(ty), WHY));
                }
                if inst.is_call() {
                    if let Some(callee) = inst.called_function_value().filter(|c| !c.is_declaration()) {
                        work.push(callee.as_function().expect("a called function"));
                    }
                }
            }
        }
    }
    Ok(())
}

const WHY: &str = "OpenCL images and samplers have no NVPTX lowering in simt-to-nvptx";

fn is_target_ext(ty: Ty<'_>) -> bool {
    ty.kind() == LLVMTypeKind::LLVMTargetExtTypeKind
}

/// `an image (target("spirv.Image", …))`.
fn describe(ty: Ty<'_>) -> String {
    let printed = ty.print();
    let kind = if printed.contains("Image") {
        "an image"
    } else if printed.contains("Sampler") {
        "a sampler"
    } else {
        "a target-specific type"
    };
    format!("{kind} ({printed})")
}
