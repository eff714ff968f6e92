//! Walking types and asking a data layout about them: struct fields, array
//! and vector elements, integer widths, pointer address spaces, sizes and
//! field offsets.
//!
//! The handles are [`Ty`](super::Ty)'s (a live type of a context that lives
//! for `'ctx`). LLVM-C casts its argument to the type class it expects
//! (`StructType`, `ArrayType`, …) without checking, and asks a data layout
//! for the size of unsized types or the offset of a missing field without
//! checking either: each method here checks the kind, the index or
//! sizedness first and panics with a message instead.

use super::edit::Ty;
use inkwell::targets::TargetData;
use llvm_sys::core::*;
use llvm_sys::target::{LLVMABIAlignmentOfType, LLVMABISizeOfType, LLVMOffsetOfElement, LLVMPointerSizeForAS};
use llvm_sys::LLVMTypeKind;

impl<'ctx> Ty<'ctx> {
    pub fn is_struct(self) -> bool {
        self.kind() == LLVMTypeKind::LLVMStructTypeKind
    }

    pub fn is_array(self) -> bool {
        self.kind() == LLVMTypeKind::LLVMArrayTypeKind
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

    /// The address space of a pointer type.
    pub fn ptr_address_space(self) -> u32 {
        assert!(self.is_pointer(), "address space of a non-pointer type");
        // SAFETY: `raw` is a live pointer type.
        unsafe { LLVMGetPointerAddressSpace(self.raw()) }
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

    // ------------------------------------------------------------ layout

    /// Allocation size in bytes under `td` (`sizeof`); panics on unsized
    /// types, which LLVM would not check.
    pub fn alloc_size(self, td: &TargetData) -> u64 {
        assert!(self.is_sized(), "size of the unsized type {}", self.print());
        // SAFETY: `raw` is a live sized type and `td` a live target data.
        unsafe { LLVMABISizeOfType(td.as_mut_ptr(), self.raw()) }
    }

    /// ABI alignment in bytes under `td`; panics on unsized types.
    pub fn abi_align(self, td: &TargetData) -> u64 {
        assert!(self.is_sized(), "alignment of the unsized type {}", self.print());
        // SAFETY: as in `alloc_size`.
        unsafe { LLVMABIAlignmentOfType(td.as_mut_ptr(), self.raw()) as u64 }
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
        let aspace = self.ptr_address_space();
        // SAFETY: `td` is live; any address space may be asked (the
        // default pointer size answers for those the layout does not name).
        unsafe { LLVMPointerSizeForAS(td.as_mut_ptr(), aspace) }
    }
}
