//! `simt-to-nvptx` checked by execution: the OpenCL kernel as clang made it
//! runs on the host engine, the CUDA-dialect IR the pass makes of it runs on
//! the SIMT emulator (which executes NVPTX special registers, bar.sync,
//! 32-bit shared pointers and the dynamic shared memory that `__local`
//! pointer arguments become), and the buffers must be equal. Every OpenCL
//! kernel of the corpus but invalid_barrier (which is meant to fail), local
//! memory included: static `__local` arrays (histogram, matmul, transpose)
//! and `__local` pointer arguments (reduction, scan, stencil1d, …).
//! ptxas checks the same output in test-ir/nvptx/ptxas-corpus.test.

use std::process::Command;

#[test]
fn opencl_kernels_compute_the_same_after_simt_to_nvptx() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "vecadd",
            "vecadd",
            &[
                "--global",
                "4096",
                "--local",
                "128",
                "--arg",
                "buf:f32:4096=rand:1",
                "--arg",
                "buf:f32:4096=rand:2",
                "--arg",
                "buf:f32:4096",
                "--arg",
                "i32:4000",
            ],
        ),
        (
            "saxpy",
            "saxpy",
            &[
                "--global",
                "4096",
                "--local",
                "64",
                "--arg",
                "i32:4000",
                "--arg",
                "f32:2.5",
                "--arg",
                "buf:f32:4096=rand:3",
                "--arg",
                "buf:f32:4096=rand:4",
            ],
        ),
        (
            "stencil2d",
            "stencil2d",
            &[
                "--global",
                "64,48",
                "--local",
                "16,16",
                "--arg",
                "buf:f32:3072=rand:5",
                "--arg",
                "buf:f32:3072",
                "--arg",
                "i32:64",
                "--arg",
                "i32:48",
            ],
        ),
        (
            "histogram",
            "histogram256",
            &["--global", "4096", "--local", "256", "--arg", "buf:u8:65536=rand:6", "--arg", "u32:65536", "--arg", "buf:u32:256"],
        ),
        (
            "live_across_barriers",
            "live_across_barriers",
            &["--global", "1024", "--local", "128", "--arg", "buf:i32:8192=rand:7", "--arg", "buf:i32:8192", "--arg", "local:i32:128"],
        ),
        (
            "loop_break_barrier",
            "loop_break_barrier",
            &[
                "--global",
                "512",
                "--local",
                "64",
                "--arg",
                "buf:i32:512=rand:8",
                "--arg",
                "buf:i32:512",
                "--arg",
                "buf:i32:8",
                "--arg",
                "local:i32:64",
                "--arg",
                "i32:1000",
                "--arg",
                "i32:20",
            ],
        ),
        (
            "matmul",
            "matmul",
            &[
                "--global",
                "64,32",
                "--local",
                "16,16",
                "--arg",
                "buf:f32:3072=rand:9",
                "--arg",
                "buf:f32:3072=rand:10",
                "--arg",
                "buf:f32:2048",
                "--arg",
                "i32:32",
                "--arg",
                "i32:64",
                "--arg",
                "i32:48",
            ],
        ),
        (
            "nested_exit",
            "nested_exit",
            &[
                "--global",
                "512",
                "--local",
                "64",
                "--arg",
                "buf:i32:8192=rand:11",
                "--arg",
                "buf:i32:512",
                "--arg",
                "i32:512",
                "--arg",
                "i32:16",
                "--arg",
                "i32:7",
            ],
        ),
        (
            "reduction",
            "reduce_sum",
            &[
                "--global",
                "65536",
                "--local",
                "256",
                "--arg",
                "buf:f32:65536=rand:12",
                "--arg",
                "buf:f32:256",
                "--arg",
                "local:f32:256",
                "--arg",
                "u32:65536",
            ],
        ),
        (
            "scan",
            "scan_inclusive",
            &[
                "--global",
                "2048",
                "--local",
                "256",
                "--arg",
                "buf:u32:2048=rand:13",
                "--arg",
                "buf:u32:2048",
                "--arg",
                "buf:u32:8",
                "--arg",
                "local:u32:512",
            ],
        ),
        (
            "short_circuit",
            "short_circuit",
            &[
                "--global",
                "1024",
                "--local",
                "64",
                "--arg",
                "buf:i32:1024=rand:14",
                "--arg",
                "buf:i32:1024=rand:15",
                "--arg",
                "buf:i32:1024",
                "--arg",
                "i32:1024",
                "--arg",
                "i32:8",
            ],
        ),
        (
            "stencil1d",
            "stencil1d",
            &[
                "--global",
                "4096",
                "--local",
                "128",
                "--arg",
                "buf:f32:4096=rand:16",
                "--arg",
                "buf:f32:4096",
                "--arg",
                "local:f32:130",
                "--arg",
                "i32:4096",
            ],
        ),
        (
            "transpose",
            "transpose",
            &[
                "--global",
                "64,48",
                "--local",
                "16,16",
                "--arg",
                "buf:f32:3072=rand:17",
                "--arg",
                "buf:f32:3072",
                "--arg",
                "i32:64",
                "--arg",
                "i32:48",
            ],
        ),
        (
            "uniform_if_barrier",
            "uniform_if_barrier",
            &[
                "--global",
                "1024",
                "--local",
                "128",
                "--arg",
                "buf:i32:1024=rand:18",
                "--arg",
                "buf:i32:1024",
                "--arg",
                "local:i32:128",
                "--arg",
                "i32:1",
            ],
        ),
        // Generic pointers into helpers (NVPTX generic 0, not constant 4) and
        // a __constant argument and variable (global memory).
        (
            "test-ir/nvptx/Inputs/address-spaces.ll",
            "k",
            &["--global", "256", "--local", "64", "--arg", "buf:f32:256=rand:20", "--arg", "buf:f32:4=rand:21"],
        ),
        (
            "varying_trip_barrier",
            "varying_trip_barrier",
            &[
                "--global",
                "1024",
                "--local",
                "64",
                "--arg",
                "buf:u32:1024=rand:19",
                "--arg",
                "buf:u32:1024",
                "--arg",
                "buf:u32:1024",
                "--arg",
                "local:u32:64",
            ],
        ),
    ];
    for &(file, kernel, launch) in cases {
        let dir = tempfile::tempdir().unwrap();
        let ptx_ir = dir.path().join("nvptx.ll");
        let st = Command::new(env!("CARGO_BIN_EXE_simt-opt"))
            .args(["-passes=always-inline,simt-lower-ocl-builtins,simt-to-nvptx", "-S", &source(file), "-o"])
            .arg(&ptx_ir)
            .status()
            .unwrap();
        assert!(st.success(), "{file}: simt-to-nvptx failed");
        let dump = dir.path().join("host");
        let host = Command::new(env!("CARGO_BIN_EXE_simt-run"))
            .args([&source(file), "--kernel", kernel])
            .args(launch)
            .arg("--dump")
            .arg(&dump)
            .output()
            .unwrap();
        assert!(host.status.success(), "{file} on host: {}", String::from_utf8_lossy(&host.stderr));
        let emu = Command::new(env!("CARGO_BIN_EXE_simt-run"))
            .arg(&ptx_ir)
            .args(["--kernel", kernel])
            .args(launch)
            // saxpy: the host may fuse a*x+y (llvm.fmuladd) where the
            // emulator fuses always: 1 ULP.
            .args(["--engine", "emu", "--tolerance", "1", "--compare"])
            .arg(&dump)
            .output()
            .unwrap();
        assert!(emu.status.success(), "{file} after simt-to-nvptx: {}", String::from_utf8_lossy(&emu.stderr));
    }
}

/// A corpus kernel by name, or a path of its own.
fn source(file: &str) -> String {
    if file.contains('/') {
        file.to_string()
    } else {
        format!("test-ir/kernels/{file}.ll")
    }
}
