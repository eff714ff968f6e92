//! `simt-ifconvert` checked by execution (issue 10): every corpus kernel of
//! `test-ir/kernels` and generated kernels (`kernel_gen::module_ifc`: nested
//! divergent ifs, switches, loops with breaks, private arrays, diamonds whose
//! arms end with the same stores, bounds checks) run before and after the
//! pass, in `mode=divergent` (cost model on) and `mode=all;max-cost=none`
//! (everything it can, with the scratch slot and with `guard=branch`), on the
//! emulator under every reconvergence policy and on the host engine; every
//! buffer must be identical, and the output must pass the verifier. After
//! `mode=all` with the scratch slot, an acyclic kernel with nothing that
//! bounds a region must run with no divergent branch at all.
//!
//! Never worse (issue 23): the default conversion, and one priced by a
//! divergence profile of the launch, issue no more warp-instructions than
//! the original, at warp widths 1 (no warp can split), 8 and 32, on random
//! and on uniform data, under every policy; the profiled conversion also
//! computes the same buffers. The same for the rare-outlier kernels of
//! `test-ir/ifconvert/rare-outliers.ll`, where the old all-split rule
//! (`cost=split`) is shown to lose.
//!
//! `SIMT_IFC_KERNELS=N` sets the number of generated kernels (default 1000),
//! `SIMT_IFC_HOST_EVERY=K` runs every K-th of them on the host too (default
//! 25: the host engine compiles at O3, ~50 ms a kernel). Failing kernels are
//! written to `target/ifconvert-exec/`.

mod kernel_gen;

mod corpus;

use inkwell::context::Context;
use simt::engine::buffers::KernelArgs;
use simt::engine::emu::{self, EmuKernel, EmuOptions, UniformityCheck};
use simt::engine::host::runner::Runner;
use simt::engine::host::{self, HostOptions};
use simt::input::ModuleInput;
use simt::launch::{ArgSpec, Grid, Policy};
use simt_passes::analysis::branch_profile::{BranchProfile, FunctionProfile, FORMAT};
use simt_passes::analysis::cache::AnalysisCache;
use simt_passes::pass::PassContext;
use std::path::{Path, PathBuf};

const POLICIES: [Policy; 3] = [Policy::Ipdom, Policy::Markers, Policy::None];
/// The last: the host's guard form (the access alone keeps a branch), so it
/// leaves divergent branches and is exempt from the no-divergence check.
/// `max-cost=none` in `mode=divergent` keeps uniform branches as islands
/// wherever it can (partial linearisation, issue 26).
const PIPELINES: [&str; 4] = [
    "simt-ifconvert",
    "simt-ifconvert<max-cost=none>",
    "simt-ifconvert<mode=all;max-cost=none>",
    "simt-ifconvert<mode=all;max-cost=none;guard=branch>",
];

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

fn fail_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("target").join("ifconvert-exec");
    std::fs::create_dir_all(&d).expect("create target/ifconvert-exec");
    d
}

struct Launch {
    kernel: String,
    global: Vec<u64>,
    local: Vec<u64>,
    args: Vec<String>,
}

/// Runs `pipeline` on `text`; the result must verify.
fn convert(ctx: &Context, text: &str, pipeline: &str) -> Result<String, String> {
    let mut module = simt_passes::ir::parse_ir(ctx, "k", text.as_bytes()).map_err(|e| format!("parse: {e}"))?;
    let pass = simt_passes::registry::build(pipeline).map_err(|e| e.to_string())?;
    let mut cache = AnalysisCache::new();
    let mut sink = Vec::new();
    let _preserved = pass.run(&mut PassContext::new(&mut module, &mut cache, &mut sink)).map_err(|e| e.to_string())?;
    simt_passes::ir::verify(&module).map_err(|e| format!("{pipeline}: output does not verify: {e}"))?;
    Ok(module.print_to_string().to_string())
}

/// The bytes of every buffer argument, in parameter order.
fn buffers(args: &KernelArgs) -> Vec<Vec<u8>> {
    args.buffers().map(|(_, b)| b.bytes().to_vec()).collect()
}

