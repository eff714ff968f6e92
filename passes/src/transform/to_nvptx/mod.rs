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
//! `simt-lower-ocl-builtins` runs first, inside this pass, so atomics and
//! math are plain IR (a built-in it cannot lower is its error, naming it).

use crate::ir::globals::{add_function, add_global, copy_function_metadata, function_or_declare, move_blocks, named_global};
use crate::ir::{instructions, parameters, Builder, Inst, Ty, Value};
use crate::kernel_model::{builtin_of, is_kernel, Builtin};
use crate::pass::{ModulePass, PassContext, PassError, Preserved};
use inkwell::module::{Linkage, Module};
use inkwell::values::FunctionValue;

mod addrspace;
mod libdevice;
mod math;
mod rebuild;
mod unsupported;

#[derive(Default)]
pub struct ToNvptx;

const NAME: &str = "simt-to-nvptx";
const PTX_KERNEL_CC: u32 = llvm_sys::LLVMCallConv::LLVMPTXKernelCallConv as u32;
const NVPTX_TRIPLE: &str = "nvptx64-nvidia-cuda";
const NVPTX_DATA_LAYOUT: &str = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64";
pub const WORK_DIM_GLOBAL: &str = "__simt_work_dim";
pub const GLOBAL_OFFSET_GLOBAL: &str = "__simt_global_offset";
pub const DYNAMIC_SHARED_GLOBAL: &str = "__simt_dynamic_shared";

impl ModulePass for ToNvptx {
    fn name(&self) -> String {
        NAME.into()
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        let err = |message: String| PassError::Unsupported { pass: NAME.into(), message };
        let m = cx.module_mut();
        let kernels: Vec<FunctionValue<'_>> = crate::ir::defined_functions(m).into_iter().filter(|f| is_kernel(*f)).collect();
        drop_uncalled_helpers(m, &kernels).map_err(err)?;
        for &k in &kernels {
            unsupported::check_kernel(k).map_err(err)?;
        }
        // OpenCL's math, integer and atomic built-ins become IR first, as
        // `simt-lower-ocl-builtins` before this pass would: without it
        // `_Z4sqrtf` and friends stayed calls to nothing, which only ptxas
        // noticed. (Nothing is left to lower when it did run.) What it
        // preserves does not matter: this pass preserves nothing.
        let _ = crate::transform::ocl_builtins::LowerOclBuiltins.run(cx)?;
        let m = cx.module_mut();
        let kernels: Vec<FunctionValue<'_>> = kernels.into_iter().map(|k| local_args_to_offsets(m, k)).collect();
        replace_builtins(m).map_err(err)?;
        for f in m.get_functions() {
            if kernels.contains(&f) {
                f.set_call_conventions(PTX_KERNEL_CC);
            } else if crate::kernel_model::is_spir_calling_convention(f.get_call_conventions()) {
                f.set_call_conventions(llvm_sys::LLVMCallConv::LLVMCCallConv as u32);
            }
        }
        for c in all_calls(m) {
            if crate::kernel_model::is_spir_calling_convention(c.call_conv()) {
                c.set_call_conv(llvm_sys::LLVMCallConv::LLVMCCallConv as u32);
            }
        }
        crate::ir::retarget(m, NVPTX_TRIPLE, NVPTX_DATA_LAYOUT, false);
        crate::ir::remove_unused_kernel_twins(m);
        let uses_math = math::to_libdevice(m);
        remove_unused_opencl_declarations(m);
        // Last but libdevice: the module is rebuilt from text, and
        // libdevice is NVPTX IR already.
        rebuild::replace_with_text(m, &addrspace::remap(&m.print_to_string().to_string())).map_err(err)?;
        if uses_math {
            libdevice::link(m).map_err(err)?;
        }
        // Every function was recreated from text.
        Ok(Preserved::none())
    }
}

/// CUDA modules (clang's NVPTX IR, which `simt-to-nvptx` does not take)
/// call the C library's math functions by name (`expf`, from simt's CUDA
/// shim, `src/cuda_shim.h`) and LLVM's math intrinsics: the same mapping to
/// libdevice, linked in, so that ptxas finds no unresolved `expf`.
pub fn cuda_math_to_libdevice(m: &Module<'_>) -> Result<(), String> {
    if math::to_libdevice(m) {
        libdevice::link(m)?;
    }
    Ok(())
}

/// Every call instruction of the module, in order.
pub(crate) fn all_calls<'ctx>(m: &Module<'ctx>) -> Vec<Inst<'ctx>> {
    let mut out = Vec::new();
    for f in m.get_functions() {
        for bb in f.get_basic_block_iter() {
            out.extend(instructions(bb).filter(|i| i.is_call()));
        }
    }
    out
}

