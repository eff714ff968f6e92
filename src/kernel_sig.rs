//! Kernel signatures read from a module: which functions are kernels (the
//! `spir_kernel` or `ptx_kernel` calling convention, `kernel_model::is_kernel`)
//! and what kind of value each parameter takes, so `--arg` lists can be
//! checked before anything is compiled or allocated.
//!
//! A pointer in addrspace(3) is a `__local` pointer; any other pointer is a
//! global buffer (OpenCL's global and constant, CUDA's generic); `iN` is an
//! integer of N bits, `float`/`double` a float, a `byval` pointer a struct
//! passed by value. Anything else (vectors, `half`, `byref`) is reported as
//! unsupported.

use crate::diag::ToolError;
use crate::input::ModuleInput;
use crate::launch::{ArgSpec, LaunchBounds};
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::values::{AsValueRef, FunctionValue};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMTypeKind;
use std::ffi::{CStr, CString};
use std::path::Path;

/// The address space of OpenCL `__local` / CUDA `__shared__` memory.
pub const LOCAL_ADDRSPACE: u32 = 3;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A pointer to global (or constant) memory.
    Buffer {
        addrspace: u32,
    },
    /// A `__local` pointer.
    Local,
    Int {
        bits: u32,
    },
    Float {
        bits: u32,
    },
    /// A struct (or any type) passed by value (`byval`): a pointer to this
    /// many bytes, the kernel's own copy.
    Struct {
        bytes: u64,
    },
    /// A parameter `simt-run` cannot pass.
    Unsupported,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub index: usize,
    pub kind: ParamKind,
    /// The IR type, e.g. `ptr addrspace(1)`.
    pub ir_type: String,
    /// The parameter's name: the IR value's, or OpenCL's `kernel_arg_name`.
    pub name: Option<String>,
    /// OpenCL's `kernel_arg_type` (`float*`, `uint`), when the module has it.
    pub source_type: Option<String>,
}

impl Param {
    /// `parameter 2 'out' (float*, ptr addrspace(1))`.
    pub fn describe(&self) -> String {
        let name = self.name.as_ref().map(|n| format!(" '{n}'")).unwrap_or_default();
        let ty = match &self.source_type {
            Some(s) => format!("{s}, {}", self.ir_type),
            None => self.ir_type.clone(),
        };
        format!("parameter {}{name} ({ty})", self.index)
    }

