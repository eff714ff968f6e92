//! The dynamic uniformity oracle (issue 8 §1): every value and use the
//! uniformity analysis calls uniform is checked at run time on the emulator
//! (`simt-check-uniformity`, then `CheckUniform` compares the lanes running
//! it together; ipdom policy, warp width = work-group size, so the whole
//! group is compared), over
//!
//! - (a) thousands of generated CUDA-dialect kernels (`kernel_gen`): zero
//!   violations, and each kernel's output under the check equals its output
//!   unchecked under policy `none` (the instrumentation changes nothing, and
//!   for race-free kernels the policy changes nothing);
//! - (b) every corpus kernel of `test-ir/kernels` (CUDA and OpenCL), with
//!   the launches of `tests/kernels.rs` in small form;
//! - (c) `<assume-uniform>` on a divergent kernel: the oracle must see the
//!   wrong claim.
//!
//! And (d) LLVM's `print<uniformity>` on the same generated modules: every
//! instruction simt calls uniform where LLVM says divergent, grouped by kind,
//! each kind's claims run under the oracle; and the count of the reverse.
//!
//! `SIMT_ORACLE_KERNELS=N` changes the number of generated kernels (default
//! 2000); failing kernels are written to `target/uniformity-oracle/`.

mod common;
mod kernel_gen;

mod corpus;

use kernel_gen::Sources;

use inkwell::context::Context;
use simt::engine::buffers::{ArgValue, KernelArgs};
use simt::engine::emu::{self, EmuKernel, EmuOptions, UniformityCheck};
use simt::launch::{ArgSpec, Grid, Policy};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

fn n_kernels() -> u64 {
    std::env::var("SIMT_ORACLE_KERNELS").ok().and_then(|s| s.parse().ok()).unwrap_or(2000)
}

fn fail_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("target").join("uniformity-oracle");
    std::fs::create_dir_all(&d).expect("create target/uniformity-oracle");
    d
}

/// What one launch did: uniformity checks executed, and the first buffer.
struct Ran {
    checks: u64,
    out: Vec<u8>,
}

/// Parses `text`, prepares and decodes `kernel` for the emulator with the
/// check as asked, runs it over `groups` work-groups of `local` work-items.
#[allow(clippy::too_many_arguments, reason = "one launch's parts, spelled out at each call as the tests read best")]
fn run_text(
    ctx: &Context,
    text: &str,
    kernel: &str,
    global: &[u64],
    local: &[u64],
    width: u32,
    check: UniformityCheck,
    args: &[&str],
) -> Result<Ran, String> {
    run_policy(ctx, text, kernel, global, local, width, Policy::Ipdom, check, args)
}

#[allow(clippy::too_many_arguments, reason = "one launch's parts, spelled out at each call as the tests read best")]
fn run_policy(
    ctx: &Context,
    text: &str,
    kernel: &str,
    global: &[u64],
    local: &[u64],
    width: u32,
    policy: Policy,
    check: UniformityCheck,
    args: &[&str],
) -> Result<Ran, String> {
    let mut module = simt_passes::ir::parse_ir(ctx, kernel, text.as_bytes()).map_err(|e| format!("parse: {e}"))?;
    simt_passes::ir::verify(&module).map_err(|e| format!("verify: {e}"))?;
    let opts = EmuOptions { policy, warp_width: width, check_uniformity: check };
    let program = emu::compile_module(&mut module, kernel, &opts).map_err(|e| e.to_string())?;
    let k = EmuKernel { program, compile_seconds: 0.0 };
    let specs: Vec<ArgSpec> = args.iter().map(|a| ArgSpec::parse(a, None).expect("valid arg")).collect();
    let mut kargs = KernelArgs::new(&specs).map_err(|e| e.to_string())?;
    let grid = Grid::new(global, local, None)?;
    let (c, _) = emu::run(&k, grid, &mut kargs, None).map_err(|e| e.to_string())?;
    let out = match kargs.values.first() {
        Some(ArgValue::Buffer(b)) => b.bytes().to_vec(),
        _ => Vec::new(),
    };
    Ok(Ran { checks: c.uniformity_checks, out })
}

/// The launch of generated kernel `seed`: local size, groups.
fn shape(seed: u64) -> (u64, u64) {
    ([8u64, 32, 64][(seed % 3) as usize], 2 + (seed / 3) % 2)
}

