//! `simt-lower-ocl-builtins`: OpenCL C built-in functions that clang leaves
//! as calls to Itanium-mangled externals (`_Z10atomic_addPU3AS1Vjj`,
//! `_Z4sqrtf`, `_Z3maxii`, …) become LLVM IR, so the kernel runs on a CPU with
//! no OpenCL library: atomics become `atomicrmw`/`cmpxchg`/atomic loads and
//! stores, math becomes LLVM intrinsics (which lower to the C library where
//! the CPU has no instruction), integer built-ins become `smin`/`umax`/….
//!
//! Signedness comes from the mangled parameter types (`i`/`l` signed,
//! `j`/`m` unsigned), the rest from the call's own LLVM types. Work-item
//! functions and barriers are left alone (they are `simt-wiloops`' business);
//! any other mangled external that remains is reported by name, since no
//! library would resolve it at link time.
//!
//! Only what a kernel can run counts: an unsupported built-in (an image read,
//! `vstore_half`) is reported where it sits in a function some kernel calls
//! (or names), transitively, and is left in place, unreported, in functions
//! no kernel needs (a helper library's unused image sampler). Supported
//! built-ins are lowered everywhere. A module with no kernels is a library:
//! every function counts.

use crate::ir::print_value;
use crate::pass::{Changed, ModulePass, PassContext, PassError};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMAtomicOrdering, LLVMAtomicRMWBinOp, LLVMIntPredicate, LLVMTypeKind};
use std::ffi::CString;

#[derive(Default)]
pub struct LowerOclBuiltins;

const NAME: &str = "simt-lower-ocl-builtins";

