//! What `simt-to-nvptx` cannot map, reported per kernel: only a construct a
//! kernel actually reaches (itself or through the functions it calls) stops
//! the pass, with the kernel, the function and the construct named. Helpers
//! no kernel calls were deleted before this check runs.
//!
//! Today that is OpenCL's images and samplers (`image2d_t`, `read_imagef`,
//! `sampler_t`): clang gives them target extension types
//! (`target("spirv.Image", …)`), which LLVM's NVPTX code generator crashes
//! on; CUDA's texture objects would need a different launch interface.

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMTypeKind;
use std::collections::HashSet;

/// The first unsupported construct `kernel` reaches, as an error message.
pub unsafe fn check_kernel(kernel: LLVMValueRef) -> Result<(), String> {
    let kname = crate::ir::value_name_of(kernel);
    let mut seen = HashSet::new();
    let mut work = vec![kernel];
    while let Some(f) = work.pop() {
        if !seen.insert(f) {
            continue;
        }
        let fname = crate::ir::value_name_of(f);
        let in_fn = if f == kernel { String::new() } else { format!(" through '{fname}'") };
        for i in 0..LLVMCountParams(f) {
            let ty = LLVMTypeOf(LLVMGetParam(f, i));
            if is_target_ext(ty) {
                return Err(format!("kernel '{kname}' uses {}{in_fn} (parameter {i}): {}", describe(ty), WHY));
            }
        }
        let mut bb = LLVMGetFirstBasicBlock(f);
        while !bb.is_null() {
            let mut inst = LLVMGetFirstInstruction(bb);
            while !inst.is_null() {
                let ops = (0..LLVMGetNumOperands(inst).max(0) as u32).map(|k| LLVMTypeOf(LLVMGetOperand(inst, k)));
                if let Some(ty) = std::iter::once(LLVMTypeOf(inst)).chain(ops).find(|&t| is_target_ext(t)) {
                    let what = crate::ir::called_function_name(inst).map_or(String::new(), |c| format!(" in a call to '{c}'"));
                    return Err(format!("kernel '{kname}' uses {}{in_fn}{what}: {}", describe(ty), WHY));
                }
                if !LLVMIsACallInst(inst).is_null() {
                    let callee = LLVMGetCalledValue(inst);
                    if !LLVMIsAFunction(callee).is_null() && LLVMIsDeclaration(callee) == 0 {
                        work.push(callee);
                    }
                }
                inst = LLVMGetNextInstruction(inst);
            }
            bb = LLVMGetNextBasicBlock(bb);
        }
    }
    Ok(())
}

const WHY: &str = "OpenCL images and samplers have no NVPTX lowering in simt-to-nvptx";

unsafe fn is_target_ext(ty: LLVMTypeRef) -> bool {
    LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMTargetExtTypeKind
}

/// `an image (target("spirv.Image", …))`.
unsafe fn describe(ty: LLVMTypeRef) -> String {
    let printed = crate::ir::print_type(ty);
    let kind = if printed.contains("Image") {
        "an image"
    } else if printed.contains("Sampler") {
        "a sampler"
    } else {
        "a target-specific type"
    };
    format!("{kind} ({printed})")
}
