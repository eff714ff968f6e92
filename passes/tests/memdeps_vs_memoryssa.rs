//! Seed 003's use-def sets beside LLVM's MemorySSA, load by load, on the
//! corpus (`test-ir/kernels/*.ll`) and on functions of the oracle's
//! generator (`memdeps_gen`, as `memdeps_oracle.rs` builds them).
//!
//! MemorySSA gives each load one defining access, not a set, so what is
//! compared is a set derived from it. **MemorySSA's set** of a load `L`
//! (`MemoryUse(D)` in `opt -passes='print<memoryssa>'`, uses optimized) is
//! what this walk collects, starting at `D`:
//!
//! - `liveOnEntry`: `entry`;
//! - `MemoryPhi`: the walk of each incoming access;
//! - `MemoryDef` of instruction `S`: if LLVM's alias analysis says `S` may
//!   write `L`'s location (`opt -passes=aa-eval`: a store not `NoAlias`
//!   with the load, a call whose mod/ref on the load's location has Mod),
//!   `S` is in the set; the walk goes on to `S`'s defining access unless
//!   `S` is a store that covers `L`'s bytes by `aa-eval`'s answer:
//!   MustAlias and at least as wide, or PartialAlias at a known offset
//!   (`off N`, the store's start minus the load's) with `N <= 0` and
//!   `N + size(S) >= size(L)` (a full overwrite, as DSE's `isOverwrite`
//!   would see it). A `memset`/`memcpy`/`memmove` ends it only when its
//!   destination is the load's pointer operand itself and its constant
//!   length covers the load (`aa-eval` gives no must-alias answer for
//!   calls); masked stores never do. `llvm.lifetime.*` that may write the
//!   location ends it with `entry` (undefined bytes, as simt counts them).
//!
//! That is the set a client would get from MemorySSA plus the alias
//! analysis it was built with, walking past partial clobbers. A load whose
//! walk meets a definition `aa-eval` says nothing about (`atomicrmw`,
//! constant-expression pointers) is not compared; nor is one whose simt set
//! holds `any` (a capped record). **simt's set** is the analysis' use-def
//! set of the load (`entry` and stores). Each load is then: simt fewer (its
//! set a strict subset of MemorySSA's), equal, MemorySSA fewer, or neither.
//!
//! Soundness on generated functions: the interpreter records the last
//! writer of every byte each load reads; every such writer must be in
//! simt's set (asserted for every "simt fewer" load, the ones where being
//! more precise could mean being wrong) and in MemorySSA's set (asserted
//! for all loads: it checks the walk above). Counts go to stderr:
//! `cargo test -p simt-passes --test memdeps_vs_memoryssa -- --nocapture`.
//! Needs `opt` of LLVM 22 (`LLVM_BIN`, default /usr/lib/llvm-22/bin).

mod memdeps_gen;

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::Command;

use inkwell::context::Context;
use llvm_sys::LLVMOpcode;
use memdeps_gen::{generate, module_ir, run, Func, Rng, N_ARGS};
use simt_passes::analysis::cache::AnalysisCache;
use simt_passes::analysis::memdeps::dataflow::{Config, KillJoin};
use simt_passes::analysis::memdeps::model::Def;
use simt_passes::analysis::memdeps::MemDeps;
use simt_passes::ir::{instructions, parse_ir};

const GEN_MODULES: usize = 10;
const PER_MODULE: usize = 100;
const RUNS: usize = 12;

/// An element of a reaching set: `None` is `entry`, `Some(k)` the k-th
/// instruction of the function in layout order.
type Elem = Option<usize>;

fn opt() -> String {
    let bin = std::env::var("LLVM_BIN").unwrap_or_else(|_| "/usr/lib/llvm-22/bin".into());
    let opt = format!("{bin}/opt");
    assert!(Path::new(&opt).exists(), "{opt} not found: set LLVM_BIN to LLVM 22's bin directory");
    opt
}