fn kernel_args(l: &Launch) -> Result<KernelArgs, String> {
    let specs: Vec<ArgSpec> = l.args.iter().map(|a| ArgSpec::parse(a, None).expect("valid arg")).collect();
    KernelArgs::new(&specs).map_err(|e| e.to_string())
}

/// Buffers after an emulated launch, and divergent branches taken.
fn emu_run(ctx: &Context, text: &str, l: &Launch, policy: Policy) -> Result<(Vec<Vec<u8>>, u64), String> {
    let (bufs, c, _) = emu_measure(ctx, text, l, policy, 32, false)?;
    Ok((bufs, c.divergent_branches))
}

/// What an emulated launch left: its buffers, its counters and (when asked
/// for) the kernel's divergence profile.
type Measured = (Vec<Vec<u8>>, emu::Counters, Option<FunctionProfile>);

/// Buffers and counters of an emulated launch at `width`, and with
/// `profile` the kernel's divergence profile (as `simt-run --profile`).
fn emu_measure(ctx: &Context, text: &str, l: &Launch, policy: Policy, width: u32, profile: bool) -> Result<Measured, String> {
    let mut module = simt_passes::ir::parse_ir(ctx, &l.kernel, text.as_bytes()).map_err(|e| format!("parse: {e}"))?;
    let tagged = if profile { Some(emu::profile::tag(&module, &l.kernel).map_err(|e| e.to_string())?) } else { None };
    let opts = EmuOptions { policy, warp_width: width, check_uniformity: UniformityCheck::Off };
    let program = emu::compile_module(&mut module, &l.kernel, &opts).map_err(|e| e.to_string())?;
    let map = match &tagged {
        Some(t) => Some(emu::profile::block_map(&module, t, &program).map_err(|e| e.to_string())?),
        None => None,
    };
    let k = EmuKernel { program, compile_seconds: 0.0 };
    let mut args = kernel_args(l)?;
    let grid = Grid::new(&l.global, &l.local, None)?;
    let (c, _) = emu::run(&k, grid, &mut args, None).map_err(|e| e.to_string())?;
    let fp = tagged.as_ref().zip(map.as_ref()).map(|(t, m)| emu::profile::profile(t, m, &c));
    Ok((buffers(&args), c, fp))
}

/// `f` as a profile file in `dir`.
fn profile_file(dir: &Path, f: FunctionProfile, width: u32) -> PathBuf {
    let p = BranchProfile { format: FORMAT.into(), policy: "ipdom".into(), warp_width: width, functions: vec![f] };
    let path = dir.join("profile.json");
    std::fs::write(&path, serde_json::to_string(&p).expect("encodes")).expect("write profile");
    path
}

fn host_run(text: &str, l: &Launch) -> Result<Vec<Vec<u8>>, String> {
    let input = ModuleInput { name: l.kernel.clone(), bytes: text.as_bytes().to_vec() };
    let mut local = [1u64; 3];
    local[..l.local.len()].copy_from_slice(&l.local);
    let hk =
        host::compile(&input, &l.kernel, &HostOptions { local_size: Some(local), ..HostOptions::default() }).map_err(|e| e.to_string())?;
    let wg = hk.wg_kernel(&l.kernel);
    let mut args = kernel_args(l)?;
    let grid = Grid::new(&l.global, &l.local, None)?;
    Runner::new(wg, grid, &mut args, 1 << 18).map_err(|e| e.to_string())?.run(None).map_err(|e| e.to_string())?;
    Ok(buffers(&args))
}

