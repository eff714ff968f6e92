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

use crate::ir::{Builder, Ty, Value};
use crate::transform::ocl_builtins::FLOAT_LIBM;
use inkwell::module::Module;
use llvm_sys::LLVMTypeKind;

/// LLVM intrinsics (`llvm.NAME.TYPE`) that go to libdevice's `__nv_NAME[f]`.
const INTRINSICS: &[&str] =
    &["exp", "exp2", "exp10", "log", "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "pow"];

/// C library functions (`NAME` for double, `NAMEf` for float) that libdevice
/// provides as `__nv_NAME[f]`: those `simt-lower-ocl-builtins` calls
/// (`FLOAT_LIBM`, one list so that each has a libdevice twin) and these, which
/// CUDA sources call through simt's shim (`src/cuda_shim.h`: `expf`, `fminf`,
/// `sqrt`, ...).
const CUDA_LIBM: &[&str] = &[
    "sqrt",
    "fabs",
    "floor",
    "ceil",
    "trunc",
    "round",
    "rint",
    "nearbyint",
    "exp",
    "exp2",
    "exp10",
    "log",
    "log2",
    "log10",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "pow",
    "fmin",
    "fmax",
    "copysign",
    "fma",
];

/// Rewrites every math call in `m` to libdevice; returns whether any was.
pub fn to_libdevice(m: &Module<'_>) -> bool {
    let mut any = false;
    let i32t = Ty::of(m.get_context().i32_type());
    for call in super::all_calls(m) {
        let Some(callee) = call.called_function_name() else { continue };
        let Some(base) = libdevice_base(&callee) else { continue };
        let ty = call.ty();
        let mut b = Builder::new(call.value());
        b.position_before(call);
        let args = call.call_args();
        let v = if ty.is_vector() {
            // One call per lane: libdevice is scalar.
            let elem = ty.scalar();
            let mut out = ty.poison();
            for lane in 0..ty.vector_len() {
                let idx = i32t.const_int(lane as u64);
                let lane_args: Vec<Value<'_>> = args.iter().map(|&a| b.extract_element(a, idx, "")).collect();
                let r = call_nv(m, &mut b, base, elem, &lane_args);
                out = b.insert_element(out, r, idx, "");
            }
            out
        } else {
            call_nv(m, &mut b, base, ty, &args)
        };
        drop(b);
        call.value().replace_all_uses_with(v);
        call.erase();
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
    FLOAT_LIBM.iter().chain(CUDA_LIBM).copied().find(|&n| callee == n || callee.strip_suffix('f') == Some(n))
}

/// `__nv_NAMEf(args)` for float, `__nv_NAME(args)` for double.
fn call_nv<'ctx>(m: &Module<'ctx>, b: &mut Builder<'ctx>, base: &str, ty: Ty<'ctx>, args: &[Value<'ctx>]) -> Value<'ctx> {
    let float = ty.kind() == LLVMTypeKind::LLVMFloatTypeKind;
    let name = format!("__nv_{base}{}", if float { "f" } else { "" });
    let params: Vec<Ty<'ctx>> = args.iter().map(|a| a.ty()).collect();
    let fty = Ty::function(ty, &params);
    let f = crate::ir::globals::function_or_declare(m, &name, fty);
    b.call(fty, f, args, "").value()
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
