//! Call sites: what they call, their attributes and operand bundles, and the
//! calls inkwell cannot build. inkwell panics on calls returning `token`
//! (`llvm.experimental.convergence.*`), and cannot rebuild a call with other
//! operand bundles; [`CallBuilder`] does both through the C API.
//!
//! The invariant is the handles' own (see [`value`](super::value)): every
//! handle points to a live value of a context that lives for `'ctx`. What the
//! C API would take without checking and LLVM would then crash on or corrupt
//! (a call whose arguments do not match the callee's type, a name on a void
//! call, a bundle read from a non-call) is asserted here.

use super::value::{Inst, Value};
use inkwell::values::{AsValueRef, FunctionValue};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMOpcode, LLVMTypeKind};
use std::ffi::CString;
use std::marker::PhantomData;

/// Copies an operand bundle's tag.
///
/// # Safety
/// `b` is a live operand bundle returned by `LLVMGetOperandBundleAtIndex`.
unsafe fn bundle_tag(b: LLVMOperandBundleRef) -> String {
    let mut len = 0usize;
    // SAFETY: `b` is live (caller); the tag is `len` bytes owned by the
    // bundle, copied at once.
    unsafe {
        let p = LLVMGetOperandBundleTag(b, &mut len);
        if p.is_null() {
            return String::new();
        }
        String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), len)).into_owned()
    }
}

fn enum_kind(name: &str) -> u32 {
    // SAFETY: the name is passed with its length; LLVM only reads it.
    unsafe { LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len()) }
}

impl<'ctx> Inst<'ctx> {
    pub fn is_call(self) -> bool {
        self.opcode() == LLVMOpcode::LLVMCall
    }

    pub fn is_invoke(self) -> bool {
        self.opcode() == LLVMOpcode::LLVMInvoke
    }

    pub fn is_callbr(self) -> bool {
        self.opcode() == LLVMOpcode::LLVMCallBr
    }

    /// A `call`, `invoke` or `callbr`.
    pub fn is_call_site(self) -> bool {
        self.is_call() || self.is_invoke() || self.is_callbr()
    }

    /// The callee of a call site (a function, or any pointer for indirect calls).
    pub fn called_value(self) -> Option<Value<'ctx>> {
        assert!(self.is_call_site(), "the callee of a non-call");
        // SAFETY: `raw` is a live call site; a non-null callee is a live value
        // of the same context.
        unsafe {
            let c = LLVMGetCalledValue(self.raw());
            (!c.is_null()).then(|| Value::from_raw(c))
        }
    }

    /// The function a call site calls directly, if any.
    pub fn called_function(self) -> Option<FunctionValue<'ctx>> {
        self.called_value().and_then(Value::as_function)
    }

    pub fn num_operand_bundles(self) -> u32 {
        assert!(self.is_call_site(), "operand bundles of a non-call");
        // SAFETY: `raw` is a live call site.
        unsafe { LLVMGetNumOperandBundles(self.raw()) }
    }

    /// The tags of a call site's operand bundles, in order.
    pub fn bundle_tags(self) -> Vec<String> {
        (0..self.num_operand_bundles())
            .map(|i| {
                // SAFETY: `raw` is a live call site and `i` below its bundle
                // count; the bundle copy LLVM returns is disposed of once.
                unsafe {
                    let b = LLVMGetOperandBundleAtIndex(self.raw(), i);
                    let tag = bundle_tag(b);
                    LLVMDisposeOperandBundle(b);
                    tag
                }
            })
            .collect()
    }

    /// Whether a call site carries the function attribute `name` itself
    /// (not counting its callee's).
    pub fn has_call_site_fn_attribute(self, name: &str) -> bool {
        assert!(self.is_call_site(), "call-site attributes of a non-call");
        // SAFETY: `raw` is a live call site; the function index is valid for any.
        unsafe { !LLVMGetCallSiteEnumAttribute(self.raw(), llvm_sys::LLVMAttributeFunctionIndex, enum_kind(name)).is_null() }
    }
}

/// Whether `f` has the enum function attribute `name` (`convergent`).
pub fn has_fn_attribute(f: FunctionValue<'_>, name: &str) -> bool {
    // SAFETY: `f` is a live function (inkwell invariant).
    unsafe { !LLVMGetEnumAttributeAtIndex(f.as_value_ref(), llvm_sys::LLVMAttributeFunctionIndex, enum_kind(name)).is_null() }
}

