//! `--dump` and `--compare` together: the references are read before the
//! kernel runs, so nothing the run writes can change them; the same folder for
//! both, however spelt, is a usage error (exit 2) that leaves the references
//! alone.

use std::path::Path;
use std::process::{Command, Output};

const SAXPY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/test-ir/examples/saxpy.ll");

/// Work-items 5.. of each group skip the barrier: every run fails.
const DIVERGENT: &str = include_str!("../test-ir/errors/Inputs/divergent-barrier.ll");

/// saxpy in `dir` (the working folder) with `extra` flags.
fn saxpy(dir: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_simt-run"))
        .current_dir(dir)
        .args([
            SAXPY,
            "--global",
            "64",
            "--local",
            "16",
            "--arg",
            "i32:64",
            "--arg",
            "f32:2",
            "--arg",
            "buf:f32:64=ramp",
            "--arg",
            "buf:f32:64=const:1",
        ])
        .args(extra)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A folder with `ref/` holding saxpy's buffers, the result (arg3) nudged so
/// that a real comparison fails.
fn with_wrong_reference() -> (tempfile::TempDir, Vec<u8>) {
    let d = tempfile::tempdir().unwrap();
    let o = saxpy(d.path(), &["--dump", "ref"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let path = d.path().join("ref/arg3.bin");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[0] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    (d, bytes)
}

#[test]
fn the_same_folder_however_spelt_is_refused() {
    let (d, nudged) = with_wrong_reference();
    std::os::unix::fs::symlink("ref", d.path().join("link")).unwrap();
    std::fs::create_dir(d.path().join("sub")).unwrap();
    let abs = d.path().join("ref");
    let abs = abs.to_str().unwrap();
    for (dump, compare) in [
        ("ref", "ref"),
        ("./ref/", "ref"),
        ("ref", "./ref/."),
        ("link", "ref"),
        ("ref", "link/"),
        ("sub/../ref", "ref"),
        ("ref/missing/..", "ref"),
        (abs, "ref"),
    ] {
        let o = saxpy(d.path(), &["--dump", dump, "--compare", compare]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "--dump {dump} --compare {compare}: {err}");
        assert!(err.contains(&format!("simt-run: error: --dump {dump} and --compare {compare} name the same folder")), "{err}");
        assert_eq!(std::fs::read(d.path().join("ref/arg3.bin")).unwrap(), nudged, "--dump {dump} overwrote the reference");
    }
    // A launch file's dump and the command line's compare, too.
    std::fs::write(d.path().join("run.launch"), "dump = ref\n").unwrap();
    let o = saxpy(d.path(), &["--launch", "run.launch", "--compare", "ref/"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // Different folders: the comparison runs and finds the nudged element.
    let o = saxpy(d.path(), &["--dump", "out", "--compare", "ref"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("1 of 2 compared buffer(s) differ from ref"), "{}", stderr(&o));
    assert!(d.path().join("out/arg3.bin").exists());
}

#[test]
fn references_are_read_before_the_dump_writes_through_a_link() {
    // out/arg3.bin is a link to the reference: the dump replaces the
    // reference's contents, but the comparison uses what was there before.
    let (d, _) = with_wrong_reference();
    std::fs::create_dir(d.path().join("out")).unwrap();
    std::os::unix::fs::symlink("../ref/arg3.bin", d.path().join("out/arg3.bin")).unwrap();
    let o = saxpy(d.path(), &["--dump", "out", "--compare", "ref"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("argument 3 differs from ref/arg3.bin in 1 of 64 f32 elements"), "{}", stderr(&o));
}

#[test]
fn reference_sizes_are_checked_before_the_kernel_runs() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("bad.ll"), DIVERGENT).unwrap();
    std::fs::create_dir(d.path().join("ref")).unwrap();
    std::fs::write(d.path().join("ref/arg0.bin"), [0u8; 12]).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_simt-run"))
        .current_dir(d.path())
        .args(["bad.ll", "--global", "64", "--local", "16", "--arg", "buf:i32:64", "--compare", "ref"])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("ref/arg0.bin: holds 12 bytes, but argument 0 has 64 i32 elements (256 bytes)"), "{err}");
    assert!(!err.contains("barrier"), "the kernel ran: {err}");
    // And a missing folder, before anything runs.
    let o = saxpy(d.path(), &["--compare", "nope"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("simt-run: nope: error: compare folder does not exist"), "{}", stderr(&o));
}

/// saxpy with argument 2 filled from `fill` and `extra` flags, in `dir`.
fn saxpy_from_file(dir: &Path, fill: &str, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_simt-run"))
        .current_dir(dir)
        .args([SAXPY, "--global", "64", "--local", "16", "--arg", "i32:64", "--arg", "f32:2"])
        .args(["--arg", &format!("buf:f32:64=file:{fill}"), "--arg", "buf:f32:64=const:1"])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn a_dump_over_a_fill_file_of_the_run_is_refused() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("in")).unwrap();
    std::fs::create_dir(d.path().join("out")).unwrap();
    let data: Vec<u8> = (0..64).flat_map(|i| (i as f32).to_le_bytes()).collect();
    for name in ["in/arg2.bin", "in/arg3.bin", "data.bin"] {
        std::fs::write(d.path().join(name), &data).unwrap();
    }
    // The dump would write in/arg2.bin or in/arg3.bin, or out/arg2.bin, a link to data.bin.
    std::os::unix::fs::symlink("../data.bin", d.path().join("out/arg2.bin")).unwrap();
    for (fill, dump, k) in [("in/arg2.bin", "in", 2), ("./in/arg3.bin", "in/", 3), ("data.bin", "out", 2)] {
        let o = saxpy_from_file(d.path(), fill, &["--dump", dump]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{fill} / {dump}: {err}");
        assert!(
            err.contains(&format!("simt-run: error: --dump {dump} would overwrite"))
                && err.contains(&format!("with argument {k}, but it is the fill file of argument 2 (buf:f32:64=file:")),
            "{err}"
        );
        for name in ["in/arg2.bin", "in/arg3.bin", "data.bin"] {
            assert_eq!(std::fs::read(d.path().join(name)).unwrap(), data, "{name} was changed");
        }
    }
    // Another folder: the dump runs, and its arg2.bin is the fill.
    let o = saxpy_from_file(d.path(), "in/arg2.bin", &["--dump", "elsewhere"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(d.path().join("elsewhere/arg2.bin")).unwrap(), data);
}
