//! simt's pass manager: pipelines where our passes and LLVM's mix freely,
//! shared by `simt-opt`, the engines' front ends and the LLVM pass plugin.
//!
//! `-passes='simt-converge,instcombine,default<O2>'` is split at top-level
//! commas into elements; consecutive LLVM elements form one run handed to
//! LLVM's pass builder (`LLVMRunPasses`), our elements run through the
//! registry. The whole pipeline is checked before anything runs, as `opt`
//! does: our names against the registry, LLVM's runs by building them on an
//! empty module.
//!
//! Every one of our passes is followed by the verifier, so a pass that breaks
//! the module is named; LLVM's runs verify after each pass with `-verify-each`.
//!
//! The driver alone invalidates analyses: each of our passes returns what it
//! preserved ([`Preserved`]) and the driver drops the rest of the cache; after
//! a run of LLVM's passes, which say nothing, the whole cache goes. With
//! `SIMT_VERIFY_ANALYSES=1` every analysis the pass claims preserved is then
//! recomputed and compared, so a wrong claim names its pass.
//!
//! Inside someone else's pipeline (the plugin in `opt`), [`run_by_name`] runs
//! one element the same way.
//!
//! Our passes' optimisation remarks go to the sink in
//! [`RunOptions::remarks`] ([`crate::remarks`]), each pass's context knowing
//! its name; with none, a pass's remark costs it one check.

use crate::analysis::cache::AnalysisCache;
use crate::analysis::preserved::Preserved;
use crate::pass::{ModulePass, PassContext, PassError};
use crate::registry;
use crate::remarks::RemarkSink;
use inkwell::module::Module;
use inkwell::targets::TargetMachine;
use std::cell::RefCell;
use std::io::Write;
use std::time::{Duration, Instant};

/// Why a pipeline could not be built or run. The tools turn each into their
/// own error, with exit code 2 for [`PipelineError::Invalid`]; the messages
/// here carry no `error:` prefix (the plugin's go through LLVM's diagnostics,
/// which add one).
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// The pipeline text itself is malformed (a usage mistake).
    #[error("{0}")]
    Invalid(String),
    /// One of our passes is unknown, was given a bad option, or failed.
    #[error("{0}")]
    Pass(#[from] PassError),
    #[error("broken module after pass '{pass}':\n{message}")]
    BrokenAfter { pass: String, message: String },
    /// `SIMT_VERIFY_ANALYSES`: a pass changed what a cached analysis
    /// describes without saying so.
    #[error("after pass '{pass}': {message} (the pass under-reported what it changed)")]
    StaleAnalysis { pass: String, message: String },
    /// LLVM's pass builder refused or failed a run of its passes.
    #[error("{0}")]
    Llvm(String),
}

pub enum Step {
    Ours(Box<dyn ModulePass>),
    /// A comma-separated run of LLVM pipeline elements.
    Llvm(String),
}

impl Step {
    pub fn name(&self) -> String {
        match self {
            Step::Ours(p) => p.name(),
            Step::Llvm(t) => t.clone(),
        }
    }
}

/// Brackets nest at most this deep in a pipeline. LLVM's pipeline parser
/// recurses once per level, and some 3,000 levels overflowed the stack
/// (SIGABRT, exit 134); real pipelines nest a few levels.
pub const MAX_PIPELINE_DEPTH: i32 = 256;

