//! End-to-end tests of `simt-run` on the kernel corpus in `test-ir/kernels/`:
//! one test per kernel and dialect. Each test makes its inputs here (a small
//! deterministic PRNG), hands them to `simt-run` through `file:` fills, reads
//! the buffers back from `--dump`, and compares them with a reference computed
//! in plain Rust from the kernel's definition (not from its code): integers
//! exactly, floats exactly where the kernel's rounding is fixed and within a
//! bound stated at each comparison where it is not. Kernels whose work-group
//! size is free run with several local sizes.
//!
//! The references can be checked against pocl without simt-run: build
//! `scripts/bench-src/pocl_host.c` (`scripts/bench --quick --check` leaves it in
//! `target/bench/pocl_host`) and run
//! `SIMT_KERNELS_POCL=target/bench/pocl_host cargo test --test kernels`: the
//! OpenCL tests then launch the `.cl` sources with pocl through the same
//! command line; the CUDA tests, the invalid kernel and varying_trip_barrier
//! (on which pocl 3.1 hangs) are skipped.

mod common;

use common::kernels_dir;
use std::path::{Path, PathBuf};
use std::process::Command;

const U: f64 = 1.0 / (1u64 << 24) as f64; // unit roundoff of f32

// ---------------------------------------------------------------- inputs

/// splitmix64: small, deterministic, good enough for test data.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed)
    }
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }
    /// Uniform in [lo, hi) with 24 random bits: every value is a multiple of
    /// (hi - lo) / 2^24, far from the subnormal range.
    fn f32_in(&mut self, lo: f32, hi: f32) -> f32 {
        let t = (self.next_u64() >> 40) as f32 / (1u32 << 24) as f32;
        lo + (hi - lo) * t
    }
    fn below(&mut self, n: u32) -> u32 {
        (self.next_u64() % n as u64) as u32
    }
    fn f32s(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..n).map(|_| self.f32_in(lo, hi)).collect()
    }
    fn u32s(&mut self, n: usize) -> Vec<u32> {
        (0..n).map(|_| self.next_u32()).collect()
    }
    fn i32s_in(&mut self, n: usize, lo: i32, hi: i32) -> Vec<i32> {
        (0..n).map(|_| lo + self.below((hi - lo) as u32) as i32).collect()
    }
}

// ---------------------------------------------------------------- launching

