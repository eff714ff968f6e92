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
//! Conversions, vector loads and stores, relational, geometric and
//! saturating built-ins are lowered by `ocl_builtins_extra`.
//!
//! Only what a kernel can run counts: an unsupported built-in (an image read,
//! `vstore_half`) is reported where it sits in a function some kernel calls
//! (or names), transitively, and is left in place, unreported, in functions
//! no kernel needs (a helper library's unused image sampler). Supported
//! built-ins are lowered everywhere. A module with no kernels is a library:
//! every function counts.

use crate::ir::globals::{function_or_declare, intrinsic_declaration};
use crate::ir::{instructions, Builder, Inst, Ty, Value};
use crate::pass::{ModulePass, PassContext, PassError, Preserved};
use inkwell::module::Module;
use llvm_sys::{LLVMAtomicOrdering, LLVMAtomicRMWBinOp, LLVMIntPredicate, LLVMTypeKind};

#[derive(Default)]
pub struct LowerOclBuiltins;

const NAME: &str = "simt-lower-ocl-builtins";

impl ModulePass for LowerOclBuiltins {
    fn name(&self) -> String {
        NAME.into()
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        let m = cx.module_mut();
        // Calls are replaced in place: the CFG stays.
        let mut preserved = Preserved::all();
        let kernels = crate::transform::call_graph::kernels(m);
        let needed = crate::transform::call_graph::CallGraph::new(m).needed_by(&kernels);
        let mut calls = Vec::new();
        for f in crate::ir::defined_functions(m) {
            let counts = kernels.is_empty() || needed.contains(&f);
            for bb in f.get_basic_block_iter() {
                for i in instructions(bb) {
                    if let Some((base, params)) = ocl_call(i) {
                        calls.push((i, base, params, counts, f));
                    }
                }
            }
        }
        for (i, base, params, counts, f) in calls {
            let mut b = Builder::new(i.value());
            b.position_before(i);
            match lower(&mut b, m, i, &base, &params) {
                Ok(Lowered::Keep) => {}
                Ok(lowered) => {
                    drop(b);
                    if let Lowered::Replace(v) = lowered {
                        i.value().replace_all_uses_with(v);
                    }
                    i.erase();
                    preserved = Preserved::cfg_analyses();
                }
                // Unsupported, but no kernel can reach it: left as is.
                Err(_) if !counts => {}
                Err(e) => {
                    let what = if crate::kernel_model::is_kernel(f) { "kernel" } else { "function" };
                    let message = format!("{what} '{}': {e}", crate::ir::function_name(f));
                    return Err(PassError::Unsupported { pass: NAME.into(), message });
                }
            }
        }
        Ok(preserved)
    }
}

/// What becomes of one call.
pub(super) enum Lowered<'ctx> {
    /// Left as it is (a work-item function or barrier).
    Keep,
    /// Its uses take this value, and the call goes.
    Replace(Value<'ctx>),
    /// The call goes (a void built-in now lowered).
    Erase,
}

/// `(base name, mangled parameters)` of a call to a declared `_Z` function.
fn ocl_call(i: Inst<'_>) -> Option<(String, String)> {
    if !i.is_call() || !i.called_function_value()?.is_declaration() {
        return None;
    }
    let name = i.called_function_name()?;
    let rest = name.strip_prefix("_Z")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let len: usize = rest[..digits].parse().ok()?;
    let base = rest.get(digits..digits + len)?.to_string();
    let params = rest.get(digits + len..)?.to_string();
    Some((base, params))
}