fn opt_output(file: &Path, args: &[&str]) -> String {
    let out = Command::new(opt()).args(args).arg("-disable-output").arg(file).output().expect("opt runs");
    assert!(out.status.success(), "opt {args:?} {}: {}", file.display(), String::from_utf8_lossy(&out.stderr));
    // print<memoryssa> writes to stderr, aa-eval to stdout.
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

// ------------------------------------------------------- print<memoryssa>

#[derive(Clone, Debug)]
enum Acc {
    Live,
    Id(u32),
}

fn acc(s: &str) -> Acc {
    if s == "liveOnEntry" {
        Acc::Live
    } else {
        Acc::Id(s.parse().unwrap_or_else(|_| panic!("memory access id {s:?}")))
    }
}

/// One function of `print<memoryssa>`: its instruction texts in order,
/// each MemoryDef's instruction and defining access, each MemoryPhi's
/// incoming accesses, each MemoryUse's defining access by instruction.
#[derive(Default)]
struct Mssa {
    insts: Vec<String>,
    defs: HashMap<u32, (usize, Acc)>,
    phis: HashMap<u32, Vec<Acc>>,
    uses: HashMap<usize, Acc>,
}

fn between<'a>(s: &'a str, open: &str, close: char) -> &'a str {
    let a = s.find(open).unwrap() + open.len();
    let b = a + s[a..].find(close).unwrap();
    &s[a..b]
}

fn parse_mssa(text: &str) -> HashMap<String, Mssa> {
    let mut out = HashMap::new();
    let mut cur: Option<(String, Mssa)> = None;
    let mut pending_def: Option<(u32, Acc)> = None;
    let mut pending_use: Option<Acc> = None;
    // A `switch` prints its cases on the lines up to `]`.
    let mut in_switch = false;
    for line in text.lines() {
        if in_switch {
            in_switch = line.trim() != "]";
            continue;
        }
        if let Some(name) = line.strip_prefix("MemorySSA for function: ") {
            if let Some((n, m)) = cur.take() {
                out.insert(n, m);
            }
            cur = Some((name.trim().to_string(), Mssa::default()));
            continue;
        }
        let Some((_, m)) = cur.as_mut() else { continue };
        if let Some(a) = line.strip_prefix("; ") {
            if a.contains("= MemoryPhi(") {
                let id = a.split(' ').next().unwrap().parse().unwrap();
                let ops = between(a, "MemoryPhi(", ')');
                let ops = ops.split("},{").map(|p| acc(p.trim_matches(['{', '}']).rsplit(',').next().unwrap())).collect();
                m.phis.insert(id, ops);
            } else if a.contains("= MemoryDef(") {
                let id = a.split(' ').next().unwrap().parse().unwrap();
                pending_def = Some((id, acc(between(a, "MemoryDef(", ')'))));
            } else if a.starts_with("MemoryUse(") {
                pending_use = Some(acc(between(a, "MemoryUse(", ')')));
            }
        } else if line.starts_with("  ") && !line.trim().is_empty() {
            let k = m.insts.len();
            m.insts.push(line.trim().to_string());
            in_switch = line.trim_end().ends_with('[');
            if let Some((id, d)) = pending_def.take() {
                m.defs.insert(id, (k, d));
            }
            if let Some(u) = pending_use.take() {
                m.uses.insert(k, u);
            }
        }
    }
    if let Some((n, m)) = cur {
        out.insert(n, m);
    }
    out
}

// ---------------------------------------------------------------- aa-eval

/// `aa-eval -print-all-alias-modref-info -evaluate-aa-metadata`: alias
/// results of (load, store) pairs by their texts, mod/ref of (pointer
/// type, pointer, call) triples.
#[derive(Default)]
struct Aa {
    load_store: HashMap<(String, String), String>,
    ptr_call: HashMap<(String, String, String), String>,
}

