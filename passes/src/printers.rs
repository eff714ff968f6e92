//! `print<simt-…>` passes: each analysis as text, so lit tests can check it
//! and compare it with LLVM's own printers on the same files.
//!
//! Output goes to the pass context's stream (stderr in `simt-opt`, as with
//! `opt`'s printers), one section per function with a body, blocks named as
//! `opt` names them.

use crate::analysis::cache::FunctionAnalyses;
use crate::analysis::control_deps::ControlEdge;
use crate::analysis::convergence::DivergenceFacts;
use crate::analysis::memdeps::{self, dataflow::State, model::Def, model::Ref, MemDeps};
use crate::analysis::predicates::{PredId, Predicates};
use crate::cfg::BlockId;
use crate::ir::{defined_functions, function_name, SlotNames};
use crate::kernel_model::is_kernel;
use crate::pass::{BuildPass, ModulePass, PassContext, PassDecl, PassError, Preserved};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Analysis {
    Cfg,
    DomTree,
    PostDomTree,
    Loops,
    ControlDeps,
    Uniformity,
    Convergence,
    Predicates,
    MemDepsPatent,
}

impl Analysis {
    fn name(self) -> &'static str {
        match self {
            Analysis::Cfg => "simt-cfg",
            Analysis::DomTree => "simt-domtree",
            Analysis::PostDomTree => "simt-postdomtree",
            Analysis::Loops => "simt-loops",
            Analysis::ControlDeps => "simt-ctrldeps",
            Analysis::Uniformity => "simt-uniformity",
            Analysis::Convergence => "simt-convergence",
            Analysis::Predicates => "simt-predicates",
            Analysis::MemDepsPatent => "simt-memdeps-patent",
        }
    }
}

/// The printers' registry entries, one per analysis.
pub const PRINTERS: &[PassDecl] = &[
    printer("print<simt-cfg>", "blocks in layout order with successors and reverse post-order", |_| built(Analysis::Cfg)),
    printer("print<simt-domtree>", "immediate dominators (Semi-NCA)", |_| built(Analysis::DomTree)),
    printer("print<simt-postdomtree>", "immediate post-dominators (virtual exit, infinite loops rooted)", |_| built(Analysis::PostDomTree)),
    printer("print<simt-loops>", "natural loops: nesting, latches, exiting and exit blocks; irreducible cycles", |_| {
        built(Analysis::Loops)
    }),
    printer("print<simt-ctrldeps>", "control dependences with edge labels", |_| built(Analysis::ControlDeps)),
    printer("print<simt-uniformity>", "divergent values, branches, join blocks and loops of SIMT kernels", |_| built(Analysis::Uniformity)),
    printer("print<simt-convergence>", "convergence markers of seed 000's queue walk, with reasons; all vs divergent-only counts", |_| {
        built(Analysis::Convergence)
    }),
    printer("print<simt-predicates>", "if-conversion predicates (seed 004, RK): ipdom, control dependences, R, K, Augment K", |_| {
        built(Analysis::Predicates)
    }),
    MEMDEPS_PRINTER,
    printer(
        "print<simt-memdeps-patent>",
        "seed 003's rules as the patent states them, with the state after every memory instruction",
        |_| built(Analysis::MemDepsPatent),
    ),
    MODSCHED_PRINTER,
];

const fn printer(name: &'static str, summary: &'static str, build: BuildPass) -> PassDecl {
    PassDecl { name, summary, seed: None, options: &[], hidden: false, build }
}

fn built(a: Analysis) -> Result<Box<dyn ModulePass>, PassError> {
    Ok(Box::new(Printer(a)))
}

pub struct Printer(pub Analysis);

