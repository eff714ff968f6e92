//! simt-run reads its module once: `-` is standard input, and a pipe,
//! `/dev/stdin` or a FIFO gives the same buffers as the file itself
//! (`simt-opt … | simt-run - …`), text or bitcode, on every engine.

mod common;

use common::simt_run;
use std::path::Path;
use std::process::{Command, Stdio};

const SAXPY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/test-ir/examples/saxpy.ll");
const ARGS: &[&str] =
    &["--global", "64", "--local", "16", "--arg", "i32:64", "--arg", "f32:2.5", "--arg", "buf:f32:64=rand:1", "--arg", "buf:f32:64=ramp"];

/// `simt-opt OPT_ARGS saxpy.ll | simt-run MODULE RUN_ARGS… --dump DUMP`;
/// returns the result buffer (argument 3).
fn piped(opt_args: &[&str], module: &[&str], run_args: &[&str], dump: &Path) -> Vec<u8> {
    let mut opt = Command::new(env!("CARGO_BIN_EXE_simt-opt")).args(opt_args).arg(SAXPY).stdout(Stdio::piped()).spawn().unwrap();
    let out = simt_run().args(module).args(ARGS).args(run_args).arg("--dump").arg(dump).stdin(opt.stdout.take().unwrap()).output().unwrap();
    assert!(opt.wait().unwrap().success());
    assert!(out.status.success(), "{module:?} {run_args:?}: {}", String::from_utf8_lossy(&out.stderr));
    std::fs::read(dump.join("arg3.bin")).unwrap()
}

fn from_file(run_args: &[&str], dump: &Path) -> Vec<u8> {
    let out = simt_run().arg(SAXPY).args(ARGS).args(run_args).arg("--dump").arg(dump).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::read(dump.join("arg3.bin")).unwrap()
}

#[test]
fn text_ir_on_stdin_gives_the_files_buffers() {
    let d = tempfile::tempdir().unwrap();
    let want = from_file(&[], &d.path().join("file"));
    assert_eq!(piped(&["-S"], &["-"], &["--kernel", "saxpy"], &d.path().join("dash")), want);
    assert_eq!(piped(&["-S"], &["/dev/stdin"], &[], &d.path().join("devstdin")), want);
}

#[test]
fn bitcode_on_stdin_on_the_emulator() {
    let d = tempfile::tempdir().unwrap();
    let want = from_file(&["--engine", "emu"], &d.path().join("file"));
    assert_eq!(piped(&[], &["-"], &["--engine", "emu"], &d.path().join("bc")), want);
}

#[test]
fn a_fifo_is_read_once() {
    let d = tempfile::tempdir().unwrap();
    let want = from_file(&[], &d.path().join("file"));
    let fifo = d.path().join("k.fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(&fifo, std::fs::read(SAXPY).unwrap()))
    };
    let dump = d.path().join("fifo");
    let out = simt_run().arg(&fifo).args(ARGS).arg("--dump").arg(&dump).output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read(dump.join("arg3.bin")).unwrap(), want);
}

#[test]
fn stdin_errors_name_stdin() {
    let run = |input: &str, args: &[&str]| {
        let mut c = simt_run().arg("-").args(args).stdin(Stdio::piped()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
        use std::io::Write;
        c.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
        let out = c.wait_with_output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (code, err) = run("garbage\n", ARGS);
    assert_eq!(code, Some(1));
    assert!(err.contains("simt-run: <stdin>:1:1: error: expected top-level entity"), "{err}");
    let text = std::fs::read_to_string(SAXPY).unwrap();
    let mut args = vec!["--kernel", "nope"];
    args.extend_from_slice(ARGS);
    let (code, err) = run(&text, &args);
    assert_eq!(code, Some(1));
    assert!(err.contains("no kernel 'nope' in <stdin>; kernels: _Z5saxpyifPKfPf"), "{err}");
}

#[test]
fn launch_file_module_dash_is_stdin() {
    let d = tempfile::tempdir().unwrap();
    let want = from_file(&[], &d.path().join("file"));
    let launch = d.path().join("run.launch");
    std::fs::write(&launch, "module = -\n").unwrap();
    let got = piped(&["-S"], &["--launch", launch.to_str().unwrap()], &[], &d.path().join("launch"));
    assert_eq!(got, want);
}