/// `aa-eval`'s results, by function (texts repeat across functions).
fn parse_aa(text: &str) -> HashMap<String, Aa> {
    let mut out: HashMap<String, Aa> = HashMap::new();
    let mut name = String::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("Function: ") {
            name = rest.rsplit_once(": ").map_or(rest, |x| x.0).to_string();
            continue;
        }
        let aa = out.entry(name.clone()).or_default();
        let Some((left, right)) = line.split_once("<->") else { continue };
        let Some((result, lhs)) = left.split_once(':') else { continue };
        let (result, lhs, right) = (result.trim().to_string(), lhs.trim(), right.trim().to_string());
        if let Some(p) = lhs.strip_prefix("Ptr: ") {
            let Some((ty, ptr)) = p.rsplit_once("* ") else { continue };
            aa.ptr_call.insert((ty.to_string(), ptr.to_string(), right), result);
        } else if lhs.contains(" = load ") || lhs.starts_with("load ") {
            aa.load_store.insert((lhs.to_string(), right), result);
        }
    }
    out
}

/// The type and pointer operand of a load's text.
fn load_type_ptr(load: &str) -> Option<(String, String)> {
    let rest = load.split_once("load ")?.1;
    let rest = rest.strip_prefix("volatile ").unwrap_or(rest);
    let (ty, ptr) = rest.split_once(", ptr ")?;
    let ptr = ptr.strip_prefix("addrspace(").map_or(Some(ptr), |p| p.split_once(") ").map(|x| x.1))?;
    Some((ty.to_string(), ptr.split(',').next()?.trim().to_string()))
}

fn type_bytes(ty: &str) -> Option<u64> {
    let ty = ty.trim();
    if let Some(bits) = ty.strip_prefix('i') {
        return bits.parse::<u64>().ok().map(|b| b.div_ceil(8));
    }
    if let Some(v) = ty.strip_prefix('<').and_then(|t| t.strip_suffix('>')) {
        let (n, elem) = v.split_once(" x ")?;
        return Some(n.trim().parse::<u64>().ok()? * type_bytes(elem)?);
    }
    match ty {
        "half" | "bfloat" => Some(2),
        "float" => Some(4),
        "double" => Some(8),
        _ if ty.starts_with("ptr") => Some(8),
        _ => None,
    }
}

fn store_type(store: &str) -> Option<&str> {
    let rest = store.strip_prefix("store ")?;
    let rest = rest.strip_prefix("volatile ").unwrap_or(rest);
    // The value may be a vector constant with commas: the type ends at its
    // first space, or at the closing `>` of a vector type.
    if rest.starts_with('<') {
        return Some(&rest[..=rest.find('>')?]);
    }
    rest.split(' ').next()
}

enum Clobber {
    No,
    Partial,
    Full,
    /// `llvm.lifetime.start/end` on the load's location: its bytes are
    /// undefined from there, which simt calls `entry`.
    Lifetime,
    Unknown,
}

/// The destination pointer and constant length of a `memset`, `memcpy` or
/// `memmove` call's text.
fn mem_intrinsic_dest(call: &str) -> Option<(&str, u64)> {
    let args = call.split_once("@llvm.mem")?.1;
    if !["set", "cpy", "move"].iter().any(|k| args.starts_with(k)) {
        return None;
    }
    let args = args.split_once('(')?.1;
    let dest = args.split(',').next()?.rsplit(' ').next()?;
    let len = args.rsplit_once(", i1 ")?.0.rsplit_once("i64 ")?.1.parse().ok()?;
    Some((dest, len))
}

fn clobbers(aa: &Aa, load: &str, def: &str) -> Clobber {
    if def.starts_with("store ") {
        let Some(r) = aa.load_store.get(&(load.to_string(), def.to_string())) else { return Clobber::Unknown };
        if r == "NoAlias" {
            return Clobber::No;
        }
        // The store's start minus the load's: 0 for MustAlias, `off N` for
        // a PartialAlias at a known distance.
        let start = if r == "MustAlias" {
            Some(0)
        } else {
            r.strip_prefix("PartialAlias (off ").and_then(|o| o.strip_suffix(')')).and_then(|o| o.parse::<i64>().ok())
        };
        let sizes = load_type_ptr(load).and_then(|(lt, _)| Some((type_bytes(&lt)?, type_bytes(store_type(def)?)?)));
        let covers = match (start, sizes) {
            (Some(d), Some((l, s))) => d <= 0 && d + s as i64 >= l as i64,
            _ => false,
        };
        return if covers { Clobber::Full } else { Clobber::Partial };
    }
    if def.contains("call ") {
        let Some((ty, ptr)) = load_type_ptr(load) else { return Clobber::Unknown };
        let full = match (mem_intrinsic_dest(def), type_bytes(&ty)) {
            (Some((dest, len)), Some(size)) => dest == ptr && len >= size,
            _ => false,
        };
        return match aa.ptr_call.get(&(ty, ptr.clone(), def.to_string())).map(String::as_str) {
            None => Clobber::Unknown,
            Some("NoModRef" | "Just Ref") => Clobber::No,
            Some(_) if def.contains("@llvm.lifetime.") => Clobber::Lifetime,
            Some(_) if full => Clobber::Full,
            Some(_) => Clobber::Partial,
        };
    }
    Clobber::Unknown
}