fn gen_args(seed: u64, items: u64) -> Vec<String> {
    vec![
        format!("buf:i32:{}=zero", items * kernel_gen::K as u64),
        format!("buf:i32:{}=rand:{seed}", kernel_gen::IN_LEN),
        format!("buf:i32:{}=rand:{}", kernel_gen::IN_LEN, seed + 1),
        format!("i32:{}", seed % 7),
    ]
}

fn gen_text(seed: u64, name: &str) -> String {
    kernel_gen::module(&[(seed, name.to_string())])
}

fn gen_text_for(seed: u64, name: &str, sources: Sources) -> String {
    kernel_gen::module_for(&[(seed, name.to_string())], sources)
}

/// Runs generated kernel `seed` under the oracle; compares its output with
/// the unchecked run under policy `none` (race-free: any policy gives the
/// same memory). Returns the checks executed.
fn oracle_one(ctx: &Context, seed: u64) -> Result<u64, String> {
    oracle_one_for(ctx, seed, Sources::All)
}

fn oracle_one_for(ctx: &Context, seed: u64, sources: Sources) -> Result<u64, String> {
    let name = format!("k{seed}");
    let text = gen_text_for(seed, &name, sources);
    let (local, groups) = shape(seed);
    let args = gen_args(seed, local * groups);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let checked = run_text(ctx, &text, &name, &[local * groups], &[local], local as u32, UniformityCheck::On, &args)?;
    // The same warps (laneid depends on the width) under another policy.
    let plain = run_policy(ctx, &text, &name, &[local * groups], &[local], local as u32, Policy::None, UniformityCheck::Off, &args)?;
    if checked.out != plain.out {
        return Err("output under the check (ipdom) differs from the output under --policy none without it".into());
    }
    Ok(checked.checks)
}