/// Whether the kernel has no cycle and nothing that keeps a branch, so that
/// `mode=all` must leave no divergent branch.
fn fully_convertible(ctx: &Context, text: &str, kernel: &str) -> bool {
    let module = simt_passes::ir::parse_ir(ctx, "k", text.as_bytes()).expect("parses");
    let f = simt_passes::ir::defined_functions(&module).into_iter().find(|f| simt_passes::ir::function_name(*f) == kernel).expect("kernel");
    let mut cache = AnalysisCache::new();
    let fa = cache.get(f);
    let exits = fa.cfg.cfg.exits().count();
    let acyclic = fa.loops().loops().next().is_none() && fa.loops().irreducible_cycles().is_empty();
    let bounded = fa.cfg.blocks().iter().flat_map(|&bb| simt_passes::ir::instructions(bb)).any(|i| {
        i.is_atomic()
            || i.is_volatile()
            || (i.is_call() && !i.called_function_name().unwrap_or_default().starts_with("llvm.nvvm.read.ptx.sreg."))
    });
    acyclic && exits == 1 && !bounded
}

/// What one kernel showed.
#[derive(Default)]
struct Seen {
    emu_runs: u64,
    host_runs: u64,
    fully_converted: u64,
    /// Conversions that left fewer stores than there were: common stores
    /// of a region's arms sunk and made once.
    stores_sunk: u64,
}

/// Runs `text` before and after each pipeline; `Err` says what differed.
fn check(ctx: &Context, text: &str, l: &Launch, on_host: bool, seen: &mut Seen) -> Result<(), String> {
    let mut before = Vec::new();
    for p in POLICIES {
        before.push(emu_run(ctx, text, l, p).map_err(|e| format!("original, {p:?}: {e}"))?);
    }
    let host_before = if on_host { Some(host_run(text, l).map_err(|e| format!("original on the host: {e}"))?) } else { None };
    let must_clear = fully_convertible(ctx, text, &l.kernel);
    for pipeline in PIPELINES {
        let after = convert(ctx, text, pipeline)?;
        let stores = |t: &str| t.lines().filter(|l| l.trim_start().starts_with("store ")).count();
        seen.stores_sunk += u64::from(stores(&after) < stores(text));
        for (k, p) in POLICIES.into_iter().enumerate() {
            let (bufs, divergent) = emu_run(ctx, &after, l, p).map_err(|e| format!("{pipeline}, {p:?}: {e}"))?;
            seen.emu_runs += 1;
            if bufs != before[k].0 {
                return Err(format!("{pipeline}: emulator buffers differ under {p:?}"));
            }
            if pipeline.contains("mode=all") && !pipeline.contains("guard=branch") && must_clear {
                if divergent != 0 {
                    return Err(format!("{pipeline}: {divergent} divergent branches left in an acyclic kernel under {p:?}"));
                }
                if k == 0 {
                    seen.fully_converted += 1;
                }
            }
        }
        if let Some(hb) = &host_before {
            let ha = host_run(&after, l).map_err(|e| format!("{pipeline} on the host: {e}"))?;
            seen.host_runs += 1;
            if &ha != hb {
                return Err(format!("{pipeline}: host buffers differ"));
            }
            if ha != before[0].0 {
                return Err("host and emulator differ on the original".into());
            }
        }
    }
    Ok(())
}

#[test]
fn generated_kernels_compute_the_same_after_ifconvert() {
    simt::llvm_init::init();
    let ctx = Context::create();
    let n = env_u64("SIMT_IFC_KERNELS", 1000);
    let host_every = env_u64("SIMT_IFC_HOST_EVERY", 25).max(1);
    let mut seen = Seen::default();
    let mut failures = Vec::new();
    for seed in 0..n {
        let name = format!("g{seed}");
        let text = kernel_gen::module_ifc(&[(seed, name.clone())]);
        let (local, groups, args) = kernel_gen::launch(seed);
        let l = Launch { kernel: name, global: vec![local * groups], local: vec![local], args };
        // The host backend cannot select the lane-mask registers (PTX only).
        let on_host = seed % host_every == 0 && !text.contains("= call i32 @llvm.nvvm.read.ptx.sreg.lanemask");
        if let Err(e) = check(&ctx, &text, &l, on_host, &mut seen) {
            let path = fail_dir().join(format!("g{seed}.ll"));
            std::fs::write(&path, &text).expect("write failing kernel");
            failures.push(format!("seed {seed} ({}): {e}", path.display()));
        }
    }
    eprintln!(
        "ifconvert exec: {n} generated kernels, {} emulator runs after the pass, {} host runs, {} fully converted to no divergent branch, {} conversions with stores sunk",
        seen.emu_runs, seen.host_runs, seen.fully_converted, seen.stores_sunk
    );
    assert!(seen.fully_converted > 0, "no generated kernel was acyclic: the mode=all check saw nothing");
    assert!(seen.stores_sunk > 0, "no conversion sank a store: the generator's common-store diamonds were never converted");
    assert!(failures.is_empty(), "{} of {n} generated kernels fail:\n{}", failures.len(), failures.join("\n"));
}

