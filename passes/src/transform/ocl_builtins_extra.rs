//! The OpenCL C built-ins `simt-lower-ocl-builtins` lowers beyond math and
//! atomics (OpenCL C 3.0, §6.15): explicit conversions (`convert_T[n][_sat]
//! [_rte|_rtz|_rtp|_rtn]`), vector loads and stores (`vloadN`, `vstoreN`),
//! relational tests (`isnan`, `isgreater`, `any`, `bitselect`, `select` of
//! floats), geometric functions (`dot`, `length`, `distance`, `normalize`,
//! `cross` and their `fast_` forms), the common functions (`mix`, `step`,
//! `smoothstep`, `sign`, `radians`, `degrees`), `ldexp`, and the integer
//! ones that saturate, halve or widen (`add_sat`, `sub_sat`, `hadd`,
//! `rhadd`, `abs_diff`, `upsample`, `mad_hi`). Real kernels use these
//! (image filters convert with `_sat`, SHOC- and Rodinia-style code loads
//! `float4`s with `vload4`); before, the pass refused them by name.
//!
//! Exactness, where OpenCL leaves a choice: a float-to-integer conversion
//! saturates (`llvm.fpto[su]i.sat`: NaN gives 0) with or without `_sat`, the
//! out-of-range result being implementation-defined otherwise; its rounding
//! suffix picks `rint`/`floor`/`ceil` first (`_rtz`, the default, is the
//! conversion's own truncation). Integer-to-float and double-to-float
//! conversions round to nearest even, and only `_rte` (or no suffix) is
//! taken for them: the other modes are refused by name, as a library
//! without them would fail to link. `dot` adds the products in lane order
//! with no contraction; `normalize` divides by `length` (no rescaling of
//! huge or tiny vectors, which OpenCL's full-profile `normalize` does).
//! `vload_half`/`vstore_half` and `fract`/`frexp` (pointer results) stay
//! unsupported.

use super::ocl_builtins::{first_param_code, is_signed, Lowered};
use crate::ir::globals::intrinsic_declaration;
use crate::ir::{Builder, FloatBin, Inst, Ty, Value};
use inkwell::module::Module;
use llvm_sys::{LLVMIntPredicate, LLVMOpcode, LLVMRealPredicate, LLVMTypeKind};