#[test]
fn generated_kernels_have_no_violations() {
    simt::llvm_init::init();
    let start = Instant::now();
    let n = n_kernels();
    let ctx = Context::create();
    let mut checks = 0u64;
    let mut failures = Vec::new();
    for seed in 0..n {
        match oracle_one(&ctx, seed) {
            Ok(c) => checks += c,
            Err(e) => {
                let path = fail_dir().join(format!("seed-{seed}.ll"));
                std::fs::write(&path, gen_text(seed, &format!("k{seed}"))).expect("write failing kernel");
                let (local, groups) = shape(seed);
                failures.push(format!("seed {seed} (local {local}, {groups} groups, {}): {e}", path.display()));
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    eprintln!("uniformity oracle: {n} generated kernels, {checks} checks executed, {} failing, {secs:.1} s", failures.len());
    assert!(failures.is_empty(), "{} of {n} generated kernels fail under the uniformity oracle:\n{}", failures.len(), failures.join("\n"));
}

/// (b) The corpus: every kernel of test-ir/kernels in a small launch.
#[test]
fn corpus_kernels_have_no_violations() {
    simt::llvm_init::init();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("test-ir").join("kernels");
    // (file, kernel, global, local, args): as tests/kernels.rs launches them, smaller.
    let n = 1000;
    type Case<'a> = (&'a str, &'a str, Vec<u64>, Vec<u64>, Vec<String>);
    let cases: Vec<Case<'_>> = vec![
        (
            "vecadd.ll",
            "vecadd",
            vec![128],
            vec![64],
            vec!["buf:f32:120=rand:1".into(), "buf:f32:120=rand:2".into(), "buf:f32:120=zero".into(), "i32:120".into()],
        ),
        (
            "vecadd.cu.ll",
            "vecadd",
            vec![128],
            vec![64],
            vec!["buf:f32:120=rand:1".into(), "buf:f32:120=rand:2".into(), "buf:f32:120=zero".into(), "i32:120".into()],
        ),
        (
            "saxpy.ll",
            "saxpy",
            vec![128],
            vec![64],
            vec!["i32:128".into(), "f32:2.5".into(), "buf:f32:128=rand:1".into(), "buf:f32:128=rand:2".into()],
        ),
        (
            "reduction.ll",
            "reduce_sum",
            vec![128],
            vec![64],
            vec![format!("buf:f32:{n}=rand:3"), "buf:f32:2=zero".into(), "local:f32:64".into(), format!("u32:{n}")],
        ),
        (
            "reduction.cu.ll",
            "reduce_sum",
            vec![128],
            vec![64],
            vec![format!("buf:f32:{n}=rand:3"), "buf:f32:2=zero".into(), format!("u32:{n}")],
        ),
        (
            "matmul.ll",
            "matmul",
            vec![32, 32],
            vec![16, 4],
            vec![
                "buf:f32:1024=rand:4".into(),
                "buf:f32:1024=rand:5".into(),
                "buf:f32:1024=zero".into(),
                "i32:30".into(),
                "i32:28".into(),
                "i32:32".into(),
            ],
        ),
        (
            "matmul.cu.ll",
            "matmul",
            vec![32, 32],
            vec![16, 4],
            vec![
                "buf:f32:1024=rand:4".into(),
                "buf:f32:1024=rand:5".into(),
                "buf:f32:1024=zero".into(),
                "i32:30".into(),
                "i32:28".into(),
                "i32:32".into(),
            ],
        ),
        (
            "transpose.ll",
            "transpose",
            vec![32, 32],
            vec![16, 4],
            vec!["buf:f32:900=rand:5".into(), "buf:f32:900=zero".into(), "i32:30".into(), "i32:30".into()],
        ),
        (
            "scan.ll",
            "scan_inclusive",
            vec![128],
            vec![64],
            vec!["buf:u32:128=rand:6".into(), "buf:u32:128=zero".into(), "buf:u32:2=zero".into(), "local:u32:128".into()],
        ),
        (
            "histogram.ll",
            "histogram256",
            vec![128],
            vec![64],
            vec!["buf:u8:1000=rand:7".into(), "u32:1000".into(), "buf:u32:256=zero".into()],
        ),
        (
            "stencil1d.ll",
            "stencil1d",
            vec![128],
            vec![64],
            vec!["buf:f32:128=rand:8".into(), "buf:f32:128=zero".into(), "local:f32:66".into(), "i32:128".into()],
        ),
    ];
    let ctx = Context::create();
    let mut checks = 0u64;
    let mut failures = Vec::new();
    let mut ran = HashSet::new();
    for (file, kernel, global, local, args) in &cases {
        let text = std::fs::read_to_string(dir.join(file)).expect("corpus kernel");
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let items: u64 = local.iter().product();
        let width = items.min(64) as u32;
        match run_text(&ctx, &text, kernel, global, local, width, UniformityCheck::On, &args) {
            Ok(r) => {
                checks += r.checks;
                ran.insert(*file);
            }
            Err(e) => failures.push(format!("{file} {kernel}: {e}")),
        }
    }
    // The rest of the corpus: whatever kernels it has, launched generically
    // (buffers of 4096 elements, scalars 100, local arrays of 256).
    let mut generic = 0;
    for entry in std::fs::read_dir(&dir).expect("corpus") {
        let path = entry.expect("entry").path();
        let file = path.file_name().unwrap().to_str().unwrap().to_string();
        if !file.ends_with(".ll") || ran.contains(file.as_str()) || file.starts_with("invalid") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("corpus kernel");
        for (kernel, args) in corpus::generic_launches(&text, "100") {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            generic += 1;
            match run_text(&ctx, &text, &kernel, &[128], &[64], 64, UniformityCheck::On, &args) {
                Ok(r) => checks += r.checks,
                Err(e) if e.contains("uniformity violated") => failures.push(format!("{file} {kernel}: {e}")),
                // Kernels whose generic launch is not valid for them (a
                // barrier they need a size for, …) say nothing about uniformity.
                Err(e) => eprintln!("corpus: {file} {kernel}: not run generically: {e}"),
            }
        }
    }
    eprintln!("uniformity oracle: {} corpus kernels with their launches, {generic} generically, {checks} checks executed", ran.len());
    assert!(checks > 0);
    assert!(failures.is_empty(), "uniformity violations in the corpus:\n{}", failures.join("\n"));
}

/// (c) A wrong claim is seen: `<assume-uniform>` calls `tid` uniform.
#[test]
fn assume_uniform_is_caught() {
    simt::llvm_init::init();
    let text = format!(
        "{}define ptx_kernel void @k(ptr addrspace(1) %out, ptr %in, ptr addrspace(1) %in1, i32 %n) {{
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %x = mul i32 %tid, 3
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %x, ptr addrspace(1) %p
  ret void
}}
{}",
        kernel_gen::HEADER,
        kernel_gen::DECLS
    );
    let ctx = Context::create();
    let args = ["buf:i32:16=zero", "buf:i32:64=zero", "buf:i32:64=zero", "i32:0"];
    let ok = run_text(&ctx, &text, "k", &[16], &[8], 8, UniformityCheck::On, &args);
    assert!(ok.is_ok(), "the analysis's own verdicts hold: {:?}", ok.err());
    let err = run_text(&ctx, &text, "k", &[16], &[8], 8, UniformityCheck::AssumeUniform, &args).err().expect("a violation");
    assert!(
        err.contains("uniformity violated at 'its definition': '%tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()' is called uniform but work-items 0 and 1 of work-group (0,0,0) see 0 and 1"),
        "{err}"
    );
    // A generated kernel under <assume-uniform> fails as well.
    let name = "k5";
    let text = gen_text(5, name);
    let args = gen_args(5, 64);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let err = run_text(&ctx, &text, name, &[64], &[32], 32, UniformityCheck::AssumeUniform, &args).err().expect("a violation");
    assert!(err.contains("uniformity violated"), "{err}");
}