/// Every kernel of the corpus, launched from its parameter types (buffers of
/// 4096 random `i32`, scalars 100, local arrays of 256), 2 groups of 64.
#[test]
fn corpus_kernels_compute_the_same_after_ifconvert() {
    simt::llvm_init::init();
    let ctx = Context::create();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("test-ir").join("kernels");
    let mut seen = Seen::default();
    let mut failures = Vec::new();
    let mut ran = 0;
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).expect("corpus").map(|e| e.expect("entry").path()).collect();
    files.sort();
    for path in files {
        let file = path.file_name().unwrap().to_str().unwrap().to_string();
        if !file.ends_with(".ll") || file.starts_with("invalid") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("corpus kernel");
        for (kernel, args) in corpus::generic_launches(&text, "100") {
            let l = Launch { kernel, global: vec![128], local: vec![64], args };
            // A launch the original cannot run (a size it needs) tells nothing.
            if emu_run(&ctx, &text, &l, Policy::Ipdom).is_err() {
                eprintln!("corpus: {file} {}: not run generically", l.kernel);
                continue;
            }
            ran += 1;
            if let Err(e) = check(&ctx, &text, &l, true, &mut seen) {
                failures.push(format!("{file} {}: {e}", l.kernel));
            }
        }
    }
    eprintln!("ifconvert exec: {ran} corpus kernels, {} emulator runs after the pass, {} host runs", seen.emu_runs, seen.host_runs);
    assert!(ran >= 15, "only {ran} corpus kernels ran");
    assert!(failures.is_empty(), "corpus kernels differ after simt-ifconvert:\n{}", failures.join("\n"));
}

