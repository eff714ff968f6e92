//! `simt-memfwd` changes no result, by execution:
//!
//! - generated kernels (the functions of `passes/tests/memdeps_gen`, the
//!   generator of seed 003's oracle, as OpenCL kernels whose loads write what
//!   they read to a buffer, stores of integers, halves, floats, doubles and
//!   pointers computed from the arguments) run before the pass on the host
//!   engine and after it on the host engine and the emulator, 64 work-items
//!   each with their own arguments, and every buffer must match bit for bit;
//! - every corpus kernel (the committed `.ll` files and the OpenCL sources
//!   compiled again at -O0, where allocas and their loads survive) the same
//!   way, with generic launches;
//! - the same pass with a wrong shift (`Flaw::WrongEnd`, bytes taken from
//!   the wrong end of a wider store) must give a different buffer.
//!
//! The number of loads forwarded is asserted positive, so the tests cannot
//! pass by the pass doing nothing. `SIMT_MEMFWD_FUNCS=N` changes the number
//! of generated kernels (default 160); `SIMT_MEMFWD_DUMP=DIR` also writes the
//! generated modules there (scripts/bench-memfwd counts loads in them).

#[path = "../passes/tests/memdeps_gen/mod.rs"]
mod memdeps_gen;

mod corpus;

use memdeps_gen::{generate_with, kernel_module_ir, kernel_out_bytes, Func, Rng, KERNEL_IN_BYTES};
use simt_passes::pass::{ModulePass, PassContext};
use simt_passes::transform::memfwd::{Flaw, MemFwd};
use std::path::Path;
use std::process::Command;

const WORK_ITEMS: u64 = 64;
const PER_MODULE: usize = 40;

fn loads(text: &str) -> usize {
    text.lines().filter(|l| l.contains(" = load ")).count()
}

fn simt_memfwd(before: &Path, after: &Path) {
    let out =
        Command::new(env!("CARGO_BIN_EXE_simt-opt")).arg(before).args(["-passes=simt-memfwd", "-S", "-o"]).arg(after).output().unwrap();
    assert!(out.status.success(), "simt-memfwd on {}: {}", before.display(), String::from_utf8_lossy(&out.stderr));
}

/// The generated kernels in modules of `PER_MODULE`, from one seed.
fn generated_modules() -> Vec<(Vec<Func>, String)> {
    let n: usize = std::env::var("SIMT_MEMFWD_FUNCS").ok().and_then(|s| s.parse().ok()).unwrap_or(160);
    let mut rng = Rng::new(23);
    (0..n.div_ceil(PER_MODULE))
        .map(|m| {
            // Every other module with fewer obstacles to forwarding.
            let plain = m % 2 == 0;
            let funcs: Vec<Func> =
                (0..PER_MODULE.min(n - m * PER_MODULE)).map(|k| generate_with(&mut rng, &format!("k{m}_{k}"), plain)).collect();
            let ir = kernel_module_ir(&funcs);
            (funcs, ir)
        })
        .collect()
}

fn kernel_args(f: &Func, seed: usize) -> Vec<String> {
    vec![format!("buf:u8:{}=rand:{seed}", WORK_ITEMS * KERNEL_IN_BYTES), format!("buf:u8:{}", WORK_ITEMS * kernel_out_bytes(f))]
}

#[test]
fn memfwd_changes_no_buffer_of_generated_kernels() {
    let dir = tempfile::tempdir().unwrap();
    let dump = std::env::var("SIMT_MEMFWD_DUMP").ok();
    let (mut kernels, mut before_loads, mut forwarded) = (0usize, 0usize, 0usize);
    for (m, (funcs, ir)) in generated_modules().into_iter().enumerate() {
        let before = dir.path().join(format!("gen{m}.ll"));
        let after = dir.path().join(format!("gen{m}.memfwd.ll"));
        std::fs::write(&before, &ir).unwrap();
        if let Some(d) = &dump {
            std::fs::create_dir_all(d).unwrap();
            std::fs::write(format!("{d}/gen{m}.ll"), &ir).unwrap();
        }
        simt_memfwd(&before, &after);
        let after_text = std::fs::read_to_string(&after).unwrap();
        before_loads += loads(&ir);
        forwarded += loads(&ir) - loads(&after_text);
        for (k, f) in funcs.iter().enumerate() {
            let args = kernel_args(f, m * 1000 + k);
            let d = dir.path().join(format!("{}.dump", f.name));
            let wi = WORK_ITEMS.to_string();
            let global = (wi.as_str(), "32");
            corpus::run_kernel(&before, &f.name, global, &args, &["--dump", d.to_str().unwrap()])
                .unwrap_or_else(|e| panic!("{} does not run before the pass: {e}", f.name));
            for engine in ["host", "emu"] {
                corpus::run_kernel(&after, &f.name, global, &args, &["--engine", engine, "--compare", d.to_str().unwrap()]).unwrap_or_else(
                    |e| panic!("{} after simt-memfwd on {engine} differs or fails: {e}\n{}", f.name, memdeps_gen::function_ir(f)),
                );
            }
            kernels += 1;
        }
    }
    eprintln!("memfwd exec: {kernels} generated kernels compared on host and emu; {forwarded} of {before_loads} loads forwarded");
    assert!(forwarded > 100, "the generated kernels have loads to forward");
}