/// MemorySSA's set of the load at `k` (header), or `None` when the walk met
/// a definition the alias results do not cover.
fn mssa_set(m: &Mssa, aa: &Aa, k: usize) -> Option<HashSet<Elem>> {
    let load = &m.insts[k];
    let mut set = HashSet::new();
    let mut seen = HashSet::new();
    let mut work = vec![m.uses.get(&k)?.clone()];
    while let Some(a) = work.pop() {
        let id = match a {
            Acc::Live => {
                set.insert(None);
                continue;
            }
            Acc::Id(id) => id,
        };
        if !seen.insert(id) {
            continue;
        }
        if let Some(ops) = m.phis.get(&id) {
            work.extend(ops.iter().cloned());
            continue;
        }
        let (at, up) = &m.defs[&id];
        match clobbers(aa, load, &m.insts[*at]) {
            Clobber::Unknown => return None,
            Clobber::No => {}
            Clobber::Partial => {
                set.insert(Some(*at));
            }
            Clobber::Full => {
                set.insert(Some(*at));
                continue;
            }
            Clobber::Lifetime => {
                set.insert(None);
                continue;
            }
        }
        work.push(up.clone());
    }
    Some(set)
}

// ------------------------------------------------------------- comparison

#[derive(Default, Debug)]
struct Counts {
    loads: usize,
    not_compared: usize,
    simt_fewer: usize,
    equal: usize,
    mssa_fewer: usize,
    neither: usize,
    /// "MemorySSA fewer" loads where the load or a definition only simt
    /// has goes through a `select` of pointers.
    mssa_fewer_select: usize,
    /// Interpreter reads whose writer was missing from simt's set of a
    /// "simt fewer" load / from MemorySSA's set of any load.
    simt_fewer_reads: usize,
    /// "simt fewer" loads that read at least once in the runs.
    simt_fewer_run: usize,
    simt_unsound: usize,
    violations: Vec<String>,
    mssa_reads: usize,
    mssa_missing: Vec<String>,
}