/// The cost model counts what the pass emits: after converting every
/// region it chose (`mode=all;max-cost=none`), a generated kernel issues,
/// instruction by instruction as the emulator counts them
/// (`ifconvert::issued`), the blocks outside the regions plus each region's
/// predicated estimate plus the scratch slot's `alloca`, exactly (the
/// estimate knows the select trees, chains, sinks, guards, predicates and
/// the dead branch conditions the pass erases). An estimate below what was
/// emitted would let the model convert a region that costs more than it
/// said; one above would keep regions that pay.
#[test]
fn cost_model_counts_what_the_pass_emits() {
    use simt_passes::transform::ifconvert::{apply_plan, issued, plan_function, Mode, Options};
    simt::llvm_init::init();
    let ctx = Context::create();
    let n = env_u64("SIMT_IFC_KERNELS", 1000);
    let mut checked = 0;
    let mut failures = Vec::new();
    for seed in 0..n {
        let name = format!("g{seed}");
        let text = kernel_gen::module_ifc(&[(seed, name.clone())]);
        let mut module = simt_passes::ir::parse_ir(&ctx, "k", text.as_bytes()).expect("parses");
        let f =
            simt_passes::ir::defined_functions(&module).into_iter().find(|f| simt_passes::ir::function_name(*f) == name).expect("kernel");
        let mut cache = AnalysisCache::new();
        let count = |bb: inkwell::basic_block::BasicBlock<'_>| simt_passes::ir::instructions(bb).map(issued).sum::<u64>() as i64;
        let opts = Options { mode: Mode::All, max_cost: None, ..Options::default() };
        let Some(plan) = plan_function(cache.get(f), &opts).expect("no profile") else { continue };
        let fa = cache.get(f);
        let inside: std::collections::HashSet<_> =
            plan.regions().iter().flat_map(|r| std::iter::once(r.head).chain(r.body.iter().copied())).collect();
        let outside: i64 = fa.cfg.cfg.blocks().filter(|b| !inside.contains(b)).map(|b| count(fa.cfg.block(b))).sum();
        let predicted = outside + plan.regions().iter().map(|r| r.cost.1).sum::<i64>();
        // The branchy side: a warp diverging at every branch of a region
        // runs each of its blocks once, terminators included.
        let likely = simt_passes::analysis::likely_uniform::LikelyUniform::compute(fa);
        for r in plan.regions() {
            let scope: Vec<_> = std::iter::once(r.head).chain(r.body.iter().copied()).collect();
            let all: i64 = scope.iter().map(|&b| count(fa.cfg.block(b))).sum();
            if !scope.iter().any(|&b| likely.is_likely_uniform(b)) && r.cost.0 != all {
                failures.push(format!("seed {seed}: region at {:?} branchy {} predicted, {all} issued", r.head, r.cost.0));
            }
        }
        apply_plan(&mut module, &plan);
        let after: i64 = f.get_basic_block_iter().map(count).sum();
        let scratch = i64::from(module.print_to_string().to_string().contains("%ifc.scratch = alloca"));
        checked += 1;
        if after != predicted + scratch {
            failures.push(format!("seed {seed}: {after} issued after, {} predicted", predicted + scratch));
        }
    }
    eprintln!("ifconvert cost model: {checked} kernels converted, {} miscounts", failures.len());
    assert!(checked > 0);
    assert!(failures.is_empty(), "the cost model miscounts {} times in {checked} kernels:\n{}", failures.len(), failures.join("\n"));
}

/// Partial linearisation (issue 26): generated kernels whose divergent
/// regions hold a uniform branch are converted with that branch kept (an
/// island), compute the same on the emulator under every policy, and run
/// fewer divergent branches than with `partial=off` (which keeps such a
/// region whole), never more warp-instructions than the original when the
/// default cost rule chose them.
#[test]
fn uniform_branches_stay_inside_converted_regions() {
    use simt_passes::transform::ifconvert::{plan_function, Options};
    simt::llvm_init::init();
    let ctx = Context::create();
    let n = env_u64("SIMT_IFC_KERNELS", 1000);
    let (mut with_islands, mut fewer) = (0, 0);
    let mut failures = Vec::new();
    for seed in 0..n {
        let name = format!("g{seed}");
        let text = kernel_gen::module_ifc(&[(seed, name.clone())]);
        let module = simt_passes::ir::parse_ir(&ctx, "k", text.as_bytes()).expect("parses");
        let f =
            simt_passes::ir::defined_functions(&module).into_iter().find(|f| simt_passes::ir::function_name(*f) == name).expect("kernel");
        let mut cache = AnalysisCache::new();
        let opts = Options { max_cost: None, ..Options::default() };
        let islands =
            plan_function(cache.get(f), &opts).expect("no profile").map_or(0, |p| p.regions().iter().map(|r| r.islands.len()).sum());
        if islands == 0 {
            continue;
        }
        with_islands += 1;
        let (local, groups, args) = kernel_gen::launch(seed);
        let l = Launch { kernel: name, global: vec![local * groups], local: vec![local], args };
        let run = |pipeline: &str, p: Policy| -> Result<(Vec<Vec<u8>>, u64), String> {
            let after = convert(&ctx, &text, pipeline)?;
            emu_run(&ctx, &after, &l, p).map_err(|e| format!("{pipeline}, {p:?}: {e}"))
        };
        let result = (|| -> Result<bool, String> {
            let mut less = false;
            for p in POLICIES {
                let (before, _) = emu_run(&ctx, &text, &l, p)?;
                let (on, d_on) = run("simt-ifconvert<max-cost=none>", p)?;
                let (off, d_off) = run("simt-ifconvert<max-cost=none;partial=off>", p)?;
                if on != before || off != before {
                    return Err(format!("buffers differ under {p:?}"));
                }
                if d_on > d_off {
                    return Err(format!("{d_on} divergent branches with islands, {d_off} without, under {p:?}"));
                }
                less |= d_on < d_off;
            }
            Ok(less)
        })();
        match result {
            Ok(less) => fewer += u64::from(less),
            Err(e) => {
                let path = fail_dir().join(format!("island-g{seed}.ll"));
                std::fs::write(&path, &text).expect("write failing kernel");
                failures.push(format!("seed {seed} ({}): {e}", path.display()));
            }
        }
    }
    eprintln!("ifconvert islands: {with_islands} of {n} generated kernels have regions with islands, {fewer} run fewer divergent branches");
    assert!(with_islands > 0, "no generated region kept a uniform branch as an island");
    assert!(fewer > 0, "islands never removed a divergent branch");
    assert!(failures.is_empty(), "{} kernels with islands fail:\n{}", failures.len(), failures.join("\n"));
}

