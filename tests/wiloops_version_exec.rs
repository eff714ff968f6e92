//! `simt-wiloops-version` (in the host front end) checked by execution.
//!
//! Corpus kernels with bounds checks run on the host engine with launches
//! whose last work-group is partial (the bound, `n = 1000` for a local size
//! of 256, is no multiple of the work-group), so the full groups take the
//! copy of the work-item loop without the checks and the last one the
//! original; every buffer must match the emulator's (no work-item loops: the
//! reference). A kernel whose `int` global id wraps past `INT_MAX` inside a
//! work-group (a global offset just below 2^31) has both ends of the group
//! inside the bound and the middle outside: only the pass's wrap test sends
//! it to the checked loop (without that test, element 99 differs).
//!
//! So that these cannot pass by the pass doing nothing, the host front end
//! is run on each kernel and must have versioned at least one loop.

mod corpus;

use inkwell::context::Context;
use simt::frontend::{self, EngineFront};
use simt::input::ModuleInput;
use std::path::Path;

/// File, kernel, global, local, `--arg` specs, and extra flags (a global
/// offset).
type Launch = (&'static str, &'static str, &'static str, &'static str, &'static [&'static str]);

const PARTIAL: &[Launch] = &[
    ("vecadd.ll", "vecadd", "1024", "256", &["buf:f32:1000=rand:1", "buf:f32:1000=rand:2", "buf:f32:1000", "i32:1000"]),
    ("saxpy.ll", "saxpy", "1024", "256", &["i32:1000", "f32:2.5", "buf:f32:1000=rand:3", "buf:f32:1000=rand:4"]),
    ("stencil1d.ll", "stencil1d", "1024", "256", &["buf:f32:1000=rand:12", "buf:f32:1000", "local:f32:258", "i32:1000"]),
    ("stencil2d.ll", "stencil2d", "48,48", "16,16", &["buf:f32:1480=rand:13", "buf:f32:1480", "i32:40", "i32:37"]),
    (
        "matmul.ll",
        "matmul",
        "80,112",
        "16,16",
        &["buf:f32:5200=rand:6", "buf:f32:3744=rand:7", "buf:f32:7200", "i32:100", "i32:72", "i32:52"],
    ),
    ("transpose.ll", "transpose", "112,64", "16,16", &["buf:f32:6000=rand:8", "buf:f32:6000", "i32:100", "i32:60"]),
];

const WRAP_CL: &str = "__kernel void wrapguard(__global int *out, int n) {\n  int gid = get_global_id(0);\n  if (gid < n)\n    out[get_global_id(0) - get_global_offset(0)] = gid;\n}\n";

/// Runs `module` on the host engine, dumping its buffers, then on the
/// emulator comparing with them; `Err` says which failed and how.
fn host_matches_emu(
    module: &Path,
    kernel: &str,
    global: &str,
    local: &str,
    args: &[&str],
    extra: &[&str],
    dir: &Path,
) -> Result<(), String> {
    let d = dir.to_str().unwrap();
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    corpus::run_kernel(module, kernel, (global, local), &args, &[extra, &["--dump", d]].concat()).map_err(|e| format!("host: {e}"))?;
    corpus::run_kernel(module, kernel, (global, local), &args, &[extra, &["--engine", "emu", "--compare", d]].concat())
        .map_err(|e| format!("emu --compare: {e}"))
}

/// The loops the host front end versioned in `kernel` (copies of their
/// headers are named `*.fast` after the preheader's `br i1 %wiver.ok`).
fn versioned_loops(text: &[u8], kernel: &str, local: [u64; 3]) -> usize {
    let ctx = Context::create();
    let input = ModuleInput { name: kernel.into(), bytes: text.to_vec() };
    let mut module = frontend::load(&ctx, &input).expect("the module loads");
    frontend::prepare(&mut module, kernel, &EngineFront::Host { interleave: 1, local_size: Some(local) }).expect("the host front end runs");
    let ir = module.print_to_string().to_string();
    ir.lines().filter(|l| l.contains("br i1 %wiver.ok")).count()
}

fn local_size(local: &str) -> [u64; 3] {
    let mut l = [1u64; 3];
    for (k, v) in local.split(',').enumerate() {
        l[k] = v.parse().unwrap();
    }
    l
}

#[test]
fn partial_last_groups_match_the_emulator() {
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (n, (file, kernel, global, local, args)) in PARTIAL.iter().enumerate() {
        let path = corpus::dir().join(file);
        let versioned = versioned_loops(&std::fs::read(&path).unwrap(), kernel, local_size(local));
        assert!(versioned >= 1, "{file}: the host front end versioned no loop");
        let dir = tmp.path().join(format!("k{n}"));
        std::fs::create_dir_all(&dir).unwrap();
        if let Err(e) = host_matches_emu(&path, kernel, global, local, args, &[], &dir) {
            failures.push(format!("{file} ({versioned} loop(s) versioned): {e}"));
        }
    }
    assert!(failures.is_empty(), "host and emulator differ:\n{}", failures.join("\n"));
}

#[test]
fn a_global_id_that_wraps_inside_a_group_takes_the_checked_loop() {
    let tmp = tempfile::tempdir().unwrap();
    let cl = tmp.path().join("wrapguard.cl");
    std::fs::write(&cl, WRAP_CL).unwrap();
    // The IR the host engine gets: clang's, as simt-run makes it.
    let ll = tmp.path().join("wrapguard.ll");
    let ok = std::process::Command::new("clang-22")
        .args(["-cl-std=CL2.0", "-target", "spir64", "-O2", "-emit-llvm", "-S"])
        .arg(&cl)
        .arg("-o")
        .arg(&ll)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "clang-22 compiles the kernel");
    assert_eq!(versioned_loops(&std::fs::read(&ll).unwrap(), "wrapguard", [256, 1, 1]), 1);
    // gid = 2^31 - 100 + i: below INT_MAX = n for i < 99, equal at 99,
    // negative (wrapped) from 100 on: true at both ends of group 0.
    let dir = tmp.path().join("out");
    std::fs::create_dir_all(&dir).unwrap();
    let offset = ["--global-offset", "2147483548"];
    host_matches_emu(&ll, "wrapguard", "512", "256", &["buf:i32:512", "i32:2147483647"], &offset, &dir).unwrap();
    let out = std::fs::read(dir.join("arg0.bin")).unwrap();
    let at = |i: usize| i32::from_le_bytes(out[4 * i..4 * i + 4].try_into().unwrap());
    assert_eq!((at(98), at(99), at(100)), (i32::MAX - 1, 0, i32::MIN), "the work-items around the wrap");
}