    /// What the parameter is, and the `--arg` form it takes.
    pub fn expects(&self) -> String {
        match &self.kind {
            ParamKind::Buffer { addrspace } => {
                format!("a global pointer (addrspace {addrspace}): pass buf:TYPE:COUNT[=FILL]")
            }
            ParamKind::Local => "a __local pointer: pass local:TYPE:COUNT".into(),
            ParamKind::Int { bits } => format!("a {bits}-bit integer: pass i{bits}:VALUE or u{bits}:VALUE"),
            ParamKind::Float { bits } => format!("a {bits}-bit float: pass f{bits}:VALUE"),
            ParamKind::Struct { bytes } => {
                format!("a struct of {bytes} bytes passed by value: pass struct:TYPE:VALUE,TYPE:VALUE… (its fields in order)")
            }
            ParamKind::Unsupported => "of a type simt-run cannot pass".into(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelSig {
    pub name: String,
    pub params: Vec<Param>,
    /// What the kernel declares about its launches (`crate::launch::grid`).
    pub bounds: LaunchBounds,
}

/// The kernels of `module`, in module order.
pub fn kernels(module: &Module<'_>) -> Vec<KernelSig> {
    simt_passes::ir::defined_functions(module).into_iter().filter(|f| simt_passes::kernel_model::is_kernel(*f)).map(signature).collect()
}

/// Reads the module at `path` (text or bitcode) and returns its kernels.
pub fn read_kernels(path: &Path) -> Result<Vec<KernelSig>, ToolError> {
    kernels_in(&ModuleInput::read(path)?)
}

/// The kernels of a module already read.
pub fn kernels_in(input: &ModuleInput) -> Result<Vec<KernelSig>, ToolError> {
    let ctx = Context::create();
    let module = input.parse(&ctx)?;
    Ok(kernels(&module))
}

/// Picks the kernel named `wanted` (or, for `None`, the module's only
/// kernel). A name that is not found exactly also matches a unique C++
/// kernel whose mangled name is `_Z<len><wanted>…` (`saxpy` finds
/// `_Z5saxpyifPKfPf`), or `_ZL<len><wanted>…` for a `static __global__`
/// one (internal linkage: `prescan` finds `_ZL7prescanPfS_i`). Errors list
/// the kernels.
pub fn select_kernel(kernels: Vec<KernelSig>, wanted: Option<&str>, module: &Path) -> Result<KernelSig, ToolError> {
    let names = || kernels.iter().map(|k| k.name.as_str()).collect::<Vec<_>>().join(", ");
    if kernels.is_empty() {
        return Err(ToolError::Run(format!(
            "{} has no kernels (functions with the spir_kernel or ptx_kernel calling convention)",
            module.display()
        )));
    }
    let Some(wanted) = wanted else {
        if kernels.len() == 1 {
            return Ok(kernels.into_iter().next().unwrap());
        }
        return Err(ToolError::Usage(format!(
            "error: {} has {} kernels; choose one with --kernel: {}",
            module.display(),
            kernels.len(),
            names()
        )));
    };
    if let Some(k) = kernels.iter().find(|k| k.name == wanted) {
        return Ok(k.clone());
    }
    let prefixes = [format!("_Z{}{wanted}", wanted.len()), format!("_ZL{}{wanted}", wanted.len())];
    let mangled: Vec<&KernelSig> = kernels.iter().filter(|k| prefixes.iter().any(|p| k.name.starts_with(p.as_str()))).collect();
    match mangled.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(ToolError::Run(format!("no kernel '{wanted}' in {}; kernels: {}", module.display(), names()))),
        many => Err(ToolError::Run(format!(
            "kernel name '{wanted}' is ambiguous in {}: {}",
            module.display(),
            many.iter().map(|k| k.name.as_str()).collect::<Vec<_>>().join(", ")
        ))),
    }
}

/// Checks `args` against the kernel's parameters: the count, and each
/// argument's kind and type.
pub fn check_args(sig: &KernelSig, args: &[ArgSpec]) -> Result<(), ToolError> {
    let err = |msg: String| ToolError::Run(format!("kernel '{}': {msg}", sig.name));
    if let Some(p) = sig.params.iter().find(|p| p.kind == ParamKind::Unsupported) {
        return Err(err(format!(
            "{} has a type simt-run cannot pass (it passes pointers, i8/i16/i32/i64, float and double)",
            p.describe()
        )));
    }
    if args.len() != sig.params.len() {
        let mut msg = format!(
            "takes {} parameter{} but {} argument{} given (--arg, in parameter order)",
            sig.params.len(),
            if sig.params.len() == 1 { "" } else { "s" },
            args.len(),
            if args.len() == 1 { " was" } else { "s were" },
        );
        for p in &sig.params {
            msg.push_str(&format!("\n  {} is {}", p.describe(), p.expects()));
        }
        return Err(err(msg));
    }
    for (p, a) in sig.params.iter().zip(args) {
        let fits = match (&p.kind, a) {
            (ParamKind::Buffer { .. }, ArgSpec::Buffer { .. }) => true,
            (ParamKind::Local, ArgSpec::Local { .. }) => true,
            (ParamKind::Int { bits }, ArgSpec::Scalar(s)) => !s.ty.is_float() && s.ty.bits() == *bits,
            (ParamKind::Float { bits }, ArgSpec::Scalar(s)) => s.ty.is_float() && s.ty.bits() == *bits,
            (ParamKind::Struct { bytes }, ArgSpec::Struct(fields)) => {
                let given = crate::launch::struct_bytes(fields).len() as u64;
                if given != *bytes {
                    return Err(err(format!("argument {} ({a}) lays out {given} bytes, but {} is {}", p.index, p.describe(), p.expects())));
                }
                true
            }
            _ => false,
        };
        if !fits {
            let what = match a {
                // "a u32", "an i32", "an f32".
                ArgSpec::Scalar(s) if !s.ty.is_float() && !s.ty.is_signed() => format!("a {} scalar", s.ty),
                ArgSpec::Scalar(s) => format!("an {} scalar", s.ty),
                other => format!("a {}", other.kind_name()),
            };
            return Err(err(format!("argument {} ({a}) is {what}, but {} is {}", p.index, p.describe(), p.expects())));
        }
    }
    Ok(())
}

fn signature(f: FunctionValue<'_>) -> KernelSig {
    let fv = f.as_value_ref();
    // SAFETY: `fv` is the live function `f` borrows.
    let (source_types, source_names, addr_spaces) =
        unsafe { (string_list_metadata(fv, "kernel_arg_type"), string_list_metadata(fv, "kernel_arg_name"), addr_space_metadata(fv)) };
    let params = (0..f.count_params())
        // SAFETY: `fv` is a live function and `i` is below its parameter
        // count, so `p` is a live parameter and `ty` its type; the
        // type-specific queries (address space, integer width) are asked
        // only of types of the kind just matched.
        .map(|i| unsafe {
            let p = LLVMGetParam(fv, i);
            let ty = LLVMTypeOf(p);
            let ir_type = type_string(ty);
            let idx = i as usize;
            let kind = match LLVMGetTypeKind(ty) {
                LLVMTypeKind::LLVMPointerTypeKind => {
                    if let Some(bytes) = byval_bytes(fv, i) {
                        ParamKind::Struct { bytes }
                    } else if has_param_attr(fv, i, "byval") || has_param_attr(fv, i, "byref") {
                        ParamKind::Unsupported
                    } else {
                        match LLVMGetPointerAddressSpace(ty) {
                            LOCAL_ADDRSPACE => ParamKind::Local,
                            a => ParamKind::Buffer { addrspace: a },
                        }
                    }
                }
                // simt-to-nvptx turns a `__local` pointer parameter into an
                // i32 offset into dynamic shared memory and keeps OpenCL's
                // metadata, which still says addrspace 3: launched like one.
                LLVMTypeKind::LLVMIntegerTypeKind
                    if LLVMGetIntTypeWidth(ty) == 32
                        && addr_spaces.as_ref().and_then(|a| a.get(idx).copied().flatten()) == Some(LOCAL_ADDRSPACE as u64) =>
                {
                    ParamKind::Local
                }
                LLVMTypeKind::LLVMIntegerTypeKind => match LLVMGetIntTypeWidth(ty) {
                    b @ (8 | 16 | 32 | 64) => ParamKind::Int { bits: b },
                    _ => ParamKind::Unsupported,
                },
                LLVMTypeKind::LLVMFloatTypeKind => ParamKind::Float { bits: 32 },
                LLVMTypeKind::LLVMDoubleTypeKind => ParamKind::Float { bits: 64 },
                _ => ParamKind::Unsupported,
            };
            let name = value_name(p)
                .filter(|n| !n.is_empty())
                .or_else(|| source_names.as_ref().and_then(|n| n.get(idx).cloned()).filter(|n| !n.is_empty()));
            let source_type = source_types.as_ref().and_then(|t| t.get(idx).cloned()).filter(|t| !t.is_empty());
            Param { index: idx, kind, ir_type, name, source_type }
        })
        .collect();
    // SAFETY: `fv` is the live function `f` borrows.
    let bounds = unsafe { launch_bounds(fv) };
    // SAFETY: as above.
    KernelSig { name: unsafe { value_name(fv) }.unwrap_or_default(), params, bounds }
}

/// `!reqd_work_group_size !{i32 X, i32 Y, i32 Z}`, `"nvvm.maxntid"="X[,Y,Z]"`
/// and `"uniform-work-group-size"="true"`, as clang emits them; a CUDA
/// kernel (`ptx_kernel`) takes uniform work-groups whatever it says.
///
/// # Safety
/// `f` is a live function.
unsafe fn launch_bounds(f: LLVMValueRef) -> LaunchBounds {
    // SAFETY: `f` is live (the caller's promise); operands are read as
    // integers only once known to be `ConstantInt`s.
    let reqd_local = unsafe { metadata_operands(f, "reqd_work_group_size") }.and_then(|ops| {
        let v: Option<Vec<u64>> = ops
            .into_iter()
            // SAFETY: as above.
            .map(|op| unsafe { (!op.is_null() && !LLVMIsAConstantInt(op).is_null()).then(|| LLVMConstIntGetZExtValue(op)) })
            .collect();
        v.filter(|v| v.len() == 3 && v.iter().all(|&x| x > 0)).map(|v| [v[0], v[1], v[2]])
    });
    // SAFETY: `f` is live (the caller's promise).
    let max_items = unsafe { string_attr(f, "nvvm.maxntid") }
        .and_then(|t| t.split(',').map(|x| x.trim().parse::<u64>().ok()).product::<Option<u64>>())
        .filter(|&n| n > 0);
    // SAFETY: as above.
    let cuda = unsafe { LLVMGetFunctionCallConv(f) } == llvm_sys::LLVMCallConv::LLVMPTXKernelCallConv as u32;
    // SAFETY: as above.
    let uniform_only = cuda || unsafe { string_attr(f, "uniform-work-group-size") }.as_deref() == Some("true");
    LaunchBounds { reqd_local, max_items, uniform_only }
}

/// The value of the function's string attribute `name`, if it has one.
///
/// # Safety
/// `f` is a live function.
unsafe fn string_attr(f: LLVMValueRef, name: &str) -> Option<String> {
    // SAFETY: the name is passed with its length; `f` is live (the
    // caller's promise); the attribute's value is `len` bytes it owns,
    // copied at once.
    unsafe {
        let a = LLVMGetStringAttributeAtIndex(f, llvm_sys::LLVMAttributeFunctionIndex, name.as_ptr().cast(), name.len() as u32);
        if a.is_null() {
            return None;
        }
        let mut len = 0u32;
        let v = LLVMGetStringAttributeValue(a, &mut len);
        (!v.is_null()).then(|| String::from_utf8_lossy(std::slice::from_raw_parts(v.cast::<u8>(), len as usize)).into_owned())
    }
}

/// LLVM's spelling of a type.
///
/// # Safety
/// `ty` is a live type.
unsafe fn type_string(ty: LLVMTypeRef) -> String {
    // SAFETY: `ty` is live (the caller's promise); LLVM returns a fresh
    // NUL-terminated message, copied before it is disposed of, once.
    unsafe {
        let p = LLVMPrintTypeToString(ty);
        let s = CStr::from_ptr(p).to_string_lossy().into_owned();
        LLVMDisposeMessage(p);
        s
    }
}

/// A value's name, `None` when it has none.
///
/// # Safety
/// `v` is a live value.
unsafe fn value_name(v: LLVMValueRef) -> Option<String> {
    let mut len = 0usize;
    // SAFETY: `v` is live (the caller's promise).
    let p = unsafe { LLVMGetValueName2(v, &mut len) };
    if p.is_null() || len == 0 {
        return None;
    }
    // SAFETY: LLVM returned a non-null pointer to the name's `len` bytes,
    // owned by `v` and unchanged during this call; copied at once.
    Some(String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(p.cast::<u8>(), len) }).into_owned())
}

/// The size of the type parameter `index` of `f` is passed `byval` as, if
/// it is, by the module's data layout.
///
/// # Safety
/// `f` is a live function and `index` below its parameter count.
unsafe fn byval_bytes(f: LLVMValueRef, index: u32) -> Option<u64> {
    // SAFETY: as for `has_param_attr`; the attribute's type is live in the
    // module's context, and the module's data layout is read while it lives.
    unsafe {
        let name = "byval";
        let kind = LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len());
        let attr = LLVMGetEnumAttributeAtIndex(f, index + 1, kind);
        if kind == 0 || attr.is_null() {
            return None;
        }
        let ty = LLVMGetTypeAttributeValue(attr);
        let layout = llvm_sys::target::LLVMGetModuleDataLayout(LLVMGetGlobalParent(f));
        (!ty.is_null() && LLVMTypeIsSized(ty) != 0).then(|| llvm_sys::target::LLVMABISizeOfType(layout, ty))
    }
}

