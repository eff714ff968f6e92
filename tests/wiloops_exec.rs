//! `simt-wiloops` checked by execution on generated kernels with barriers.
//!
//! The corpus has a dozen barrier shapes; this test makes hundreds: the
//! structured kernels of `tests/kernel_gen` (nested ifs, switches, loops with
//! breaks and continues) with `__syncthreads` exchanges through a shared
//! array placed where every enclosing branch is uniform, so barriers sit in
//! uniform loops (whose counters and values cross them), after uniform and
//! divergent ifs, and between values live across them. Each kernel runs on
//! the emulator (one warp per work-group, no work-item loops: the reference)
//! and on the host engine (work-item loops: the transformation under test),
//! and every output buffer must be identical; every fourth kernel also runs
//! with work-groups interleaved (`--interleave 2`) where its barriers allow,
//! and every kernel also in the linear form (`simt-wiloops<linear>`: one
//! copy of the kernel entered through a resume switch, the form kernels
//! whose region copies outgrow them get).
//!
//! Kernels where the uniformity analysis finds a barrier under a divergent
//! branch (`simt-wiloops` warns: the generator's guess of uniform was wrong)
//! are skipped and counted; the analysis is itself checked by
//! `tests/uniformity_oracle.rs`. `SIMT_WILOOPS_KERNELS=N` sets the number of
//! seeds (default 240), `SIMT_WILOOPS_FIRST=S` the first; failing kernels
//! are written to `target/wiloops-exec/` (and the kernel being run to
//! `last.ll` there, for a crash).

mod kernel_gen;

use inkwell::context::Context;
use simt::engine::buffers::KernelArgs;
use simt::engine::emu::{self, EmuKernel, EmuOptions, UniformityCheck};
use simt::engine::host::runner::Runner;
use simt::engine::host::{self, HostOptions};
use simt::input::ModuleInput;
use simt::launch::{ArgSpec, Grid, Policy};
use simt_passes::analysis::cache::AnalysisCache;
use simt_passes::pass::PassContext;
use std::path::Path;

fn kernel_args(args: &[String]) -> KernelArgs {
    let specs: Vec<ArgSpec> = args.iter().map(|a| ArgSpec::parse(a, None).expect("valid arg")).collect();
    KernelArgs::new(&specs).expect("arguments")
}

/// The bytes of every buffer argument, in parameter order.
fn buffers(args: &KernelArgs) -> Vec<Vec<u8>> {
    args.buffers().map(|(_, b)| b.bytes().to_vec()).collect()
}

/// What `simt-wiloops` says about the module: its warnings, or its error.
fn wiloops_warnings(ctx: &Context, text: &str) -> Result<String, String> {
    let mut module = simt_passes::ir::parse_ir(ctx, "k", text.as_bytes()).map_err(|e| format!("parse: {e}"))?;
    let pass = simt_passes::registry::build("simt-wiloops").map_err(|e| e.to_string())?;
    let mut cache = AnalysisCache::new();
    let mut sink = Vec::new();
    let _preserved = pass.run(&mut PassContext::new(&mut module, &mut cache, &mut sink)).map_err(|e| e.to_string())?;
    simt_passes::ir::verify(&module).map_err(|e| format!("simt-wiloops output does not verify: {e}"))?;
    Ok(String::from_utf8_lossy(&sink).into_owned())
}

fn emu_run(ctx: &Context, text: &str, kernel: &str, grid: (u64, u64), args: &[String]) -> Result<Vec<Vec<u8>>, String> {
    let mut module = simt_passes::ir::parse_ir(ctx, kernel, text.as_bytes()).map_err(|e| format!("parse: {e}"))?;
    // Warps of at most 32 lanes: `laneid` is below 32 on the host, as on NVIDIA GPUs.
    let opts = EmuOptions { policy: Policy::Ipdom, warp_width: grid.1.min(32) as u32, check_uniformity: UniformityCheck::Off };
    let program = emu::compile_module(&mut module, kernel, &opts).map_err(|e| e.to_string())?;
    let k = EmuKernel { program, compile_seconds: 0.0 };
    let mut a = kernel_args(args);
    emu::run(&k, Grid::new(&[grid.0], &[grid.1], None)?, &mut a, None).map_err(|e| e.to_string())?;
    Ok(buffers(&a))
}

/// How the host engine is asked to lower a kernel.
#[derive(Clone, Copy, Debug)]
struct Form {
    interleave: u32,
    linear: bool,
}

/// Buffers after a host launch, and whether it ran seed 001's interleaved
/// form (asked for with `interleave` > 1, built only for barriers in
/// straight-line code).
fn host_run(text: &str, kernel: &str, grid: (u64, u64), args: &[String], form: Form) -> Result<(Vec<Vec<u8>>, bool), String> {
    let input = ModuleInput { name: kernel.to_string(), bytes: text.as_bytes().to_vec() };
    let opts = HostOptions { local_size: Some([grid.1, 1, 1]), interleave: form.interleave, linear: form.linear, ..HostOptions::default() };
    let hk = host::compile(&input, kernel, &opts).map_err(|e| e.to_string())?;
    let interleaved = hk.interleaved().is_some();
    let mut a = kernel_args(args);
    Runner::new(hk.wg_kernel(kernel), Grid::new(&[grid.0], &[grid.1], None)?, &mut a, 1 << 18)
        .map_err(|e| e.to_string())?
        .run(None)
        .map_err(|e| e.to_string())?;
    Ok((buffers(&a), interleaved))
}

