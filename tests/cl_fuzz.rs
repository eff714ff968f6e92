//! The kernel fuzzer: generated OpenCL C kernels (`cl_gen`, race-free and
//! free of undefined behaviour by construction) through every pass and the
//! pipelines users run, on the host engine and the emulator, against the
//! emulator running clang's module unchanged as the oracle.
//!
//! Per kernel (seed `s`; `cl_gen::generate(s)` rebuilds it):
//! 1. both variants (plain, EMI) compiled as `simt-run` compiles `.cl`
//!    (`simt-opt k.cl -S`: clang-22 `-O1`, CL2.0);
//! 2. the oracle: the plain variant on `--engine emu --check all`, which must
//!    report nothing (a report is a generator bug or a checker false
//!    positive) and dumps every buffer;
//! 3. the variant under test (EMI for odd seeds, plain for even ones, the
//!    other variant's source also runs on both engines) goes through
//!    [`steps`]: each step runs `simt-opt -passes=P` on its parent step's
//!    output, is "changed" when its IR differs from its parent's
//!    ([`kernel_ir`]),
//!    and the steps marked to run are run on `--engine host` and `--engine
//!    emu` with `--compare` against the oracle (integers: exact).
//!
//! The table's `units` column is what the pass reports doing to the kernel:
//! loops pipelined (simt-swp), loads forwarded (simt-memfwd), stores removed
//! (simt-memdse), work-item loops versioned or unswitched
//! (simt-wiloops-version, one step each).
//!
//! `host-default` is the module clang made, run by the host engine's own
//! pipeline (lockstep loops, work-item loops, local atomics, versioning,
//! `-O3`). The steps `wiloops`, `wiloops-version` and `wiloops-unswitch`
//! only count changes: their output is a work-group function, run by
//! `host-default`.
//! `host-linear` is the same with the work-item loops in the linear form
//! (`--linear`), `emu-markers-w7` the emulator with seed 000's markers
//! policy and warps of 7 lanes: a race-free kernel gives the same buffers
//! under every policy and width.
//!
//! Tests: `kernel_fuzz_smoke` (seeds 1..=SIMT_FUZZ_SMOKE, default 16: no
//! failure, and every pass changes at least one kernel);
//! `kernel_fuzz_long` (ignored; `scripts/fuzz-kernels N` runs it) prints the
//! summary table.
//!
//! pocl, a third oracle: where `cc`, libOpenCL and a platform are there,
//! the tests build `pocl_host` (`scripts/bench-src/pocl_host.c`; or
//! `SIMT_FUZZ_POCL` names one) and both variants'
//! sources also run on pocl, whose buffers must equal the oracle's byte for
//! byte (every buffer is `u32`). pocl compiles the source itself (OpenCL C
//! 1.2 with its own clang), so a disagreement is a bug in simt's emulator,
//! in clang's `-O1` module as simt compiles it, or in pocl: the kernel is
//! kept and the failure says which run disagreed.

mod cl_gen;
mod common;
mod kernel_gen;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

const LOWER: &str = "always-inline,simt-lower-ocl-builtins";

/// A step: name, parent step ("" = the module clang made), passes, whether
/// its output runs on both engines.
struct Step {
    name: &'static str,
    from: &'static str,
    passes: String,
    run: bool,
}