/// Splits `text` at commas outside `(…)` and `<…>`.
pub fn split_top_level(text: &str) -> Result<Vec<String>, PipelineError> {
    let mut out = Vec::new();
    let mut depth: i32 = 0;
    let mut cur = String::new();
    for (i, c) in text.chars().enumerate() {
        match c {
            '(' | '<' => depth += 1,
            ')' | '>' => depth -= 1,
            _ => {}
        }
        if depth > MAX_PIPELINE_DEPTH {
            // The text itself would be thousands of characters.
            return Err(PipelineError::Invalid(format!(
                "error: invalid pipeline: brackets nested more than {MAX_PIPELINE_DEPTH} deep (at character {})",
                i + 1
            )));
        }
        if depth < 0 {
            return Err(PipelineError::Invalid(format!("invalid pipeline '{text}': unbalanced '{c}'")));
        }
        if c == ',' && depth == 0 {
            out.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
    }
    if depth != 0 {
        return Err(PipelineError::Invalid(format!("invalid pipeline '{text}': unbalanced brackets")));
    }
    out.push(cur);
    let out: Vec<String> = out.into_iter().map(|s| s.trim().to_string()).collect();
    if out.iter().any(String::is_empty) {
        return Err(PipelineError::Invalid(format!("invalid pipeline '{text}': empty pass name")));
    }
    Ok(out)
}

/// Parses and checks a pipeline; `tm` lets LLVM build target-specific passes.
pub fn parse(text: &str, tm: Option<&TargetMachine>) -> Result<Vec<Step>, PipelineError> {
    let mut steps: Vec<Step> = Vec::new();
    for element in split_top_level(text)? {
        if registry::is_ours(&element) {
            steps.push(Step::Ours(registry::build(&element)?));
            continue;
        }
        if let Some(pos) = element.find("simt-") {
            let nested = element[pos..].split([',', ')', '>']).next().unwrap_or("");
            return Err(PipelineError::Invalid(format!("'{nested}' runs on whole modules and cannot be nested inside '{element}'")));
        }
        match steps.last_mut() {
            Some(Step::Llvm(run)) => {
                run.push(',');
                run.push_str(&element);
            }
            _ => steps.push(Step::Llvm(element)),
        }
    }
    for step in &mut steps {
        if let Step::Llvm(run) = step {
            if let Err(e) = check_llvm_pipeline(run, tm) {
                // LLVM infers a pipeline's kind from its first element, so
                // `instcombine,default<O2>` is a function pipeline that cannot
                // hold a module one (`opt` rejects it too). Nested in
                // `module(…)`, each element is adapted to the module level.
                let nested = format!("module({run})");
                if split_top_level(run)?.len() < 2 || check_llvm_pipeline(&nested, tm).is_err() {
                    return Err(e);
                }
                *run = nested;
            }
        }
    }
    Ok(steps)
}

/// Builds (and runs) `run` on an empty module, so a misspelt LLVM pass is
/// reported before any pass touches the real one.
fn check_llvm_pipeline(run: &str, tm: Option<&TargetMachine>) -> Result<(), PipelineError> {
    let ctx = inkwell::context::Context::create();
    let probe = ctx.create_module("pipeline-check");
    crate::ir::run_pipeline(&probe, run, tm, false, false).map_err(|message| match message.strip_prefix("unknown pass name '") {
        Some(rest) => PipelineError::from(PassError::UnknownPass { name: rest.trim_end_matches('\'').to_string() }),
        None => PipelineError::Llvm(format!("invalid LLVM pipeline '{run}': {message}")),
    })
}

pub struct RunOptions {
    pub verify_each: bool,
    /// Recompute every analysis a pass claims preserved after each of our
    /// passes and compare it with the cached one. The default comes from
    /// `SIMT_VERIFY_ANALYSES=1` ([`verify_analyses_from_env`]).
    pub verify_analyses: bool,
    pub print_after_all: bool,
    /// Our pass names after which to print the module (LLVM's are handed to
    /// LLVM's `-print-after`).
    pub print_after: Vec<String>,
    /// `-debug-pass-manager`: a `Running pass: NAME on [module]` line before
    /// each of our passes (to the run's `diag`), and LLVM's own lines for
    /// its passes (on stderr), as `opt` prints them.
    pub debug_pass_manager: bool,
    /// Where our passes' optimisation remarks go (`-pass-remarks` and
    /// friends, [`crate::remarks`]); `None` costs the passes nothing.
    /// LLVM's passes report theirs through LLVM's own options.
    pub remarks: Option<RefCell<Box<dyn RemarkSink>>>,
}

/// The environment variable that turns on [`RunOptions::verify_analyses`]
/// for every pipeline of a process (the test suite sets it).
pub const VERIFY_ANALYSES_ENV: &str = "SIMT_VERIFY_ANALYSES";

/// Whether the environment asks for [`RunOptions::verify_analyses`]. Read
/// where options are made, not in [`run`], so a caller that sets the field
/// gets what it asked for.
pub fn verify_analyses_from_env() -> bool {
    std::env::var_os(VERIFY_ANALYSES_ENV).is_some_and(|v| v == "1")
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions { verify_analyses: verify_analyses_from_env(), ..RunOptions::quiet() }
    }
}

