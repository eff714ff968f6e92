//! `simt-wiloops-version` (in the host front end) checked by execution.
//!
//! Corpus kernels with bounds checks run on the host engine with launches
//! whose last work-group is partial (the bound, `n = 1000` for a local size
//! of 256, is no multiple of the work-group), so the full groups take the
//! copy of the work-item loop without the checks and the last one the
//! original; in the grid-stride kernels (reduction, histogram, in lockstep)
//! the last step of every group is the partial one. Every buffer must match
//! the emulator's (no work-item loops: the reference). A kernel whose `int` global id wraps past `INT_MAX` inside a
//! work-group (a global offset just below 2^31) has both ends of the group
//! inside the bound and the middle outside: only the pass's wrap test sends
//! it to the checked loop (without that test, element 99 differs).
//!
//! Generated kernels add variety: guards `g(x) pred u` with `x` the global
//! id as `int`, `uint`, `long` or `ulong`, `g` one of a dozen affine forms
//! (scaled, shifted, reversed, offset by an argument, low bits), `&&`, `||`,
//! `!` of two, and `==`/`!=` now and then (not versioned; pinned to the one
//! work-item that passes where `g`'s step is odd; a loop under two guards
//! may also be skipped where one fails everywhere), each run with global offsets
//! and bounds that put the ends of some groups on both sides of the bound
//! and make some ids wrap inside a group.
//!
//! So that these cannot pass by the pass doing nothing, the host front end
//! is run on each kernel and must have versioned loops (every corpus
//! kernel, most generated ones).

mod corpus;
mod kernel_gen;

use inkwell::context::Context;
use kernel_gen::Rng;
use simt::frontend::{self, EngineFront};
use simt::input::ModuleInput;
use std::path::Path;

/// File, kernel, global, local, `--arg` specs, and extra flags (a global
/// offset).
type Launch = (&'static str, &'static str, &'static str, &'static str, &'static [&'static str]);

const PARTIAL: &[Launch] = &[
    ("vecadd.ll", "vecadd", "1024", "256", &["buf:f32:1000=rand:1", "buf:f32:1000=rand:2", "buf:f32:1000", "i32:1000"]),
    ("saxpy.ll", "saxpy", "1024", "256", &["i32:1000", "f32:2.5", "buf:f32:1000=rand:3", "buf:f32:1000=rand:4"]),
    ("stencil1d.ll", "stencil1d", "1024", "256", &["buf:f32:1000=rand:12", "buf:f32:1000", "local:f32:258", "i32:1000"]),
    ("stencil2d.ll", "stencil2d", "128,40", "64,4", &["buf:f32:3700=rand:13", "buf:f32:3700", "i32:100", "i32:37"]),
    ("reduction.ll", "reduce_sum", "2048", "256", &["buf:f32:5000=rand:5", "buf:f32:8", "local:f32:256", "u32:5000"]),
    ("histogram.ll", "histogram256", "1024", "256", &["buf:u8:3000=rand:10", "u32:3000", "buf:u32:256"]),
];

const WRAP_CL: &str = "__kernel void wrapguard(__global int *out, int n) {\n  int gid = get_global_id(0);\n  if (gid < n)\n    out[get_global_id(0) - get_global_offset(0)] = gid;\n}\n";

/// Runs `module` on the host engine, dumping its buffers, then on the
/// emulator comparing with them; `Err` says which failed and how.
fn host_matches_emu(
    module: &Path,
    kernel: &str,
    global: &str,
    local: &str,
    args: &[&str],
    extra: &[&str],
    dir: &Path,
) -> Result<(), String> {
    let d = dir.to_str().unwrap();
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    corpus::run_kernel(module, kernel, (global, local), &args, &[extra, &["--dump", d]].concat()).map_err(|e| format!("host: {e}"))?;
    corpus::run_kernel(module, kernel, (global, local), &args, &[extra, &["--engine", "emu", "--compare", d]].concat())
        .map_err(|e| format!("emu --compare: {e}"))
}

/// The loops the host front end versioned in `kernel` (copies of their
/// headers are named `*.fast` after the preheader's `br i1 %wiver.ok`).
fn versioned_loops(text: &[u8], kernel: &str, local: [u64; 3]) -> usize {
    host_ir(text, kernel, local).lines().filter(|l| l.contains("br i1 %wiver.ok")).count()
}