/// Non-kernel functions become internal and `globaldce` deletes those no
/// kernel reaches: OpenCL's entry points are its kernels, and an unused
/// helper must not stop the pass or the code generator (an image helper
/// crashes NVPTX's).
fn drop_uncalled_helpers(m: &Module<'_>, kernels: &[FunctionValue<'_>]) -> Result<(), String> {
    for f in m.get_functions() {
        if f.count_basic_blocks() > 0 && !kernels.contains(&f) {
            f.set_linkage(Linkage::Internal);
        }
    }
    run_llvm_passes(m, "globaldce")
}

/// Runs LLVM's passes with an NVPTX target machine (which registers
/// `nvvm-reflect`). `__CUDA_ARCH` reflects sm_70, the oldest architecture
/// simt targets, so the result is valid on every newer one.
fn run_llvm_passes(m: &Module<'_>, pipeline: &str) -> Result<(), String> {
    use inkwell::targets::{CodeModel, InitializationConfig, RelocMode, Target, TargetTriple};
    Target::initialize_nvptx(&InitializationConfig::default());
    let triple = TargetTriple::create(NVPTX_TRIPLE);
    let target = Target::from_triple(&triple).map_err(|e| e.to_string())?;
    let tm = target
        .create_target_machine(&triple, "sm_70", "", inkwell::OptimizationLevel::Default, RelocMode::Default, CodeModel::Default)
        .ok_or("cannot create an NVPTX target machine")?;
    crate::ir::link::run_passes(m, pipeline, &tm).map_err(|s| format!("{pipeline}: {s}"))
}

/// The global `name`, or a new one of type `ty` in `addrspace`: `external`
/// (defined by the launcher, like dynamic shared memory) or zero-initialized
/// and marked externally initialized (the launcher writes it before each
/// launch).
fn global_or_new<'ctx>(m: &Module<'ctx>, name: &str, ty: Ty<'ctx>, addrspace: u32, external: bool) -> Value<'ctx> {
    if let Some(g) = named_global(m, name) {
        return g;
    }
    let g = add_global(m, name, ty, addrspace);
    if !external {
        g.set_initializer(ty.const_null());
        g.set_externally_initialized(true);
    }
    g.set_global_alignment(16);
    g
}

/// Replaces each `ptr addrspace(3)` parameter of kernel `k` by an `i32` byte
/// offset into `@__simt_dynamic_shared`; returns the (possibly new) kernel.
fn local_args_to_offsets<'ctx>(m: &Module<'ctx>, k: FunctionValue<'ctx>) -> FunctionValue<'ctx> {
    let old_params = parameters(k);
    let is_local = |p: &Value<'_>| p.ty().address_space() == Some(crate::kernel_model::LOCAL_ADDRESS_SPACE);
    if !old_params.iter().any(is_local) {
        return k;
    }
    let cx = m.get_context();
    let i32t = Ty::of(cx.i32_type());
    let i8t = Ty::of(cx.i8_type());
    let params: Vec<Ty<'ctx>> = old_params.iter().map(|p| if is_local(p) { i32t } else { p.ty() }).collect();
    let fn_ty = Ty::function(Value::from(k).global_value_type().return_type(), &params);
    let name = crate::ir::function_name(k);
    Value::from(k).set_name(format!("{name}.simt.old").as_bytes());
    let nk = add_function(m, &name, fn_ty);
    nk.set_call_conventions(k.get_call_conventions());
    // OpenCL's !kernel_arg_* metadata stays: launchers read from
    // !kernel_arg_addr_space that the i32 was a `__local` pointer.
    copy_function_metadata(k, nk);
    // Move the body, then rebuild each local pointer from its offset.
    move_blocks(k, nk);
    let shared = global_or_new(m, DYNAMIC_SHARED_GLOBAL, i8t.array(0), 3, true);
    let first = nk.get_first_basic_block().and_then(|bb| bb.get_first_instruction()).expect("a kernel has a body");
    let mut b = Builder::new(Value::from(nk));
    b.position_before(Inst::from(first));
    for (old, new) in old_params.iter().zip(parameters(nk)) {
        new.set_name(&old.name_bytes());
        let replacement = if is_local(old) { b.in_bounds_gep(i8t, shared, &[new], "local.arg") } else { new };
        old.replace_all_uses_with(replacement);
    }
    drop(b);
    if !Value::from(k).has_uses() {
        crate::ir::delete_function(k);
    }
    nk
}

/// Declarations of OpenCL built-ins nothing calls any more.
fn remove_unused_opencl_declarations(m: &Module<'_>) {
    let unused: Vec<FunctionValue<'_>> = m
        .get_functions()
        .filter(|&f| f.count_basic_blocks() == 0 && !Value::from(f).has_uses() && crate::ir::function_name(f).starts_with("_Z"))
        .collect();
    for f in unused {
        crate::ir::delete_function(f);
    }
}

