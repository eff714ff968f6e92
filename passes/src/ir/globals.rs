//! Module-level values: functions and their declarations (intrinsics
//! included), global variables, and the edits that move a function's
//! contents to a new one (its body, its metadata attachments).
//!
//! inkwell covers linkage and calling conventions of functions safely
//! (`FunctionValue::set_linkage`, `set_call_conventions`); what it lacks or
//! ties to its own typed enums (which reject some LLVM types) is here, on
//! [`Value`] and [`Ty`] handles. The invariant is the handles' own (see
//! [`value`](super::value)); functions deleted or moved from end their
//! handles' life as documented on each operation.

use super::ty::Ty;
use super::value::Value;
use inkwell::module::Module;
use inkwell::values::{AsValueRef, FunctionValue};
use llvm_sys::core::*;
use llvm_sys::LLVMTypeKind;
use std::ffi::CString;
use std::marker::PhantomData;

fn c_name(name: &str) -> CString {
    CString::new(name.replace('\0', "")).expect("NULs removed")
}

/// Gives every definition (function or global variable) except the
/// functions `keep` accepts (and those already local) internal linkage and default visibility (local
/// linkage requires it), so that `globaldce` may delete what those do not
/// reference. Whether any linkage changed.
pub fn internalize_all_but(module: &Module<'_>, keep: impl Fn(FunctionValue<'_>) -> bool) -> bool {
    let internalize = |v| {
        // SAFETY: `v` is a function or global variable of `module`, alive
        // while `module` is; reading and setting linkage and visibility on a
        // definition changes no other object.
        unsafe {
            use llvm_sys::LLVMLinkage::{LLVMInternalLinkage, LLVMPrivateLinkage};
            if LLVMIsDeclaration(v) != 0 || matches!(LLVMGetLinkage(v), LLVMInternalLinkage | LLVMPrivateLinkage) {
                return false;
            }
            LLVMSetLinkage(v, LLVMInternalLinkage);
            LLVMSetVisibility(v, llvm_sys::LLVMVisibility::LLVMDefaultVisibility);
            true
        }
    };
    let mut changed = false;
    for f in module.get_functions() {
        if !keep(f) {
            changed |= internalize(f.as_value_ref());
        }
    }
    for g in module.get_globals() {
        changed |= internalize(g.as_value_ref());
    }
    changed
}

/// The function named `name`, or a new declaration of it with type `fn_ty`.
/// An existing function is returned whatever its type: callers call it
/// through `fn_ty`, as LLVM allows with opaque pointers.
pub fn function_or_declare<'ctx>(module: &Module<'ctx>, name: &str, fn_ty: Ty<'ctx>) -> Value<'ctx> {
    assert_eq!(fn_ty.kind(), LLVMTypeKind::LLVMFunctionTypeKind, "a function declared with a non-function type");
    let c = c_name(name);
    // SAFETY: the module is live and `fn_ty` a live function type of its
    // context ('ctx); LLVM returns a live function or null.
    unsafe {
        let mut f = LLVMGetNamedFunction(module.as_mut_ptr(), c.as_ptr());
        if f.is_null() {
            f = LLVMAddFunction(module.as_mut_ptr(), c.as_ptr(), fn_ty.raw());
        }
        Value::from_raw(f)
    }
}

/// A new function `name` of type `fn_ty`, external, with no body (LLVM
/// renames it if the name is taken).
pub fn add_function<'ctx>(module: &Module<'ctx>, name: &str, fn_ty: Ty<'ctx>) -> FunctionValue<'ctx> {
    assert_eq!(fn_ty.kind(), LLVMTypeKind::LLVMFunctionTypeKind, "a function declared with a non-function type");
    let c = c_name(name);
    // SAFETY: as in `function_or_declare`; the result is a live function.
    unsafe { FunctionValue::new(LLVMAddFunction(module.as_mut_ptr(), c.as_ptr(), fn_ty.raw())) }.expect("LLVM made a function")
}

/// The declaration of the LLVM intrinsic `name` (`llvm.sqrt`) overloaded on
/// `overloads`, with its function type.
pub fn intrinsic_declaration<'ctx>(module: &Module<'ctx>, name: &str, overloads: &[Ty<'ctx>]) -> (Value<'ctx>, Ty<'ctx>) {
    // SAFETY: the name is passed with its length.
    let id = unsafe { LLVMLookupIntrinsicID(name.as_ptr().cast(), name.len()) };
    assert!(id != 0, "'{name}' is not an LLVM intrinsic");
    let mut tys: Vec<_> = overloads.iter().map(|t| t.raw()).collect();
    // SAFETY: `id` is a known intrinsic; the module and the types are live
    // in one context. LLVM checks the overload count against the intrinsic
    // only with assertions, so a wrong count is caught by the verifier.
    unsafe {
        let f = LLVMGetIntrinsicDeclaration(module.as_mut_ptr(), id, tys.as_mut_ptr(), tys.len());
        let fty = LLVMIntrinsicGetType(LLVMGetModuleContext(module.as_mut_ptr()), id, tys.as_mut_ptr(), tys.len());
        (Value::from_raw(f), Ty { raw: fty, _ctx: PhantomData })
    }
}

