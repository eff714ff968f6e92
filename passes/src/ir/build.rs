//! Building new code through the typed handles: arithmetic, comparisons,
//! `select`, casts, `getelementptr`, conditional branches, `switch` and
//! `ret` on the [`Builder`] of `edit.rs`, and the bridge from inkwell's
//! values to [`Value`] (integer constants and inkwell's types: [`Ty`]).
//!
//! The invariant is the handles' own (every handle points to a live value,
//! block or type of a context that lives for `'ctx`). LLVM's builder does not
//! check its operands in release builds and makes malformed instructions, or
//! crashes, on wrong types; every method here asserts what its instruction
//! needs first (operand types, integer or pointer kinds, `getelementptr`
//! indices that can be followed through the source type), so a bug in a pass
//! panics with a message instead.

use super::edit::Builder;
use super::ty::Ty;
use super::value::{Inst, Value};
use inkwell::basic_block::BasicBlock;
use inkwell::values::AnyValue;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMGEPNoWrapFlags, LLVMIntPredicate, LLVMOpcode, LLVMTypeKind};
use std::ffi::CString;

fn c_name(name: &str) -> CString {
    CString::new(name.bytes().filter(|&b| b != 0).collect::<Vec<u8>>()).expect("NULs removed")
}

impl<'ctx> Value<'ctx> {
    /// The value of an inkwell value handle.
    pub fn of(v: impl AnyValue<'ctx>) -> Value<'ctx> {
        // SAFETY: `AnyValue` is an `unsafe` trait whose implementors promise
        // a live value of a context that lives for `'ctx`.
        unsafe { Value::from_raw(v.as_value_ref()) }
    }

    /// A block as a value (the operand form of branch targets).
    pub fn of_block(bb: BasicBlock<'ctx>) -> Value<'ctx> {
        // SAFETY: a live block (inkwell invariant) is a live value.
        unsafe { Value::from_raw(LLVMBasicBlockAsValue(bb.as_mut_ptr())) }
    }

    /// The block this value is, if it is one.
    pub fn as_block(self) -> Option<BasicBlock<'ctx>> {
        // SAFETY: `raw` is a live value; it is converted only when it is a block.
        unsafe {
            if LLVMValueIsBasicBlock(self.raw()) == 0 {
                return None;
            }
            BasicBlock::new(LLVMValueAsBasicBlock(self.raw()))
        }
    }

    /// The source element type of a `getelementptr` instruction or constant
    /// expression.
    pub fn gep_source_element_type(self) -> Ty<'ctx> {
        assert_eq!(self.opcode(), Some(LLVMOpcode::LLVMGetElementPtr), "the source type of a non-GEP");
        // SAFETY: `raw` is a live GEP (instruction or constant expression).
        unsafe { Ty::from_raw(LLVMGetGEPSourceElementType(self.raw())) }
    }

    /// The no-wrap flags (`inbounds`, `nusw`, `nuw`) of a `getelementptr`.
    pub fn gep_no_wrap_flags(self) -> LLVMGEPNoWrapFlags {
        assert_eq!(self.opcode(), Some(LLVMOpcode::LLVMGetElementPtr), "the flags of a non-GEP");
        // SAFETY: `raw` is a live GEP.
        unsafe { LLVMGEPGetNoWrapFlags(self.raw()) }
    }
}

/// Integer binary operations with their builder functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntOp {
    Add,
    NuwAdd,
    Sub,
    Mul,
    NuwMul,
    UDiv,
    URem,
    And,
    Or,
    Xor,
}

/// Binary operations on floating-point values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatOp {
    Add,
    Sub,
}

/// Panics unless `idx` are indices a `getelementptr` over `ty` can follow:
/// integers, the first over `ty` itself, each later one into the type the
/// previous led to, struct fields by in-range `i32` constants (LLVM's
/// builder would otherwise compute no result type and crash).
fn check_gep_indices(ty: Ty<'_>, idx: &[Value<'_>]) {
    assert!(ty.is_sized(), "a getelementptr over an unsized type");
    let mut at = ty;
    for (n, i) in idx.iter().enumerate() {
        assert!(i.ty().scalar().is_integer(), "getelementptr index {n} is not an integer");
        if n == 0 {
            continue;
        }
        // SAFETY: `at` is a live type; element types are asked of the kinds
        // that have them, struct fields below the field count.
        at = unsafe {
            match at.kind() {
                LLVMTypeKind::LLVMStructTypeKind => {
                    assert_eq!(i.ty().kind(), LLVMTypeKind::LLVMIntegerTypeKind, "getelementptr index {n} into a struct is a vector");
                    assert_eq!(i.ty().int_width(), 32, "getelementptr index {n} into a struct is not an i32");
                    let field = i.const_u64().expect("a struct index is a constant integer");
                    assert!(field < LLVMCountStructElementTypes(at.raw()) as u64, "struct index {field} out of range");
                    Ty::from_raw(LLVMStructGetTypeAtIndex(at.raw(), field as u32))
                }
                LLVMTypeKind::LLVMArrayTypeKind | LLVMTypeKind::LLVMVectorTypeKind => Ty::from_raw(LLVMGetElementType(at.raw())),
                other => panic!("getelementptr index {n} into a {other:?}"),
            }
        };
    }
}

