//! `simt-run --check`: the emulator as a kernel checker.
//!
//! - Every race-free kernel of the corpus (`test-ir/kernels`, the launches of
//!   `scripts/bench-emu`) runs with `--check all` and must report nothing.
//! - Every buggy kernel of `test-ir/checker` reports the same findings under
//!   every warp width and reconvergence policy: the checks key on work-items
//!   and barrier epochs, never on lanes or warps. (What each report must say
//!   is checked, from the kernels' sources, by the lit tests beside them.)

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn simt_run(module: &Path, global: &str, local: &str, args: &[&str], extra: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_simt-run"));
    c.arg(module).args(["--global", global, "--local", local]);
    for a in args {
        c.args(["--arg", a]);
    }
    c.args(extra).output().expect("cannot start simt-run")
}

/// The corpus launches of `scripts/bench-emu`: file, global, local, args.
const CORPUS: &[(&str, &str, &str, &[&str])] = &[
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
    ("nested_exit.ll", "2048", "128", &["buf:i32:2048=rand:31", "buf:i32:2048", "i32:2048", "i32:16", "i32:5"]),
    ("short_circuit.ll", "2048", "128", &["buf:i32:2048=rand:32", "buf:i32:2048=rand:33", "buf:i32:2048", "i32:2048", "i32:24"]),
    ("break_continue.cu.ll", "2048", "128", &["buf:i32:2000=rand:34", "buf:i32:2000", "i32:2000", "i32:32"]),
    ("state_machine.cu.ll", "2048", "128", &["buf:i32:2000=rand:35", "buf:i32:2000", "i32:2000", "i32:32"]),
    // Not in scripts/bench-emu: the launch of tests/kernels.rs (8 work-groups).
    ("local_atomics.ll", "1024", "128", &["buf:i32:1024=rand:1", "buf:i32:104", "buf:i32:1024"]),
];

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
        assert_eq!(v["check"], serde_json::json!({"data_races": 0, "uninitialised_reads": 0}), "{file}");
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
