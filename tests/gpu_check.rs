//! `scripts/gpu-check`: the corpus on the GPU against the host engine.
//!
//! This machine has no GPU, so the script must say so in one line and exit
//! 3; its dry mode (`--against emu`) runs the same table with the emulator
//! in the GPU's place, and every corpus kernel must agree; its launch list
//! must be the corpus's (`tests/corpus/mod.rs`).

mod corpus;

use std::path::Path;
use std::process::{Command, Output};

fn gpu_check(args: &[&str]) -> Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    Command::new(root.join("scripts/gpu-check"))
        .args(args)
        // The binary under test, instead of a release build of its own.
        .env("SIMT_RUN", env!("CARGO_BIN_EXE_simt-run"))
        .output()
        .expect("cannot start scripts/gpu-check")
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn without_a_gpu_it_says_so_in_one_line_and_exits_3() {
    let probe = Command::new(env!("CARGO_BIN_EXE_simt-run"))
        .args(["test-ir/kernels/vecadd.ll", "--global", "128", "--local", "64", "--engine", "gpu"])
        .args(["--arg", "buf:f32:128", "--arg", "buf:f32:128", "--arg", "buf:f32:128", "--arg", "i32:128"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    if probe.status.code() != Some(3) {
        eprintln!("a GPU is present: scripts/gpu-check runs for real there");
        return;
    }
    let out = gpu_check(&[]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(3), "{all}");
    assert_eq!(all.lines().count(), 1, "{all}");
    assert!(all.starts_with("gpu-check: no GPU here, nothing checked (no NVIDIA GPU available for --engine gpu"), "{all}");
}

#[test]
fn dry_run_against_the_emulator_agrees_on_every_kernel() {
    let out = gpu_check(&["--against", "emu", "--repeat", "1"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    let n = corpus::LAUNCHES.len();
    assert_eq!(lines.len(), n + 2, "header, one row per kernel, summary:\n{all}");
    assert_eq!(lines[0].split_whitespace().collect::<Vec<_>>(), ["kernel", "host", "ms", "emu", "ms", "agree", "max", "ulp"]);
    for (row, launch) in lines[1..=n].iter().zip(corpus::LAUNCHES) {
        let cols: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cols.len(), 5, "{row}");
        assert_eq!(cols[0], launch.0, "{row}");
        for ms in &cols[1..3] {
            assert!(ms.parse::<f64>().is_ok_and(|v| v >= 0.0), "{row}");
        }
        assert_eq!(cols[3], "yes", "{row}");
        assert!(cols[4].parse::<u64>().is_ok_and(|u| u <= 64), "{row}");
    }
    assert_eq!(lines[n + 1], format!("gpu-check: {n} of {n} kernels agree (emu against host, tolerance 64 ULPs)"));
}

#[test]
fn a_disagreement_fails_the_table() {
    // Host and emulator agree bit for bit on the whole corpus (CUDA sources
    // are compiled with -ffp-contract=on, so both evaluate the same
    // `llvm.fmuladd`s fused). To see that the table logic can fail, a
    // wrapper gives the emulator's matmul.cu run other inputs: its row
    // says no, and the exit status is 1.
    let tmp = tempfile::tempdir().unwrap();
    let wrapper = tmp.path().join("simt-run");
    std::fs::write(
        &wrapper,
        format!(
            "#!/usr/bin/env bash\nemu=0; for a in \"$@\"; do [ \"$a\" = emu ] && emu=1; done\n\
             args=(); for a in \"$@\"; do [ $emu = 1 ] && a=${{a/=rand:6/=rand:60}}; args+=(\"$a\"); done\n\
             exec {} \"${{args[@]}}\"\n",
            env!("CARGO_BIN_EXE_simt-run")
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(root.join("scripts/gpu-check"))
        .args(["--against", "emu", "--repeat", "1", "--tolerance", "0"])
        .env("SIMT_RUN", &wrapper)
        .output()
        .expect("cannot start scripts/gpu-check");
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    let row = all.lines().find(|l| l.starts_with("matmul.cu.ll ")).expect(&all);
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cols[3], "no", "{row}");
    assert!(cols[4].parse::<u64>().unwrap() > 0, "{row}");
}

#[test]
fn the_launch_list_is_the_corpus() {
    let script = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/gpu-check")).unwrap();
    let list = script.split("LAUNCHES='").nth(1).and_then(|s| s.split('\'').next()).expect("LAUNCHES='…' in the script");
    let ours: Vec<String> = list.lines().filter(|l| !l.is_empty()).map(str::to_owned).collect();
    let corpus: Vec<String> =
        corpus::LAUNCHES.iter().map(|(file, global, local, args)| format!("{file}|{global}|{local}|{}", args.join(" "))).collect();
    assert_eq!(ours, corpus);
}

#[test]
fn usage_errors_exit_2() {
    for args in [&["--against", "cpu"][..], &["--repeat", "0"], &["--tolerance"], &["--bogus"]] {
        let out = gpu_check(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
    }
}