/// Whether parameter `index` of `f` carries the enum attribute `name`.
///
/// # Safety
/// `f` is a live function and `index` below its parameter count.
unsafe fn has_param_attr(f: LLVMValueRef, index: u32, name: &str) -> bool {
    // SAFETY: the name is passed with its length (no NUL needed); `f` and
    // `index` are valid by the caller's promise, and the attribute is looked
    // up only for a known kind (non-zero).
    unsafe {
        let kind = LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len());
        // Attribute index 0 is the return value; parameters start at 1.
        kind != 0 && !LLVMGetEnumAttributeAtIndex(f, index + 1, kind).is_null()
    }
}

/// The strings of the function's `!name !{!"a", !"b", …}` metadata.
///
/// # Safety
/// `f` is a live function.
unsafe fn string_list_metadata(f: LLVMValueRef, name: &str) -> Option<Vec<String>> {
    // SAFETY: `f` is live (the caller's promise).
    let ops = unsafe { metadata_operands(f, name) }?;
    Some(
        ops.into_iter()
            // SAFETY: each non-null `op` is a live operand of `f`'s metadata
            // node; `LLVMGetMDString` returns null for one that is not a
            // string, else a pointer to `len` bytes owned by the string,
            // copied at once.
            .map(|op| unsafe {
                if op.is_null() {
                    return String::new();
                }
                let mut len = 0u32;
                let s = LLVMGetMDString(op, &mut len);
                if s.is_null() {
                    String::new()
                } else {
                    String::from_utf8_lossy(std::slice::from_raw_parts(s.cast::<u8>(), len as usize)).into_owned()
                }
            })
            .collect(),
    )
}

