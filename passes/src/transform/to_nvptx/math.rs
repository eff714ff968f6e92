//! Math for NVPTX: the calls `simt-lower-ocl-builtins` leaves (LLVM math
//! intrinsics and C library functions, which the x86 path gets from libm)
//! become calls to NVIDIA's libdevice (`__nv_expf`, `__nv_atan2`, …), which
//! `libdevice` then links in. This is what clang's CUDA headers do.
//!
//! Why: NVPTX has no library to call: `llvm.exp.f32` fails with "no libcall
//! available", `atan2f` stays unresolved and ptxas rejects it. Intrinsics
//! that PTX implements exactly (`sqrt` → `sqrt.rn`, `fabs`, `fma`, `floor`,
//! `ceil`, `trunc`, `rint`, `round`, `minnum`, `maxnum`, `copysign`,
//! `fmuladd`) are left for the backend. Transcendental intrinsics are *not*
//! left to NVPTX even where it selects them (`exp2.f32`, `sin.f32` map to the
//! `.approx` instructions, a few ULP off OpenCL's bounds): libdevice is
//! accurate. Vector calls are split into one libdevice call per lane.

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMTypeKind;
use std::ffi::CString;

/// LLVM intrinsics (`llvm.NAME.TYPE`) that go to libdevice's `__nv_NAME[f]`.
const INTRINSICS: &[&str] = &[
    "exp", "exp2", "exp10", "log", "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "pow",
];

/// C library functions (`NAME` for double, `NAMEf` for float) that
/// `simt-lower-ocl-builtins` calls and libdevice provides as `__nv_NAME[f]`.
const LIBM: &[&str] = &[
    "fdim", "atan2", "fmod", "hypot", "cbrt", "erf", "erfc", "expm1", "log1p", "asinh", "acosh", "atanh", "lgamma", "tgamma", "remainder",
];

/// Rewrites every math call in `m` to libdevice; returns whether any was.
pub unsafe fn to_libdevice(m: LLVMModuleRef) -> bool {
    let mut any = false;
    for call in super::all_calls(m) {
        let Some(callee) = crate::ir::called_function_name(call) else { continue };
        let Some(base) = libdevice_base(&callee) else { continue };
        let ty = LLVMTypeOf(call);
        let b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
        LLVMPositionBuilderBefore(b, call);
        let args: Vec<LLVMValueRef> = (0..LLVMGetNumArgOperands(call)).map(|k| LLVMGetOperand(call, k)).collect();
        let v = if LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMVectorTypeKind {
            // One call per lane: libdevice is scalar.
            let elem = LLVMGetElementType(ty);
            let i32t = LLVMInt32TypeInContext(LLVMGetModuleContext(m));
            let mut out = LLVMGetPoison(ty);
            for lane in 0..LLVMGetVectorSize(ty) {
                let idx = LLVMConstInt(i32t, lane as u64, 0);
                let lane_args: Vec<LLVMValueRef> = args.iter().map(|&a| LLVMBuildExtractElement(b, a, idx, c"".as_ptr())).collect();
                let r = call_nv(m, b, base, elem, &lane_args);
                out = LLVMBuildInsertElement(b, out, r, idx, c"".as_ptr());
            }
            out
        } else {
            call_nv(m, b, base, ty, &args)
        };
        LLVMDisposeBuilder(b);
        LLVMReplaceAllUsesWith(call, v);
        LLVMInstructionEraseFromParent(call);
        any = true;
    }
    any
}

/// `exp` for `llvm.exp.f32`/`llvm.exp.v4f64`, `atan2` for `atan2f`/`atan2`.
fn libdevice_base(callee: &str) -> Option<&'static str> {
    if let Some(rest) = callee.strip_prefix("llvm.") {
        let (name, ty) = rest.split_once('.')?;
        let fp = ty.ends_with("f32") || ty.ends_with("f64");
        return INTRINSICS.iter().copied().find(|&n| n == name && fp);
    }
    LIBM.iter().copied().find(|&n| callee == n || callee.strip_suffix('f') == Some(n))
}

/// `__nv_NAMEf(args)` for float, `__nv_NAME(args)` for double.
unsafe fn call_nv(m: LLVMModuleRef, b: LLVMBuilderRef, base: &str, ty: LLVMTypeRef, args: &[LLVMValueRef]) -> LLVMValueRef {
    let float = LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMFloatTypeKind;
    let name = CString::new(format!("__nv_{base}{}", if float { "f" } else { "" })).expect("no NUL");
    let mut params: Vec<LLVMTypeRef> = args.iter().map(|&a| LLVMTypeOf(a)).collect();
    let fty = LLVMFunctionType(ty, params.as_mut_ptr(), params.len() as u32, 0);
    let mut f = LLVMGetNamedFunction(m, name.as_ptr());
    if f.is_null() {
        f = LLVMAddFunction(m, name.as_ptr(), fty);
    }
    let mut a = args.to_vec();
    LLVMBuildCall2(b, fty, f, a.as_mut_ptr(), a.len() as u32, c"".as_ptr())
}

#[cfg(test)]
mod tests {
    use super::libdevice_base;

    #[test]
    fn names() {
        assert_eq!(libdevice_base("llvm.exp.f32"), Some("exp"));
        assert_eq!(libdevice_base("llvm.pow.v4f64"), Some("pow"));
        assert_eq!(libdevice_base("llvm.sqrt.f32"), None);
        assert_eq!(libdevice_base("atan2f"), Some("atan2"));
        assert_eq!(libdevice_base("erf"), Some("erf"));
        assert_eq!(libdevice_base("llvm.exp.i32"), None);
    }
}
