//! `simt-to-nvptx`: OpenCL C kernels (clang's `spir64` IR) become CUDA-dialect
//! IR for `nvptx64-nvidia-cuda`, so one OpenCL C source runs on the CPU (via
//! `simt-wiloops`) and on an NVIDIA GPU.
//!
//! - work-item builtins become PTX special registers: `get_local_id(d)` →
//!   `llvm.nvvm.read.ptx.sreg.tid.{x,y,z}`, `get_group_id` → `ctaid`,
//!   `get_local_size` → `ntid`, `get_num_groups` → `nctaid`, `get_global_id` →
//!   `ctaid·ntid + tid + offset`, `get_global_size` → `nctaid·ntid`;
//!   `get_work_dim` and `get_global_offset` read `@__simt_work_dim` and
//!   `@__simt_global_offset`, module globals the launcher sets
//!   (`cuModuleGetGlobal`) before each launch;
//! - `barrier`/`work_group_barrier` → `llvm.nvvm.barrier.cta.sync.aligned.all(0)`
//!   (`bar.sync 0`);
//! - `__local` variables are addrspace(3) in both dialects and need nothing;
//!   `__local` pointer *arguments* have no CUDA equivalent: each becomes an
//!   `i32` byte offset into the kernel's dynamic shared memory
//!   (`@__simt_dynamic_shared`), whose size the launcher passes;
//! - kernels get the `ptx_kernel` calling convention, other functions the C
//!   one; the module gets NVPTX's triple and data layout (32-bit shared
//!   pointers, `p3:32`); OpenCL's `!kernel_arg_*` metadata stays, so
//!   launchers know which i32 was a `__local` pointer;
//! - address spaces: generic (4) becomes NVPTX's generic (0) and `__constant`
//!   (2) global memory (1), arguments and variables alike (`addrspace`);
//! - math: LLVM math intrinsics and libm calls become libdevice's `__nv_*`
//!   functions (`math`), linked in and internalized (`libdevice`);
//! - functions no kernel calls are deleted, and a kernel that reaches a
//!   construct with no NVPTX form (images) is an error naming both
//!   (`unsupported`).
//!
//! Run `simt-lower-ocl-builtins` first so atomics and math are plain IR.

use crate::kernel_model::{builtin_of, is_kernel, Builtin};
use crate::pass::{Changed, ModulePass, PassContext, PassError};
use inkwell::values::AsValueRef;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMTypeKind;
use std::ffi::CString;

mod addrspace;
mod libdevice;
mod math;
mod rebuild;
mod unsupported;

#[derive(Default)]
pub struct ToNvptx;

const NAME: &str = "simt-to-nvptx";
const PTX_KERNEL_CC: u32 = 71;
const NVPTX_TRIPLE: &str = "nvptx64-nvidia-cuda";
const NVPTX_DATA_LAYOUT: &str = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64";
pub const WORK_DIM_GLOBAL: &str = "__simt_work_dim";
pub const GLOBAL_OFFSET_GLOBAL: &str = "__simt_global_offset";
pub const DYNAMIC_SHARED_GLOBAL: &str = "__simt_dynamic_shared";