impl RunOptions {
    /// Every check and dump off, whatever the environment says.
    pub fn quiet() -> Self {
        RunOptions {
            verify_each: false,
            verify_analyses: false,
            print_after_all: false,
            print_after: Vec::new(),
            debug_pass_manager: false,
            remarks: None,
        }
    }
}

/// How long each step took, for `-time-passes`.
pub struct Timing {
    pub name: String,
    pub wall: Duration,
}

/// Runs `steps` on `module`, with a cache of analyses that ends with it.
pub fn run<'ctx>(
    module: &mut Module<'ctx>,
    steps: &[Step],
    tm: Option<&TargetMachine>,
    opts: &RunOptions,
    diag: &mut dyn Write,
) -> Result<Vec<Timing>, PipelineError> {
    run_with_analyses(module, steps, tm, opts, diag, &mut AnalysisCache::new())
}

/// [`run`] with the caller's cache, which holds afterwards what the last of
/// our passes kept valid (nothing after LLVM's): a caller that needs
/// analyses of the result (the emulator's decoder) asks the same cache, so
/// nothing is computed twice.
pub fn run_with_analyses<'ctx>(
    module: &mut Module<'ctx>,
    steps: &[Step],
    tm: Option<&TargetMachine>,
    opts: &RunOptions,
    diag: &mut dyn Write,
    analyses: &mut AnalysisCache<'ctx>,
) -> Result<Vec<Timing>, PipelineError> {
    let mut timings = Vec::new();
    for step in steps {
        let start = Instant::now();
        match step {
            Step::Ours(pass) => {
                // What it kept has been applied to the cache already.
                let _kept = run_ours(module, pass.as_ref(), opts, diag, analyses)?;
                timings.push(Timing { name: pass.name(), wall: start.elapsed() });
            }
            Step::Llvm(run) => {
                crate::ir::run_pipeline(module, run, tm, opts.verify_each, opts.debug_pass_manager).map_err(PipelineError::Llvm)?;
                analyses.clear();
                timings.push(Timing { name: run.clone(), wall: start.elapsed() });
            }
        }
    }
    Ok(timings)
}

/// One of our passes as a step: run, invalidate what it did not preserve,
/// verify the module (and, when asked, the analyses it claims preserved),
/// print it when asked. The answer is the pass's claim.
fn run_ours<'ctx>(
    module: &mut Module<'ctx>,
    pass: &dyn ModulePass,
    opts: &RunOptions,
    diag: &mut dyn Write,
    analyses: &mut AnalysisCache<'ctx>,
) -> Result<Preserved, PipelineError> {
    if opts.debug_pass_manager {
        let _ = writeln!(diag, "Running pass: {} on [module]", pass.name());
    }
    let bare = pass.name().split('<').next().unwrap_or_default().to_string();
    let mut sink = opts.remarks.as_ref().map(RefCell::borrow_mut);
    let mut cx = PassContext::new(module, analyses, diag);
    if let Some(sink) = sink.as_deref_mut() {
        cx = cx.with_remarks(&bare, sink.as_mut());
    }
    let preserved: Preserved = pass.run(&mut cx)?;
    drop(sink);
    analyses.invalidate(preserved);
    if let Err(message) = crate::ir::verify(module) {
        return Err(PipelineError::BrokenAfter { pass: pass.name(), message });
    }
    if opts.verify_analyses {
        analyses.verify(module, preserved).map_err(|message| PipelineError::StaleAnalysis { pass: pass.name(), message })?;
    }
    if opts.print_after_all || opts.print_after.iter().any(|p| *p == pass.name() || *p == bare) {
        let _ = write!(diag, "; *** IR Dump After {} on [module] ***\n{}", pass.name(), module.print_to_string().to_string_lossy());
    }
    Ok(preserved)
}