impl ModulePass for Printer {
    fn name(&self) -> String {
        format!("print<{}>", self.0.name())
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        let mut text = String::new();
        for f in defined_functions(cx.module()) {
            let fa = cx.analyses(f);
            let names = SlotNames::new(f);
            let name = |b: BlockId| names.of_block(fa.cfg.block(b)).to_string();
            text += &format!("{} for function '{}':\n", self.0.name(), function_name(f));
            match self.0 {
                Analysis::Cfg => print_cfg(fa, &name, &mut text),
                Analysis::DomTree => print_domtree(fa, &name, &mut text),
                Analysis::PostDomTree => print_postdomtree(fa, &name, &mut text),
                Analysis::Loops => print_loops(fa, &name, &mut text),
                Analysis::ControlDeps => print_ctrldeps(fa, &name, &mut text),
                Analysis::Uniformity => print_uniformity(fa, &names, &name, &mut text),
                Analysis::Convergence => print_convergence(fa, &name, &mut text),
                Analysis::Predicates => print_predicates(fa, &name, &mut text),
                Analysis::MemDepsPatent => {
                    let md = MemDeps::compute(&fa.cfg, fa.dom(), memdeps::dataflow::Config::PATENT);
                    print_memdeps(&md, &name, false, &mut text)
                }
            }
        }
        cx.out().write_all(text.as_bytes()).map_err(|e| PassError::Output { pass: self.name(), message: e.to_string() })?;
        Ok(Preserved::all())
    }
}

fn join(blocks: impl IntoIterator<Item = BlockId>, name: &dyn Fn(BlockId) -> String) -> String {
    blocks.into_iter().map(name).collect::<Vec<_>>().join(", ")
}

fn print_cfg(fa: &FunctionAnalyses<'_>, name: &dyn Fn(BlockId) -> String, out: &mut String) {
    let cfg = &fa.cfg.cfg;
    for b in cfg.blocks() {
        let tag = if cfg.is_reachable(b) { "" } else { " (unreachable)" };
        out.push_str(&format!("  {} {}{} -> [{}]\n", b.0, name(b), tag, join(cfg.succs(b).iter().copied(), name)));
    }
    out.push_str(&format!("  rpo: {}\n", join(cfg.rpo().iter().copied(), name)));
}

fn print_domtree(fa: &FunctionAnalyses<'_>, name: &dyn Fn(BlockId) -> String, out: &mut String) {
    let dt = fa.dom();
    for b in fa.cfg.cfg.blocks() {
        let line = match dt.idom_block(b) {
            Some(d) => format!("  idom {} = {}\n", name(b), name(d)),
            None if dt.contains(b.0) => format!("  idom {} = <root>\n", name(b)),
            None => format!("  idom {} = <unreachable>\n", name(b)),
        };
        out.push_str(&line);
    }
}

fn print_postdomtree(fa: &FunctionAnalyses<'_>, name: &dyn Fn(BlockId) -> String, out: &mut String) {
    let pdt = fa.postdom();
    for b in fa.cfg.cfg.blocks() {
        match pdt.ipdom(b) {
            Some(d) => out.push_str(&format!("  ipdom {} = {}\n", name(b), name(d))),
            None => out.push_str(&format!("  ipdom {} = <exit>\n", name(b))),
        }
    }
    if !pdt.infinite_loop_roots().is_empty() {
        out.push_str(&format!("  infinite-loop roots: {}\n", join(pdt.infinite_loop_roots().iter().copied(), name)));
    }
}