impl<'ctx> Builder<'ctx> {
    fn built(&self, raw: LLVMValueRef) -> Value<'ctx> {
        assert!(!raw.is_null(), "LLVM's builder returned nothing");
        // SAFETY: LLVM just made `raw` (an instruction in the builder's
        // block, or a folded constant) in the builder's context.
        unsafe { Value::from_raw(raw) }
    }

    fn built_inst(&self, raw: LLVMValueRef) -> Inst<'ctx> {
        self.built(raw).as_inst().expect("builders make instructions")
    }

    /// The block the builder inserts into.
    pub fn insert_block(&self) -> BasicBlock<'ctx> {
        // SAFETY: the builder is positioned in a live block.
        unsafe { BasicBlock::new(LLVMGetInsertBlock(self.positioned_raw())) }.expect("a positioned builder has a block")
    }

    /// `a op b` on integers (or vectors of them) of one type.
    pub fn int_op(&self, op: IntOp, a: Value<'ctx>, b: Value<'ctx>, name: &str) -> Value<'ctx> {
        let raw = self.positioned_raw();
        assert_eq!(a.ty(), b.ty(), "{op:?} of operands of different types");
        assert!(a.ty().scalar().is_integer(), "{op:?} of non-integers");
        type BinFn = unsafe extern "C" fn(LLVMBuilderRef, LLVMValueRef, LLVMValueRef, *const std::ffi::c_char) -> LLVMValueRef;
        let f: BinFn = match op {
            IntOp::Add => LLVMBuildAdd,
            IntOp::NuwAdd => LLVMBuildNUWAdd,
            IntOp::Sub => LLVMBuildSub,
            IntOp::Mul => LLVMBuildMul,
            IntOp::NuwMul => LLVMBuildNUWMul,
            IntOp::UDiv => LLVMBuildUDiv,
            IntOp::URem => LLVMBuildURem,
            IntOp::And => LLVMBuildAnd,
            IntOp::Or => LLVMBuildOr,
            IntOp::Xor => LLVMBuildXor,
        };
        let name = c_name(name);
        // SAFETY: a positioned builder; live operands of one integer type.
        self.built(unsafe { f(raw, a.raw(), b.raw(), name.as_ptr()) })
    }

    /// `a op b` on floating-point values (or vectors of them) of one type.
    pub fn float_op(&self, op: FloatOp, a: Value<'ctx>, b: Value<'ctx>, name: &str) -> Value<'ctx> {
        let raw = self.positioned_raw();
        assert_eq!(a.ty(), b.ty(), "{op:?} of operands of different types");
        assert!(a.ty().is_float_or_float_vector(), "{op:?} of non-floats");
        let f = match op {
            FloatOp::Add => LLVMBuildFAdd,
            FloatOp::Sub => LLVMBuildFSub,
        };
        let name = c_name(name);
        // SAFETY: a positioned builder; live operands of one floating-point type.
        self.built(unsafe { f(raw, a.raw(), b.raw(), name.as_ptr()) })
    }

    /// `insertvalue agg, v, index` into a struct or array.
    pub fn insert_value(&self, agg: Value<'ctx>, v: Value<'ctx>, index: u32, name: &str) -> Value<'ctx> {
        let raw = self.positioned_raw();
        let kind = agg.ty().kind();
        assert!(
            matches!(kind, llvm_sys::LLVMTypeKind::LLVMStructTypeKind | llvm_sys::LLVMTypeKind::LLVMArrayTypeKind),
            "insertvalue into a non-aggregate"
        );
        let name = c_name(name);
        // SAFETY: a positioned builder; live operands, `agg` an aggregate.
        // LLVM's verifier (run after every pass) checks the index and type.
        self.built(unsafe { LLVMBuildInsertValue(raw, agg.raw(), v.raw(), index, name.as_ptr()) })
    }

    pub fn nuw_add(&self, a: Value<'ctx>, b: Value<'ctx>, name: &str) -> Value<'ctx> {
        self.int_op(IntOp::NuwAdd, a, b, name)
    }

    pub fn nuw_mul(&self, a: Value<'ctx>, b: Value<'ctx>, name: &str) -> Value<'ctx> {
        self.int_op(IntOp::NuwMul, a, b, name)
    }

    /// An integer comparison of integers or pointers (or vectors of them) of one type.
    pub fn icmp(&self, pred: LLVMIntPredicate, a: Value<'ctx>, b: Value<'ctx>, name: &str) -> Value<'ctx> {
        let raw = self.positioned_raw();
        assert_eq!(a.ty(), b.ty(), "icmp of operands of different types");
        let s = a.ty().scalar();
        assert!(s.is_integer() || s.is_pointer(), "icmp of non-integers");
        let name = c_name(name);
        // SAFETY: a positioned builder; live operands of one integer or pointer type.
        self.built(unsafe { LLVMBuildICmp(raw, pred, a.raw(), b.raw(), name.as_ptr()) })
    }

    /// `select c, a, b` with `c` an `i1` (or, for vectors `a` and `b`, a
    /// vector of `i1`, one per element) and `a`, `b` of one type.
    pub fn select(&self, c: Value<'ctx>, a: Value<'ctx>, b: Value<'ctx>, name: &str) -> Value<'ctx> {
        let raw = self.positioned_raw();
        let cs = c.ty().scalar();
        assert!(cs.is_integer() && cs.int_width() == 1, "a select on a non-i1 condition");
        assert!(!c.ty().is_vector() || a.ty().is_vector(), "a select of scalars on a vector condition");
        assert_eq!(a.ty(), b.ty(), "a select between values of different types");
        let name = c_name(name);
        // SAFETY: a positioned builder; live operands of the types select takes.
        self.built(unsafe { LLVMBuildSelect(raw, c.raw(), a.raw(), b.raw(), name.as_ptr()) })
    }

    /// Zero-extends an integer to a type at least as wide.
    pub fn zext(&self, v: Value<'ctx>, ty: Ty<'ctx>, name: &str) -> Value<'ctx> {
        let raw = self.positioned_raw();
        let (from, to) = (v.ty(), ty);
        assert!(from.scalar().is_integer() && to.scalar().is_integer(), "zext of or to a non-integer");
        assert_eq!(from.is_vector(), to.is_vector(), "zext between scalar and vector");
        assert!(from.scalar().int_width() <= to.scalar().int_width(), "zext to a narrower type");
        let name = c_name(name);
        // SAFETY: a positioned builder; a live integer (vector) and a type as
        // wide or wider of the same shape (LLVM's verifier checks lane counts).
        self.built(unsafe { LLVMBuildZExt(raw, v.raw(), ty.raw(), name.as_ptr()) })
    }

    /// Truncates or extends (signed or not) an integer to `ty`.
    pub fn int_cast(&self, v: Value<'ctx>, ty: Ty<'ctx>, signed: bool, name: &str) -> Value<'ctx> {
        let raw = self.positioned_raw();
        assert!(v.ty().is_integer() && ty.is_integer(), "an integer cast of or to a non-integer");
        let name = c_name(name);
        // SAFETY: a positioned builder; a live integer and an integer type.
        self.built(unsafe { LLVMBuildIntCast2(raw, v.raw(), ty.raw(), signed as LLVMBool, name.as_ptr()) })
    }

    /// A pointer (or vector of pointers) in another address space.
    pub fn addrspace_cast(&self, v: Value<'ctx>, ty: Ty<'ctx>, name: &str) -> Value<'ctx> {
        let raw = self.positioned_raw();
        assert!(v.ty().scalar().is_pointer() && ty.scalar().is_pointer(), "an addrspacecast of or to a non-pointer");
        let name = c_name(name);
        // SAFETY: a positioned builder; a live pointer and a pointer type.
        self.built(unsafe { LLVMBuildAddrSpaceCast(raw, v.raw(), ty.raw(), name.as_ptr()) })
    }

    /// A pointer (or vector of pointers) as an integer (or vector of them).
    pub fn ptr_to_int(&self, v: Value<'ctx>, ty: Ty<'ctx>, name: &str) -> Value<'ctx> {
        let raw = self.positioned_raw();
        assert!(v.ty().scalar().is_pointer() && ty.scalar().is_integer(), "a ptrtoint of a non-pointer or to a non-integer");
        let name = c_name(name);
        // SAFETY: a positioned builder; a live pointer and an integer type.
        self.built(unsafe { LLVMBuildPtrToInt(raw, v.raw(), ty.raw(), name.as_ptr()) })
    }

    /// A bit cast between first-class, non-aggregate types (pointers only to
    /// pointers); that the sizes agree is the verifier's to check.
    pub fn bit_cast(&self, v: Value<'ctx>, ty: Ty<'ctx>, name: &str) -> Value<'ctx> {
        let raw = self.positioned_raw();
        let castable = |t: Ty<'ctx>| t.is_scalar() || t.kind() == LLVMTypeKind::LLVMVectorTypeKind;
        assert!(castable(v.ty()) && castable(ty), "a bitcast of or to a type bitcast does not take");
        assert_eq!(v.ty().is_pointer(), ty.is_pointer(), "a bitcast between a pointer and a non-pointer");
        let name = c_name(name);
        // SAFETY: a positioned builder; a live value and a type bitcast takes.
        self.built(unsafe { LLVMBuildBitCast(raw, v.raw(), ty.raw(), name.as_ptr()) })
    }

    /// `getelementptr inbounds ty, base, idx…`.
    pub fn inbounds_gep(&self, ty: Ty<'ctx>, base: Value<'ctx>, idx: &[Value<'ctx>], name: &str) -> Value<'ctx> {
        let raw = self.positioned_raw();
        assert!(base.ty().scalar().is_pointer(), "a getelementptr from a non-pointer");
        check_gep_indices(ty, idx);
        let mut idx: Vec<LLVMValueRef> = idx.iter().map(|v| v.raw()).collect();
        let name = c_name(name);
        // SAFETY: a positioned builder; a live pointer and indices that
        // lead through `ty` (checked).
        self.built(unsafe { LLVMBuildInBoundsGEP2(raw, ty.raw(), base.raw(), idx.as_mut_ptr(), idx.len() as u32, name.as_ptr()) })
    }

    /// `getelementptr` with the given no-wrap flags.
    pub fn gep_with_flags(
        &self,
        ty: Ty<'ctx>,
        base: Value<'ctx>,
        idx: &[Value<'ctx>],
        name: &str,
        flags: LLVMGEPNoWrapFlags,
    ) -> Value<'ctx> {
        let raw = self.positioned_raw();
        assert!(base.ty().scalar().is_pointer(), "a getelementptr from a non-pointer");
        check_gep_indices(ty, idx);
        let mut idx: Vec<LLVMValueRef> = idx.iter().map(|v| v.raw()).collect();
        let name = c_name(name);
        // SAFETY: as in `inbounds_gep`.
        self.built(unsafe {
            LLVMBuildGEPWithNoWrapFlags(raw, ty.raw(), base.raw(), idx.as_mut_ptr(), idx.len() as u32, name.as_ptr(), flags)
        })
    }

    /// `br i1 c, then, otherwise`.
    pub fn cond_br(&self, c: Value<'ctx>, then: BasicBlock<'ctx>, otherwise: BasicBlock<'ctx>) -> Inst<'ctx> {
        let raw = self.positioned_raw();
        assert!(c.ty().is_integer() && c.ty().int_width() == 1, "a branch on a non-i1 condition");
        // SAFETY: a positioned builder; a live i1 and live blocks.
        self.built_inst(unsafe { LLVMBuildCondBr(raw, c.raw(), then.as_mut_ptr(), otherwise.as_mut_ptr()) })
    }

    /// `ret v` (the function's return type is the caller's to match; the
    /// verifier reports a mismatch).
    pub fn ret(&self, v: Value<'ctx>) -> Inst<'ctx> {
        let raw = self.positioned_raw();
        assert!(!v.is_void(), "ret of a void value");
        // SAFETY: a positioned builder; a live value.
        self.built_inst(unsafe { LLVMBuildRet(raw, v.raw()) })
    }

    /// `ret void`.
    pub fn ret_void(&self) -> Inst<'ctx> {
        let raw = self.positioned_raw();
        // SAFETY: a positioned builder.
        self.built_inst(unsafe { LLVMBuildRetVoid(raw) })
    }

    /// `switch v, default` with room for `cases` cases (see [`Inst::add_case`]).
    pub fn switch(&self, v: Value<'ctx>, default: BasicBlock<'ctx>, cases: u32) -> Inst<'ctx> {
        let raw = self.positioned_raw();
        assert!(v.ty().is_integer(), "a switch on a non-integer");
        // SAFETY: a positioned builder; a live integer and a live block.
        self.built_inst(unsafe { LLVMBuildSwitch(raw, v.raw(), default.as_mut_ptr(), cases) })
    }
}

impl<'ctx> Inst<'ctx> {
    /// Adds case `v` (a constant of the condition's type) to a switch.
    pub fn add_case(self, v: Value<'ctx>, to: BasicBlock<'ctx>) {
        assert_eq!(self.opcode(), LLVMOpcode::LLVMSwitch, "a case of a non-switch");
        assert!(v.is_constant_int() && v.ty() == self.operand(0).ty(), "a switch case that is not a constant of the condition's type");
        // SAFETY: `self` is a live switch, `v` a constant of its type, `to` a live block.
        unsafe { LLVMAddCase(self.raw(), v.raw(), to.as_mut_ptr()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{parameters, parse_ir, terminator};
    use inkwell::context::{Context, ContextRef};
    use inkwell::types::BasicType;

    const SRC: &str = "define void @f(ptr %p, i64 %n, i32 %k) {\nentry:\n  ret void\n}\n";

    /// Runs `body` with a builder positioned before `@f`'s `ret`, `@f`'s
    /// parameters and the context.
    fn with_builder(body: impl for<'c> FnOnce(&Builder<'c>, &[Value<'c>], ContextRef<'c>)) {
        let ctx = Context::create();
        let m = parse_ir(&ctx, "t.ll", SRC.as_bytes()).expect("parses");
        let f = m.get_function("f").expect("@f");
        let mut b = Builder::new(Value::from(f));
        b.position_before(terminator(f.get_first_basic_block().expect("entry")).expect("ret"));
        body(&b, &parameters(f), m.get_context());
    }

    #[test]
    fn builds_what_llvm_builds() {
        with_builder(|b, p, _| {
            let (ptr, n, k) = (p[0], p[1], p[2]);
            let at = b.inbounds_gep(n.ty(), ptr, &[n], "at");
            assert_eq!(at.print(), "%at = getelementptr inbounds i64, ptr %p, i64 %n");
            let sum = b.nuw_add(n, n.ty().const_int(1), "sum");
            assert_eq!(sum.print(), "%sum = add nuw i64 %n, 1");
            let lt = b.icmp(LLVMIntPredicate::LLVMIntULT, sum, n, "lt");
            let sel = b.select(lt, sum, n, "sel");
            assert_eq!(b.int_cast(sel, k.ty(), false, "t").print(), "%t = trunc i64 %sel to i32");
            assert_eq!(b.zext(k, n.ty(), "z").print(), "%z = zext i32 %k to i64");
        });
    }

    #[test]
    fn struct_gep_follows_fields() {
        with_builder(|b, p, ctx| {
            let i32t = ctx.i32_type();
            let s = Ty::of(ctx.struct_type(&[i32t.into(), ctx.i64_type().array_type(4).as_basic_type_enum()], false));
            let c = |v| Ty::of(i32t).const_int(v);
            let at = b.inbounds_gep(s, p[0], &[c(0), c(1), c(3)], "f1");
            assert_eq!(at.print(), "%f1 = getelementptr inbounds { i32, [4 x i64] }, ptr %p, i32 0, i32 1, i32 3");
        });
    }

    #[test]
    #[should_panic(expected = "struct index 2 out of range")]
    fn struct_gep_out_of_range_panics() {
        with_builder(|b, p, ctx| {
            let i32t = ctx.i32_type();
            let s = Ty::of(ctx.struct_type(&[i32t.into(), i32t.into()], false));
            let c = |v| Ty::of(i32t).const_int(v);
            b.inbounds_gep(s, p[0], &[c(0), c(2)], "");
        });
    }

    #[test]
    #[should_panic(expected = "not an i32")]
    fn struct_gep_by_i64_panics() {
        with_builder(|b, p, ctx| {
            let s = Ty::of(ctx.struct_type(&[ctx.i32_type().into()], false));
            b.inbounds_gep(s, p[0], &[p[1], p[1]], "");
        });
    }

    #[test]
    #[should_panic(expected = "operands of different types")]
    fn mixed_widths_panic() {
        with_builder(|b, p, _| {
            b.nuw_add(p[1], p[2], "");
        });
    }

    #[test]
    #[should_panic(expected = "non-i1 condition")]
    fn select_on_an_integer_panics() {
        with_builder(|b, p, _| {
            b.select(p[1], p[1], p[1], "");
        });
    }

    #[test]
    #[should_panic(expected = "unpositioned builder")]
    fn unpositioned_builder_panics() {
        let ctx = Context::create();
        let m = parse_ir(&ctx, "t.ll", SRC.as_bytes()).expect("parses");
        let f = m.get_function("f").expect("@f");
        let n = parameters(f)[1];
        Builder::new(Value::from(f)).nuw_add(n, n, "");
    }
}
