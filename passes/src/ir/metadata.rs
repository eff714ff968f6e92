//! Named metadata and debug locations.

use super::value::{Inst, Value};
use inkwell::module::Module;
use inkwell::values::{AsValueRef, FunctionValue};
use llvm_sys::core::*;
use llvm_sys::prelude::*;

/// One operand of a metadata tuple.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MdOperand<'ctx> {
    /// A value wrapped as metadata (`ptr @f`, `i32 1`).
    Value(Value<'ctx>),
    /// `!"text"`.
    String(String),
    /// Anything else (nested nodes, null).
    Other,
}

/// The tuples of the module's named metadata `name` (`!nvvm.annotations`), each
/// as its operands.
pub fn named_metadata<'ctx>(module: &Module<'ctx>, name: &str) -> Vec<Vec<MdOperand<'ctx>>> {
    // SAFETY: a live module (inkwell invariant).
    unsafe { tuples(module.as_mut_ptr(), name) }
}

/// The same for the module that holds `f`.
pub fn named_metadata_of<'ctx>(f: FunctionValue<'ctx>, name: &str) -> Vec<Vec<MdOperand<'ctx>>> {
    // SAFETY: `f` is live (inkwell invariant), and so is the module holding it.
    unsafe { tuples(LLVMGetGlobalParent(f.as_value_ref()), name) }
}

/// The operands of the metadata node `!name` attached to `f`
/// (`!kernel_arg_type`, `!reqd_work_group_size`); `None` when `f` has none.
pub fn function_metadata<'ctx>(f: FunctionValue<'ctx>, name: &str) -> Option<Vec<MdOperand<'ctx>>> {
    let c_name = std::ffi::CString::new(name).ok()?;
    let f = f.as_value_ref();
    // SAFETY: `f` is live (inkwell invariant), so its module and context
    // are; the entries array is LLVM's copy of `count` entries, indexed below
    // `count` and disposed of once after it is made; the operand array is
    // sized by the node's own operand count before LLVM fills it, and each
    // operand is an operand of a node of `f`'s context.
    unsafe {
        let ctx = LLVMGetModuleContext(LLVMGetGlobalParent(f));
        let kind = LLVMGetMDKindIDInContext(ctx, c_name.as_ptr(), name.len() as u32);
        let mut count = 0usize;
        let entries = LLVMGlobalCopyAllMetadata(f, &mut count);
        if entries.is_null() {
            return None;
        }
        let mut found = None;
        for i in 0..count as u32 {
            if LLVMValueMetadataEntriesGetKind(entries, i) == kind {
                let node = LLVMMetadataAsValue(ctx, LLVMValueMetadataEntriesGetMetadata(entries, i));
                let mut ops: Vec<LLVMValueRef> = vec![std::ptr::null_mut(); LLVMGetMDNodeNumOperands(node) as usize];
                LLVMGetMDNodeOperands(node, ops.as_mut_ptr());
                found = Some(ops.into_iter().map(|op| md_operand(op)).collect());
                break;
            }
        }
        LLVMDisposeValueMetadataEntries(entries);
        found
    }
}

/// # Safety
/// `m` is a live module whose context lives for `'ctx`.
unsafe fn tuples<'ctx>(m: LLVMModuleRef, name: &str) -> Vec<Vec<MdOperand<'ctx>>> {
    let Ok(c_name) = std::ffi::CString::new(name) else { return Vec::new() };
    // SAFETY: the caller promises `m` is live and its context lives for
    // `'ctx`. The operand arrays are
    // sized by LLVM's own counts before being filled. Each operand is a
    // metadata-as-value handle: nodes are asked for their operands, strings
    // for their bytes (copied at once), and values are kept as handles of the
    // module's context.
    unsafe {
        let n = LLVMGetNamedMetadataNumOperands(m, c_name.as_ptr()) as usize;
        let mut nodes: Vec<LLVMValueRef> = vec![std::ptr::null_mut(); n];
        if n > 0 {
            LLVMGetNamedMetadataOperands(m, c_name.as_ptr(), nodes.as_mut_ptr());
        }
        nodes
            .into_iter()
            .map(|node| {
                let k = LLVMGetMDNodeNumOperands(node) as usize;
                let mut fields: Vec<LLVMValueRef> = vec![std::ptr::null_mut(); k];
                if k > 0 {
                    LLVMGetMDNodeOperands(node, fields.as_mut_ptr());
                }
                fields.into_iter().map(|f| md_operand(f)).collect()
            })
            .collect()
    }
}