/// Runs simt-memfwd (with `flaw`) in this process on `ir`.
fn memfwd_in_process(ir: &str, flaw: Flaw) -> String {
    let ctx = inkwell::context::Context::create();
    let mut module = simt_passes::ir::parse_ir(&ctx, "gen.ll", ir.as_bytes()).unwrap();
    let mut cache = simt_passes::analysis::cache::AnalysisCache::new();
    let mut sink = Vec::new();
    let mut cx = PassContext::new(&mut module, &mut cache, &mut sink);
    let _ = MemFwd::with_flaw(flaw).run(&mut cx).unwrap();
    simt_passes::ir::verify(&module).unwrap_or_else(|e| panic!("simt-memfwd with {flaw:?} breaks the module: {e}"));
    module.print_to_string().to_string()
}

/// The text of each function of a printed module, by name.
fn function_texts(text: &str) -> std::collections::HashMap<String, String> {
    let mut out = std::collections::HashMap::new();
    for chunk in text.split("\ndefine ").skip(1) {
        let name = chunk.split('@').nth(1).and_then(|s| s.split('(').next()).unwrap_or_default().to_string();
        out.insert(name, chunk.split("\n}\n").next().unwrap_or_default().to_string());
    }
    out
}

#[test]
fn execution_catches_a_wrong_shift() {
    let dir = tempfile::tempdir().unwrap();
    let (mut differ, mut caught) = (0usize, 0usize);
    for (m, (funcs, ir)) in generated_modules().into_iter().enumerate().take(3) {
        let good = memfwd_in_process(&ir, Flaw::None);
        let bad = memfwd_in_process(&ir, Flaw::WrongEnd);
        std::fs::write(dir.path().join(format!("gen{m}.ll")), &ir).unwrap();
        let (good_f, bad_f) = (function_texts(&good), function_texts(&bad));
        let before = dir.path().join(format!("gen{m}.ll"));
        let flawed = dir.path().join(format!("gen{m}.flawed.ll"));
        std::fs::write(&flawed, &bad).unwrap();
        for (k, f) in funcs.iter().enumerate() {
            if good_f[&f.name] == bad_f[&f.name] {
                continue;
            }
            differ += 1;
            let args = kernel_args(f, m * 1000 + k);
            let d = dir.path().join(format!("{}.dump", f.name));
            let wi = WORK_ITEMS.to_string();
            let global = (wi.as_str(), "32");
            corpus::run_kernel(&before, &f.name, global, &args, &["--dump", d.to_str().unwrap()]).unwrap();
            if corpus::run_kernel(&flawed, &f.name, global, &args, &["--compare", d.to_str().unwrap()]).is_err() {
                caught += 1;
            }
        }
    }
    eprintln!("wrong shift: {differ} kernels built differently, {caught} of them give other buffers");
    assert!(differ > 0, "the flaw changes some kernel");
    assert!(caught > 0, "running the kernels sees the wrong shift");
}

#[test]
fn memfwd_changes_no_buffer_on_the_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let modules = corpus::modules_with_o0(dir.path(), "memfwd exec");
    let (mut compared, mut forwarded, mut skipped) = (0usize, 0usize, 0usize);
    for m in &modules {
        let name = m.file_name().unwrap().to_str().unwrap().to_string();
        let after = dir.path().join(format!("{name}.memfwd.ll"));
        simt_memfwd(m, &after);
        let before_text = std::fs::read_to_string(m).unwrap();
        let after_text = std::fs::read_to_string(&after).unwrap();
        forwarded += loads(&before_text) - loads(&after_text);
        for (kernel, args) in corpus::generic_launches(&before_text, "16") {
            let dump = dir.path().join(format!("{name}.{kernel}.dump"));
            if let Err(e) = corpus::run_kernel(m, &kernel, ("128", "64"), &args, &["--dump", dump.to_str().unwrap()]) {
                eprintln!("memfwd exec: {name} {kernel}: original does not run generically, skipped: {}", e.lines().last().unwrap_or(""));
                skipped += 1;
                continue;
            }
            for engine in ["host", "emu"] {
                corpus::run_kernel(&after, &kernel, ("128", "64"), &args, &["--engine", engine, "--compare", dump.to_str().unwrap()])
                    .unwrap_or_else(|e| panic!("{name} {kernel} after simt-memfwd on {engine} differs or fails: {e}"));
            }
            compared += 1;
        }
    }
    eprintln!(
        "memfwd exec: {} corpus modules, {compared} kernels compared on host and emu, {skipped} skipped, {forwarded} loads forwarded",
        modules.len()
    );
    assert!(compared >= 20, "most corpus kernels run");
    assert!(forwarded > 0, "the pass forwarded something to check");
}