/// Warp widths of the never-worse checks: 1, where no warp can split, and
/// the widths the other checks use.
const WIDTHS: [u32; 3] = [1, 8, 32];

/// Kernel `seed` of both generators, with its launch: `module_ifc`'s
/// (`g{seed}`) and `module_rare`'s short regions on rare, frequent and
/// uniform conditions (`r{seed}`).
fn both_families(seed: u64) -> [(u64, String, Launch); 2] {
    let (local, groups, args) = kernel_gen::launch(seed);
    let g = Launch { kernel: format!("g{seed}"), global: vec![local * groups], local: vec![local], args };
    let (local, groups, args) = kernel_gen::launch_rare(seed);
    let r = Launch { kernel: format!("r{seed}"), global: vec![local * groups], local: vec![local], args };
    [(seed, kernel_gen::module_ifc(&[(seed, g.kernel.clone())]), g), (seed, kernel_gen::module_rare(seed, &r.kernel), r)]
}

/// The launch with every random buffer filled with one value instead: the
/// data-dependent branches agree across lanes (those on ids still split).
fn uniform_data(l: &Launch) -> Launch {
    let args = l.args.iter().map(|a| a.split_once("=rand:").map_or(a.clone(), |(head, _)| format!("{head}=const:5"))).collect();
    Launch { kernel: l.kernel.clone(), global: l.global.clone(), local: l.local.clone(), args }
}

/// Checks that `after` issues no more warp-instructions than `before` on `l`
/// at every width and policy (`policies`), with the same buffers; returns
/// both counts at width 32 under ipdom.
fn not_worse(ctx: &Context, before: &str, after: &str, l: &Launch, policies: &[Policy], what: &str) -> Result<(u64, u64), String> {
    let mut at32 = (0, 0);
    for w in WIDTHS {
        for &p in policies {
            let (b0, c0, _) = emu_measure(ctx, before, l, p, w, false).map_err(|e| format!("original, width {w}, {p:?}: {e}"))?;
            let (b1, c1, _) = emu_measure(ctx, after, l, p, w, false).map_err(|e| format!("{what}, width {w}, {p:?}: {e}"))?;
            if b0 != b1 {
                return Err(format!("{what}: buffers differ at width {w} under {p:?}"));
            }
            if c1.warp_instructions > c0.warp_instructions {
                return Err(format!(
                    "{what}: {} warp-instructions after, {} before, at width {w} under {p:?} ({} divergent branches before)",
                    c1.warp_instructions, c0.warp_instructions, c0.divergent_branches
                ));
            }
            if w == 32 && p == Policy::Ipdom {
                at32 = (c0.warp_instructions, c1.warp_instructions);
            }
        }
    }
    Ok(at32)
}