/// `kernel` after the host front end.
fn host_ir(text: &[u8], kernel: &str, local: [u64; 3]) -> String {
    let ctx = Context::create();
    let input = ModuleInput { name: kernel.into(), bytes: text.to_vec() };
    let mut module = frontend::load(&ctx, &input).expect("the module loads");
    frontend::prepare(
        &mut module,
        kernel,
        &EngineFront::Host { interleave: 1, local_size: Some(local), linear: false, ids_fit_i32: false },
    )
    .expect("the host front end runs");
    module.print_to_string().to_string()
}

/// One compare of an affine form of `x` (of type `ty`) with `u` or `w`.
fn leaf(rng: &mut Rng, ty: &str) -> String {
    let signed = !ty.starts_with('u');
    let form = rng.pick(&[
        "x",
        "x * 3",
        "x * 1000",
        "x << 4",
        "x << 20",
        "x + w",
        "w - x",
        "77 - x",
        "x * 4 - w",
        "(x << 24)",
        "x - 300",
        "x * 2 + 5",
        "x & 255",
        "(x + w) & 255",
    ]);
    let op = rng.pick(&["<", "<=", ">", ">=", "<", ">", "==", "!="]);
    let bound = rng.pick(&["u", "u", "w", "(u + 7)"]);
    let form = if signed || !form.contains('-') { form.to_string() } else { form.replace('-', "+") };
    if rng.next_u64().is_multiple_of(2) {
        format!("({form}) {op} {bound}")
    } else {
        format!("{bound} {op} ({form})")
    }
}

/// The source of kernel `g{n}` and the type of its `u`, `w` parameters.
fn generated_kernel(rng: &mut Rng, n: usize) -> (String, &'static str) {
    let ty = *rng.pick(&["int", "uint", "long", "ulong", "int"]);
    let a = leaf(rng, ty);
    let cond = match rng.next_u64() % 6 {
        0 => format!("({a}) && ({})", leaf(rng, ty)),
        1 => format!("({a}) || ({})", leaf(rng, ty)),
        2 => format!("!({a})"),
        _ => a,
    };
    let src = format!(
        "__kernel void g{n}(__global int *out, {ty} u, {ty} w) {{\n  {ty} x = ({ty})get_global_id(0);\n  \
         size_t o = get_global_id(0) - get_global_offset(0);\n  if ({cond})\n    out[o] = (int)x + 1;\n}}\n"
    );
    (src, ty)
}

fn local_size(local: &str) -> [u64; 3] {
    let mut l = [1u64; 3];
    for (k, v) in local.split(',').enumerate() {
        l[k] = v.parse().unwrap();
    }
    l
}

#[test]
fn partial_last_groups_match_the_emulator() {
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (n, (file, kernel, global, local, args)) in PARTIAL.iter().enumerate() {
        let path = corpus::dir().join(file);
        let versioned = versioned_loops(&std::fs::read(&path).unwrap(), kernel, local_size(local));
        assert!(versioned >= 1, "{file}: the host front end versioned no loop");
        let dir = tmp.path().join(format!("k{n}"));
        std::fs::create_dir_all(&dir).unwrap();
        if let Err(e) = host_matches_emu(&path, kernel, global, local, args, &[], &dir) {
            failures.push(format!("{file} ({versioned} loop(s) versioned): {e}"));
        }
    }
    assert!(failures.is_empty(), "host and emulator differ:\n{}", failures.join("\n"));
}

/// `cl` compiled by clang-22 as OpenCL C 2.0 for spir64 at -O2, beside it.
fn clang_cl(cl: &Path) -> std::path::PathBuf {
    let ll = cl.with_extension("ll");
    let ok = std::process::Command::new("clang-22")
        .args(["-cl-std=CL2.0", "-target", "spir64", "-O2", "-emit-llvm", "-S"])
        .arg(cl)
        .arg("-o")
        .arg(&ll)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "clang-22 compiles {}", cl.display());
    ll
}

