//! The GPU engine: the kernel lowered to PTX (OpenCL kernels through
//! `simt-to-nvptx`), loaded through the CUDA driver API with `cudarc`'s
//! dynamic loading — no CUDA toolkit at build time, no driver needed to build
//! or to run the other engines. Where no driver or GPU is present, the engine
//! says so in one line ([`ToolError::NoGpu`], exit code 3).
//!
//! Parameters are passed as `cuLaunchKernel` expects: `params[i]` points at
//! parameter i's value (a device address for buffers, the scalar's bytes,
//! and for a `__local` pointer argument its `u32` offset into the dynamic
//! shared memory, whose total size is the launch's shared-memory size).

use crate::diag::ToolError;
use crate::engine::buffers::{ArgValue, KernelArgs};
use crate::frontend::{self, EngineFront};
use crate::input::ModuleInput;
use crate::launch::Grid;
use crate::lower::{self, TargetSpec};
use crate::pipeline::{self, RunOptions};
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::targets::FileType;
use std::ffi::c_void;
use std::time::Instant;

/// What a GPU run measured.
pub struct GpuRun {
    pub device: String,
    pub arch: String,
    pub compile_seconds: f64,
    pub kernel_seconds: Vec<f64>,
}

/// The newest architecture LLVM 22's NVPTX backend and our ptxas tests cover.
const NEWEST_ARCH: (i32, i32) = (9, 0);

/// PTX for `kernel` in the module `input`, for architecture `sm`.
pub fn compile_ptx(input: &ModuleInput, kernel: &str, sm: &str) -> Result<String, ToolError> {
    let ctx = Context::create();
    let mut module = frontend::load(&ctx, input)?;
    module_ptx(&mut module, kernel, sm)
}

/// PTX for `kernel` of a loaded `module` (which this changes: the GPU front
/// end, [`crate::frontend`], then `default<O3>` for NVPTX).
pub fn module_ptx(module: &mut Module<'_>, kernel: &str, sm: &str) -> Result<String, ToolError> {
    frontend::prepare(module, kernel, &EngineFront::Gpu)?;
    let spec = TargetSpec { triple: Some("nvptx64-nvidia-cuda".into()), cpu: sm.into(), features: String::new(), opt_level: 3 };
    let tm = lower::target_machine("nvptx64-nvidia-cuda", &spec)?.expect("nvptx64 has a backend");
    let back = pipeline::parse("default<O3>", Some(&tm))?;
    pipeline::run(module, &back, Some(&tm), &RunOptions::default(), &mut std::io::stderr())?;
    let ptx = lower::emit(module, "nvptx64-nvidia-cuda", &spec, FileType::Assembly)?;
    String::from_utf8(ptx).map_err(|_| ToolError::Llvm("the PTX is not UTF-8".into()))
}

