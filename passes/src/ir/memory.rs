//! What memory analyses ask of the IR beyond operands: constant GEP offsets,
//! store sizes, `noalias` arguments, the memory effects of calls, and a
//! function's data layout.
//!
//! LLVM's C API has no `accumulateConstantOffset`; [`Value::gep_constant_offset`]
//! walks the source element type the same way (struct fields by layout offset,
//! array and vector elements by allocation size).

use super::ty::Ty;
use super::value::{Inst, Value};
use inkwell::targets::TargetData;
use inkwell::values::{AsValueRef, FunctionValue};
use llvm_sys::core::*;
use llvm_sys::LLVMOpcode;

/// What a call may do to memory, from its `memory(...)` attribute (LLVM
/// encodes two bits per location kind: 1 read, 2 write).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallMemory {
    None,
    ReadOnly,
    Any,
}

fn attribute_kind(name: &str) -> u32 {
    // SAFETY: the name is passed with its length; LLVM only reads it.
    unsafe { LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len()) }
}

impl<'ctx> Value<'ctx> {
    fn is_gep(self) -> bool {
        self.opcode() == Some(LLVMOpcode::LLVMGetElementPtr)
    }

    /// The byte offset a GEP (instruction or constant expression) adds to
    /// its base pointer, when every index is a constant.
    pub fn gep_constant_offset(self, td: &TargetData) -> Option<i64> {
        assert!(self.is_gep(), "GEP offset of a non-GEP");
        // SAFETY: `raw` is a live GEP (instruction or constant expression);
        // both are GEP operators, which LLVMGetGEPSourceElementType takes.
        let mut ty = unsafe { Ty::from_raw(LLVMGetGEPSourceElementType(self.raw())) };
        if !ty.is_sized() {
            return None;
        }
        let mut offset: i64 = 0;
        for k in 1..self.num_operands() {
            let idx = self.operand(k);
            // SAFETY: `idx` is live; the value is read from integer constants only.
            let c = unsafe {
                if LLVMIsAConstantInt(idx.raw()).is_null() {
                    return None;
                }
                LLVMConstIntGetSExtValue(idx.raw())
            };
            if k == 1 {
                offset = offset.checked_add(c.checked_mul(ty.alloc_size(td) as i64)?)?;
            } else if ty.is_struct() {
                offset = offset.checked_add(ty.field_offset(td, c as u32) as i64)?;
                ty = ty.struct_field(c as u32);
            } else if ty.is_array() || ty.is_vector() {
                ty = ty.element_type();
                offset = offset.checked_add(c.checked_mul(ty.alloc_size(td) as i64)?)?;
            } else {
                return None;
            }
        }
        Some(offset)
    }

    /// Whether this is a function argument marked `noalias`.
    pub fn is_noalias_argument(self) -> bool {
        if !self.is_argument() {
            return false;
        }
        // SAFETY: `raw` is a live argument; its parent is a live function and
        // parameter indices are below its parameter count.
        unsafe {
            let f = LLVMGetParamParent(self.raw());
            let Some(index) = (0..LLVMCountParams(f)).find(|&i| LLVMGetParam(f, i) == self.raw()) else { return false };
            !LLVMGetEnumAttributeAtIndex(f, index + 1, attribute_kind("noalias")).is_null()
        }
    }
}

impl<'ctx> Inst<'ctx> {
    /// The memory a call may touch, from the call site's and the callee's
    /// attributes (`memory(...)`, and the older `readnone`/`readonly`).
    pub fn call_memory(self) -> CallMemory {
        assert!(self.is_call_site(), "memory effects of a non-call");
        let mut best = CallMemory::Any;
        let mut consider = |raw_attr: llvm_sys::prelude::LLVMAttributeRef, kind: &str| {
            if raw_attr.is_null() {
                return;
            }
            let m = match kind {
                // SAFETY: a live enum attribute.
                "memory" => match unsafe { LLVMGetEnumAttributeValue(raw_attr) } {
                    0 => CallMemory::None,
                    v if v & 0xAAAA_AAAA_AAAA_AAAA == 0 => CallMemory::ReadOnly,
                    _ => CallMemory::Any,
                },
                "readnone" => CallMemory::None,
                _ => CallMemory::ReadOnly,
            };
            if (m as u8) < (best as u8) {
                best = m;
            }
        };
        let fi = llvm_sys::LLVMAttributeFunctionIndex;
        for kind in ["memory", "readnone", "readonly"] {
            // SAFETY: `raw` is a live call site; the function index is valid for any.
            consider(unsafe { LLVMGetCallSiteEnumAttribute(self.raw(), fi, attribute_kind(kind)) }, kind);
            if let Some(f) = self.called_function() {
                // SAFETY: `f` is a live function.
                consider(unsafe { LLVMGetEnumAttributeAtIndex(f.as_value_ref(), fi, attribute_kind(kind)) }, kind);
            }
        }
        best
    }

    /// The number an `alloca` allocates of its type (its array size), when constant.
    pub fn alloca_count(self) -> Option<u64> {
        assert!(self.is_alloca(), "count of a non-alloca");
        self.operand(0).const_u64()
    }
}

/// The data layout of the module that holds `function`.
pub fn data_layout_of(function: FunctionValue<'_>) -> TargetData {
    TargetData::create(&data_layout_string(function))
}

/// The data layout string of the module that holds `function` (what
/// `TargetData` cannot answer: its non-integral address spaces, `ni:`).
pub fn data_layout_string(function: FunctionValue<'_>) -> String {
    // SAFETY: `function` is live (inkwell invariant), so is its module; the
    // layout string is NUL-terminated and owned by the module, copied at once.
    unsafe {
        let m = LLVMGetGlobalParent(function.as_value_ref());
        std::ffi::CStr::from_ptr(LLVMGetDataLayoutStr(m)).to_string_lossy().into_owned()
    }
}