/// The element type code of the first mangled parameter: `i`, `j`, `f`, …
/// (pointer, address-space, `volatile`/`const` and vector prefixes skipped).
pub(super) fn first_param_code(params: &str) -> Option<char> {
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

pub(super) fn is_signed(code: Option<char>) -> bool {
    matches!(code, Some('c' | 'a' | 's' | 'i' | 'l' | 'x'))
}

/// A call to the intrinsic `name` overloaded on its first argument's type;
/// `None` when the arguments do not fit it (`clamp(float4, float, float)`,
/// whose scalar bounds the vector intrinsics do not take).
pub(super) fn intrinsic<'ctx>(b: &mut Builder<'ctx>, m: &Module<'ctx>, name: &str, args: &[Value<'ctx>]) -> Option<Value<'ctx>> {
    let (f, fty) = intrinsic_declaration(m, name, &[args[0].ty()]);
    let fits = fty.params().len() == args.len() && fty.params().iter().zip(args).all(|(p, a)| *p == a.ty());
    fits.then(|| b.call(fty, f, args, "").value())
}

/// A call to the C library's `name` (`sinhf`, …) with the call's own signature.
fn libm<'ctx>(b: &mut Builder<'ctx>, m: &Module<'ctx>, i: Inst<'ctx>, name: &str) -> Value<'ctx> {
    let args = i.call_args();
    let tys: Vec<Ty<'ctx>> = args.iter().map(|a| a.ty()).collect();
    let fty = Ty::function(i.ty(), &tys);
    let f = function_or_declare(m, name, fty);
    b.call(fty, f, &args, "").value()
}

/// A built-in's name without the `native_`/`half_` prefix, which lowers
/// alike.
fn plain_name(base: &str) -> &str {
    base.strip_prefix("native_").or_else(|| base.strip_prefix("half_")).unwrap_or(base)
}

/// Floating-point built-ins that become one LLVM intrinsic.
const FLOAT_INTRINSICS: &[(&str, &str)] = &[
    ("sqrt", "llvm.sqrt"),
    ("fabs", "llvm.fabs"),
    ("fma", "llvm.fma"),
    ("mad", "llvm.fmuladd"),
    ("floor", "llvm.floor"),
    ("ceil", "llvm.ceil"),
    ("trunc", "llvm.trunc"),
    ("round", "llvm.round"),
    ("rint", "llvm.rint"),
    ("fmin", "llvm.minnum"),
    ("min", "llvm.minnum"),
    ("fmax", "llvm.maxnum"),
    ("max", "llvm.maxnum"),
    ("copysign", "llvm.copysign"),
    ("exp", "llvm.exp"),
    ("exp2", "llvm.exp2"),
    ("exp10", "llvm.exp10"),
    ("log", "llvm.log"),
    ("log2", "llvm.log2"),
    ("log10", "llvm.log10"),
    ("sin", "llvm.sin"),
    ("cos", "llvm.cos"),
    ("tan", "llvm.tan"),
    ("asin", "llvm.asin"),
    ("acos", "llvm.acos"),
    ("atan", "llvm.atan"),
    ("sinh", "llvm.sinh"),
    ("cosh", "llvm.cosh"),
    ("tanh", "llvm.tanh"),
    ("pow", "llvm.pow"),
    ("powr", "llvm.pow"),
];

/// Scalar floating-point built-ins that become a call to the C library
/// (for NVPTX, `to_nvptx::math` sends each to libdevice).
pub(crate) const FLOAT_LIBM: &[&str] = &[
    "fdim",
    "atan2",
    "fmod",
    "hypot",
    "cbrt",
    "erf",
    "erfc",
    "expm1",
    "log1p",
    "asinh",
    "acosh",
    "atanh",
    "lgamma",
    "tgamma",
    "remainder",
];

