//! Launches as OpenCL defines them (`src/launch/grid.rs`), on the host
//! engine and the emulator, each result checked against values worked out
//! here and the two engines against each other:
//!
//! - `reqd_work_group_size`: a `--local` that differs is an error naming
//!   it; without `--local` its size runs;
//! - CUDA `__launch_bounds__`: more threads than it allows is an error;
//! - without `--local` and without the attribute: a local size that divides
//!   the global size (pocl's rule), the same on both engines;
//! - non-uniform work-groups (OpenCL 2.0): the last work-group of a
//!   dimension is smaller, `get_local_size` says so, `get_enqueued_local_size`
//!   does not; with barriers and `__local` memory too; an error for a kernel
//!   compiled as OpenCL 1.2 (uniform work-groups only).

mod common;

use common::simt_run_output;
use std::path::{Path, PathBuf};
use std::process::Output;

const ENGINES: [&str; 2] = ["host", "emu"];

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn i32s(path: &Path) -> Vec<i32> {
    std::fs::read(path).unwrap().chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// Runs `src` with `flags` on `engine`, dumping into a fresh folder; returns
/// the `--stats json` object and the folder.
fn run_ok(src: &Path, engine: &str, flags: &[&str], dump: &Path) -> serde_json::Value {
    let mut args = vec![src.to_str().unwrap(), "--engine", engine, "--stats", "json", "--dump", dump.to_str().unwrap()];
    args.extend_from_slice(flags);
    let o = simt_run_output(&args);
    assert!(o.status.success(), "{engine} {flags:?}: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

const REQD: &str = r#"
__attribute__((reqd_work_group_size(64, 1, 1)))
kernel void k(global int *o) { o[get_global_id(0)] = (int)get_local_size(0) * 1000 + (int)get_local_id(0); }
"#;

#[test]
fn reqd_work_group_size_is_enforced_and_used() {
    let t = tempfile::tempdir().unwrap();
    let src = write(t.path(), "reqd.cl", REQD);
    let s = src.to_str().unwrap();
    for engine in ENGINES {
        let o = simt_run_output(&[s, "--engine", engine, "--global", "256", "--local", "32", "--arg", "buf:i32:256"]);
        assert_eq!(o.status.code(), Some(1), "{engine}: {}", stderr(&o));
        assert!(stderr(&o).contains("kernel 'k': --local 32 does not match its reqd_work_group_size(64,1,1)"), "{engine}: {}", stderr(&o));
        let dump = t.path().join(engine);
        let stats = run_ok(&src, engine, &["--global", "256", "--arg", "buf:i32:256"], &dump);
        assert_eq!(stats["local"], serde_json::json!([64]), "{engine}");
        let want: Vec<i32> = (0..256).map(|i| 64_000 + i % 64).collect();
        assert_eq!(i32s(&dump.join("arg0.bin")), want, "{engine}");
    }
}

#[test]
fn cuda_launch_bounds_cap_the_block() {
    let t = tempfile::tempdir().unwrap();
    let src = write(
        t.path(),
        "lb.cu",
        "__global__ void __attribute__((launch_bounds(128))) k(int *o) { o[blockIdx.x * blockDim.x + threadIdx.x] = blockDim.x; }\n",
    );
    let s = src.to_str().unwrap();
    for engine in ENGINES {
        let o = simt_run_output(&[s, "--engine", engine, "--global", "1024", "--local", "256", "--arg", "buf:i32:1024"]);
        assert_eq!(o.status.code(), Some(1), "{engine}: {}", stderr(&o));
        assert!(stderr(&o).contains("--local 256 is 256 threads per block, over its __launch_bounds__ of 128"), "{}", stderr(&o));
        let dump = t.path().join(engine);
        let stats = run_ok(&src, engine, &["--global", "1024", "--local", "128", "--arg", "buf:i32:1024"], &dump);
        assert_eq!(stats["local"], serde_json::json!([128]));
        assert!(i32s(&dump.join("arg0.bin")).iter().all(|&v| v == 128));
        // CUDA has no smaller last block.
        let o = simt_run_output(&[s, "--engine", engine, "--global", "1000", "--local", "128", "--arg", "buf:i32:1024"]);
        assert_eq!(o.status.code(), Some(2), "{engine}: {}", stderr(&o));
        assert!(stderr(&o).contains("takes uniform work-groups only"), "{}", stderr(&o));
    }
}

/// Each work-item writes its ids and sizes; a non-uniform launch in two
/// dimensions. The expected values follow OpenCL 2.0's definitions.
const SIZES: &str = r#"
kernel void sizes(global int *o, global int *p) {
  size_t i = get_global_id(0) + get_global_id(1) * get_global_size(0);
  o[i] = (int)(get_local_size(0) * 100 + get_local_size(1) * 10000 + get_local_id(0) + 1000000 * get_local_id(1));
  p[i] = (int)(get_enqueued_local_size(0) + 1000 * get_group_id(0) + 100000 * get_num_groups(0) + 10000000 * get_global_size(0));
}
"#;

#[test]
fn non_uniform_work_groups_on_both_engines() {
    let t = tempfile::tempdir().unwrap();
    let src = write(t.path(), "sizes.cl", SIZES);
    let (gx, gy, lx, ly) = (100i32, 7i32, 16i32, 4i32);
    let mut want_o = vec![0; (gx * gy) as usize];
    let mut want_p = want_o.clone();
    for y in 0..gy {
        for x in 0..gx {
            let (sx, sy) = (lx.min(gx - x / lx * lx), ly.min(gy - y / ly * ly));
            let i = (x + y * gx) as usize;
            want_o[i] = sx * 100 + sy * 10000 + x % lx + 1_000_000 * (y % ly);
            want_p[i] = lx + 1000 * (x / lx) + 100_000 * ((gx + lx - 1) / lx) + 10_000_000 * gx;
        }
    }
    let n = format!("buf:i32:{}", gx * gy);
    let flags = ["--global", "100,7", "--local", "16,4", "--arg", &n, "--arg", &n];
    for engine in ENGINES {
        for linear in [false, true] {
            if linear && engine != "host" {
                continue;
            }
            let dump = t.path().join(format!("{engine}{linear}"));
            let mut f = flags.to_vec();
            if linear {
                f.push("--linear");
            }
            let stats = run_ok(&src, engine, &f, &dump);
            assert_eq!(stats["work_groups"], 14, "{engine}");
            assert_eq!(i32s(&dump.join("arg0.bin")), want_o, "{engine} linear={linear}");
            assert_eq!(i32s(&dump.join("arg1.bin")), want_p, "{engine} linear={linear}");
        }
    }
}

/// Per-work-group sums through `__local` memory and barriers, in work-groups
/// whose last one is smaller: the tree reduction runs over get_local_size.
const GROUP_SUM: &str = r#"
kernel void group_sum(global const int *in, global int *out, local int *tmp) {
  size_t l = get_local_id(0), n = get_local_size(0);
  tmp[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = 1; s < n; s *= 2) {
    int v = (l % (2 * s) == 0 && l + s < n) ? tmp[l + s] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    tmp[l] += v;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) out[get_group_id(0)] = tmp[0];
}
"#;

#[test]
fn non_uniform_groups_with_barriers_and_local_memory() {
    let t = tempfile::tempdir().unwrap();
    let src = write(t.path(), "group_sum.cl", GROUP_SUM);
    let (n, local) = (1000usize, 64usize);
    let groups = n.div_ceil(local);
    let want: Vec<i32> = (0..groups).map(|g| (g * local..((g + 1) * local).min(n)).map(|i| i as i32).sum()).collect();
    let (a0, a1, a2) = (format!("buf:i32:{n}=ramp"), format!("buf:i32:{groups}"), format!("local:i32:{local}"));
    for engine in ENGINES {
        let dump = t.path().join(engine);
        run_ok(&src, engine, &["--global", "1000", "--local", "64", "--arg", &a0, "--arg", &a1, "--arg", &a2], &dump);
        assert_eq!(i32s(&dump.join("arg1.bin")), want, "{engine}");
    }
    // OpenCL 1.2 has uniform work-groups only.
    let o = simt_run_output(&[
        src.to_str().unwrap(),
        "-cl-std=CL1.2",
        "--global",
        "1000",
        "--local",
        "64",
        "--arg",
        &a0,
        "--arg",
        &a1,
        "--arg",
        &a2,
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "global size 1000 is not a multiple of local size 64 in dimension 0 (x); kernel 'group_sum' takes uniform work-groups only"
        ),
        "{}",
        stderr(&o)
    );
}

/// Without --local: a size that divides the global one, the same on both
/// engines (pocl's rule; the rule itself is unit-tested in src/launch/grid.rs).
#[test]
fn local_size_chosen_without_the_flag() {
    let t = tempfile::tempdir().unwrap();
    let src = write(t.path(), "sizes.cl", SIZES);
    let mut locals = Vec::new();
    for engine in ENGINES {
        let dump = t.path().join(engine);
        let stats = run_ok(&src, engine, &["--global", "96,10", "--arg", "buf:i32:960", "--arg", "buf:i32:960"], &dump);
        let local: Vec<u64> = stats["local"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
        assert!(96 % local[0] == 0 && 10 % local[1] == 0, "{local:?}");
        locals.push((local, i32s(&dump.join("arg0.bin"))));
    }
    assert_eq!(locals[0], locals[1]);
}
