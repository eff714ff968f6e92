//! More of [`edit`](super::edit)'s vocabulary: types made from inkwell's or
//! from other types, constants, and the builder operations the lowering
//! passes (`simt-lower-ocl-builtins`, `simt-to-nvptx`) need: calls,
//! integer and float arithmetic, casts, comparisons, vector lanes,
//! aggregates, atomics and fences, and the ordering and alignment of loads
//! and stores.
//!
//! The handles' invariant holds here as in `edit`: every handle is a live
//! value or type of a context that lives for `'ctx`. Where the C API would
//! build malformed IR from operands of the wrong kind or type (and LLVM,
//! built without assertions, would go on to crash or miscompile), the
//! operation asserts first, so a pass with a bug panics with a message
//! instead.

use super::edit::Builder;
use super::ty::Ty;
use super::value::{Inst, Value};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMAtomicOrdering, LLVMAtomicRMWBinOp, LLVMOpcode, LLVMTypeKind};
use std::ffi::CString;

fn c_name(name: &str) -> CString {
    CString::new(name.replace('\0', "")).expect("NULs removed")
}

impl<'ctx> Value<'ctx> {
    /// The operands of a call site that are its arguments.
    pub fn call_args(self) -> Vec<Value<'ctx>> {
        let i = self.as_inst().expect("the arguments of a non-instruction");
        (0..i.num_call_args()).map(|k| i.operand(k)).collect()
    }
}

impl<'ctx> Inst<'ctx> {
    /// The function a call calls directly (`None` for indirect calls and
    /// inline asm).
    pub fn called_function_value(self) -> Option<Value<'ctx>> {
        assert!(
            matches!(self.opcode(), LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr),
            "the callee of a non-call"
        );
        // SAFETY: `raw` is a live call site.
        let callee = unsafe { LLVMGetCalledValue(self.raw()) };
        // SAFETY: a non-null callee is a live value of the same context.
        (!callee.is_null()).then(|| unsafe { Value::from_raw(callee) }).filter(|c| c.is_function())
    }

    /// The arguments of a call site.
    pub fn call_args(self) -> Vec<Value<'ctx>> {
        self.value().call_args()
    }

    /// A call site's calling convention.
    pub fn call_conv(self) -> u32 {
        assert!(
            matches!(self.opcode(), LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr),
            "the calling convention of a non-call"
        );
        // SAFETY: `raw` is a live call site.
        unsafe { LLVMGetInstructionCallConv(self.raw()) }
    }

    pub fn set_call_conv(self, cc: u32) {
        assert!(
            matches!(self.opcode(), LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr),
            "the calling convention of a non-call"
        );
        // SAFETY: `raw` is a live call site.
        unsafe { LLVMSetInstructionCallConv(self.raw(), cc) }
    }

    /// The ordering of an atomic load or store.
    pub fn set_ordering(self, ordering: LLVMAtomicOrdering) {
        assert!(
            matches!(self.opcode(), LLVMOpcode::LLVMLoad | LLVMOpcode::LLVMStore),
            "an ordering on an instruction that takes none here"
        );
        // SAFETY: `raw` is a live load or store.
        unsafe { LLVMSetOrdering(self.raw(), ordering) }
    }

    /// The alignment of a load, store or `alloca`, in bytes.
    pub fn set_alignment(self, bytes: u32) {
        assert!(
            matches!(self.opcode(), LLVMOpcode::LLVMLoad | LLVMOpcode::LLVMStore | LLVMOpcode::LLVMAlloca),
            "an alignment on an instruction that has none"
        );
        assert!(bytes.is_power_of_two(), "alignment {bytes} is not a power of two");
        // SAFETY: `raw` is a live load, store or alloca.
        unsafe { LLVMSetAlignment(self.raw(), bytes) }
    }
}

fn assert_int(v: Value<'_>, what: &str) {
    assert!(v.ty().scalar().is_integer(), "{what} of a non-integer value");
}

