//! simt-run end to end: argument and launch-file parsing, fills, dumps,
//! compare, stats, and every error with its exit code (2 usage, 1 error).

mod common;

use assert_cmd::Command;
use predicates::prelude::*;
use std::path::{Path, PathBuf};

/// OpenCL kernels written by hand (as clang emits them for spir64).
const KERNELS: &str = concat!(
    r#"target triple = "spir64"

@tile = internal addrspace(3) global [1024 x float] undef, align 4
"#,
    common::vadd_ir!(),
    r#"
; x[i] += 1, in place; compiled for uniform work-groups (as OpenCL 1.2)
define spir_kernel void @inc(ptr addrspace(1) %x) "uniform-work-group-size"="true" {
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %x, i64 %gid
  %v = load i32, ptr addrspace(1) %p
  %w = add i32 %v, 1
  store i32 %w, ptr addrspace(1) %p
  ret void
}

; out[(y - oy) * W + (x - ox)] = x * 1000 + y, x and y the global ids
define spir_kernel void @grid2d(ptr addrspace(1) %out) {
  %x = call i64 @_Z13get_global_idj(i32 0)
  %y = call i64 @_Z13get_global_idj(i32 1)
  %ox = call i64 @_Z17get_global_offsetj(i32 0)
  %oy = call i64 @_Z17get_global_offsetj(i32 1)
  %w = call i64 @_Z15get_global_sizej(i32 0)
  %rx = sub i64 %x, %ox
  %ry = sub i64 %y, %oy
  %row = mul i64 %ry, %w
  %i = add i64 %row, %rx
  %xs = mul i64 %x, 1000
  %v = add i64 %xs, %y
  %p = getelementptr i64, ptr addrspace(1) %out, i64 %i
  store i64 %v, ptr addrspace(1) %p
  ret void
}

; tile[lid] = (float)f; barrier; out[gid] = tile[0] + (float)n  (4096 static local bytes)
define spir_kernel void @tiled(ptr addrspace(1) %out, double %f, i64 %n) {
  %lid = call i64 @_Z12get_local_idj(i32 0)
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %t = getelementptr float, ptr addrspace(3) @tile, i64 %lid
  %ff = fptrunc double %f to float
  store float %ff, ptr addrspace(3) %t
  call void @_Z7barrierj(i32 1)
  %v = load float, ptr addrspace(3) @tile
  %nf = sitofp i64 %n to float
  %r = fadd float %v, %nf
  %p = getelementptr float, ptr addrspace(1) %out, i64 %gid
  store float %r, ptr addrspace(1) %p
  ret void
}

; out[gid] = in[gid ^ 1] via a __local array: tmp[lid] = in[gid]; barrier; out[gid] = tmp[lid ^ 1]
define spir_kernel void @swap_pairs(ptr addrspace(1) %in, ptr addrspace(1) %out, ptr addrspace(3) %tmp) {
  %lid = call i64 @_Z12get_local_idj(i32 0)
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pi = getelementptr i16, ptr addrspace(1) %in, i64 %gid
  %v = load i16, ptr addrspace(1) %pi
  %pt = getelementptr i16, ptr addrspace(3) %tmp, i64 %lid
  store i16 %v, ptr addrspace(3) %pt
  call void @_Z7barrierj(i32 1)
  %other = xor i64 %lid, 1
  %po = getelementptr i16, ptr addrspace(3) %tmp, i64 %other
  %w = load i16, ptr addrspace(3) %po
  %pout = getelementptr i16, ptr addrspace(1) %out, i64 %gid
  store i16 %w, ptr addrspace(1) %pout
  ret void
}

declare i64 @_Z13get_global_idj(i32)
declare i64 @_Z12get_local_idj(i32)
declare i64 @_Z17get_global_offsetj(i32)
declare i64 @_Z15get_global_sizej(i32)
declare void @_Z7barrierj(i32) convergent
"#
);

/// Work-items 5.. of each group skip the barrier: every run fails.
const DIVERGENT: &str = include_str!("../test-ir/errors/Inputs/divergent-barrier.ll");

struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("k.ll"), KERNELS).unwrap();
        std::fs::write(dir.path().join("bad.ll"), DIVERGENT).unwrap();
        Fixture { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `simt-run` started in the fixture's folder.
    fn cmd(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_simt-run"));
        c.current_dir(self.dir.path());
        c
    }

    /// `simt-run k.ll ARGS…`.
    fn run(&self, args: &[&str]) -> Command {
        let mut c = self.cmd();
        c.arg("k.ll").args(args);
        c
    }
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("test-ir/examples")
}

