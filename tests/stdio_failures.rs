//! Both tools with stdout or stderr that cannot be written: full
//! (`/dev/full`), a pipe whose reader has gone (`| head -1`), or closed
//! (`>&-`). Never a panic (exit 101, "panicked", a backtrace) nor an abort:
//! stdout that fails is exit 1 (one `error:` line, none for a broken pipe),
//! stderr that fails is ignored unless it carries the requested output (an
//! analysis printer), and a closed stream acts as `/dev/null`.

mod common;

use std::fs::File;
use std::process::{Command, Output, Stdio};

const SAXPY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/test-ir/examples/saxpy.ll");

fn simt_opt(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_simt-opt"));
    c.args(args);
    c
}

/// saxpy on 8 work-items.
fn simt_run(extra: &[&str]) -> Command {
    let mut c = common::simt_run();
    c.args([SAXPY, "--global", "8", "--local", "4", "--arg", "i32:8", "--arg", "f32:2", "--arg", "buf:f32:8=ramp", "--arg", "buf:f32:8"]);
    c.args(extra);
    c
}

fn full() -> Stdio {
    File::options().write(true).open("/dev/full").expect("/dev/full").into()
}

/// The write end of a pipe whose read end is already closed: every write
/// fails with EPIPE.
fn closed_pipe() -> Stdio {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    writer.into()
}

/// Runs `c` with `stdout` and `stderr` as given (`None`: captured).
fn run(mut c: Command, stdout: Option<Stdio>, stderr: Option<Stdio>) -> Output {
    c.stdin(Stdio::null());
    c.stdout(stdout.unwrap_or_else(Stdio::piped));
    c.stderr(stderr.unwrap_or_else(Stdio::piped));
    c.output().unwrap()
}

/// Exit `code` (not a signal, not 101) and no panic on the captured stderr.
fn assert_exit(out: &Output, code: i32, what: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked") && !err.contains("stack backtrace"), "{what}: panicked:\n{err}");
    assert_eq!(out.status.code(), Some(code), "{what}: {:?}\n{err}", out.status);
}

#[test]
fn stdout_full_is_one_error_line_and_exit_1() {
    for (what, c) in [
        ("simt-opt -S", simt_opt(&["-S", SAXPY])),
        ("simt-opt -print-passes", simt_opt(&["-print-passes"])),
        ("simt-opt --help", simt_opt(&["--help"])),
        ("simt-opt --version", simt_opt(&["--version"])),
        ("simt-run --stats json", simt_run(&["--stats", "json"])),
        ("simt-run --help", {
            let mut c = common::simt_run();
            c.arg("--help");
            c
        }),
    ] {
        let out = run(c, Some(full()), None);
        assert_exit(&out, 1, what);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(": <stdout>: error: No space left on device"), "{what}: {err}");
        assert_eq!(err.lines().count(), 1, "{what}: {err}");
    }
}

#[test]
fn stdout_pipe_closed_early_exits_1_quietly() {
    for (what, c) in [
        ("simt-opt -S", simt_opt(&["-S", SAXPY])),
        ("simt-opt (bitcode)", simt_opt(&[SAXPY])),
        ("simt-opt -print-passes", simt_opt(&["-print-passes"])),
        ("simt-opt --help", simt_opt(&["--help"])),
        ("simt-run --stats json", simt_run(&["--stats", "json"])),
    ] {
        let out = run(c, Some(closed_pipe()), None);
        assert_exit(&out, 1, what);
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{what}");
    }
}

#[test]
fn stderr_full_or_closed_is_ignored_by_diagnostics() {
    // The summary and notes on stderr are lost; the run still succeeds.
    for (what, c) in [
        ("simt-run", simt_run(&[])),
        ("simt-run --engine emu", simt_run(&["--engine", "emu"])),
        ("simt-opt -time-passes", simt_opt(&["-passes=instcombine", "-time-passes", "-disable-output", SAXPY])),
    ] {
        let out = run(c, None, Some(full()));
        assert_exit(&out, 0, what);
    }
    let out = run(simt_run(&[]), None, Some(closed_pipe()));
    assert_exit(&out, 0, "simt-run, stderr a closed pipe");
    // An error still exits with its code when it cannot be reported.
    let out = run(simt_opt(&["-passes=nonsense", "-disable-output", SAXPY]), None, Some(full()));
    assert_exit(&out, 1, "unknown pass, stderr full");
    let out = run(simt_opt(&["--no-such-flag"]), None, Some(full()));
    assert_exit(&out, 2, "usage error, stderr full");
}

#[test]
fn printers_on_a_full_stderr_fail_with_1_not_an_abort() {
    // simt's printers report the failed write; LLVM's find out at exit
    // ("IO failure on output stream"), which used to abort (134).
    for (what, passes) in [
        ("print<simt-domtree>", "-passes=print<simt-domtree>"),
        ("print<domtree>", "-passes=print<domtree>"),
        ("-print-after-all", "-passes=instcombine"),
    ] {
        let mut args = vec![passes, "-disable-output", SAXPY];
        if what == "-print-after-all" {
            args.push("-print-after-all");
        }
        let out = run(simt_opt(&args), None, Some(full()));
        assert_exit(&out, 1, what);
        let out = run(simt_opt(&args), None, Some(closed_pipe()));
        assert_exit(&out, 1, what);
    }
}

#[test]
fn closed_stdout_acts_as_dev_null() {
    // `>&-`: Rust's runtime reopens fd 1 on /dev/null before main.
    for (what, tool, args) in [
        ("simt-opt -S", env!("CARGO_BIN_EXE_simt-opt"), vec!["-S", SAXPY]),
        ("simt-opt -print-passes", env!("CARGO_BIN_EXE_simt-opt"), vec!["-print-passes"]),
        (
            "simt-run --stats json",
            env!("CARGO_BIN_EXE_simt-run"),
            vec![
                SAXPY,
                "--global",
                "8",
                "--local",
                "4",
                "--arg",
                "i32:8",
                "--arg",
                "f32:2",
                "--arg",
                "buf:f32:8",
                "--arg",
                "buf:f32:8",
                "--stats",
                "json",
            ],
        ),
    ] {
        let mut c = Command::new("sh");
        c.arg("-c").arg(r#"exec "$0" "$@" >&-"#).arg(tool).args(&args);
        let out = run(c, None, None);
        assert_exit(&out, 0, what);
        let mut c = Command::new("sh");
        c.arg("-c").arg(r#"exec "$0" "$@" 2>&-"#).arg(tool).args(&args);
        let out = run(c, None, None);
        assert_exit(&out, 0, what);
    }
}