/// The global variable named `name`, if any.
pub fn named_global<'ctx>(module: &Module<'ctx>, name: &str) -> Option<Value<'ctx>> {
    let c = c_name(name);
    // SAFETY: the module is live; a non-null result is a live global.
    let g = unsafe { LLVMGetNamedGlobal(module.as_mut_ptr(), c.as_ptr()) };
    // SAFETY: as above.
    (!g.is_null()).then(|| unsafe { Value::from_raw(g) })
}

/// A new global variable `name` holding a `ty` in `addrspace`, with no
/// initializer (an external declaration until one is set).
pub fn add_global<'ctx>(module: &Module<'ctx>, name: &str, ty: Ty<'ctx>, addrspace: u32) -> Value<'ctx> {
    assert!(
        !matches!(
            ty.kind(),
            LLVMTypeKind::LLVMVoidTypeKind
                | LLVMTypeKind::LLVMFunctionTypeKind
                | LLVMTypeKind::LLVMLabelTypeKind
                | LLVMTypeKind::LLVMMetadataTypeKind
        ),
        "a global of a type no variable has"
    );
    let c = c_name(name);
    // SAFETY: the module is live, `ty` a live value type of its context.
    unsafe { Value::from_raw(LLVMAddGlobalInAddressSpace(module.as_mut_ptr(), ty.raw(), c.as_ptr(), addrspace)) }
}

impl<'ctx> Value<'ctx> {
    /// Sets a global variable's initializer (a constant of its value type).
    pub fn set_initializer(self, init: Value<'ctx>) {
        assert!(self.is_global_variable(), "an initializer for a non-variable");
        assert!(init.is_constant(), "a non-constant initializer");
        assert_eq!(init.ty(), self.global_value_type(), "an initializer of another type");
        // SAFETY: a live global variable and a constant of its type.
        unsafe { LLVMSetInitializer(self.raw(), init.raw()) }
    }

    /// Marks a global variable as written before the program runs (by the
    /// launcher), so its initializer is not assumed.
    pub fn set_externally_initialized(self, yes: bool) {
        assert!(self.is_global_variable(), "externally_initialized on a non-variable");
        // SAFETY: a live global variable.
        unsafe { LLVMSetExternallyInitialized(self.raw(), yes as i32) }
    }

    /// Sets the alignment of a global (in bytes, a power of two).
    pub fn set_global_alignment(self, bytes: u32) {
        assert!(self.is_global(), "a global alignment on a non-global");
        assert!(bytes.is_power_of_two(), "alignment {bytes} is not a power of two");
        // SAFETY: a live global.
        unsafe { LLVMSetAlignment(self.raw(), bytes) }
    }
}

/// Attaches every metadata attachment of function `from` (`!kernel_arg_*`,
/// `!dbg`, …) to function `to` as well.
pub fn copy_function_metadata(from: FunctionValue<'_>, to: FunctionValue<'_>) {
    // SAFETY: both are live functions; the entries array LLVM hands out
    // holds `count` entries, is read below its count and disposed of once.
    unsafe {
        let mut count = 0usize;
        let entries = LLVMGlobalCopyAllMetadata(from.as_value_ref(), &mut count);
        for e in 0..count as u32 {
            LLVMGlobalSetMetadata(
                to.as_value_ref(),
                LLVMValueMetadataEntriesGetKind(entries, e),
                LLVMValueMetadataEntriesGetMetadata(entries, e),
            );
        }
        if !entries.is_null() {
            LLVMDisposeValueMetadataEntries(entries);
        }
    }
}

/// Moves every block of `from` to the end of `to`, in order. `from` is left
/// a declaration; its parameters' uses still refer to `from`'s parameters,
/// which the caller must replace before `from` is deleted.
pub fn move_blocks(from: FunctionValue<'_>, to: FunctionValue<'_>) {
    assert!(from != to, "moving a function's blocks onto itself");
    // SAFETY: both are live functions; each block is live, detached from
    // `from` and at once appended to `to` (LLVM keeps its instructions).
    unsafe {
        while !LLVMGetFirstBasicBlock(from.as_value_ref()).is_null() {
            let bb = LLVMGetFirstBasicBlock(from.as_value_ref());
            LLVMRemoveBasicBlockFromParent(bb);
            LLVMAppendExistingBasicBlock(to.as_value_ref(), bb);
        }
    }
}