fn read_f32(p: &Path) -> Vec<f32> {
    std::fs::read(p).unwrap().chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn read_u32(p: &Path) -> Vec<u32> {
    std::fs::read(p).unwrap().chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn write_f32(p: &Path, v: &[f32]) {
    std::fs::write(p, v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>()).unwrap();
}

/// The documented generator of `rand:SEED`.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn stderr_of(c: &mut Command) -> String {
    String::from_utf8(c.output().unwrap().stderr).unwrap()
}

// ---------------------------------------------------------------------------
// Runs

#[test]
fn vector_add_with_rand_and_ramp_fills_and_dump() {
    let f = Fixture::new();
    f.run(&[
        "--kernel",
        "vadd",
        "--global",
        "4096",
        "--local",
        "128",
        "--arg",
        "buf:f32:4096=rand:42",
        "--arg",
        "buf:f32:4096=ramp",
        "--arg",
        "buf:f32:4096",
        "--arg",
        "i32:4000",
        "--dump",
        "out/d",
    ])
    .assert()
    .success()
    .stdout("")
    .stderr(predicate::str::contains("simt-run: kernel 'vadd' on host: global 4096, local 128: 32 work-groups, 4096 work-items"))
    .stderr(predicate::str::is_match(r"simt-run: compile [0-9.]+ (s|ms|µs); kernel [0-9.]+ (s|ms|µs|ns)").unwrap())
    .stderr(predicate::str::contains("dumped 3 buffer(s) to out/d"));
    let a = read_f32(&f.path("out/d/arg0.bin"));
    let b = read_f32(&f.path("out/d/arg1.bin"));
    let c = read_f32(&f.path("out/d/arg2.bin"));
    assert!(!f.path("out/d/arg3.bin").exists(), "scalars are not dumped");
    // rand:42 is splitmix64 seeded with 42, top 24 bits per f32.
    let mut s = 42u64;
    let want_a: Vec<f32> = (0..4096).map(|_| (splitmix64(&mut s) >> 40) as f32 / (1u64 << 24) as f32).collect();
    assert_eq!(a, want_a);
    assert_eq!(b, (0..4096).map(|i| i as f32).collect::<Vec<_>>());
    for i in 0..4096 {
        assert_eq!(c[i], if i < 4000 { a[i] + b[i] } else { 0.0 }, "element {i}");
    }
}

#[test]
fn file_and_const_fills() {
    let f = Fixture::new();
    let input: Vec<f32> = (0..256).map(|i| (i as f32) * 0.5 - 3.0).collect();
    write_f32(&f.path("a.bin"), &input);
    f.run(&[
        "--kernel=vadd",
        "--global=256",
        "--local=64",
        "--arg",
        "buf:f32:256=file:a.bin",
        "--arg",
        "buf:f32:256=const:1.25",
        "--arg",
        "buf:f32:256",
        "--arg",
        "u32:256",
        "--dump",
        "d",
    ])
    .assert()
    .success();
    let c = read_f32(&f.path("d/arg2.bin"));
    assert_eq!(c, input.iter().map(|x| x + 1.25).collect::<Vec<_>>());
}

#[test]
fn cuda_kernel_found_by_its_plain_name() {
    let f = Fixture::new();
    let saxpy = examples().join("saxpy.ll");
    f.cmd()
        .arg(&saxpy)
        .args(["--kernel", "saxpy", "--global", "1024", "--local", "256"])
        .args(["--arg", "i32:1000", "--arg", "f32:2", "--arg", "buf:f32:1024=ramp", "--arg", "buf:f32:1024=const:1", "--dump", "d"])
        .assert()
        .success()
        .stderr(predicate::str::contains("kernel '_Z5saxpyifPKfPf' on host"));
    let y = read_f32(&f.path("d/arg3.bin"));
    for (i, v) in y.iter().enumerate() {
        assert_eq!(*v, if i < 1000 { 2.0 * i as f32 + 1.0 } else { 1.0 }, "element {i}");
    }
}

#[test]
fn local_pointer_argument_and_the_only_kernel() {
    // reduce.ll has one kernel: --kernel may be left out.
    let f = Fixture::new();
    f.cmd()
        .arg(examples().join("reduce.ll"))
        .args(["--global", "2048", "--local", "128"])
        .args(["--arg", "buf:f32:2048=ramp", "--arg", "buf:f32:16", "--arg", "local:f32:128", "--dump", "d"])
        .assert()
        .success();
    let sums = read_f32(&f.path("d/arg1.bin"));
    let want: Vec<f32> = (0..16).map(|g| (g * 128..(g + 1) * 128).map(|i| i as f32).sum()).collect();
    assert_eq!(sums, want);

    // Our own: a __local i16 array after the kernel's static bytes.
    f.run(&[
        "--kernel",
        "swap_pairs",
        "--global",
        "512",
        "--local",
        "64",
        "--arg",
        "buf:i16:512=ramp",
        "--arg",
        "buf:i16:512",
        "--arg",
        "local:i16:64",
        "--dump",
        "s",
    ])
    .assert()
    .success();
    let out: Vec<i16> = std::fs::read(f.path("s/arg1.bin")).unwrap().chunks_exact(2).map(|c| i16::from_le_bytes([c[0], c[1]])).collect();
    assert_eq!(out, (0..512).map(|i: i16| i ^ 1).collect::<Vec<_>>());
}

#[test]
fn two_dimensions_and_global_offset() {
    let f = Fixture::new();
    f.run(&["--kernel", "grid2d", "--global", "16,6", "--local", "4,3", "--global-offset", "10,20", "--arg", "buf:i64:96", "--dump", "d"])
        .assert()
        .success()
        .stderr(predicate::str::contains("global 16x6, local 4x3: 8 work-groups, 96 work-items"));
    let out: Vec<i64> =
        std::fs::read(f.path("d/arg0.bin")).unwrap().chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect();
    for y in 0..6i64 {
        for x in 0..16i64 {
            assert_eq!(out[(y * 16 + x) as usize], (x + 10) * 1000 + (y + 20), "({x},{y})");
        }
    }
}

#[test]
fn scalars_of_every_width_and_static_local_memory() {
    let f = Fixture::new();
    f.run(&[
        "--kernel",
        "tiled",
        "--global",
        "64",
        "--local",
        "16",
        "--arg",
        "buf:f32:64",
        "--arg",
        "f64:2.5",
        "--arg",
        "i64:-3",
        "--dump",
        "d",
    ])
    .assert()
    .success();
    assert_eq!(read_f32(&f.path("d/arg0.bin")), vec![-0.5; 64]);
}

/// `--refill` gives every run of `--repeat` the first run's inputs: after 5
/// runs of `inc` each element is its ramp value plus one, on every engine
/// that runs here (`--engine gpu` copies the buffers in again the same way).
#[test]
fn refill_gives_every_run_the_first_inputs() {
    let f = Fixture::new();
    for engine in ["host", "emu"] {
        let dir = format!("refill-{engine}");
        f.run(&["--kernel", "inc", "--engine", engine, "--global", "1024", "--local", "32", "--arg", "buf:u32:1024=ramp"])
            .args(["--repeat", "5", "--refill", "--dump", &dir])
            .assert()
            .success();
        assert_eq!(read_u32(&f.path(&format!("{dir}/arg0.bin"))), (0..1024u32).map(|i| i + 1).collect::<Vec<_>>(), "{engine}");
    }
}

#[test]
fn repeat_runs_in_place_and_json_stats() {
    let f = Fixture::new();
    let out = f
        .run(&[
            "--kernel",
            "inc",
            "--global",
            "1024",
            "--local",
            "32",
            "--arg",
            "buf:u32:1024=ramp",
            "--repeat",
            "5",
            "--stats",
            "json",
            "--dump",
            "d",
        ])
        .assert()
        .success()
        .get_output()
        .clone();
    // Filled once, run 5 times: each run sees the previous one's output.
    assert_eq!(read_u32(&f.path("d/arg0.bin")), (0..1024u32).map(|i| i + 5).collect::<Vec<_>>());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "one JSON object: {text}");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["engine"], "host");
    assert_eq!(v["kernel"], "inc");
    assert_eq!(v["repeat"], 5);
    assert_eq!(v["work_groups"], 32);
    assert_eq!(v["threads"], 1024);
    assert!(v["compile_seconds"].as_f64().unwrap() > 0.0);
    let times: Vec<f64> = v["kernel_seconds"].as_array().unwrap().iter().map(|t| t.as_f64().unwrap()).collect();
    assert_eq!(times.len(), 5);
    let best = v["kernel_seconds_best"].as_f64().unwrap();
    let median = v["kernel_seconds_median"].as_f64().unwrap();
    assert_eq!(best, times.iter().copied().fold(f64::INFINITY, f64::min));
    assert!(best > 0.0 && best <= median);
    // Without --stats json nothing goes to stdout; the summary has both times.
    f.run(&["--kernel", "inc", "--global", "64", "--local", "32", "--arg", "buf:u32:64", "--repeat", "3"])
        .assert()
        .success()
        .stdout("")
        .stderr(predicate::str::is_match(r"compile [0-9.]+ \S+; kernel best [0-9.]+ \S+, median [0-9.]+ \S+ over 3 runs").unwrap());
}