impl ModulePass for ToNvptx {
    fn name(&self) -> String {
        NAME.into()
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Changed, PassError> {
        let err = |message: String| PassError::Unsupported { pass: NAME.into(), message };
        let m = cx.module.as_mut_ptr();
        unsafe {
            let kernels: Vec<LLVMValueRef> = crate::ir::defined_functions(cx.module)
                .into_iter()
                .filter(|f| is_kernel(*f))
                .map(|f| f.as_value_ref())
                .collect();
            drop_uncalled_helpers(m, &kernels).map_err(err)?;
            for &k in &kernels {
                unsupported::check_kernel(k).map_err(err)?;
            }
            let kernels: Vec<LLVMValueRef> = kernels.into_iter().map(|k| local_args_to_offsets(m, k)).collect();
            replace_builtins(m).map_err(err)?;
            let mut f = LLVMGetFirstFunction(m);
            while !f.is_null() {
                if kernels.contains(&f) {
                    LLVMSetFunctionCallConv(f, PTX_KERNEL_CC);
                } else if matches!(LLVMGetFunctionCallConv(f), 75 | 76) {
                    LLVMSetFunctionCallConv(f, llvm_sys::LLVMCallConv::LLVMCCallConv as u32);
                }
                f = LLVMGetNextFunction(f);
            }
            let bb_calls = all_calls(m);
            for c in bb_calls {
                if matches!(LLVMGetInstructionCallConv(c), 75 | 76) {
                    LLVMSetInstructionCallConv(c, llvm_sys::LLVMCallConv::LLVMCCallConv as u32);
                }
            }
            crate::ir::retarget(cx.module, NVPTX_TRIPLE, NVPTX_DATA_LAYOUT, false);
            crate::ir::remove_unused_kernel_twins(cx.module);
            let uses_math = math::to_libdevice(m);
            remove_unused_opencl_declarations(m);
            // Last but libdevice: the module is rebuilt from text, and
            // libdevice is NVPTX IR already.
            rebuild::replace_with_text(m, &addrspace::remap(&cx.module.print_to_string().to_string())).map_err(err)?;
            if uses_math {
                libdevice::link(m).map_err(err)?;
            }
        }
        cx.analyses.clear();
        Ok(Changed::Cfg)
    }
}

pub(crate) unsafe fn all_calls(m: LLVMModuleRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    let mut f = LLVMGetFirstFunction(m);
    while !f.is_null() {
        let mut bb = LLVMGetFirstBasicBlock(f);
        while !bb.is_null() {
            let mut i = LLVMGetFirstInstruction(bb);
            while !i.is_null() {
                if !LLVMIsACallInst(i).is_null() {
                    out.push(i);
                }
                i = LLVMGetNextInstruction(i);
            }
            bb = LLVMGetNextBasicBlock(bb);
        }
        f = LLVMGetNextFunction(f);
    }
    out
}

/// Non-kernel functions become internal and `globaldce` deletes those no
/// kernel reaches: OpenCL's entry points are its kernels, and an unused
/// helper must not stop the pass or the code generator (an image helper
/// crashes NVPTX's).
unsafe fn drop_uncalled_helpers(m: LLVMModuleRef, kernels: &[LLVMValueRef]) -> Result<(), String> {
    let mut f = LLVMGetFirstFunction(m);
    while !f.is_null() {
        if LLVMIsDeclaration(f) == 0 && !kernels.contains(&f) {
            LLVMSetLinkage(f, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        }
        f = LLVMGetNextFunction(f);
    }
    run_llvm_passes(m, "globaldce")
}

/// Runs LLVM's passes with an NVPTX target machine (which registers
/// `nvvm-reflect`). `__CUDA_ARCH` reflects sm_70, the oldest architecture
/// simt targets, so the result is valid on every newer one.
unsafe fn run_llvm_passes(m: LLVMModuleRef, pipeline: &str) -> Result<(), String> {
    use inkwell::targets::{CodeModel, InitializationConfig, RelocMode, Target, TargetTriple};
    use llvm_sys::transforms::pass_builder::*;
    Target::initialize_nvptx(&InitializationConfig::default());
    let triple = TargetTriple::create(NVPTX_TRIPLE);
    let target = Target::from_triple(&triple).map_err(|e| e.to_string())?;
    let tm = target
        .create_target_machine(&triple, "sm_70", "", inkwell::OptimizationLevel::Default, RelocMode::Default, CodeModel::Default)
        .ok_or("cannot create an NVPTX target machine")?;
    let opts = LLVMCreatePassBuilderOptions();
    let text = CString::new(pipeline).expect("no NUL");
    let e = LLVMRunPasses(m, text.as_ptr(), tm.as_mut_ptr(), opts);
    LLVMDisposePassBuilderOptions(opts);
    if e.is_null() {
        return Ok(());
    }
    let msg = llvm_sys::error::LLVMGetErrorMessage(e);
    let s = std::ffi::CStr::from_ptr(msg).to_string_lossy().into_owned();
    llvm_sys::error::LLVMDisposeErrorMessage(msg);
    Err(format!("{pipeline}: {s}"))
}

unsafe fn global_or_new(m: LLVMModuleRef, name: &str, ty: LLVMTypeRef, addrspace: u32, external: bool) -> LLVMValueRef {
    let c = CString::new(name).expect("no NUL");
    let g = LLVMGetNamedGlobal(m, c.as_ptr());
    if !g.is_null() {
        return g;
    }
    let g = LLVMAddGlobalInAddressSpace(m, ty, c.as_ptr(), addrspace);
    if !external {
        LLVMSetInitializer(g, LLVMConstNull(ty));
        LLVMSetExternallyInitialized(g, 1);
    }
    LLVMSetAlignment(g, 16);
    g
}

/// Replaces each `ptr addrspace(3)` parameter of kernel `k` by an `i32` byte
/// offset into `@__simt_dynamic_shared`; returns the (possibly new) kernel.
unsafe fn local_args_to_offsets(m: LLVMModuleRef, k: LLVMValueRef) -> LLVMValueRef {
    let n = LLVMCountParams(k);
    let is_local = |i: u32| {
        let ty = LLVMTypeOf(LLVMGetParam(k, i));
        LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMPointerTypeKind && LLVMGetPointerAddressSpace(ty) == 3
    };
    if !(0..n).any(is_local) {
        return k;
    }
    let ctx = LLVMGetModuleContext(m);
    let i32t = LLVMInt32TypeInContext(ctx);
    let i8t = LLVMInt8TypeInContext(ctx);
    let mut params: Vec<LLVMTypeRef> = (0..n).map(|i| if is_local(i) { i32t } else { LLVMTypeOf(LLVMGetParam(k, i)) }).collect();
    let old_ty = LLVMGlobalGetValueType(k);
    let fn_ty = LLVMFunctionType(LLVMGetReturnType(old_ty), params.as_mut_ptr(), n, 0);
    let name = crate::ir::value_name_of(k);
    let old_name = CString::new(format!("{name}.simt.old")).expect("no NUL");
    LLVMSetValueName2(k, old_name.as_ptr(), old_name.as_bytes().len());
    let new_name = CString::new(name).expect("no NUL");
    let nk = LLVMAddFunction(m, new_name.as_ptr(), fn_ty);
    LLVMSetFunctionCallConv(nk, LLVMGetFunctionCallConv(k));
    // OpenCL's !kernel_arg_* metadata stays: launchers read from
    // !kernel_arg_addr_space that the i32 was a `__local` pointer.
    let mut count = 0usize;
    let entries = LLVMGlobalCopyAllMetadata(k, &mut count);
    for e in 0..count as u32 {
        LLVMGlobalSetMetadata(nk, LLVMValueMetadataEntriesGetKind(entries, e), LLVMValueMetadataEntriesGetMetadata(entries, e));
    }
    if !entries.is_null() {
        LLVMDisposeValueMetadataEntries(entries);
    }
    // Move the body, then rebuild each local pointer from its offset.
    while !LLVMGetFirstBasicBlock(k).is_null() {
        let bb = LLVMGetFirstBasicBlock(k);
        LLVMRemoveBasicBlockFromParent(bb);
        LLVMAppendExistingBasicBlock(nk, bb);
    }
    let shared = global_or_new(m, DYNAMIC_SHARED_GLOBAL, LLVMArrayType2(i8t, 0), 3, true);
    let b = LLVMCreateBuilderInContext(ctx);
    LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(nk)));
    for i in 0..n {
        let old = LLVMGetParam(k, i);
        let new = LLVMGetParam(nk, i);
        let mut len = 0usize;
        let pname = LLVMGetValueName2(old, &mut len);
        LLVMSetValueName2(new, pname, len);
        let replacement = if is_local(i) {
            let mut idx = [new];
            LLVMBuildInBoundsGEP2(b, i8t, shared, idx.as_mut_ptr(), 1, c"local.arg".as_ptr())
        } else {
            new
        };
        LLVMReplaceAllUsesWith(old, replacement);
    }
    LLVMDisposeBuilder(b);
    if LLVMGetFirstUse(k).is_null() {
        LLVMDeleteFunction(k);
    }
    nk
}

