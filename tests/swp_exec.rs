//! `simt-swp` proven by running (seed 002): the loops of
//! scripts/bench-sched-loops.c are compiled for the host, software-pipelined
//! on each machine model, and run by tests/swp/harness.c for trip counts
//! 0..17, 31, 100 and 250 (short ones take the fallback loop, the others the
//! prologue/kernel/epilogue); everything each loop writes and returns must
//! be identical to the original build's. Skipped (with a note) where
//! clang-22 is missing.

use std::path::Path;
use std::process::Command;

fn clang() -> Option<&'static str> {
    ["clang-22", "/usr/lib/llvm-22/bin/clang"]
        .into_iter()
        .find(|c| Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()))
}

fn run_ok(cmd: &mut Command) -> std::process::Output {
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    out
}

#[test]
fn pipelined_loops_compute_what_the_originals_compute() {
    let Some(clang) = clang() else {
        eprintln!("note: clang-22 not found, swp execution test skipped");
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ll = d.join("loops.ll");
    run_ok(
        Command::new(clang)
            .args(["-O2", "-fno-vectorize", "-fno-unroll-loops", "-S", "-emit-llvm", "-o"])
            .arg(&ll)
            .arg(root.join("scripts/bench-sched-loops.c")),
    );
    let harness = root.join("tests/swp/harness.c");
    let build_and_run = |ir: &Path, exe: &str| -> String {
        let exe = d.join(exe);
        run_ok(Command::new(clang).args(["-O1", "-w"]).arg(&harness).arg(ir).arg("-o").arg(&exe));
        String::from_utf8(run_ok(&mut Command::new(&exe)).stdout).unwrap()
    };
    let want = build_and_run(&ll, "orig");
    assert!(want.lines().count() > 500, "the harness prints one line per loop and trip count");
    for machine in ["itanium2", "hexagon"] {
        let out = d.join(format!("swp-{machine}.ll"));
        let r = run_ok(
            Command::new(env!("CARGO_BIN_EXE_simt-opt"))
                .env("SIMT_SWP_NOTES", "1")
                .arg(format!("-passes=simt-swp<machine={machine}>"))
                .arg("-S")
                .arg(&ll)
                .arg("-o")
                .arg(&out),
        );
        let notes = String::from_utf8_lossy(&r.stderr);
        let pipelined = notes.lines().filter(|l| l.contains(": pipelined,")).count();
        assert!(pipelined >= 20, "{machine}: only {pipelined} loops pipelined:\n{notes}");
        let got = build_and_run(&out, &format!("swp-{machine}"));
        for (w, g) in want.lines().zip(got.lines()) {
            assert_eq!(w, g, "{machine}: pipelined loop differs from the original");
        }
        assert_eq!(want.lines().count(), got.lines().count());
    }
}