/// The lowering of `base` (with its mangled `params`) if it is one of this
/// module's built-ins; `None` hands it back to the math and integer rules.
pub(super) fn lower<'ctx>(
    b: &mut Builder<'ctx>,
    m: &Module<'ctx>,
    i: Inst<'ctx>,
    base: &str,
    params: &str,
) -> Option<Result<Lowered<'ctx>, String>> {
    let unsupported = || format!("unsupported OpenCL built-in '{base}' in '{}'", i.value().print());
    let a = i.call_args();
    let ty = i.ty();
    let signed = is_signed(first_param_code(params));
    if let Some(rest) = base.strip_prefix("convert_") {
        return Some(convert(b, m, rest, a[0], signed, ty).map(Lowered::Replace).ok_or_else(unsupported));
    }
    if base.strip_prefix("vload").is_some_and(is_width) {
        return Some(Ok(Lowered::Replace(vload(b, m, ty, a[0], a[1]))));
    }
    if base.strip_prefix("vstore").is_some_and(is_width) {
        vstore(b, m, a[0], a[1], a[2]);
        return Some(Ok(Lowered::Erase));
    }
    let name = base.strip_prefix("fast_").unwrap_or(base);
    let v = match name {
        "isnan" | "isinf" | "isfinite" | "isnormal" | "signbit" | "isequal" | "isnotequal" | "isgreater" | "isgreaterequal" | "isless"
        | "islessequal" | "islessgreater" | "isordered" | "isunordered" => relational(b, m, name, &a, ty),
        "any" | "all" => {
            // The most significant bit of any / every element.
            let neg = b.icmp(LLVMIntPredicate::LLVMIntSLT, a[0], a[0].ty().const_null(), "");
            let bits = if a[0].ty().is_vector() {
                let r = if name == "any" { "llvm.vector.reduce.or" } else { "llvm.vector.reduce.and" };
                call(b, m, r, &[neg])
            } else {
                neg
            };
            b.zext(bits, ty, "")
        }
        "bitselect" => {
            // (a & ~c) | (b & c), on the bits of floats too.
            let int_ty = if ty.is_float_or_float_vector() { int_like(m, ty) } else { ty };
            let [x, y, c] = [a[0], a[1], a[2]].map(|v| if v.ty() == int_ty { v } else { b.bit_cast(v, int_ty, "") });
            let all = int_ty.const_all_ones();
            let not_c = b.int_op(crate::ir::IntOp::Xor, c, all, "");
            let keep = b.int_op(crate::ir::IntOp::And, x, not_c, "");
            let take = b.int_op(crate::ir::IntOp::And, y, c, "");
            let r = b.int_op(crate::ir::IntOp::Or, keep, take, "");
            if int_ty == ty {
                r
            } else {
                b.bit_cast(r, ty, "")
            }
        }
        "select" if ty.is_float_or_float_vector() => {
            let pred = if a[2].ty().is_vector() { LLVMIntPredicate::LLVMIntSLT } else { LLVMIntPredicate::LLVMIntNE };
            let cond = b.icmp(pred, a[2], a[2].ty().const_null(), "");
            b.select(cond, a[1], a[0], "")
        }
        "dot" => dot(b, a[0], a[1]),
        "length" => {
            let d = dot(b, a[0], a[0]);
            call(b, m, "llvm.sqrt", &[d])
        }
        "distance" => {
            let diff = b.float_bin(FloatBin::Sub, a[0], a[1]);
            let d = dot(b, diff, diff);
            call(b, m, "llvm.sqrt", &[d])
        }
        "normalize" => {
            let d = dot(b, a[0], a[0]);
            let len = call(b, m, "llvm.sqrt", &[d]);
            let len = splat_to(b, len, ty);
            b.float_bin(FloatBin::Div, a[0], len)
        }
        "cross" => cross(b, a[0], a[1]),
        "mix" | "step" | "smoothstep" | "sign" | "radians" | "degrees" | "ldexp" if ty.is_float_or_float_vector() => {
            // Scalar operands of vector calls (`mix(float4, float4, float)`,
            // `step(float, float4)`) stand for every element.
            let a: Vec<Value<'ctx>> = a.iter().map(|&v| if v.ty().is_float_or_float_vector() { splat_to(b, v, ty) } else { v }).collect();
            let c = |x: f64| ty.const_real(x);
            match name {
                "mix" => {
                    let d = b.float_bin(FloatBin::Sub, a[1], a[0]);
                    let p = b.float_bin(FloatBin::Mul, d, a[2]);
                    b.float_bin(FloatBin::Add, a[0], p)
                }
                "step" => {
                    let below = b.fcmp(LLVMRealPredicate::LLVMRealOLT, a[1], a[0]);
                    b.select(below, c(0.0), c(1.0), "")
                }
                "smoothstep" => {
                    let num = b.float_bin(FloatBin::Sub, a[2], a[0]);
                    let den = b.float_bin(FloatBin::Sub, a[1], a[0]);
                    let t = b.float_bin(FloatBin::Div, num, den);
                    let t = call(b, m, "llvm.maxnum", &[t, c(0.0)]);
                    let t = call(b, m, "llvm.minnum", &[t, c(1.0)]);
                    let two_t = b.float_bin(FloatBin::Mul, c(2.0), t);
                    let k = b.float_bin(FloatBin::Sub, c(3.0), two_t);
                    let tt = b.float_bin(FloatBin::Mul, t, t);
                    b.float_bin(FloatBin::Mul, tt, k)
                }
                "sign" => {
                    // 1 above 0, -1 below, the zero itself at ±0, 0 for NaN.
                    let pos = b.fcmp(LLVMRealPredicate::LLVMRealOGT, a[0], c(0.0));
                    let neg = b.fcmp(LLVMRealPredicate::LLVMRealOLT, a[0], c(0.0));
                    let nan = b.fcmp(LLVMRealPredicate::LLVMRealUNO, a[0], a[0]);
                    let r = b.select(neg, c(-1.0), a[0], "");
                    let r = b.select(pos, c(1.0), r, "");
                    b.select(nan, c(0.0), r, "")
                }
                "radians" => b.float_bin(FloatBin::Mul, a[0], c(std::f64::consts::PI / 180.0)),
                "degrees" => b.float_bin(FloatBin::Mul, a[0], c(180.0 / std::f64::consts::PI)),
                "ldexp" => {
                    // ldexp(x, k): k an int (or intN), a scalar k for every element.
                    let k = if ty.is_vector() && !i.call_args()[1].ty().is_vector() {
                        b.splat(i.call_args()[1], ty.vector_len())
                    } else {
                        i.call_args()[1]
                    };
                    let (f, fty) = intrinsic_declaration(m, "llvm.ldexp", &[ty, k.ty()]);
                    b.call(fty, f, &[a[0], k], "").value()
                }
                _ => unreachable!("the arm's names"),
            }
        }
        "add_sat" | "sub_sat" | "hadd" | "rhadd" | "abs_diff" | "upsample" | "mad_hi" if ty.scalar().is_integer() => {
            let int = |b: &mut Builder<'ctx>, op, x, y| b.int_op(op, x, y, "");
            use crate::ir::IntOp::{Add, And, Or};
            match name {
                "add_sat" => call(b, m, if signed { "llvm.sadd.sat" } else { "llvm.uadd.sat" }, &a[..2]),
                "sub_sat" => call(b, m, if signed { "llvm.ssub.sat" } else { "llvm.usub.sat" }, &a[..2]),
                "hadd" | "rhadd" => {
                    // (x >> 1) + (y >> 1) + the carry of the low bits:
                    // x & y & 1 (hadd), (x | y) & 1 (rhadd); never overflows.
                    let one = a[0].ty().const_int(1);
                    let half = |b: &mut Builder<'ctx>, v| if signed { b.ashr(v, one, "") } else { b.lshr(v, one, "") };
                    let (hx, hy) = (half(b, a[0]), half(b, a[1]));
                    let low = int(b, if name == "hadd" { And } else { Or }, a[0], a[1]);
                    let carry = int(b, And, low, one);
                    let s = int(b, Add, hx, hy);
                    int(b, Add, s, carry)
                }
                "abs_diff" => {
                    let (hi, lo) = if signed { ("llvm.smax", "llvm.smin") } else { ("llvm.umax", "llvm.umin") };
                    let x = call(b, m, hi, &a[..2]);
                    let y = call(b, m, lo, &a[..2]);
                    b.int_op(crate::ir::IntOp::Sub, x, y, "")
                }
                "upsample" => {
                    // (hi << bits) | lo, in the type twice as wide.
                    let bits = a[1].ty().scalar().int_width();
                    let hi = b.zext(a[0], ty, "");
                    let lo = b.zext(a[1], ty, "");
                    let shifted = b.shl(hi, ty.const_int(bits as u64), "");
                    int(b, Or, shifted, lo)
                }
                "mad_hi" => {
                    let h = super::ocl_builtins::mul_hi(b, a[0], a[1], signed);
                    int(b, Add, h, a[2])
                }
                _ => unreachable!("the arm's names"),
            }
        }
        _ => return None,
    };
    Some(Ok(Lowered::Replace(v)))
}