/// Whether a CUDA driver library can be loaded here.
pub fn driver_present() -> bool {
    // SAFETY: only tries to load the driver library and drops it again.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

fn no_gpu(why: impl std::fmt::Display) -> ToolError {
    ToolError::NoGpu(format!("no NVIDIA GPU available for --engine gpu: {why}"))
}

fn driver(what: &str, e: impl std::fmt::Debug) -> ToolError {
    ToolError::Run(format!("CUDA driver: {what}: {e:?}"))
}

/// Runs `kernel` of `module` (which this changes) on GPU 0 `repeat` times;
/// buffers are copied in before the first run and back after the last.
pub fn run(
    module: &mut Module<'_>,
    kernel: &str,
    grid: &Grid,
    args: &mut KernelArgs,
    repeat: u32,
    refill: bool,
) -> Result<GpuRun, ToolError> {
    use cudarc::driver::{result, CudaContext, DevicePtr};
    // CUDA blocks all have one size; the smaller last work-groups of a
    // non-uniform launch would need a bounds check the kernel may lack.
    if !grid.is_uniform() {
        return Err(ToolError::Run(format!(
            "kernel '{kernel}': --engine gpu runs uniform work-groups only: global size {:?} is not a multiple of local size {:?}; \
             --engine host and emu run non-uniform work-groups",
            &grid.global[..grid.work_dim as usize],
            &grid.local[..grid.work_dim as usize]
        )));
    }
    if !driver_present() {
        return Err(no_gpu("the CUDA driver library (libcuda.so) is not installed"));
    }
    let start = Instant::now();
    let ctx = CudaContext::new(0).map_err(no_gpu)?;
    let (major, minor) = ctx.compute_capability().map_err(|e| driver("compute capability", e))?;
    let (major, minor) = if (major, minor) > NEWEST_ARCH { NEWEST_ARCH } else { (major, minor) };
    let arch = format!("sm_{major}{minor}");
    let ptx = module_ptx(module, kernel, &arch)?;
    let cu_module = ctx.load_module(cudarc::nvrtc::Ptx::from_src(ptx)).map_err(|e| driver("loading the PTX", e))?;
    let function = cu_module.load_function(kernel).map_err(|e| driver("finding the kernel", e))?;
    let stream = ctx.default_stream();
    let compile_seconds = start.elapsed().as_secs_f64();

    // Device copies of the buffers, and each parameter's value bytes.
    let mut device = Vec::new();
    let mut values: Vec<u64> = Vec::new();
    let mut shared: u32 = 0;
    for v in &args.values {
        match v {
            ArgValue::Buffer(b) => {
                let d = stream.clone_htod(b.bytes()).map_err(|e| driver("copying a buffer in", e))?;
                let ptr = {
                    let (ptr, _sync) = d.device_ptr(&stream);
                    ptr
                };
                values.push(ptr);
                device.push(Some(d));
            }
            ArgValue::Scalar(s) => {
                let mut le = [0u8; 8];
                le[..s.ty.size()].copy_from_slice(s.as_bytes());
                values.push(u64::from_le_bytes(le));
                device.push(None);
            }
            ArgValue::Struct(_) => {
                return Err(ToolError::Run(format!(
                    "kernel '{kernel}': --engine gpu does not pass structs by value yet; --engine host and emu do"
                )))
            }
            ArgValue::Local { ty, count } => {
                shared = shared.next_multiple_of(16);
                values.push(shared as u64);
                shared += (ty.size() as u64 * *count) as u32;
                device.push(None);
            }
        }
    }
    let mut params: Vec<*mut c_void> = values.iter_mut().map(|v| (v as *mut u64).cast::<c_void>()).collect();
    let groups = grid.num_groups();
    let to_u32 = |x: u64| u32::try_from(x).map_err(|_| ToolError::Run(format!("launch dimension {x} exceeds CUDA's limits")));
    let grid_dim = (to_u32(groups[0])?, to_u32(groups[1])?, to_u32(groups[2])?);
    let block_dim = (to_u32(grid.local[0])?, to_u32(grid.local[1])?, to_u32(grid.local[2])?);

    let mut kernel_seconds = Vec::new();
    for run in 0..repeat {
        // `--refill`: the host's buffers still hold the first inputs.
        if refill && run > 0 {
            for (v, d) in args.values.iter().zip(device.iter_mut()) {
                if let (ArgValue::Buffer(b), Some(d)) = (v, d) {
                    stream.memcpy_htod(b.bytes(), d).map_err(|e| driver("copying a buffer in again", e))?;
                }
            }
            stream.synchronize().map_err(|e| driver("copying a buffer in again", e))?;
        }
        let t = Instant::now();
        // SAFETY: `params[i]` points at `values[i]`, parameter i's value as
        // the kernel's signature (checked against the arguments by
        // `kernel_sig`) takes it: a device address of a buffer in `device`,
        // which lives until after the copies back, a scalar's little-endian
        // bytes, or a `__local` argument's u32 offset into the `shared`
        // bytes of dynamic shared memory requested here; `values` is not
        // touched while the launch runs, and the stream is synchronised
        // before the next launch or copy.
        unsafe {
            result::launch_kernel(function.cu_function(), grid_dim, block_dim, shared, stream.cu_stream(), &mut params)
                .map_err(|e| driver("launching", e))?;
        }
        stream.synchronize().map_err(|e| driver("running the kernel", e))?;
        kernel_seconds.push(t.elapsed().as_secs_f64());
    }
    for (v, d) in args.values.iter_mut().zip(&device) {
        if let (ArgValue::Buffer(b), Some(d)) = (v, d) {
            stream.memcpy_dtoh(d, b.bytes_mut()).map_err(|e| driver("copying a buffer back", e))?;
        }
    }
    Ok(GpuRun { device: ctx.name().unwrap_or_else(|_| "NVIDIA GPU".into()), arch, compile_seconds, kernel_seconds })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opencl_kernels_become_ptx_for_the_device() {
        crate::llvm_init::init();
        let ptx =
            compile_ptx(&ModuleInput::read(std::path::Path::new("test-ir/kernels/reduction.ll")).unwrap(), "reduce_sum", "sm_80").unwrap();
        assert!(ptx.contains(".target sm_80"));
        assert!(ptx.contains(".visible .entry reduce_sum("));
        assert!(ptx.contains("bar.sync \t0;") || ptx.contains("bar.sync 0;"), "a barrier in the PTX");
    }
}