/// The layout of LLVM's `print<loops>` (`Loop at depth N containing: %h<header>,…`),
/// with the header first and the other blocks in layout order, then our extras.
fn print_loops(fa: &FunctionAnalyses<'_>, name: &dyn Fn(BlockId) -> String, out: &mut String) {
    let li = fa.loops();
    let mut stack: Vec<_> = li.top_level().into_iter().rev().collect();
    while let Some(id) = stack.pop() {
        let l = li.get(id);
        let mut blocks = vec![l.header];
        blocks.extend(l.blocks.iter().copied().filter(|&b| b != l.header));
        let tagged: Vec<String> = blocks
            .iter()
            .map(|&b| {
                let mut s = name(b);
                if b == l.header {
                    s += "<header>";
                }
                if l.latches.contains(&b) {
                    s += "<latch>";
                }
                if l.exiting.contains(&b) {
                    s += "<exiting>";
                }
                s
            })
            .collect();
        let indent = "  ".repeat(l.depth as usize - 1);
        out.push_str(&format!("{indent}Loop at depth {} containing: {}\n", l.depth, tagged.join(",")));
        out.push_str(&format!("{indent}  exits: {}\n", join(l.exits.iter().copied(), name)));
        let mut children = l.children.clone();
        children.sort_by_key(|&c| li.get(c).header);
        stack.extend(children.into_iter().rev());
    }
    for c in li.irreducible_cycles() {
        out.push_str(&format!(
            "Irreducible cycle entered at {} containing: {}\n",
            join(c.entries.iter().copied(), name),
            join(c.blocks.iter().copied(), name)
        ));
    }
}

fn print_ctrldeps(fa: &FunctionAnalyses<'_>, name: &dyn Fn(BlockId) -> String, out: &mut String) {
    let cd = fa.control_deps();
    for b in fa.cfg.cfg.blocks() {
        let deps: Vec<String> =
            cd.of(b).iter().map(|e| format!("{} -> {} ({})", name(e.from), name(e.to), fa.cfg.edge_label(e.from, e.to))).collect();
        let deps = if deps.is_empty() { "<none>".to_string() } else { deps.join(", ") };
        out.push_str(&format!("  {}: {}\n", name(b), deps));
    }
}

/// Divergent instructions in the `  DIVERGENT:   <inst>` form of LLVM's
/// `print<uniformity>`, then the branches, joins and loops behind them.
fn print_uniformity(fa: &FunctionAnalyses<'_>, names: &SlotNames, name: &dyn Fn(BlockId) -> String, out: &mut String) {
    let u = fa.uniformity();
    let f = fa.cfg.function;
    out.push_str(if is_kernel(f) { "  kernel: arguments are uniform\n" } else { "  not a kernel: arguments are divergent\n" });
    for p in crate::ir::parameters(f) {
        if u.is_divergent(p) {
            out.push_str(&format!("  DIVERGENT ARGUMENT: {}\n", names.of_value(p.raw())));
        }
    }
    let text = crate::ir::InstructionText::new(f);
    for &bb in fa.cfg.blocks() {
        for inst in crate::ir::instructions(bb) {
            if u.is_divergent(inst) {
                out.push_str(&format!("  DIVERGENT:   {}\n", text.of(inst)));
            }
        }
    }
    out.push_str(&format!("  divergent branches: {}\n", join(u.divergent_branches().iter().copied(), name)));
    out.push_str(&format!("  join blocks: {}\n", join(u.join_blocks().iter().copied(), name)));
    out.push_str(&format!("  loops with divergent exit: {}\n", join(u.divergent_loop_headers().iter().copied(), name)));
}

/// Seed 000's markers: the walk's pop order, each marked block with its
/// layout index (the id `simt-converge` gives it) and reasons, then how many
/// markers `simt-converge` and `simt-converge<divergent-only>` place.
fn print_convergence(fa: &FunctionAnalyses<'_>, name: &dyn Fn(BlockId) -> String, out: &mut String) {
    let cfg = &fa.cfg.cfg;
    let li = fa.loops();
    let c = fa.convergence();
    let divergent = c.divergent_only(cfg, li, &DivergenceFacts::of(fa.uniformity()));
    out.push_str(&format!("  walk: {}\n", join(c.walk().iter().copied(), name)));
    for &b in c.marked() {
        out.push_str(&format!("  marker {} (block {}): {}\n", name(b), b.0, c.reasons(b).names().join(", ")));
    }
    out.push_str(&format!("  markers: {} all, {} divergent-only\n", c.marked().len(), divergent.len()));
    out.push_str(&format!("  divergent-only: {}\n", join(divergent.iter().copied(), name)));
}