#[test]
fn a_global_id_that_wraps_inside_a_group_takes_the_checked_loop() {
    let tmp = tempfile::tempdir().unwrap();
    let cl = tmp.path().join("wrapguard.cl");
    std::fs::write(&cl, WRAP_CL).unwrap();
    // The IR the host engine gets: clang's, as simt-run makes it.
    let ll = clang_cl(&cl);
    assert_eq!(versioned_loops(&std::fs::read(&ll).unwrap(), "wrapguard", [256, 1, 1]), 1);
    // gid = 2^31 - 100 + i: below INT_MAX = n for i < 99, equal at 99,
    // negative (wrapped) from 100 on: true at both ends of group 0.
    let dir = tmp.path().join("out");
    std::fs::create_dir_all(&dir).unwrap();
    let offset = ["--global-offset", "2147483548"];
    host_matches_emu(&ll, "wrapguard", "512", "256", &["buf:i32:512", "i32:2147483647"], &offset, &dir).unwrap();
    let out = std::fs::read(dir.join("arg0.bin")).unwrap();
    let at = |i: usize| i32::from_le_bytes(out[4 * i..4 * i + 4].try_into().unwrap());
    assert_eq!((at(98), at(99), at(100)), (i32::MAX - 1, 0, i32::MIN), "the work-items around the wrap");
}

