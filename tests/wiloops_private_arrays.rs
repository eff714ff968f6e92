//! Private arrays that live across barriers (`simt-wiloops` keeps them per
//! work-item in scratch, interleaved where every index is uniform:
//! `passes/src/transform/wiloops/innermost.rs`), run on the host engine at
//! several local sizes, in the region and the linear form, and checked
//! against a plain-Rust model of the kernel and against the emulator. The
//! kernel (`test-ir/wiloops/Inputs/private_arrays.cl`) has int and long
//! arrays that are interleaved (one zeroed by a memset), int, long and char
//! arrays walked by loops, and an int array indexed by `lid % 4`.

use std::path::Path;
use std::process::Command;

const KERNEL: &str = "test-ir/wiloops/Inputs/private_arrays.cl";

fn run(engine: &str, dir: &Path, global: usize, local: usize, extra: &[&str]) {
    let (g, l, tile) = (global.to_string(), local.to_string(), format!("local:i32:{local}"));
    let out_buf = format!("buf:i32:{}", global * 16);
    let in_buf = format!("buf:i32:{global}=rand:7");
    let args = [
        KERNEL,
        "--cl-std",
        "CL1.2",
        "--kernel",
        "private_arrays",
        "--global",
        &g,
        "--local",
        &l,
        "--arg",
        &in_buf,
        "--arg",
        &out_buf,
        "--arg",
        &tile,
        "--engine",
        engine,
        "--dump",
    ];
    let out = Command::new(env!("CARGO_BIN_EXE_simt-run")).args(args).arg(dir).args(extra).output().expect("simt-run runs");
    assert!(out.status.success(), "simt-run {args:?} {extra:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn i32s(dir: &Path, i: usize) -> Vec<i32> {
    let bytes = std::fs::read(dir.join(format!("arg{i}.bin"))).expect("dumped");
    bytes.chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// The kernel, one work-group at a time, in Rust (wrapping like C's int).
fn model(input: &[i32], local: usize) -> Vec<i32> {
    let mut out = vec![0i32; input.len() * 16];
    for g0 in (0..input.len()).step_by(local) {
        let mut acc = vec![[0i32; 8]; local];
        let mut wide = vec![[0i64; 4]; local];
        let mut flags = vec![[0i8; 16]; local];
        let mut hist = vec![[0i32, 1, 2, 3]; local];
        let mut p = vec![[0i32; 4]; local];
        let mut q: Vec<[i64; 2]> = (0..local).map(|l| [(g0 + l) as i64, -((g0 + l) as i64) * 3]).collect();
        for (l, w) in wide.iter_mut().enumerate() {
            *w = [((g0 + l) as i64) << 20; 4];
        }
        for round in 0..3 {
            let tile: Vec<i32> = (0..local).map(|l| input[g0 + l].wrapping_add(round)).collect();
            for l in 0..local {
                for j in 0..8 {
                    acc[l][j] = acc[l][j].wrapping_add(tile[(l + j) % local].wrapping_mul(j as i32 + 1));
                }
                for j in 0..4 {
                    // C's `(lid + n - j) % n`: negative only at n = 1, where it is 0.
                    wide[l][j] += tile[(l as i64 + local as i64 - j as i64).rem_euclid(local as i64) as usize] as i64;
                }
                flags[l][round as usize * 5] = (tile[(l + 1) % local] & 127) as i8;
                hist[l][l % 4] = hist[l][l % 4].wrapping_add(tile[(l + 1) % local]);
                p[l][round as usize & 3] = p[l][round as usize & 3].wrapping_add(tile[(l + 2) % local]);
                q[l][round as usize & 1] += tile[(l + 3) % local] as i64;
            }
        }
        for l in 0..local {
            let o = &mut out[(g0 + l) * 16..(g0 + l + 1) * 16];
            o[..8].copy_from_slice(&acc[l]);
            for j in 0..4 {
                o[8 + j] = ((wide[l][j] - (((g0 + l) as i64) << 20)) as i32).wrapping_add(hist[l][j]);
            }
            o[12] = flags[l].iter().fold(0i32, |f, &x| f.wrapping_mul(3).wrapping_add(x as i32));
            let pl = p[l];
            o[13] =
                pl[0].wrapping_add(3i32.wrapping_mul(pl[1])).wrapping_add(5i32.wrapping_mul(pl[2])).wrapping_add(7i32.wrapping_mul(pl[3]));
            o[14] = (q[l][0] - 2 * q[l][1]) as i32;
        }
    }
    out
}

#[test]
fn private_arrays_across_barriers_at_several_local_sizes() {
    for local in [1usize, 4, 16, 64] {
        let global = 128;
        for form in [&[][..], &["--linear"][..]] {
            let host = tempfile::tempdir().unwrap();
            run("host", host.path(), global, local, form);
            let want = model(&i32s(host.path(), 0), local);
            assert_eq!(i32s(host.path(), 1), want, "local {local} {form:?}");
        }
    }
    let emu = tempfile::tempdir().unwrap();
    run("emu", emu.path(), 64, 16, &["--check", "all"]);
    assert_eq!(i32s(emu.path(), 1), model(&i32s(emu.path(), 0), 16), "emulator, local 16");
}
