//! The builder's float arithmetic and comparisons, value conversions and
//! vector splats: what `simt-lower-ocl-builtins` needs for OpenCL's
//! `convert_*`, relational and geometric built-ins (the constants and vector
//! types they need are `Ty`'s, in `ty.rs`). As elsewhere in `ir/`,
//! operands of the wrong kind or type are caught by an assertion before the
//! C API would build malformed IR.

use super::edit::Builder;
use super::ty::Ty;
use super::value::Value;
use llvm_sys::core::*;
use llvm_sys::{LLVMOpcode, LLVMRealPredicate};
use std::ffi::CString;

fn c_name(name: &str) -> CString {
    CString::new(name.replace('\0', "")).expect("NULs removed")
}

/// Binary float operations beyond [`super::FloatOp`]'s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatBin {
    Add,
    Sub,
    Mul,
    Div,
}

impl<'ctx> Builder<'ctx> {
    /// `a op b` on float values (or vectors of them) of one type.
    pub fn float_bin(&mut self, op: FloatBin, a: Value<'ctx>, b: Value<'ctx>) -> Value<'ctx> {
        let raw = self.positioned_raw();
        assert_eq!(a.ty(), b.ty(), "{op:?} of operands of different types");
        assert!(a.ty().is_float_or_float_vector(), "{op:?} of non-floats");
        let f = match op {
            FloatBin::Add => LLVMBuildFAdd,
            FloatBin::Sub => LLVMBuildFSub,
            FloatBin::Mul => LLVMBuildFMul,
            FloatBin::Div => LLVMBuildFDiv,
        };
        let name = c_name("");
        // SAFETY: a positioned builder; live float operands of one type.
        unsafe { Value::from_raw(f(raw, a.raw(), b.raw(), name.as_ptr())) }
    }

    /// `fcmp pred a, b`: an `i1` (or a vector of them).
    pub fn fcmp(&mut self, pred: LLVMRealPredicate, a: Value<'ctx>, b: Value<'ctx>) -> Value<'ctx> {
        let raw = self.positioned_raw();
        assert_eq!(a.ty(), b.ty(), "fcmp of operands of different types");
        assert!(a.ty().is_float_or_float_vector(), "fcmp of non-floats");
        let name = c_name("");
        // SAFETY: a positioned builder; live float operands of one type.
        unsafe { Value::from_raw(LLVMBuildFCmp(raw, pred, a.raw(), b.raw(), name.as_ptr())) }
    }

    /// A conversion between integers and floats, or between float widths:
    /// `op` one of `sitofp`, `uitofp`, `fptrunc`, `fpext` (float to integer
    /// goes through the saturating intrinsics instead, which have no
    /// poison). Scalars to scalars, vectors to vectors of as many elements.
    pub fn convert(&mut self, op: LLVMOpcode, v: Value<'ctx>, to: Ty<'ctx>) -> Value<'ctx> {
        use LLVMOpcode::*;
        let raw = self.positioned_raw();
        let from = v.ty();
        assert_eq!(from.is_vector(), to.is_vector(), "a conversion between a vector and a scalar");
        assert!(!from.is_vector() || from.vector_len() == to.vector_len(), "a conversion between vectors of other lengths");
        let ok = match op {
            LLVMSIToFP | LLVMUIToFP => from.scalar().is_integer() && to.is_float_or_float_vector(),
            LLVMFPTrunc | LLVMFPExt => from.is_float_or_float_vector() && to.is_float_or_float_vector(),
            _ => false,
        };
        assert!(ok, "{op:?} from {} to {}", from.print(), to.print());
        let name = c_name("");
        // SAFETY: a positioned builder; the operand and type fit `op` (above).
        unsafe { Value::from_raw(LLVMBuildCast(raw, op, v.raw(), to.raw(), name.as_ptr())) }
    }

    /// `v` (a scalar) in every element of a vector of `n`.
    pub fn splat(&mut self, v: Value<'ctx>, n: u32) -> Value<'ctx> {
        let raw = self.positioned_raw();
        assert!(v.ty().is_scalar() && n > 0, "a splat of a non-scalar");
        let name = c_name("");
        // SAFETY: a positioned builder; a live scalar value. The vector type
        // and constants are made in its context: insert it into lane 0 of a
        // poison vector, then shuffle lane 0 into every lane (a zero mask).
        unsafe {
            let vec_ty = LLVMVectorType(v.ty().raw(), n);
            let i32_ty = LLVMInt32TypeInContext(LLVMGetTypeContext(vec_ty));
            let zero = LLVMConstInt(i32_ty, 0, 0);
            let one = LLVMBuildInsertElement(raw, LLVMGetPoison(vec_ty), v.raw(), zero, name.as_ptr());
            let mask = LLVMConstNull(LLVMVectorType(i32_ty, n));
            Value::from_raw(LLVMBuildShuffleVector(raw, one, LLVMGetPoison(vec_ty), mask, name.as_ptr()))
        }
    }
}