/// Seed 004's four steps for the whole function, linearised in reverse
/// post-order: ipdom, control dependences with labels, R per block, K per
/// predicate, and Augment K's initialisations.
fn print_predicates(fa: &FunctionAnalyses<'_>, name: &dyn Fn(BlockId) -> String, out: &mut String) {
    let cfg = &fa.cfg.cfg;
    let pdt = fa.postdom();
    let cd = fa.control_deps();
    let preds = Predicates::compute(cfg, cd);
    let edge = |e: &ControlEdge| format!("[{}, {}, {}]", name(e.from), name(e.to), fa.cfg.edge_label(e.from, e.to));
    let edges = |es: &[ControlEdge]| if es.is_empty() { "<none>".to_string() } else { es.iter().map(edge).collect::<Vec<_>>().join(", ") };
    for b in cfg.blocks() {
        match pdt.ipdom(b) {
            Some(d) => out.push_str(&format!("  ipdom({}) = {}\n", name(b), name(d))),
            None => out.push_str(&format!("  ipdom({}) = <exit>\n", name(b))),
        }
    }
    for b in cfg.blocks() {
        out.push_str(&format!("  CD({}) = {}\n", name(b), edges(cd.of(b))));
    }
    for b in cfg.blocks() {
        match preds.try_r(b) {
            Some(PredId::TRUE) => out.push_str(&format!("  R({}) = {} (true)\n", name(b), PredId::TRUE)),
            Some(p) => out.push_str(&format!("  R({}) = {}\n", name(b), p)),
            None => out.push_str(&format!("  R({}) = <unreachable>\n", name(b))),
        }
    }
    for p in preds.predicates().skip(1) {
        out.push_str(&format!("  K({}) = {}\n", p, edges(preds.k(p))));
    }
    let init: Vec<String> = preds.init_false().iter().map(|p| format!("{p} = false")).collect();
    out.push_str(&format!("  augment K: {}\n", if init.is_empty() { "<none>".to_string() } else { init.join(", ") }));
}

fn def_name(d: &Def) -> String {
    match d {
        Def::Entry => "entry".into(),
        Def::Access(a) => format!("#{}", a + 1),
        Def::Any => "any".into(),
    }
}

fn defs_text<'a>(defs: impl IntoIterator<Item = &'a Def>) -> String {
    format!("{{{}}}", defs.into_iter().map(def_name).collect::<Vec<_>>().join(", "))
}

fn state_text(md: &MemDeps<'_>, st: &State) -> String {
    if st.is_empty() {
        return "<none>".into();
    }
    // By object, then by interval (an inexact descriptor spans its object).
    let mut sorted: Vec<_> = st.iter().collect();
    sorted.sort_by_key(|(d, _)| (md.program.descs[**d as usize].obj, md.program.span(**d)));
    let records: Vec<String> = sorted
        .into_iter()
        .map(|(d, r)| {
            let flag = if r.is_kill { " is_kill" } else { "" };
            format!("{} {} kill {}{flag}", md.program.desc_name(*d), defs_text(&r.defs), r.kill)
        })
        .collect();
    records.join("; ")
}

/// Seed 003: each memory instruction `#N` (layout order) with its must and
/// may descriptors and, for a use, the definitions that may reach it; then
/// def-use chains and the records at each block's exit (the patent printer
/// adds the state after every instruction).
/// `print<simt-memdeps>`, with options: `start=idom` starts the blocks as
/// seed 003's step 303 says (`dataflow::Start`), `bytes` adds each exact
/// use's definitions byte by byte (the sets `simt-memfwd` forwards from).
const MEMDEPS_PRINTER: PassDecl = PassDecl {
    name: "print<simt-memdeps>",
    summary: "memory-descriptor use-def/def-use chains and kill sets at block exits (seed 003, sound rules); \
              print<simt-memdeps<bytes;start=idom>> adds per-byte sets and starts blocks from their idom (step 303)",
    seed: None,
    options: &[],
    hidden: false,
    build: build_memdeps,
};

