//! `simt-memdse` changes no result: every corpus kernel (the committed -O1
//! `.ll` files, and every OpenCL source compiled again at -O0, where allocas
//! and their dead stores survive) runs on the host engine before the pass
//! and on the host engine and the emulator after it, on the same inputs,
//! and every buffer must match bit for bit. Launches are generic (global
//! 128, local 64, buffers of 4096 random elements, scalars 16, local arrays
//! of 256); a kernel whose original run fails under them is skipped.
//! The number of stores removed is asserted positive, so the test cannot
//! pass by the pass doing nothing.
//!
//! Loop fills the same way: kernels from seed 003's oracle generator with
//! fill loops (`generate_fills`: whole fills, 2-D, and loops that are not
//! fills), whose objects start with a `memset` or `memcpy` that a later
//! fill makes dead; the pass must remove more stores than it could without
//! fills, and change no buffer.

#[path = "../passes/tests/memdeps_gen/mod.rs"]
mod memdeps_gen;

mod corpus;

use std::process::Command;

fn stores(text: &str) -> usize {
    text.lines()
        .filter(|l| {
            let l = l.trim_start();
            l.starts_with("store ")
                || l.contains("call void @llvm.memset")
                || l.contains("call void @llvm.memcpy")
                || l.contains("call void @llvm.memmove")
        })
        .count()
}

#[test]
fn memdse_changes_no_buffer_on_the_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let modules = corpus::modules_with_o0(dir.path(), "memdse exec");
    let (mut compared, mut removed, mut skipped) = (0usize, 0usize, 0usize);
    for m in &modules {
        let name = m.file_name().unwrap().to_str().unwrap().to_string();
        let after = dir.path().join(format!("{name}.memdse.ll"));
        let out =
            Command::new(env!("CARGO_BIN_EXE_simt-opt")).arg(m).args(["-passes=simt-memdse", "-S", "-o"]).arg(&after).output().unwrap();
        assert!(out.status.success(), "simt-memdse on {name}: {}", String::from_utf8_lossy(&out.stderr));
        let before_text = std::fs::read_to_string(m).unwrap();
        let after_text = std::fs::read_to_string(&after).unwrap();
        let gone = stores(&before_text) - stores(&after_text);
        for (kernel, args) in corpus::generic_launches(&before_text, "16") {
            let dump = dir.path().join(format!("{name}.{kernel}.dump"));
            if let Err(e) = corpus::run_kernel(m, &kernel, ("128", "64"), &args, &["--dump", dump.to_str().unwrap()]) {
                eprintln!("memdse exec: {name} {kernel}: original does not run generically, skipped: {}", e.lines().last().unwrap_or(""));
                skipped += 1;
                continue;
            }
            for engine in ["host", "emu"] {
                corpus::run_kernel(&after, &kernel, ("128", "64"), &args, &["--engine", engine, "--compare", dump.to_str().unwrap()])
                    .unwrap_or_else(|e| panic!("{name} {kernel} after simt-memdse on {engine} differs or fails: {e}"));
            }
            compared += 1;
        }
        removed += gone;
    }
    eprintln!(
        "memdse exec: {} modules, {compared} kernels compared on host and emu, {skipped} skipped, {removed} stores removed",
        modules.len()
    );
    assert!(compared >= 20, "most corpus kernels run");
    assert!(removed > 0, "the pass removed something to check");
}

#[test]
fn memdse_after_loop_fills_changes_no_buffer() {
    use memdeps_gen::{generate_fills, kernel_module_ir, kernel_out_bytes, Func, Rng, KERNEL_IN_BYTES};
    use simt_passes::analysis::memdeps::{dataflow::Config, MemDeps};
    const WORK_ITEMS: u64 = 64;
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(41);
    let funcs: Vec<Func> = (0..40).map(|k| generate_fills(&mut rng, &format!("k{k}"))).collect();
    let ir = kernel_module_ir(&funcs);
    // In this process: dead stores with and without fills.
    let (mut with, mut without) = (0usize, 0usize);
    {
        let ctx = inkwell::context::Context::create();
        let module = simt_passes::ir::parse_ir(&ctx, "gen.ll", ir.as_bytes()).unwrap();
        let mut cache = simt_passes::analysis::cache::AnalysisCache::new();
        for f in &funcs {
            let fa = cache.get(module.get_function(&f.name).unwrap());
            with += simt_passes::transform::memdse::dead_stores(fa.memdeps()).len();
            let plain = MemDeps::compute(&fa.cfg, fa.dom(), Config { fills: false, ..Config::SOUND });
            without += simt_passes::transform::memdse::dead_stores(&plain).len();
        }
    }
    let before = dir.path().join("fills.ll");
    let after = dir.path().join("fills.memdse.ll");
    std::fs::write(&before, &ir).unwrap();
    let out =
        Command::new(env!("CARGO_BIN_EXE_simt-opt")).arg(&before).args(["-passes=simt-memdse", "-S", "-o"]).arg(&after).output().unwrap();
    assert!(out.status.success(), "simt-memdse: {}", String::from_utf8_lossy(&out.stderr));
    let removed = stores(&ir) - stores(&std::fs::read_to_string(&after).unwrap());
    for (k, f) in funcs.iter().enumerate() {
        let args =
            vec![format!("buf:u8:{}=rand:{k}", WORK_ITEMS * KERNEL_IN_BYTES), format!("buf:u8:{}", WORK_ITEMS * kernel_out_bytes(f))];
        let d = dir.path().join(format!("{}.dump", f.name));
        let wi = WORK_ITEMS.to_string();
        corpus::run_kernel(&before, &f.name, (&wi, "32"), &args, &["--dump", d.to_str().unwrap()])
            .unwrap_or_else(|e| panic!("{} does not run before the pass: {e}", f.name));
        for engine in ["host", "emu"] {
            corpus::run_kernel(&after, &f.name, (&wi, "32"), &args, &["--engine", engine, "--compare", d.to_str().unwrap()])
                .unwrap_or_else(|e| {
                    panic!("{} after simt-memdse on {engine} differs or fails: {e}\n{}", f.name, memdeps_gen::function_ir(f))
                });
        }
    }
    eprintln!("memdse exec, fill kernels: {} kernels compared on host and emu; {removed} stores removed ({with} dead with fills, {without} without)", funcs.len());
    assert!(with > without, "fills make stores dead");
    assert!(removed >= with, "the pass removes what the fills make dead");
}