/// The steps of kernel `seed` launched with `local` work-items per group
/// (lockstep and the work-item loops are specialised for it); the second
/// machine of `ifconvert+swp` alternates with the seed.
fn steps(seed: u64, local: u32) -> Vec<Step> {
    let ls = format!("local-size={local},1,1");
    let swp2 = if seed.is_multiple_of(2) { "itanium2" } else { "hexagon" };
    let s = |name, from, passes: &str, run| Step { name, from, passes: passes.to_string(), run };
    vec![
        s("lower", "", LOWER, false),
        s("O2", "lower", "default<O2>", true),
        s("swp-itanium2", "O2", "simt-swp<machine=itanium2>", true),
        s("swp-hexagon", "O2", "simt-swp<machine=hexagon>", true),
        // The default cost model converts only where no warp can lose (few
        // of these kernels); `cost=split` converts what a split warp gains
        // from, so that conversion itself is exercised.
        s("ifconvert", "lower", "simt-ifconvert", true),
        s("ifconvert-split", "lower", "simt-ifconvert<cost=split>", true),
        s("ifconvert-O2", "O2", "simt-ifconvert<cost=split>", true),
        s("ifconvert+swp", "ifconvert-O2", &format!("simt-swp<machine={swp2}>"), true),
        s("memfwd", "lower", "simt-memfwd<stats>", true),
        s("memdse", "lower", "simt-memdse<stats>", true),
        s("memfwd+memdse", "memfwd", "simt-memdse<stats>", true),
        s("memfwd-O2", "O2", "simt-memfwd<stats>", true),
        s("memfwd+memdse-O2", "memfwd-O2", "simt-memdse<stats>", true),
        s("lockstep", "lower", &format!("simt-lockstep-loops<{ls}>"), true),
        s("wiloops", "lockstep", &format!("simt-wiloops<{ls}>,simt-local-atomics"), false),
        // Versioning and unswitching apart, so each shows what it changed
        // (the host pipeline runs both, in `host-default`).
        s("wiloops-version", "wiloops", "simt-wiloops-version<remarks;no-unswitch>", false),
        s("wiloops-unswitch", "wiloops", "simt-wiloops-version<remarks;no-version>", false),
    ]
}

/// What one kernel gave, per step or run name.
#[derive(Default)]
struct KernelResult {
    changed: BTreeMap<String, bool>,
    /// What the pass says it did to the kernel (not to clang's twin):
    /// loops pipelined, loads forwarded, stores removed, loops versioned.
    units: BTreeMap<String, usize>,
    /// (name, engine) → error text; absent = ran and matched.
    failures: Vec<(String, String, String)>,
    ran: Vec<(String, String)>,
    /// Runs an engine refused with a clear error (an intrinsic it does not
    /// implement, a built-in not lowered): (name, engine, first error line).
    unsupported: Vec<(String, String, String)>,
    barriers_in_loops: bool,
    grid_stride: bool,
    bounds_checks: bool,
    emi_blocks: u32,
}

/// The tool `name`: cargo's build, or the copy in SIMT_FUZZ_BINS
/// (scripts/fuzz-kernels copies the binaries there first, so a rebuild
/// during a long run does not change them halfway).
fn bin(name: &str) -> PathBuf {
    if let Ok(dir) = std::env::var("SIMT_FUZZ_BINS") {
        return Path::new(&dir).join(name);
    }
    PathBuf::from(match name {
        "simt-opt" => env!("CARGO_BIN_EXE_simt-opt"),
        _ => env!("CARGO_BIN_EXE_simt-run"),
    })
}

/// Runs `cmd`: Ok(its stderr), or Err(the command, exit status and the end
/// of its stderr).
fn run(cmd: &mut Command) -> Result<String, String> {
    let out = cmd.output().map_err(|e| format!("cannot start {cmd:?}: {e}"))?;
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    if out.status.success() {
        Ok(err)
    } else {
        let tail: Vec<&str> = err.lines().rev().take(12).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        Err(format!("{:?} exit {:?}\n{}", cmd, out.status.code(), tail.join("\n")))
    }
}

/// `tool` under `timeout`: a pass or engine that hangs fails its step
/// (exit 124) instead of stopping the run.
fn timed(tool: &str) -> Command {
    let mut c = Command::new("timeout");
    c.args(["-k", "5", "300"]).arg(bin(tool));
    c
}

/// The module's function definitions without what does not run (clang's
/// `__clang_ocl_kern_imp_` twin of the kernel) and what printing them again
/// changes (see [`normalised`]).
fn kernel_ir(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut out = String::new();
    // Inside a definition to keep; declarations, globals and comments are
    // left out (reading a module back resets intrinsics' attributes).
    let mut keep = false;
    for l in text.lines() {
        if l.starts_with("define ") {
            keep = !l.contains("@__clang_ocl_kern_imp_");
        }
        if keep && !l.starts_with(';') {
            out += &normalised(l);
            out.push('\n');
        }
        if l == "}" {
            keep = false;
        }
    }
    out
}

