//! Fault injection for the driver's own tests: a pass that leaves a broken
//! module, so tests can check that `simt-opt` names the pass that broke it and
//! never writes the broken output. Hidden from `-print-passes`.

use crate::pass::{Changed, ModulePass, PassContext, PassError};

#[derive(Default)]
pub struct BreakModule;

impl ModulePass for BreakModule {
    fn name(&self) -> String {
        "simt-testing-break-module".into()
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Changed, PassError> {
        let Some(f) = crate::ir::defined_functions(cx.module).into_iter().next() else {
            return Ok(Changed::Nothing);
        };
        let entry = f.get_first_basic_block().expect("defined function has blocks");
        if let Some(term) = crate::ir::terminator(entry) {
            term.erase();
        }
        Ok(Changed::Cfg)
    }
}

impl crate::pass::DeclaredPass for BreakModule {
    const NAME: &'static str = "simt-testing-break-module";
    const SUMMARY: &'static str = "testing hook: removes the first function's entry terminator";
    const HIDDEN: bool = true;
}
