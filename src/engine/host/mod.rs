//! The host engine's compiler: kernel IR → work-group function in memory.
//!
//! Pipeline: the host front end ([`crate::frontend`]: the launched kernel
//! alone, barrier helpers inlined, built-ins lowered, `simt-wiloops`,
//! `simt-local-atomics`),
//! retargeting to this CPU, `default<O3>` with a target machine for the host
//! CPU and its features (so the vectorizer sees AVX2 or AVX-512 where
//! present), then codegen to an in-memory object that ORC's
//! LLJIT links against this process (libm, memset, …). The same object bytes
//! are what `simt-opt --filetype=obj` writes, so the JIT and an ahead-of-time
//! build run identical code. With a kernel cache ([`kernel_cache`]), an
//! object compiled before comes from disk instead, and only the linking runs.

pub mod kernel_cache;
pub mod runner;

use crate::diag::ToolError;
use crate::frontend::{self, EngineFront};
use crate::input::ModuleInput;
use crate::lower::{self, TargetSpec};
use crate::pipeline::{self, RunOptions};
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::targets::{FileType, TargetMachine};
use kernel_cache::{KernelCache, Report as CacheReport};
use llvm_sys::error::*;
use llvm_sys::orc2::lljit::*;
use llvm_sys::orc2::*;
use runner::WgKernel;
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
    /// `simt-wiloops<linear>`: one copy of the kernel entered through a
    /// resume switch, whatever its regions' size (tests of that form).
    pub linear: bool,
    /// The launch keeps every work-item id, group id and size below 2^31
    /// ([`Grid::ids_fit_i32`](crate::launch::model::Grid::ids_fit_i32)):
    /// `int` truncations of them are exact, so `int` index arithmetic
    /// becomes 64-bit (`simt-widen-indices`). The code is then only for such
    /// grids: [`runner::Runner::new`] refuses others.
    pub ids_fit_i32: bool,
}

impl Default for HostOptions {
    fn default() -> Self {
        HostOptions { interleave: 1, aot: false, local_size: None, linear: false, ids_fit_i32: false }
    }
}

/// A kernel compiled for this CPU, ready to call through [`wg_abi`].
///
/// The fields are private: [`HostKernel::wg_kernel`] vouches that they are
/// what the compiled code declared, which a caller able to change them
/// could not keep true.
pub struct HostKernel {
    wg_fn: WgFn,
    scratch_per_item: u64,
    local_bytes: u64,
    barrier_names: Vec<String>,
    pub compile_seconds: f64,
    /// What the kernel cache did ([`compile_module_cached`]).
    pub cache: CacheReport,
    /// Whether `simt-wiloops` emitted the linear form (asked for, or past
    /// its region-copy budget).
    linear: bool,
    /// The interleaved form and its ring size, when asked for and possible.
    interleaved: Option<(WgiFn, u64)>,
    /// Compiled for grids whose ids fit in 32 bits only ([`HostOptions::ids_fit_i32`]).
    ids_fit_i32: bool,
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

// SAFETY: what a HostKernel holds that is not Send/Sync is the JIT or the
// loaded library (`Code`), owned and only read (symbol lookups happen before
// the HostKernel exists), and function pointers into its code, which is
// immutable; the work-group functions are reentrant: each call gets its own
// context, scratch and local memory.
unsafe impl Send for HostKernel {}
// SAFETY: as for Send: nothing in a HostKernel is mutated after it is built.
unsafe impl Sync for HostKernel {}

impl HostKernel {
    /// The work-group function (`simt_wg_K`), to call per `wg_abi`.
    pub fn wg_fn(&self) -> WgFn {
        self.wg_fn
    }

    /// Scratch bytes per work-item.
    pub fn scratch_per_item(&self) -> u64 {
        self.scratch_per_item
    }

    /// Static `__local` bytes.
    pub fn local_bytes(&self) -> u64 {
        self.local_bytes
    }

    /// Barrier names by id: entry, one per barrier, exit.
    pub fn barrier_names(&self) -> &[String] {
        &self.barrier_names
    }

    /// Whether the kernel's work-item loops are in the linear form.
    pub fn linear(&self) -> bool {
        self.linear
    }

    /// The interleaved form and its ring size, when asked for and possible.
    pub fn interleaved(&self) -> Option<(WgiFn, u64)> {
        self.interleaved
    }