fn is_width(n: &str) -> bool {
    matches!(n, "2" | "3" | "4" | "8" | "16")
}

/// A call to the intrinsic `name` overloaded on its first argument's type
/// (every call here passes operands of that type).
fn call<'ctx>(b: &mut Builder<'ctx>, m: &Module<'ctx>, name: &str, args: &[Value<'ctx>]) -> Value<'ctx> {
    super::ocl_builtins::intrinsic(b, m, name, args).expect("operands of the intrinsic's own types")
}

/// `v` as a value of `ty`: a scalar splat to `ty`'s length when `ty` is a
/// vector, else `v` itself.
fn splat_to<'ctx>(b: &mut Builder<'ctx>, v: Value<'ctx>, ty: Ty<'ctx>) -> Value<'ctx> {
    if ty.is_vector() && !v.ty().is_vector() {
        b.splat(v, ty.vector_len())
    } else {
        v
    }
}

/// The integer type (or vector) of `ty`'s element width and length.
fn int_like<'ctx>(m: &Module<'ctx>, ty: Ty<'ctx>) -> Ty<'ctx> {
    let bits = ty.scalar().alloc_size_in(m) as u32 * 8;
    let int = ty.int_in_context_of(bits);
    if ty.is_vector() {
        int.vector_of(ty.vector_len())
    } else {
        int
    }
}

