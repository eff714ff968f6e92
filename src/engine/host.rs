//! The host engine's compiler: kernel IR → work-group function in memory.
//!
//! Pipeline: the launched kernel alone, barrier helpers inlined
//! ([`crate::frontend`]), `always-inline` (clang's OpenCL kernels call an
//! always-inline twin), `simt-wiloops`, retargeting to this CPU, `default<O3>` with a target
//! machine for the host CPU and its features (so the vectorizer sees AVX2 or
//! AVX-512 where present), then codegen to an in-memory object that ORC's
//! LLJIT links against this process (libm, memset, …). The same object bytes
//! are what `simt-opt --filetype=obj` writes, so the JIT and an ahead-of-time
//! build run identical code.

use crate::diag::ToolError;
use crate::input::ModuleInput;
use crate::lower::{self, TargetSpec};
use crate::pipeline::{self, RunOptions};
use inkwell::context::Context;
use inkwell::targets::{FileType, TargetMachine};
use llvm_sys::error::*;
use llvm_sys::orc2::lljit::*;
use llvm_sys::orc2::*;
use simt_passes::kernel_model::is_kernel;
use simt_passes::wg_abi::{self, WgFn, WgiFn};
use std::ffi::{CStr, CString};
use std::time::Instant;

#[derive(Clone, Debug)]
pub struct HostOptions {
    /// Work-groups interleaved per call (seed 001's loop groups); 1 = off.
    pub interleave: u32,
    /// Link with the system linker into a shared library instead of the JIT.
    pub aot: bool,
    /// Specialise the work-group function for this size (the launch's).
    pub local_size: Option<[u64; 3]>,
}

impl Default for HostOptions {
    fn default() -> Self {
        HostOptions { interleave: 1, aot: false, local_size: None }
    }
}

/// A kernel compiled for this CPU, ready to call through [`wg_abi`].
pub struct HostKernel {
    pub wg_fn: WgFn,
    pub scratch_per_item: u64,
    pub local_bytes: u64,
    pub barrier_names: Vec<String>,
    pub compile_seconds: f64,
    /// The interleaved form and its ring size, when asked for and possible.
    pub interleaved: Option<(WgiFn, u64)>,
    /// Owns the code `wg_fn` points into.
    _code: Code,
}

/// Where the compiled code lives: in the JIT, or in a shared library linked
/// by the system linker (`--aot`).
enum Code {
    Jit(Jit),
    Library(Library),
}

impl Code {
    fn lookup(&self, symbol: &str) -> Result<u64, ToolError> {
        match self {
            Code::Jit(j) => j.lookup(symbol),
            Code::Library(l) => l.lookup(symbol),
        }
    }
}

// The JIT'd code is immutable and the work-group function is reentrant: each
// call gets its own context, scratch and local memory.
unsafe impl Send for HostKernel {}
unsafe impl Sync for HostKernel {}