fn assert_same(a: Value<'_>, b: Value<'_>, what: &str) {
    assert_eq!(a.ty(), b.ty(), "{what} of values of different types");
}

impl<'ctx> Builder<'ctx> {
    fn value(&self, raw: LLVMValueRef) -> Value<'ctx> {
        // SAFETY: LLVM just made `raw` (an instruction, or a constant it
        // folded) in the builder's context.
        unsafe { Value::from_raw(raw) }
    }

    fn ready(&self) {
        assert!(self.positioned, "an unpositioned builder");
    }

    /// `call fn_ty callee(args)`; the arguments must match the type.
    pub fn call(&mut self, fn_ty: Ty<'ctx>, callee: Value<'ctx>, args: &[Value<'ctx>], name: &str) -> Inst<'ctx> {
        self.ready();
        let params = fn_ty.params();
        assert!(!fn_ty.is_function_variadic(), "a call to a variadic function type");
        assert!(callee.ty().is_pointer(), "a call through a non-pointer");
        assert_eq!(params.len(), args.len(), "a call with {} arguments to a function of {}", args.len(), params.len());
        for (k, (a, p)) in args.iter().zip(&params).enumerate() {
            assert_eq!(a.ty(), *p, "argument {k} of a call is of another type than the parameter");
        }
        let name = if fn_ty.return_type().is_void() { c_name("") } else { c_name(name) };
        let mut raw: Vec<LLVMValueRef> = args.iter().map(|a| a.raw()).collect();
        // SAFETY: the builder is positioned in a live block; the function
        // type, callee and arguments are live and agree (checked above).
        let v = unsafe { LLVMBuildCall2(self.raw, fn_ty.raw, callee.raw(), raw.as_mut_ptr(), raw.len() as u32, name.as_ptr()) };
        self.value(v).as_inst().expect("calls are instructions")
    }

    /// A call to `f` with its own function type.
    pub fn call_function(&mut self, f: Value<'ctx>, args: &[Value<'ctx>], name: &str) -> Inst<'ctx> {
        assert!(f.is_function(), "a direct call to a non-function");
        self.call(f.global_value_type(), f, args, name)
    }

    fn int_binop(
        &mut self,
        build: unsafe extern "C" fn(LLVMBuilderRef, LLVMValueRef, LLVMValueRef, *const std::ffi::c_char) -> LLVMValueRef,
        a: Value<'ctx>,
        b: Value<'ctx>,
        name: &str,
    ) -> Value<'ctx> {
        self.ready();
        assert_int(a, "integer arithmetic");
        assert_same(a, b, "integer arithmetic");
        let name = c_name(name);
        // SAFETY: the builder is positioned; both operands are live integer
        // (vector) values of one type, which every caller's `build` takes.
        self.value(unsafe { build(self.raw, a.raw(), b.raw(), name.as_ptr()) })
    }

    pub fn add(&mut self, a: Value<'ctx>, b: Value<'ctx>, name: &str) -> Value<'ctx> {
        self.int_binop(LLVMBuildAdd, a, b, name)
    }

    pub fn mul(&mut self, a: Value<'ctx>, b: Value<'ctx>, name: &str) -> Value<'ctx> {
        self.int_binop(LLVMBuildMul, a, b, name)
    }

    pub fn lshr(&mut self, a: Value<'ctx>, b: Value<'ctx>, name: &str) -> Value<'ctx> {
        self.int_binop(LLVMBuildLShr, a, b, name)
    }

    pub fn shl(&mut self, a: Value<'ctx>, b: Value<'ctx>, name: &str) -> Value<'ctx> {
        self.int_binop(LLVMBuildShl, a, b, name)
    }

    pub fn ashr(&mut self, a: Value<'ctx>, b: Value<'ctx>, name: &str) -> Value<'ctx> {
        self.int_binop(LLVMBuildAShr, a, b, name)
    }

    /// `freeze v`: `v`, or an arbitrary fixed value of its type where `v` is
    /// poison or undef (so a branch on it is no longer undefined behaviour).
    pub fn freeze(&mut self, v: Value<'ctx>, name: &str) -> Value<'ctx> {
        self.ready();
        assert!(!v.ty().is_void(), "a freeze of a void value");
        let name = c_name(name);
        // SAFETY: the builder is positioned; `v` is a live first-class value.
        self.value(unsafe { LLVMBuildFreeze(self.raw, v.raw(), name.as_ptr()) })
    }

    /// An integer as a pointer of type `to` (scalars only).
    pub fn int_to_ptr(&mut self, v: Value<'ctx>, to: Ty<'ctx>, name: &str) -> Value<'ctx> {
        self.ready();
        assert!(v.ty().is_integer() && to.is_pointer(), "an inttoptr of a non-integer or to a non-pointer");
        let name = c_name(name);
        // SAFETY: the builder is positioned; a live integer and a pointer type.
        self.value(unsafe { LLVMBuildIntToPtr(self.raw, v.raw(), to.raw, name.as_ptr()) })
    }

    pub fn fdiv(&mut self, a: Value<'ctx>, b: Value<'ctx>, name: &str) -> Value<'ctx> {
        self.ready();
        assert!(a.ty().is_float_or_float_vector(), "a division of non-float values");
        assert_same(a, b, "a division");
        let name = c_name(name);
        // SAFETY: the builder is positioned; both are float values of one type.
        self.value(unsafe { LLVMBuildFDiv(self.raw, a.raw(), b.raw(), name.as_ptr()) })
    }

    fn int_cast_with(
        &mut self,
        build: unsafe extern "C" fn(LLVMBuilderRef, LLVMValueRef, LLVMTypeRef, *const std::ffi::c_char) -> LLVMValueRef,
        v: Value<'ctx>,
        to: Ty<'ctx>,
        name: &str,
    ) -> Value<'ctx> {
        self.ready();
        assert_int(v, "an integer cast");
        assert!(to.scalar().is_integer(), "an integer cast to a non-integer type");
        assert_eq!(v.ty().is_vector(), to.is_vector(), "an integer cast between scalar and vector");
        let name = c_name(name);
        // SAFETY: the builder is positioned; `v` and `to` are integer types
        // of the same shape, which every caller's `build` takes.
        self.value(unsafe { build(self.raw, v.raw(), to.raw, name.as_ptr()) })
    }

    pub fn sext(&mut self, v: Value<'ctx>, to: Ty<'ctx>, name: &str) -> Value<'ctx> {
        self.int_cast_with(LLVMBuildSExt, v, to, name)
    }

    pub fn trunc(&mut self, v: Value<'ctx>, to: Ty<'ctx>, name: &str) -> Value<'ctx> {
        self.int_cast_with(LLVMBuildTrunc, v, to, name)
    }

    /// Truncation, zero-extension or nothing, whichever makes `v` a `to`.
    pub fn int_cast_unsigned(&mut self, v: Value<'ctx>, to: Ty<'ctx>, name: &str) -> Value<'ctx> {
        self.ready();
        assert_int(v, "an integer cast");
        assert!(to.scalar().is_integer() && v.ty().is_vector() == to.is_vector(), "an integer cast to another shape");
        let name = c_name(name);
        // SAFETY: the builder is positioned; both are integer types of one shape.
        self.value(unsafe { LLVMBuildIntCast2(self.raw, v.raw(), to.raw, 0, name.as_ptr()) })
    }

    /// `getelementptr inbounds elem, ptr, indices…`.
    pub fn in_bounds_gep(&mut self, elem: Ty<'ctx>, ptr: Value<'ctx>, indices: &[Value<'ctx>], name: &str) -> Value<'ctx> {
        self.ready();
        assert!(ptr.ty().is_pointer(), "a getelementptr on a non-pointer");
        assert!(elem.is_sized_first_class(), "a getelementptr over a type with no size");
        for i in indices {
            assert_int(*i, "a getelementptr index");
        }
        let mut raw: Vec<LLVMValueRef> = indices.iter().map(|i| i.raw()).collect();
        let name = c_name(name);
        // SAFETY: the builder is positioned; `ptr` is a pointer, the indices
        // integers (LLVM's verifier checks struct indices are constants).
        self.value(unsafe { LLVMBuildInBoundsGEP2(self.raw, elem.raw, ptr.raw(), raw.as_mut_ptr(), raw.len() as u32, name.as_ptr()) })
    }

    /// Lane `idx` of vector `v`.
    pub fn extract_element(&mut self, v: Value<'ctx>, idx: Value<'ctx>, name: &str) -> Value<'ctx> {
        self.ready();
        assert!(v.ty().is_vector(), "an element of a non-vector");
        assert_int(idx, "a lane index");
        let name = c_name(name);
        // SAFETY: the builder is positioned; `v` is a vector, `idx` an integer.
        self.value(unsafe { LLVMBuildExtractElement(self.raw, v.raw(), idx.raw(), name.as_ptr()) })
    }

    /// `v` with lane `idx` set to `elem`.
    pub fn insert_element(&mut self, v: Value<'ctx>, elem: Value<'ctx>, idx: Value<'ctx>, name: &str) -> Value<'ctx> {
        self.ready();
        assert!(v.ty().is_vector(), "an element of a non-vector");
        assert_eq!(v.ty().scalar(), elem.ty(), "a lane of another type");
        assert_int(idx, "a lane index");
        let name = c_name(name);
        // SAFETY: the builder is positioned; `v` is a vector of `elem`'s type.
        self.value(unsafe { LLVMBuildInsertElement(self.raw, v.raw(), elem.raw(), idx.raw(), name.as_ptr()) })
    }

    /// Field `idx` of a struct or array value.
    pub fn extract_value(&mut self, agg: Value<'ctx>, idx: u32, name: &str) -> Value<'ctx> {
        self.ready();
        let n = match agg.ty().kind() {
            // SAFETY: counts asked of a live struct or array type.
            LLVMTypeKind::LLVMStructTypeKind => u64::from(unsafe { LLVMCountStructElementTypes(agg.ty().raw) }),
            // SAFETY: as above.
            LLVMTypeKind::LLVMArrayTypeKind => unsafe { LLVMGetArrayLength2(agg.ty().raw) },
            _ => panic!("a field of a non-aggregate"),
        };
        assert!((idx as u64) < n, "field {idx} out of range");
        let name = c_name(name);
        // SAFETY: the builder is positioned; `agg` has more than `idx` fields.
        self.value(unsafe { LLVMBuildExtractValue(self.raw, agg.raw(), idx, name.as_ptr()) })
    }

    /// `atomicrmw op ptr, v ordering` (system scope).
    pub fn atomic_rmw(&mut self, op: LLVMAtomicRMWBinOp, ptr: Value<'ctx>, v: Value<'ctx>, ordering: LLVMAtomicOrdering) -> Value<'ctx> {
        self.ready();
        assert!(ptr.ty().is_pointer(), "an atomicrmw through a non-pointer");
        assert!(!v.ty().is_void(), "an atomicrmw of nothing");
        // SAFETY: the builder is positioned; `ptr` is a pointer and `v` a
        // first-class value (LLVM's verifier checks the operation takes its type).
        self.value(unsafe { LLVMBuildAtomicRMW(self.raw, op, ptr.raw(), v.raw(), ordering, 0) })
    }

    /// `cmpxchg ptr, cmp, new success failure` (system scope): `{ T, i1 }`.
    pub fn cmpxchg(
        &mut self,
        ptr: Value<'ctx>,
        cmp: Value<'ctx>,
        new: Value<'ctx>,
        success: LLVMAtomicOrdering,
        failure: LLVMAtomicOrdering,
    ) -> Value<'ctx> {
        self.ready();
        assert!(ptr.ty().is_pointer(), "a cmpxchg through a non-pointer");
        assert_same(cmp, new, "a cmpxchg");
        // SAFETY: the builder is positioned; `ptr` is a pointer, the values of one type.
        self.value(unsafe { LLVMBuildAtomicCmpXchg(self.raw, ptr.raw(), cmp.raw(), new.raw(), success, failure, 0) })
    }

    /// `fence ordering` (system scope).
    pub fn fence(&mut self, ordering: LLVMAtomicOrdering, name: &str) -> Value<'ctx> {
        self.ready();
        let name = c_name(name);
        // SAFETY: the builder is positioned.
        self.value(unsafe { LLVMBuildFence(self.raw, ordering, 0, name.as_ptr()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{instructions, parse_ir};
    use inkwell::context::Context;

    const IR: &str = "define i32 @f(i32 %x, ptr %p, <2 x float> %v) {\n  ret i32 %x\n}\n";

    fn with_f(test: impl for<'c> FnOnce(&Module<'c>, Builder<'c>, Vec<Value<'c>>)) {
        let ctx = Context::create();
        let m = parse_ir(&ctx, "t.ll", IR.as_bytes()).expect("parses");
        let f = m.get_function("f").expect("f");
        let ret = instructions(f.get_first_basic_block().expect("a block")).next().expect("ret");
        let mut b = Builder::new(ret.value());
        b.position_before(ret);
        test(&m, b, crate::ir::parameters(f));
    }

    use inkwell::module::Module;

    #[test]
    fn builds_what_the_c_api_would() {
        with_f(|m, mut b, p| {
            let i64t = p[0].ty().int_in_context_of(64);
            let wide = b.zext(p[0], i64t, "w");
            let hi = b.lshr(wide, i64t.const_int(32), "");
            b.trunc(hi, p[0].ty(), "t");
            let (sqrt, fty) = crate::ir::globals::intrinsic_declaration(m, "llvm.sqrt", &[p[2].ty()]);
            b.call(fty, sqrt, &[p[2]], "s");
            let lane = b.extract_element(p[2], p[0].ty().const_int(1), "l");
            b.fence(LLVMAtomicOrdering::LLVMAtomicOrderingSequentiallyConsistent, "");
            let ld = b.load(lane.ty(), p[1], "ld");
            ld.set_ordering(LLVMAtomicOrdering::LLVMAtomicOrderingSequentiallyConsistent);
            ld.set_alignment(4);
            let text = m.print_to_string().to_string();
            assert!(text.contains("%w = zext i32 %x to i64"), "{text}");
            assert!(text.contains("%t = trunc i64 %1 to i32"), "{text}");
            assert!(text.contains("%s = call <2 x float> @llvm.sqrt.v2f32(<2 x float> %v)"), "{text}");
            assert!(text.contains("%ld = load atomic float, ptr %p seq_cst, align 4"), "{text}");
            assert!(crate::ir::verify(m).is_ok());
        });
    }

    #[test]
    #[should_panic(expected = "argument 0 of a call is of another type")]
    fn call_arguments_are_checked() {
        with_f(|m, mut b, p| {
            let (sqrt, fty) = crate::ir::globals::intrinsic_declaration(m, "llvm.sqrt", &[p[2].ty()]);
            b.call(fty, sqrt, &[p[0]], "");
        });
    }

    #[test]
    #[should_panic(expected = "integer arithmetic of values of different types")]
    fn operand_types_are_checked() {
        with_f(|_, mut b, p| {
            let wide = p[0].ty().int_in_context_of(64).const_int(1);
            b.add(p[0], wide, "");
        });
    }
}
