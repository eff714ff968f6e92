//! What a pass is: a small type with a name and a `run` over a module, and
//! the declaration through which it registers itself.
//!
//! The driver runs every pass the same way (verification, dumps, timing), so
//! passes implement none of that.
//!
//! Who may change what is in the types, after LLVM's new pass manager and
//! rustc's MIR body cache:
//! - a pass gets the module through [`PassContext`], which lends either the
//!   module mutably ([`PassContext::module_mut`]) or an analysis
//!   ([`PassContext::analyses`]), never both at once: an analysis borrowed
//!   from the cache must be dropped before the pass changes the module, so
//!   "plan from the analyses, drop them, then mutate" is the only shape that
//!   compiles. (LLVM handles are `Copy`, so a helper mutating through a
//!   handle is not caught; helpers that mutate take `&mut Module` to say so.)
//! - a pass returns what it kept valid, a [`Preserved`], instead of
//!   invalidating anything itself: it cannot reach the cache's invalidation.
//!   Only the driver drops analyses, from that answer; under
//!   `SIMT_VERIFY_ANALYSES=1` it then recomputes every analysis the pass
//!   claims preserved and compares, so a wrong claim is named.
//!
//! The shape of a pass (`transform/converge.rs` is a full one):
//!
//! ```text
//! impl ModulePass for MyPass {
//!     fn name(&self) -> String { "simt-my-pass".into() }
//!     fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
//!         let mut changed = false;
//!         for f in defined_functions(cx.module()) {
//!             let plan = Plan::new(cx.analyses(f));     // read the analyses, keep plain data
//!             changed |= plan.apply(cx.module_mut());   // the borrow above has ended
//!         }
//!         // No block or edge changed: the CFG analyses stay valid.
//!         Ok(if changed { Preserved::cfg_analyses() } else { Preserved::all() })
//!     }
//! }
//! ```
//!
//! A pass that adds, removes or reorders blocks or edges returns
//! [`Preserved::none`]; [`Preserved::of`] names exactly the analyses a change
//! cannot affect. The hidden `simt-testing-lie-preserved` (`<cfg>` for a CFG
//! change) shows what the check reports for a wrong claim.
//!
//! A pass declares itself in its own file by implementing [`DeclaredPass`]:
//! its pipeline name, a one-line summary, the seed it follows, its options and
//! how each is parsed (on top of `Default`, which gives the defaults). The
//! registry is a list of `PassDecl::of::<P>()`, one line per pass, and
//! `-print-passes`, error messages and the README's pass table (checked by a
//! test) all come from those declarations.

use crate::analysis::cache::{AnalysisCache, FunctionAnalyses};
use crate::remarks::{Arg, Remark, RemarkKind, RemarkSink};
// Beside the cache that reads them; re-exported here because every pass
// names them with the pass types.
pub use crate::analysis::preserved::{AnalysisKind, Preserved};
use inkwell::module::Module;
use inkwell::values::FunctionValue;
use std::io::Write;

/// A pass failed for a reason the user must hear (unsupported input, …).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PassError {
    #[error("unknown pass name '{name}'")]
    UnknownPass { name: String },
    #[error("pass '{pass}': {message}")]
    BadOption { pass: String, message: String },
    #[error("{pass}: {message}")]
    Unsupported { pass: String, message: String },
    #[error("{pass}: could not write output: {message}")]
    Output { pass: String, message: String },
}

/// What a pass may use. The fields are private so that each accessor's
/// borrow says what may happen meanwhile: an analysis from
/// [`analyses`](Self::analyses) holds the whole context, so the module cannot
/// be lent mutably until the analysis is dropped; and a pass cannot reach the
/// cache's invalidation at all.
pub struct PassContext<'a, 'ctx> {
    module: &'a mut Module<'ctx>,
    analyses: &'a mut AnalysisCache<'ctx>,
    out: &'a mut dyn Write,
    /// The running pass's name without options, and where its remarks go.
    remarks: Option<(String, &'a mut dyn RemarkSink)>,
}

impl<'a, 'ctx> PassContext<'a, 'ctx> {
    /// `out` is where printers and remarks go (stderr in `simt-opt`, like
    /// `opt`'s).
    pub fn new(module: &'a mut Module<'ctx>, analyses: &'a mut AnalysisCache<'ctx>, out: &'a mut dyn Write) -> Self {
        PassContext { module, analyses, out, remarks: None }
    }

    /// The same context with remarks of the pass `pass` (its name without
    /// options) going to `sink`.
    pub fn with_remarks(self, pass: &str, sink: &'a mut dyn RemarkSink) -> Self {
        PassContext { remarks: Some((pass.to_string(), sink)), ..self }
    }

    /// The module, to read.
    pub fn module(&self) -> &Module<'ctx> {
        self.module
    }

    /// The module, to change. No analysis can be held across this borrow.
    pub fn module_mut(&mut self) -> &mut Module<'ctx> {
        self.module
    }

    /// The analyses of `function`, computed on first use (and recomputed if
    /// its CFG changed since). The borrow ends before the module can change.
    pub fn analyses(&mut self, function: FunctionValue<'ctx>) -> &FunctionAnalyses<'ctx> {
        self.analyses.get(function)
    }

    /// Drops every cached analysis, for a pass that changed a function and
    /// reads it again: the cache's own check for a changed CFG can be
    /// fooled when freed blocks' addresses are reused.
    pub fn forget_analyses(&mut self) {
        self.analyses.clear();
    }

    /// The stream for printers and the passes' own reports.
    pub fn out(&mut self) -> &mut dyn Write {
        self.out
    }

    /// An optimisation remark about `function` ([`crate::remarks`]): `args`
    /// makes the message only when someone listens for `kind` from this pass,
    /// so a remark costs one check when remarks are off.
    pub fn remark(&mut self, kind: RemarkKind, name: &str, function: FunctionValue<'ctx>, args: impl FnOnce() -> Vec<Arg>) {
        let Some((pass, sink)) = &mut self.remarks else { return };
        if !sink.wants(kind, pass) {
            return;
        }
        let remark =
            Remark { kind, pass: pass.clone(), name: name.to_string(), function: crate::ir::function_name(function), args: args() };
        sink.emit(&remark);
    }
}