/// Whether parameter `index` (from 0) of `f` has the enum attribute `name`
/// (`noalias`); false for an index past the last parameter.
pub fn has_param_attribute(f: FunctionValue<'_>, index: u32, name: &str) -> bool {
    if index >= f.count_params() {
        return false;
    }
    // SAFETY: `f` is a live function and `index + 1` one of its parameter
    // attribute indices (checked above).
    unsafe { !LLVMGetEnumAttributeAtIndex(f.as_value_ref(), index + 1, enum_kind(name)).is_null() }
}

/// The value of `f`'s string function attribute `name` (`"nvvm.maxntid"`),
/// if it has one.
pub fn fn_string_attribute(f: FunctionValue<'_>, name: &str) -> Option<String> {
    // SAFETY: the name is passed with its length; `f` is a live function
    // (inkwell invariant); the attribute's value is `len` bytes it owns,
    // copied at once.
    unsafe {
        let a =
            LLVMGetStringAttributeAtIndex(f.as_value_ref(), llvm_sys::LLVMAttributeFunctionIndex, name.as_ptr().cast(), name.len() as u32);
        if a.is_null() {
            return None;
        }
        let mut len = 0u32;
        let v = LLVMGetStringAttributeValue(a, &mut len);
        (!v.is_null()).then(|| String::from_utf8_lossy(std::slice::from_raw_parts(v.cast::<u8>(), len as usize)).into_owned())
    }
}

/// The size, by its module's data layout, of the type parameter `index`
/// (from 0) of `f` is passed `byval` as; `None` when it is not `byval`, the
/// type is unsized, or the index is past the last parameter.
pub fn byval_size(f: FunctionValue<'_>, index: u32) -> Option<u64> {
    if index >= f.count_params() {
        return None;
    }
    let kind = enum_kind("byval");
    // SAFETY: `f` is a live function and `index + 1` one of its parameter
    // attribute indices (checked above); the attribute's type is live in the
    // module's context, and the module's data layout is read while it lives.
    unsafe {
        let fv = f.as_value_ref();
        let attr = LLVMGetEnumAttributeAtIndex(fv, index + 1, kind);
        if kind == 0 || attr.is_null() {
            return None;
        }
        let ty = LLVMGetTypeAttributeValue(attr);
        let layout = llvm_sys::target::LLVMGetModuleDataLayout(LLVMGetGlobalParent(fv));
        (!ty.is_null() && LLVMTypeIsSized(ty) != 0).then(|| llvm_sys::target::LLVMABISizeOfType(layout, ty))
    }
}