#[test]
fn generated_guards_match_the_emulator() {
    let tmp = tempfile::tempdir().unwrap();
    let count: usize = std::env::var("SIMT_WIVER_KERNELS").ok().and_then(|s| s.parse().ok()).unwrap_or(48);
    let mut rng = Rng(13);
    let kernels: Vec<(String, &str)> = (0..count).map(|n| generated_kernel(&mut rng, n)).collect();
    let cl = tmp.path().join("guards.cl");
    std::fs::write(&cl, kernels.iter().map(|k| k.0.as_str()).collect::<String>()).unwrap();
    let ll = clang_cl(&cl);
    let text = std::fs::read(&ll).unwrap();
    // Offsets: none, mid-range, ids wrapping past INT_MAX and UINT_MAX
    // inside a group (2 groups of 256 from the offset).
    let offsets = ["0", "100", "2147483548", "4294967196"];
    let (mut versioned, mut pinned, mut skipped, mut runs) = (0usize, 0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    for (n, (src, ty)) in kernels.iter().enumerate() {
        let kernel = format!("g{n}");
        let ir = host_ir(&text, &kernel, [256, 1, 1]);
        versioned += usize::from(ir.contains("br i1 %wiver.ok"));
        pinned += usize::from(ir.contains("%pin.x"));
        skipped += usize::from(ir.contains("%wiver.none"));
        let int = match *ty {
            "int" => "i32",
            "uint" => "u32",
            "long" => "i64",
            _ => "u64",
        };
        for _ in 0..3 {
            let offset = *rng.pick(&offsets);
            let base: i128 = offset.parse().unwrap();
            // Bounds near the ids of the launch, at its ends, or anywhere.
            let near = base + (rng.next_u64() % 700) as i128 - 100;
            let u = match rng.next_u64() % 3 {
                0 => near,
                1 => *rng.pick(&[0i128, 255, 256, 511, 2147483647, -1, 4294967295]),
                _ => (rng.next_u64() % 4096) as i128,
            };
            let w = (rng.next_u64() % 600) as i128;
            let arg = |v: i128| match int {
                "i32" => format!("i32:{}", v as i64 as i32),
                "u32" => format!("u32:{}", v as i64 as u32),
                "i64" => format!("i64:{}", v as i64),
                _ => format!("u64:{}", v as i64 as u64),
            };
            let dir = tmp.path().join(format!("g{n}-{runs}"));
            std::fs::create_dir_all(&dir).unwrap();
            runs += 1;
            let args = ["buf:i32:512".to_string(), arg(u), arg(w)];
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            if let Err(e) = host_matches_emu(&ll, &kernel, "512", "256", &args, &["--global-offset", offset], &dir) {
                failures.push(format!("{kernel} offset {offset} args {args:?}:\n{src}{e}"));
            }
        }
    }
    eprintln!("{versioned} of {count} generated kernels versioned, {pinned} pinned, {skipped} skippable, {runs} launches");
    assert!(failures.is_empty(), "{} of {runs} launches differ:\n{}", failures.len(), failures.join("\n"));
    assert!(versioned * 2 > count, "only {versioned} of {count} generated kernels were versioned");
    assert!(pinned > 0, "none of {count} generated kernels was pinned (`g(x) == u`, g of odd step)");
    assert!(skipped > 0, "no generated kernel's loop may be skipped (a guard every effect waits for, failing at both ends)");
}

/// Tree steps as kernel authors write them: `if (lid < s)` under a loop
/// over `s` with a barrier, `s` from `get_local_size` (`size_t` and `int`),
/// an `int` loop whose bound comes from an argument (not known when
/// compiled), and a Hillis-Steele scan, whose `lid >= off` holds on a
/// suffix (split as `lid < off`). `simt-wiloops-version` splits each
/// step's loop at `k = s`: `[0, s)` unchecked, `[s, L)` with the guard
/// folded false. Every local size, partial inputs; host = emulator.
const TREES_CL: &str = r#"
__kernel void tree_size_t(__global const float *in, __global float *out, __local float *t, uint n) {
  size_t gid = get_global_id(0), lid = get_local_id(0);
  t[lid] = gid < n ? in[gid] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (lid < s) t[lid] += t[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) out[get_group_id(0)] = t[0];
}
__kernel void tree_int_arg(__global const int *in, __global int *out, __local int *t, int h) {
  int lid = get_local_id(0), gid = get_global_id(0);
  t[lid] = in[gid];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = h; s > 0; s >>= 1) {
    if (s > lid) t[lid] = max(t[lid], t[lid + s]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[gid] = t[lid];
}
__kernel void scan_suffix(__global const int *in, __global int *out, __local int *a, __local int *b) {
  int lid = get_local_id(0), gid = get_global_id(0);
  a[lid] = in[gid];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int off = 1; off < (int)get_local_size(0); off <<= 1) {
    b[lid] = lid >= off ? a[lid] + a[lid - off] : a[lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    a[lid] = b[lid];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[gid] = a[lid];
}
"#;

#[test]
fn tree_steps_split_and_match_the_emulator() {
    let tmp = tempfile::tempdir().unwrap();
    let cl = tmp.path().join("trees.cl");
    std::fs::write(&cl, TREES_CL).unwrap();
    let ll = clang_cl(&cl);
    let text = std::fs::read(&ll).unwrap();
    let split = |kernel: &str, local: u64| {
        let ctx = Context::create();
        let input = ModuleInput { name: kernel.into(), bytes: text.clone() };
        let mut module = frontend::load(&ctx, &input).expect("the module loads");
        frontend::prepare(
            &mut module,
            kernel,
            &EngineFront::Host { interleave: 1, local_size: Some([local, 1, 1]), linear: false, ids_fit_i32: false },
        )
        .expect("the host front end runs");
        // `%wiver.k = freeze`, numbered when there are several.
        let ir = module.print_to_string().to_string();
        ir.lines()
            .filter(|l| {
                l.trim_start()
                    .strip_prefix("%wiver.k")
                    .is_some_and(|r| r.split_once(" = freeze").is_some_and(|(n, _)| n.chars().all(|c| c.is_ascii_digit())))
            })
            .count()
    };
    let mut failures = Vec::new();
    for (k, local) in [32u64, 64, 128, 256].into_iter().enumerate() {
        // Each tree step's loop splits (and the partial first load's).
        assert!(split("tree_size_t", local) >= 2, "tree_size_t at {local}: no split");
        assert!(split("tree_int_arg", local) >= 1, "tree_int_arg at {local}: no split");
        assert!(split("scan_suffix", local) >= 1, "scan_suffix at {local}: no split");
        let groups = 5;
        let g = (groups * local).to_string();
        let l = local.to_string();
        let n = groups * local - local / 2 - 3;
        let launches: [(&str, Vec<String>); 4] = [
            (
                "tree_size_t",
                vec![format!("buf:f32:{g}=rand:{k}"), format!("buf:f32:{groups}"), format!("local:f32:{l}"), format!("u32:{n}")],
            ),
            (
                "tree_int_arg",
                vec![format!("buf:i32:{g}=rand:{k}"), format!("buf:i32:{g}"), format!("local:i32:{l}"), format!("i32:{}", local / 2)],
            ),
            // A bound that is no power of two: the split point moves.
            (
                "tree_int_arg",
                vec![format!("buf:i32:{g}=rand:{k}"), format!("buf:i32:{g}"), format!("local:i32:{l}"), format!("i32:{}", local / 3)],
            ),
            (
                "scan_suffix",
                vec![format!("buf:i32:{g}=rand:{k}"), format!("buf:i32:{g}"), format!("local:i32:{l}"), format!("local:i32:{l}")],
            ),
        ];
        for (j, (kernel, args)) in launches.iter().enumerate() {
            let dir = tmp.path().join(format!("{kernel}-{local}-{j}"));
            std::fs::create_dir_all(&dir).unwrap();
            let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
            if let Err(e) = host_matches_emu(&ll, kernel, &g, &l, &args, &[], &dir) {
                failures.push(format!("{kernel} local {local} ({j}): {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "host and emulator differ:\n{}", failures.join("\n"));
}
