//! [`Ty`], the handle of an LLVM type, with everything the IR layer asks of
//! types: kinds, parts (struct fields, array and vector elements, function
//! parameters, integer widths, pointer address spaces), new types and
//! constants of the same context, and sizes and offsets under a data layout.
//!
//! The handle is a live type of a context that lives for `'ctx`. LLVM-C
//! casts its argument to the type class it expects (`StructType`,
//! `ArrayType`, …) without checking, and asks a data layout for the size of
//! unsized types or the offset of a missing field without checking either:
//! each method here checks the kind, the index or sizedness first and panics
//! with a message instead.

use super::bridge::is_basic_kind;
use super::value::Value;
use inkwell::targets::TargetData;
use inkwell::types::{AnyType, BasicTypeEnum};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::{
    LLVMABIAlignmentOfType, LLVMABISizeOfType, LLVMOffsetOfElement, LLVMPointerSizeForAS, LLVMSizeOfTypeInBits, LLVMStoreSizeOfType,
};
use llvm_sys::LLVMTypeKind;
use std::marker::PhantomData;

/// A type of a context that lives for `'ctx`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ty<'ctx> {
    pub(super) raw: LLVMTypeRef,
    pub(super) _ctx: PhantomData<&'ctx ()>,
}

impl<'ctx> Ty<'ctx> {
    // ------------------------------------------------------------ handles: to and from LLVM-C and inkwell

    pub fn raw(self) -> LLVMTypeRef {
        self.raw
    }

