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
use inkwell::values::FunctionValue;
use simt_passes::ir::{self, LLVMTypeKind, MdOperand};
use simt_passes::kernel_model::{is_ptx_kernel, LOCAL_ADDRESS_SPACE};
use std::path::Path;

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
    ir::defined_functions(module).into_iter().filter(|f| simt_passes::kernel_model::is_kernel(*f)).map(signature).collect()
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
    let source_types = string_list_metadata(f, "kernel_arg_type");
    let source_names = string_list_metadata(f, "kernel_arg_name");
    let addr_spaces = addr_space_metadata(f);
    let params = ir::parameters(f)
        .into_iter()
        .enumerate()
        .map(|(idx, p)| {
            let i = idx as u32;
            let ty = p.ty();
            let kind = match ty.kind() {
                LLVMTypeKind::LLVMPointerTypeKind => {
                    if let Some(bytes) = ir::byval_size(f, i) {
                        ParamKind::Struct { bytes }
                    } else if ir::has_param_attribute(f, i, "byval") || ir::has_param_attribute(f, i, "byref") {
                        ParamKind::Unsupported
                    } else {
                        match ty.address_space().expect("a pointer type") {
                            LOCAL_ADDRESS_SPACE => ParamKind::Local,
                            a => ParamKind::Buffer { addrspace: a },
                        }
                    }
                }
                // simt-to-nvptx turns a `__local` pointer parameter into an
                // i32 offset into dynamic shared memory and keeps OpenCL's
                // metadata, which still says addrspace 3: launched like one.
                LLVMTypeKind::LLVMIntegerTypeKind
                    if ty.int_width() == 32
                        && addr_spaces.as_ref().and_then(|a| a.get(idx).copied().flatten()) == Some(LOCAL_ADDRESS_SPACE as u64) =>
                {
                    ParamKind::Local
                }
                LLVMTypeKind::LLVMIntegerTypeKind => match ty.int_width() {
                    b @ (8 | 16 | 32 | 64) => ParamKind::Int { bits: b },
                    _ => ParamKind::Unsupported,
                },
                LLVMTypeKind::LLVMFloatTypeKind => ParamKind::Float { bits: 32 },
                LLVMTypeKind::LLVMDoubleTypeKind => ParamKind::Float { bits: 64 },
                _ => ParamKind::Unsupported,
            };
            let name = Some(p.name())
                .filter(|n| !n.is_empty())
                .or_else(|| source_names.as_ref().and_then(|n| n.get(idx).cloned()).filter(|n| !n.is_empty()));
            let source_type = source_types.as_ref().and_then(|t| t.get(idx).cloned()).filter(|t| !t.is_empty());
            Param { index: idx, kind, ir_type: ty.print(), name, source_type }
        })
        .collect();
    KernelSig { name: ir::function_name(f), params, bounds: launch_bounds(f) }
}

/// `!reqd_work_group_size !{i32 X, i32 Y, i32 Z}`, `"nvvm.maxntid"="X[,Y,Z]"`
/// and `"uniform-work-group-size"="true"`, as clang emits them; a CUDA
/// kernel (`ptx_kernel`) takes uniform work-groups whatever it says.
fn launch_bounds(f: FunctionValue<'_>) -> LaunchBounds {
    let reqd_local = ir::function_metadata(f, "reqd_work_group_size").and_then(|ops| {
        let v: Option<Vec<u64>> = ops.iter().map(md_integer).collect();
        v.filter(|v| v.len() == 3 && v.iter().all(|&x| x > 0)).map(|v| [v[0], v[1], v[2]])
    });
    let max_items = ir::fn_string_attribute(f, "nvvm.maxntid")
        .and_then(|t| t.split(',').map(|x| x.trim().parse::<u64>().ok()).product::<Option<u64>>())
        .filter(|&n| n > 0);
    let uniform_only = is_ptx_kernel(f) || ir::fn_string_attribute(f, "uniform-work-group-size").as_deref() == Some("true");
    LaunchBounds { reqd_local, max_items, uniform_only }
}

/// An integer constant's value, from a metadata operand.
fn md_integer(op: &MdOperand<'_>) -> Option<u64> {
    match op {
        MdOperand::Value(v) => v.const_u64(),
        _ => None,
    }
}

/// The strings of the function's `!name !{!"a", !"b", …}` metadata; an
/// operand that is not a string reads as "".
fn string_list_metadata(f: FunctionValue<'_>, name: &str) -> Option<Vec<String>> {
    let ops = ir::function_metadata(f, name)?;
    Some(
        ops.into_iter()
            .map(|op| match op {
                MdOperand::String(s) => s,
                _ => String::new(),
            })
            .collect(),
    )
}

/// `!kernel_arg_addr_space`: each parameter's OpenCL address space.
fn addr_space_metadata(f: FunctionValue<'_>) -> Option<Vec<Option<u64>>> {
    Some(ir::function_metadata(f, "kernel_arg_addr_space")?.iter().map(md_integer).collect())
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