/// `vloadN(offset, p)`: the N elements at `p + offset * N`, aligned as one
/// element is.
fn vload<'ctx>(b: &mut Builder<'ctx>, m: &Module<'ctx>, ty: Ty<'ctx>, offset: Value<'ctx>, p: Value<'ctx>) -> Value<'ctx> {
    let at = element_address(b, ty, offset, p);
    let ld = b.load(ty, at, "");
    ld.set_alignment(ty.scalar().alloc_size_in(m) as u32);
    ld.value()
}

/// `vstoreN(data, offset, p)`.
fn vstore<'ctx>(b: &mut Builder<'ctx>, m: &Module<'ctx>, data: Value<'ctx>, offset: Value<'ctx>, p: Value<'ctx>) {
    let at = element_address(b, data.ty(), offset, p);
    let st = b.store(data, at);
    st.set_alignment(data.ty().scalar().alloc_size_in(m) as u32);
}

fn element_address<'ctx>(b: &mut Builder<'ctx>, vec: Ty<'ctx>, offset: Value<'ctx>, p: Value<'ctx>) -> Value<'ctx> {
    let n = offset.ty().const_int(vec.vector_len() as u64);
    let first = b.mul(offset, n, "");
    b.in_bounds_gep(vec.scalar(), p, &[first], "")
}

/// The relational built-ins: 1 or 0 for scalars, -1 or 0 per element for
/// vectors (OpenCL C 6.15.6).
fn relational<'ctx>(b: &mut Builder<'ctx>, m: &Module<'ctx>, name: &str, a: &[Value<'ctx>], ty: Ty<'ctx>) -> Value<'ctx> {
    use LLVMRealPredicate::*;
    let x = a[0];
    let cmp = |b: &mut Builder<'ctx>, p, y| b.fcmp(p, x, y);
    let bit = match name {
        "isequal" => cmp(b, LLVMRealOEQ, a[1]),
        "isnotequal" => cmp(b, LLVMRealUNE, a[1]),
        "isgreater" => cmp(b, LLVMRealOGT, a[1]),
        "isgreaterequal" => cmp(b, LLVMRealOGE, a[1]),
        "isless" => cmp(b, LLVMRealOLT, a[1]),
        "islessequal" => cmp(b, LLVMRealOLE, a[1]),
        "islessgreater" => cmp(b, LLVMRealONE, a[1]),
        "isordered" => cmp(b, LLVMRealORD, a[1]),
        "isunordered" => cmp(b, LLVMRealUNO, a[1]),
        "isnan" => cmp(b, LLVMRealUNO, x),
        "signbit" => {
            let bits = b.bit_cast(x, int_like(m, x.ty()), "");
            b.icmp(LLVMIntPredicate::LLVMIntSLT, bits, bits.ty().const_null(), "")
        }
        _ => {
            // isinf, isfinite, isnormal: |x| against infinity and the
            // smallest normal number of x's type.
            let abs = call(b, m, "llvm.fabs", &[x]);
            let double = x.ty().scalar().kind() == LLVMTypeKind::LLVMDoubleTypeKind;
            let inf = x.ty().const_real(f64::INFINITY);
            match name {
                "isinf" => b.fcmp(LLVMRealOEQ, abs, inf),
                "isfinite" => b.fcmp(LLVMRealOLT, abs, inf),
                _ => {
                    let min_normal = if double { f64::MIN_POSITIVE } else { f32::MIN_POSITIVE as f64 };
                    let big = b.fcmp(LLVMRealOGE, abs, x.ty().const_real(min_normal));
                    let fin = b.fcmp(LLVMRealOLT, abs, inf);
                    b.int_op(crate::ir::IntOp::And, big, fin, "")
                }
            }
        }
    };
    if ty.is_vector() {
        b.sext(bit, ty, "")
    } else {
        b.zext(bit, ty, "")
    }
}