/// One kernel argument, in parameter order.
enum Arg {
    /// A buffer with these contents (raw little-endian bytes) and element type.
    Buf(&'static str, Vec<u8>),
    /// A zero-filled buffer of this many elements.
    Zeros(&'static str, usize),
    /// A scalar, `TYPE:VALUE`.
    Scalar(String),
    /// A `__local` pointer argument of this many elements.
    Local(&'static str, usize),
}

fn f32s(v: &[f32]) -> Arg {
    Arg::Buf("f32", v.iter().flat_map(|x| x.to_le_bytes()).collect())
}
fn u32s(v: &[u32]) -> Arg {
    Arg::Buf("u32", v.iter().flat_map(|x| x.to_le_bytes()).collect())
}
fn i32s(v: &[i32]) -> Arg {
    Arg::Buf("i32", v.iter().flat_map(|x| x.to_le_bytes()).collect())
}
fn u8s(v: &[u8]) -> Arg {
    Arg::Buf("u8", v.to_vec())
}
fn scalar(ty: &str, v: impl std::fmt::Display) -> Arg {
    Arg::Scalar(format!("{ty}:{v}"))
}

fn to_f32(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}
fn to_u32(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}
fn to_i32(b: &[u8]) -> Vec<i32> {
    b.chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn type_size(ty: &str) -> usize {
    match ty {
        "i8" | "u8" => 1,
        "i16" | "u16" => 2,
        "i32" | "u32" | "f32" => 4,
        "i64" | "u64" | "f64" => 8,
        _ => panic!("unknown type {ty}"),
    }
}

/// pocl_host in place of simt-run (see the module comment), if asked for.
fn pocl() -> Option<PathBuf> {
    std::env::var_os("SIMT_KERNELS_POCL").map(|p| {
        let p = PathBuf::from(p);
        if p.is_absolute() {
            p
        } else {
            Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
        }
    })
}

struct Outcome {
    code: Option<i32>,
    stderr: String,
    /// The dump of each argument: `Some(bytes)` for buffers.
    dumps: Vec<Option<Vec<u8>>>,
}

fn dims(d: &[usize]) -> String {
    d.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")
}

/// Runs `kernel` from `file` (a `.ll` in test-ir/kernels) and returns the exit
/// status, stderr and the dumped buffers.
fn launch(file: &str, kernel: &str, global: &[usize], local: &[usize], args: &[Arg]) -> Outcome {
    let dir = tempfile::tempdir().expect("tempdir");
    let dump = dir.path().join("dump");
    let mut cmd;
    if let Some(pocl) = pocl() {
        cmd = Command::new(pocl);
        cmd.arg(kernels_dir().join(file.replace(".ll", ".cl"))).args(["--repeat", "1"]);
    } else {
        cmd = common::simt_run();
        cmd.arg(kernels_dir().join(file));
    }
    cmd.args(["--kernel", kernel, "--global", &dims(global), "--local", &dims(local)]);
    for (i, a) in args.iter().enumerate() {
        let spec = match a {
            Arg::Buf(ty, bytes) => {
                let path = dir.path().join(format!("in{i}.bin"));
                std::fs::write(&path, bytes).expect("write input");
                format!("buf:{ty}:{}=file:{}", bytes.len() / type_size(ty), path.display())
            }
            Arg::Zeros(ty, n) => format!("buf:{ty}:{n}=zero"),
            Arg::Scalar(s) => s.clone(),
            Arg::Local(ty, n) => format!("local:{ty}:{n}"),
        };
        cmd.args(["--arg", &spec]);
    }
    cmd.arg("--dump").arg(&dump);
    let out = cmd.output().expect("cannot start the runner");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let ok = out.status.success();
    let dumps = args
        .iter()
        .enumerate()
        .map(|(i, a)| match a {
            Arg::Buf(..) | Arg::Zeros(..) if ok => {
                let p = dump.join(format!("arg{i}.bin"));
                Some(std::fs::read(&p).unwrap_or_else(|e| panic!("{kernel}: no dump {}: {e}", p.display())))
            }
            _ => None,
        })
        .collect();
    Outcome { code: out.status.code(), stderr, dumps }
}

/// `launch` that must succeed; returns the dumps.
fn run(file: &str, kernel: &str, global: &[usize], local: &[usize], args: &[Arg]) -> Vec<Option<Vec<u8>>> {
    let o = launch(file, kernel, global, local, args);
    assert_eq!(o.code, Some(0), "{file} {kernel} global {global:?} local {local:?} failed:\n{}", o.stderr);
    o.dumps
}

fn skip_cuda() -> bool {
    if pocl().is_some() {
        eprintln!("skipped: pocl runs OpenCL C only");
        return true;
    }
    false
}

// ---------------------------------------------------------------- comparing

fn assert_exact<T: PartialEq + std::fmt::Debug>(what: &str, got: &[T], want: &[T]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        let bad = (0..got.len()).filter(|&i| got[i] != want[i]).count();
        panic!("{what}: {bad} of {} elements differ; first [{i}]: got {:?}, want {:?}", got.len(), got[i], want[i]);
    }
}

/// Floats compared bit for bit (as values: -0.0 == 0.0).
fn assert_f32_exact(what: &str, got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        panic!("{what}: [{i}]: got {:e}, want {:e} (exact result expected)", got[i], want[i]);
    }
}

/// |got - want| <= bound[i] for every element (want computed in f64).
fn assert_f32_within(what: &str, got: &[f32], want: &[f64], bound: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for i in 0..got.len() {
        let err = (got[i] as f64 - want[i]).abs();
        assert!(err <= bound[i], "{what}: [{i}]: got {:e}, want {:e}: error {:e} above the bound {:e}", got[i], want[i], err, bound[i]);
    }
}

/// Higham's constant: a sum whose terms each go through at most m roundings
/// (a chain of m additions, a tree of depth m, products fused or not) is off by
/// at most gamma(m) * sum |x_i|, gamma(m) = m u / (1 - m u).
fn gamma(m: usize) -> f64 {
    let mu = m as f64 * U;
    mu / (1.0 - mu)
}

fn round_up(x: usize, m: usize) -> usize {
    x.div_ceil(m) * m
}

// ---------------------------------------------------------------- kernels

fn vecadd_case(file: &str) {
    // n is not a multiple of the work-group size: the bounds check matters.
    let global = 65536;
    let n = global - 100;
    let mut rng = Rng::new(1);
    let a = rng.f32s(n, -1.0, 1.0);
    let b = rng.f32s(n, -1.0, 1.0);
    // One IEEE addition per element: exact.
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    for local in [64, 128, 256] {
        let d = run(file, "vecadd", &[global], &[local], &[f32s(&a), f32s(&b), Arg::Zeros("f32", n), scalar("i32", n)]);
        assert_f32_exact(&format!("vecadd c, local {local}"), &to_f32(d[2].as_ref().unwrap()), &want);
    }
}

#[test]
fn vecadd_opencl() {
    vecadd_case("vecadd.ll");
}

#[test]
fn vecadd_cuda() {
    if skip_cuda() {
        return;
    }
    vecadd_case("vecadd.cu.ll");
}

#[test]
fn saxpy_opencl() {
    let n = 65536;
    let a = 2.5f32;
    let mut rng = Rng::new(2);
    let x = rng.f32s(n, -1.0, 1.0);
    let y = rng.f32s(n, -1.0, 1.0);
    // clang emits llvm.fmuladd: the runner may fuse (one rounding) or not
    // (two); each element must be one of the two.
    for local in [64, 256] {
        let d = run("saxpy.ll", "saxpy", &[n], &[local], &[scalar("i32", n), scalar("f32", a), f32s(&x), f32s(&y)]);
        let got = to_f32(d[3].as_ref().unwrap());
        for i in 0..n {
            let fused = a.mul_add(x[i], y[i]);
            let unfused = a * x[i] + y[i];
            assert!(
                got[i] == fused || got[i] == unfused,
                "saxpy y, local {local}: [{i}]: got {:e}, want {fused:e} (fused) or {unfused:e}",
                got[i]
            );
        }
    }
}

/// partial[g] of reduce_sum: the sum of in[i] over i with (i mod G) / L == g,
/// and the bound on its rounding error. The kernel fixes the order: each
/// work-item adds its t = ceil(n / G) strided elements in a chain, then the
/// group adds the work-items' sums in a tree of log2(L) levels, so every
/// element goes through at most h = t + log2(L) roundings and (Higham, Accuracy
/// and Stability, section 4.2) |error| <= gamma(h) * sum |x_i| whatever the
/// interleaving of work-items. (Loose enough for fused or other legal code,
/// tight enough that losing any element above ~1e-3 fails.)
fn reduction_reference(input: &[f32], global: usize, local: usize) -> (Vec<f64>, Vec<f64>) {
    let groups = global / local;
    let (mut sum, mut abs) = (vec![0f64; groups], vec![0f64; groups]);
    for (i, &x) in input.iter().enumerate() {
        let g = (i % global) / local;
        sum[g] += x as f64;
        abs[g] += (x as f64).abs();
    }
    let h = input.len().div_ceil(global) + local.trailing_zeros() as usize;
    let bound = abs.iter().map(|a| gamma(h) * a).collect();
    (sum, bound)
}

fn reduction_case(file: &str, cuda: bool) {
    let groups = 64;
    let n = 1 << 17 | 37; // not a multiple of the launch: uneven grid-stride trips
    let mut rng = Rng::new(3);
    let input = rng.f32s(n, -1.0, 1.0);
    for local in [64, 128, 256] {
        let global = groups * local;
        let mut args = vec![f32s(&input), Arg::Zeros("f32", groups)];
        if !cuda {
            args.push(Arg::Local("f32", local));
        }
        args.push(scalar("u32", n));
        let d = run(file, "reduce_sum", &[global], &[local], &args);
        // Private sums, then a tree: the order depends on the local size.
        let (want, bound) = reduction_reference(&input, global, local);
        assert_f32_within(&format!("reduce_sum partial, local {local}"), &to_f32(d[1].as_ref().unwrap()), &want, &bound);
    }
}

#[test]
fn reduction_opencl() {
    reduction_case("reduction.ll", false);
}

#[test]
fn reduction_cuda() {
    if skip_cuda() {
        return;
    }
    reduction_case("reduction.cu.ll", true);
}

fn matmul_case(file: &str) {
    // Square and multiple of the tile; then ragged (zero-padded edge tiles).
    for (m, n, k) in [(128, 128, 128), (100, 72, 52)] {
        let mut rng = Rng::new(4 + m as u64);
        let a = rng.f32s(m * k, -1.0, 1.0);
        let b = rng.f32s(k * n, -1.0, 1.0);
        let mut want = vec![0f64; m * n];
        let mut bound = vec![0f64; m * n];
        for i in 0..m {
            for j in 0..n {
                let (mut s, mut abs) = (0f64, 0f64);
                for p in 0..k {
                    let t = a[i * k + p] as f64 * b[p * n + j] as f64;
                    s += t;
                    abs += t.abs();
                }
                want[i * n + j] = s;
                // K products summed in the kernel's order, fused or not:
                // within gamma(K) sum |a b| (the f64 reference's own error is far smaller).
                bound[i * n + j] = gamma(k) * abs;
            }
        }
        let global = [round_up(n, 16), round_up(m, 16)];
        let d = run(
            file,
            "matmul",
            &global,
            &[16, 16],
            &[f32s(&a), f32s(&b), Arg::Zeros("f32", m * n), scalar("i32", m), scalar("i32", n), scalar("i32", k)],
        );
        assert_f32_within(&format!("matmul C, {m}x{n}x{k}"), &to_f32(d[2].as_ref().unwrap()), &want, &bound);
    }
}

#[test]
fn matmul_opencl() {
    matmul_case("matmul.ll");
}

#[test]
fn matmul_cuda() {
    if skip_cuda() {
        return;
    }
    matmul_case("matmul.cu.ll");
}

#[test]
fn transpose_opencl() {
    for (w, h) in [(256, 128), (100, 60)] {
        let mut rng = Rng::new(5);
        let input = rng.f32s(w * h, -1.0, 1.0);
        let mut want = vec![0f32; w * h];
        for y in 0..h {
            for x in 0..w {
                want[x * h + y] = input[y * w + x];
            }
        }
        let global = [round_up(w, 16), round_up(h, 16)];
        let d = run(
            "transpose.ll",
            "transpose",
            &global,
            &[16, 16],
            &[f32s(&input), Arg::Zeros("f32", w * h), scalar("i32", w), scalar("i32", h)],
        );
        // Data movement only: exact.
        assert_f32_exact(&format!("transpose out, {w}x{h}"), &to_f32(d[1].as_ref().unwrap()), &want);
    }
}

#[test]
fn scan_opencl() {
    let n = 65536;
    let mut rng = Rng::new(6);
    let input = rng.u32s(n); // sums wrap modulo 2^32, in the kernel and here
    for local in [64, 128, 256] {
        let groups = n / local;
        let mut want = vec![0u32; n];
        let mut sums = vec![0u32; groups];
        for (g, sum) in sums.iter_mut().enumerate() {
            let mut s = 0u32;
            for i in g * local..(g + 1) * local {
                s = s.wrapping_add(input[i]);
                want[i] = s;
            }
            *sum = s;
        }
        let d = run(
            "scan.ll",
            "scan_inclusive",
            &[n],
            &[local],
            &[u32s(&input), Arg::Zeros("u32", n), Arg::Zeros("u32", groups), Arg::Local("u32", 2 * local)],
        );
        assert_exact(&format!("scan out, local {local}"), &to_u32(d[1].as_ref().unwrap()), &want);
        assert_exact(&format!("scan block_sums, local {local}"), &to_u32(d[2].as_ref().unwrap()), &sums);
    }
}

#[test]
fn histogram_opencl() {
    let n = 65536 * 4 + 13;
    let mut rng = Rng::new(7);
    // Skewed: a third of the bytes are 7, so the atomics contend.
    let data: Vec<u8> = (0..n).map(|_| if rng.below(3) == 0 { 7 } else { rng.next_u32() as u8 }).collect();
    // The kernel adds to hist: start from non-zero counts.
    let initial: Vec<u32> = (0..256).map(|_| rng.below(1000)).collect();
    let mut want = initial.clone();
    for &b in &data {
        want[b as usize] += 1;
    }
    for local in [64, 128, 256] {
        let global = 16 * local;
        let d = run("histogram.ll", "histogram256", &[global], &[local], &[u8s(&data), scalar("u32", n), u32s(&initial)]);
        assert_exact(&format!("histogram hist, local {local}"), &to_u32(d[2].as_ref().unwrap()), &want);
    }
}

/// Every atomic on `__local` memory (the host engine lowers them to plain
/// code: `simt-local-atomics`), against a fold over each group's inputs.
#[test]
fn local_atomics_opencl() {
    let mut rng = Rng::new(12);
    for local in [1usize, 48, 256] {
        let groups = 9;
        let n = groups * local;
        let input: Vec<i32> = (0..n).map(|_| rng.next_u32() as i32).collect();
        let mut want = Vec::new();
        for g in input.chunks(local) {
            let w = |f: &dyn Fn(i32, i32) -> i32, init: i32| g.iter().fold(init, |a, &x| f(a, x));
            want.extend([
                w(&|a, x| a.wrapping_add(x), 0),
                w(&|a, x| a.wrapping_sub(x), 0),
                w(&|a, x| a.min(x), i32::MAX),
                w(&|a, x| a.max(x), i32::MIN),
                w(&|a, x| a & (x | 0x00ff00ff), -1),
                w(&|a, x| a | (x & 0x0f0f0f0f), 0),
                w(&|a, x| a ^ x, 0),
                local as i32,
                -(local as i32),
                w(&|a, x| a.wrapping_add(x >> 8), 0),
                7,
                g.iter().map(|&x| x as u32).min().unwrap() as i32,
                g.iter().map(|&x| x as u32).max().unwrap() as i32,
            ]);
        }
        let d = run("local_atomics.ll", "local_atomics", &[n], &[local], &[i32s(&input), i32s(&vec![0; groups * 13]), i32s(&vec![0; n])]);
        assert_exact(&format!("local_atomics out, local {local}"), &to_i32(d[1].as_ref().unwrap()), &want);
        assert_exact(&format!("local_atomics tickets, local {local}"), &to_i32(d[2].as_ref().unwrap()), &vec![1; n]);
    }
}

#[test]
fn stencil1d_opencl() {
    let n = 65536;
    let mut rng = Rng::new(8);
    let input = rng.f32s(n, -1.0, 1.0);
    let at = |i: isize| if i < 0 || i >= n as isize { 0.0 } else { input[i as usize] };
    // The products by 0.25 and 0.5 are exact (powers of two, no underflow for
    // these inputs), so fusing them into llvm.fmuladd changes nothing: the two
    // additions, left to right, fix every bit.
    let want: Vec<f32> = (0..n as isize).map(|i| 0.25 * at(i - 1) + 0.5 * at(i) + 0.25 * at(i + 1)).collect();
    for local in [64, 128, 256] {
        let d = run(
            "stencil1d.ll",
            "stencil1d",
            &[n],
            &[local],
            &[f32s(&input), Arg::Zeros("f32", n), Arg::Local("f32", local + 2), scalar("i32", n)],
        );
        assert_f32_exact(&format!("stencil1d out, local {local}"), &to_f32(d[1].as_ref().unwrap()), &want);
    }
}

#[test]
fn stencil2d_opencl() {
    for (w, h, locals) in [(256, 128, &[[16, 16], [32, 8], [64, 4]][..]), (250, 130, &[[16, 16]][..])] {
        let mut rng = Rng::new(9);
        let input = rng.f32s(w * h, -1.0, 1.0);
        let mut want = input.clone();
        for y in 1..h - 1 {
            for x in 1..w - 1 {
                let i = y * w + x;
                // Additions left to right, then one multiply: nothing to fuse,
                // the kernel's order fixes every bit.
                want[i] = 0.2f32 * (input[i] + input[i - 1] + input[i + 1] + input[i - w] + input[i + w]);
            }
        }
        for local in locals {
            let global = [round_up(w, local[0]), round_up(h, local[1])];
            let d = run(
                "stencil2d.ll",
                "stencil2d",
                &global,
                local,
                &[f32s(&input), Arg::Zeros("f32", w * h), scalar("i32", w), scalar("i32", h)],
            );
            assert_f32_exact(&format!("stencil2d out, {w}x{h}, local {local:?}"), &to_f32(d[1].as_ref().unwrap()), &want);
        }
    }
}

#[test]
fn uniform_if_barrier_opencl() {
    let n = 4096;
    let mut rng = Rng::new(10);
    let input = rng.i32s_in(n, -1_000_000, 1_000_000);
    for local in [32, 64, 256] {
        for reverse in [0, 1] {
            let mut want = vec![0i32; n];
            for g in 0..n / local {
                let v = |l: usize| input[g * local + if reverse != 0 { local - 1 - l } else { l }];
                for l in 0..local {
                    want[g * local + l] = v(l) + if g % 2 == 1 { v((l + 1) % local) } else { 0 };
                }
            }
            let d = run(
                "uniform_if_barrier.ll",
                "uniform_if_barrier",
                &[n],
                &[local],
                &[i32s(&input), Arg::Zeros("i32", n), Arg::Local("i32", local), scalar("i32", reverse)],
            );
            assert_exact(&format!("uniform_if_barrier out, local {local}, reverse {reverse}"), &to_i32(d[1].as_ref().unwrap()), &want);
        }
    }
}

#[test]
fn loop_break_barrier_opencl() {
    let n = 4096;
    let limit = 1 << 16;
    let mut rng = Rng::new(11);
    let input = rng.i32s_in(n, 1, 1000);
    // max_iter 64: every group leaves by `break` (after a group-dependent
    // number of steps); max_iter 3: by the loop condition.
    for (local, max_iter) in [(16, 64), (64, 64), (128, 64), (64, 3)] {
        let groups = n / local;
        let mut want = vec![0i32; n];
        let mut steps = vec![0i32; groups];
        for g in 0..groups {
            let mut v: Vec<i32> = input[g * local..(g + 1) * local].to_vec();
            let mut it = 0;
            while it < max_iter {
                if v[0] > limit {
                    break;
                }
                v = (0..local).map(|l| v[l].wrapping_add(v[(l + local - 1) % local])).collect();
                it += 1;
            }
            want[g * local..(g + 1) * local].copy_from_slice(&v);
            steps[g] = it;
        }
        if max_iter == 64 {
            let (lo, hi) = (steps.iter().min().unwrap(), steps.iter().max().unwrap());
            assert!(lo < hi && *hi < max_iter, "test data: groups should stop at different steps ({lo}..{hi})");
        }
        let d = run(
            "loop_break_barrier.ll",
            "loop_break_barrier",
            &[n],
            &[local],
            &[
                i32s(&input),
                Arg::Zeros("i32", n),
                Arg::Zeros("i32", groups),
                Arg::Local("i32", local),
                scalar("i32", limit),
                scalar("i32", max_iter),
            ],
        );
        let what = format!("loop_break_barrier, local {local}, max_iter {max_iter}");
        assert_exact(&format!("{what}: steps"), &to_i32(d[2].as_ref().unwrap()), &steps);
        assert_exact(&format!("{what}: out"), &to_i32(d[1].as_ref().unwrap()), &want);
    }
}

#[test]
fn live_across_barriers_opencl() {
    let n = 4096;
    let mut rng = Rng::new(12);
    let input = rng.i32s_in(8 * n, 0, 1 << 20);
    for local in [32, 64, 128] {
        let mut want = vec![0i32; 8 * n];
        for g in 0..n / local {
            let priv0: Vec<Vec<i32>> = (0..local).map(|l| input[(g * local + l) * 8..][..8].to_vec()).collect();
            let sel: Vec<usize> = priv0.iter().map(|p| (p[0] & 7) as usize).collect();
            let mut p = priv0.clone();
            // barriers 1-2: tile = priv[sel]; a = tile[right]
            let t1: Vec<i32> = (0..local).map(|l| p[l][sel[l]]).collect();
            for l in 0..local {
                p[l][sel[l]] += t1[(l + 1) % local];
            }
            // barriers 3-4: tile = priv[(sel+1)&7]; b = tile[(lid+2)%L]
            let t2: Vec<i32> = (0..local).map(|l| p[l][(sel[l] + 1) & 7]).collect();
            for l in 0..local {
                p[l][(sel[l] + 2) & 7] ^= t2[(l + 2) % local];
            }
            for l in 0..local {
                let scale = 1 + (l & 3) as i32;
                let mid = (0.5f32 * priv0[l][1] as f32 * scale as f32) as i32; // exact: < 2^22, halves
                for k in 0..8 {
                    want[(g * local + l) * 8 + k] = p[l][k] * scale + if k == sel[l] { ((l + 1) % local) as i32 } else { 0 } + mid;
                }
            }
        }
        let d = run(
            "live_across_barriers.ll",
            "live_across_barriers",
            &[n],
            &[local],
            &[i32s(&input), Arg::Zeros("i32", 8 * n), Arg::Local("i32", local)],
        );
        assert_exact(&format!("live_across_barriers out, local {local}"), &to_i32(d[1].as_ref().unwrap()), &want);
    }
}

/// A private array used only between two barriers (simt-wiloops keeps one
/// copy per work-group): the result against a model of the kernel.
#[test]
fn region_private_opencl() {
    let n = 2048;
    let mut rng = Rng::new(21);
    let input = rng.i32s_in(n, 0, 1 << 20);
    for local in [1, 8, 32, 64] {
        let mut want = vec![0i32; n];
        for g in 0..n / local {
            let mut acc: Vec<i32> = input[g * local..][..local].to_vec();
            for _step in 0..4 {
                let tile = acc.clone();
                acc = (0..local)
                    .map(|l| {
                        let win: Vec<i32> = (0..8).map(|j| tile[(l + j) % local]).collect();
                        let m: i32 = (0..8i32).map(|k| win[((acc[l] + 3 * k) & 7) as usize] * (k + 1)).sum();
                        m & 0xfffff
                    })
                    .collect();
            }
            want[g * local..][..local].copy_from_slice(&acc);
        }
        let d = run("region_private.ll", "region_private", &[n], &[local], &[i32s(&input), Arg::Zeros("i32", n), Arg::Local("i32", local)]);
        assert_exact(&format!("region_private out, local {local}"), &to_i32(d[1].as_ref().unwrap()), &want);
    }
}

#[test]
fn varying_trip_barrier_opencl() {
    if pocl().is_some() {
        // pocl 3.1 spins forever on this kernel: its work-item loops take a
        // loop with a barrier to run the same number of times in every
        // work-item. (The reference was checked with pocl on the same kernel
        // with the loop split into `for (i < 8) {...}` and a private tail.)
        eprintln!("skipped: pocl 3.1 hangs on a barrier loop with per-work-item trip counts");
        return;
    }
    let n = 3840; // a multiple of 32, 64 and 96
    let mut rng = Rng::new(13);
    let input = rng.u32s(n);
    for local in [32, 64, 96] {
        let mut out = vec![0u32; n];
        let mut extra = vec![0u32; n];
        for g in 0..n / local {
            let mut v: Vec<u32> = input[g * local..(g + 1) * local].to_vec();
            // The 8 iterations every work-item runs, barrier by barrier.
            for _ in 0..8 {
                let tile = v.clone();
                v = (0..local).map(|l| v[l].wrapping_mul(3).wrapping_add(tile[(l + 1) % local])).collect();
            }
            // The private tail: iterations 8 .. 8 + lid % 3.
            for l in 0..local {
                let mut e = 0u32;
                for i in 8..8 + (l % 3) as u32 {
                    e = e.wrapping_add(v[l] ^ i);
                }
                out[g * local + l] = v[l];
                extra[g * local + l] = e;
            }
        }
        let d = run(
            "varying_trip_barrier.ll",
            "varying_trip_barrier",
            &[n],
            &[local],
            &[u32s(&input), Arg::Zeros("u32", n), Arg::Zeros("u32", n), Arg::Local("u32", local)],
        );
        assert_exact(&format!("varying_trip_barrier out, local {local}"), &to_u32(d[1].as_ref().unwrap()), &out);
        assert_exact(&format!("varying_trip_barrier extra, local {local}"), &to_u32(d[2].as_ref().unwrap()), &extra);
    }
}

#[test]
fn invalid_barrier_is_reported() {
    if pocl().is_some() {
        eprintln!("skipped: pocl does not diagnose divergent barriers");
        return;
    }
    // Under a neutral file name, so that the kernel's name in the message
    // comes from the runner, not from the path it echoes.
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("k.ll");
    std::fs::copy(kernels_dir().join("invalid_barrier.ll"), &copy).unwrap();
    let data: Vec<i32> = (0..64).collect();
    let o = launch(copy.to_str().unwrap(), "invalid_barrier", &[64], &[16], &[i32s(&data)]);
    assert_eq!(o.code, Some(1), "want exit code 1; stderr:\n{}", o.stderr);
    assert!(o.stderr.contains("invalid_barrier"), "stderr should name the kernel:\n{}", o.stderr);
    assert!(
        o.stderr.to_lowercase().contains("different barrier"),
        "stderr should say the work-items reached different barriers:\n{}",
        o.stderr
    );
}
