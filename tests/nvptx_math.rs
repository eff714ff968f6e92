//! Every math built-in `simt-lower-ocl-builtins` lowers for the host (the
//! scalar ones in float and double, plus `exp`/`pow` on a 4-vector) lowers
//! for NVPTX: `simt-to-nvptx` maps them to NVIDIA's libdevice and links it,
//! the module lowers to PTX for sm_70, sm_80 and sm_90, and ptxas assembles
//! each. The values are then checked by execution: the NVPTX-mapped module on
//! the emulator against the OpenCL original on the host. The emulator runs
//! each `__nv_*` function as the C math function it names (libdevice's bodies
//! use `llvm.nvvm.*` arithmetic intrinsics it does not implement), so this
//! checks the mapping (names, argument order, vector lanes), not libdevice's
//! arithmetic; a GPU run would check that.
//!
//! Input: test-ir/nvptx/Inputs/math.cl (one output row per built-in).
//! Needs libdevice (scripts/setup) and ptxas; both are in .tools/.

use std::path::Path;
use std::process::Command;

const INPUT: &str = "test-ir/nvptx/Inputs/math.ll";
const ROWS: usize = 57; // rows of `out` in math.cl: 56 scalar built-ins + the vector one
const N: usize = 256;

fn to_nvptx(dir: &Path) -> std::path::PathBuf {
    let out = dir.join("math.nvptx.ll");
    let r = Command::new(env!("CARGO_BIN_EXE_simt-opt"))
        .args(["-passes=always-inline,simt-lower-ocl-builtins,simt-to-nvptx", "-S", INPUT, "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(r.status.success(), "simt-to-nvptx on math.ll: {}", String::from_utf8_lossy(&r.stderr));
    out
}

#[test]
fn every_math_builtin_lowers_and_assembles_for_sm_70_80_90() {
    let dir = tempfile::tempdir().unwrap();
    let ir = to_nvptx(dir.path());
    let text = std::fs::read_to_string(&ir).unwrap();
    assert!(!text.contains("declare float @__nv_") && !text.contains("declare double @__nv_"), "libdevice not linked:\n{text}");
    for sm in ["sm_70", "sm_80", "sm_90"] {
        let ptx = dir.path().join(format!("math.{sm}.ptx"));
        let r = Command::new(env!("CARGO_BIN_EXE_simt-opt"))
            .args(["-passes=default<O2>", &format!("-mcpu={sm}"), "--filetype=asm"])
            .arg(&ir)
            .arg("-o")
            .arg(&ptx)
            .output()
            .unwrap();
        assert!(r.status.success(), "lowering for {sm}: {}", String::from_utf8_lossy(&r.stderr));
        // Never -o /dev/null: ptxas deletes its output file when it fails.
        let r = Command::new(".tools/bin/ptxas")
            .args([&format!("-arch={sm}")])
            .arg(&ptx)
            .arg("-o")
            .arg(dir.path().join(format!("math.{sm}.cubin")))
            .output()
            .expect("ptxas (run scripts/setup)");
        assert!(r.status.success(), "ptxas {sm}: {}", String::from_utf8_lossy(&r.stderr));
    }
}

#[test]
fn math_builtins_compute_the_same_on_the_emulator_after_simt_to_nvptx() {
    let dir = tempfile::tempdir().unwrap();
    let ir = to_nvptx(dir.path());
    for (kernel, ty) in [("math_f32", "f32"), ("math_f64", "f64")] {
        let n = N.to_string();
        let args = [
            "--kernel".to_string(),
            kernel.to_string(),
            "--global".into(),
            n.clone(),
            "--local".into(),
            "64".into(),
            "--arg".into(),
            format!("buf:{ty}:{N}=rand:1"),
            "--arg".into(),
            format!("buf:{ty}:{N}=rand:2"),
            "--arg".into(),
            format!("buf:{ty}:{N}=rand:3"),
            "--arg".into(),
            format!("buf:{ty}:{}", ROWS * N),
            "--arg".into(),
            format!("i32:{N}"),
        ];
        let dump = dir.path().join(kernel);
        let host = Command::new(env!("CARGO_BIN_EXE_simt-run")).arg(INPUT).args(&args).arg("--dump").arg(&dump).output().unwrap();
        assert!(host.status.success(), "{kernel} on host: {}", String::from_utf8_lossy(&host.stderr));
        let emu = Command::new(env!("CARGO_BIN_EXE_simt-run"))
            .arg(&ir)
            .args(&args)
            // Both sides call the same C functions except where the host
            // vectorises (its vector math) or fuses differently: 4 ULP.
            .args(["--engine", "emu", "--tolerance", "4", "--compare"])
            .arg(&dump)
            .output()
            .unwrap();
        assert!(emu.status.success(), "{kernel} after simt-to-nvptx: {}", String::from_utf8_lossy(&emu.stderr));
    }
}