/// Σ x[k]·y[k] in lane order (a scalar: x·y).
fn dot<'ctx>(b: &mut Builder<'ctx>, x: Value<'ctx>, y: Value<'ctx>) -> Value<'ctx> {
    if !x.ty().is_vector() {
        return b.float_bin(FloatBin::Mul, x, y);
    }
    let i32t = x.ty().int_in_context_of(32);
    let mut sum = None;
    for k in 0..x.ty().vector_len() {
        let idx = i32t.const_int(k as u64);
        let (xk, yk) = (b.extract_element(x, idx, ""), b.extract_element(y, idx, ""));
        let p = b.float_bin(FloatBin::Mul, xk, yk);
        sum = Some(match sum {
            None => p,
            Some(s) => b.float_bin(FloatBin::Add, s, p),
        });
    }
    sum.expect("a vector has elements")
}

/// `cross(x, y)` of 3- or 4-element vectors (the fourth element 0).
fn cross<'ctx>(b: &mut Builder<'ctx>, x: Value<'ctx>, y: Value<'ctx>) -> Value<'ctx> {
    let ty = x.ty();
    let i32t = ty.int_in_context_of(32);
    let at = |b: &mut Builder<'ctx>, v, k: u64| b.extract_element(v, i32t.const_int(k), "");
    let (x0, x1, x2) = (at(b, x, 0), at(b, x, 1), at(b, x, 2));
    let (y0, y1, y2) = (at(b, y, 0), at(b, y, 1), at(b, y, 2));
    let mut term = |p: Value<'ctx>, q: Value<'ctx>, r: Value<'ctx>, s: Value<'ctx>| {
        let l = b.float_bin(FloatBin::Mul, p, q);
        let rr = b.float_bin(FloatBin::Mul, r, s);
        b.float_bin(FloatBin::Sub, l, rr)
    };
    let parts = [term(x1, y2, x2, y1), term(x2, y0, x0, y2), term(x0, y1, x1, y0)];
    let mut out = ty.const_null();
    for (k, v) in parts.into_iter().enumerate() {
        out = b.insert_element(out, v, i32t.const_int(k as u64), "");
    }
    out
}

