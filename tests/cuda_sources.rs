//! CUDA as people write it (`test-ir/cuda/*.cu`, through `src/cuda_shim.h`):
//! atomics, math, integer intrinsics, `static __global__` kernels with
//! templates, dynamic `extern __shared__` memory, and warp functions
//! (shuffle reductions and scans, ballot compaction, a `__match_any_sync`
//! histogram, `__reduce_*_sync`, partial warps), and their twins written
//! with shared memory and `__syncthreads` (`shared_twins.cu`, which
//! scripts/bench-warp times against them). Each kernel runs on the
//! host engine and the emulator from inputs this test writes, and both
//! results are checked against a reference computed here, in Rust; and
//! every source lowers to PTX that ptxas assembles for sm_70, sm_80, sm_90.

mod common;

use common::{engine_flags, simt_run_output};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cuda_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("test-ir/cuda")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn write_file(dir: &Path, name: &str, bytes: Vec<u8>) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.display().to_string()
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn u32_bytes(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Runs `src` on `engine` with `args` (`simt-run` flags after the source),
/// and returns each dumped buffer's bytes, in argument order (`None` for a
/// scalar).
fn run(src: &str, engine: &str, args: &[&str], buffers: usize) -> Vec<Vec<u8>> {
    let out = tempfile::tempdir().unwrap();
    let mut a: Vec<String> = vec![cuda_dir().join(src).display().to_string()];
    a.extend(args.iter().map(|s| s.to_string()));
    a.extend(engine_flags(engine, out.path()));
    let o = simt_run_output(&a);
    assert!(o.status.success(), "{src} on {engine}: {}", text(&o));
    (0..buffers).map(|k| std::fs::read(out.path().join(format!("arg{k}.bin"))).unwrap_or_default()).collect()
}

fn as_i32(b: &[u8]) -> Vec<i32> {
    b.chunks(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect()
}
fn as_u32(b: &[u8]) -> Vec<u32> {
    b.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}
fn as_f32(b: &[u8]) -> Vec<f32> {
    b.chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

const ENGINES: [&str; 2] = ["host", "emu"];

#[test]
fn every_atomic_on_global_and_shared_memory() {
    // 2 blocks of 32 threads, applied in thread order: every operation
    // here gives the same result in any order.
    let (blocks, threads) = (2u32, 32u32);
    let mut g = [0i32; 8];
    let mut u = [0u32; 5];
    let (mut l, mut f, mut d) = (0u64, 0f32, 0f64);
    for b in 0..blocks {
        let (mut s0, mut s1, mut su) = (0i32, 1000i32, 0u32);
        for t in 0..threads {
            let ti = t as i32;
            g[0] += 1;
            g[1] -= 2;
            g[2] = g[2].min(ti - 10);
            g[3] = g[3].max(ti);
            g[4] = 3;
            if g[5] == 0 {
                g[5] = 7;
            }
            u[0] = if u[0] >= 5 { 0 } else { u[0] + 1 };
            u[1] = if u[1] == 0 || u[1] > 5 { 5 } else { u[1] - 1 };
            u[2] &= !(1u32 << (t & 31));
            u[3] |= 1u32 << (t & 31);
            let i = b * threads + t;
            u[4] ^= i.wrapping_mul(i);
            l += 1u64 << 33;
            f += 0.5;
            d += 0.25;
            s0 += ti;
            s1 = s1.min(ti);
            su = if su >= 1000 { 0 } else { su + 1 };
        }
        g[6] += s0 + s1;
        g[7] += su as i32;
    }
    for engine in ENGINES {
        let r = run(
            "atomics.cu",
            engine,
            &[
                "--global",
                "64",
                "--local",
                "32",
                "--arg",
                "buf:i32:8",
                "--arg",
                "buf:u32:5",
                "--arg",
                "buf:u64:1",
                "--arg",
                "buf:f32:1",
                "--arg",
                "buf:f64:1",
            ],
            5,
        );
        assert_eq!(as_i32(&r[0]), g, "{engine}: int atomics");
        assert_eq!(as_u32(&r[1]), u, "{engine}: unsigned atomics");
        assert_eq!(u64::from_le_bytes(r[2][..8].try_into().unwrap()), l, "{engine}: unsigned long long");
        assert_eq!(as_f32(&r[3]), [f], "{engine}: float");
        assert_eq!(f64::from_le_bytes(r[4][..8].try_into().unwrap()), d, "{engine}: double");
    }
}

#[test]
fn float_atomic_add_reduction() {
    // Small integers: every partial sum is exact, so the order of the
    // blocks' atomicAdds does not matter.
    let n = 1000;
    let xs: Vec<f32> = common::lcg(1, n).iter().map(|x| (x % 10) as f32).collect();
    let want: f32 = xs.iter().map(|&x| x as f64).sum::<f64>() as f32;
    let tmp = tempfile::tempdir().unwrap();
    let input = format!("buf:f32:{n}=file:{}", write_file(tmp.path(), "in.bin", f32_bytes(&xs)));
    for engine in ENGINES {
        let r = run(
            "atomic_sum.cu",
            engine,
            &["--global", "1024", "--local", "128", "--arg", &input, "--arg", "buf:f32:1", "--arg", "i32:1000"],
            2,
        );
        assert_eq!(as_f32(&r[1]), [want], "{engine}");
    }
}

#[test]
fn shared_memory_histogram() {
    let n = 5000;
    let data = common::lcg(2, n);
    let mut want = [0u32; 64];
    for &x in &data {
        want[(x % 64) as usize] += 1;
    }
    let tmp = tempfile::tempdir().unwrap();
    let input = format!("buf:u32:{n}=file:{}", write_file(tmp.path(), "data.bin", u32_bytes(&data)));
    for engine in ENGINES {
        let r = run(
            "histogram.cu",
            engine,
            &["--global", "256", "--local", "64", "--arg", &input, "--arg", "i32:5000", "--arg", "buf:u32:64"],
            3,
        );
        assert_eq!(as_u32(&r[2]), want, "{engine}");
    }
}

#[test]
fn softmax_rows_with_expf_and_fmaxf() {
    let (rows, cols) = (64usize, 10usize);
    let x: Vec<f32> = common::lcg(3, rows * cols).iter().map(|&v| (v >> 8) as f32 / (1u32 << 24) as f32 * 8.0 - 4.0).collect();
    let mut want = vec![0f32; rows * cols];
    for r in 0..rows {
        let row = &x[r * cols..(r + 1) * cols];
        let m = row.iter().fold(f32::NEG_INFINITY, |m, &v| m.max(v));
        let e: Vec<f32> = row.iter().map(|&v| (v - m).exp()).collect();
        let sum = e.iter().fold(0f32, |s, &v| s + v);
        for c in 0..cols {
            want[r * cols + c] = e[c] / sum;
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    let input = format!("buf:f32:{}=file:{}", rows * cols, write_file(tmp.path(), "x.bin", f32_bytes(&x)));
    let out = format!("buf:f32:{}", rows * cols);
    let mut results = Vec::new();
    for engine in ENGINES {
        let r = run(
            "softmax.cu",
            engine,
            &["--global", "64", "--local", "32", "--arg", &input, "--arg", &out, "--arg", "i32:64", "--arg", "i32:10"],
            2,
        );
        let got = as_f32(&r[1]);
        for (k, (&g, &w)) in got.iter().zip(&want).enumerate() {
            // Rust's exp is the C library's expf too; one ULP of slack for
            // a libm that rounds differently on another machine.
            assert!((g.to_bits() as i64 - w.to_bits() as i64).abs() <= 1, "{engine}: y[{k}] = {g}, want {w}");
        }
        results.push(r[1].clone());
    }
    assert_eq!(results[0], results[1], "host and emulator differ");
}

#[test]
fn integer_and_reinterpretation_intrinsics() {
    let n = 128usize;
    let input = common::lcg(4, n);
    let mut want = vec![0i32; 4 * n];
    for (i, &u) in input.iter().enumerate() {
        let ii = i as i32;
        let ffs = if u == 0 { 0 } else { u.trailing_zeros() as i32 + 1 };
        let mul24 = ((u as i32) << 8 >> 8).wrapping_mul((ii - 50) << 8 >> 8);
        let umulhi = ((u as u64 * 0x9e37_79b9u64) >> 32) as u32;
        let rn = ((u & 0xffff) as f32 * 0.5).round_ties_even() as i32;
        want[4 * i] = u.count_ones() as i32 + 100 * u.leading_zeros() as i32;
        want[4 * i + 1] = u.reverse_bits() as i32;
        want[4 * i + 2] = mul24.wrapping_add(ffs);
        want[4 * i + 3] = umulhi as i32 ^ ii ^ rn;
    }
    let tmp = tempfile::tempdir().unwrap();
    let arg = format!("buf:u32:{n}=file:{}", write_file(tmp.path(), "in.bin", u32_bytes(&input)));
    for engine in ENGINES {
        let r = run("intrinsics.cu", engine, &["--global", "128", "--local", "64", "--arg", &arg, "--arg", "buf:i32:512"], 2);
        assert_eq!(as_i32(&r[1]), want, "{engine}");
    }
}

#[test]
fn static_kernel_with_a_template_found_by_its_plain_name() {
    let n = 512usize;
    let input: Vec<u32> = common::lcg(5, n).iter().map(|x| x % 100).collect();
    let mut want = vec![0i32; n];
    for b in 0..2 {
        let mut acc = 0i32;
        for t in 0..256 {
            acc += 2 * input[b * 256 + t] as i32;
            want[b * 256 + t] = acc;
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    let arg = format!("buf:i32:{n}=file:{}", write_file(tmp.path(), "in.bin", u32_bytes(&input)));
    for engine in ENGINES {
        // `prescan` names `_ZL7prescanPKiPi` (internal linkage).
        let r = run(
            "static_scan.cu",
            engine,
            &["--kernel", "prescan", "--global", "512", "--local", "256", "--arg", &arg, "--arg", "buf:i32:512"],
            2,
        );
        assert_eq!(as_i32(&r[1]), want, "{engine}");
    }
}

#[test]
fn dynamic_shared_memory_sized_by_the_launch() {
    let xs: Vec<f32> = (0..256).map(|i| i as f32 * 0.5).collect();
    let want: Vec<f32> = (0..256).map(|i| xs[(i / 128) * 128 + 127 - i % 128]).collect();
    let tmp = tempfile::tempdir().unwrap();
    let arg = format!("buf:f32:256=file:{}", write_file(tmp.path(), "in.bin", f32_bytes(&xs)));
    let launch = ["--global", "256", "--local", "128", "--arg", arg.as_str(), "--arg", "buf:f32:256"];
    for engine in ENGINES {
        let mut a = vec!["--shared-bytes", "512"];
        a.extend(launch);
        let r = run("dyn_shared.cu", engine, &a, 2);
        assert_eq!(as_f32(&r[1]), want, "{engine}");
    }
    // The same from a launch file's `shared-bytes` key.
    let file = tmp.path().join("rev.launch");
    std::fs::write(
        &file,
        format!(
            "module = {}\nshared-bytes = 512\nglobal = 256\nlocal = 128\narg = {arg}\narg = buf:f32:256\n",
            cuda_dir().join("dyn_shared.cu").display()
        ),
    )
    .unwrap();
    let dump = tmp.path().join("from-file");
    let o =
        simt_run_output(&["--launch".into(), file.display().to_string(), "--dump".into(), dump.display().to_string(), "--no-cache".into()]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(as_f32(&std::fs::read(dump.join("arg1.bin")).unwrap()), want);

    let src = cuda_dir().join("dyn_shared.cu").display().to_string();
    let with = |extra: &[&str]| {
        let mut a: Vec<String> = vec![src.clone()];
        a.extend(extra.iter().chain(launch.iter()).map(|s| s.to_string()));
        simt_run_output(&a)
    };
    // Without a size the host names the option.
    let o = with(&["--no-cache"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("has no size: give it one (simt-run --shared-bytes N"), "{}", text(&o));
    // The emulator gives exactly N bytes: 128 floats need 512.
    let o = with(&["--shared-bytes", "508", "--engine", "emu", "--check", "bounds"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("__local variable @simt.dynamic_shared (508 bytes"), "{}", text(&o));
}

#[test]
fn contraction_is_the_same_on_host_and_emulator() {
    // Random floats: a - m*b fused and rounded twice differ in many
    // elements (what the host and the emulator did before -ffp-contract=on).
    let n = 4096usize;
    let f = |seed| -> Vec<f32> { common::lcg(seed, n).iter().map(|&v| (v >> 8) as f32 / (1u32 << 24) as f32).collect() };
    let (a, b, m) = (f(6), f(7), f(8));
    let fused: Vec<f32> = (0..n).map(|i| (-m[i]).mul_add(b[i], a[i])).collect();
    let twice: Vec<f32> = (0..n).map(|i| a[i] - m[i] * b[i]).collect();
    assert!(fused.iter().zip(&twice).filter(|(x, y)| x != y).count() > 100, "the inputs do not tell fused from unfused");
    let tmp = tempfile::tempdir().unwrap();
    let bufs: Vec<String> = [("a", &a), ("b", &b), ("m", &m)]
        .iter()
        .map(|(name, v)| format!("buf:f32:{n}=file:{}", write_file(tmp.path(), &format!("{name}.bin"), f32_bytes(v))))
        .collect();
    let (y, z) = (format!("buf:f32:{n}"), format!("buf:f64:{n}"));
    let mut got = Vec::new();
    for engine in ENGINES {
        let r = run(
            "contract.cu",
            engine,
            &["--global", "4096", "--local", "256", "--arg", &bufs[0], "--arg", &bufs[1], "--arg", &bufs[2], "--arg", &y, "--arg", &z],
            5,
        );
        assert_eq!(as_f32(&r[3]), fused, "{engine}: a - m*b is one fused multiply-add");
        got.push((r[3].clone(), r[4].clone()));
    }
    assert!(got[0] == got[1], "host and emulator differ");
}

#[test]
fn every_cuda_source_assembles_for_sm_70_80_90() {
    let tmp = tempfile::tempdir().unwrap();
    let mut n = 0;
    for entry in std::fs::read_dir(cuda_dir()).unwrap() {
        let src = entry.unwrap().path();
        if src.extension().and_then(|e| e.to_str()) != Some("cu") {
            continue;
        }
        // ptxas 12.x assembles all three; the shim is compiled for sm_70.
        for sm in ["sm_70", "sm_80", "sm_90"] {
            let ptx = tmp.path().join("k.ptx");
            let o = Command::new(env!("CARGO_BIN_EXE_simt-opt"))
                .arg("--filetype=asm")
                .arg(format!("-mcpu={sm}"))
                .arg(&src)
                .arg("-o")
                .arg(&ptx)
                .output()
                .expect("simt-opt runs");
            assert!(o.status.success(), "{} for {sm}: {}", src.display(), text(&o));
            // Never -o /dev/null: ptxas deletes its output file when it fails.
            let r = Command::new(Path::new(env!("CARGO_MANIFEST_DIR")).join(".tools/bin/ptxas"))
                .arg(format!("-arch={sm}"))
                .arg(&ptx)
                .arg("-o")
                .arg(tmp.path().join("k.cubin"))
                .output()
                .expect("ptxas (run scripts/setup)");
            assert!(r.status.success(), "ptxas {} for {sm}: {}", src.display(), text(&r));
        }
        n += 1;
    }
    assert!(n >= 16, "only {n} sources");
}

#[test]
fn warp_functions_on_the_emulator() {
    // warp_reduce: 200 of 256 elements, shuffled down within each warp.
    let n = 256usize;
    let xs: Vec<f32> = common::lcg(9, n).iter().map(|x| (x % 8) as f32).collect();
    let want_sum: f32 = xs[..200].iter().sum();
    let tmp = tempfile::tempdir().unwrap();
    let arg = format!("buf:f32:{n}=file:{}", write_file(tmp.path(), "in.bin", f32_bytes(&xs)));
    let r = run(
        "warp.cu",
        "emu",
        &["--kernel", "warp_reduce", "--global", "256", "--local", "64", "--arg", &arg, "--arg", "buf:f32:1", "--arg", "i32:200"],
        2,
    );
    assert_eq!(as_f32(&r[1]), [want_sum]);

    // warp_ops: CUDA's rules for each lane of 32-lane warps, written out.
    let x: Vec<i32> = common::lcg(10, 64).iter().map(|v| (v % 1000) as i32).collect();
    let mut want = vec![0i32; 8 * 64];
    for warp in 0..2 {
        let lanes = &x[warp * 32..warp * 32 + 32];
        let ballot = |p: &dyn Fn(i32) -> bool| lanes.iter().enumerate().filter(|(_, &v)| p(v)).fold(0u32, |m, (l, _)| m | 1 << l);
        for l in 0..32usize {
            let o = &mut want[8 * (warp * 32 + l)..8 * (warp * 32 + l) + 8];
            o[0] = lanes[3];
            o[1] = if l >= 1 { lanes[l - 1] } else { lanes[l] };
            o[2] = lanes[l ^ 5];
            // Width 8: within the lane's segment of 8, else its own value.
            o[3] = if l % 8 + 2 < 8 { lanes[l + 2] } else { lanes[l] };
            o[4] = ballot(&|v| v & 1 == 1) as i32;
            o[5] = i32::from(lanes.iter().all(|&v| v >= 0)) + 2 * i32::from(lanes.iter().any(|&v| v > 900));
            o[6] = if lanes[l] & 1 == 1 { ballot(&|v| v & 1 == 1) as i32 } else { 0 };
            // Width 16: source lane (l + 1) mod 16 of the lane's half.
            o[7] = lanes[(l & !15) | ((l + 1) & 15)];
        }
    }
    let arg = format!("buf:i32:64=file:{}", write_file(tmp.path(), "x.bin", u32_bytes(&x.iter().map(|&v| v as u32).collect::<Vec<_>>())));
    let r = run("warp.cu", "emu", &["--kernel", "warp_ops", "--global", "64", "--local", "64", "--arg", &arg, "--arg", "buf:i32:512"], 2);
    assert_eq!(as_i32(&r[1]), want);

    // Other warp widths and the host engine say what they lack.
    let src = cuda_dir().join("warp.cu").display().to_string();
    let base = ["--kernel", "warp_ops", "--global", "64", "--local", "64", "--arg", "buf:i32:64=ramp", "--arg", "buf:i32:512"];
    let with = |extra: &[&str]| {
        let mut a = vec![src.clone()];
        a.extend(base.iter().chain(extra).map(|s| s.to_string()));
        simt_run_output(&a)
    };
    let o = with(&["--engine", "emu", "--warp-width", "16"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("(a CUDA warp function) needs --warp-width 32 (the emulator runs warps of 16 lanes)"), "{}", text(&o));
    // The host runs warp functions (COX), but only where all lanes of a warp
    // reach them together: `__activemask()` under `if (x & 1)` stops it.
    let o = with(&["--no-cache"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("reached different barriers: warp function (a warp barrier) #8"), "{}", text(&o));
    let r = run(
        "warp.cu",
        "host",
        &[
            "--kernel",
            "warp_reduce",
            "--global",
            "256",
            "--local",
            "64",
            "--arg",
            &format!("buf:f32:{n}=file:{}", tmp.path().join("in.bin").display()),
            "--arg",
            "buf:f32:1",
            "--arg",
            "i32:200",
        ],
        2,
    );
    assert_eq!(as_f32(&r[1]), [want_sum]);
}

#[test]
fn math_api_against_the_c_library() {
    let n = 100usize;
    let x: Vec<f32> = common::lcg(11, n).iter().map(|&v| (v >> 8) as f32 / (1u32 << 24) as f32 * 3.0).collect();
    let mut want = vec![0f32; 6 * n];
    let mut want_z = vec![0f64; n];
    for (i, &a) in x.iter().enumerate() {
        let o = &mut want[6 * i..6 * i + 6];
        o[0] = a.exp() + (-a).exp();
        o[1] = 1.0 / (a + 1.0).sqrt();
        o[2] = a.powf(1.5) + a.powf(0.25);
        o[3] = (a + 1.0).log2() + (a + 2.0).ln();
        o[4] = a.sin() + a.cos();
        o[5] = a.min(0.5) + a.max(0.25) + (i as i32 - 40).abs() as f32 + (i as i32).min(7) as f32;
        want_z[i] = (a as f64).sqrt() + (a as f64).mul_add(2.0, 1.0);
    }
    let tmp = tempfile::tempdir().unwrap();
    let arg = format!("buf:f32:{n}=file:{}", write_file(tmp.path(), "x.bin", f32_bytes(&x)));
    let mut got = Vec::new();
    for engine in ENGINES {
        let r = run(
            "mathfns.cu",
            engine,
            &["--global", "128", "--local", "64", "--arg", &arg, "--arg", "buf:f32:600", "--arg", "buf:f64:100", "--arg", "i32:100"],
            4,
        );
        for (k, (&g, &w)) in as_f32(&r[1]).iter().zip(&want).enumerate() {
            // The same C library as Rust's; one ULP for one that rounds otherwise.
            assert!((g.to_bits() as i64 - w.to_bits() as i64).abs() <= 1, "{engine}: y[{k}] = {g}, want {w}");
        }
        let z: Vec<f64> = r[2].chunks(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect();
        assert_eq!(z, want_z, "{engine}: double");
        got.push(r[1].clone());
    }
    assert_eq!(got[0], got[1], "host and emulator differ");
}

/// One warp's `v += __shfl_down_sync(FULL, v, off)` for off = 16..1, all
/// lanes at once (a lane past 31 reads its own value), as CUDA defines it:
/// lane 0's result.
fn shfl_down_sum<T: Copy + std::ops::Add<Output = T>>(lanes: &[T]) -> T {
    let mut v = lanes.to_vec();
    let mut off = 16;
    while off > 0 {
        v = (0..32).map(|l| v[l] + if l + off < 32 { v[l + off] } else { v[l] }).collect();
        off /= 2;
    }
    v[0]
}

/// `block_sum_warp`'s order: each warp's shuffle tree, then warp 0's over
/// the warp sums (zeros past the block's warps).
fn warp_block_sum<T: Copy + Default + std::ops::Add<Output = T>>(block: &[T]) -> T {
    let mut sums: Vec<T> = block.chunks(32).map(shfl_down_sum).collect();
    sums.resize(32, T::default());
    shfl_down_sum(&sums)
}

/// `block_sum_shared`'s tree: buf[t] += buf[t + s] for s = B/2 .. 1.
fn tree_block_sum(block: &[f32]) -> f32 {
    let mut buf = block.to_vec();
    let mut s = buf.len() / 2;
    while s > 0 {
        for t in 0..s {
            buf[t] += buf[t + s];
        }
        s /= 2;
    }
    buf[0]
}

#[test]
fn block_reductions_with_warp_shuffles_and_with_shared_memory() {
    // 1000 elements in blocks of 256: the last block is part padding.
    let (n, b) = (1000usize, 256usize);
    let xs: Vec<f32> = common::lcg(21, n).iter().map(|x| (x % 100_000) as f32 / 7.0).collect();
    let padded: Vec<f32> = (0..4 * b).map(|i| if i < n { xs[i] } else { 0.0 }).collect();
    let want_warp: Vec<f32> = padded.chunks(b).map(warp_block_sum).collect();
    let want_tree: Vec<f32> = padded.chunks(b).map(tree_block_sum).collect();
    // The two orders round differently: each engine must follow its kernel's.
    assert_ne!(want_warp, want_tree, "inputs that tell the two orders apart");
    let ints: Vec<i32> = common::lcg(22, n).iter().map(|&x| x as i32).collect();
    let ipadded: Vec<i32> = (0..4 * b).map(|i| if i < n { ints[i] } else { 0 }).collect();
    let want_int: Vec<i32> = ipadded.chunks(b).map(|c| c.iter().fold(0i32, |a, &x| a.wrapping_add(x))).collect();
    let tmp = tempfile::tempdir().unwrap();
    let farg = format!("buf:f32:{n}=file:{}", write_file(tmp.path(), "f.bin", f32_bytes(&xs)));
    let iarg =
        format!("buf:i32:{n}=file:{}", write_file(tmp.path(), "i.bin", u32_bytes(&ints.iter().map(|&v| v as u32).collect::<Vec<_>>())));
    for engine in ENGINES {
        let launch = |k: &'static str, arg: &str| -> Vec<Vec<u8>> {
            let mut a = vec!["--kernel", k, "--global", "1024", "--local", "256", "--arg", arg, "--arg", "buf:i32:4", "--arg", "i32:1000"];
            if k == "block_sum_int" {
                // Eight warps' sums in dynamic shared memory.
                a.extend(["--shared-bytes", "32"]);
            }
            run("warp_reduce.cu", engine, &a, 2)
        };
        assert_eq!(as_f32(&launch("block_sum_warp", &farg)[1]), want_warp, "{engine}");
        assert_eq!(as_f32(&launch("block_sum_shared", &farg)[1]), want_tree, "{engine}");
        assert_eq!(as_i32(&launch("block_sum_int", &iarg)[1]), want_int, "{engine}");
    }
}

#[test]
fn block_scan_with_shfl_up_in_each_warp() {
    let (n, b) = (500usize, 256usize);
    let xs: Vec<i32> = common::lcg(23, n).iter().map(|x| (x % 2001) as i32 - 1000).collect();
    let mut incl = vec![0i32; n];
    for start in (0..n).step_by(b) {
        let mut acc = 0;
        for i in start..(start + b).min(n) {
            acc += xs[i];
            incl[i] = acc;
        }
    }
    let excl: Vec<i32> = (0..n).map(|i| incl[i] - xs[i]).collect();
    let tmp = tempfile::tempdir().unwrap();
    let arg = format!("buf:i32:{n}=file:{}", write_file(tmp.path(), "x.bin", u32_bytes(&xs.iter().map(|&v| v as u32).collect::<Vec<_>>())));
    // The warp version and its shared-memory twin (scripts/bench-warp).
    for (engine, (src, kernel)) in
        ENGINES.iter().flat_map(|&e| [("warp_scan.cu", "block_scan"), ("shared_twins.cu", "block_scan_shared")].map(|k| (e, k)))
    {
        let r = run(
            src,
            engine,
            &[
                "--kernel",
                kernel,
                "--global",
                "512",
                "--local",
                "256",
                "--arg",
                &arg,
                "--arg",
                "buf:i32:500",
                "--arg",
                "buf:i32:500",
                "--arg",
                "i32:500",
            ],
            3,
        );
        assert_eq!(as_i32(&r[1]), incl, "{engine} {kernel}");
        assert_eq!(as_i32(&r[2]), excl, "{engine} {kernel}");
    }
}

#[test]
fn stream_compaction_with_ballots() {
    let (n, b) = (500usize, 128usize);
    let xs: Vec<i32> = common::lcg(24, n).iter().map(|x| (x % 1000) as i32).collect();
    let tmp = tempfile::tempdir().unwrap();
    let arg = format!("buf:i32:{n}=file:{}", write_file(tmp.path(), "x.bin", u32_bytes(&xs.iter().map(|&v| v as u32).collect::<Vec<_>>())));
    for (engine, (src, kernel)) in
        ENGINES.iter().flat_map(|&e| [("warp_compact.cu", "compact"), ("shared_twins.cu", "compact_shared")].map(|k| (e, k)))
    {
        let r = run(
            src,
            engine,
            &[
                "--kernel",
                kernel,
                "--global",
                "512",
                "--local",
                "128",
                "--arg",
                &arg,
                "--arg",
                "buf:i32:512",
                "--arg",
                "buf:i32:4",
                "--arg",
                "i32:500",
            ],
            3,
        );
        let (out, counts) = (as_i32(&r[1]), as_i32(&r[2]));
        for (blk, start) in (0..n).step_by(b).enumerate() {
            let kept: Vec<i32> = xs[start..(start + b).min(n)].iter().copied().filter(|x| x % 3 == 0).collect();
            assert_eq!(counts[blk] as usize, kept.len(), "{engine} {kernel} block {blk}");
            assert_eq!(&out[start..start + kept.len()], &kept[..], "{engine} {kernel} block {blk}");
        }
    }
}

#[test]
fn histogram_with_match_any() {
    let n = 500usize;
    // Few distinct bins per warp, so that lanes do share them.
    let xs: Vec<i32> = common::lcg(25, n).iter().map(|x| (x % 5 * 3) as i32 + 16 * (x % 7) as i32).collect();
    let mut want = [0u32; 16];
    for x in &xs {
        want[(x & 15) as usize] += 1;
    }
    let tmp = tempfile::tempdir().unwrap();
    let arg = format!("buf:i32:{n}=file:{}", write_file(tmp.path(), "x.bin", u32_bytes(&xs.iter().map(|&v| v as u32).collect::<Vec<_>>())));
    for (engine, (src, kernel)) in
        ENGINES.iter().flat_map(|&e| [("warp_hist.cu", "hist_match"), ("shared_twins.cu", "hist_shared")].map(|k| (e, k)))
    {
        let r = run(
            src,
            engine,
            &["--kernel", kernel, "--global", "512", "--local", "128", "--arg", &arg, "--arg", "buf:u32:16", "--arg", "i32:500"],
            2,
        );
        assert_eq!(as_u32(&r[1]), want, "{engine} {kernel}");
    }
}

/// Warp-aggregated atomics (`warp_aggregated.cu`): the host engine runs
/// them one add per lane (`simt-deaggregate-atomics`, whose remarks
/// `test-ir/wiloops/deaggregate-cuda.test` checks), the emulator as
/// written; both against the counts computed here.
#[test]
fn warp_aggregated_counters_and_histogram() {
    let n = 1000usize;
    let xs: Vec<f32> = common::lcg(31, n).iter().map(|&x| (x % 2001) as f32 / 1000.0 - 1.0).collect();
    let keys: Vec<i64> = common::lcg(32, n).iter().map(|&x| (i64::from(x) << 9) - (1 << 40) + i64::from(x % 7) * 8).collect();
    let tmp = tempfile::tempdir().unwrap();
    let x_arg = format!("buf:f32:{n}=file:{}", write_file(tmp.path(), "x.bin", f32_bytes(&xs)));
    let k_arg = format!("buf:i64:{n}=file:{}", write_file(tmp.path(), "k.bin", keys.iter().flat_map(|k| k.to_le_bytes()).collect()));
    let above = xs.iter().filter(|&&x| x > 0.25).count() as u32;
    let mut hist = [0u64; 32];
    for k in &keys {
        hist[((k >> 3) & 31) as usize] += 1;
    }
    let as_u64 = |b: &[u8]| b.chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect::<Vec<_>>();
    let n_arg = format!("i32:{n}");
    let mut uneven = Vec::new();
    for engine in ENGINES {
        let count = |kernel: &str, out: &str| {
            let args = [
                "--kernel", kernel, "--global", "1024", "--local", "256", "--arg", &x_arg, "--arg", out, "--arg", &n_arg, "--arg",
                "f32:0.25",
            ];
            as_u32(&run("warp_aggregated.cu", engine, &args, 2)[1])
        };
        assert_eq!(count("count_above", "buf:u32:1"), [above], "{engine} count_above");
        assert_eq!(count("count_not_above", "buf:i32:1"), [n as u32 - above], "{engine} count_not_above");
        let hist64 = |global: &str, local: &str| {
            let args =
                ["--kernel", "hist64_top", "--global", global, "--local", local, "--arg", &k_arg, "--arg", "buf:u64:32", "--arg", &n_arg];
            as_u64(&run("warp_aggregated.cu", engine, &args, 2)[1])
        };
        assert_eq!(hist64("512,2", "64,2"), hist, "{engine} hist64_top");
        // Blocks of 16 x 8: `threadIdx.x & 31` is not the lane, so the
        // kernel's leaders are wrong and the pass must leave them: the
        // host engine must still give what the emulator gives.
        uneven.push(hist64("128,8", "16,8"));
    }
    assert_eq!(uneven[0], uneven[1], "hist64_top in blocks of 16 x 8: host and emulator differ");
}

#[test]
fn warp_reductions_matches_and_syncwarp_per_lane() {
    let xs: Vec<i32> = common::lcg(26, 64).iter().map(|x| (x % 100_000) as i32 - 50_000).collect();
    let mut want = vec![0i32; 640];
    for w in 0..2 {
        let lanes = &xs[32 * w..32 * w + 32];
        let u: Vec<u32> = lanes.iter().map(|&x| x as u32).collect();
        let all_same = |f: &dyn Fn(i32) -> i32| lanes.iter().all(|&x| f(x) == f(lanes[0]));
        for l in 0..32 {
            let o = &mut want[10 * (32 * w + l)..10 * (32 * w + l) + 10];
            o[0] = lanes.iter().fold(0i32, |a, &x| a.wrapping_add(x));
            o[1] = *lanes.iter().min().unwrap();
            o[2] = *u.iter().max().unwrap() as i32;
            o[3] = u.iter().fold(!0u32, |a, &x| a & (x | 0x10000)) as i32;
            o[4] = u.iter().fold(0u32, |a, &x| a | (x & 0xff)) as i32;
            o[5] = u.iter().fold(0u32, |a, &x| a ^ x) as i32;
            let odd_same = all_same(&|x| x & 1);
            o[6] = if odd_same { -1 } else { 0 };
            let high_same = all_same(&|x| x >> 20);
            o[7] = i32::from(odd_same) + 2 * i32::from(high_same) + 4 * i32::from(high_same);
            o[8] = (0..32).filter(|&k| lanes[k] & 3 == lanes[l] & 3).fold(0u32, |m, k| m | 1 << k) as i32;
            o[9] = lanes[l ^ 1];
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    let arg = format!("buf:i32:64=file:{}", write_file(tmp.path(), "x.bin", u32_bytes(&xs.iter().map(|&v| v as u32).collect::<Vec<_>>())));
    for engine in ENGINES {
        let mut a = vec!["--kernel", "warp_reduce_ops", "--global", "64", "--local", "64", "--arg", &arg, "--arg", "buf:i32:640"];
        let out = tempfile::tempdir().unwrap();
        let dump = out.path().display().to_string();
        a.extend(["--engine", engine, "--no-cache", "--dump", &dump]);
        if engine == "emu" {
            // Not `races`: the checker does not know that __syncwarp orders
            // the lanes' shared-memory accesses (README, warp functions).
            a.extend(["--check", "bounds,uninit,barriers,warp"]);
        }
        let mut args = vec![cuda_dir().join("warp_votes.cu").display().to_string()];
        args.extend(a.iter().map(|s| s.to_string()));
        let o = simt_run_output(&args);
        assert!(o.status.success(), "{engine}: {}", text(&o));
        assert_eq!(as_i32(&std::fs::read(out.path().join("arg1.bin")).unwrap()), want, "{engine}");
    }
}

#[test]
fn partial_warps_have_only_their_lanes() {
    // Blocks of 48: warp 1 of each has lanes 0-15.
    let xs: Vec<i32> = common::lcg(27, 96).iter().map(|x| (x % 1000) as i32).collect();
    let mut want = vec![0i32; 384];
    for blk in 0..2 {
        for (w, len) in [(0usize, 32usize), (1, 16)] {
            let base = 48 * blk + 32 * w;
            let lanes = &xs[base..base + len];
            let active = if len == 32 { u32::MAX } else { (1u32 << len) - 1 };
            let odd = lanes.iter().filter(|&&x| x & 1 == 1).count() as i32;
            let any = i32::from(lanes.iter().any(|&x| x > 500));
            for l in 0..len {
                let o = &mut want[4 * (base + l)..4 * (base + l) + 4];
                o[0] = active as i32;
                o[1] = odd;
                // A lane that does not exist gives the caller its own value.
                o[2] = if l + 16 < len { lanes[l + 16] } else { lanes[l] };
                o[3] = lanes[l ^ 1] + any * 1_000_000;
            }
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    let arg = format!("buf:i32:96=file:{}", write_file(tmp.path(), "x.bin", u32_bytes(&xs.iter().map(|&v| v as u32).collect::<Vec<_>>())));
    for engine in ENGINES {
        let r = run(
            "warp_votes.cu",
            engine,
            &["--kernel", "partial_warps", "--global", "96", "--local", "48", "--arg", &arg, "--arg", "buf:i32:384"],
            2,
        );
        assert_eq!(as_i32(&r[1]), want, "{engine}");
    }
}

#[test]
fn softmax_one_warp_per_row_with_butterfly_shuffles() {
    let rows = 8usize;
    let xs: Vec<f32> = common::lcg(28, 64 * rows).iter().map(|x| (x % 2000) as f32 / 250.0 - 4.0).collect();
    let tmp = tempfile::tempdir().unwrap();
    let arg = format!("buf:f32:{}=file:{}", 64 * rows, write_file(tmp.path(), "x.bin", f32_bytes(&xs)));
    for (src, kernel) in [("warp_softmax.cu", "softmax_warp"), ("shared_twins.cu", "softmax_shared")] {
        let mut got = Vec::new();
        for engine in ENGINES {
            let r = run(
                src,
                engine,
                &["--kernel", kernel, "--global", "256", "--local", "64", "--arg", &arg, "--arg", "buf:f32:512", "--arg", "i32:8"],
                2,
            );
            let y = as_f32(&r[1]);
            for row in 0..rows {
                let x = &xs[64 * row..64 * row + 64];
                let m = x.iter().fold(f64::MIN, |a, &v| a.max(v as f64));
                let s: f64 = x.iter().map(|&v| (v as f64 - m).exp()).sum();
                for (k, &v) in x.iter().enumerate() {
                    let want = (v as f64 - m).exp() / s;
                    let have = y[64 * row + k] as f64;
                    assert!((have - want).abs() <= 1e-6 * want.max(1e-3), "{engine} {kernel} row {row} [{k}]: {have} vs {want}");
                }
            }
            got.push(r[1].clone());
        }
        assert!(got[0] == got[1], "{kernel}: host and emulator differ");
    }
}

#[test]
fn warps_of_a_two_dimensional_block_follow_the_linear_thread_id() {
    // Blocks of 12 x 8: warps straddle rows of x.
    let (bx, by) = (12usize, 8usize);
    let id = |t: usize| ((t % bx) * 100 + t / bx) as i32;
    let mut want = vec![0i32; 2 * 2 * bx * by];
    for blk in 0..2 {
        for t in 0..bx * by {
            let o = 2 * (blk * bx * by + t);
            want[o] = id(t ^ 5);
            want[o + 1] = id(t & !31);
        }
    }
    for engine in ENGINES {
        let r = run("warp_2d.cu", engine, &["--kernel", "warp_2d", "--global", "24,8", "--local", "12,8", "--arg", "buf:i32:384"], 1);
        assert_eq!(as_i32(&r[0]), want, "{engine}");
    }
}

/// `warp_rounds` of warp_loops.cu, from the algorithm: per warp (lanes that
/// do not exist give a shuffle's caller its own value), `w % 3 + 1`
/// butterfly rounds, then adding lane 0's value while it is at most `limit`,
/// 6 times at most.
fn warp_rounds(xs: &[i32], n: usize, global: usize, local: usize, limit: i32) -> Vec<i32> {
    let mut out = vec![0i32; n];
    for block in (0..global).step_by(local) {
        for (w, first) in (0..local).step_by(32).enumerate() {
            let lanes = (local - first).min(32);
            let at = |l: usize| block + first + l;
            let mut v: Vec<i32> = (0..lanes).map(|l| if at(l) < n { xs[at(l)] & 255 } else { 0 }).collect();
            for r in 0..=w % 3 {
                v = (0..lanes).map(|l| v[l] + if l ^ (1 << r) < lanes { v[l ^ (1 << r)] } else { v[l] }).collect();
            }
            let mut steps = 0;
            while v[0] <= limit && steps < 6 {
                let add = v[0] + 1;
                v.iter_mut().for_each(|x| *x += add);
                steps += 1;
            }
            for l in (0..lanes).filter(|&l| at(l) < n) {
                out[at(l)] = v[l] * 16 + steps;
            }
        }
    }
    out
}

#[test]
fn warp_loops_whose_trip_counts_differ_between_warps() {
    // Blocks of 80 (warps of 32, 32 and 16 lanes), 229 items of input:
    // each warp of a block runs its loops a different number of times.
    let (global, local, n) = (240usize, 80usize, 229usize);
    let xs: Vec<i32> = common::lcg(29, n).iter().map(|&x| x as i32).collect();
    let tmp = tempfile::tempdir().unwrap();
    let arg = format!("buf:i32:{n}=file:{}", write_file(tmp.path(), "x.bin", u32_bytes(&xs.iter().map(|&v| v as u32).collect::<Vec<_>>())));
    for limit in [0, 1500, 100_000] {
        let want = warp_rounds(&xs, n, global, local, limit);
        let (g, l, out, lim) = (global.to_string(), local.to_string(), format!("buf:i32:{n}"), format!("i32:{limit}"));
        let args = [
            "--kernel",
            "warp_rounds",
            "--global",
            &g,
            "--local",
            &l,
            "--arg",
            &arg,
            "--arg",
            &out,
            "--arg",
            &format!("i32:{n}"),
            "--arg",
            &lim,
        ];
        for engine in ENGINES {
            let r = run("warp_loops.cu", engine, &args, 2);
            assert_eq!(as_i32(&r[1]), want, "{engine}, limit {limit}");
        }
    }
}

/// One warp's shuffle (PTX, and the emulator's choice for lanes that do not
/// exist): lane `l` of `vals` (fewer than 32 in a partial warp) gets lane
/// `src`'s value, or its own where `src` is out of range or past the end.
fn shfl_from(vals: &[i32], l: usize, src: Option<usize>) -> i32 {
    match src {
        Some(j) if j < vals.len() => vals[j],
        _ => vals[l],
    }
}

/// warp_ids.cu's kernel `kernel` (`warp_branch` or `warp_offsets`) from the
/// algorithm, for blocks of `nx` x `ny` and `blocks` blocks: warps are 32
/// consecutive linear thread ids; `warp` and `lane` are the kernel's own
/// `threadIdx.x / 32` and `threadIdx.x % 32`.
fn warp_ids_reference(kernel: &str, xs: &[i32], blocks: usize, nx: usize, ny: usize) -> Vec<i32> {
    let n = nx * ny;
    let width = if kernel == "warp_branch" { 1 } else { 3 };
    let mut out = vec![0i32; width * blocks * n];
    for b in 0..blocks {
        for first in (0..n).step_by(32) {
            let ids: Vec<usize> = (first..n.min(first + 32)).collect();
            let vals: Vec<i32> = ids.iter().map(|&t| xs[b * n + t]).collect();
            let (warp, lane): (Vec<usize>, Vec<usize>) = ids.iter().map(|&t| ((t % nx) / 32, (t % nx) % 32)).unzip();
            for l in 0..ids.len() {
                let g = b * n + ids[l];
                if kernel == "warp_offsets" {
                    out[3 * g] = shfl_from(&vals, l, Some((lane[l] * 7 + 3) % 32));
                    let delta = warp[l] + 1 + lane[l] % 3;
                    out[3 * g + 1] = shfl_from(&vals, l, Some(l + delta).filter(|&j| j <= 31));
                    out[3 * g + 2] = (warp[l] * 1000 + lane[l]) as i32;
                    continue;
                }
                assert!(warp.iter().all(|&w| w == warp[0]), "a block shape whose warps are not uniform in warp");
                let mut r = if warp[l] % 2 == 1 {
                    let mut s = vals.clone();
                    for off in [16, 8, 4, 2, 1] {
                        s = (0..s.len()).map(|k| s[k] + shfl_from(&s, k, Some(k + off).filter(|&j| j <= 31))).collect();
                    }
                    s[l]
                } else {
                    shfl_from(&vals, l, l.checked_sub(3)) + 7 * shfl_from(&vals, l, Some(l ^ 13))
                };
                if warp[l] == 0 && lane[l] < 4 {
                    r += 1_000_000;
                }
                out[g] = r;
            }
        }
    }
    out
}

#[test]
fn warp_and_lane_from_thread_id_in_uniform_branches_and_per_lane_offsets() {
    // (kernel, blocks, nx, ny): a partial last warp (80), rows of two
    // aligned warps (64 x 3), and, for per-lane uses only, warps that
    // straddle rows (48 x 2), where the host keeps threadIdx.x / 32 per lane.
    let launches = [
        ("warp_branch", 2usize, 80usize, 1usize),
        ("warp_branch", 2, 64, 3),
        ("warp_offsets", 2, 80, 1),
        ("warp_offsets", 2, 64, 3),
        ("warp_offsets", 2, 48, 2),
    ];
    let tmp = tempfile::tempdir().unwrap();
    for (kernel, blocks, nx, ny) in launches {
        let total = blocks * nx * ny;
        let xs: Vec<i32> = common::lcg(29, total).iter().map(|x| (x % 1000) as i32).collect();
        let want = warp_ids_reference(kernel, &xs, blocks, nx, ny);
        let file = write_file(tmp.path(), &format!("{kernel}-{nx}x{ny}.bin"), u32_bytes(&xs.iter().map(|&v| v as u32).collect::<Vec<_>>()));
        let (input, output) = (format!("buf:i32:{total}=file:{file}"), format!("buf:i32:{}", want.len()));
        let (global, local) = (format!("{},{ny}", blocks * nx), format!("{nx},{ny}"));
        for engine in ENGINES {
            let args = ["--kernel", kernel, "--global", &global, "--local", &local, "--arg", &input, "--arg", &output];
            let r = run("warp_ids.cu", engine, &args, 2);
            assert_eq!(as_i32(&r[1]), want, "{kernel} {nx}x{ny} on {engine}");
        }
    }
}