/// How many instructions `simt-lower-ocl-builtins` makes of a call to an
/// OpenCL C built-in that reads and writes no memory and calls nothing but
/// LLVM intrinsics (maths, integer built-ins, conversions, relational,
/// geometric and saturating built-ins): `None` for any other call. Clang
/// declares them `convergent`, but each lane's result depends on its own
/// arguments only, so `simt-ifconvert` may speculate them as it speculates
/// their lowered form.
///
/// The answer is the lowering itself, not a list kept beside it: the call's
/// declaration is lowered once in a scratch module of its own (memoised per
/// callee and type), and the instructions it became are counted. A built-in
/// the lowering learns is thereby lane-local as soon as it lowers to plain
/// IR, and one that lowers to a load, an atomic or a library call never is.
pub fn lane_local_size(i: Inst<'_>) -> Option<u64> {
    let (base, params) = ocl_call(i)?;
    if crate::kernel_model::builtin_of(i).is_some() {
        return None;
    }
    let name = i.called_function_name()?;
    let ret = i.ty().print();
    let args: Vec<String> = i.call_args().iter().map(|a| a.ty().print()).collect();
    let key = format!("{ret} {name}({})", args.join(", "));
    thread_local! {
        static SIZES: std::cell::RefCell<std::collections::HashMap<String, Option<u64>>> = Default::default();
    }
    if let Some(k) = SIZES.with(|m| m.borrow().get(&key).copied()) {
        return k;
    }
    let k = lowered_size(&name, &base, &params, &ret, &args);
    SIZES.with(|m| m.borrow_mut().insert(key, k));
    k
}

/// Lowers one call of `name` (returning `ret`, taking `args`) in a scratch
/// module and counts what it became, if that is plain IR.
fn lowered_size(name: &str, base: &str, params: &str, ret: &str, args: &[String]) -> Option<u64> {
    let formals: Vec<String> = args.iter().enumerate().map(|(k, t)| format!("{t} %a{k}")).collect();
    let formals = formals.join(", ");
    let (call, result) = if ret == "void" { (String::new(), "void".to_string()) } else { ("%r = ".into(), format!("{ret} %r")) };
    let ir = format!(
        "declare {ret} @\"{name}\"({}) convergent\n\
         define {ret} @w({formals}) {{\n  {call}call {ret} @\"{name}\"({formals})\n  ret {result}\n}}\n",
        args.join(", ")
    );
    let ctx = inkwell::context::Context::create();
    let m = crate::ir::parse_ir(&ctx, "lane-local", ir.as_bytes()).ok()?;
    let f = m.get_function("w")?;
    let call = f.get_basic_block_iter().flat_map(instructions).find(|i| i.is_call())?;
    let mut b = Builder::new(call.value());
    b.position_before(call);
    match lower(&mut b, &m, call, base, params).ok()? {
        Lowered::Replace(v) => {
            drop(b);
            call.value().replace_all_uses_with(v);
            call.erase();
        }
        Lowered::Keep | Lowered::Erase => return None,
    }
    let body: Vec<Inst<'_>> = f.get_basic_block_iter().flat_map(instructions).filter(|i| !i.is_terminator()).collect();
    let plain = body.iter().all(|i| {
        use llvm_sys::LLVMOpcode::*;
        let memory = matches!(i.opcode(), LLVMLoad | LLVMStore | LLVMAtomicRMW | LLVMAtomicCmpXchg | LLVMFence);
        !memory && (!i.is_call() || i.called_function_name().is_some_and(|n| n.starts_with("llvm.")))
    });
    plain.then_some(body.len() as u64)
}

const SEQ_CST: LLVMAtomicOrdering = LLVMAtomicOrdering::LLVMAtomicOrderingSequentiallyConsistent;