// ---------------------------------------------------------------- LLVM

const OPT: &str = "/usr/lib/llvm-22/bin/opt";

/// Per function, the instructions LLVM's `print<uniformity>` calls divergent.
fn llvm_divergent(module_text: &str) -> Option<BTreeMap<String, HashSet<String>>> {
    let dir = tempfile::tempdir().ok()?;
    let path = dir.path().join("m.ll");
    std::fs::write(&path, module_text).ok()?;
    let out = std::process::Command::new(OPT).args(["-passes=print<uniformity>", "-disable-output"]).arg(&path).output().ok()?;
    assert!(out.status.success(), "opt failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stderr);
    let mut map: BTreeMap<String, HashSet<String>> = BTreeMap::new();
    let mut f = String::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("UniformityInfo for function '") {
            f = rest.trim_end_matches("':").to_string();
            map.entry(f.clone()).or_default();
            continue;
        }
        if let Some(rest) = line.trim_start().strip_prefix("DIVERGENT:") {
            map.entry(f.clone()).or_default().insert(rest.trim().to_string());
        }
    }
    Some(map)
}

/// Per function: (instruction text, divergent per simt, operand texts).
fn simt_verdicts(ctx: &Context, module_text: &str) -> BTreeMap<String, Vec<(String, bool, Vec<String>)>> {
    let module = simt_passes::ir::parse_ir(ctx, "gen", module_text.as_bytes()).expect("parse");
    let mut map = BTreeMap::new();
    for f in simt_passes::ir::defined_functions(&module) {
        let fa = simt_passes::analysis::cache::FunctionAnalyses::new(f);
        let u = fa.uniformity();
        let mut v = Vec::new();
        for bb in f.get_basic_block_iter() {
            for i in simt_passes::ir::instructions(bb) {
                let ops: Vec<String> = i.operands().filter(|o| o.as_inst().is_some()).map(|o| o.print()).collect();
                v.push((i.value().print(), u.is_divergent(i), ops));
            }
        }
        map.insert(simt_passes::ir::function_name(f), v);
    }
    map
}

/// The kind of a root disagreement (simt uniform, LLVM divergent, no
/// operand of the same kind).
fn kind_of(inst: &str) -> &'static str {
    if inst.contains("lanemask") {
        "lanemask intrinsic (a per-lane bit mask)"
    } else if inst.contains("sreg.ctaid") || inst.contains("sreg.ntid") {
        "ctaid/ntid (block index and size): LLVM 22's NVPTX TTI calls them divergent"
    } else if inst.contains("laneid") {
        "laneid intrinsic"
    } else if inst.contains("= load") && inst.contains(", ptr %") {
        "load through a generic (addrspace 0) pointer: %in, or a private array through a select/phi of allocas (LLVM's NVPTX TTI calls every such load divergent)"
    } else if inst.contains("= phi") {
        "phi (sync or temporal divergence)"
    } else if inst.starts_with("br ") || inst.starts_with("switch ") {
        "branch"
    } else {
        "other instruction (its operands agree: LLVM taints every definition in an irreducible cycle entered divergently, and uses after cycles it thinks have divergent exits)"
    }
}

/// (d) simt against LLVM on the generated modules: all sources.
#[test]
fn compare_with_llvm() {
    compare_with_llvm_for(Sources::All);
}

/// (d) simt against LLVM on kernels whose sources both judge alike, so that
/// the differences left are in how divergence propagates.
#[test]
fn compare_with_llvm_agreed_sources() {
    compare_with_llvm_for(Sources::LlvmAgreed);
}