/// Declarations of OpenCL built-ins nothing calls any more.
unsafe fn remove_unused_opencl_declarations(m: LLVMModuleRef) {
    let mut f = LLVMGetFirstFunction(m);
    while !f.is_null() {
        let next = LLVMGetNextFunction(f);
        if LLVMIsDeclaration(f) != 0 && LLVMGetFirstUse(f).is_null() && crate::ir::value_name_of(f).starts_with("_Z") {
            LLVMDeleteFunction(f);
        }
        f = next;
    }
}

unsafe fn sreg(m: LLVMModuleRef, b: LLVMBuilderRef, reg: &str, d: u32) -> LLVMValueRef {
    let ctx = LLVMGetModuleContext(m);
    let i32t = LLVMInt32TypeInContext(ctx);
    let axis = ["x", "y", "z"][d as usize];
    let name = CString::new(format!("llvm.nvvm.read.ptx.sreg.{reg}.{axis}")).expect("no NUL");
    let fty = LLVMFunctionType(i32t, std::ptr::null_mut(), 0, 0);
    let mut f = LLVMGetNamedFunction(m, name.as_ptr());
    if f.is_null() {
        f = LLVMAddFunction(m, name.as_ptr(), fty);
    }
    let v = LLVMBuildCall2(b, fty, f, std::ptr::null_mut(), 0, c"".as_ptr());
    LLVMBuildZExt(b, v, LLVMInt64TypeInContext(ctx), c"".as_ptr())
}

