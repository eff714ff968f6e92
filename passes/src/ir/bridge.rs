//! Between the handles of [`value`](super::value) and inkwell's own values
//! and types, for code that builds with inkwell (declarations, constants,
//! metadata) and walks with the handles.
//!
//! inkwell's `BasicValueEnum::new` and `BasicTypeEnum::new` are `unsafe` and
//! hit `unreachable!` on kinds outside the basic ones (void, label, token,
//! metadata, target extension types); the conversions here check the kind
//! first and answer `None` for those.

use super::value::{Inst, Value};
use inkwell::values::{BasicValue, BasicValueEnum, FunctionValue, InstructionValue};
use llvm_sys::core::*;
use llvm_sys::LLVMTypeKind;

/// Whether inkwell has a basic type for this kind.
pub(super) fn is_basic_kind(kind: LLVMTypeKind) -> bool {
    use LLVMTypeKind::*;
    matches!(
        kind,
        LLVMHalfTypeKind
            | LLVMBFloatTypeKind
            | LLVMFloatTypeKind
            | LLVMDoubleTypeKind
            | LLVMX86_FP80TypeKind
            | LLVMFP128TypeKind
            | LLVMPPC_FP128TypeKind
            | LLVMIntegerTypeKind
            | LLVMStructTypeKind
            | LLVMPointerTypeKind
            | LLVMArrayTypeKind
            | LLVMVectorTypeKind
            | LLVMScalableVectorTypeKind
    )
}

impl<'ctx> Value<'ctx> {
    /// The handle of an inkwell value (a constant built with inkwell, say).
    pub fn from_basic(v: impl BasicValue<'ctx>) -> Value<'ctx> {
        // SAFETY: inkwell values are live values of a context that lives for
        // `'ctx` (inkwell's own invariant), which is the handles' invariant.
        unsafe { Value::from_raw(v.as_value_ref()) }
    }

    /// The value as inkwell's basic value; `None` for values of other types
    /// (void, label, token, metadata, target extension types).
    pub fn as_basic(self) -> Option<BasicValueEnum<'ctx>> {
        // SAFETY: `raw` is a live value of `'ctx` (type invariant) and its type
        // is of a kind `BasicValueEnum::new` accepts (checked first).
        is_basic_kind(self.type_kind()).then(|| unsafe { BasicValueEnum::new(self.raw()) })
    }

    /// The value as a function, if it is one.
    pub fn as_function(self) -> Option<FunctionValue<'ctx>> {
        // SAFETY: `raw` is a live value; it is wrapped as inkwell's function
        // handle only when LLVM says it is a function.
        unsafe {
            if LLVMIsAFunction(self.raw()).is_null() {
                None
            } else {
                FunctionValue::new(self.raw())
            }
        }
    }
}

impl<'ctx> Inst<'ctx> {
    /// The instruction as inkwell's handle (to position inkwell's builder).
    pub fn as_instruction_value(self) -> InstructionValue<'ctx> {
        // SAFETY: `raw` is a live instruction of a context that lives for
        // `'ctx` (type invariant), which is what inkwell's handle requires.
        unsafe { InstructionValue::new(self.raw()) }
    }
}
