//! The host engine's ahead-of-time path and the GPU engine, through the CLI.

use std::process::Command;

fn simt_run(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_simt-run")).args(args).output().expect("simt-run runs")
}

const SAXPY: [&str; 13] = [
    "test-ir/kernels/saxpy.ll",
    "--kernel",
    "saxpy",
    "--global",
    "4096",
    "--local",
    "128",
    "--arg",
    "i32:4096",
    "--arg",
    "f32:2.5",
    "--arg",
    "buf:f32:4096=rand:1",
];

/// `--aot` links the same object with the system linker and loads it:
/// results identical to the JIT's, bit for bit.
#[test]
fn ahead_of_time_equals_jit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let mut jit: Vec<&str> = SAXPY.to_vec();
    jit.extend(["--arg", "buf:f32:4096=rand:2", "--dump", d]);
    assert!(simt_run(&jit).status.success());
    let mut aot: Vec<&str> = SAXPY.to_vec();
    aot.extend(["--arg", "buf:f32:4096=rand:2", "--aot", "--compare", d, "--stats", "json"]);
    let out = simt_run(&aot);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(stats["schema_version"], 1, "{stats}");
    assert_eq!(stats["engine_details"]["linked"], "ahead of time (system linker, dlopen)", "{stats}");
}

/// Without an NVIDIA driver the GPU engine says so in one line and exits 3,
/// so scripts can skip; with one, it must compute what the host computes.
#[test]
fn gpu_engine_runs_or_says_there_is_no_gpu() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let mut host: Vec<&str> = SAXPY.to_vec();
    host.extend(["--arg", "buf:f32:4096=rand:2", "--dump", d]);
    assert!(simt_run(&host).status.success());
    let mut gpu: Vec<&str> = SAXPY.to_vec();
    gpu.extend(["--arg", "buf:f32:4096=rand:2", "--engine", "gpu", "--compare", d, "--tolerance", "1"]);
    let out = simt_run(&gpu);
    let err = String::from_utf8_lossy(&out.stderr);
    if simt::engine::gpu::driver_present() {
        assert!(out.status.success() || out.status.code() == Some(3), "{err}");
    } else {
        assert_eq!(out.status.code(), Some(3), "{err}");
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        assert!(err.starts_with("simt-run: no NVIDIA GPU available for --engine gpu"), "{err}");
    }
}