pub trait ModulePass {
    /// The name as written in a pipeline, options included.
    fn name(&self) -> String;
    /// Runs the pass; the answer names the analyses still valid afterwards.
    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError>;
}

/// One `key` or `key=value` from inside `<…>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opt {
    pub key: String,
    pub value: Option<String>,
}

/// What a pass says about itself, in its own file.
pub trait DeclaredPass: ModulePass + Default + 'static {
    /// The name in a pipeline, without options (`simt-converge`).
    const NAME: &'static str;
    /// One line for `-print-passes` and the README's table.
    const SUMMARY: &'static str;
    /// The seed document the pass follows (`"000"`), if any.
    const SEED: Option<&'static str> = None;
    /// How each option is written inside `<…>`, and what it means.
    const OPTIONS: &'static [(&'static str, &'static str)] = &[];
    /// Accepted in pipelines but not listed by `-print-passes` (testing
    /// hooks, and the steps of `simt-run`'s front ends).
    const HIDDEN: bool = false;

    /// Applies one option to a pass made by `Default`; the error says what is
    /// wrong with it (the caller names the pass).
    fn set_option(&mut self, key: &str, value: Option<&str>) -> Result<(), String> {
        let _ = value;
        Err(format!("takes no options, got '{key}'"))
    }
}

/// Builds a pass from the options written inside `<…>`.
pub type BuildPass = fn(&[Opt]) -> Result<Box<dyn ModulePass>, PassError>;

/// A registry entry: a declaration with the pass type erased.
pub struct PassDecl {
    pub name: &'static str,
    pub summary: &'static str,
    pub seed: Option<&'static str>,
    pub options: &'static [(&'static str, &'static str)],
    pub hidden: bool,
    pub build: BuildPass,
}

impl PassDecl {
    pub const fn of<P: DeclaredPass>() -> PassDecl {
        PassDecl { name: P::NAME, summary: P::SUMMARY, seed: P::SEED, options: P::OPTIONS, hidden: P::HIDDEN, build: build_declared::<P> }
    }
}

fn build_declared<P: DeclaredPass>(opts: &[Opt]) -> Result<Box<dyn ModulePass>, PassError> {
    let mut pass = P::default();
    for o in opts {
        pass.set_option(&o.key, o.value.as_deref()).map_err(|message| PassError::BadOption { pass: P::NAME.into(), message })?;
    }
    Ok(Box::new(pass))
}

/// The error for an option a pass does not know, listing the ones it does.
pub fn unknown_option<P: DeclaredPass>(key: &str) -> String {
    let expected: Vec<&str> = P::OPTIONS.iter().map(|(syntax, _)| *syntax).collect();
    format!("unknown or invalid option '{key}' (expected {})", expected.join(", "))
}

/// The value of a `local-size=X[,Y[,Z]]` option: one to three positive
/// decimal sizes separated by single commas, the missing ones 1. Anything
/// else is an error naming the text: skipping what does not parse turned
/// `abc,2` into 2 and `4,,8` into 4,8.
pub fn parse_local_size(value: Option<&str>) -> Result<[u64; 3], String> {
    let text = value.unwrap_or("");
    let bad = || format!("local-size takes 1 to 3 positive integers separated by commas (X[,Y[,Z]]), got '{text}'");
    let dims = text
        .split(',')
        .map(|d| if d.bytes().all(|b| b.is_ascii_digit()) { d.parse::<u64>().ok().filter(|&n| n > 0) } else { None })
        .collect::<Option<Vec<u64>>>()
        .ok_or_else(bad)?;
    if dims.is_empty() || dims.len() > 3 {
        return Err(bad());
    }
    // The work-group's size must be a number too (the kernels compute it).
    if dims.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d)).is_none() {
        return Err(format!("local-size '{text}': the work-group size overflows 64 bits"));
    }
    let mut size = [1u64; 3];
    size[..dims.len()].copy_from_slice(&dims);
    Ok(size)
}

#[cfg(test)]
mod tests {
    use super::parse_local_size;

    #[test]
    fn local_size_is_parsed_strictly() {
        assert_eq!(parse_local_size(Some("64")), Ok([64, 1, 1]));
        assert_eq!(parse_local_size(Some("8,4")), Ok([8, 4, 1]));
        assert_eq!(parse_local_size(Some("2,3,4")), Ok([2, 3, 4]));
        for bad in
            ["", "abc,2", "4,,8", "4,8,", ",4", "0", "4,0", "1,2,3,4", " 4", "4 ,8", "+4", "-4", "0x10", "4.0", "99999999999999999999"]
        {
            let e = parse_local_size(Some(bad)).unwrap_err();
            assert!(e.contains(&format!("got '{bad}'")), "{bad}: {e}");
        }
        assert!(parse_local_size(None).is_err());
        assert!(parse_local_size(Some("4294967296,4294967296")).unwrap_err().contains("overflows"));
    }
}