#[derive(Default, Debug)]
struct Counts {
    ran: u64,
    barriers: u64,
    no_barrier: u64,
    divergent_barrier: u64,
    /// Runs of the interleaved form.
    interleaved: u64,
    /// Runs of the linear form.
    linear: u64,
}

/// Where failing kernels are written.
fn fail_dir() -> std::path::PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target").join("wiloops-exec");
    std::fs::create_dir_all(&dir).expect("create target/wiloops-exec");
    dir
}

/// Generated kernel `seed`: its name and a whole module holding it.
fn kernel_text(seed: u64) -> (String, String) {
    let name = format!("wl{seed}");
    let body = kernel_gen::kernel_with_barriers(seed, &name);
    let text = format!("{}{body}\n{}{}", kernel_gen::HEADER, kernel_gen::DECLS, kernel_gen::BARRIER_DECLS);
    (name, text)
}

/// Runs kernel `seed`; `Err` says what differed.
fn check(ctx: &Context, seed: u64, counts: &mut Counts) -> Result<(), String> {
    let (name, text) = kernel_text(seed);
    let barriers = text.matches("call void @llvm.nvvm.barrier.cta.sync.aligned.all").count() as u64;
    if barriers == 0 {
        counts.no_barrier += 1;
        return Ok(());
    }
    // A crash leaves the kernel that caused it here.
    std::fs::write(fail_dir().join("last.ll"), &text).expect("write target/wiloops-exec/last.ll");
    if wiloops_warnings(ctx, &text)?.contains("divergent branch") {
        counts.divergent_barrier += 1;
        return Ok(());
    }
    // Local sizes 8, 32, 64 (powers of two and the shared array's length),
    // two or three work-groups.
    let local = [8u64, 32, 64][(seed % 3) as usize];
    let grid = (local * (2 + seed % 2), local);
    let args = vec![
        format!("buf:i32:{}=zero", grid.0 * kernel_gen::K as u64),
        format!("buf:i32:{}=rand:{seed}", kernel_gen::IN_LEN),
        format!("buf:i32:{}=rand:{}", kernel_gen::IN_LEN, seed + 1),
        format!("i32:{}", seed % 7),
    ];
    let reference = emu_run(ctx, &text, &name, grid, &args).map_err(|e| format!("emulator: {e}"))?;
    // Every kernel also in the linear form; every fourth also with
    // work-groups interleaved two by two.
    let mut forms = vec![Form { interleave: 1, linear: false }, Form { interleave: 1, linear: true }];
    if seed.is_multiple_of(4) {
        forms.push(Form { interleave: 2, linear: false });
    }
    for form in forms {
        let (host, interleaved) = host_run(&text, &name, grid, &args, form).map_err(|e| format!("host: {e}"))?;
        if host != reference {
            let at = host[0].chunks(4).zip(reference[0].chunks(4)).position(|(a, b)| a != b);
            return Err(format!("host ({form:?}) and emulator differ (first differing i32 of out: {at:?})"));
        }
        counts.interleaved += u64::from(interleaved);
        counts.linear += u64::from(form.linear);
    }
    counts.ran += 1;
    counts.barriers += barriers;
    Ok(())
}

#[test]
fn generated_barrier_kernels_agree_on_host_and_emulator() {
    let n: u64 = std::env::var("SIMT_WILOOPS_KERNELS").ok().and_then(|s| s.parse().ok()).unwrap_or(240);
    let ctx = Context::create();
    let mut counts = Counts::default();
    let mut failures = Vec::new();
    // SIMT_WILOOPS_FIRST=S starts at seed S (to rerun one kernel).
    let first: u64 = std::env::var("SIMT_WILOOPS_FIRST").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    for seed in first..first + n {
        if let Err(e) = check(&ctx, seed, &mut counts) {
            let path = fail_dir().join(format!("wl{seed}.ll"));
            std::fs::write(&path, kernel_text(seed).1).expect("write failing kernel");
            failures.push(format!("seed {seed} ({}): {e}", path.display()));
        }
    }
    eprintln!("wiloops_exec: {counts:?}");
    assert!(failures.is_empty(), "{} of {n} kernels failed:\n{}", failures.len(), failures.join("\n"));
    // The generator must keep producing what this test is for.
    assert!(counts.ran * 2 >= n, "only {} of {n} kernels ran with barriers: {counts:?}", counts.ran);
    assert!(n < 40 || counts.interleaved > 0, "no kernel ran interleaved: {counts:?}");
    assert_eq!(counts.linear, counts.ran, "every kernel that ran also ran in the linear form: {counts:?}");
}