/// `zext(llvm.nvvm.read.ptx.sreg.REG.{x,y,z}())` to i64.
fn sreg<'ctx>(m: &Module<'ctx>, b: &mut Builder<'ctx>, reg: &str, d: u32) -> Value<'ctx> {
    let cx = m.get_context();
    let i32t = Ty::of(cx.i32_type());
    let axis = ["x", "y", "z"][d as usize];
    let fty = Ty::function(i32t, &[]);
    let f = function_or_declare(m, &format!("llvm.nvvm.read.ptx.sreg.{reg}.{axis}"), fty);
    let v = b.call(fty, f, &[], "").value();
    b.zext(v, Ty::of(cx.i64_type()), "")
}

/// `@__simt_global_offset[d]`.
fn global_offset<'ctx>(m: &Module<'ctx>, b: &mut Builder<'ctx>, d: u32) -> Value<'ctx> {
    let cx = m.get_context();
    let i64t = Ty::of(cx.i64_type());
    let i32t = Ty::of(cx.i32_type());
    let g = global_or_new(m, GLOBAL_OFFSET_GLOBAL, i64t.array(3), 1, false);
    let p = b.in_bounds_gep(i64t.array(3), g, &[i32t.const_int(0), i32t.const_int(d as u64)], "");
    b.load(i64t, p, "global.offset").value()
}

/// The NVPTX value of a work-item builtin (an i64), built before the call.
fn builtin_value<'ctx>(m: &Module<'ctx>, b: &mut Builder<'ctx>, builtin: Builtin) -> Result<Value<'ctx>, String> {
    let cx = m.get_context();
    let i64t = Ty::of(cx.i64_type());
    let i32t = Ty::of(cx.i32_type());
    let per_dim = |b: &mut Builder<'ctx>, d: u32, f: &dyn Fn(&mut Builder<'ctx>, u32) -> Value<'ctx>, default: u64| {
        if d < 3 {
            f(b, d)
        } else {
            i64t.const_int(default)
        }
    };
    Ok(match builtin {
        Builtin::LocalId(d) => per_dim(b, d, &|b, d| sreg(m, b, "tid", d), 0),
        Builtin::GroupId(d) => per_dim(b, d, &|b, d| sreg(m, b, "ctaid", d), 0),
        Builtin::LocalSize(d) | Builtin::EnqueuedLocalSize(d) => per_dim(b, d, &|b, d| sreg(m, b, "ntid", d), 1),
        Builtin::NumGroups(d) => per_dim(b, d, &|b, d| sreg(m, b, "nctaid", d), 1),
        Builtin::GlobalSize(d) => per_dim(
            b,
            d,
            &|b, d| {
                let groups = sreg(m, b, "nctaid", d);
                let size = sreg(m, b, "ntid", d);
                b.nuw_mul(groups, size, "")
            },
            1,
        ),
        Builtin::GlobalId(d) => per_dim(
            b,
            d,
            &|b, d| {
                let group = sreg(m, b, "ctaid", d);
                let size = sreg(m, b, "ntid", d);
                let base = b.nuw_mul(group, size, "");
                let tid = sreg(m, b, "tid", d);
                let g = b.nuw_add(base, tid, "");
                let offset = global_offset(m, b, d);
                b.add(g, offset, "")
            },
            0,
        ),
        Builtin::GlobalOffset(d) => per_dim(b, d, &|b, d| global_offset(m, b, d), 0),
        Builtin::WorkDim => {
            let g = global_or_new(m, WORK_DIM_GLOBAL, i32t, 1, false);
            let dim = b.load(i32t, g, "work.dim").value();
            b.zext(dim, i64t, "")
        }
        other => return Err(format!("{other:?} has no NVPTX mapping here")),
    })
}

/// Every OpenCL work-item builtin and barrier call becomes its NVPTX form.
fn replace_builtins(m: &Module<'_>) -> Result<(), String> {
    let cx = m.get_context();
    let i32t = Ty::of(cx.i32_type());
    for call in all_calls(m) {
        let Some(builtin) = builtin_of(call) else { continue };
        let callee = call.called_function_name().unwrap_or_default();
        if callee.starts_with("llvm.nvvm.") {
            continue; // already CUDA dialect
        }
        let mut b = Builder::new(call.value());
        b.position_before(call);
        if builtin == Builtin::Barrier {
            let fty = Ty::function(Ty::of(cx.void_type()), &[i32t]);
            let f = function_or_declare(m, "llvm.nvvm.barrier.cta.sync.aligned.all", fty);
            b.call(fty, f, &[i32t.const_int(0)], "");
            call.erase();
            continue;
        }
        let v = builtin_value(m, &mut b, builtin)?;
        let v = b.int_cast_unsigned(v, call.ty(), "");
        drop(b);
        call.value().replace_all_uses_with(v);
        call.erase();
    }
    Ok(())
}

impl crate::pass::DeclaredPass for ToNvptx {
    const NAME: &'static str = "simt-to-nvptx";
    const SUMMARY: &'static str = "OpenCL C kernels (spir64) become CUDA-dialect IR for nvptx64: builtins, barriers, local arguments";
}