fn launch_args(cmd: &mut Command, g: &cl_gen::Generated, seed: u64) {
    let l = g.launch;
    cmd.args(["--kernel", cl_gen::NAME, "--global", &l.global().to_string(), "--local", &l.local.to_string()]);
    for a in l.args(seed) {
        cmd.arg("--arg").arg(a);
    }
}

/// Runs `module` on `engine` against the oracle in `dir/oracle`.
fn compare(dir: &Path, module: &Path, engine: &str, g: &cl_gen::Generated, seed: u64) -> Result<(), String> {
    let mut c = timed("simt-run");
    let mut words = engine.split_whitespace();
    c.arg(module).args(["--engine", words.next().unwrap()]).args(words).arg("--compare").arg(dir.join("oracle"));
    launch_args(&mut c, g, seed);
    run(&mut c).map(|_| ())
}

fn fuzz_one(root: &Path, seed: u64, pocl: Option<&Path>) -> KernelResult {
    let g = cl_gen::generate(seed);
    let dir = root.join(format!("k{seed}"));
    std::fs::create_dir_all(&dir).unwrap();
    let mut r = KernelResult {
        barriers_in_loops: g.barriers_in_loops,
        grid_stride: g.grid_stride,
        bounds_checks: g.bounds_checks,
        emi_blocks: g.emi_blocks,
        ..Default::default()
    };
    let fail = |r: &mut KernelResult, what: &str, engine: &str, e: String| r.failures.push((what.into(), engine.into(), e));
    for (v, text) in [("plain", &g.plain), ("emi", &g.emi)] {
        std::fs::write(dir.join(format!("{v}.cl")), text).unwrap();
        if let Err(e) = run(timed("simt-opt").arg(dir.join(format!("{v}.cl"))).arg("-S").arg("-o").arg(dir.join(format!("{v}.ll")))) {
            fail(&mut r, "compile", v, e);
            return r;
        }
    }
    let mut oracle = timed("simt-run");
    oracle.arg(dir.join("plain.ll")).args(["--engine", "emu", "--check", "all", "--dump"]).arg(dir.join("oracle"));
    launch_args(&mut oracle, &g, seed);
    match run(&mut oracle) {
        // No oracle: the kernel is counted as refused, not run further.
        Err(e) if is_unsupported(&e) => {
            let line = e.lines().find(|l| l.contains("error:")).unwrap_or("").to_string();
            r.unsupported.push(("oracle".into(), "emu".into(), line));
            return r;
        }
        Err(e) => {
            fail(&mut r, "oracle --check all", "emu", e);
            return r;
        }
        Ok(_) => {}
    }
    if let Some(pocl) = pocl {
        for v in ["plain", "emi"] {
            let name = format!("pocl-{v}");
            r.ran.push((name.clone(), "pocl".into()));
            if let Err(e) = pocl_agrees(pocl, &dir, v, &g, seed) {
                fail(&mut r, &name, "pocl", e);
            }
        }
    }
    let (under_test, other) = if seed % 2 == 1 { ("emi", "plain") } else { ("plain", "emi") };
    let src = dir.join(format!("{under_test}.ll"));
    let mut files: BTreeMap<&str, PathBuf> = BTreeMap::new();
    files.insert("", src.clone());
    let mut runs: Vec<(String, PathBuf, Vec<&str>)> = vec![
        ("host-default".into(), src.clone(), vec!["host"]),
        // The work-item loops' other form; another warp width and policy.
        ("host-linear".into(), src.clone(), vec!["host --linear"]),
        ("emu-markers-w7".into(), src.clone(), vec!["emu --policy markers --warp-width 7"]),
        (format!("{other}-source"), dir.join(format!("{other}.ll")), vec!["host", "emu"]),
    ];
    if under_test == "emi" {
        runs.push(("emi-source".into(), src.clone(), vec!["emu"]));
    }
    for s in steps(seed, g.launch.local) {
        let input = files[s.from].clone();
        let out = dir.join(format!("{}.ll", s.name.replace('+', "_")));
        let mut c = timed("simt-opt");
        c.env("SIMT_SWP_NOTES", "1").arg(&input).arg(format!("-passes={}", s.passes)).arg("-S").arg("-o").arg(&out);
        let notes = match run(&mut c) {
            Ok(notes) => notes,
            Err(e) => {
                fail(&mut r, s.name, "simt-opt", e);
                continue;
            }
        };
        r.changed.insert(s.name.to_string(), kernel_ir(&input) != kernel_ir(&out));
        r.units.insert(s.name.to_string(), units(&notes));
        if s.run {
            runs.push((s.name.to_string(), out.clone(), vec!["host", "emu"]));
        }
        files.insert(s.name, out);
    }
    for (name, module, engines) in runs {
        for e in engines {
            r.ran.push((name.clone(), e.to_string()));
            match compare(&dir, &module, e, &g, seed) {
                Err(msg) if is_unsupported(&msg) => {
                    let line = msg.lines().find(|l| l.contains("error:")).unwrap_or("").to_string();
                    r.unsupported.push((name.clone(), e.to_string(), line));
                }
                Err(msg) => fail(&mut r, &name, e, msg),
                Ok(()) => {}
            }
        }
    }
    r
}