/// The replacement for one call, or an error naming an unsupported built-in.
fn lower<'ctx>(b: &mut Builder<'ctx>, m: &Module<'ctx>, i: Inst<'ctx>, base: &str, params: &str) -> Result<Lowered<'ctx>, String> {
    if crate::kernel_model::builtin_of(i).is_some() {
        return Ok(Lowered::Keep);
    }
    let unsupported = |what: &str| format!("unsupported OpenCL {what}'{base}' in '{}'", i.value().print());
    let code = first_param_code(params);
    let signed = is_signed(code);
    let ty = i.ty();
    let a = i.call_args();
    let cx = m.get_context();
    let i1 = Ty::of(cx.bool_type());
    use LLVMAtomicRMWBinOp::*;

    // Atomics: OpenCL 1.x (atomic_*, atom_*) and the C11 forms of OpenCL 2.0.
    let atomic = base.strip_prefix("atomic_").or_else(|| base.strip_prefix("atom_"));
    if let Some(op) = atomic {
        let op = op.strip_suffix("_explicit").unwrap_or(op);
        let op = op.strip_prefix("fetch_").unwrap_or(op);
        let float = ty.is_float_or_float_vector();
        let rmw = |b: &mut Builder<'ctx>, op: LLVMAtomicRMWBinOp, v: Value<'ctx>| b.atomic_rmw(op, a[0], v, SEQ_CST);
        let v = match op {
            "add" if float => rmw(b, LLVMAtomicRMWBinOpFAdd, a[1]),
            "add" => rmw(b, LLVMAtomicRMWBinOpAdd, a[1]),
            "sub" => rmw(b, LLVMAtomicRMWBinOpSub, a[1]),
            "inc" => rmw(b, LLVMAtomicRMWBinOpAdd, ty.const_int(1)),
            "dec" => rmw(b, LLVMAtomicRMWBinOpSub, ty.const_int(1)),
            "xchg" | "exchange" => rmw(b, LLVMAtomicRMWBinOpXchg, a[1]),
            "and" => rmw(b, LLVMAtomicRMWBinOpAnd, a[1]),
            "or" => rmw(b, LLVMAtomicRMWBinOpOr, a[1]),
            "xor" => rmw(b, LLVMAtomicRMWBinOpXor, a[1]),
            "min" if float => rmw(b, LLVMAtomicRMWBinOpFMin, a[1]),
            "max" if float => rmw(b, LLVMAtomicRMWBinOpFMax, a[1]),
            "min" => rmw(b, if signed { LLVMAtomicRMWBinOpMin } else { LLVMAtomicRMWBinOpUMin }, a[1]),
            "max" => rmw(b, if signed { LLVMAtomicRMWBinOpMax } else { LLVMAtomicRMWBinOpUMax }, a[1]),
            "cmpxchg" => {
                let pair = b.cmpxchg(a[0], a[1], a[2], SEQ_CST, SEQ_CST);
                b.extract_value(pair, 0, "")
            }
            "load" => {
                let ld = b.load(ty, a[0], "");
                ld.set_ordering(SEQ_CST);
                ld.set_alignment(ty.alloc_size_in(m) as u32);
                ld.value()
            }
            "store" | "init" => {
                let st = b.store(a[1], a[0]);
                st.set_ordering(SEQ_CST);
                st.set_alignment(a[1].ty().alloc_size_in(m) as u32);
                return Ok(Lowered::Erase);
            }
            "compare_exchange_strong" | "compare_exchange_weak" => {
                // bool f(volatile A *obj, C *expected, C desired, ...)
                let expected = b.load(a[2].ty(), a[1], "").value();
                let pair = b.cmpxchg(a[0], expected, a[2], SEQ_CST, SEQ_CST);
                let old = b.extract_value(pair, 0, "");
                let ok = b.extract_value(pair, 1, "");
                // On failure *expected receives the value found; storing it
                // on success too is harmless (it equals *expected then).
                b.store(old, a[1]);
                b.zext(ok, ty, "")
            }
            "work_item_fence" => return Ok(Lowered::Erase),
            _ => return Err(unsupported("atomic built-in ")),
        };
        return Ok(Lowered::Replace(v));
    }
    // Conversions, vector loads and stores, relational and geometric
    // built-ins, saturating and halving integer ones.
    if let Some(lowered) = super::ocl_builtins_extra::lower(b, m, i, base, params) {
        return lowered;
    }
    if base == "mem_fence" || base == "read_mem_fence" || base == "write_mem_fence" {
        b.fence(SEQ_CST, "");
        return Ok(Lowered::Erase);
    }

    let name = plain_name(base);
    let intr =
        |b: &mut Builder<'ctx>, name: &str, args: &[Value<'ctx>]| intrinsic(b, m, name, args).ok_or_else(|| unsupported("built-in "));
    if ty.is_float_or_float_vector() {
        // A scalar float operand of a vector call (`fmin(float4, float)`,
        // `clamp(float4, float, float)`) stands for every element.
        let a: Vec<Value<'ctx>> = match ty.is_vector() {
            true => a
                .iter()
                .map(|&v| if v.ty().is_float_or_float_vector() && !v.ty().is_vector() { b.splat(v, ty.vector_len()) } else { v })
                .collect(),
            false => a,
        };
        if let Some(&(_, name)) = FLOAT_INTRINSICS.iter().find(|(n, _)| *n == name) {
            return Ok(Lowered::Replace(intr(b, name, &a)?));
        }
        let v = match name {
            "rsqrt" => {
                let s = intr(b, "llvm.sqrt", &a)?;
                b.fdiv(ty.const_real(1.0), s, "")
            }
            "recip" => b.fdiv(ty.const_real(1.0), a[0], ""),
            "divide" => b.fdiv(a[0], a[1], ""),
            "clamp" => {
                let lo = intr(b, "llvm.maxnum", &[a[0], a[1]])?;
                intr(b, "llvm.minnum", &[lo, a[2]])?
            }
            _ if FLOAT_LIBM.contains(&name) && !ty.is_vector() => {
                let double = ty.kind() == LLVMTypeKind::LLVMDoubleTypeKind;
                libm(b, m, i, &if double { name.to_string() } else { format!("{name}f") })
            }
            _ => return Err(unsupported("built-in ")),
        };
        return Ok(Lowered::Replace(v));
    }
    if ty.scalar().is_integer() {
        let no = i1.const_int(0);
        let v = match name {
            "min" => intr(b, if signed { "llvm.smin" } else { "llvm.umin" }, &a)?,
            "max" => intr(b, if signed { "llvm.smax" } else { "llvm.umax" }, &a)?,
            "clamp" => {
                let lo = intr(b, if signed { "llvm.smax" } else { "llvm.umax" }, &[a[0], a[1]])?;
                intr(b, if signed { "llvm.smin" } else { "llvm.umin" }, &[lo, a[2]])?
            }
            "abs" if signed => intr(b, "llvm.abs", &[a[0], no])?,
            "abs" => a[0],
            "popcount" => intr(b, "llvm.ctpop", &a)?,
            "clz" => intr(b, "llvm.ctlz", &[a[0], no])?,
            "ctz" => intr(b, "llvm.cttz", &[a[0], no])?,
            "mul24" => b.mul(a[0], a[1], ""),
            "mad24" => {
                let p = b.mul(a[0], a[1], "");
                b.add(p, a[2], "")
            }
            "mul_hi" => mul_hi(b, a[0], a[1], signed),
            "rotate" => intr(b, "llvm.fshl", &[a[0], a[0], a[1]])?,
            // OpenCL C 6.15.6: a scalar `c` picks `b` when non-zero, a
            // vector `c` per element when its most significant bit is set.
            "select" => {
                let pred = if a[2].ty().is_vector() { LLVMIntPredicate::LLVMIntSLT } else { LLVMIntPredicate::LLVMIntNE };
                let cond = b.icmp(pred, a[2], a[2].ty().const_null(), "");
                b.select(cond, a[1], a[0], "")
            }
            _ => return Err(unsupported("built-in ")),
        };
        return Ok(Lowered::Replace(v));
    }
    Err(unsupported("built-in "))
}