/// `convert_<dst>[n][_sat][_rounding]` of `v` (of signedness `src_signed`)
/// to `ty`; `None` for what is not taken (see the header).
fn convert<'ctx>(
    b: &mut Builder<'ctx>,
    m: &Module<'ctx>,
    spec: &str,
    v: Value<'ctx>,
    src_signed: bool,
    ty: Ty<'ctx>,
) -> Option<Value<'ctx>> {
    let mut words = spec.split('_');
    let dst = words.next()?.trim_end_matches(|c: char| c.is_ascii_digit());
    let (mut sat, mut rounding) = (false, "");
    for w in words {
        match w {
            "sat" => sat = true,
            "rte" | "rtz" | "rtp" | "rtn" => rounding = w,
            _ => return None,
        }
    }
    let dst_signed = matches!(dst, "char" | "short" | "int" | "long");
    let from = v.ty();
    match (from.is_float_or_float_vector(), ty.is_float_or_float_vector()) {
        // Integer to integer: the rounding suffix changes nothing.
        (false, false) => {
            if !sat {
                return Some(int_resize(b, v, ty, src_signed));
            }
            // Clamp in the source type to the bounds of the destination's
            // range it can hold, then resize (the value now fits).
            let (sw, dw) = (from.scalar().int_width(), ty.scalar().int_width());
            let mut r = v;
            if src_signed {
                let lower: Option<i128> = if !dst_signed {
                    Some(0)
                } else if dw < sw {
                    Some(-(1i128 << (dw - 1)))
                } else {
                    None
                };
                if let Some(lo) = lower {
                    let c = splat_const(b, from, lo);
                    r = call(b, m, "llvm.smax", &[r, c]);
                }
            }
            let dmax: i128 = if dst_signed { (1i128 << (dw - 1)) - 1 } else { (1i128 << dw) - 1 };
            let smax: i128 = if src_signed { (1i128 << (sw - 1)) - 1 } else { (1i128 << sw) - 1 };
            if dmax < smax {
                let c = splat_const(b, from, dmax);
                r = call(b, m, if src_signed { "llvm.smin" } else { "llvm.umin" }, &[r, c]);
            }
            Some(int_resize(b, r, ty, src_signed))
        }
        (false, true) => {
            if !matches!(rounding, "" | "rte") {
                return None;
            }
            Some(b.convert(if src_signed { LLVMOpcode::LLVMSIToFP } else { LLVMOpcode::LLVMUIToFP }, v, ty))
        }
        (true, false) => {
            let rounded = match rounding {
                "rte" => call(b, m, "llvm.rint", &[v]),
                "rtp" => call(b, m, "llvm.ceil", &[v]),
                "rtn" => call(b, m, "llvm.floor", &[v]),
                _ => v,
            };
            let name = if dst_signed { "llvm.fptosi.sat" } else { "llvm.fptoui.sat" };
            let (f, fty) = intrinsic_declaration(m, name, &[ty, from]);
            Some(b.call(fty, f, &[rounded], "").value())
        }
        (true, true) => {
            let (fb, tb) = (from.scalar().alloc_size_in(m), ty.scalar().alloc_size_in(m));
            if fb == tb {
                Some(v)
            } else if fb < tb {
                Some(b.convert(LLVMOpcode::LLVMFPExt, v, ty))
            } else if matches!(rounding, "" | "rte") {
                Some(b.convert(LLVMOpcode::LLVMFPTrunc, v, ty))
            } else {
                None
            }
        }
    }
}

/// `v` extended (by its signedness) or truncated to `ty`.
fn int_resize<'ctx>(b: &mut Builder<'ctx>, v: Value<'ctx>, ty: Ty<'ctx>, signed: bool) -> Value<'ctx> {
    let (fw, tw) = (v.ty().scalar().int_width(), ty.scalar().int_width());
    if fw == tw {
        v
    } else if fw > tw {
        b.trunc(v, ty, "")
    } else if signed {
        b.sext(v, ty, "")
    } else {
        b.zext(v, ty, "")
    }
}

/// The constant `v` of the integer type `ty` (or in each of its elements).
fn splat_const<'ctx>(b: &mut Builder<'ctx>, ty: Ty<'ctx>, v: i128) -> Value<'ctx> {
    let c = ty.scalar().const_i128(v);
    splat_to(b, c, ty)
}