/// Runs the pass an element names on `module` alone, as one pass of someone
/// else's pipeline (LLVM's, when simt is loaded as a pass plugin): a fresh
/// analysis cache, then the same checks as every step of [`run`], with
/// `verify_analyses` the check that the pass kept what it claims. Printers
/// write to `out`. The answer is whether the module may have changed.
pub fn run_by_name(module: &mut Module<'_>, element: &str, verify_analyses: bool, out: &mut dyn Write) -> Result<bool, PipelineError> {
    run_by_name_with_remarks(module, element, verify_analyses, out, None)
}

/// [`run_by_name`] with the pass's remarks going to `remarks`.
pub fn run_by_name_with_remarks(
    module: &mut Module<'_>,
    element: &str,
    verify_analyses: bool,
    out: &mut dyn Write,
    remarks: Option<Box<dyn RemarkSink>>,
) -> Result<bool, PipelineError> {
    let pass = registry::build(element)?;
    let opts = RunOptions { verify_analyses, remarks: remarks.map(RefCell::new), ..RunOptions::quiet() };
    let preserved = run_ours(module, pass.as_ref(), &opts, out, &mut AnalysisCache::new())?;
    Ok(!preserved.is_all())
}

/// A `-time-passes` report in the layout of LLVM's timer reports.
pub fn timing_report(tool: &str, timings: &[Timing]) -> String {
    let total: Duration = timings.iter().map(|t| t.wall).sum();
    let rule = "===-------------------------------------------------------------------------===";
    let mut s = format!("{rule}\n{:^79}\n{rule}\n", format!("{tool} pipeline timing report"));
    s += &format!("  Total Execution Time: {:.4} seconds (wall clock)\n\n   ---Wall Time---  --- Name ---\n", total.as_secs_f64());
    for t in timings {
        let pct = if total.is_zero() { 0.0 } else { 100.0 * t.wall.as_secs_f64() / total.as_secs_f64() };
        s += &format!("   {:.4} ({:5.1}%)  {}\n", t.wall.as_secs_f64(), pct, t.name);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_at_top_level_commas_only() {
        let parts = split_top_level("simt-x<a;b>, function(instcombine,dce) ,default<O2>").unwrap();
        assert_eq!(parts, vec!["simt-x<a;b>", "function(instcombine,dce)", "default<O2>"]);
        assert!(split_top_level("function(dce").is_err());
        assert!(split_top_level("dce,,dce").is_err());
        let nested = |n: usize, open: &str, close: &str| format!("{}dce{}", open.repeat(n), close.repeat(n));
        assert_eq!(split_top_level(&nested(256, "function(", ")")).unwrap().len(), 1);
        for (open, close) in [("function(", ")"), ("(", ")"), ("x<", ">")] {
            let e = split_top_level(&nested(3000, open, close)).err().unwrap().to_string();
            assert!(e.starts_with("error: invalid pipeline: brackets nested more than 256 deep (at character"), "{e}");
        }
    }

    #[test]
    fn runs_of_llvm_passes_are_grouped() {
        let steps = parse("instcombine,dce,print<simt-domtree>,sroa", None).unwrap();
        let names: Vec<String> = steps.iter().map(Step::name).collect();
        assert_eq!(names, vec!["instcombine,dce", "print<simt-domtree>", "sroa"]);
        assert!(matches!(parse("instcombyne", None), Err(PipelineError::Pass(PassError::UnknownPass { .. }))));
        // A function pass then a module pipeline: nested in module(…).
        let steps = parse("print<simt-uniformity>,instcombine,default<O2>", None).unwrap();
        assert_eq!(steps.iter().map(Step::name).collect::<Vec<_>>(), vec!["print<simt-uniformity>", "module(instcombine,default<O2>)"]);
        assert!(parse("instcombine,instcombyne", None).is_err());
        assert!(matches!(parse("function(print<simt-domtree>)", None), Err(PipelineError::Invalid(_))));
    }

    use crate::transform::testing::LIAR_INPUT;

    fn run_text(pipeline: &str, verify_analyses: bool) -> Result<String, PipelineError> {
        let ctx = inkwell::context::Context::create();
        let mut m = crate::ir::parse_ir(&ctx, "liar.ll", LIAR_INPUT.as_bytes()).unwrap();
        let steps = parse(pipeline, None).unwrap();
        let opts = RunOptions { verify_analyses, ..RunOptions::default() };
        run(&mut m, &steps, None, &opts, &mut std::io::sink())?;
        Ok(m.print_to_string().to_string())
    }

    #[test]
    fn verify_analyses_catches_a_pass_that_claims_too_much() {
        // Without the check the lie goes unnoticed: the module verifies.
        let out = run_text("print<simt-uniformity>,simt-testing-lie-preserved", false).unwrap();
        assert!(out.contains("add i32 %tid, 1"), "the lying pass changed the add:\n{out}");
        // With it, the driver names the pass and the stale analysis.
        match run_text("print<simt-uniformity>,simt-testing-lie-preserved", true) {
            Err(PipelineError::StaleAnalysis { pass, message }) => {
                assert_eq!(pass, "simt-testing-lie-preserved");
                assert!(message.contains("uniformity") && message.contains("'k'"), "{message}");
            }
            other => panic!("expected a stale uniformity, got {other:?}"),
        }
        // An honest pass passes the same check.
        run_text("print<simt-uniformity>,simt-check-uniformity", true).unwrap();
    }

    #[test]
    fn verify_analyses_catches_a_cfg_change_claimed_preserved() {
        let lie = "print<simt-convergence>,simt-testing-lie-preserved<cfg>";
        // Without the check: the new block is there and the module verifies
        // (the cache's own CFG check would recompute before serving it).
        let out = run_text(lie, false).unwrap();
        assert!(
            out.contains("br label %lie.ret") && out.contains("lie.ret:"),
            "the lying pass split no block:
{out}"
        );
        match run_text(lie, true) {
            Err(PipelineError::StaleAnalysis { pass, message }) => {
                assert_eq!(pass, "simt-testing-lie-preserved<cfg>");
                // The printer cached the convergence points and the loops they are made from.
                assert!(message.contains("'k'") && message.contains("CFG changed"), "{message}");
                assert!(message.contains("convergence points") && message.contains("loop info"), "{message}");
            }
            other => panic!("expected a stale CFG analysis, got {other:?}"),
        }
        // Nothing cached, nothing stale: the same lie with no analysis computed passes.
        run_text("simt-testing-lie-preserved<cfg>", true).unwrap();
    }

    #[test]
    fn run_by_name_answers_changed_and_errors() {
        let ctx = inkwell::context::Context::create();
        let run_checked = |pipeline: &str, verify_analyses: bool| {
            let mut m = crate::ir::parse_ir(&ctx, "liar.ll", crate::transform::testing::LIAR_INPUT.as_bytes()).unwrap();
            let mut out = Vec::new();
            let r = run_by_name(&mut m, pipeline, verify_analyses, &mut out).map_err(|e| e.to_string());
            (r, String::from_utf8(out).unwrap())
        };
        let run = |pipeline: &str| run_checked(pipeline, true);
        let (r, out) = run("print<simt-domtree>");
        assert_eq!(r, Ok(false));
        assert!(out.contains("'k'"), "{out}");
        // "Changed" is the pass's own claim: the lying pass claims nothing
        // changed. It reads uniformity itself, so even a fresh cache holds
        // the analysis it leaves stale, and the check names it.
        assert_eq!(run_checked("simt-testing-lie-preserved", false).0, Ok(false));
        assert_eq!(run("simt-wiloops<local-size=4>").0, Ok(true));
        let e = run("simt-testing-lie-preserved").0.unwrap_err();
        assert!(e.contains("uniformity of function 'k' is stale") && e.contains("under-reported"), "{e}");
        let e = run("simt-testing-break-module").0.unwrap_err();
        assert!(e.starts_with("broken module after pass 'simt-testing-break-module':\n"), "{e}");
        assert!(run("simt-wiloops<local-size=0>").0.unwrap_err().contains("local-size"));
    }
}