/// High half of the full product, in a type twice as wide.
pub(super) fn mul_hi<'ctx>(b: &mut Builder<'ctx>, x: Value<'ctx>, y: Value<'ctx>, signed: bool) -> Value<'ctx> {
    let ty = x.ty();
    let bits = ty.int_width();
    let wide = ty.int_in_context_of(bits * 2);
    let ext = |b: &mut Builder<'ctx>, v| if signed { b.sext(v, wide, "") } else { b.zext(v, wide, "") };
    let (xe, ye) = (ext(b, x), ext(b, y));
    let p = b.mul(xe, ye, "");
    let hi = b.lshr(p, wide.const_int(bits as u64), "");
    b.trunc(hi, ty, "")
}

impl crate::pass::DeclaredPass for LowerOclBuiltins {
    const NAME: &'static str = "simt-lower-ocl-builtins";
    const SUMMARY: &'static str = "OpenCL C built-in calls (atomics, math, integer) become LLVM IR for CPUs";
}

#[cfg(test)]
mod tests {
    use super::*;
    use llvm_sys::LLVMOpcode;

    #[test]
    fn mangled_parameter_codes() {
        assert_eq!(first_param_code("PU3AS1Vjj"), Some('j'));
        assert_eq!(first_param_code("PU3AS3Vii"), Some('i'));
        assert_eq!(first_param_code("Dv4_fS_"), Some('f'));
        assert_eq!(first_param_code("ii"), Some('i'));
        assert!(is_signed(Some('i')) && !is_signed(Some('j')) && !is_signed(Some('m')));
    }

