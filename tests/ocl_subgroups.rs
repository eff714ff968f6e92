//! OpenCL sub-group functions (`simt-subgroups`: as CUDA warp functions) on
//! the host engine (COX's warp exchange) and the emulator, against results
//! computed here: work-groups of 48 work-items, so each has a full sub-group
//! of 32 and a partial one of 16.

mod common;

use std::path::Path;
use std::process::Command;

/// The Kogge-Stone inclusive scan `simt-subgroups` runs (five `shfl.up`
/// steps, all lanes at once), so that float results are exact.
fn scan<T: Copy>(v: &[T], op: fn(T, T) -> T) -> Vec<T> {
    let mut v = v.to_vec();
    for d in [1, 2, 4, 8, 16] {
        v = (0..v.len()).map(|l| if l >= d { op(v[l], v[l - d]) } else { v[l] }).collect();
    }
    v
}

#[test]
fn subgroup_functions_on_host_and_emulator() {
    let n = 96usize;
    let xs: Vec<i32> = common::lcg(31, n).iter().map(|x| (x % 1000) as i32).collect();
    let mut want = vec![0i32; 16 * n];
    let mut want_f = vec![0f32; 2 * n];
    for start in (0..n).step_by(48) {
        for (sg, (base, len)) in [(start, 32usize), (start + 32, 16)].into_iter().enumerate() {
            let lanes = &xs[base..base + len];
            let ys: Vec<f32> = lanes.iter().map(|&x| x as f32 * 0.37f32).collect();
            let sums = scan(&ys, |a, b| a + b);
            let mins = scan(&ys, f32::min);
            for l in 0..len {
                let o = &mut want[16 * (base + l)..16 * (base + l) + 16];
                o[0] = len as i32;
                o[1] = l as i32;
                o[2] = sg as i32;
                o[3] = 2 + 3200;
                o[4] = lanes[3];
                o[5] = lanes.iter().sum();
                o[6] = *lanes.iter().min().unwrap();
                o[7] = *lanes.iter().max().unwrap();
                o[8] = lanes[..=l].iter().sum();
                o[9] = lanes[..l].iter().sum();
                o[10] = *lanes[..=l].iter().max().unwrap();
                o[11] = i32::from(lanes.iter().any(|&x| x > 900)) + 2;
                o[12] = lanes[l ^ 2];
                o[13] = lanes[l ^ 1];
                // Out of range, or past a partial sub-group: the lane's own.
                o[14] = if l >= 1 { lanes[l - 1] } else { lanes[l] };
                o[15] = if l + 1 < len { lanes[l + 1] } else { lanes[l] };
                want_f[2 * (base + l)] = sums[len - 1];
                want_f[2 * (base + l) + 1] = if l == 0 { f32::INFINITY } else { mins[l - 1] };
            }
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("x.bin");
    std::fs::write(&input, xs.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>()).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("test-ir/subgroups/subgroups.cl");
    for engine in ["host", "emu"] {
        let dump = tmp.path().join(engine);
        let mut args: Vec<String> = [
            src.display().to_string().as_str(),
            "--kernel",
            "subgroup_ops",
            "--global",
            "96",
            "--local",
            "48",
            "--arg",
            &format!("buf:i32:{n}=file:{}", input.display()),
            "--arg",
            "buf:i32:1536",
            "--arg",
            "buf:f32:192",
            "--engine",
            engine,
            "--no-cache",
            "--dump",
            dump.display().to_string().as_str(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        if engine == "emu" {
            args.extend(["--check".into(), "all".into()]);
        }
        let o = Command::new(env!("CARGO_BIN_EXE_simt-run")).args(&args).output().unwrap();
        assert!(o.status.success(), "{engine}: {}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        let ints: Vec<i32> =
            std::fs::read(dump.join("arg1.bin")).unwrap().chunks(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect();
        let floats: Vec<f32> =
            std::fs::read(dump.join("arg2.bin")).unwrap().chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
        for (k, (g, w)) in ints.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "{engine}: work-item {}, result {}", k / 16, k % 16);
        }
        assert_eq!(floats, want_f, "{engine}");
    }
}

/// `long`, `ulong` and `double` (each moved as two 32-bit shuffles).
#[test]
fn subgroup_functions_on_64_bit_types() {
    let n = 96usize;
    let ins: Vec<i32> = common::lcg(57, n).iter().map(|x| (x % 4000) as i32).collect();
    let xs: Vec<i64> = ins.iter().map(|&v| v as i64 * 5_000_000_011 - 7_000_000_000_000).collect();
    let mut want = vec![0i64; 8 * n];
    let mut want_f = vec![0f64; 2 * n];
    for start in (0..n).step_by(48) {
        for (base, len) in [(start, 32usize), (start + 32, 16)] {
            let lanes = &xs[base..base + len];
            let ys: Vec<f64> = lanes.iter().map(|&x| x as f64 * 1.0000001).collect();
            let sums = scan(&ys, |a, b| a + b);
            for l in 0..len {
                let o = &mut want[8 * (base + l)..8 * (base + l) + 8];
                o[0] = lanes[3];
                o[1] = lanes.iter().sum();
                o[2] = *lanes.iter().min().unwrap();
                o[3] = lanes.iter().map(|&x| x as u64).max().unwrap() as i64;
                o[4] = lanes[..=l].iter().sum();
                o[5] = if l == 0 { i64::MIN } else { *lanes[..l].iter().max().unwrap() };
                o[6] = lanes[l ^ 1];
                o[7] = if l + 1 < len { lanes[l + 1] } else { lanes[l] };
                want_f[2 * (base + l)] = sums[len - 1];
                want_f[2 * (base + l) + 1] = if l >= 2 { ys[l - 2] } else { ys[l] };
            }
        }
    }
    assert!(xs.iter().any(|&x| x > 0) && xs.iter().any(|&x| x < 0), "both signs");
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("x.bin");
    std::fs::write(&input, ins.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>()).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("test-ir/subgroups/subgroups.cl");
    for engine in ["host", "emu"] {
        let dump = tmp.path().join(engine);
        let mut args: Vec<String> = vec![
            src.display().to_string(),
            "--kernel".into(),
            "subgroup_ops64".into(),
            "--global".into(),
            "96".into(),
            "--local".into(),
            "48".into(),
            "--arg".into(),
            format!("buf:i32:{n}=file:{}", input.display()),
            "--arg".into(),
            format!("buf:i64:{}", 8 * n),
            "--arg".into(),
            format!("buf:f64:{}", 2 * n),
        ];
        args.extend(common::engine_flags(engine, &dump));
        let o = Command::new(env!("CARGO_BIN_EXE_simt-run")).args(&args).output().unwrap();
        assert!(o.status.success(), "{engine}: {}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        let longs: Vec<i64> =
            std::fs::read(dump.join("arg1.bin")).unwrap().chunks(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect();
        let doubles: Vec<f64> =
            std::fs::read(dump.join("arg2.bin")).unwrap().chunks(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect();
        for (k, (g, w)) in longs.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "{engine}: work-item {}, result {}", k / 8, k % 8);
        }
        assert_eq!(doubles, want_f, "{engine}");
    }
}
