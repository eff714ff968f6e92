//! The corpus launches (`test-ir/kernels`), one per kernel: those of
//! `scripts/bench-emu` and one for `local_atomics`, shared by the tests that
//! run every corpus kernel (`checker.rs` checks that every kernel of the
//! folder is listed); and generic launches made from a kernel's parameter
//! types, for tests that run every kernel of a module whatever it is.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// File, global size, local size, `--arg` specs.
pub type Launch = (&'static str, &'static str, &'static str, &'static [&'static str]);

pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("test-ir/kernels")
}

pub const LAUNCHES: &[Launch] = &[
    ("vecadd.ll", "20480", "128", &["buf:f32:20000=rand:1", "buf:f32:20000=rand:2", "buf:f32:20000", "i32:20000"]),
    ("vecadd.cu.ll", "20480", "128", &["buf:f32:20000=rand:1", "buf:f32:20000=rand:2", "buf:f32:20000", "i32:20000"]),
    ("saxpy.ll", "16384", "64", &["i32:16384", "f32:2.5", "buf:f32:16384=rand:3", "buf:f32:16384=rand:4"]),
    ("reduction.ll", "4096", "128", &["buf:f32:40037=rand:5", "buf:f32:32", "local:f32:128", "u32:40037"]),
    ("reduction.cu.ll", "4096", "128", &["buf:f32:40037=rand:5", "buf:f32:32", "u32:40037"]),
    ("matmul.ll", "80,112", "16,16", &["buf:f32:5200=rand:6", "buf:f32:3744=rand:7", "buf:f32:7200", "i32:100", "i32:72", "i32:52"]),
    ("matmul.cu.ll", "80,112", "16,16", &["buf:f32:5200=rand:6", "buf:f32:3744=rand:7", "buf:f32:7200", "i32:100", "i32:72", "i32:52"]),
    ("transpose.ll", "112,64", "16,16", &["buf:f32:6000=rand:8", "buf:f32:6000", "i32:100", "i32:60"]),
    ("scan.ll", "8192", "128", &["buf:u32:8192=rand:9", "buf:u32:8192", "buf:u32:64", "local:u32:256"]),
    ("histogram.ll", "2048", "128", &["buf:u8:50013=rand:10", "u32:50013", "buf:u32:256=rand:11"]),
    ("stencil1d.ll", "8192", "128", &["buf:f32:8192=rand:12", "buf:f32:8192", "local:f32:130", "i32:8192"]),
    ("stencil2d.ll", "256,144", "16,16", &["buf:f32:32500=rand:13", "buf:f32:32500", "i32:250", "i32:130"]),
    ("uniform_if_barrier.ll", "2048", "64", &["buf:i32:2048=rand:14", "buf:i32:2048", "local:i32:64", "i32:0"]),
    ("loop_break_barrier.ll", "2048", "64", &["buf:i32:2048=rand:15", "buf:i32:2048", "buf:i32:32", "local:i32:64", "i32:65536", "i32:64"]),
    ("live_across_barriers.ll", "2048", "64", &["buf:i32:16384=rand:16", "buf:i32:16384", "local:i32:64"]),
    ("varying_trip_barrier.ll", "1920", "96", &["buf:u32:1920=rand:17", "buf:u32:1920", "buf:u32:1920", "local:u32:96"]),
    ("region_private.ll", "2048", "64", &["buf:i32:2048=rand:18", "buf:i32:2048", "local:i32:64"]),
    ("nested_exit.ll", "2048", "128", &["buf:i32:2048=rand:31", "buf:i32:2048", "i32:2048", "i32:16", "i32:5"]),
    ("short_circuit.ll", "2048", "128", &["buf:i32:2048=rand:32", "buf:i32:2048=rand:33", "buf:i32:2048", "i32:2048", "i32:24"]),
    ("break_continue.cu.ll", "2048", "128", &["buf:i32:2000=rand:34", "buf:i32:2000", "i32:2000", "i32:32"]),
    ("state_machine.cu.ll", "2048", "128", &["buf:i32:2000=rand:35", "buf:i32:2000", "i32:2000", "i32:32"]),
    // Not in scripts/bench-emu: the launch of tests/kernels.rs (8 work-groups).
    ("local_atomics.ll", "1024", "128", &["buf:i32:1024=rand:1", "buf:i32:104", "buf:i32:1024"]),
];

/// Every kernel of the module `text` with arguments made from its parameter
/// types: a buffer of 4096 random `i32` per global pointer, 256 `i32` of
/// local memory per local pointer, 1.5 per float, and `int` (`"100"`,
/// `"16"`…) per integer, which bounds the loops that count to it.
pub fn generic_launches(text: &str, int: &str) -> Vec<(String, Vec<String>)> {
    let ctx = inkwell::context::Context::create();
    let Ok(module) = simt_passes::ir::parse_ir(&ctx, "corpus", text.as_bytes()) else { return Vec::new() };
    let mut out = Vec::new();
    for f in simt_passes::ir::defined_functions(&module) {
        if !simt_passes::kernel_model::is_kernel(f) {
            continue;
        }
        let args = simt_passes::ir::parameters(f)
            .into_iter()
            .map(|p| match p.ty().print().as_str() {
                "ptr addrspace(3)" => "local:i32:256".to_string(),
                t if t.starts_with("ptr") => "buf:i32:4096=rand:9".to_string(),
                "float" => "f32:1.5".to_string(),
                "double" => "f64:1.5".to_string(),
                t @ ("i64" | "i16" | "i8") => format!("{t}:{int}"),
                _ => format!("i32:{int}"),
            })
            .collect();
        out.push((simt_passes::ir::function_name(f), args));
    }
    out
}

/// `simt-run MODULE --global G --local L --arg A… EXTRA…`.
pub fn simt_run(module: &Path, global: &str, local: &str, args: &[&str], extra: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_simt-run"));
    c.arg(module).args(["--global", global, "--local", local]);
    for a in args {
        c.args(["--arg", a]);
    }
    c.args(extra).output().expect("cannot start simt-run")
}

/// `simt-run MODULE --kernel K --global G --local L --arg A… EXTRA…`:
/// `Err` holds its stderr when it fails.
pub fn run_kernel(module: &Path, kernel: &str, (global, local): (&str, &str), args: &[String], extra: &[&str]) -> Result<(), String> {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = simt_run(module, global, local, &args, &[&["--kernel", kernel][..], extra].concat());
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// Every corpus module (`*.ll`, not the `invalid*` ones) and, for each
/// OpenCL source, its `clang-22 -O0` build written to `tmp` (allocas, loads
/// and stores left in, for the memory passes); sorted. A source clang cannot
/// compile is skipped with a line naming `who`.
pub fn modules_with_o0(tmp: &Path, who: &str) -> Vec<PathBuf> {
    let mut modules: Vec<PathBuf> = Vec::new();
    for entry in std::fs::read_dir(dir()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if name.starts_with("invalid") {
            continue;
        }
        if name.ends_with(".ll") {
            modules.push(path.clone());
        }
        if let Some(stem) = name.strip_suffix(".cl") {
            let o0 = tmp.join(format!("{stem}.O0.ll"));
            let ok = Command::new("clang-22")
                .args(["-cl-std=CL2.0", "-target", "spir64", "-O0", "-Xclang", "-disable-O0-optnone", "-emit-llvm", "-S"])
                .arg(&path)
                .arg("-o")
                .arg(&o0)
                .status()
                .is_ok_and(|s| s.success());
            if ok {
                modules.push(o0);
            } else {
                eprintln!("{who}: clang-22 could not compile {name} at -O0; skipped");
            }
        }
    }
    modules.sort();
    modules
}
