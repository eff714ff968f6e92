//! Too-small buffers and `local:` arguments on the host engine (JIT and
//! `--aot`) and the emulator: a kernel that reads or writes outside an
//! argument stops with exit 1 and an error naming the kernel, the argument
//! and its size (the host's guard regions, `src/engine/guard.rs`), never a signal
//! death, a glibc abort or a silent exit 0; correctly sized launches still
//! give exact results. Kernels: test-ir/run/Inputs/oob.cl.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

fn module() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("test-ir/run/Inputs/oob.ll")
}

#[derive(Clone, Copy, Debug)]
enum Engine {
    Jit,
    Aot,
    Emu,
}

const ENGINES: [Engine; 3] = [Engine::Jit, Engine::Aot, Engine::Emu];

fn simt_run(engine: Engine, kernel: &str, global: u64, local: u64, args: &[String], extra: &[&str]) -> Output {
    let mut c = common::simt_run();
    c.arg(module()).args(["--kernel", kernel, "--global", &global.to_string(), "--local", &local.to_string()]);
    for a in args {
        c.arg("--arg").arg(a);
    }
    match engine {
        Engine::Jit => c.args(["--engine", "host"]),
        Engine::Aot => c.args(["--engine", "host", "--aot"]),
        Engine::Emu => c.args(["--engine", "emu"]),
    };
    c.args(extra).output().expect("simt-run runs")
}

/// The launch of `kernel` over 1000 work-items (work-groups of 100): `in` a
/// ramp of 1000 f32, `out` 1000 f32, for local_shifted a `local:f32:100`,
/// then `shift`.
fn args(kernel: &str, n: u64, local: u64, shift: i64) -> Vec<String> {
    let mut a = vec![format!("buf:f32:{n}=ramp"), format!("buf:f32:{n}")];
    if kernel == "local_shifted" {
        a.push(format!("local:f32:{local}"));
    }
    a.push(format!("i32:{shift}"));
    a
}

/// Exit 1 with one error line naming the kernel and containing `want`;
/// no signal, no abort, no sanitizer or glibc report.
fn assert_oob(engine: Engine, out: &Output, kernel: &str, want: &str) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{engine:?}: {:?}\n{err}", out.status);
    assert!(err.starts_with(&format!("simt-run: error: kernel '{kernel}': ")), "{engine:?}: {err}");
    assert!(err.contains("out of bounds"), "{engine:?}: {err}");
    assert!(err.contains(want), "{engine:?}: want {want:?} in:\n{err}");
    assert_eq!(err.lines().count(), 1, "{engine:?}: {err}");
    err
}

/// Each out-of-bounds launch on every engine; `common` is the part of the
/// message the host and the emulator share (the argument, its size and,
/// where deterministic, the offset); `host` what the host adds.
fn check(kernel: &str, shift: i64, common: &str, host: &str) {
    for engine in ENGINES {
        let out = simt_run(engine, kernel, 1000, 100, &args(kernel, 1000, 100, shift), &[]);
        let err = assert_oob(engine, &out, kernel, common);
        if !matches!(engine, Engine::Emu) {
            assert!(err.contains(host), "{engine:?}: want {host:?} in:\n{err}");
        }
    }
}

/// The `work-group (x,y,z)` an error names.
fn work_group(err: &str) -> &str {
    let at = err.find("work-group (").expect("a work-group");
    &err[at..at + err[at..].find(')').unwrap() + 1]
}

#[test]
fn host_and_emulator_name_the_same_work_group() {
    // Only work-item 999 (of work-group 9) is out of bounds.
    for kernel in ["read_shifted", "write_shifted"] {
        let emu = simt_run(Engine::Emu, kernel, 1000, 100, &args(kernel, 1000, 100, 1), &[]);
        let emu = String::from_utf8_lossy(&emu.stderr).into_owned();
        assert_eq!(work_group(&emu), "work-group (9,0,0)", "{emu}");
        for engine in [Engine::Jit, Engine::Aot] {
            let out = simt_run(engine, kernel, 1000, 100, &args(kernel, 1000, 100, 1), &[]);
            let err = assert_oob(engine, &out, kernel, &format!("kernel '{kernel}': work-group (9,0,0): "));
            // The argument, its size and the offset, in the emulator's words.
            let tail = |e: &str| {
                let t = &e[e.find(" at offset ").unwrap()..];
                t[..t.find(" bytes").unwrap()].to_string()
            };
            assert_eq!(tail(&err), tail(&emu), "{err}\n{emu}");
        }
    }
}

#[test]
fn read_past_the_end_by_one_element() {
    check(
        "read_shifted",
        1,
        "at offset 4000 of argument 0 (4000 bytes",
        "load at offset 4000 of argument 0 (4000 bytes, buf:f32:1000) is out of bounds",
    );
}

