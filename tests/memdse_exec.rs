//! `simt-memdse` changes no result: every corpus kernel (the committed -O1
//! `.ll` files, and every OpenCL source compiled again at -O0, where allocas
//! and their dead stores survive) runs on the host engine before the pass
//! and on the host engine and the emulator after it, on the same inputs,
//! and every buffer must match bit for bit. Launches are generic (global
//! 128, local 64, buffers of 4096 random elements, scalars 16, local arrays
//! of 256); a kernel whose original run fails under them is skipped.
//! The number of stores removed is asserted positive, so the test cannot
//! pass by the pass doing nothing.

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