/// Every OpenCL work-item builtin and barrier call becomes its NVPTX form.
unsafe fn replace_builtins(m: LLVMModuleRef) -> Result<(), String> {
    let ctx = LLVMGetModuleContext(m);
    let i64t = LLVMInt64TypeInContext(ctx);
    let i32t = LLVMInt32TypeInContext(ctx);
    let b = LLVMCreateBuilderInContext(ctx);
    for call in all_calls(m) {
        let Some(builtin) = unsafe { crate::ir::Value::from_raw(call) }.as_inst().and_then(builtin_of) else { continue };
        let callee = crate::ir::called_function_name(call).unwrap_or_default();
        if callee.starts_with("llvm.nvvm.") {
            continue; // already CUDA dialect
        }
        LLVMPositionBuilderBefore(b, call);
        let c64 = |v: u64| LLVMConstInt(i64t, v, 0);
        let per_dim = |d: u32, f: &dyn Fn(u32) -> LLVMValueRef, default: u64| if d < 3 { f(d) } else { c64(default) };
        let offset = |d: u32| {
            let g = global_or_new(m, GLOBAL_OFFSET_GLOBAL, LLVMArrayType2(i64t, 3), 1, false);
            let mut idx = [LLVMConstInt(i32t, 0, 0), LLVMConstInt(i32t, d as u64, 0)];
            let p = LLVMBuildInBoundsGEP2(b, LLVMArrayType2(i64t, 3), g, idx.as_mut_ptr(), 2, c"".as_ptr());
            LLVMBuildLoad2(b, i64t, p, c"global.offset".as_ptr())
        };
        let v = match builtin {
            Builtin::Barrier => {
                let name = c"llvm.nvvm.barrier.cta.sync.aligned.all";
                let mut ps = [i32t];
                let fty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), ps.as_mut_ptr(), 1, 0);
                let mut f = LLVMGetNamedFunction(m, name.as_ptr());
                if f.is_null() {
                    f = LLVMAddFunction(m, name.as_ptr(), fty);
                }
                let mut args = [LLVMConstInt(i32t, 0, 0)];
                LLVMBuildCall2(b, fty, f, args.as_mut_ptr(), 1, c"".as_ptr());
                LLVMInstructionEraseFromParent(call);
                continue;
            }
            Builtin::LocalId(d) => per_dim(d, &|d| sreg(m, b, "tid", d), 0),
            Builtin::GroupId(d) => per_dim(d, &|d| sreg(m, b, "ctaid", d), 0),
            Builtin::LocalSize(d) | Builtin::EnqueuedLocalSize(d) => per_dim(d, &|d| sreg(m, b, "ntid", d), 1),
            Builtin::NumGroups(d) => per_dim(d, &|d| sreg(m, b, "nctaid", d), 1),
            Builtin::GlobalSize(d) => per_dim(
                d,
                &|d| LLVMBuildNUWMul(b, sreg(m, b, "nctaid", d), sreg(m, b, "ntid", d), c"".as_ptr()),
                1,
            ),
            Builtin::GlobalId(d) => per_dim(
                d,
                &|d| {
                    let base = LLVMBuildNUWMul(b, sreg(m, b, "ctaid", d), sreg(m, b, "ntid", d), c"".as_ptr());
                    let g = LLVMBuildNUWAdd(b, base, sreg(m, b, "tid", d), c"".as_ptr());
                    LLVMBuildAdd(b, g, offset(d), c"".as_ptr())
                },
                0,
            ),
            Builtin::GlobalOffset(d) => per_dim(d, &offset, 0),
            Builtin::WorkDim => {
                let g = global_or_new(m, WORK_DIM_GLOBAL, i32t, 1, false);
                LLVMBuildZExt(b, LLVMBuildLoad2(b, i32t, g, c"work.dim".as_ptr()), i64t, c"".as_ptr())
            }
            other => return Err(format!("{other:?} has no NVPTX mapping here")),
        };
        let ty = LLVMTypeOf(call);
        let v = LLVMBuildIntCast2(b, v, ty, 0, c"".as_ptr());
        LLVMReplaceAllUsesWith(call, v);
        LLVMInstructionEraseFromParent(call);
    }
    LLVMDisposeBuilder(b);
    Ok(())
}

impl crate::pass::DeclaredPass for ToNvptx {
    const NAME: &'static str = "simt-to-nvptx";
    const SUMMARY: &'static str = "OpenCL C kernels (spir64) become CUDA-dialect IR for nvptx64: builtins, barriers, local arguments";
}
