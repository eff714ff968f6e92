//! `simt-to-nvptx` checked by execution: the OpenCL kernel as clang made it
//! runs on the host engine, the CUDA-dialect IR the pass makes of it runs on
//! the SIMT emulator (which executes NVPTX special registers and bar.sync),
//! and the buffers must be equal. Only kernels without local memory: NVPTX's
//! data layout makes shared-memory pointers 32-bit, which the emulator does
//! not execute (its addresses are 64-bit), and `__local` pointer arguments
//! become dynamic shared memory, which it does not model. The others are
//! checked by ptxas only (test-ir/nvptx).

use std::process::Command;

#[test]
fn opencl_kernels_compute_the_same_after_simt_to_nvptx() {
    let cases: [(&str, &str, &[&str]); 3] = [
        ("vecadd", "vecadd", &["--global", "4096", "--local", "128", "--arg", "buf:f32:4096=rand:1", "--arg", "buf:f32:4096=rand:2", "--arg", "buf:f32:4096", "--arg", "i32:4000"]),
        ("saxpy", "saxpy", &["--global", "4096", "--local", "64", "--arg", "i32:4000", "--arg", "f32:2.5", "--arg", "buf:f32:4096=rand:3", "--arg", "buf:f32:4096=rand:4"]),
        ("stencil2d", "stencil2d", &["--global", "64,48", "--local", "16,16", "--arg", "buf:f32:3072=rand:5", "--arg", "buf:f32:3072", "--arg", "i32:64", "--arg", "i32:48"]),
    ];
    for (file, kernel, launch) in cases {
        let dir = tempfile::tempdir().unwrap();
        let ptx_ir = dir.path().join(format!("{file}.nvptx.ll"));
        let st = Command::new(env!("CARGO_BIN_EXE_simt-opt"))
            .args(["-passes=always-inline,simt-lower-ocl-builtins,simt-to-nvptx", "-S", &format!("test-ir/kernels/{file}.ll"), "-o"])
            .arg(&ptx_ir)
            .status()
            .unwrap();
        assert!(st.success(), "{file}: simt-to-nvptx failed");
        let dump = dir.path().join("host");
        let host = Command::new(env!("CARGO_BIN_EXE_simt-run"))
            .args([&format!("test-ir/kernels/{file}.ll"), "--kernel", kernel])
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
