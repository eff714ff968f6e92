//! What a pass is: a small type with a name and a `run` over a module, and
//! the declaration through which it registers itself.
//!
//! The driver runs every pass the same way (verification, dumps, timing), so
//! passes implement none of that. A pass says what it changed; the driver uses
//! that to drop analyses that may have gone stale.
//!
//! A pass declares itself in its own file by implementing [`DeclaredPass`]:
//! its pipeline name, a one-line summary, the seed it follows, its options and
//! how each is parsed (on top of `Default`, which gives the defaults). The
//! registry is a list of `PassDecl::of::<P>()`, one line per pass, and
//! `-print-passes`, error messages and the README's pass table (checked by a
//! test) all come from those declarations.

use crate::analysis::cache::AnalysisCache;
use inkwell::module::Module;
use std::io::Write;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Changed {
    /// Nothing: every analysis stays valid.
    Nothing,
    /// Instructions, not the CFG.
    Instructions,
    /// Blocks or edges.
    Cfg,
}

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

pub struct PassContext<'a, 'ctx> {
    pub module: &'a Module<'ctx>,
    pub analyses: &'a mut AnalysisCache<'ctx>,
    /// Where printers and remarks go (stderr in `simt-opt`, like `opt`'s).
    pub out: &'a mut dyn Write,
}

pub trait ModulePass {
    /// The name as written in a pipeline, options included.
    fn name(&self) -> String;
    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Changed, PassError>;
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
    /// Testing hooks are accepted in pipelines but not listed.
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
