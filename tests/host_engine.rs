//! The host engine end to end without the runner: compile a kernel with
//! simt-wiloops + O3 + JIT and call its work-group function through the C ABI
//! of `wg_abi`, checking results against plain Rust.

use simt::engine::host::{compile, HostOptions};
use simt::input::ModuleInput;
use simt_passes::wg_abi::{WgContext, STATUS_BARRIER_DIVERGENCE, STATUS_OK};
use std::ffi::c_void;
use std::path::Path;

/// 64-byte aligned, zeroed memory.
struct Aligned {
    buf: Vec<u8>,
    skip: usize,
}

impl Aligned {
    fn new(bytes: usize) -> Aligned {
        let buf = vec![0u8; bytes + 64];
        let skip = (64 - buf.as_ptr() as usize % 64) % 64;
        Aligned { buf, skip }
    }
    fn ptr(&mut self) -> *mut u8 {
        // SAFETY: `skip < 64` and the buffer has `bytes + 64` bytes, so the
        // result stays inside it.
        unsafe { self.buf.as_mut_ptr().add(self.skip) }
    }
}

fn ctx(group: u64, groups: u64, local: u64, local_mem: &mut Aligned, scratch: &mut Aligned) -> WgContext {
    WgContext {
        group_id: [group, 0, 0],
        num_groups: [groups, 1, 1],
        local_size: [local, 1, 1],
        global_offset: [0; 3],
        work_dim: 1,
        error: [0; 3],
        local_mem: local_mem.ptr(),
        scratch: scratch.ptr(),
        // 0: a uniform launch (the ABI's default).
        enqueued_local_size: [0; 3],
        global_size: [0; 3],
    }
}

/// Runs reduce.ll's `reduce_sum` over `input` in work-groups of `local`
/// through the C ABI, asserting every work-group returns OK; one sum per group.
fn run_reduce_sum(k: &simt::engine::host::HostKernel, input: &[f32], local: u64) -> Vec<f32> {
    let groups = input.len() as u64 / local;
    let mut out = vec![0f32; groups as usize];
    let mut local_mem = Aligned::new(k.local_bytes() as usize + local as usize * 4);
    let mut scratch = Aligned::new((k.scratch_per_item() * local) as usize);
    for g in 0..groups {
        let mut c = ctx(g, groups, local, &mut local_mem, &mut scratch);
        let mut in_ptr = input.as_ptr() as *mut c_void;
        let mut out_ptr = out.as_mut_ptr() as *mut c_void;
        // SAFETY: local memory was allocated with `k.local_bytes()` bytes
        // before the `__local` argument's `local * 4`, so the offset is
        // inside it.
        let mut scratch_arg = unsafe { c.local_mem.add(k.local_bytes() as usize) } as *mut c_void;
        let args = [&mut in_ptr as *mut _ as *mut c_void, &mut out_ptr as *mut _ as *mut c_void, &mut scratch_arg as *mut _ as *mut c_void];
        // SAFETY: `reduce_sum(const float *in, float *out, __local float
        // *tmp)` gets its three arguments per `wg_abi`; group `g` of
        // `groups = input.len() / local` reads `input[g * local..][..local]`
        // (only reads: the `*mut` cast is for the ABI) and writes `out[g]`
        // of `groups`; local memory and scratch are sized from the
        // kernel's own `local_bytes` and `scratch_per_item` for `local`
        // work-items, and all of it outlives the call.
        assert_eq!(unsafe { (k.wg_fn())(args.as_ptr(), &mut c) }, STATUS_OK);
    }
    out
}

/// The module at `path`, read for the engine.
fn module(path: impl AsRef<Path>) -> ModuleInput {
    ModuleInput::read(path.as_ref()).unwrap()
}

#[test]
fn reduction_with_barriers_in_a_loop() {
    let k = compile(&module("test-ir/examples/reduce.ll"), "reduce_sum", &HostOptions::default()).unwrap();
    assert_eq!(k.barrier_names().len(), 4, "entry, two barriers, exit: {:?}", k.barrier_names());
    for local in [1u64, 2, 8, 64, 256] {
        let groups = 7u64;
        let n = (groups * local) as usize;
        let input: Vec<f32> = (0..n).map(|i| ((i * 37) % 101) as f32 * 0.25).collect();
        let out = run_reduce_sum(&k, &input, local);
        for g in 0..groups as usize {
            // Exact: the inputs are multiples of 0.25 and every partial sum is
            // representable, so any summation order gives the same float.
            let want: f32 = input[g * local as usize..(g + 1) * local as usize].iter().sum();
            assert_eq!(out[g], want, "local size {local}, group {g}");
        }
    }
}