/// `pocl_host` built into `dir` from `scripts/bench-src`, if `cc`,
/// libOpenCL and an OpenCL platform are there (a kernel runs on it);
/// otherwise None, and why is printed.
fn build_pocl_host(dir: &Path) -> Option<PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/bench-src/pocl_host.c");
    let exe = dir.join("pocl_host");
    let built = Command::new("cc").args(["-O2", "-w"]).arg(&src).arg("-o").arg(&exe).arg("-lOpenCL").output();
    if !matches!(&built, Ok(o) if o.status.success()) {
        common::missing_tool("pocl (cc and libOpenCL to build pocl_host)");
        return None;
    }
    let k = dir.join("probe.cl");
    std::fs::write(&k, "__kernel void p(__global uint *o) { o[get_global_id(0)] = 7; }\n").unwrap();
    let probe =
        Command::new(&exe).arg(&k).args(["--kernel", "p", "--global", "4", "--local", "4", "--arg", "buf:u32:4", "--repeat", "1"]).output();
    if !matches!(&probe, Ok(o) if o.status.success()) {
        common::missing_tool("pocl (an OpenCL platform pocl_host can run on)");
        return None;
    }
    Some(exe)
}

/// Runs variant `v`'s source on pocl and compares every buffer it dumps
/// with the oracle's, byte for byte.
fn pocl_agrees(pocl: &Path, dir: &Path, v: &str, g: &cl_gen::Generated, seed: u64) -> Result<(), String> {
    let out = dir.join(format!("pocl-{v}"));
    let mut c = Command::new("timeout");
    c.args(["-k", "5", "300"]).arg(pocl).arg(dir.join(format!("{v}.cl")));
    launch_args(&mut c, g, seed);
    c.args(["--repeat", "1", "--dump"]).arg(&out);
    run(&mut c)?;
    let mut differ = Vec::new();
    for i in 0..g.launch.args(seed).len() {
        let want = dir.join("oracle").join(format!("arg{i}.bin"));
        let Ok(want) = std::fs::read(&want) else { continue };
        let got = std::fs::read(out.join(format!("arg{i}.bin"))).unwrap_or_default();
        if got != want {
            let at = got.iter().zip(&want).position(|(a, b)| a != b).unwrap_or(got.len().min(want.len()));
            differ.push(format!("arg{i}: pocl differs from the oracle first at byte {at} ({} vs {} bytes)", got.len(), want.len()));
        }
    }
    if differ.is_empty() {
        Ok(())
    } else {
        Err(differ.join("\n"))
    }
}

/// `line` without what printing the module again renumbers or reorders:
/// blocks' predecessor comments (use-list order), attribute groups (`#N`),
/// metadata (`!N`, attachments).
fn normalised(line: &str) -> String {
    let l = line.split("; preds = ").next().unwrap_or(line);
    let l = l.split(", !").next().unwrap_or(l);
    l.split(' ').filter(|t| !t.starts_with('#') && !t.starts_with('!')).collect::<Vec<_>>().join(" ").trim_end().to_string()
}