/// An operand bundle to attach: its tag and inputs.
pub type Bundle<'a, 'ctx> = (&'a str, &'a [Value<'ctx>]);

/// Makes LLVM operand bundles for `bundles`; the caller disposes of them.
fn create_bundles(bundles: &[Bundle<'_, '_>]) -> Vec<LLVMOperandBundleRef> {
    bundles
        .iter()
        .map(|(tag, inputs)| {
            let mut raw: Vec<LLVMValueRef> = inputs.iter().map(|v| v.raw()).collect();
            // SAFETY: the tag is passed with its length; the inputs are live
            // values (handle invariant), `raw.len()` of them.
            unsafe { LLVMCreateOperandBundle(tag.as_ptr().cast(), tag.len(), raw.as_mut_ptr(), raw.len() as u32) }
        })
        .collect()
}

/// A builder for calls: every call goes where it was positioned last.
pub struct CallBuilder<'ctx> {
    raw: LLVMBuilderRef,
    positioned: bool,
    _ctx: PhantomData<&'ctx ()>,
}

impl<'ctx> CallBuilder<'ctx> {
    /// A builder in the context of `any` (any value of it).
    pub fn new(any: Value<'ctx>) -> CallBuilder<'ctx> {
        // SAFETY: `any` is live, so is its type's context.
        let raw = unsafe { LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(any.raw()))) };
        CallBuilder { raw, positioned: false, _ctx: PhantomData }
    }

    pub fn position_before(&mut self, i: Inst<'ctx>) {
        // SAFETY: `i` is a live instruction, in a block (handles are made of
        // instructions in blocks; erased ones end their handles' life).
        unsafe { LLVMPositionBuilderBefore(self.raw, i.raw()) };
        self.positioned = true;
    }

    /// `call callee(args) [bundles]`, named `name`. The arguments must match
    /// the callee's parameter types; a void call must be unnamed. Calls
    /// returning `token` are fine.
    pub fn call(&mut self, callee: FunctionValue<'ctx>, args: &[Value<'ctx>], bundles: &[Bundle<'_, 'ctx>], name: &str) -> Inst<'ctx> {
        assert!(self.positioned, "an unpositioned builder");
        let f = callee.as_value_ref();
        // SAFETY: `f` is a live function (inkwell invariant); its value type is
        // a function type, asked for its parameters within their count.
        let (fty, params, ret_void) = unsafe {
            let fty = LLVMGlobalGetValueType(f);
            let n = LLVMCountParamTypes(fty) as usize;
            let mut params: Vec<LLVMTypeRef> = vec![std::ptr::null_mut(); n];
            if n > 0 {
                LLVMGetParamTypes(fty, params.as_mut_ptr());
            }
            let vararg = LLVMIsFunctionVarArg(fty) != 0;
            assert!(if vararg { args.len() >= n } else { args.len() == n }, "call with {} arguments to a function taking {n}", args.len());
            (fty, params, LLVMGetTypeKind(LLVMGetReturnType(fty)) == LLVMTypeKind::LLVMVoidTypeKind)
        };
        for (k, (a, &p)) in args.iter().zip(&params).enumerate() {
            assert!(a.ty().raw() == p, "argument {k} of another type than the callee's parameter");
        }
        assert!(!ret_void || name.is_empty(), "a name on a void call");
        let cname = CString::new(name).expect("a name without NUL");
        let mut raw_args: Vec<LLVMValueRef> = args.iter().map(|a| a.raw()).collect();
        let call = if bundles.is_empty() {
            // SAFETY: the builder is positioned in a live block; `fty` is the
            // callee's type and the arguments match it (checked above).
            unsafe { LLVMBuildCall2(self.raw, fty, f, raw_args.as_mut_ptr(), raw_args.len() as u32, cname.as_ptr()) }
        } else {
            let mut raw_bundles = create_bundles(bundles);
            // SAFETY: as above; the bundles are live and disposed of once, after
            // the call has copied them.
            unsafe {
                let call = LLVMBuildCallWithOperandBundles(
                    self.raw,
                    fty,
                    f,
                    raw_args.as_mut_ptr(),
                    raw_args.len() as u32,
                    raw_bundles.as_mut_ptr(),
                    raw_bundles.len() as u32,
                    cname.as_ptr(),
                );
                for b in raw_bundles {
                    LLVMDisposeOperandBundle(b);
                }
                call
            }
        };
        // SAFETY: LLVM just made `call`, an instruction in the builder's block.
        unsafe { Inst::from_raw(call) }
    }

    /// Replaces the call or invoke `call` by one with the same callee,
    /// arguments, attributes, calling convention, tail-call kind, fast-math
    /// flags, metadata, debug location and name, keeping the operand bundles
    /// `keep` accepts and adding `add`. The new instruction goes where `call`
    /// was; `call`'s handles end here, and the builder must be positioned
    /// again before its next call. Returns the new instruction.
    pub fn rebuild_call(&mut self, call: Inst<'ctx>, keep: &dyn Fn(&str) -> bool, add: &[Bundle<'_, 'ctx>]) -> Result<Inst<'ctx>, String> {
        let is_invoke = call.is_invoke();
        if !call.is_call() && !is_invoke {
            return Err("only calls and invokes can have their operand bundles rebuilt".into());
        }
        self.position_before(call);
        let c = call.raw();
        // SAFETY: `c` is a live call or invoke, so every call-site query below
        // is made on a call base; the argument and attribute indices are below
        // LLVM's own counts; bundle copies are disposed of once, after the new
        // call copied them; the name is copied before it is cleared. The new
        // instruction takes `c`'s uses (same type: same callee type) before
        // `c`, then unused, is erased. The builder's insertion point was `c`,
        // so it is marked unpositioned.
        let new = unsafe {
            let fty = LLVMGetCalledFunctionType(c);
            let callee = LLVMGetCalledValue(c);
            let nargs = LLVMGetNumArgOperands(c);
            let mut args: Vec<LLVMValueRef> = (0..nargs).map(|i| LLVMGetOperand(c, i)).collect();
            let mut bundles: Vec<LLVMOperandBundleRef> = Vec::new();
            for i in 0..LLVMGetNumOperandBundles(c) {
                let b = LLVMGetOperandBundleAtIndex(c, i);
                if keep(&bundle_tag(b)) {
                    bundles.push(b);
                } else {
                    LLVMDisposeOperandBundle(b);
                }
            }
            bundles.extend(create_bundles(add));
            let mut len = 0;
            let name_ptr = LLVMGetValueName2(c, &mut len);
            let name = if name_ptr.is_null() {
                CString::default()
            } else {
                CString::new(std::slice::from_raw_parts(name_ptr.cast::<u8>(), len)).unwrap_or_default()
            };
            LLVMSetValueName2(c, c"".as_ptr(), 0);
            let new = if is_invoke {
                LLVMBuildInvokeWithOperandBundles(
                    self.raw,
                    fty,
                    callee,
                    args.as_mut_ptr(),
                    nargs,
                    LLVMGetNormalDest(c),
                    LLVMGetUnwindDest(c),
                    bundles.as_mut_ptr(),
                    bundles.len() as u32,
                    name.as_ptr(),
                )
            } else {
                LLVMBuildCallWithOperandBundles(
                    self.raw,
                    fty,
                    callee,
                    args.as_mut_ptr(),
                    nargs,
                    bundles.as_mut_ptr(),
                    bundles.len() as u32,
                    name.as_ptr(),
                )
            };
            for b in bundles {
                LLVMDisposeOperandBundle(b);
            }
            LLVMSetInstructionCallConv(new, LLVMGetInstructionCallConv(c));
            if !is_invoke {
                LLVMSetTailCallKind(new, LLVMGetTailCallKind(c));
            }
            let mut indices = vec![llvm_sys::LLVMAttributeFunctionIndex, llvm_sys::LLVMAttributeReturnIndex];
            indices.extend(1..=nargs);
            for idx in indices {
                let n = LLVMGetCallSiteAttributeCount(c, idx);
                if n == 0 {
                    continue;
                }
                let mut attrs: Vec<LLVMAttributeRef> = vec![std::ptr::null_mut(); n as usize];
                LLVMGetCallSiteAttributes(c, idx, attrs.as_mut_ptr());
                for a in attrs {
                    LLVMAddCallSiteAttribute(new, idx, a);
                }
            }
            if LLVMCanValueUseFastMathFlags(c) != 0 {
                LLVMSetFastMathFlags(new, LLVMGetFastMathFlags(c));
            }
            let ctx = LLVMGetTypeContext(LLVMTypeOf(c));
            let mut count = 0usize;
            let entries = LLVMInstructionGetAllMetadataOtherThanDebugLoc(c, &mut count);
            for k in 0..count as u32 {
                let kind = LLVMValueMetadataEntriesGetKind(entries, k);
                let md = LLVMValueMetadataEntriesGetMetadata(entries, k);
                LLVMSetMetadata(new, kind, LLVMMetadataAsValue(ctx, md));
            }
            if !entries.is_null() {
                LLVMDisposeValueMetadataEntries(entries);
            }
            let loc = llvm_sys::debuginfo::LLVMInstructionGetDebugLoc(c);
            if !loc.is_null() {
                llvm_sys::debuginfo::LLVMInstructionSetDebugLoc(new, loc);
            }
            if LLVMGetTypeKind(LLVMTypeOf(c)) != LLVMTypeKind::LLVMVoidTypeKind {
                LLVMReplaceAllUsesWith(c, new);
            }
            LLVMInstructionEraseFromParent(c);
            Inst::from_raw(new)
        };
        self.positioned = false;
        Ok(new)
    }
}

impl Drop for CallBuilder<'_> {
    fn drop(&mut self) {
        // SAFETY: `raw` was created by `new` and is disposed of once.
        unsafe { LLVMDisposeBuilder(self.raw) }
    }
}