fn build_memdeps(opts: &[crate::pass::Opt]) -> Result<Box<dyn ModulePass>, PassError> {
    use memdeps::dataflow::Start;
    let bad = |message: String| PassError::BadOption { pass: "print<simt-memdeps>".into(), message };
    let mut printer = MemDepsPrinter { start: Start::Join, bytes: false };
    for o in opts {
        match (o.key.as_str(), o.value.as_deref()) {
            ("bytes", None) => printer.bytes = true,
            ("start", Some("join")) => printer.start = Start::Join,
            ("start", Some("idom")) => printer.start = Start::Idom,
            _ => return Err(bad(format!("unknown option '{}' (expected bytes, start=join or start=idom)", o.key))),
        }
    }
    Ok(Box::new(printer))
}

struct MemDepsPrinter {
    start: memdeps::dataflow::Start,
    bytes: bool,
}

impl ModulePass for MemDepsPrinter {
    fn name(&self) -> String {
        "print<simt-memdeps>".into()
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        use memdeps::dataflow::{Config, Start};
        let mut text = String::new();
        for f in defined_functions(cx.module()) {
            let fa = cx.analyses(f);
            let names = SlotNames::new(f);
            let name = |b: BlockId| names.of_block(fa.cfg.block(b)).to_string();
            text += &format!("simt-memdeps for function '{}':\n", function_name(f));
            let own;
            let md = match self.start {
                Start::Join => fa.memdeps(),
                Start::Idom => {
                    own = MemDeps::compute(&fa.cfg, fa.dom(), Config { start: Start::Idom, ..Config::SOUND });
                    &own
                }
            };
            print_memdeps(md, &name, self.bytes, &mut text);
        }
        cx.out().write_all(text.as_bytes()).map_err(|e| PassError::Output { pass: self.name(), message: e.to_string() })?;
        Ok(Preserved::all())
    }
}

fn print_memdeps(md: &MemDeps<'_>, name: &dyn Fn(BlockId) -> String, bytes: bool, out: &mut String) {
    let p = &md.program;
    let sol = &md.solution;
    let objects: Vec<String> = p
        .objects
        .iter()
        .map(|o| match o.size {
            Some(n) if n > 0 => format!("{} [0,{}]", o.name, n - 1),
            _ => format!("{} size unknown", o.name),
        })
        .collect();
    out.push_str(&format!("  objects: {}\n", objects.join(", ")));
    let describe = |r: &Ref| match r {
        Ref::Must(d) => {
            let may: Vec<String> = p.may_descs(*d).into_iter().map(|m| p.desc_name(m)).collect();
            let may = if may.is_empty() { String::new() } else { format!(" may {}", may.join(" ")) };
            format!("{}{may}", p.desc_name(*d))
        }
        Ref::May(objs) => {
            let names: Vec<&str> = objs.iter().map(|&o| p.objects[o as usize].name.as_str()).collect();
            format!("no must, may any of {}", names.join(" "))
        }
    };
    for (k, (a, inst)) in p.accesses.iter().zip(&md.insts).enumerate() {
        out.push_str(&format!("  #{} {}\n", k + 1, inst.value().print()));
        if let Some(u) = &a.use_ {
            let defs = sol.use_defs[k].as_ref().map_or("<unreachable>".to_string(), defs_text);
            out.push_str(&format!("     use {} <- {defs}\n", describe(u)));
            if let Some(runs) = sol.use_bytes[k].as_ref().filter(|_| bytes) {
                let runs: Vec<String> = runs.iter().map(|((lo, hi), d)| format!("[{lo},{hi}] {}", defs_text(d))).collect();
                out.push_str(&format!("     bytes: {}\n", runs.join("; ")));
            }
        }
        if let Some(d) = &a.def {
            let kind = if a.predicated { "def (predicated)" } else { "def" };
            out.push_str(&format!("     {kind} {}\n", describe(d)));
        }
        if let Some(st) = &sol.after[k] {
            out.push_str(&format!("     state: {}\n", state_text(md, st)));
        }
    }
    for (k, uses) in sol.def_uses().iter().enumerate() {
        if p.accesses[k].def.is_some() {
            let uses: Vec<String> = uses.iter().map(|u| format!("#{}", u + 1)).collect();
            out.push_str(&format!("  def-use #{} -> {{{}}}\n", k + 1, uses.join(", ")));
        }
    }
    for (b, st) in sol.block_out.iter().enumerate() {
        if let Some(st) = st {
            out.push_str(&format!("  exit {}: {}\n", name(BlockId(b as u32)), state_text(md, st)));
        }
    }
}

