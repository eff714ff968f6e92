//! `simt-run --check`: the emulator as a kernel checker.
//!
//! - Every race-free kernel of the corpus (`test-ir/kernels`, the launches of
//!   `scripts/bench-emu`) runs with `--check all` and must report nothing.
//! - Every buggy kernel of `test-ir/checker` reports the same findings under
//!   every warp width and reconvergence policy: the checks key on work-items
//!   and barrier epochs, never on lanes or warps. (What each report must say
//!   is checked, from the kernels' sources, by the lit tests beside them.)

mod corpus;

use corpus::{simt_run, LAUNCHES as CORPUS};
use std::path::{Path, PathBuf};
use std::process::Output;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_corpus_launch_is_listed() {
    // A kernel added to the corpus without a launch here would go unchecked.
    let mut listed: Vec<&str> = CORPUS.iter().map(|c| c.0).collect();
    listed.push("invalid_barrier.ll"); // work-items reach different barriers, by design
    listed.sort_unstable();
    let mut present: Vec<String> = std::fs::read_dir(root().join("test-ir/kernels"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".ll"))
        .collect();
    present.sort_unstable();
    assert_eq!(listed, present);
}

#[test]
fn race_free_corpus_kernels_give_no_reports() {
    for &(file, global, local, args) in CORPUS {
        let out = simt_run(&root().join("test-ir/kernels").join(file), global, local, args, &["--check", "all", "--stats", "json"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{file}: exit {:?}\n{stderr}", out.status.code());
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["check"], serde_json::json!({"data_races": 0, "uninitialised_reads": 0, "warp_mask_violations": 0}), "{file}");
        assert_eq!(v["engine"], "emu", "{file}: --check alone selects the emulator");
    }
}

/// The buggy kernels: file, global, local, args.
const BUGGY: &[(&str, &str, &str, &[&str])] = &[
    ("war_local.ll", "128", "64", &["buf:i32:128"]),
    ("raw_local.ll", "128", "64", &["buf:i32:128=ramp", "buf:i32:128"]),
    ("global_race.ll", "128", "64", &["buf:i32:192=ramp", "buf:i32:1"]),
    ("uninit_local.ll", "128", "64", &["buf:i32:128"]),
    ("oob.ll", "128", "64", &["buf:i32:128"]),
    ("divergent_barrier.ll", "128", "64", &["buf:i32:128"]),
    ("uninit_private.ll", "128", "64", &["buf:i32:128"]),
    ("global_group_race.ll", "128", "64", &["buf:i32:128", "buf:i32:128"]),
    ("oob_local.ll", "128", "64", &["buf:i32:128"]),
    ("oob_local_arg.ll", "128", "64", &["buf:i32:128", "local:i32:64", "local:i32:64"]),
    ("oob_private.ll", "128", "64", &["buf:i32:128", "i32:8"]),
    ("oob_next_buffer.ll", "128", "64", &["buf:i32:128", "buf:i32:128"]),
];

/// The report lines of a run (its stderr without the statistics).
fn reports(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| !(l.starts_with("simt-run: kernel ") || l.starts_with("simt-run: compile") || l.starts_with("simt-run: emu:")))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn buggy_kernels_report_the_same_under_every_width_and_policy() {
    for &(file, global, local, args) in BUGGY {
        let module = root().join("test-ir/checker").join(file);
        let reference = simt_run(&module, global, local, args, &["--check", "all"]);
        assert_eq!(reference.status.code(), Some(1), "{file}: {}", String::from_utf8_lossy(&reference.stderr));
        let expected = reports(&reference);
        assert!(expected.contains("error:"), "{file}: {expected}");
        for width in ["1", "4", "32"] {
            for policy in ["ipdom", "markers", "none"] {
                let out = simt_run(&module, global, local, args, &["--check", "all", "--warp-width", width, "--policy", policy]);
                assert_eq!(out.status.code(), Some(1), "{file} width {width} policy {policy}");
                assert_eq!(reports(&out), expected, "{file} width {width} policy {policy}");
            }
        }
    }
}

#[test]
fn atomics_and_barriers_are_not_races() {
    let module: PathBuf = root().join("test-ir/checker/atomics_ok.ll");
    for width in ["1", "32"] {
        let out = simt_run(&module, "256", "64", &["buf:u32:256=rand:1", "buf:u32:16"], &["--check", "all", "--warp-width", width]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(reports(&out), "");
    }
}