/// # Safety
/// `f` is null or a live operand of a metadata node of a context that lives
/// for `'ctx`.
unsafe fn md_operand<'ctx>(f: LLVMValueRef) -> MdOperand<'ctx> {
    if f.is_null() {
        return MdOperand::Other;
    }
    // SAFETY: `f` is non-null (checked) and, as the caller promises, a live
    // metadata operand, so it may be asked what it is.
    if !unsafe { LLVMIsAMDString(f) }.is_null() {
        let mut len = 0u32;
        // SAFETY: `f` is a live MDString (checked just above).
        let p = unsafe { LLVMGetMDString(f, &mut len) };
        return if p.is_null() {
            MdOperand::Other
        } else {
            // SAFETY: LLVM returned a non-null pointer to the string's `len`
            // bytes, owned by the metadata (alive with `f`); they are copied
            // into a `String` before this returns.
            let bytes = unsafe { std::slice::from_raw_parts(p.cast::<u8>(), len as usize) };
            MdOperand::String(String::from_utf8_lossy(bytes).into_owned())
        };
    }
    // SAFETY: as above, `f` is a live, non-null metadata operand.
    if !unsafe { LLVMIsAMDNode(f) }.is_null() {
        return MdOperand::Other;
    }
    // SAFETY: `f` is neither a string nor a node, so it is a value wrapped as
    // metadata, which LLVM-C hands out as the value itself; it belongs to the
    // module's context, which the caller promises lives for `'ctx`.
    MdOperand::Value(unsafe { Value::from_raw(f) })
}

/// An instruction's debug location: file, line, column.
pub fn debug_location(inst: Inst<'_>) -> Option<(String, u32, u32)> {
    // SAFETY: `inst` is a live instruction; the file name is a buffer of
    // `len` bytes owned by the debug info, copied at once.
    unsafe {
        let line = LLVMGetDebugLocLine(inst.raw());
        if line == 0 {
            return None;
        }
        let mut len = 0u32;
        let p = LLVMGetDebugLocFilename(inst.raw(), &mut len);
        let file = if p.is_null() {
            String::from("?")
        } else {
            String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), len as usize)).into_owned()
        };
        Some((file, line, LLVMGetDebugLocColumn(inst.raw())))
    }
}

/// `inst`'s debug location as the file that defines `function` sees it:
/// the innermost location of its inlining chain in that file, so that code
/// inlined from a header (CUDA's `__shfl_sync` wrapper) is placed at its
/// call in the kernel's source; [`debug_location`]'s when no location of
/// the chain is in that file or `function` has no debug info.
pub fn debug_location_in_own_file(inst: Inst<'_>, function: FunctionValue<'_>) -> Option<(String, u32, u32)> {
    use llvm_sys::debuginfo::*;
    // The file name of a live DIScope (a subprogram or a location's scope).
    let file_of = |scope: LLVMMetadataRef| -> Option<String> {
        if scope.is_null() {
            return None;
        }
        // SAFETY: `scope` is a live, non-null DIScope; its file is null or a
        // live DIFile, whose name is a buffer of `len` bytes owned by the
        // debug info, copied at once.
        unsafe {
            let file = LLVMDIScopeGetFile(scope);
            if file.is_null() {
                return None;
            }
            let mut len = 0u32;
            let p = LLVMDIFileGetFilename(file, &mut len);
            (!p.is_null()).then(|| String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), len as usize)).into_owned())
        }
    };
    // SAFETY: `function` and `inst` are live; LLVM returns null or live
    // metadata (a DISubprogram, DILocations and their scopes), walked only
    // through LLVM's own accessors while the module lives.
    unsafe {
        let own = file_of(LLVMGetSubprogram(function.as_value_ref()));
        let mut loc = LLVMInstructionGetDebugLoc(inst.raw());
        while let (Some(own), false) = (&own, loc.is_null()) {
            if file_of(LLVMDILocationGetScope(loc)).as_ref() == Some(own) {
                return Some((own.clone(), LLVMDILocationGetLine(loc), LLVMDILocationGetColumn(loc)));
            }
            loc = LLVMDILocationGetInlinedAt(loc);
        }
    }
    debug_location(inst)
}