/// The optimised CPU module for `kernel`, as an object file for this host.
pub fn compile_object(input: &ModuleInput, kernel: &str, opts: &HostOptions) -> Result<Vec<u8>, ToolError> {
    let name = &input.name;
    let ctx = Context::create();
    let module = input.parse_verified(&ctx)?;
    let kernels: Vec<String> =
        simt_passes::ir::defined_functions(&module).into_iter().filter(|f| is_kernel(*f)).map(simt_passes::ir::function_name).collect();
    if !kernels.iter().any(|k| k == kernel) {
        return Err(ToolError::Llvm(format!(
            "{name}: no kernel named '{kernel}' (kernels: {})",
            if kernels.is_empty() { "none".to_string() } else { kernels.join(", ") }
        )));
    }
    // Only the requested kernel and what it needs are lowered and compiled.
    crate::frontend::prepare_launch(&module, kernel)?;
    let spec = TargetSpec { triple: Some(host_triple()), cpu: "native".into(), features: String::new(), opt_level: 3 };
    let tm = lower::target_machine(&host_triple(), &spec)?.expect("the host triple has a backend");
    let mut sink = std::io::stderr();
    let mut wi_opts = Vec::new();
    if opts.interleave > 1 {
        wi_opts.push(format!("interleave={}", opts.interleave));
    }
    if let Some([x, y, z]) = opts.local_size {
        wi_opts.push(format!("local-size={x},{y},{z}"));
    }
    let wiloops = if wi_opts.is_empty() { "simt-wiloops".to_string() } else { format!("simt-wiloops<{}>", wi_opts.join(";")) };
    // One thread runs a whole work-group, so its __local atomics need no
    // atomicity (simt-local-atomics).
    let front = pipeline::parse(&format!("always-inline,simt-lower-ocl-builtins,{wiloops},simt-local-atomics"), None)?;
    pipeline::run(&module, &front, None, &RunOptions::default(), &mut sink)?;
    lower::retarget_for(&module, &tm, true);
    let back = pipeline::parse("default<O3>", Some(&tm))?;
    pipeline::run(&module, &back, Some(&tm), &RunOptions::default(), &mut sink)?;
    lower::emit(&module, &host_triple(), &spec, FileType::Object)
}

pub fn host_triple() -> String {
    TargetMachine::get_default_triple().as_str().to_string_lossy().into_owned()
}

/// Compiles `kernel` from the module `input` and links it in memory.
pub fn compile(input: &ModuleInput, kernel: &str, opts: &HostOptions) -> Result<HostKernel, ToolError> {
    crate::llvm_init::init();
    let start = Instant::now();
    let object = compile_object(input, kernel, opts)?;
    let jit = if opts.aot { Code::Library(Library::link(&object)?) } else { Code::Jit(Jit::new(&object)?) };
    let wg_fn: WgFn = unsafe { std::mem::transmute::<u64, WgFn>(jit.lookup(&wg_abi::wg_function(kernel))?) };
    let read_u64 = |sym: String| -> Result<u64, ToolError> { Ok(unsafe { *(jit.lookup(&sym)? as *const u64) }) };
    let scratch_per_item = read_u64(wg_abi::scratch_per_item_symbol(kernel))?;
    let local_bytes = read_u64(wg_abi::local_bytes_symbol(kernel))?;
    let barriers = jit.lookup(&wg_abi::barriers_symbol(kernel))? as *const *const std::ffi::c_char;
    // Entry, one name per barrier, exit: the ABI says how many.
    let count = read_u64(wg_abi::barrier_count_symbol(kernel))? as usize;
    let barrier_names = (0..count).map(|i| unsafe { CStr::from_ptr(*barriers.add(i)) }.to_string_lossy().into_owned()).collect();
    // Present only when the pass could interleave this kernel.
    let interleaved = match (opts.interleave > 1, jit.lookup(&wg_abi::wgi_ring_symbol(kernel))) {
        (true, Ok(ring)) => {
            let f = jit.lookup(&wg_abi::wgi_function(kernel))?;
            Some((unsafe { std::mem::transmute::<u64, WgiFn>(f) }, unsafe { *(ring as *const u64) }))
        }
        _ => None,
    };
    Ok(HostKernel {
        interleaved,
        wg_fn,
        scratch_per_item,
        local_bytes,
        barrier_names,
        compile_seconds: start.elapsed().as_secs_f64(),
        _code: jit,
    })
}

/// An ORC LLJIT instance for this host, linking one object.
struct Jit(LLVMOrcLLJITRef);

fn check(err: LLVMErrorRef, what: &str) -> Result<(), ToolError> {
    if err.is_null() {
        return Ok(());
    }
    unsafe {
        let m = LLVMGetErrorMessage(err);
        let s = CStr::from_ptr(m).to_string_lossy().into_owned();
        LLVMDisposeErrorMessage(m);
        Err(ToolError::Llvm(format!("{what}: {s}")))
    }
}