impl ModulePass for LowerOclBuiltins {
    fn name(&self) -> String {
        NAME.into()
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Changed, PassError> {
        let m = cx.module.as_mut_ptr();
        let mut changed = Changed::Nothing;
        unsafe {
            let b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
            let kernels = crate::transform::call_graph::kernels(cx.module);
            let needed = crate::transform::call_graph::CallGraph::new(cx.module).needed_by(&kernels);
            let mut calls = Vec::new();
            for f in crate::ir::defined_functions(cx.module) {
                let counts = kernels.is_empty() || needed.contains(&f);
                for bb in f.get_basic_block_iter() {
                    for inst in bb.get_instructions() {
                        let i = inkwell::values::AsValueRef::as_value_ref(&inst);
                        if let Some((base, params)) = ocl_call(i) {
                            calls.push((i, base, params, counts, f));
                        }
                    }
                }
            }
            let mut result = Ok(());
            for (i, base, params, counts, f) in calls {
                LLVMPositionBuilderBefore(b, i);
                match lower(b, m, i, &base, &params) {
                    Ok(Some(v)) => {
                        if !v.is_null() {
                            LLVMReplaceAllUsesWith(i, v);
                        }
                        LLVMInstructionEraseFromParent(i);
                        changed = Changed::Instructions;
                    }
                    Ok(None) => {}
                    // Unsupported, but no kernel can reach it: left as is.
                    Err(_) if !counts => {}
                    Err(e) => {
                        let what = if crate::kernel_model::is_kernel(f) { "kernel" } else { "function" };
                        result = Err(format!("{what} '{}': {e}", crate::ir::function_name(f)));
                        break;
                    }
                }
            }
            LLVMDisposeBuilder(b);
            result.map_err(|message| PassError::Unsupported { pass: NAME.into(), message })?;
        }
        Ok(changed)
    }
}

/// `(base name, mangled parameters)` of a call to a declared `_Z` function.
unsafe fn ocl_call(i: LLVMValueRef) -> Option<(String, String)> {
    if LLVMIsACallInst(i).is_null() {
        return None;
    }
    let callee = LLVMGetCalledValue(i);
    if callee.is_null() || LLVMIsAFunction(callee).is_null() || LLVMIsDeclaration(callee) == 0 {
        return None;
    }
    let name = crate::ir::called_function_name(i)?;
    let rest = name.strip_prefix("_Z")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let len: usize = rest[..digits].parse().ok()?;
    let base = rest.get(digits..digits + len)?.to_string();
    let params = rest.get(digits + len..)?.to_string();
    Some((base, params))
}

/// The element type code of the first mangled parameter: `i`, `j`, `f`, …
/// (pointer, address-space, `volatile`/`const` and vector prefixes skipped).
fn first_param_code(params: &str) -> Option<char> {
    let mut s = params;
    loop {
        if let Some(r) = s.strip_prefix('P').or_else(|| s.strip_prefix('V')).or_else(|| s.strip_prefix('K')) {
            s = r;
        } else if let Some(r) = s.strip_prefix("U3AS") {
            s = r.trim_start_matches(|c: char| c.is_ascii_digit());
        } else if let Some(r) = s.strip_prefix("Dv") {
            s = r.split_once('_')?.1;
        } else {
            return s.chars().next();
        }
    }
}

fn is_signed(code: Option<char>) -> bool {
    matches!(code, Some('c' | 'a' | 's' | 'i' | 'l' | 'x'))
}

unsafe fn arg(i: LLVMValueRef, k: u32) -> LLVMValueRef {
    LLVMGetOperand(i, k)
}

unsafe fn intrinsic(b: LLVMBuilderRef, m: LLVMModuleRef, name: &str, args: &[LLVMValueRef]) -> LLVMValueRef {
    let id = LLVMLookupIntrinsicID(name.as_ptr().cast(), name.len());
    let mut tys = [LLVMTypeOf(args[0])];
    let f = LLVMGetIntrinsicDeclaration(m, id, tys.as_mut_ptr(), 1);
    let fty = LLVMIntrinsicGetType(LLVMGetModuleContext(m), id, tys.as_mut_ptr(), 1);
    let mut a = args.to_vec();
    LLVMBuildCall2(b, fty, f, a.as_mut_ptr(), a.len() as u32, c"".as_ptr())
}

/// A call to the C library's `name` (`sinhf`, …) with the call's own signature.
unsafe fn libm(b: LLVMBuilderRef, m: LLVMModuleRef, i: LLVMValueRef, name: &str) -> LLVMValueRef {
    let c = CString::new(name).expect("no NUL");
    let n = LLVMGetNumArgOperands(i);
    let mut args: Vec<LLVMValueRef> = (0..n).map(|k| arg(i, k)).collect();
    let mut tys: Vec<LLVMTypeRef> = args.iter().map(|&a| LLVMTypeOf(a)).collect();
    let fty = LLVMFunctionType(LLVMTypeOf(i), tys.as_mut_ptr(), n, 0);
    let mut f = LLVMGetNamedFunction(m, c.as_ptr());
    if f.is_null() {
        f = LLVMAddFunction(m, c.as_ptr(), fty);
    }
    LLVMBuildCall2(b, fty, f, args.as_mut_ptr(), n, c"".as_ptr())
}

fn is_float(ty: LLVMTypeRef) -> bool {
    unsafe {
        let t = if LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMVectorTypeKind { LLVMGetElementType(ty) } else { ty };
        matches!(LLVMGetTypeKind(t), LLVMTypeKind::LLVMFloatTypeKind | LLVMTypeKind::LLVMDoubleTypeKind | LLVMTypeKind::LLVMHalfTypeKind)
    }
}

fn is_vector(ty: LLVMTypeRef) -> bool {
    unsafe { LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMVectorTypeKind }
}

const SEQ_CST: LLVMAtomicOrdering = LLVMAtomicOrdering::LLVMAtomicOrderingSequentiallyConsistent;

/// The replacement for one call (`Some(null)` for a void call now erased),
/// `None` to leave it, or an error naming an unsupported built-in.
unsafe fn lower(b: LLVMBuilderRef, m: LLVMModuleRef, i: LLVMValueRef, base: &str, params: &str) -> Result<Option<LLVMValueRef>, String> {
    if unsafe { crate::ir::Value::from_raw(i) }.as_inst().and_then(crate::kernel_model::builtin_of).is_some() {
        return Ok(None);
    }
    let code = first_param_code(params);
    let signed = is_signed(code);
    let n = LLVMGetNumArgOperands(i);
    let ty = LLVMTypeOf(i);
    let ctx = LLVMGetModuleContext(m);
    let rmw = |op: LLVMAtomicRMWBinOp, v: LLVMValueRef| LLVMBuildAtomicRMW(b, op, arg(i, 0), v, SEQ_CST, 0);
    let one = || LLVMConstInt(ty, 1, 0);
    use LLVMAtomicRMWBinOp::*;

    // Atomics: OpenCL 1.x (atomic_*, atom_*) and the C11 forms of OpenCL 2.0.
    let atomic = base.strip_prefix("atomic_").or_else(|| base.strip_prefix("atom_"));
    if let Some(op) = atomic {
        let op = op.strip_suffix("_explicit").unwrap_or(op);
        let op = op.strip_prefix("fetch_").unwrap_or(op);
        let v = match op {
            "add" if is_float(ty) => rmw(LLVMAtomicRMWBinOpFAdd, arg(i, 1)),
            "add" => rmw(LLVMAtomicRMWBinOpAdd, arg(i, 1)),
            "sub" => rmw(LLVMAtomicRMWBinOpSub, arg(i, 1)),
            "inc" => rmw(LLVMAtomicRMWBinOpAdd, one()),
            "dec" => rmw(LLVMAtomicRMWBinOpSub, one()),
            "xchg" | "exchange" => rmw(LLVMAtomicRMWBinOpXchg, arg(i, 1)),
            "and" => rmw(LLVMAtomicRMWBinOpAnd, arg(i, 1)),
            "or" => rmw(LLVMAtomicRMWBinOpOr, arg(i, 1)),
            "xor" => rmw(LLVMAtomicRMWBinOpXor, arg(i, 1)),
            "min" if is_float(ty) => rmw(LLVMAtomicRMWBinOpFMin, arg(i, 1)),
            "max" if is_float(ty) => rmw(LLVMAtomicRMWBinOpFMax, arg(i, 1)),
            "min" => rmw(if signed { LLVMAtomicRMWBinOpMin } else { LLVMAtomicRMWBinOpUMin }, arg(i, 1)),
            "max" => rmw(if signed { LLVMAtomicRMWBinOpMax } else { LLVMAtomicRMWBinOpUMax }, arg(i, 1)),
            "cmpxchg" => {
                let pair = LLVMBuildAtomicCmpXchg(b, arg(i, 0), arg(i, 1), arg(i, 2), SEQ_CST, SEQ_CST, 0);
                LLVMBuildExtractValue(b, pair, 0, c"".as_ptr())
            }
            "load" => {
                let ld = LLVMBuildLoad2(b, ty, arg(i, 0), c"".as_ptr());
                LLVMSetOrdering(ld, SEQ_CST);
                LLVMSetAlignment(ld, abi_size(m, ty));
                ld
            }
            "store" | "init" => {
                let st = LLVMBuildStore(b, arg(i, 1), arg(i, 0));
                LLVMSetOrdering(st, SEQ_CST);
                LLVMSetAlignment(st, abi_size(m, LLVMTypeOf(arg(i, 1))));
                return Ok(Some(std::ptr::null_mut()));
            }
            "compare_exchange_strong" | "compare_exchange_weak" => {
                // bool f(volatile A *obj, C *expected, C desired, ...)
                let vty = LLVMTypeOf(arg(i, 2));
                let expected = LLVMBuildLoad2(b, vty, arg(i, 1), c"".as_ptr());
                let pair = LLVMBuildAtomicCmpXchg(b, arg(i, 0), expected, arg(i, 2), SEQ_CST, SEQ_CST, 0);
                let old = LLVMBuildExtractValue(b, pair, 0, c"".as_ptr());
                let ok = LLVMBuildExtractValue(b, pair, 1, c"".as_ptr());
                // On failure *expected receives the value found; storing it
                // on success too is harmless (it equals *expected then).
                LLVMBuildStore(b, old, arg(i, 1));
                LLVMBuildZExt(b, ok, ty, c"".as_ptr())
            }
            "work_item_fence" => return Ok(Some(std::ptr::null_mut())),
            _ => return Err(format!("unsupported OpenCL atomic built-in '{base}' in '{}'", print_value(i))),
        };
        return Ok(Some(v));
    }
    if base == "mem_fence" || base == "read_mem_fence" || base == "write_mem_fence" {
        LLVMBuildFence(b, SEQ_CST, 0, c"".as_ptr());
        return Ok(Some(std::ptr::null_mut()));
    }

    let name = base.strip_prefix("native_").or_else(|| base.strip_prefix("half_")).unwrap_or(base);
    let a: Vec<LLVMValueRef> = (0..n).map(|k| arg(i, k)).collect();
    if is_float(ty) {
        let simple = match name {
            "sqrt" => Some("llvm.sqrt"),
            "fabs" => Some("llvm.fabs"),
            "fma" => Some("llvm.fma"),
            "mad" => Some("llvm.fmuladd"),
            "floor" => Some("llvm.floor"),
            "ceil" => Some("llvm.ceil"),
            "trunc" => Some("llvm.trunc"),
            "round" => Some("llvm.round"),
            "rint" => Some("llvm.rint"),
            "fmin" | "min" => Some("llvm.minnum"),
            "fmax" | "max" => Some("llvm.maxnum"),
            "copysign" => Some("llvm.copysign"),
            "exp" => Some("llvm.exp"),
            "exp2" => Some("llvm.exp2"),
            "exp10" => Some("llvm.exp10"),
            "log" => Some("llvm.log"),
            "log2" => Some("llvm.log2"),
            "log10" => Some("llvm.log10"),
            "sin" => Some("llvm.sin"),
            "cos" => Some("llvm.cos"),
            "tan" => Some("llvm.tan"),
            "asin" => Some("llvm.asin"),
            "acos" => Some("llvm.acos"),
            "atan" => Some("llvm.atan"),
            "sinh" => Some("llvm.sinh"),
            "cosh" => Some("llvm.cosh"),
            "tanh" => Some("llvm.tanh"),
            "pow" | "powr" => Some("llvm.pow"),
            _ => None,
        };
        if let Some(intr) = simple {
            return Ok(Some(intrinsic(b, m, intr, &a)));
        }
        let v = match name {
            "rsqrt" => {
                let s = intrinsic(b, m, "llvm.sqrt", &a);
                LLVMBuildFDiv(b, LLVMConstReal(ty, 1.0), s, c"".as_ptr())
            }
            "recip" => LLVMBuildFDiv(b, LLVMConstReal(ty, 1.0), a[0], c"".as_ptr()),
            "divide" => LLVMBuildFDiv(b, a[0], a[1], c"".as_ptr()),
            "clamp" => {
                let lo = intrinsic(b, m, "llvm.maxnum", &[a[0], a[1]]);
                intrinsic(b, m, "llvm.minnum", &[lo, a[2]])
            }
            "fdim" | "atan2" | "fmod" | "hypot" | "cbrt" | "erf" | "erfc" | "expm1" | "log1p" | "asinh" | "acosh"
            | "atanh" | "lgamma" | "tgamma" | "remainder"
                if !is_vector(ty) =>
            {
                let double = LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMDoubleTypeKind;
                libm(b, m, i, &if double { name.to_string() } else { format!("{name}f") })
            }
            _ => return Err(format!("unsupported OpenCL built-in '{base}' in '{}'", print_value(i))),
        };
        return Ok(Some(v));
    }
    if LLVMGetTypeKind(if is_vector(ty) { LLVMGetElementType(ty) } else { ty }) == LLVMTypeKind::LLVMIntegerTypeKind {
        let v = match name {
            "min" => intrinsic(b, m, if signed { "llvm.smin" } else { "llvm.umin" }, &a),
            "max" => intrinsic(b, m, if signed { "llvm.smax" } else { "llvm.umax" }, &a),
            "clamp" => {
                let lo = intrinsic(b, m, if signed { "llvm.smax" } else { "llvm.umax" }, &[a[0], a[1]]);
                intrinsic(b, m, if signed { "llvm.smin" } else { "llvm.umin" }, &[lo, a[2]])
            }
            "abs" if signed => {
                let f = LLVMConstInt(LLVMInt1TypeInContext(ctx), 0, 0);
                intrinsic(b, m, "llvm.abs", &[a[0], f])
            }
            "abs" => a[0],
            "popcount" => intrinsic(b, m, "llvm.ctpop", &a),
            "clz" => intrinsic(b, m, "llvm.ctlz", &[a[0], LLVMConstInt(LLVMInt1TypeInContext(ctx), 0, 0)]),
            "ctz" => intrinsic(b, m, "llvm.cttz", &[a[0], LLVMConstInt(LLVMInt1TypeInContext(ctx), 0, 0)]),
            "mul24" => LLVMBuildMul(b, a[0], a[1], c"".as_ptr()),
            "mad24" => LLVMBuildAdd(b, LLVMBuildMul(b, a[0], a[1], c"".as_ptr()), a[2], c"".as_ptr()),
            "mul_hi" => mul_hi(b, a[0], a[1], signed),
            "rotate" => intrinsic(b, m, "llvm.fshl", &[a[0], a[0], a[1]]),
            "select" => {
                let cond = LLVMBuildICmp(b, LLVMIntPredicate::LLVMIntNE, a[2], LLVMConstNull(LLVMTypeOf(a[2])), c"".as_ptr());
                LLVMBuildSelect(b, cond, a[1], a[0], c"".as_ptr())
            }
            _ => return Err(format!("unsupported OpenCL built-in '{base}' in '{}'", print_value(i))),
        };
        return Ok(Some(v));
    }
    Err(format!("unsupported OpenCL built-in '{base}' in '{}'", print_value(i)))
}

unsafe fn abi_size(m: LLVMModuleRef, ty: LLVMTypeRef) -> u32 {
    llvm_sys::target::LLVMABISizeOfType(llvm_sys::target::LLVMGetModuleDataLayout(m), ty) as u32
}

/// High half of the full product, in a type twice as wide.
unsafe fn mul_hi(b: LLVMBuilderRef, x: LLVMValueRef, y: LLVMValueRef, signed: bool) -> LLVMValueRef {
    let ty = LLVMTypeOf(x);
    let bits = LLVMGetIntTypeWidth(ty);
    let wide = LLVMIntTypeInContext(LLVMGetTypeContext(ty), bits * 2);
    let ext = |v| if signed { LLVMBuildSExt(b, v, wide, c"".as_ptr()) } else { LLVMBuildZExt(b, v, wide, c"".as_ptr()) };
    let p = LLVMBuildMul(b, ext(x), ext(y), c"".as_ptr());
    let hi = LLVMBuildLShr(b, p, LLVMConstInt(wide, bits as u64, 0), c"".as_ptr());
    LLVMBuildTrunc(b, hi, ty, c"".as_ptr())
}

impl crate::pass::DeclaredPass for LowerOclBuiltins {
    const NAME: &'static str = "simt-lower-ocl-builtins";
    const SUMMARY: &'static str = "OpenCL C built-in calls (atomics, math, integer) become LLVM IR for CPUs";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mangled_parameter_codes() {
        assert_eq!(first_param_code("PU3AS1Vjj"), Some('j'));
        assert_eq!(first_param_code("PU3AS3Vii"), Some('i'));
        assert_eq!(first_param_code("Dv4_fS_"), Some('f'));
        assert_eq!(first_param_code("ii"), Some('i'));
        assert!(is_signed(Some('i')) && !is_signed(Some('j')) && !is_signed(Some('m')));
    }
}