#[test]
fn read_past_the_end_by_a_mebibyte() {
    // Every work-item is out of bounds: which one the host reports first
    // depends on scheduling, so the offset is not compared.
    check("read_shifted", 262_144, "of argument 0 (4000 bytes", "load at offset ");
}

#[test]
fn write_past_the_end_by_one_element() {
    check(
        "write_shifted",
        1,
        "at offset 4000 of argument 1 (4000 bytes",
        "store at offset 4000 of argument 1 (4000 bytes, buf:f32:1000) is out of bounds",
    );
}

#[test]
fn write_past_the_end_by_a_mebibyte() {
    check("write_shifted", 262_144, "of argument 1 (4000 bytes", "store at offset ");
}

#[test]
fn write_past_a_local_argument() {
    // The host guards local memory as one block; the emulator checks the
    // argument itself, and gives the same offset in local memory.
    check(
        "local_shifted",
        1,
        "400 bytes per work-group",
        "store at offset 400 of local memory (400 bytes per work-group; argument 2 (local:f32:100) at 0..400) is out of bounds",
    );
    let out = simt_run(Engine::Emu, "local_shifted", 1000, 100, &args("local_shifted", 1000, 100, 1), &[]);
    assert_oob(
        Engine::Emu,
        &out,
        "local_shifted",
        "store of 4 bytes at offset 400 of __local argument 2 (400 bytes; local memory offset 400 of 400 bytes per work-group) is out of bounds",
    );
    // Far past it, and with the interleaved form (memory sets per ring slot).
    for (shift, extra) in [(100_000i64, &[][..]), (1, &["--interleave", "4"][..])] {
        for engine in [Engine::Jit, Engine::Aot] {
            let out = simt_run(engine, "local_shifted", 1000, 100, &args("local_shifted", 1000, 100, shift), extra);
            assert_oob(engine, &out, "local_shifted", "of local memory (400 bytes per work-group; argument 2 (local:f32:100) at 0..400)");
        }
    }
}

/// The offset in "at offset N of".
fn offset_of(err: &str) -> i64 {
    let rest = &err[err.find(" at offset ").expect("an offset") + 11..];
    rest[..rest.find(' ').unwrap()].parse().unwrap()
}

#[test]
fn underrun_by_a_mebibyte() {
    // Host and emulator must name the same argument and a negative offset
    // (the emulator once put 1 MiB before argument 1 at the far end of
    // argument 0). Every work-item underruns: each engine reports whichever
    // faults first, some offset in [first, first + elements * 4).
    for (kernel, shift, first, elements, access) in [
        ("read_shifted", -262_144i64, -1_048_576i64, 1000, "load "),
        ("write_shifted", -262_144, -1_048_576, 1000, "store "),
        ("local_shifted", -100_000, -400_000, 100, "store "),
    ] {
        let region = |engine| match kernel {
            "local_shifted" if matches!(engine, Engine::Emu) => "of __local argument 2 (400 bytes; local memory offset -",
            "local_shifted" => "of local memory (400 bytes per work-group",
            "read_shifted" => "of argument 0 (4000 bytes",
            _ => "of argument 1 (4000 bytes",
        };
        for engine in ENGINES {
            let out = simt_run(engine, kernel, 1000, 100, &args(kernel, 1000, 100, shift), &[]);
            let err = assert_oob(engine, &out, kernel, "out of bounds");
            let region = region(engine);
            assert!(err.contains(access) && err.contains(region), "{engine:?}: want {access:?} … {region:?} in:\n{err}");
            let at = offset_of(&err);
            assert!((first..first + elements * 4).contains(&at), "{engine:?}: offset {at}: {err}");
        }
    }
}

fn read_f32s(path: &Path) -> Vec<f32> {
    std::fs::read(path).unwrap().chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

#[test]
fn correctly_sized_launches_give_exact_results() {
    // 1000 elements end exactly at the guard; 1001 (4004 bytes) leave 12
    // bytes of slack before it; both must compute out[i] = 2 * i + 1.
    for (n, local) in [(1000u64, 100u64), (1001, 7)] {
        let want: Vec<f32> = (0..n).map(|i| 2.0 * i as f32 + 1.0).collect();
        for kernel in ["read_shifted", "write_shifted", "local_shifted"] {
            for engine in ENGINES {
                let dir = tempfile::tempdir().unwrap();
                let out = simt_run(engine, kernel, n, local, &args(kernel, n, local, 0), &["--dump", dir.path().to_str().unwrap()]);
                assert!(out.status.success(), "{kernel} {engine:?} n={n}: {}", String::from_utf8_lossy(&out.stderr));
                assert_eq!(read_f32s(&dir.path().join("arg1.bin")), want, "{kernel} {engine:?} n={n}");
                assert_eq!(read_f32s(&dir.path().join("arg0.bin")), (0..n).map(|i| i as f32).collect::<Vec<_>>());
            }
        }
    }
}
