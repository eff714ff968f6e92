//! The OpenCL built-ins `simt-lower-ocl-builtins` lowers through
//! `ocl_builtins_extra` (conversions with saturation and rounding modes,
//! relational tests, saturating and halving integer operations, common and
//! geometric functions, vector loads and stores), run on the host engine and
//! the emulator against values this test computes itself from OpenCL C's
//! definitions (§6.15), on inputs at the edges: NaN, ±inf, ±0, halfway
//! cases, values beyond every integer range, subnormals, INT_MIN/INT_MAX.

use std::path::Path;
use std::process::Command;

const F: [f32; 16] =
    [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0, 0.5, 1.5, 2.5, -2.5, 3e9, -3e9, 1e-40, 1.175_494_4e-38, 255.5, -1.5, 0.7];
const X: [i32; 16] = [i32::MAX, i32::MIN, -7, 7, 300, -300, 0, 1, -1, 65535, 100_000, -100_000, 255, 256, -129, 12345];
const Y: [i32; 16] = [5, -5, 3, -3, i32::MAX, i32::MIN, -1, 1, -1, 2, 70_000, 9, 0x7fff_0000, -256, 77, -12345];

fn rint(v: f32) -> f32 {
    v.round_ties_even()
}

/// `convert_int_sat` after `round` (NaN to 0, clamped).
fn sat_i32(v: f32, round: fn(f32) -> f32) -> i32 {
    if v.is_nan() {
        0
    } else {
        round(v) as i32
    }
}

fn expected_ints(i: usize) -> Vec<i32> {
    let (v, a, b) = (F[i], X[i], Y[i]);
    let bit = |c: bool| c as i32;
    let mut r = vec![
        sat_i32(v, f32::trunc),
        sat_i32(v, rint),
        sat_i32(v, f32::ceil),
        sat_i32(v, f32::floor),
        a.saturating_add(b),
        a.saturating_sub(b),
        ((a as i64 + b as i64) >> 1) as i32,
        ((a as i64 + b as i64 + 1) >> 1) as i32,
        (a as i64 - b as i64).unsigned_abs() as u32 as i32,
        bit(v.is_nan()),
        bit(v.is_infinite()),
        bit(v.is_finite()),
        bit(v.is_normal()),
        bit(v.is_sign_negative()),
        bit(v > 0.5),
        bit(!v.is_nan() && v != 0.5), // ordered and unequal
        (((a as i16 as u16 as u32) << 16) | (b as u16 as u32)) as i32,
        (((a as i64 * b as i64) >> 32) as i32).wrapping_add(7),
        a.clamp(-128, 127),
        if v.is_nan() { 0 } else { v.clamp(-32768.0, 32767.0) as i32 },
    ];
    let base = i & !3;
    r.extend((0..4).map(|k| if F[base + k] < 0.5 { -1 } else { 0 }));
    r
}

fn expected_floats(i: usize) -> Vec<f32> {
    let (v, a) = (F[i], X[i]);
    let w = if v.abs() < 1e30 { v } else { 1.25 };
    let t = ((w - 0.0) / (4.0 - 0.0)).clamp(0.0, 1.0);
    let sign = if v.is_nan() {
        0.0
    } else if v > 0.0 {
        1.0
    } else if v < 0.0 {
        -1.0
    } else {
        v
    };
    let p = [w, 1.0, -2.0, 0.5];
    let q = [0.5, w, 3.0, -1.0];
    let dot = p.iter().zip(&q).map(|(x, y)| x * y).fold(None, |s: Option<f32>, x| Some(s.map_or(x, |s| s + x))).unwrap();
    vec![
        w + (2.0 - w) * 0.25,
        if w < 0.5 { 0.0 } else { 1.0 },
        t * t * (3.0 - 2.0 * t),
        sign,
        w * (std::f64::consts::PI / 180.0) as f32,
        w * (180.0 / std::f64::consts::PI) as f32,
        dot,
        if a & 1 != 0 { -w } else { w },
    ]
}

fn write<T: Copy>(path: &Path, v: &[T], to_le: fn(T) -> [u8; 4]) {
    std::fs::write(path, v.iter().flat_map(|&x| to_le(x)).collect::<Vec<u8>>()).unwrap();
}

fn words(path: &Path) -> Vec<[u8; 4]> {
    std::fs::read(path).unwrap().chunks_exact(4).map(|c| c.try_into().unwrap()).collect()
}

#[test]
fn extra_builtins_compute_what_opencl_defines() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(&d.join("f.bin"), &F, f32::to_le_bytes);
    write(&d.join("x.bin"), &X, i32::to_le_bytes);
    write(&d.join("y.bin"), &Y, i32::to_le_bytes);
    let kernel = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ocl/extra_builtins.cl");
    for engine in ["host", "emu"] {
        let out = d.join(engine);
        let run = Command::new(env!("CARGO_BIN_EXE_simt-run"))
            .arg(&kernel)
            .args(["--kernel", "extra", "--global", "16", "--local", "4", "--engine", engine, "--no-cache"])
            .args(["--arg", &format!("buf:f32:16=file:{}", d.join("f.bin").display())])
            .args(["--arg", &format!("buf:i32:16=file:{}", d.join("x.bin").display())])
            .args(["--arg", &format!("buf:i32:16=file:{}", d.join("y.bin").display())])
            .args(["--arg", "buf:i32:384", "--arg", "buf:f32:128", "--arg", "buf:u8:16", "--arg", "buf:u32:32", "--dump"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(run.status.success(), "{engine}: {}", String::from_utf8_lossy(&run.stderr));
        let ints: Vec<i32> = words(&out.join("arg3.bin")).into_iter().map(i32::from_le_bytes).collect();
        let floats: Vec<f32> = words(&out.join("arg4.bin")).into_iter().map(f32::from_le_bytes).collect();
        let bytes = std::fs::read(out.join("arg5.bin")).unwrap();
        let uints: Vec<u32> = words(&out.join("arg6.bin")).into_iter().map(u32::from_le_bytes).collect();
        for i in 0..16 {
            let want = expected_ints(i);
            assert_eq!(&ints[i * 24..i * 24 + 24], &want[..], "{engine}: ints of work-item {i} (f = {}, x = {}, y = {})", F[i], X[i], Y[i]);
            let want = expected_floats(i);
            let got = &floats[i * 8..i * 8 + 8];
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!(g.to_bits() == w.to_bits(), "{engine}: float {k} of work-item {i} (f = {}): got {g:?}, want {w:?}", F[i]);
            }
            assert_eq!(bytes[i], X[i].clamp(0, 255) as u8, "{engine}: convert_uchar_sat({})", X[i]);
            assert_eq!(uints[i * 2], (X[i] as u32).saturating_add(Y[i] as u32), "{engine}: add_sat(uint)");
            let f = F[i];
            assert_eq!(uints[i * 2 + 1], if f.is_nan() { 0 } else { f as u32 }, "{engine}: convert_uint_sat({f})");
        }
    }
}