#[test]
fn barrier_not_reached_by_all_work_items_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let ll = dir.path().join("bad.ll");
    // if (get_local_id(0) < 5) barrier();  -- work-items 5.. skip the barrier.
    std::fs::write(
        &ll,
        r#"target triple = "spir64"
define spir_kernel void @bad(ptr addrspace(1) %out) {
entry:
  %lid = call i64 @_Z12get_local_idj(i32 0)
  %c = icmp ult i64 %lid, 5
  br i1 %c, label %sync, label %done
sync:
  call void @_Z7barrierj(i32 1)
  br label %done
done:
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %lid
  store i32 1, ptr addrspace(1) %p
  ret void
}
declare i64 @_Z12get_local_idj(i32)
declare void @_Z7barrierj(i32) convergent
"#,
    )
    .unwrap();
    let k = compile(&module(&ll), "bad", &HostOptions::default()).unwrap();
    let mut out = vec![0i32; 16];
    for (local, want) in [(4u64, STATUS_OK), (16, STATUS_BARRIER_DIVERGENCE)] {
        let mut local_mem = Aligned::new(k.local_bytes() as usize);
        let mut scratch = Aligned::new((k.scratch_per_item() * local) as usize);
        let mut c = ctx(0, 1, local, &mut local_mem, &mut scratch);
        let mut out_ptr = out.as_mut_ptr() as *mut c_void;
        let args = [&mut out_ptr as *mut _ as *mut c_void];
        // SAFETY: `bad(int *out)` gets its one argument per `wg_abi` and
        // writes `out[lid]` for `lid < local <= 16`, the length of `out`;
        // local memory and scratch are sized from the kernel's own
        // `local_bytes` and `scratch_per_item` for `local` work-items.
        let status = unsafe { (k.wg_fn())(args.as_ptr(), &mut c) };
        assert_eq!(status, want, "local size {local}");
        if status == STATUS_BARRIER_DIVERGENCE {
            let names: Vec<&str> = c.error[..2].iter().map(|&i| k.barrier_names()[i as usize].as_str()).collect();
            assert_eq!(names, ["barrier #1 in block %sync", "the kernel's exit"]);
        }
    }
}

/// The ahead-of-time path (object linked into a shared library by the system
/// linker, loaded with dlopen) computes exactly what the JIT computes.
#[test]
fn ahead_of_time_library_matches_the_jit() {
    let run = |aot: bool| {
        let opts = HostOptions { aot, ..HostOptions::default() };
        let k = compile(&module("test-ir/examples/reduce.ll"), "reduce_sum", &opts).unwrap();
        let (groups, local) = (5u64, 64u64);
        let input: Vec<f32> = (0..groups * local).map(|i| (i as f32).sin()).collect();
        run_reduce_sum(&k, &input, local)
    };
    let jit = run(false);
    let aot = run(true);
    assert_eq!(jit.iter().map(|f| f.to_bits()).collect::<Vec<_>>(), aot.iter().map(|f| f.to_bits()).collect::<Vec<_>>());
    assert!(jit.iter().any(|&v| v != 0.0), "the kernel ran");
}

/// A loop in lockstep (the n-body-like `tile_pull` of
/// test-ir/lockstep-uniform/lane_work.cl) picks, in each step's work-item
/// loop, where the carried sums go by a work-group-uniform test: the host's
/// `default<O3>` unswitches that loop on it, so each copy stores with plain
/// vector stores. Left in, the vectoriser predicated the stores
/// (`llvm.masked.store`, `vmaskmovps`: slow on AMD cores, scripts/bench's
/// nbody 7x slower).
#[test]
fn lockstep_steps_store_without_masks() {
    simt::llvm_init::init();
    let input = module("test-ir/lockstep-uniform/lane_work.cl");
    let ctx = inkwell::context::Context::create();
    let mut m = simt::frontend::load(&ctx, &input).unwrap();
    let opts = HostOptions { local_size: Some([64, 1, 1]), ..HostOptions::default() };
    simt::engine::host::compile_object(&mut m, "tile_pull", &opts).unwrap();
    let ir = m.print_to_string().to_string();
    let wg = ir.split("define ").find(|f| f.contains("@simt_wg_tile_pull(")).expect("the work-group function");
    assert!(wg.contains("@llvm.sqrt.v"), "the step's work-item loop is vectorised:\n{wg}");
    assert!(!wg.contains("@llvm.masked.store"), "no predicated stores in the step:\n{wg}");
}