    /// Floating-point built-ins that become a few instructions, with how many
    /// counted by hand from `lower`.
    const FLOAT_EXPANDED: &[(&str, u64)] = &[("rsqrt", 2), ("recip", 1), ("divide", 1), ("clamp", 2)];

    /// Integer built-ins, with the instructions each becomes (counted by hand from `lower`) (`abs` of an
    /// unsigned value is the value itself).
    const INTEGER: &[(&str, u64)] = &[
        ("min", 1),
        ("max", 1),
        ("clamp", 2),
        ("abs", 1),
        ("popcount", 1),
        ("clz", 1),
        ("ctz", 1),
        ("mul24", 1),
        ("mad24", 2),
        ("mul_hi", 5),
        ("rotate", 1),
        ("select", 2),
    ];

    /// The arguments a built-in of the lists takes.
    fn arity(name: &str) -> usize {
        match name {
            "fma" | "mad" | "clamp" | "mad24" | "select" => 3,
            "fmin" | "min" | "fmax" | "max" | "copysign" | "pow" | "powr" | "divide" | "mul24" | "mul_hi" | "rotate" => 2,
            _ => 1,
        }
    }

    /// Every built-in of the lists `lane_local_size` reads, called as
    /// clang calls it (`float`, signed and unsigned `int`): the lowering
    /// takes it, leaves no call to a `_Z` function, and makes as many
    /// instructions as `lane_local_size` says, none touching memory or
    /// calling anything but an intrinsic.
    #[test]
    fn lane_local_sizes_are_what_the_lowering_makes() {
        let mut calls: Vec<(&str, char)> = FLOAT_INTRINSICS.iter().map(|(n, _)| (*n, 'f')).collect();
        calls.extend(FLOAT_EXPANDED.iter().map(|(n, _)| (*n, 'f')));
        calls.extend(INTEGER.iter().flat_map(|(n, _)| [(*n, 'i'), (*n, 'j')]));
        let mut ir = String::from("target triple = \"spir64-unknown-unknown\"\n");
        for (k, &(name, code)) in calls.iter().enumerate() {
            let ty = if code == 'f' { "float" } else { "i32" };
            let n = arity(name);
            let mangled = format!("_Z{}{name}{}", name.len(), code.to_string().repeat(n));
            let params: Vec<String> = (0..n).map(|a| format!("{ty} %a{a}")).collect();
            let args = params.join(", ");
            ir += &format!("declare {ty} @{mangled}({args}) convergent\n");
            ir += &format!("define {ty} @f{k}({args}) {{\n  %r = call {ty} @{mangled}({args})\n  ret {ty} %r\n}}\n");
        }
        let ctx = inkwell::context::Context::create();
        let mut m = crate::ir::parse_ir(&ctx, "t", ir.as_bytes()).expect("parses");
        let size = |f: inkwell::values::FunctionValue<'_>| -> Vec<Option<u64>> {
            f.get_basic_block_iter().flat_map(instructions).filter(|i| i.is_call()).map(lane_local_size).collect()
        };
        let before: Vec<Vec<Option<u64>>> = (0..calls.len()).map(|k| size(m.get_function(&format!("f{k}")).expect("f"))).collect();
        crate::pipeline::run_by_name(&mut m, "simt-lower-ocl-builtins", false, &mut Vec::new()).expect("lowers");
        for (k, &(name, code)) in calls.iter().enumerate() {
            let f = m.get_function(&format!("f{k}")).expect("f");
            let body: Vec<Inst<'_>> = f.get_basic_block_iter().flat_map(instructions).filter(|i| !i.is_terminator()).collect();
            let memory = |i: &Inst<'_>| matches!(i.opcode(), LLVMOpcode::LLVMLoad | LLVMOpcode::LLVMStore);
            let plain =
                body.iter().all(|i| !memory(i) && (!i.is_call() || i.called_function_name().is_some_and(|n| n.starts_with("llvm."))));
            let printed: Vec<String> = body.iter().map(|i| i.value().print()).collect();
            assert!(plain, "{name} ({code}) lowers to more than plain IR: {printed:?}");
            let expected = match FLOAT_EXPANDED.iter().chain(INTEGER).find(|(n, _)| *n == name) {
                Some(_) if name == "abs" && code == 'j' => 0,
                Some(&(_, k)) if code != 'f' || FLOAT_EXPANDED.iter().any(|(n, _)| *n == name) => k,
                _ => 1,
            };
            assert_eq!(body.len() as u64, expected, "{name} ({code}): {printed:?}");
            assert_eq!(before[k], vec![Some(expected)], "{name} ({code}): {printed:?}");
        }
    }

    /// Built-ins beyond the maths and integer lists (conversions,
    /// saturating and relational, geometric with a scalar operand) are
    /// lane-local because they lower to plain IR; loads, atomics, library
    /// calls and work-item functions are not.
    #[test]
    fn lane_local_follows_the_lowering() {
        let cases: &[(&str, &str, &str, bool)] = &[
            ("i32", "_Z7add_satii", "i32, i32", true),
            ("i32", "_Z4haddjj", "i32, i32", true),
            ("i32", "_Z15convert_int_satf", "float", true),
            ("i32", "_Z5isnanf", "float", true),
            ("float", "_Z3mixfff", "float, float, float", true),
            ("<4 x float>", "_Z3mixDv4_fS_f", "<4 x float>, <4 x float>, float", true),
            ("float", "_Z3dotDv4_fS_", "<4 x float>, <4 x float>", true),
            ("<4 x float>", "_Z6vload4mPU3AS1Kf", "i64, ptr addrspace(1)", false),
            ("i32", "_Z10atomic_addPU3AS1Vii", "ptr addrspace(1), i32", false),
            ("float", "_Z4fdimff", "float, float", false),
            ("i64", "_Z13get_global_idj", "i32", false),
        ];
        let mut ir = String::from("target triple = \"spir64-unknown-unknown\"\n");
        for (k, (ret, name, params, _)) in cases.iter().enumerate() {
            let formals: Vec<String> = params.split(", ").enumerate().map(|(a, t)| format!("{t} %a{a}")).collect();
            let formals = formals.join(", ");
            ir += &format!("declare {ret} @{name}({params}) convergent\n");
            ir += &format!("define {ret} @f{k}({formals}) {{\n  %r = call {ret} @{name}({formals})\n  ret {ret} %r\n}}\n");
        }
        let ctx = inkwell::context::Context::create();
        let m = crate::ir::parse_ir(&ctx, "t", ir.as_bytes()).expect("parses");
        for (k, &(_, name, _, lane_local)) in cases.iter().enumerate() {
            let f = m.get_function(&format!("f{k}")).expect("f");
            let call = f.get_basic_block_iter().flat_map(instructions).find(|i| i.is_call()).expect("call");
            let size = lane_local_size(call);
            assert_eq!(size.is_some(), lane_local, "{name}: {size:?}");
            if lane_local {
                assert!(size.unwrap() >= 1, "{name}: {size:?}");
            }
        }
    }
}