/// What a pass's notes say it did to the kernel `k` (or its work-group
/// function), from `SIMT_SWP_NOTES`, `<stats>` and `<remarks>`.
fn units(notes: &str) -> usize {
    let mut n = 0;
    for l in notes.lines() {
        let pipelined = l.starts_with("simt-swp: k: ") && l.contains(": pipelined,");
        let versioned =
            l.starts_with("simt-wiloops-version: simt_wg_k: ") && (l.contains(": versioned on") || l.contains(": unswitched on"));
        if pipelined || versioned {
            n += 1;
        } else if let Some(rest) = l.strip_prefix("simt-memfwd: 'k': forwarded ").or_else(|| l.strip_prefix("simt-memdse: 'k': removed ")) {
            n += rest.split(' ').next().and_then(|x| x.parse::<usize>().ok()).unwrap_or(0);
        }
    }
    n
}

/// A refusal rather than a wrong result: the engine says it cannot run
/// what a pass or LLVM made.
fn is_unsupported(msg: &str) -> bool {
    msg.contains("the emulator cannot run it") || msg.contains("unsupported OpenCL built-in")
}

/// Fuzzes `seeds` on `jobs` threads, in `root`; failing kernels' folders
/// are kept in `keep` (when given), the others removed.
/// With `progress`, the summary so far is printed every 25 kernels.
fn fuzz(
    seeds: std::ops::RangeInclusive<u64>,
    jobs: usize,
    root: &Path,
    keep: Option<&Path>,
    pocl: Option<&Path>,
    progress: bool,
) -> Vec<(u64, KernelResult)> {
    let next = AtomicU64::new(*seeds.start());
    let results = Mutex::new(Vec::new());
    std::thread::scope(|sc| {
        for _ in 0..jobs {
            sc.spawn(|| loop {
                let seed = next.fetch_add(1, Ordering::SeqCst);
                if seed > *seeds.end() {
                    break;
                }
                let r = fuzz_one(root, seed, pocl);
                let dir = root.join(format!("k{seed}"));
                if !r.failures.is_empty() {
                    for (what, engine, e) in &r.failures {
                        eprintln!("FAIL seed {seed}: {what} on {engine}: {e}");
                    }
                    if let Some(k) = keep {
                        let to = k.join(format!("k{seed}"));
                        let _ = std::fs::remove_dir_all(&to);
                        std::fs::create_dir_all(k).unwrap();
                        let _ = Command::new("cp").arg("-r").arg(&dir).arg(&to).status();
                    }
                }
                let _ = std::fs::remove_dir_all(&dir);
                let mut all = results.lock().unwrap();
                all.push((seed, r));
                if progress && all.len() % 25 == 0 {
                    println!("after {} kernels (seed {seed}):\n{}", all.len(), summary(&all));
                }
            });
        }
    });
    let mut v = results.into_inner().unwrap();
    v.sort_by_key(|(s, _)| *s);
    v
}

