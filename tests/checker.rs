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

/// `warp_masks.cu`'s kernels that break a rule of a warp function's mask:
/// kernel, the report's first line's start, the calling work-item and lane,
/// the lane named or read.
const WARP_MASK_BUGS: &[(&str, &str, u32, u32)] = &[
    ("not_in_mask", "warp function called by a lane its mask leaves out", 16, 16),
    ("diverged", "warp function mask names a lane that does not take part", 0, 16),
    ("other_mask", "warp function mask names a lane that calls it with another mask", 8, 0),
    ("source_outside", "shuffle reads a lane its mask leaves out", 15, 16),
    ("syncwarp_odd", "warp function mask names a lane that does not take part", 1, 0),
];

#[test]
fn warp_function_masks_that_break_cuda_rules_are_reported() {
    let module = root().join("test-ir/checker/warp_masks.cu");
    for &(kernel, head, lane, other) in WARP_MASK_BUGS {
        for policy in ["ipdom", "markers"] {
            let out = simt_run(
                &module,
                "32",
                "32",
                &["buf:i32:32"],
                &["--kernel", kernel, "--check", "all", "--policy", policy, "--stats", "json"],
            );
            let text = reports(&out);
            assert_eq!(out.status.code(), Some(1), "{kernel} {policy}: {text}");
            let first = text.lines().next().unwrap_or("");
            assert!(first.starts_with(&format!("simt-run: {head} in work-group (0,0,0)")), "{kernel} {policy}: {text}");
            assert!(text.contains(&format!("  work-item ({lane},0,0) (lane {lane}) calls it with mask")), "{kernel} {policy}: {text}");
            assert!(text.contains(&format!("lane {other} (work-item ({other},0,0))")) || lane == other, "{kernel} {policy}: {text}");
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(
                v["check"],
                serde_json::json!({"data_races": 0, "uninitialised_reads": 0, "warp_mask_violations": 1}),
                "{kernel} {policy}"
            );
        }
    }
}

#[test]
fn warp_functions_with_right_partial_masks_are_not_reported() {
    let module = root().join("test-ir/checker/warp_masks.cu");
    let tmp = tempfile::tempdir().unwrap();
    // What each lane of `masks_ok` computes, from its source.
    let want: Vec<i32> = (0..32)
        .map(|lane: i32| {
            let mut v = if lane < 15 { lane + 1 } else { lane };
            v += 4; // lane 3's value after the segment shuffle
            if lane % 3 == 0 {
                v += 3;
            }
            v + 16 * 100 + (lane ^ 8) * 1000
        })
        .collect();
    let want_returned: Vec<i32> = (0..32).map(|lane| if lane < 20 { 191 } else { 0 }).collect();
    for (kernel, args, want) in [("masks_ok", &["buf:i32:32"][..], &want), ("returned_ok", &["buf:i32:32", "i32:20"][..], &want_returned)] {
        for policy in ["ipdom", "markers"] {
            let dump = tmp.path().join(format!("{kernel}-{policy}"));
            let d = dump.display().to_string();
            let out = simt_run(&module, "32", "32", args, &["--kernel", kernel, "--check", "all", "--policy", policy, "--dump", &d]);
            assert!(out.status.success(), "{kernel} {policy}: {}", String::from_utf8_lossy(&out.stderr));
            assert_eq!(reports(&out), "simt-run: dumped 1 buffer(s) to ".to_string() + &d + "\n", "{kernel} {policy}");
            let got: Vec<i32> =
                std::fs::read(dump.join("arg0.bin")).unwrap().chunks(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect();
            assert_eq!(&got, want, "{kernel} {policy}");
        }
    }
}