/// Compares every load of every function in `file` (already parsed as
/// `module_text`); `funcs` are the generated functions of the module, to
/// run, when it is generated.
fn compare(
    file: &Path,
    module_text: &str,
    funcs: Option<&[Func]>,
    config: Config,
    c: &mut Counts,
    examples: &mut Vec<String>,
    max_examples: usize,
) {
    let mssa = parse_mssa(&opt_output(file, &["-passes=print<memoryssa>"]));
    let aa = parse_aa(&opt_output(file, &["-passes=aa-eval", "-print-all-alias-modref-info", "-evaluate-aa-metadata"]));
    let ctx = Context::create();
    let module = parse_ir(&ctx, &file.display().to_string(), module_text.as_bytes()).expect("module parses");
    let mut cache = AnalysisCache::new();
    let mut rng = Rng::new(17);
    for fv in module.get_functions().filter(|f| f.count_basic_blocks() > 0) {
        let name = fv.get_name().to_string_lossy().into_owned();
        let m = &mssa[&name];
        let no_pairs = Aa::default();
        let aa = aa.get(&name).unwrap_or(&no_pairs);
        let fa = cache.get(fv);
        let pos: HashMap<_, usize> =
            fa.cfg.blocks().iter().flat_map(|&bb| instructions(bb)).enumerate().map(|(k, i)| (i.raw(), k)).collect();
        assert_eq!(pos.len(), m.insts.len(), "{name}: opt printed as many instructions as the module has");
        let own;
        let md = if config == Config::SOUND {
            fa.memdeps()
        } else {
            own = MemDeps::compute(&fa.cfg, fa.dom(), config);
            &own
        };
        let elem = |d: &Def| match d {
            Def::Entry => Some(None),
            Def::Access(a) => Some(Some(pos[&md.insts[*a as usize].raw()])),
            Def::Any => None,
        };
        let func = funcs.and_then(|fs| fs.iter().find(|f| f.name == name));
        let mut fewer = Vec::new();
        let mut sets = Sets::new();
        for (a, inst) in md.insts.iter().enumerate() {
            if inst.opcode() != LLVMOpcode::LLVMLoad {
                continue;
            }
            c.loads += 1;
            let k = pos[&inst.raw()];
            let ours: Option<HashSet<Elem>> = md.solution.use_defs[a].as_deref().unwrap_or(&[]).iter().map(elem).collect();
            let (Some(ours), Some(theirs)) = (ours, mssa_set(m, aa, k)) else {
                c.not_compared += 1;
                if examples.len() < max_examples {
                    examples.push(format!("{name}: `{}` not compared", m.insts[k]));
                }
                continue;
            };
            let show = |s: &HashSet<Elem>| {
                let mut v: Vec<String> = s.iter().map(|e| e.map_or("entry".into(), |k| m.insts[k].clone())).collect();
                v.sort();
                v
            };
            let only_theirs: HashSet<Elem> = theirs.difference(&ours).copied().collect();
            let only_ours: HashSet<Elem> = ours.difference(&theirs).copied().collect();
            let (what, extra) = if ours == theirs {
                c.equal += 1;
                continue_with(&mut sets, a, ours, theirs);
                continue;
            } else if ours.is_subset(&theirs) {
                c.simt_fewer += 1;
                fewer.push(a as u32);
                ("MemorySSA also has", &only_theirs)
            } else if theirs.is_subset(&ours) {
                c.mssa_fewer += 1;
                let selects: HashSet<&str> =
                    m.insts.iter().filter(|t| t.contains(" = select ")).filter_map(|t| t.split(' ').next()).collect();
                let through_select = |t: &str| t.split([' ', ',', '(', ')']).any(|w| selects.contains(w));
                if through_select(&m.insts[k]) || only_ours.iter().flatten().any(|&d| through_select(&m.insts[d])) {
                    c.mssa_fewer_select += 1;
                }
                ("simt also has", &only_ours)
            } else {
                c.neither += 1;
                ("neither is a subset; MemorySSA also has", &only_theirs)
            };
            if examples.len() < max_examples {
                examples.push(format!("{name}: `{}` {what} {:?}", m.insts[k], show(extra)));
            }
            continue_with(&mut sets, a, ours, theirs);
        }
        let Some(f) = func else { continue };
        let mut ran = HashSet::new();
        for _ in 0..RUNS {
            let args: [u64; N_ARGS] = std::array::from_fn(|_| rng.next());
            run(f, &args, &mut |r| {
                let Some((ours, theirs)) = sets.get(&r.access) else { return };
                let w = r.writer.map(|id| pos[&md.insts[id as usize].raw()]);
                c.mssa_reads += 1;
                if !theirs.contains(&w) && c.mssa_missing.is_empty() {
                    c.mssa_missing.push(format!(
                        "{name}: #{} read a byte of #{:?} (args {args:?})\n{}",
                        r.access + 1,
                        r.writer.map(|x| x + 1),
                        memdeps_gen::function_ir(f)
                    ));
                }
                if fewer.contains(&r.access) {
                    c.simt_fewer_reads += 1;
                    ran.insert(r.access);
                    if !ours.contains(&w) {
                        c.simt_unsound += 1;
                        if c.violations.len() < 5 {
                            c.violations.push(format!(
                                "{name}: #{} read a byte of #{:?} (args {args:?})\n{}",
                                r.access + 1,
                                r.writer.map(|x| x + 1),
                                memdeps_gen::function_ir(f)
                            ));
                        }
                    }
                }
            });
        }
        c.simt_fewer_run += ran.len();
    }
}