/// The summary table: per step, kernels it changed; per run, failures.
fn summary(results: &[(u64, KernelResult)]) -> String {
    let n = results.len();
    let mut changed: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut units: BTreeMap<String, usize> = BTreeMap::new();
    let mut ran: BTreeMap<String, (usize, usize, usize, usize)> = BTreeMap::new();
    for (_, r) in results {
        for (s, c) in &r.changed {
            let e = changed.entry(s.clone()).or_default();
            e.0 += 1;
            e.1 += *c as usize;
        }
        for (s, u) in &r.units {
            *units.entry(s.clone()).or_default() += u;
        }
        for (s, engine) in &r.ran {
            let e = ran.entry(s.clone()).or_default();
            // pocl's runs are counted in the host columns: pocl runs on
            // the host CPU; the step's name says it is pocl.
            if engine.starts_with("host") || engine == "pocl" {
                e.0 += 1;
            } else {
                e.2 += 1;
            }
        }
        for (s, engine, _) in &r.failures {
            let e = ran.entry(s.clone()).or_default();
            if engine.starts_with("emu") {
                e.3 += 1;
            } else {
                e.1 += 1;
            }
        }
    }
    let count = |f: &dyn Fn(&KernelResult) -> bool| results.iter().filter(|(_, r)| f(r)).count();
    let mut s = format!(
        "kernels: {n} ({} with barriers in loops, {} grid-stride loops, {} bounds checks, {} EMI blocks)\n",
        count(&|r| r.barriers_in_loops),
        count(&|r| r.grid_stride),
        count(&|r| r.bounds_checks),
        results.iter().map(|(_, r)| r.emi_blocks as usize).sum::<usize>()
    );
    s += &format!(
        "{:<20} {:>8} {:>8} {:>7} {:>7} {:>10} {:>9} {:>9} {:>9}\n",
        "step", "kernels", "changed", "%", "units", "host runs", "host fail", "emu runs", "emu fail"
    );
    let mut names: Vec<String> = changed.keys().cloned().collect();
    for k in ran.keys() {
        if !names.contains(k) {
            names.push(k.clone());
        }
    }
    for name in names {
        let (k, c) = changed.get(&name).copied().unwrap_or((0, 0));
        let (hr, hf, er, ef) = ran.get(&name).copied().unwrap_or_default();
        let pct = if k > 0 { format!("{:.0}%", 100.0 * c as f64 / k as f64) } else { "-".into() };
        let (kc, cc) = if k > 0 { (k.to_string(), c.to_string()) } else { ("-".into(), "-".into()) };
        let u = units.get(&name).filter(|u| **u > 0).map_or("-".to_string(), |u| u.to_string());
        s += &format!("{name:<20} {kc:>8} {cc:>8} {pct:>7} {u:>7} {hr:>10} {hf:>9} {er:>9} {ef:>9}\n");
    }
    let mut refusals: BTreeMap<String, usize> = BTreeMap::new();
    for (_, r) in results {
        for (_, engine, line) in &r.unsupported {
            // The message without the instruction, which differs per kernel.
            let key = line.split(" in '").next().unwrap_or(line);
            *refusals.entry(format!("{engine}: {key}")).or_default() += 1;
        }
    }
    for (k, n) in &refusals {
        s += &format!("refused ({n} runs): {k}\n");
    }
    let failed: Vec<String> = results.iter().filter(|(_, r)| !r.failures.is_empty()).map(|(s, _)| s.to_string()).collect();
    s += &format!("failing seeds: {}\n", if failed.is_empty() { "none".to_string() } else { failed.join(" ") });
    s
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

#[test]
fn kernel_fuzz_smoke() {
    let n = env_u64("SIMT_FUZZ_SMOKE", 16);
    let dir = tempfile::tempdir().unwrap();
    let pocl = build_pocl_host(dir.path());
    let results = fuzz(1..=n, 2, dir.path(), None, pocl.as_deref(), false);
    let table = summary(&results);
    eprintln!("{table}");
    let failures: Vec<String> =
        results.iter().flat_map(|(s, r)| r.failures.iter().map(move |(w, e, m)| format!("seed {s}: {w} on {e}: {m}"))).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // Every pass must change some kernel, or the smoke run tests nothing.
    // (memdse after memfwd at -O2 is left out: LLVM's own DSE at -O2
    // leaves it little; so is the default if-conversion, whose
    // never-worse rule these kernels' regions rarely meet, while
    // `ifconvert-split` converts them.)
    for s in steps(0, 64).into_iter().filter(|s| s.name != "memfwd+memdse-O2" && s.name != "ifconvert") {
        let changed = results.iter().filter(|(_, r)| r.changed.get(s.name) == Some(&true)).count();
        assert!(changed > 0, "{} changed no kernel of the smoke run:\n{table}", s.name);
    }
}

/// `scripts/fuzz-kernels`: seeds SIMT_FUZZ_FIRST.. (default 1), SIMT_FUZZ_N
/// kernels, SIMT_FUZZ_JOBS threads, failing kernels kept in SIMT_FUZZ_KEEP.
#[test]
#[ignore]
fn kernel_fuzz_long() {
    let first = env_u64("SIMT_FUZZ_FIRST", 1);
    let n = env_u64("SIMT_FUZZ_N", 100);
    let jobs = env_u64("SIMT_FUZZ_JOBS", 2) as usize;
    let keep = std::env::var("SIMT_FUZZ_KEEP").ok().map(PathBuf::from);
    let dir = tempfile::tempdir().unwrap();
    // scripts/fuzz-kernels builds pocl_host beside its copies of the tools.
    let pocl = match std::env::var_os("SIMT_FUZZ_POCL") {
        Some(p) if !p.is_empty() => Some(PathBuf::from(p)),
        _ => build_pocl_host(dir.path()),
    };
    let results = fuzz(first..=first + n - 1, jobs, dir.path(), keep.as_deref(), pocl.as_deref(), true);
    println!("{}", summary(&results));
}

/// `SIMT_FUZZ_PRINT=SEED`: writes the kernel of SEED (both variants) and
/// its launch to SIMT_FUZZ_OUT (default the current folder).
#[test]
#[ignore]
fn kernel_fuzz_print() {
    let seed = env_u64("SIMT_FUZZ_PRINT", 1);
    let out = PathBuf::from(std::env::var("SIMT_FUZZ_OUT").unwrap_or_else(|_| ".".into()));
    let g = cl_gen::generate(seed);
    std::fs::write(out.join(format!("k{seed}.cl")), &g.plain).unwrap();
    std::fs::write(out.join(format!("k{seed}-emi.cl")), &g.emi).unwrap();
    let l = g.launch;
    let args: Vec<String> = l.args(seed).iter().map(|a| format!("--arg {a}")).collect();
    println!("--kernel {} --global {} --local {} {}", cl_gen::NAME, l.global(), l.local, args.join(" "));
}

/// The change test of [`kernel_ir`]: a module read and printed again with
/// no pass is not a change (though its attribute groups, metadata and
/// predecessor comments come out renumbered or reordered), one instruction
/// altered is.
#[test]
fn reprinting_is_not_a_change() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("k.cl"), cl_gen::generate(1).plain).unwrap();
    run(timed("simt-opt").arg(d.join("k.cl")).args(["-S", "-o"]).arg(d.join("k.ll"))).unwrap();
    let o2 = format!("-passes={LOWER},default<O2>");
    run(timed("simt-opt").arg(d.join("k.ll")).arg(o2).args(["-S", "-o"]).arg(d.join("o2.ll"))).unwrap();
    run(timed("simt-opt").arg(d.join("o2.ll")).args(["-passes=verify", "-S", "-o"]).arg(d.join("again.ll"))).unwrap();
    let (before, after) = (std::fs::read_to_string(d.join("o2.ll")).unwrap(), std::fs::read_to_string(d.join("again.ll")).unwrap());
    assert_ne!(before, after, "the module printed again differs in text (or this test shows nothing)");
    assert_eq!(kernel_ir(&d.join("o2.ll")), kernel_ir(&d.join("again.ll")));
    let altered = before.replacen(" = add ", " = sub ", 1);
    assert_ne!(altered, before);
    std::fs::write(d.join("altered.ll"), altered).unwrap();
    assert_ne!(kernel_ir(&d.join("o2.ll")), kernel_ir(&d.join("altered.ll")));
}

/// pocl's comparison sees a wrong buffer: seed 1's oracle with one byte
/// changed no longer agrees with pocl, which agreed with it unchanged.
/// (Without pocl on the machine, it says so and checks nothing.)
#[test]
fn pocl_disagreement_is_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let Some(pocl) = build_pocl_host(dir.path()) else { return };
    let g = cl_gen::generate(1);
    let d = dir.path();
    std::fs::write(d.join("plain.cl"), &g.plain).unwrap();
    let mut oracle = timed("simt-run");
    oracle.arg(d.join("plain.cl")).args(["--engine", "emu", "--dump"]).arg(d.join("oracle"));
    launch_args(&mut oracle, &g, 1);
    run(&mut oracle).unwrap();
    pocl_agrees(&pocl, d, "plain", &g, 1).unwrap();
    let f = d.join("oracle/arg0.bin");
    let mut bytes = std::fs::read(&f).unwrap();
    bytes[5] ^= 1;
    std::fs::write(&f, &bytes).unwrap();
    let e = pocl_agrees(&pocl, d, "plain", &g, 1).unwrap_err();
    assert!(e.contains("arg0: pocl differs from the oracle first at byte 5"), "{e}");
}