/// Issue 23: the default rule converts a region only when it costs no more
/// than the cheapest path through it, which every lane group runs whether
/// it splits or not, so no launch issues more warp-instructions after it.
/// Generated kernels, random and uniform data, widths 1, 8 and 32, every
/// policy. Fails with the rule before issue 23 (`cost=split`): see
/// `the_split_rule_loses_on_rare_outliers`.
#[test]
fn default_conversion_never_issues_more() {
    simt::llvm_init::init();
    let ctx = Context::create();
    let n = env_u64("SIMT_IFC_NEVER_WORSE_KERNELS", 300);
    let (mut converted, mut failures) = (0, Vec::new());
    // Warp-instructions at width 32 under ipdom on random data, of the
    // kernels the default changed: (original, converted).
    let mut sum = (0, 0);
    for (seed, text, l) in (0..n).flat_map(both_families) {
        let after = match convert(&ctx, &text, "simt-ifconvert") {
            Ok(a) => a,
            Err(e) => {
                failures.push(format!("{} (seed {seed}): {e}", l.kernel));
                continue;
            }
        };
        if after == printed(&ctx, &text) {
            continue;
        }
        converted += 1;
        for (data, launch) in [("random", &l), ("uniform", &uniform_data(&l))] {
            match not_worse(&ctx, &text, &after, launch, &POLICIES, "simt-ifconvert") {
                Ok((a, b)) if data == "random" => {
                    sum.0 += a;
                    sum.1 += b;
                }
                Ok(_) => {}
                Err(e) => {
                    let path = fail_dir().join(format!("never-worse-{}.ll", l.kernel));
                    std::fs::write(&path, &text).expect("write failing kernel");
                    failures.push(format!("{} (seed {seed}), {data} data ({}): {e}", l.kernel, path.display()));
                }
            }
        }
    }
    eprintln!(
        "ifconvert never worse: {} generated kernels, {converted} changed by the default ({} warp-instructions before, {} after, width 32, ipdom, random data), {} failures",
        2 * n,
        sum.0,
        sum.1,
        failures.len()
    );
    assert!(converted > 0, "the default converted no generated kernel: nothing was checked");
    assert!(failures.is_empty(), "the default conversion issues more in {} cases:\n{}", failures.len(), failures.join("\n"));
}

/// Converts `text` with a profile of launch `l` at `width` (ipdom) and
/// checks the result computes the same and issues no more than the
/// original on that launch under ipdom, where the profile's counts are
/// exact; the buffers under every policy.
fn profiled(ctx: &Context, text: &str, l: &Launch, width: u32, dir: &Path) -> Result<(bool, u64, u64), String> {
    let mut counts = (0, 0);
    let (_, c, fp) = emu_measure(ctx, text, l, Policy::Ipdom, width, true)?;
    let fp = fp.expect("profiled");
    // The profile accounts for every warp-instruction: each block issued its
    // instructions once per lane group that entered it.
    let module = simt_passes::ir::parse_ir(ctx, "k", text.as_bytes()).expect("parses");
    let f =
        simt_passes::ir::defined_functions(&module).into_iter().find(|f| simt_passes::ir::function_name(*f) == l.kernel).expect("kernel");
    let issued: u64 = f
        .get_basic_block_iter()
        .zip(&fp.blocks)
        .map(|(bb, b)| b.entries * simt_passes::ir::instructions(bb).map(simt_passes::transform::ifconvert::issued).sum::<u64>())
        .sum();
    if issued != c.warp_instructions {
        return Err(format!("the profile accounts for {issued} warp-instructions, the launch issued {}", c.warp_instructions));
    }
    let path = profile_file(dir, fp, width);
    let after = convert(ctx, text, &format!("simt-ifconvert<profile={}>", path.display()))?;
    for p in POLICIES {
        let (b0, c0, _) = emu_measure(ctx, text, l, p, width, false)?;
        let (b1, c1, _) = emu_measure(ctx, &after, l, p, width, false)?;
        if b0 != b1 {
            return Err(format!("profiled: buffers differ at width {width} under {p:?}"));
        }
        if p == Policy::Ipdom && c1.warp_instructions > c0.warp_instructions {
            return Err(format!(
                "profiled: {} warp-instructions after, {} before, at width {width}",
                c1.warp_instructions, c0.warp_instructions
            ));
        }
        if p == Policy::Ipdom {
            counts = (c0.warp_instructions, c1.warp_instructions);
        }
    }
    Ok((after != printed(ctx, text), counts.0, counts.1))
}

