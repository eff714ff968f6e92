//! Kernels that pocl and the emulator run but the host engine used to reject
//! (issue 8 §5), run through `simt-run` on the host and on the emulator with
//! the same inputs: the dumped buffers must be equal, and equal to a
//! plain-Rust reference where one is cheap. Sources and the clang-22 command
//! are in `test-ir/wiloops/Inputs/`.
//!
//! - `flatten_barrier_subs`: barriers in helpers clang did not inline, one
//!   reached only through another helper (pocl's test_flatten_barrier_subs);
//!   an unused helper calls `get_local_id` (it broke the JIT's link);
//! - `vstore_half`: another kernel of the module uses a built-in simt does not
//!   lower;
//! - `image_helper`: an unused image helper in the module;
//! - `barrier_loop_exit`: `for (;;)` with barriers, left by a `break` in the
//!   region after the second barrier.

use std::path::Path;
use std::process::Command;

const INPUTS: &str = "test-ir/wiloops/Inputs";

/// Runs one launch on `engine`, dumping into `dir`; panics with simt-run's
/// stderr if it fails.
fn run(engine: &str, dir: &Path, args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_simt-run"))
        .args(args)
        .args(["--engine", engine, "--dump", dir.to_str().unwrap()])
        .output()
        .expect("simt-run runs");
    assert!(out.status.success(), "simt-run {args:?} on {engine}: {}", String::from_utf8_lossy(&out.stderr));
}

/// Buffer `i` as i32s.
fn i32s(dir: &Path, i: usize) -> Vec<i32> {
    let bytes = std::fs::read(dir.join(format!("arg{i}.bin"))).expect("dumped");
    bytes.chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// Runs `args` on host and emulator; returns the host's buffer `buf` after
/// checking that every dumped buffer is equal.
fn host_equals_emu(args: &[&str], buf: usize) -> Vec<i32> {
    let host = tempfile::tempdir().unwrap();
    let emu = tempfile::tempdir().unwrap();
    run("host", host.path(), args);
    run("emu", emu.path(), args);
    let mut names: Vec<_> = std::fs::read_dir(host.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    names.sort();
    assert!(!names.is_empty());
    for n in names {
        let h = std::fs::read(host.path().join(&n)).unwrap();
        let e = std::fs::read(emu.path().join(&n)).unwrap();
        assert!(h == e, "{args:?}: host and emulator differ in {n:?}");
    }
    i32s(host.path(), buf)
}

#[test]
fn barriers_in_helpers_are_inlined() {
    let file = format!("{INPUTS}/flatten_barrier_subs.ll");
    for local in [4usize, 16, 64] {
        let l = local.to_string();
        let local_arg = format!("local:i32:{local}");
        let out = host_equals_emu(
            &[
                &file,
                "--kernel",
                "sums",
                "--global",
                "256",
                "--local",
                &l,
                "--arg",
                "buf:i32:256=ramp",
                "--arg",
                "buf:i32:256",
                "--arg",
                &local_arg,
            ],
            1,
        );
        // out[g] = group_sum(group_sum(in) - in) + 7 over the work-group of g.
        for (g, &v) in out.iter().enumerate() {
            let group: Vec<i32> = (g / local * local..(g / local + 1) * local).map(|x| x as i32).collect();
            let s: i32 = group.iter().sum();
            let expect: i32 = group.iter().map(|&x| s - x).sum::<i32>() + 7;
            assert_eq!(v, expect, "sums, local {local}, item {g}");
        }
    }
}

#[test]
fn unused_helper_with_work_item_builtins_does_not_break_the_link() {
    let file = format!("{INPUTS}/flatten_barrier_subs.ll");
    let out = host_equals_emu(&[&file, "--kernel", "ids", "--global", "64", "--local", "16", "--arg", "buf:i32:64"], 0);
    assert_eq!(out, (0..64).map(|g| g % 16).collect::<Vec<i32>>());
}

#[test]
fn another_kernels_unsupported_builtin_does_not_matter() {
    let file = format!("{INPUTS}/vstore_half.ll");
    let out = host_equals_emu(&[&file, "--kernel", "add_one", "--global", "64", "--local", "8", "--arg", "buf:i32:64=ramp"], 0);
    assert_eq!(out, (1..=64).collect::<Vec<i32>>());
}

#[test]
fn an_unused_image_helper_does_not_matter() {
    let file = format!("{INPUTS}/image_helper.ll");
    let host = tempfile::tempdir().unwrap();
    let emu = tempfile::tempdir().unwrap();
    let args = [&file[..], "--kernel", "scale", "--global", "64", "--local", "8", "--arg", "buf:f32:64=ramp", "--arg", "f32:2"];
    run("host", host.path(), &args);
    run("emu", emu.path(), &args);
    let h = std::fs::read(host.path().join("arg0.bin")).unwrap();
    assert_eq!(h, std::fs::read(emu.path().join("arg0.bin")).unwrap());
    let v: Vec<f32> = h.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(v, (0..64).map(|i| 2.0 * i as f32).collect::<Vec<f32>>());
}

#[test]
fn endless_loop_left_after_a_barrier() {
    let file = format!("{INPUTS}/barrier_loop_exit.ll");
    for (local, rounds) in [(8usize, 1i32), (16, 3), (32, 5)] {
        let l = local.to_string();
        let la = format!("local:i32:{local}");
        let r = format!("i32:{rounds}");
        let out = host_equals_emu(
            &[&file, "--kernel", "loop_exit", "--global", "64", "--local", &l, "--arg", "buf:i32:64", "--arg", &la, "--arg", &r],
            0,
        );
        // Each round every work-item adds its right neighbour's value.
        for wg in 0..64 / local {
            let mut acc: Vec<i32> = (0..local as i32).collect();
            for _ in 0..rounds {
                acc = (0..local).map(|i| acc[i] + acc[(i + 1) % local]).collect();
            }
            assert_eq!(&out[wg * local..(wg + 1) * local], &acc[..], "local {local}, rounds {rounds}");
        }
    }
}