/// `!kernel_arg_addr_space`: each parameter's OpenCL address space.
///
/// # Safety
/// `f` is a live function.
unsafe fn addr_space_metadata(f: LLVMValueRef) -> Option<Vec<Option<u64>>> {
    // SAFETY: `f` is live (the caller's promise).
    let ops = unsafe { metadata_operands(f, "kernel_arg_addr_space") }?;
    Some(
        ops.into_iter()
            // SAFETY: each non-null `op` is a live operand value; its integer
            // value is read only once it is known to be a `ConstantInt`.
            .map(|op| unsafe { (!op.is_null() && !LLVMIsAConstantInt(op).is_null()).then(|| LLVMConstIntGetZExtValue(op)) })
            .collect(),
    )
}

/// The operands of function metadata `!name` (a list node), as values.
///
/// # Safety
/// `f` is a live function.
unsafe fn metadata_operands(f: LLVMValueRef, name: &str) -> Option<Vec<LLVMValueRef>> {
    // SAFETY: `f` is live (the caller's promise), so its module and context
    // are; the entries array is LLVM's copy of `count` entries, indexed below
    // `count` and disposed of once on every path after it is made; the
    // operand array is sized by the node's own operand count before LLVM
    // fills it.
    unsafe {
        let module = LLVMGetGlobalParent(f);
        let ctx = LLVMGetModuleContext(module);
        let c_name = CString::new(name).ok()?;
        let kind = LLVMGetMDKindIDInContext(ctx, c_name.as_ptr(), name.len() as u32);
        let mut count = 0usize;
        let entries = LLVMGlobalCopyAllMetadata(f, &mut count);
        if entries.is_null() {
            return None;
        }
        let mut found = None;
        for i in 0..count as u32 {
            if LLVMValueMetadataEntriesGetKind(entries, i) == kind {
                let md = LLVMValueMetadataEntriesGetMetadata(entries, i);
                let node = LLVMMetadataAsValue(ctx, md);
                let n = LLVMGetMDNodeNumOperands(node) as usize;
                let mut ops: Vec<LLVMValueRef> = vec![std::ptr::null_mut(); n];
                LLVMGetMDNodeOperands(node, ops.as_mut_ptr());
                found = Some(ops);
                break;
            }
        }
        LLVMDisposeValueMetadataEntries(entries);
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPENCL: &str = r#"
target triple = "spir64"
define spir_kernel void @k(ptr addrspace(1) %out, ptr addrspace(3) %tmp, i32 %n, float %a, double %b, i64 %m, ptr addrspace(2) %c, i8 %flag, i16 %s) !kernel_arg_type !0 {
  ret void
}
define spir_func void @helper(ptr %p) {
  ret void
}
define spir_kernel void @bad(<2 x float> %v) {
  ret void
}
define spir_kernel void @_Z5saxpyifPKfPf(i32 %0, float %1, ptr %2, ptr %3) {
  ret void
}
define spir_kernel void @empty() {
  ret void
}
!0 = !{!"float*", !"float*", !"int", !"float", !"double", !"long", !"float*", !"char", !"short"}
"#;

    fn sigs(text: &str) -> Vec<KernelSig> {
        let ctx = Context::create();
        let m = simt_passes::ir::parse_ir(&ctx, "t.ll", text.as_bytes()).unwrap();
        kernels(&m)
    }

    fn specs(texts: &[&str]) -> Vec<ArgSpec> {
        texts.iter().map(|t| ArgSpec::parse(t, None).unwrap()).collect()
    }

    #[test]
    fn reads_kinds_names_and_source_types() {
        let ks = sigs(OPENCL);
        assert_eq!(ks.iter().map(|k| k.name.as_str()).collect::<Vec<_>>(), vec!["k", "bad", "_Z5saxpyifPKfPf", "empty"]);
        let k = &ks[0];
        let kinds: Vec<ParamKind> = k.params.iter().map(|p| p.kind.clone()).collect();
        assert_eq!(
            kinds,
            vec![
                ParamKind::Buffer { addrspace: 1 },
                ParamKind::Local,
                ParamKind::Int { bits: 32 },
                ParamKind::Float { bits: 32 },
                ParamKind::Float { bits: 64 },
                ParamKind::Int { bits: 64 },
                ParamKind::Buffer { addrspace: 2 },
                ParamKind::Int { bits: 8 },
                ParamKind::Int { bits: 16 },
            ]
        );
        assert_eq!(k.params[0].name.as_deref(), Some("out"));
        assert_eq!(k.params[0].source_type.as_deref(), Some("float*"));
        assert_eq!(k.params[1].describe(), "parameter 1 'tmp' (float*, ptr addrspace(3))");
        assert_eq!(ks[1].params[0].kind, ParamKind::Unsupported);
        assert_eq!(ks[2].params[2].kind, ParamKind::Buffer { addrspace: 0 });
        assert_eq!(ks[2].params[2].describe(), "parameter 2 (ptr)");
        assert!(ks[3].params.is_empty());
    }

    #[test]
    fn cuda_kernels_and_byval() {
        let ks = sigs(
            r#"
target triple = "nvptx64-nvidia-cuda"
%struct.S = type { i32, float }
define ptx_kernel void @_Z1fPf(ptr %p) {
  ret void
}
define ptx_kernel void @g(ptr byval(%struct.S) %s) {
  ret void
}
define void @not_a_kernel() {
  ret void
}
"#,
        );
        assert_eq!(ks.len(), 2);
        assert_eq!(ks[0].params[0].kind, ParamKind::Buffer { addrspace: 0 });
        assert_eq!(ks[1].params[0].kind, ParamKind::Struct { bytes: 8 });
        let e = check_args(&ks[1], &specs(&["buf:u8:8"])).unwrap_err().to_string();
        assert!(e.contains("argument 0 (buf:u8:8) is a global buffer, but parameter 0 's' (ptr) is a struct of 8 bytes"), "{e}");
        check_args(&ks[1], &specs(&["struct:i32:1,f32:2"])).unwrap();
        let e = check_args(&ks[1], &specs(&["struct:i32:1,f64:2"])).unwrap_err().to_string();
        assert!(e.contains("argument 0 (struct:i32:1,f64:2.0) lays out 16 bytes, but parameter 0 's' (ptr) is a struct of 8 bytes"), "{e}");
    }

    #[test]
    fn local_offsets_after_simt_to_nvptx() {
        // A `__local` pointer that simt-to-nvptx made an i32 offset: OpenCL's
        // !kernel_arg_addr_space (kept) still says 3; a plain i32 stays one.
        let ks = sigs(
            r#"
target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @k(ptr addrspace(1) %out, i32 %tmp, i32 %n) !kernel_arg_addr_space !0 {
  ret void
}
!0 = !{i32 1, i32 3, i32 0}
"#,
        );
        assert_eq!(ks[0].params[1].kind, ParamKind::Local);
        assert_eq!(ks[0].params[2].kind, ParamKind::Int { bits: 32 });
    }

    #[test]
    fn selecting_kernels() {
        let m = Path::new("t.ll");
        assert_eq!(select_kernel(sigs(OPENCL), Some("k"), m).unwrap().name, "k");
        assert_eq!(select_kernel(sigs(OPENCL), Some("saxpy"), m).unwrap().name, "_Z5saxpyifPKfPf");
        assert_eq!(select_kernel(sigs(OPENCL), Some("_Z5saxpyifPKfPf"), m).unwrap().name, "_Z5saxpyifPKfPf");
        let e = select_kernel(sigs(OPENCL), Some("nope"), m).unwrap_err();
        assert_eq!(e.to_string(), "error: no kernel 'nope' in t.ll; kernels: k, bad, _Z5saxpyifPKfPf, empty");
        assert_eq!(e.exit_code(), 1);
        let e = select_kernel(sigs(OPENCL), None, m).unwrap_err();
        assert!(e.to_string().contains("t.ll has 4 kernels; choose one with --kernel: k, bad"), "{e}");
        assert_eq!(e.exit_code(), 2);
        let one = sigs("define spir_kernel void @only() {\n ret void\n}\n");
        assert_eq!(select_kernel(one, None, m).unwrap().name, "only");
        let e = select_kernel(sigs("define void @f() {\n ret void\n}\n"), Some("f"), m).unwrap_err();
        assert!(e.to_string().contains("t.ll has no kernels"), "{e}");
    }

    #[test]
    fn static_cuda_kernels_by_plain_name() {
        let m = Path::new("t.ll");
        let ir = "define internal ptx_kernel void @_ZL7prescanPf(ptr %p) {\n ret void\n}\n\
                  define ptx_kernel void @_Z4scanPf(ptr %p) {\n ret void\n}\n";
        assert_eq!(select_kernel(sigs(ir), Some("prescan"), m).unwrap().name, "_ZL7prescanPf");
        assert_eq!(select_kernel(sigs(ir), Some("scan"), m).unwrap().name, "_Z4scanPf");
        // `_ZL4scan…` and `_Z4scan…` both match `scan`: ambiguous, not a guess.
        let both = format!("{ir}define internal ptx_kernel void @_ZL4scanPi(ptr %p) {{\n ret void\n}}\n");
        let e = select_kernel(sigs(&both), Some("scan"), m).unwrap_err();
        assert!(e.to_string().contains("ambiguous"), "{e}");
    }

    #[test]
    fn matching_arguments() {
        let k = &sigs(OPENCL)[0];
        let good = specs(&["buf:f32:16", "local:f32:16", "u32:7", "f32:1.5", "f64:2", "i64:-1", "buf:u8:3=ramp", "i8:1", "u16:2"]);
        check_args(k, &good).unwrap();
        check_args(&sigs(OPENCL)[3], &[]).unwrap();

        let bad = |i: usize, text: &str| {
            let mut a = good.clone();
            a[i] = ArgSpec::parse(text, None).unwrap();
            check_args(k, &a).unwrap_err().to_string()
        };
        assert_eq!(
            bad(0, "i32:1"),
            "error: kernel 'k': argument 0 (i32:1) is an i32 scalar, but parameter 0 'out' (float*, ptr addrspace(1)) is a global pointer (addrspace 1): pass buf:TYPE:COUNT[=FILL]"
        );
        assert!(bad(0, "local:f32:4").contains("argument 0 (local:f32:4) is a __local buffer, but parameter 0 'out'"));
        assert!(bad(1, "buf:f32:4").contains(
            "argument 1 (buf:f32:4) is a global buffer, but parameter 1 'tmp' (float*, ptr addrspace(3)) is a __local pointer: pass local:TYPE:COUNT"
        ));
        assert!(bad(2, "f32:1").contains(
            "argument 2 (f32:1.0) is an f32 scalar, but parameter 2 'n' (int, i32) is a 32-bit integer: pass i32:VALUE or u32:VALUE"
        ));
        assert!(bad(2, "i64:1").contains("argument 2 (i64:1) is an i64 scalar, but parameter 2 'n'"));
        assert!(bad(2, "buf:i32:1").contains("argument 2 (buf:i32:1) is a global buffer, but parameter 2 'n'"));
        assert!(bad(3, "i32:1")
            .contains("argument 3 (i32:1) is an i32 scalar, but parameter 3 'a' (float, float) is a 32-bit float: pass f32:VALUE"));
        assert!(bad(4, "f32:1").contains("is a 64-bit float: pass f64:VALUE"));
        assert!(bad(7, "u16:1").contains("argument 7 (u16:1) is a u16 scalar"));

        let e = check_args(k, &good[..2]).unwrap_err().to_string();
        assert!(e.starts_with("error: kernel 'k': takes 9 parameters but 2 arguments were given"), "{e}");
        assert!(e.contains("\n  parameter 3 'a' (float, float) is a 32-bit float: pass f32:VALUE"), "{e}");
        let e = check_args(&sigs(OPENCL)[3], &good[..1]).unwrap_err().to_string();
        assert!(e.contains("takes 0 parameters but 1 argument was given"), "{e}");
        let e = check_args(&sigs(OPENCL)[1], &specs(&["f32:1"])).unwrap_err().to_string();
        assert!(e.contains("parameter 0 'v' (<2 x float>) has a type simt-run cannot pass"), "{e}");
    }

    #[test]
    fn shipped_examples() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("test-ir/examples");
        let reduce = read_kernels(&root.join("reduce.ll")).unwrap();
        assert_eq!(reduce.len(), 1);
        let r = &reduce[0];
        assert_eq!(r.name, "reduce_sum");
        assert_eq!(
            r.params.iter().map(|p| p.kind.clone()).collect::<Vec<_>>(),
            vec![ParamKind::Buffer { addrspace: 1 }, ParamKind::Buffer { addrspace: 1 }, ParamKind::Local]
        );
        let saxpy = select_kernel(read_kernels(&root.join("saxpy.ll")).unwrap(), Some("saxpy"), &root).unwrap();
        check_args(&saxpy, &specs(&["i32:1024", "f32:2", "buf:f32:1024=ramp", "buf:f32:1024"])).unwrap();
        match read_kernels(Path::new("/nonexistent.ll")) {
            Err(ToolError::Io { path, .. }) => assert_eq!(path, "/nonexistent.ll"),
            other => panic!("{other:?}"),
        }
    }
}