type Sets = HashMap<u32, (HashSet<Elem>, HashSet<Elem>)>;

fn continue_with(sets: &mut Sets, a: usize, ours: HashSet<Elem>, theirs: HashSet<Elem>) {
    sets.insert(a as u32, (ours, theirs));
}

fn report(what: &str, c: &Counts, examples: &[String]) {
    eprintln!(
        "{what}: {} loads, {} compared: simt fewer {}, equal {}, MemorySSA fewer {} ({} through a select), neither {}; {} not compared",
        c.loads,
        c.loads - c.not_compared,
        c.simt_fewer,
        c.equal,
        c.mssa_fewer,
        c.mssa_fewer_select,
        c.neither,
        c.not_compared
    );
    for e in examples {
        eprintln!("  {e}");
    }
}

/// Compares the loads of `modules` x 100 generated functions, with simt's
/// sets computed under `config`.
fn generated(modules: usize, config: Config, tag: &str, max_examples: usize) -> (Counts, Vec<String>) {
    let dir = std::env::temp_dir().join(format!("simt-memdeps-vs-mssa-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng::new(3);
    let (mut c, mut examples) = (Counts::default(), Vec::new());
    for m in 0..modules {
        let funcs: Vec<Func> = (0..PER_MODULE).map(|k| generate(&mut rng, &format!("f{m}_{k}"))).collect();
        let ir = module_ir(&funcs);
        let file = dir.join(format!("gen{m}.ll"));
        std::fs::write(&file, &ir).unwrap();
        compare(&file, &ir, Some(&funcs), config, &mut c, &mut examples, max_examples);
    }
    let _ = std::fs::remove_dir_all(&dir);
    (c, examples)
}

#[test]
fn generated_functions_simt_fewer_is_sound() {
    let max_examples = std::env::var("SIMT_MSSA_EXAMPLES").ok().and_then(|s| s.parse().ok()).unwrap_or(6);
    let (c, examples) = generated(GEN_MODULES, Config::SOUND, "sound", max_examples);
    report("generated", &c, &examples);
    eprintln!(
        "generated: {} of the 'simt fewer' loads ran, {} byte reads of them checked, {} writers missing from simt's set; {} byte reads checked against MemorySSA's set",
        c.simt_fewer_run,
        c.simt_fewer_reads,
        c.simt_unsound,
        c.mssa_reads
    );
    assert!(c.loads - c.not_compared > 1000, "most generated loads are compared: {c:?}");
    assert!(c.simt_fewer > 0 && c.simt_fewer_reads > 0, "the generator has loads where simt is more precise");
    assert!(c.simt_unsound == 0, "simt's smaller set misses a real writer:\n{}", c.violations.join("\n"));
    assert!(c.mssa_missing.is_empty(), "the MemorySSA walk misses a real writer:\n{}", c.mssa_missing.join("\n"));
}

/// The check above can fail: with kill sets united at joins (unsound, see
/// `memdeps_oracle.rs`) simt drops definitions, some "simt fewer" loads
/// are wrong, and the interpreter sees it.
#[test]
fn a_wrong_smaller_set_is_caught() {
    let broken = Config { kill_join: KillJoin::Union, ..Config::SOUND };
    let (c, _) = generated(3, broken, "broken", 0);
    eprintln!("united kill sets: {} 'simt fewer' loads, {} byte reads missing their writer", c.simt_fewer, c.simt_unsound);
    assert!(c.simt_unsound > 0, "a wrong 'simt fewer' set must be caught: {c:?}");
}

#[test]
fn corpus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test-ir/kernels");
    let mut files: Vec<_> =
        std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "ll")).collect();
    files.sort();
    let (mut c, mut examples) = (Counts::default(), Vec::new());
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        compare(f, &text, None, Config::SOUND, &mut c, &mut examples, usize::MAX);
    }
    report(&format!("corpus ({} modules)", files.len()), &c, &examples);
    assert!(c.loads > 50, "the corpus has loads: {c:?}");
}
