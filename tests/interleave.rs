//! Seed 001's work-group interleaving (`--interleave N`) must compute exactly
//! what the plain work-group function computes: each kernel is run both ways
//! on the same inputs and the buffers compared bit for bit (`--compare`).

mod common;

use common::simt_run_output;
use std::process::Output;

fn stderr(out: &Output) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(&out.stderr)
}

/// Runs plain (dumping), then interleaved against the dump; returns the
/// interleaved run's `interleaved` stats field.
fn same_both_ways(kernel_ll: &str, kernel: &str, grid: &[&str], args: &[&str], n: u32) -> String {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().to_str().unwrap().to_string();
    let mut base: Vec<String> = vec![format!("test-ir/kernels/{kernel_ll}"), "--kernel".into(), kernel.into()];
    base.extend(grid.iter().map(|s| s.to_string()));
    for a in args {
        base.push("--arg".into());
        base.push(a.to_string());
    }
    let mut plain = base.clone();
    plain.extend(["--dump".into(), dump.clone()]);
    let out = simt_run_output(&plain);
    assert!(out.status.success(), "plain run of {kernel}: {}", stderr(&out));
    let mut inter = base;
    inter.extend(["--interleave".into(), n.to_string(), "--compare".into(), dump, "--stats".into(), "json".into()]);
    let out = simt_run_output(&inter);
    assert!(out.status.success(), "interleaved run of {kernel} differs or fails: {}", stderr(&out));
    let stats: serde_json::Value = serde_json::from_str(String::from_utf8_lossy(&out.stdout).trim()).expect("one JSON object");
    stats["engine_details"]["interleaved"].as_str().unwrap_or_else(|| panic!("no engine_details.interleaved in {stats}")).to_string()
}

#[test]
fn four_barriers_and_a_local_argument() {
    for n in [2, 3, 5] {
        let how = same_both_ways(
            "live_across_barriers.ll",
            "live_across_barriers",
            &["--global", "4096", "--local", "64"],
            &["buf:i32:32768=rand:3", "buf:i32:32768", "local:i32:64"],
            n,
        );
        assert!(how.starts_with("on, ring of"), "interleave={n}: {how}");
    }
}

#[test]
fn one_barrier_in_two_dimensions() {
    let how = same_both_ways(
        "transpose.ll",
        "transpose",
        &["--global", "256,128", "--local", "16,16"],
        &["buf:f32:32768=rand:1", "buf:f32:32768", "i32:256", "i32:128"],
        2,
    );
    assert!(how.starts_with("on, ring of"), "{how}");
}

#[test]
fn barriers_in_loops_are_not_interleaved_but_still_right() {
    let how = same_both_ways(
        "reduction.ll",
        "reduce_sum",
        &["--global", "65536", "--local", "256"],
        &["buf:f32:65536=rand:2", "buf:f32:256", "local:f32:256", "u32:65536"],
        3,
    );
    assert!(how.starts_with("not applicable"), "{how}");
}