    /// The kernel as the runner calls it.
    pub fn wg_kernel<'a>(&'a self, name: &'a str) -> WgKernel<'a> {
        // SAFETY: `wg_fn` (and the interleaved function) are what
        // `simt-wiloops` generated for this kernel, found by their `wg_abi`
        // symbol names in the code `self` owns and keeps loaded for `'a`;
        // the pass emits them to the `wg_abi` contract, with the scratch,
        // static local size, barrier names and ring size read from the
        // symbols it emitted beside them for this very kernel.
        unsafe { WgKernel::new(name, self.wg_fn, self.scratch_per_item, self.local_bytes, &self.barrier_names, self.interleaved) }
            .for_ids_fit_i32(self.ids_fit_i32)
    }
}

/// The optimised CPU code for `kernel` of `module` (which this changes: the
/// host front end, [`crate::frontend`], then `default<O3>` for this CPU), as
/// an object file for this host.
pub fn compile_object(module: &mut Module<'_>, kernel: &str, opts: &HostOptions) -> Result<Vec<u8>, ToolError> {
    let front =
        EngineFront::Host { interleave: opts.interleave, local_size: opts.local_size, linear: opts.linear, ids_fit_i32: opts.ids_fit_i32 };
    frontend::prepare(module, kernel, &front)?;
    reject_gpu_only_intrinsics(module, kernel)?;
    let spec = TargetSpec { triple: Some(host_triple()), cpu: "native".into(), features: String::new(), opt_level: 3 };
    let tm = lower::target_machine(&host_triple(), &spec)?.expect("the host triple has a backend");
    // The work-item loops are plain IR now: retarget them to this CPU, so
    // that O3 vectorises for its features (AVX2, AVX-512 where present).
    lower::retarget_for(module, &tm, true);
    let back = pipeline::parse("default<O3>", Some(&tm))?;
    pipeline::run(module, &back, Some(&tm), &RunOptions::default(), &mut std::io::stderr())?;
    lower::emit(module, &host_triple(), &spec, FileType::Object)
}

/// GPU intrinsics that the front end does not lower (warp votes, shuffles,
/// lane masks, `activemask`) would reach the x86 back end, which stops with
/// "Cannot select". Named here instead, for the launched kernel only (the
/// front end has dropped everything else), with the engines that run them.
fn reject_gpu_only_intrinsics(module: &Module<'_>, kernel: &str) -> Result<(), ToolError> {
    let mut used: Vec<String> = module
        .get_functions()
        .filter(|f| f.count_basic_blocks() == 0 && simt_passes::ir::Value::from(*f).has_uses())
        .map(|f| f.get_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("llvm.nvvm.") || name.starts_with("llvm.amdgcn."))
        .collect();
    if used.is_empty() {
        return Ok(());
    }
    used.sort();
    Err(ToolError::Run(format!(
        "kernel '{kernel}' calls {}, which the host engine does not implement (GPU warp intrinsics); try --engine emu or --engine gpu",
        used.join(", ")
    )))
}

pub fn host_triple() -> String {
    TargetMachine::get_default_triple().as_str().to_string_lossy().into_owned()
}

/// Compiles `kernel` from the module `input` and links it in memory.
pub fn compile(input: &ModuleInput, kernel: &str, opts: &HostOptions) -> Result<HostKernel, ToolError> {
    crate::llvm_init::init();
    let start = Instant::now();
    let ctx = Context::create();
    let mut module = frontend::load(&ctx, input)?;
    let mut k = compile_module(&mut module, kernel, opts)?;
    k.compile_seconds = start.elapsed().as_secs_f64();
    Ok(k)
}

/// Compiles `kernel` of a loaded `module` (which this changes) and links it
/// in memory.
pub fn compile_module(module: &mut Module<'_>, kernel: &str, opts: &HostOptions) -> Result<HostKernel, ToolError> {
    compile_module_cached(module, kernel, opts, None)
}

/// [`compile_module`], taking the object from `cache` when it holds it (and
/// storing it there otherwise): a hit skips the front end and code
/// generation, not the linking.
pub fn compile_module_cached(
    module: &mut Module<'_>,
    kernel: &str,
    opts: &HostOptions,
    cache: Option<&KernelCache>,
) -> Result<HostKernel, ToolError> {
    crate::llvm_init::init();
    let start = Instant::now();
    let (object, cache) = match cache {
        Some(c) => c.object(module, kernel, opts, |m| compile_object(m, kernel, opts))?,
        None => (compile_object(module, kernel, opts)?, CacheReport::off()),
    };
    let jit = if opts.aot { Code::Library(Library::link(&object)?) } else { Code::Jit(Jit::new(&object)?) };
    // The symbols below are the ones `simt-wiloops` emits for `kernel` per
    // `wg_abi`, resolved in the code `jit` holds (it stays loaded as long as
    // the HostKernel, which owns it).
    // SAFETY: `simt_wg_K` is a function of `WgFn`'s C signature; a non-null
    // code address (lookup errors when absent) becomes that pointer.
    let wg_fn: WgFn = unsafe { std::mem::transmute::<u64, WgFn>(jit.lookup(&wg_abi::wg_function(kernel))?) };
    // SAFETY: these symbols are constant, 8-aligned `u64` globals.
    let read_u64 = |sym: String| -> Result<u64, ToolError> { Ok(unsafe { *(jit.lookup(&sym)? as *const u64) }) };
    let scratch_per_item = read_u64(wg_abi::scratch_per_item_symbol(kernel))?;
    let local_bytes = read_u64(wg_abi::local_bytes_symbol(kernel))?;
    let barriers = jit.lookup(&wg_abi::barriers_symbol(kernel))? as *const *const std::ffi::c_char;
    // Entry, one name per barrier, exit: the ABI says how many.
    let count = read_u64(wg_abi::barrier_count_symbol(kernel))? as usize;
    let linear = read_u64(wg_abi::linear_symbol(kernel))? != 0;
    let barrier_names = (0..count)
        // SAFETY: the barriers symbol is an array of `count` pointers to
        // NUL-terminated constant strings.
        .map(|i| unsafe { CStr::from_ptr(*barriers.add(i)) }.to_string_lossy().into_owned())
        .collect();
    // Present only when the pass could interleave this kernel.
    let interleaved = match (opts.interleave > 1, jit.lookup(&wg_abi::wgi_ring_symbol(kernel))) {
        (true, Ok(ring)) => {
            let f = jit.lookup(&wg_abi::wgi_function(kernel))?;
            // SAFETY: `simt_wgi_K` has `WgiFn`'s C signature, and the ring
            // symbol is a constant, 8-aligned `u64`.
            Some(unsafe { (std::mem::transmute::<u64, WgiFn>(f), *(ring as *const u64)) })
        }
        _ => None,
    };
    Ok(HostKernel {
        interleaved,
        wg_fn,
        scratch_per_item,
        local_bytes,
        barrier_names,
        linear,
        compile_seconds: start.elapsed().as_secs_f64(),
        cache,
        ids_fit_i32: opts.ids_fit_i32,
        _code: jit,
    })
}

/// An ORC LLJIT instance for this host, linking one object.
struct Jit(LLVMOrcLLJITRef);

fn check(err: LLVMErrorRef, what: &str) -> Result<(), ToolError> {
    if err.is_null() {
        return Ok(());
    }
    // SAFETY: `err` is a live error the caller owns and hands over; its
    // message is read, then disposed of once.
    unsafe {
        let m = LLVMGetErrorMessage(err);
        let s = CStr::from_ptr(m).to_string_lossy().into_owned();
        LLVMDisposeErrorMessage(m);
        Err(ToolError::Llvm(format!("{what}: {s}")))
    }
}

impl Jit {
    fn new(object: &[u8]) -> Result<Jit, ToolError> {
        // SAFETY: the ORC C API used as documented: the builder and target
        // machine builder are handed to `LLVMOrcCreateLLJIT`, which takes
        // them; the generator to the main dylib, which takes it; the memory
        // buffer (a copy of `object`) to `LLVMOrcLLJITAddObjectFile`, which
        // takes it. `jit` is disposed of by `Jit`'s Drop.
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
        // SAFETY: `self.0` is a live LLJIT; `name` is NUL-terminated and
        // outlives the call; `addr` is written only.
        unsafe { check(LLVMOrcLLJITLookup(self.0, &mut addr, name.as_ptr()), &format!("linking '{symbol}'"))? };
        Ok(addr)
    }
}

impl Drop for Jit {
    fn drop(&mut self) {
        // SAFETY: `self.0` was created by `Jit::new` and is disposed of once.
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
        // SAFETY: `path` is NUL-terminated; the library is ours, whose
        // initialisers are the C runtime's.
        let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if handle.is_null() {
            // SAFETY: after a failed dlopen, dlerror returns a NUL-terminated
            // message, read before any other dl call.
            let why = unsafe { CStr::from_ptr(libc::dlerror()) }.to_string_lossy().into_owned();
            return Err(ToolError::Run(format!("loading the kernel library: {why}")));
        }
        Ok(Library { handle, _dir: dir })
    }

    fn lookup(&self, symbol: &str) -> Result<u64, ToolError> {
        let name = CString::new(symbol).expect("no NUL in symbol");
        // SAFETY: `self.handle` is open (closed only on drop); `name` is
        // NUL-terminated.
        let p = unsafe { libc::dlsym(self.handle, name.as_ptr()) };
        if p.is_null() {
            return Err(ToolError::Run(format!("symbol '{symbol}' not found in the kernel library")));
        }
        Ok(p as u64)
    }
}

impl Drop for Library {
    fn drop(&mut self) {
        // SAFETY: opened by `Library::link`, closed once; the HostKernel
        // holding function pointers into it drops with it.
        unsafe { libc::dlclose(self.handle) };
    }
}