// ---------------------------------------------------------------- modsched

/// `print<simt-modsched<machine=NAME>>` (seed 002): per innermost loop, the
/// modulo schedule and its bundling by the patent's cyclic micro-scheduler
/// and by ORC's linear baseline, one summary line each, then the kernel.
const MODSCHED_PRINTER: PassDecl = PassDecl {
    name: "print<simt-modsched>",
    summary: "modulo schedule of single-block innermost loops (II, MII, stages) and its bundles, cyclic vs linear bundler; \
              print<simt-modsched<machine=NAME>> picks a model of passes/machines (itanium2 by default, hexagon) or a .toml path",
    seed: Some("002"),
    // The option is in the summary: -print-passes lists options of passes only.
    options: &[],
    hidden: false,
    build: build_modsched,
};

fn build_modsched(opts: &[crate::pass::Opt]) -> Result<Box<dyn ModulePass>, PassError> {
    let bad = |message: String| PassError::BadOption { pass: "print<simt-modsched>".into(), message };
    let mut machine = "itanium2".to_string();
    for o in opts {
        match (o.key.as_str(), &o.value) {
            ("machine", Some(v)) => machine = v.clone(),
            _ => return Err(bad(format!("unknown option '{}' (expected machine=NAME)", o.key))),
        }
    }
    let m = crate::sched::machine::Machine::load(&machine).map_err(|e| bad(e.to_string()))?;
    let a = crate::sched::automaton::Automaton::new(&m);
    Ok(Box::new(ModSchedPrinter { m, a }))
}

struct ModSchedPrinter {
    m: crate::sched::machine::Machine,
    a: crate::sched::automaton::Automaton,
}

impl ModulePass for ModSchedPrinter {
    fn name(&self) -> String {
        format!("print<simt-modsched<machine={}>>", self.m.name)
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        use crate::sched::bundle::Bundler;
        use crate::sched::kernel::Kernel;
        let mut text = String::new();
        for f in defined_functions(cx.module()) {
            let fa = cx.analyses(f);
            let names = SlotNames::new(f);
            text += &format!("simt-modsched for function '{}' (machine {}):\n", function_name(f), self.m.name);
            for lg in crate::analysis::loop_ddg::innermost_loop_graphs(fa, &names, &self.m) {
                let header = names.of_block(fa.cfg.block(lg.header)).to_string();
                let g = match lg.graph {
                    Ok(g) => g,
                    Err(why) => {
                        text += &format!("loop {header}: not scheduled: {why}\n");
                        continue;
                    }
                };
                for b in [Bundler::Cyclic, Bundler::Linear] {
                    let k = Kernel::build(&self.m, &self.a, &g, b)
                        .map_err(|e| PassError::Unsupported { pass: self.name(), message: format!("loop {header}: {e}") })?;
                    let bad = crate::sched::check::check_schedule(&self.m, &g, &k.schedule);
                    if let Some(v) = bad.first() {
                        return Err(PassError::Unsupported { pass: self.name(), message: format!("loop {header}: internal error: {v}") });
                    }
                    text += &format!("loop {header}: {}\n", k.summary(&self.m));
                    text += &k.listing(&self.m, &g, "  ");
                }
            }
        }
        cx.out().write_all(text.as_bytes()).map_err(|e| PassError::Output { pass: self.name(), message: e.to_string() })?;
        Ok(Preserved::all())
    }
}