    /// # Safety
    /// `raw` must be a live type of a context that lives for `'ctx` (for
    /// the ir layer's own modules).
    pub(super) unsafe fn from_raw(raw: LLVMTypeRef) -> Ty<'ctx> {
        Ty { raw, _ctx: PhantomData }
    }

    /// The type of an inkwell type handle.
    pub fn of(t: impl AnyType<'ctx>) -> Ty<'ctx> {
        // SAFETY: `AnyType` is an `unsafe` trait whose implementors promise
        // a live type of a context that lives for `'ctx`.
        unsafe { Ty::from_raw(t.as_type_ref()) }
    }

    /// The type as inkwell's basic type; `None` for other kinds (void,
    /// function, label, token, metadata, target extension types).
    pub fn as_basic_type(self) -> Option<BasicTypeEnum<'ctx>> {
        // SAFETY: `raw` is a live type of a context that lives for `'ctx`
        // (type invariant), of a kind `BasicTypeEnum::new` accepts (checked).
        is_basic_kind(self.kind()).then(|| unsafe { BasicTypeEnum::new(self.raw()) })
    }

    // ------------------------------------------------------------ kinds

    pub fn kind(self) -> LLVMTypeKind {
        // SAFETY: `raw` is a live type (type invariant).
        unsafe { LLVMGetTypeKind(self.raw) }
    }

    pub fn is_void(self) -> bool {
        self.kind() == LLVMTypeKind::LLVMVoidTypeKind
    }

    pub fn is_pointer(self) -> bool {
        self.kind() == LLVMTypeKind::LLVMPointerTypeKind
    }

    pub fn is_integer(self) -> bool {
        self.kind() == LLVMTypeKind::LLVMIntegerTypeKind
    }

    pub fn is_struct(self) -> bool {
        self.kind() == LLVMTypeKind::LLVMStructTypeKind
    }

    pub fn is_array(self) -> bool {
        self.kind() == LLVMTypeKind::LLVMArrayTypeKind
    }

    pub fn is_vector(self) -> bool {
        self.kind() == LLVMTypeKind::LLVMVectorTypeKind
    }

    /// An integer, any floating-point type, or a pointer: what a bitcast or
    /// a ptrtoint/inttoptr pair can turn into a same-sized integer.
    pub fn is_scalar(self) -> bool {
        use LLVMTypeKind::*;
        matches!(
            self.kind(),
            LLVMIntegerTypeKind
                | LLVMHalfTypeKind
                | LLVMBFloatTypeKind
                | LLVMFloatTypeKind
                | LLVMDoubleTypeKind
                | LLVMX86_FP80TypeKind
                | LLVMFP128TypeKind
                | LLVMPPC_FP128TypeKind
                | LLVMPointerTypeKind
        )
    }

    /// `half`, `float` or `double`, or a vector of them.
    pub fn is_float_or_float_vector(self) -> bool {
        matches!(self.scalar().kind(), LLVMTypeKind::LLVMFloatTypeKind | LLVMTypeKind::LLVMDoubleTypeKind | LLVMTypeKind::LLVMHalfTypeKind)
    }

    /// Whether values of the type have a size (what `alloca`, loads and
    /// `getelementptr` need).
    pub fn is_sized(self) -> bool {
        // SAFETY: `raw` is a live type.
        unsafe { LLVMTypeIsSized(self.raw()) != 0 }
    }

    pub(super) fn is_sized_first_class(self) -> bool {
        !matches!(
            self.kind(),
            LLVMTypeKind::LLVMVoidTypeKind
                | LLVMTypeKind::LLVMFunctionTypeKind
                | LLVMTypeKind::LLVMLabelTypeKind
                | LLVMTypeKind::LLVMMetadataTypeKind
                | LLVMTypeKind::LLVMTokenTypeKind
                | LLVMTypeKind::LLVMTargetExtTypeKind
        )
    }

    pub(super) fn is_function_variadic(self) -> bool {
        // SAFETY: callers ask function types only.
        unsafe { LLVMIsFunctionVarArg(self.raw) != 0 }
    }

    // ------------------------------------------------------------ parts: fields, elements, parameters, widths, address spaces

    /// The return type of a function type.
    pub fn return_type(self) -> Ty<'ctx> {
        assert_eq!(self.kind(), LLVMTypeKind::LLVMFunctionTypeKind, "the return type of a non-function type");
        // SAFETY: `raw` is a live function type.
        Ty { raw: unsafe { LLVMGetReturnType(self.raw) }, _ctx: PhantomData }
    }

    /// A function type's parameter types.
    pub fn params(self) -> Vec<Ty<'ctx>> {
        assert_eq!(self.kind(), LLVMTypeKind::LLVMFunctionTypeKind, "the parameters of a non-function type");
        // SAFETY: `raw` is a live function type; the array holds its count.
        unsafe {
            let n = LLVMCountParamTypes(self.raw) as usize;
            let mut out: Vec<LLVMTypeRef> = vec![std::ptr::null_mut(); n];
            LLVMGetParamTypes(self.raw, out.as_mut_ptr());
            out.into_iter().map(ty).collect()
        }
    }

    /// A struct's field types, in order.
    pub fn struct_fields(self) -> Vec<Ty<'ctx>> {
        assert!(self.is_struct(), "struct fields of a non-struct type");
        // SAFETY: `raw` is a live struct type; indices are below its element
        // count, and each element is a live type of the same context.
        unsafe { (0..LLVMCountStructElementTypes(self.raw())).map(|i| Ty::from_raw(LLVMStructGetTypeAtIndex(self.raw(), i))).collect() }
    }

    /// Field `i` of a struct type.
    pub fn struct_field(self, i: u32) -> Ty<'ctx> {
        assert!(self.is_struct(), "struct field of a non-struct type");
        // SAFETY: `raw` is a live struct type.
        let n = unsafe { LLVMCountStructElementTypes(self.raw()) };
        assert!(i < n, "struct field {i} out of range ({n} fields)");
        // SAFETY: `i` is below the element count; the element is a live type
        // of the same context.
        unsafe { Ty::from_raw(LLVMStructGetTypeAtIndex(self.raw(), i)) }
    }

    /// The element type of an array or fixed vector type.
    pub fn element_type(self) -> Ty<'ctx> {
        assert!(self.is_array() || self.is_vector(), "element type of a type that is neither an array nor a vector");
        // SAFETY: `raw` is a live array or vector type; its element type is a
        // live type of the same context.
        unsafe { Ty::from_raw(LLVMGetElementType(self.raw())) }
    }

    /// The length of an array type.
    pub fn array_len(self) -> u64 {
        assert!(self.is_array(), "array length of a non-array type");
        // SAFETY: `raw` is a live array type.
        unsafe { LLVMGetArrayLength2(self.raw()) }
    }

    /// The lane count of a fixed vector type.
    pub fn vector_len(self) -> u32 {
        assert!(self.is_vector(), "the length of a non-vector type");
        // SAFETY: `raw` is a live fixed vector type.
        unsafe { LLVMGetVectorSize(self.raw) }
    }

    /// The element type of a vector, or the type itself.
    pub fn scalar(self) -> Ty<'ctx> {
        if self.kind() == LLVMTypeKind::LLVMVectorTypeKind {
            // SAFETY: `raw` is a live vector type.
            unsafe { Ty::from_raw(LLVMGetElementType(self.raw())) }
        } else {
            self
        }
    }

    /// The bit width of an integer type.
    pub fn int_width(self) -> u32 {
        assert!(self.is_integer(), "the width of a non-integer type");
        // SAFETY: `raw` is a live integer type.
        unsafe { LLVMGetIntTypeWidth(self.raw()) }
    }

    /// The address space of a pointer type (not of a vector of pointers:
    /// see [`Value::address_space`]); `None` for other types.
    pub fn address_space(self) -> Option<u32> {
        // SAFETY: `raw` is a live pointer type when asked.
        self.is_pointer().then(|| unsafe { LLVMGetPointerAddressSpace(self.raw) })
    }

    /// The type as LLVM prints it (`{ i32, float }`).
    pub fn print(self) -> String {
        // SAFETY: `raw` is a live type; the message is NUL-terminated, owned
        // by us, copied and then disposed of once.
        unsafe {
            let p = LLVMPrintTypeToString(self.raw());
            let s = std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned();
            LLVMDisposeMessage(p);
            s
        }
    }

    // ------------------------------------------------------------ new types of the same context

    /// The integer type `iN` of this type's context.
    pub fn int_in_context_of(self, bits: u32) -> Ty<'ctx> {
        assert!((1..=1 << 23).contains(&bits), "no integer type i{bits}");
        // SAFETY: `raw` is a live type, so its context is live.
        ty(unsafe { LLVMIntTypeInContext(LLVMGetTypeContext(self.raw), bits) })
    }

    /// The pointer type `ptr addrspace(n)` of this type's context.
    pub fn pointer_in_context_of(self, addrspace: u32) -> Ty<'ctx> {
        // SAFETY: `raw` is a live type, so its context is live.
        ty(unsafe { LLVMPointerTypeInContext(LLVMGetTypeContext(self.raw), addrspace) })
    }

    /// The vector of `n` elements of this scalar type.
    pub fn vector_of(self, n: u32) -> Ty<'ctx> {
        assert!(self.is_scalar() && n > 0, "a vector of a non-scalar");
        // SAFETY: `raw` is a live scalar type.
        ty(unsafe { LLVMVectorType(self.raw, n) })
    }

    /// `[n x self]`.
    pub fn array(self, n: u64) -> Ty<'ctx> {
        assert!(self.is_sized_first_class(), "an array of a type that has no size");
        // SAFETY: `raw` is a live sized type.
        ty(unsafe { LLVMArrayType2(self.raw, n) })
    }

    /// The function type `ret (params…)` (not variadic).
    pub fn function(ret: Ty<'ctx>, params: &[Ty<'ctx>]) -> Ty<'ctx> {
        for p in params {
            assert!(p.is_sized_first_class() || p.kind() == LLVMTypeKind::LLVMTargetExtTypeKind, "a parameter of a type no value has");
        }
        let mut raw: Vec<LLVMTypeRef> = params.iter().map(|p| p.raw).collect();
        // SAFETY: `ret` and the parameters are live types of one context.
        ty(unsafe { LLVMFunctionType(ret.raw, raw.as_mut_ptr(), raw.len() as u32, 0) })
    }

    // ------------------------------------------------------------ constants of the type

    /// `poison` of this type.
    pub fn poison(self) -> Value<'ctx> {
        assert!(!self.is_void(), "no poison of type void");
        // SAFETY: `raw` is a live first-class type; the constant belongs to its context.
        unsafe { Value::from_raw(LLVMGetPoison(self.raw)) }
    }

    /// An integer constant of this integer type (`v` truncated to its width).
    pub fn const_int(self, v: u64) -> Value<'ctx> {
        assert!(self.is_integer(), "an integer constant of a non-integer type");
        // SAFETY: `raw` is a live integer type; the constant belongs to its context.
        unsafe { Value::from_raw(LLVMConstInt(self.raw(), v, 0)) }
    }

    /// The integer constant `v` of this integer type (the low bits of `v`
    /// where the type is narrower).
    pub fn const_i128(self, v: i128) -> Value<'ctx> {
        assert!(self.is_integer(), "an integer constant of a non-integer type");
        let words = [v as u64, (v >> 64) as u64];
        // SAFETY: `raw` is a live integer type; two words hold the value.
        unsafe { Value::from_raw(LLVMConstIntOfArbitraryPrecision(self.raw, 2, words.as_ptr())) }
    }

    /// Every bit set: -1 of this integer type, or in each element.
    pub fn const_all_ones(self) -> Value<'ctx> {
        assert!(self.scalar().is_integer(), "all ones of a non-integer type");
        // SAFETY: `raw` is a live integer (or integer vector) type.
        unsafe { Value::from_raw(LLVMConstAllOnes(self.raw)) }
    }

    /// The floating-point constant `v` of a float (vector) type.
    pub fn const_real(self, v: f64) -> Value<'ctx> {
        assert!(self.is_float_or_float_vector(), "a floating-point constant of a non-float type");
        // SAFETY: `raw` is a live float (vector) type.
        unsafe { Value::from_raw(LLVMConstReal(self.raw, v)) }
    }

    /// `zeroinitializer`/`null`/`0` of a sized first-class type.
    pub fn const_null(self) -> Value<'ctx> {
        assert!(self.is_sized_first_class(), "no null of a type that has no size");
        // SAFETY: `raw` is a live sized type.
        unsafe { Value::from_raw(LLVMConstNull(self.raw)) }
    }

    // ------------------------------------------------------------ layout under a data layout

    /// Allocation size in bytes under `td` (`sizeof`); panics on unsized
    /// types, which LLVM would not check.
    pub fn alloc_size(self, td: &TargetData) -> u64 {
        assert!(self.is_sized(), "size of the unsized type {}", self.print());
        // SAFETY: `raw` is a live sized type and `td` a live target data.
        unsafe { LLVMABISizeOfType(td.as_mut_ptr(), self.raw()) }
    }

    /// Allocation size in bytes under `module`'s own data layout.
    pub fn alloc_size_in(self, module: &inkwell::module::Module<'ctx>) -> u64 {
        assert!(self.is_sized_first_class(), "the size of a type that has none");
        // SAFETY: the module is live, so is the data layout it owns; `raw`
        // is a live sized type of its context.
        unsafe { llvm_sys::target::LLVMABISizeOfType(llvm_sys::target::LLVMGetModuleDataLayout(module.as_mut_ptr()), self.raw) }
    }

    /// ABI alignment in bytes under `td`; panics on unsized types.
    pub fn abi_align(self, td: &TargetData) -> u64 {
        assert!(self.is_sized(), "alignment of the unsized type {}", self.print());
        // SAFETY: as in `alloc_size`.
        unsafe { LLVMABIAlignmentOfType(td.as_mut_ptr(), self.raw()) as u64 }
    }

    /// Bytes a load or store of this type touches under `td`; panics on unsized types.
    pub fn store_size(self, td: &TargetData) -> u64 {
        assert!(self.is_sized(), "store size of the unsized type {}", self.print());
        // SAFETY: a live sized type and a live target data.
        unsafe { LLVMStoreSizeOfType(td.as_mut_ptr(), self.raw()) }
    }

    /// Bits a value of this type holds under `td` (`i20`: 20, `ptr`: the
    /// pointer size); panics on unsized types.
    pub fn size_in_bits(self, td: &TargetData) -> u64 {
        assert!(self.is_sized(), "size of the unsized type {}", self.print());
        // SAFETY: a live sized type and a live target data.
        unsafe { LLVMSizeOfTypeInBits(td.as_mut_ptr(), self.raw()) }
    }

    /// The byte offset of field `i` of a sized struct type under `td`.
    pub fn field_offset(self, td: &TargetData, i: u32) -> u64 {
        assert!(self.is_struct() && self.is_sized(), "field offset in {}, not a sized struct", self.print());
        // SAFETY: `raw` is a live struct type.
        let n = unsafe { LLVMCountStructElementTypes(self.raw()) };
        assert!(i < n, "struct field {i} out of range ({n} fields)");
        // SAFETY: a live sized struct with more than `i` fields, a live `td`.
        unsafe { LLVMOffsetOfElement(td.as_mut_ptr(), self.raw(), i) }
    }

    /// The size in bytes of a pointer of this pointer type under `td`.
    pub fn pointer_size(self, td: &TargetData) -> u32 {
        let aspace = self.address_space().expect("the pointer size of a non-pointer type");
        // SAFETY: `td` is live; any address space may be asked (the
        // default pointer size answers for those the layout does not name).
        unsafe { LLVMPointerSizeForAS(td.as_mut_ptr(), aspace) }
    }
}

fn ty<'ctx>(raw: LLVMTypeRef) -> Ty<'ctx> {
    Ty { raw, _ctx: PhantomData }
}