impl Jit {
    fn new(object: &[u8]) -> Result<Jit, ToolError> {
        unsafe {
            let builder = LLVMOrcCreateLLJITBuilder();
            let mut jtmb: LLVMOrcJITTargetMachineBuilderRef = std::ptr::null_mut();
            check(LLVMOrcJITTargetMachineBuilderDetectHost(&mut jtmb), "detecting the host")?;
            LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(builder, jtmb);
            let mut jit: LLVMOrcLLJITRef = std::ptr::null_mut();
            check(LLVMOrcCreateLLJIT(&mut jit, builder), "creating the JIT")?;
            let jit = Jit(jit);
            let dylib = LLVMOrcLLJITGetMainJITDylib(jit.0);
            let mut generator: LLVMOrcDefinitionGeneratorRef = std::ptr::null_mut();
            check(
                LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
                    &mut generator,
                    LLVMOrcLLJITGetGlobalPrefix(jit.0),
                    None,
                    std::ptr::null_mut(),
                ),
                "exposing process symbols to the JIT",
            )?;
            LLVMOrcJITDylibAddGenerator(dylib, generator);
            let buf =
                llvm_sys::core::LLVMCreateMemoryBufferWithMemoryRangeCopy(object.as_ptr().cast(), object.len(), c"simt-kernel.o".as_ptr());
            check(LLVMOrcLLJITAddObjectFile(jit.0, dylib, buf), "adding the kernel object")?;
            Ok(jit)
        }
    }

    fn lookup(&self, symbol: &str) -> Result<u64, ToolError> {
        let name = CString::new(symbol).expect("no NUL in symbol");
        let mut addr: LLVMOrcExecutorAddress = 0;
        unsafe { check(LLVMOrcLLJITLookup(self.0, &mut addr, name.as_ptr()), &format!("linking '{symbol}'"))? };
        Ok(addr)
    }
}

impl Drop for Jit {
    fn drop(&mut self) {
        unsafe {
            let _ = LLVMOrcDisposeLLJIT(self.0);
        }
    }
}

/// The kernel object linked by the system C compiler driver into a shared
/// library and loaded with `dlopen`: the ahead-of-time path, which runs the
/// very object `simt-opt --filetype=obj` writes, without the JIT.
struct Library {
    handle: *mut libc::c_void,
    _dir: tempfile::TempDir,
}

impl Library {
    fn link(object: &[u8]) -> Result<Library, ToolError> {
        let io = |what: &str, e: std::io::Error| ToolError::Run(format!("{what}: {e}"));
        let dir = tempfile::tempdir().map_err(|e| io("creating a folder for the kernel library", e))?;
        let obj = dir.path().join("kernel.o");
        let lib = dir.path().join("libkernel.so");
        std::fs::write(&obj, object).map_err(|e| io("writing the kernel object", e))?;
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let out = std::process::Command::new(&cc)
            .args(["-shared", "-o"])
            .arg(&lib)
            .arg(&obj)
            .arg("-lm")
            .output()
            .map_err(|e| io(&format!("running the linker '{cc}'"), e))?;
        if !out.status.success() {
            return Err(ToolError::Run(format!("linking the kernel library failed:\n{}", String::from_utf8_lossy(&out.stderr))));
        }
        let path = CString::new(lib.as_os_str().as_encoded_bytes()).expect("no NUL in a temp path");
        let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if handle.is_null() {
            let why = unsafe { CStr::from_ptr(libc::dlerror()) }.to_string_lossy().into_owned();
            return Err(ToolError::Run(format!("loading the kernel library: {why}")));
        }
        Ok(Library { handle, _dir: dir })
    }

    fn lookup(&self, symbol: &str) -> Result<u64, ToolError> {
        let name = CString::new(symbol).expect("no NUL in symbol");
        let p = unsafe { libc::dlsym(self.handle, name.as_ptr()) };
        if p.is_null() {
            return Err(ToolError::Run(format!("symbol '{symbol}' not found in the kernel library")));
        }
        Ok(p as u64)
    }
}

impl Drop for Library {
    fn drop(&mut self) {
        unsafe { libc::dlclose(self.handle) };
    }
}