/// `--stats text` lists every field `--stats json` has (the engine's
/// details among them); without `--stats`, the two-line summary only.
#[test]
fn stats_text_lists_the_json_fields() {
    let f = Fixture::new();
    let base = ["--kernel", "inc", "--global", "64", "--local", "32", "--arg", "buf:u32:64"];
    let json = f.run(&[&base[..], &["--stats", "json"]].concat()).assert().success().get_output().stdout.clone();
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let text = f.run(&[&base[..], &["--stats", "text"]].concat()).assert().success().stdout("").get_output().stderr.clone();
    let text = String::from_utf8(text).unwrap();
    for key in ["engine_details.workers", "engine_details.barriers", "engine_details.form", "work_groups", "schema_version"] {
        assert!(text.contains(&format!("simt-run: {key}: ")), "{key} missing:\n{text}");
    }
    assert!(text.contains(&format!("simt-run: engine_details.workers: {}\n", v["engine_details"]["workers"])), "{text}");
    assert!(text.contains("simt-run: work_groups: 2\n"), "{text}");
    let plain = String::from_utf8(f.run(&base).assert().success().get_output().stderr.clone()).unwrap();
    assert_eq!(plain.lines().count(), 2, "{plain}");
    assert!(!plain.contains("engine_details"), "{plain}");
}

