//! Kernels as people write them that failed before (issue 23 §4), each run
//! on the host engine and the emulator against values worked out here:
//!
//! - a plain C99 `inline` helper clang does not inline (it used to stay a
//!   call to an undefined symbol: JIT, emulator and ptxas all failed);
//! - a struct passed by value (`byval`), with `--arg struct:…`, each
//!   work-item writing its own copy across a barrier;
//! - `simt-to-nvptx` alone, without `simt-lower-ocl-builtins` before it
//!   (`_Z4sqrtf` stayed unresolved until ptxas).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn tool(name: &str, args: &[&str]) -> Output {
    let exe = match name {
        "simt-run" => env!("CARGO_BIN_EXE_simt-run"),
        _ => env!("CARGO_BIN_EXE_simt-opt"),
    };
    Command::new(exe).args(args).output().expect("the tool runs")
}

fn ok(o: Output, what: &str) -> Output {
    assert!(o.status.success(), "{what}: {}", String::from_utf8_lossy(&o.stderr));
    o
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn words(path: &Path) -> Vec<u32> {
    std::fs::read(path).unwrap().chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn ptxas(ptx: &Path) {
    let cubin = ptx.with_extension("cubin");
    let r = Command::new(Path::new(env!("CARGO_MANIFEST_DIR")).join(".tools/bin/ptxas"))
        .args(["-arch=sm_70", ptx.to_str().unwrap(), "-o", cubin.to_str().unwrap()])
        .output()
        .expect("ptxas (run scripts/setup)");
    assert!(r.status.success(), "ptxas: {}", String::from_utf8_lossy(&r.stderr));
}

/// A helper long enough that clang's inliner declines it at -O1.
fn inline_source() -> (String, impl Fn(u32) -> u32) {
    const STEPS: u32 = 120;
    let body: String = (0..STEPS).map(|i| format!("  s = s * {}u + (x ^ (s >> {})) + {i}u;\n", i + 3, i % 7 + 1)).collect();
    let src = format!(
        "inline uint mix(uint x) {{\n  uint s = x;\n{body}  return s;\n}}\n\
         kernel void k(global uint *o) {{ uint i = get_global_id(0); o[i] = mix(i) + mix(i + 1) + mix(o[i]); }}\n"
    );
    let mix = |x: u32| (0..STEPS).fold(x, |s, i| s.wrapping_mul(i + 3).wrapping_add(x ^ (s >> (i % 7 + 1))).wrapping_add(i));
    (src, mix)
}

#[test]
fn c99_inline_helper_runs_everywhere() {
    let t = tempfile::tempdir().unwrap();
    let (src, mix) = inline_source();
    let cl = write(t.path(), "inl.cl", &src);
    let ll = t.path().join("inl.ll");
    ok(tool("simt-opt", &[cl.to_str().unwrap(), "-S", "-o", ll.to_str().unwrap()]), "simt-opt");
    let text = std::fs::read_to_string(&ll).unwrap();
    assert!(text.contains("call spir_func i32 @mix("), "the helper must stay a call for this test to mean anything");
    let want: Vec<u32> = (0..64u32).map(|i| mix(i).wrapping_add(mix(i + 1)).wrapping_add(mix(i))).collect();
    for engine in ["host", "emu"] {
        let dump = t.path().join(engine);
        ok(
            tool(
                "simt-run",
                &[
                    cl.to_str().unwrap(),
                    "--engine",
                    engine,
                    "--global",
                    "64",
                    "--local",
                    "16",
                    "--arg",
                    "buf:u32:64=ramp",
                    "--dump",
                    dump.to_str().unwrap(),
                ],
            ),
            engine,
        );
        assert_eq!(words(&dump.join("arg0.bin")), want, "{engine}");
    }
    let ptx = t.path().join("inl.ptx");
    ok(
        tool(
            "simt-opt",
            &[
                cl.to_str().unwrap(),
                "-passes=always-inline,simt-lower-ocl-builtins,simt-to-nvptx",
                "--filetype=asm",
                "-mcpu=sm_70",
                "-o",
                ptx.to_str().unwrap(),
            ],
        ),
        "PTX",
    );
    ptxas(&ptx);
}

const BY_VALUE: &str = r#"
typedef struct { float a; int b; double c; char d; } P;
kernel void s(P p, global float *o, global double *q) {
  int i = get_global_id(0);
  p.b += i;               /* each work-item writes its own copy */
  barrier(CLK_LOCAL_MEM_FENCE);
  o[i] = p.a * p.b + p.d;
  q[i] = p.c * i;
}
"#;

#[test]
fn struct_passed_by_value() {
    let t = tempfile::tempdir().unwrap();
    let cl = write(t.path(), "st.cl", BY_VALUE);
    let s = cl.to_str().unwrap();
    // { float a; int b; double c; char d; }: a at 0, b at 4, c at 8, d at 16, 24 bytes.
    let arg = "struct:f32:1.5,i32:3,f64:0.25,i8:7";
    let mut got = Vec::new();
    for engine in ["host", "emu"] {
        let dump = t.path().join(engine);
        ok(
            tool(
                "simt-run",
                &[
                    s,
                    "--engine",
                    engine,
                    "--global",
                    "64",
                    "--local",
                    "16",
                    "--arg",
                    arg,
                    "--arg",
                    "buf:f32:64",
                    "--arg",
                    "buf:f64:64",
                    "--dump",
                    dump.to_str().unwrap(),
                ],
            ),
            engine,
        );
        let o: Vec<f32> = words(&dump.join("arg1.bin")).into_iter().map(f32::from_bits).collect();
        let q: Vec<f64> =
            std::fs::read(dump.join("arg2.bin")).unwrap().chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect();
        assert_eq!(o, (0..64).map(|i| 1.5 * (3 + i) as f32 + 7.0).collect::<Vec<_>>(), "{engine}");
        assert_eq!(q, (0..64).map(|i| 0.25 * i as f64).collect::<Vec<_>>(), "{engine}");
        // The struct is an argument, not a buffer: nothing dumped for it.
        assert!(!dump.join("arg0.bin").exists());
        got.push((o, q));
    }
    let o = tool(
        "simt-run",
        &[s, "--global", "64", "--local", "16", "--arg", "struct:f32:1.5,i32:3", "--arg", "buf:f32:64", "--arg", "buf:f64:64"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("argument 0 (struct:f32:1.5,i32:3) lays out 8 bytes, but parameter 0 (P, ptr) is a struct of 24 bytes"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn to_nvptx_lowers_opencl_builtins_itself() {
    let t = tempfile::tempdir().unwrap();
    let cl = write(
        t.path(),
        "m.cl",
        "kernel void k(global float *o) { int i = get_global_id(0); float x = o[i]; o[i] = sqrt(x) + exp(x) + fmin(x, 0.5f); }\n",
    );
    let (ptx, ll) = (t.path().join("m.ptx"), t.path().join("m.ll"));
    let c = cl.to_str().unwrap();
    ok(tool("simt-opt", &[c, "-passes=simt-to-nvptx", "--filetype=asm", "-mcpu=sm_70", "-o", ptx.to_str().unwrap()]), "PTX");
    ptxas(&ptx);
    // The mapped module computes what the OpenCL original does on the host.
    ok(tool("simt-opt", &[c, "-passes=simt-to-nvptx", "-S", "-o", ll.to_str().unwrap()]), "IR");
    let text = std::fs::read_to_string(&ll).unwrap();
    assert!(!text.contains("_Z4sqrtf") && text.contains("__nv_expf"), "{text}");
    let h = t.path().join("h");
    let launch = ["--global", "256", "--local", "64", "--arg", "buf:f32:256=rand:3"];
    ok(tool("simt-run", &[&[c, "--dump", h.to_str().unwrap()][..], &launch[..]].concat()), "host");
    ok(
        tool(
            "simt-run",
            &[&[ll.to_str().unwrap(), "--engine", "emu", "--compare", h.to_str().unwrap(), "--tolerance", "4"][..], &launch[..]].concat(),
        ),
        "emu on the mapped module",
    );
}