fn compare_with_llvm_for(sources: Sources) {
    if !Path::new(OPT).exists() {
        common::missing_tool(OPT);
        return;
    }
    simt::llvm_init::init();
    let n = n_kernels();
    let per_module = 250u64;
    let ctx = Context::create();
    // kind → (count, first example, per seed the instructions)
    type Kind = (usize, Option<(u64, String)>, BTreeMap<u64, HashSet<String>>);
    let mut roots: BTreeMap<&'static str, Kind> = BTreeMap::new();
    let (mut derived, mut reverse, mut compared) = (0usize, 0usize, 0usize);
    let mut start = 0;
    while start < n {
        let end = (start + per_module).min(n);
        let kernels: Vec<(u64, String)> = (start..end).map(|s| (s, format!("k{s}"))).collect();
        let text = kernel_gen::module_for(&kernels, sources);
        let llvm = llvm_divergent(&text).expect("run opt");
        let simt = simt_verdicts(&ctx, &text);
        for (f, insts) in &simt {
            let seed: u64 = f[1..].parse().unwrap();
            let ld = llvm.get(f).cloned().unwrap_or_default();
            let disagree: HashSet<&str> = insts.iter().filter(|(t, d, _)| !d && ld.contains(t)).map(|(t, _, _)| t.as_str()).collect();
            for (t, d, ops) in insts {
                compared += 1;
                if *d && !ld.contains(t) {
                    reverse += 1;
                }
                if !disagree.contains(t.as_str()) {
                    continue;
                }
                if ops.iter().any(|o| disagree.contains(o.as_str())) {
                    derived += 1;
                    continue;
                }
                let kind = kind_of(t);
                let e = roots.entry(kind).or_default();
                e.0 += 1;
                e.1.get_or_insert((seed, t.clone()));
                // Kernels with lane masks stop at the lane mask: other
                // kinds are run under the oracle on the other kernels.
                let masked = sources == Sources::All && seed.is_multiple_of(4) && kind != kind_of("lanemask");
                if !masked {
                    e.2.entry(seed).or_default().insert(t.clone());
                }
            }
        }
        start = end;
    }
    // Each kind's claims, run under the oracle: a violation counts against
    // the kind when it names one of the kind's instructions.
    let mut report = String::new();
    let mut wrong = 0;
    let mut runs: BTreeMap<u64, Result<u64, String>> = BTreeMap::new();
    for (kind, (count, example, seeds)) in &roots {
        let (mut held, mut other, mut violated) = (0, 0, Vec::new());
        for (&s, texts) in seeds {
            match runs.entry(s).or_insert_with(|| oracle_one_for(&ctx, s, sources)).clone() {
                Ok(_) => held += 1,
                Err(e) if texts.iter().any(|t| e.contains(&format!("'{t}' is called uniform"))) => violated.push(format!("seed {s}: {e}")),
                Err(_) => other += 1,
            }
        }
        wrong += violated.len();
        let (es, et) = example.clone().unwrap_or_default();
        report += &format!(
            "  {kind}: {count} instructions (e.g. seed {es} '{et}'); oracle on {} of their kernels: {held} held, {} violated at them, {other} stopped first at another violation{}\n",
            seeds.len(),
            violated.len(),
            violated.first().map_or(String::new(), |v| format!(" (first: {v})"))
        );
    }
    eprintln!(
        "simt vs LLVM print<uniformity> on {n} generated kernels, sources {sources:?} ({compared} instructions):\n simt uniform, LLVM divergent: {} root instructions by kind, {derived} more that follow from them:\n{report} LLVM uniform, simt divergent (precision lost): {reverse}",
        roots.values().map(|r| r.0).sum::<usize>()
    );
    assert_eq!(wrong, 0, "the oracle shows simt wrong where LLVM says divergent (see above)");
}

/// `cargo test --test uniformity_oracle dump_generated -- --ignored`: writes
/// the generated kernels (`SIMT_ORACLE_KERNELS` of them) to
/// target/uniformity-oracle/all/, for reading or for LLVM's tools.
#[test]
#[ignore]
fn dump_generated() {
    let dir = fail_dir().join("all");
    std::fs::create_dir_all(&dir).expect("mkdir");
    for seed in 0..n_kernels() {
        std::fs::write(dir.join(format!("k{seed}.ll")), gen_text(seed, &format!("k{seed}"))).expect("write");
        std::fs::write(dir.join(format!("agreed-k{seed}.ll")), gen_text_for(seed, &format!("k{seed}"), Sources::LlvmAgreed))
            .expect("write");
    }
}