/// `--timeout` stops a kernel that never ends, on the host engine and the
/// emulator, with exit 1 and a message naming the flag; and refuses a
/// time that is not a positive number (exit 2).
#[test]
fn timeout_stops_a_kernel_that_never_ends() {
    let f = Fixture::new();
    std::fs::write(f.path("spin.cl"), "__kernel void spin(__global volatile uint *o) { while (o[0] != 12345u) o[1] += 1; }\n").unwrap();
    for engine in ["host", "emu"] {
        let start = std::time::Instant::now();
        f.cmd()
            .args(["spin.cl", "--global", "1", "--local", "1", "--arg", "buf:u32:2", "--no-cache", "--timeout", "1", "--engine", engine])
            .timeout(std::time::Duration::from_secs(120))
            .assert()
            .code(1)
            .stderr(predicate::str::contains("simt-run: error: the launch did not finish within 1 s (--timeout); stopped"));
        assert!(start.elapsed() >= std::time::Duration::from_secs(1));
    }
    for bad in ["0", "-3", "soon", "inf"] {
        f.run(&["--kernel", "inc", "--global", "64", "--local", "32", "--arg", "buf:u32:64", &format!("--timeout={bad}")])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("expected a positive number of seconds"));
    }
}

#[test]
fn compare_with_ulp_tolerance() {
    let f = Fixture::new();
    let base = [
        "--kernel",
        "vadd",
        "--global",
        "256",
        "--local",
        "64",
        "--arg",
        "buf:f32:256=rand:1",
        "--arg",
        "buf:f32:256=rand:2",
        "--arg",
        "buf:f32:256",
        "--arg",
        "i32:256",
    ];
    let with = |extra: &[&str]| {
        let mut v: Vec<&str> = base.to_vec();
        v.extend_from_slice(extra);
        f.run(&v)
    };
    with(&["--dump", "ref"]).assert().success();
    with(&["--compare", "ref"]).assert().success().stderr(predicate::str::contains("3 buffer(s) match ref (tolerance 0 ULPs)"));

    // Nudge element 7 of the result one ULP up in the reference.
    let mut c = read_f32(&f.path("ref/arg2.bin"));
    let old = c[7];
    c[7] = f32::from_bits(c[7].to_bits() + 1);
    write_f32(&f.path("ref/arg2.bin"), &c);
    with(&["--compare", "ref"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("simt-run: error: 1 of 3 compared buffer(s) differ from ref:"))
        .stderr(predicate::str::contains("argument 2 differs from ref/arg2.bin in 1 of 256 f32 elements (tolerance 0 ULPs):"))
        .stderr(predicate::str::contains(format!("  [7] got {old:?}, expected {:?} (1 ULPs)", c[7])));
    // One ULP off is rounding (a fused multiply-add), not a race: the
    // hint says so instead of sending the user to the race checker.
    with(&["--compare", "ref"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("hint: every difference is within 1 ULPs: rounding, not a race"))
        .stderr(predicate::str::contains("--check all").not());
    with(&["--compare", "ref", "--tolerance", "1"]).assert().success();
    // JSON stats say how the compare went, and the exit status still fails.
    let out = with(&["--compare", "ref", "--stats", "json"]).assert().code(1).get_output().clone();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["compare"]["ok"], false);
    assert_eq!(v["compare"]["mismatched_buffers"], 1);

    // Only the files present are compared; a wrong size is a mismatch.
    std::fs::remove_file(f.path("ref/arg0.bin")).unwrap();
    std::fs::remove_file(f.path("ref/arg1.bin")).unwrap();
    std::fs::write(f.path("ref/arg2.bin"), [0u8; 12]).unwrap();
    with(&["--compare", "ref"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("ref/arg2.bin: holds 12 bytes, but argument 2 has 256 f32 elements (1024 bytes)"));
    std::fs::remove_file(f.path("ref/arg2.bin")).unwrap();
    with(&["--compare", "ref"]).assert().code(1).stderr(predicate::str::contains("nothing to compare"));
}

#[test]
fn integers_compare_exactly() {
    let f = Fixture::new();
    let run = |extra: &[&str]| {
        let mut v = vec!["--kernel", "inc", "--global", "64", "--local", "64", "--arg", "buf:u32:64=ramp"];
        v.extend_from_slice(extra);
        f.run(&v)
    };
    run(&["--dump", "ref"]).assert().success();
    let mut r = read_u32(&f.path("ref/arg0.bin"));
    r[63] += 1;
    std::fs::write(f.path("ref/arg0.bin"), r.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>()).unwrap();
    run(&["--compare", "ref", "--tolerance", "1000"]).assert().code(1).stderr(predicate::str::contains("  [63] got 64, expected 65\n"));
}

#[test]
fn launch_file_with_overrides() {
    let f = Fixture::new();
    std::fs::create_dir(f.path("runs")).unwrap();
    std::fs::write(f.path("runs/in.bin"), (0..128u32).flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>()).unwrap();
    std::fs::write(
        f.path("runs/inc.launch"),
        "# bump every element\nmodule = ../k.ll\nkernel = inc\nglobal = 128\nlocal = 32   # four groups\narg = buf:u32:128=file:in.bin\nrepeat = 2\ndump = out\n",
    )
    .unwrap();
    // Started elsewhere: paths in the file are relative to the file.
    let elsewhere = tempfile::tempdir().unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_simt-run"));
    c.current_dir(elsewhere.path()).args(["--launch", f.path("runs/inc.launch").to_str().unwrap()]);
    c.assert().success().stderr(predicate::str::contains("over 2 runs"));
    assert_eq!(read_u32(&f.path("runs/out/arg0.bin")), (0..128u32).map(|i| i + 2).collect::<Vec<_>>());

    // Flags override the file; --arg replaces the file's args.
    f.cmd()
        .args([
            "--launch",
            "runs/inc.launch",
            "--repeat",
            "3",
            "--local",
            "64",
            "--arg",
            "buf:u32:128=const:7",
            "--dump",
            "o2",
            "--stats",
            "json",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("\"repeat\":3").and(predicate::str::contains("\"work_groups\":2")));
    assert_eq!(read_u32(&f.path("o2/arg0.bin")), vec![10; 128]);
}

#[test]
fn launch_file_errors() {
    let f = Fixture::new();
    std::fs::write(f.path("bad.launch"), "kernel = inc\nglobal 128\n").unwrap();
    f.cmd()
        .args(["--launch", "bad.launch"])
        .assert()
        .code(2)
        .stderr("simt-run: bad.launch:2: error: expected 'key = value', found 'global 128'\n");
    std::fs::write(f.path("bad.launch"), "module = k.ll\nkernel = inc\nglobal = 128\nlocal = 32\narg = buf:u32:12x\n").unwrap();
    f.cmd().args(["--launch", "bad.launch"]).assert().code(2).stderr(predicate::str::contains(
        "simt-run: bad.launch:5: error: arg 'buf:u32:12x': argument 0: COUNT '12x' is not a whole number",
    ));
    std::fs::write(f.path("bad.launch"), "colour = blue\n").unwrap();
    f.cmd().args(["--launch", "bad.launch"]).assert().code(2).stderr(predicate::str::contains("unknown key 'colour'"));
    f.cmd()
        .args(["--launch", "missing.launch"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("simt-run: missing.launch: error: cannot read launch file"));
}

#[test]
fn barrier_divergence_is_an_error() {
    let f = Fixture::new();
    f.cmd()
        .args(["bad.ll", "--kernel", "bad", "--global", "64", "--local", "16", "--arg", "buf:i32:64"])
        .assert()
        .code(1)
        .stderr(predicate::str::is_match(
            r"simt-run: error: kernel 'bad': work-items of work-group \(0,0,0\) reached different barriers: barrier #1 in block %sync and the kernel's exit",
        ).unwrap());
    // Local size 4: every work-item takes the barrier.
    f.cmd().args(["bad.ll", "--global", "64", "--local", "4", "--arg", "buf:i32:64"]).assert().success();
}

// ---------------------------------------------------------------------------
// Errors found before anything is compiled

#[test]
fn help_documents_the_forms() {
    Command::new(env!("CARGO_BIN_EXE_simt-run"))
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("buf:TYPE:COUNT[=FILL]"))
        .stdout(predicate::str::contains("local:TYPE:COUNT"))
        .stdout(predicate::str::contains("splitmix64"))
        .stdout(predicate::str::contains("LAUNCH FILE"))
        .stdout(predicate::str::contains("--compare"))
        .stdout(predicate::str::contains("EXIT STATUS"));
}

/// (flags after `k.ll`, exit code, expected stderr fragment)
#[test]
fn usage_errors_exit_2() {
    let f = Fixture::new();
    let cases: &[(&[&str], &str)] = &[
        (&["--kernel", "inc", "--local", "4", "--arg", "buf:u32:4"], "error: --global is required"),
        (
            &["--kernel", "inc", "--global", "100", "--local", "8", "--arg", "buf:u32:4"],
            "error: global size 100 is not a multiple of local size 8 in dimension 0 (x)",
        ),
        (&["--kernel", "inc", "--global", "8,9", "--local", "8,2", "--arg", "buf:u32:4"], "in dimension 1 (y)"),
        (
            &["--kernel", "inc", "--global", "8,8", "--local", "8", "--arg", "buf:u32:4"],
            "error: --global has 2 dimensions but --local has 1",
        ),
        (&["--kernel", "inc", "--global", "0", "--local", "1", "--arg", "buf:u32:4"], "error: global size is 0 in dimension 0 (x)"),
        (&["--kernel", "inc", "--global", "8", "--local", "0", "--arg", "buf:u32:4"], "error: local size is 0 in dimension 0 (x)"),
        (
            &["--kernel", "inc", "--global", "1,2,3,4", "--local", "1", "--arg", "buf:u32:4"],
            "error: --global '1,2,3,4': '1,2,3,4' has 4 dimensions",
        ),
        (&["--kernel", "inc", "--global", "8", "--local", "8", "--global-offset", "1,2"], "--global-offset has 2"),
        (
            &["--kernel", "inc", "--global", "8", "--local", "8", "--arg", "buf:u33:4"],
            "error: --arg 'buf:u33:4': argument 0: unknown element type 'u33'",
        ),
        (&["--kernel", "inc", "--global", "8", "--local", "8", "--arg", "buf:u32"], "expected buf:TYPE:COUNT"),
        (&["--kernel", "inc", "--global", "8", "--local", "8", "--arg", "buf:u32:8=noise"], "unknown fill 'noise'"),
        (&["--kernel", "inc", "--global", "8", "--local", "8", "--arg", "u32:-1"], "-1 is out of range for u32"),
        (&["--kernel", "inc", "--global", "8", "--local", "8", "--arg", "float:1"], "unknown argument kind or type 'float'"),
        (
            &["--kernel", "inc", "--global", "8", "--local", "8", "--arg", "buf:u32:8", "--engine", "fpga"],
            "error: --engine 'fpga': unknown engine (available: host, emu, gpu)",
        ),
        (&["--kernel", "inc", "--global", "8", "--local", "8", "--arg", "buf:u32:8", "--repeat", "0"], "error: --repeat '0'"),
        (&["--kernel", "inc", "--global", "8", "--local", "8", "--arg", "buf:u32:8", "--stats", "xml"], "expected 'json' or 'text'"),
        (&["--kernel", "inc", "--global", "8", "--local", "8", "--arg", "buf:u32:8", "--frobnicate"], "unexpected argument '--frobnicate'"),
        (&["--global", "8", "--local", "8"], "k.ll has 5 kernels; choose one with --kernel: vadd, inc, grid2d, tiled, swap_pairs"),
    ];
    for (flags, want) in cases {
        f.run(flags).assert().code(2).stderr(predicate::str::contains(*want));
    }
    f.cmd().args(["--global", "8", "--local", "8"]).assert().code(2).stderr(predicate::str::contains("no input module"));
}

#[test]
fn errors_against_the_kernel_exit_1() {
    let f = Fixture::new();
    let vadd = |args: &[&str]| {
        let mut v = vec!["--kernel", "vadd", "--global", "64", "--local", "64"];
        for a in args {
            v.push("--arg");
            v.push(a);
        }
        f.run(&v)
    };
    let cases: &[(&[&str], &str)] = &[
        (&["buf:f32:64", "buf:f32:64", "buf:f32:64"], "error: kernel 'vadd': takes 4 parameters but 3 arguments were given"),
        (&["buf:f32:64", "buf:f32:64", "buf:f32:64", "i32:64", "i32:1"], "takes 4 parameters but 5 arguments were given"),
        (
            &["buf:f32:64", "buf:f32:64", "buf:f32:64", "buf:i32:1"],
            "argument 3 (buf:i32:1) is a global buffer, but parameter 3 'n' (i32) is a 32-bit integer",
        ),
        (
            &["buf:f32:64", "buf:f32:64", "buf:f32:64", "f32:64"],
            "argument 3 (f32:64.0) is an f32 scalar, but parameter 3 'n' (i32) is a 32-bit integer",
        ),
        (&["buf:f32:64", "buf:f32:64", "buf:f32:64", "i64:64"], "is an i64 scalar"),
        (
            &["i32:1", "buf:f32:64", "buf:f32:64", "i32:64"],
            "argument 0 (i32:1) is an i32 scalar, but parameter 0 'a' (ptr addrspace(1)) is a global pointer",
        ),
        (
            &["buf:f32:64", "local:f32:64", "buf:f32:64", "i32:64"],
            "argument 1 (local:f32:64) is a __local buffer, but parameter 1 'b' (ptr addrspace(1)) is a global pointer",
        ),
    ];
    for (args, want) in cases {
        vadd(args).assert().code(1).stderr(predicate::str::contains(*want));
    }
    f.run(&["--kernel", "tiled", "--global", "64", "--local", "64", "--arg", "buf:f32:64", "--arg", "i32:1", "--arg", "i64:1"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "argument 1 (i32:1) is an i32 scalar, but parameter 1 'f' (double) is a 64-bit float: pass f64:VALUE",
        ));
    f.run(&[
        "--kernel",
        "swap_pairs",
        "--global",
        "64",
        "--local",
        "64",
        "--arg",
        "buf:i16:64",
        "--arg",
        "buf:i16:64",
        "--arg",
        "buf:i16:64",
    ])
    .assert()
    .code(1)
    .stderr(predicate::str::contains("parameter 2 'tmp' (ptr addrspace(3)) is a __local pointer: pass local:TYPE:COUNT"));
    f.run(&["--kernel", "vecadd", "--global", "64", "--local", "64"])
        .assert()
        .code(1)
        .stderr("simt-run: error: no kernel 'vecadd' in k.ll; kernels: vadd, inc, grid2d, tiled, swap_pairs\n");
    f.cmd()
        .args(["nope.ll", "--global", "8", "--local", "8"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("simt-run: nope.ll: error: could not open input file"));
    std::fs::write(f.path("broken.ll"), "define spir_kernel void @k( {\n").unwrap();
    f.cmd()
        .args(["broken.ll", "--global", "8", "--local", "8"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("simt-run: broken.ll:2:1: error: expected type"));
}

#[test]
fn local_memory_limit() {
    let f = Fixture::new();
    let swap = |local_count: &str, limit: &str| {
        f.run(&[
            "--kernel",
            "swap_pairs",
            "--global",
            "64",
            "--local",
            "64",
            "--arg",
            "buf:i16:64",
            "--arg",
            "buf:i16:64",
            "--arg",
            &format!("local:i16:{local_count}"),
            "--local-mem-limit",
            limit,
        ])
    };
    // Over the default 256 KiB from the __local argument alone: refused before compiling.
    swap("200000", "256K").assert().code(1).stderr(predicate::str::contains(
        "needs 400000 bytes of local memory per work-group (0 static + 400000 for __local arguments), over the limit of 262144 bytes",
    ));
    swap("64", "127").assert().code(1).stderr(predicate::str::contains("over the limit of 127 bytes"));
    swap("64", "128").assert().success();
    // The kernel's static __local array counts too.
    f.run(&["--kernel", "tiled", "--global", "64", "--local", "16", "--arg", "buf:f32:64", "--arg", "f64:1", "--arg", "i64:1", "--local-mem-limit", "2K"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("kernel 'tiled': needs 4096 bytes of local memory per work-group (4096 static + 0 for __local arguments), over the limit of 2048 bytes"));
}

#[test]
fn file_fill_errors_name_the_file() {
    let f = Fixture::new();
    std::fs::write(f.path("short.bin"), [0u8; 10]).unwrap();
    let inc = |arg: &str| f.run(&["--kernel", "inc", "--global", "4", "--local", "4", "--arg", arg]);
    inc("buf:u32:4=file:short.bin")
        .assert()
        .code(1)
        .stderr(
            "simt-run: short.bin: error: argument 0 (buf:u32:4=file:short.bin): fill file holds 10 bytes (not a whole number of 4-byte u32 elements), but the buffer needs exactly 4 u32 elements (16 bytes)\n",
        );
    std::fs::write(f.path("long.bin"), [0u8; 20]).unwrap();
    assert!(stderr_of(&mut inc("buf:u32:4=file:long.bin"))
        .contains("holds 20 bytes (5 u32 elements), but the buffer needs exactly 4 u32 elements"));
    inc("buf:u32:4=file:absent.bin")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("simt-run: absent.bin: error: argument 0 (buf:u32:4=file:absent.bin): cannot read fill file"));
}

/// The complete example `simt-run --help` shows runs as printed (its dump
/// folder moved to a temporary one), and the emulator's checked run agrees
/// with the host's.
#[test]
fn help_example_runs() {
    let help = Command::new(env!("CARGO_BIN_EXE_simt-run")).arg("--help").output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    let example = help.split("EXAMPLE").nth(1).expect("an EXAMPLE section").split("\n\n").next().unwrap();
    let commands: Vec<String> =
        example.replace("\\\n", " ").lines().map(str::trim).filter(|l| l.starts_with("simt-run ")).map(String::from).collect();
    assert_eq!(commands.len(), 2, "{example}");
    let tmp = tempfile::tempdir().unwrap();
    let out = format!("{}/", tmp.path().join("out").display());
    for c in &commands {
        let words: Vec<String> = c.split_whitespace().skip(1).map(|w| if w == "out/" { out.clone() } else { w.to_string() }).collect();
        let o = Command::new(env!("CARGO_BIN_EXE_simt-run")).args(&words).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap();
        assert!(o.status.success(), "{c}: {}", String::from_utf8_lossy(&o.stderr));
    }
}

/// On a terminal the emulator shows its progress in work-groups, as the host
/// engine does; through a pipe it prints no bar. `script` (util-linux) gives
/// the launch a pseudo-terminal.
#[test]
fn emulator_progress_on_a_terminal_only() {
    let launch = "test-ir/examples/reduce.ll --kernel reduce_sum --global 65536 --local 256 \
                  --arg buf:f32:65536=rand:1 --arg buf:f32:256 --arg local:f32:256 --engine emu";
    let exe = env!("CARGO_BIN_EXE_simt-run");
    let tty = std::process::Command::new("script")
        .args(["-qec", &format!("{exe} {launch}"), "/dev/null"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("script (util-linux) runs");
    assert!(tty.status.success());
    let shown = String::from_utf8_lossy(&tty.stdout).replace('\r', "\n");
    assert!(shown.contains("/256 work-groups"), "no progress bar on a terminal:\n{shown}");
    let piped = Command::new(exe).args(launch.split_whitespace()).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap();
    assert!(piped.status.success());
    assert!(!String::from_utf8_lossy(&piped.stderr).contains("/256 work-groups"));
}