/// The module as the pass's output prints it, unchanged.
fn printed(ctx: &Context, text: &str) -> String {
    simt_passes::ir::parse_ir(ctx, "k", text.as_bytes()).expect("parses").print_to_string().to_string()
}

/// `profile=FILE`: the profile accounts for every warp-instruction the
/// launch issued (Σ entries × the block's instructions), and a conversion
/// priced by it computes the same buffers under every policy and issues no
/// more warp-instructions on that launch (ipdom, widths 1, 8 and 32).
#[test]
fn profiled_conversion_computes_the_same_and_never_issues_more() {
    simt::llvm_init::init();
    let ctx = Context::create();
    let dir = tempfile::tempdir().expect("temp dir");
    let n = env_u64("SIMT_IFC_NEVER_WORSE_KERNELS", 300);
    let (mut converted, mut failures) = (0, Vec::new());
    let mut sum = (0, 0);
    for (seed, text, l) in (0..n).flat_map(both_families) {
        for w in WIDTHS {
            match profiled(&ctx, &text, &l, w, dir.path()) {
                Ok((changed, a, b)) => {
                    converted += u64::from(changed);
                    if w == 32 && changed {
                        sum.0 += a;
                        sum.1 += b;
                    }
                }
                Err(e) => {
                    let path = fail_dir().join(format!("profiled-{}.ll", l.kernel));
                    std::fs::write(&path, &text).expect("write failing kernel");
                    failures.push(format!("{} (seed {seed}), width {w} ({}): {e}", l.kernel, path.display()));
                }
            }
        }
    }
    eprintln!(
        "ifconvert profiled: {} generated kernels x {} widths, {converted} conversions ({} warp-instructions before, {} after, of those at width 32, ipdom), {} failures",
        2 * n,
        WIDTHS.len(),
        sum.0,
        sum.1,
        failures.len()
    );
    assert!(converted > 0, "no profiled conversion changed anything: nothing was checked");
    assert!(failures.is_empty(), "profiled conversions fail in {} cases:\n{}", failures.len(), failures.join("\n"));
}

/// The three rare-outlier kernels of issue 23 (`rare-outliers.ll`: a
/// divergent test that splits about one warp in sixteen): the old rule
/// (`cost=split`) issues more than the original on each, the default and
/// the profiled conversion do not.
#[test]
fn the_split_rule_loses_on_rare_outliers() {
    simt::llvm_init::init();
    let ctx = Context::create();
    let dir = tempfile::tempdir().expect("temp dir");
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("test-ir/ifconvert/rare-outliers.ll");
    let text = std::fs::read_to_string(file).expect("rare-outliers.ll");
    let split = convert(&ctx, &text, "simt-ifconvert<cost=split>").expect("converts");
    let default = convert(&ctx, &text, "simt-ifconvert").expect("converts");
    for k in ["fixup", "uneven", "nested"] {
        let l = Launch {
            kernel: k.into(),
            global: vec![4096],
            local: vec![128],
            args: vec!["buf:i32:4096".into(), "buf:i32:4096=rand:11".into()],
        };
        let count = |t: &str| emu_measure(&ctx, t, &l, Policy::Ipdom, 32, false).expect("runs").1;
        let before = count(&text);
        assert!(
            before.divergent_branches > 0 && before.divergent_branches * 8 < before.warps,
            "{k}: few warps split ({} of {})",
            before.divergent_branches,
            before.warps
        );
        let worse = count(&split).warp_instructions;
        assert!(worse > before.warp_instructions, "{k}: cost=split issues {worse}, the original {}", before.warp_instructions);
        not_worse(&ctx, &text, &default, &l, &POLICIES, &format!("{k}, default")).unwrap();
        for w in WIDTHS {
            profiled(&ctx, &text, &l, w, dir.path()).unwrap_or_else(|e| panic!("{k}: {e}"));
        }
    }
}
