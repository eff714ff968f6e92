//! Fault injection for the driver's own tests, hidden from `-print-passes`:
//! - [`BreakModule`] leaves a broken module, so tests can check that
//!   `simt-opt` names the pass that broke it and never writes the broken
//!   output;
//! - [`LiePreserved`] changes an instruction (or, with `<cfg>`, the CFG) and
//!   claims every analysis preserved, so tests can check that
//!   `SIMT_VERIFY_ANALYSES=1` / `-verify-analyses` names it;
//! - [`Panic`] panics, so tests can check that a host that cannot take an
//!   unwinding Rust panic (the LLVM pass plugin) reports it as an error.

use crate::ir::{defined_functions, instructions, Builder, Inst};
use crate::pass::{ModulePass, PassContext, PassError, Preserved};
use llvm_sys::LLVMOpcode;

/// A kernel whose `%x` is uniform until [`LiePreserved`] makes it read
/// `%tid` (and says nothing changed): the input of the tests that check the
/// analysis cache's verification, in the driver and in this crate.
pub const LIAR_INPUT: &str = r#"
target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @k(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %x = add i32 %n, 1
  store i32 %x, ptr addrspace(1) %out
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
"#;

#[derive(Default)]
pub struct BreakModule;

impl ModulePass for BreakModule {
    fn name(&self) -> String {
        "simt-testing-break-module".into()
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        let Some(f) = defined_functions(cx.module()).into_iter().next() else {
            return Ok(Preserved::all());
        };
        let entry = f.get_first_basic_block().expect("defined function has blocks");
        if let Some(term) = crate::ir::terminator(entry) {
            term.erase();
        }
        Ok(Preserved::none())
    }
}

impl crate::pass::DeclaredPass for BreakModule {
    const NAME: &'static str = "simt-testing-break-module";
    const SUMMARY: &'static str = "testing hook: removes the first function's entry terminator";
    const HIDDEN: bool = true;
}

/// Panics: a bug in a pass, as the pass plugin must report it.
#[derive(Default)]
pub struct Panic;

impl ModulePass for Panic {
    fn name(&self) -> String {
        "simt-testing-panic".into()
    }

    fn run(&self, _cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        panic!("simt-testing-panic: deliberate panic")
    }
}

impl crate::pass::DeclaredPass for Panic {
    const NAME: &'static str = "simt-testing-panic";
    const SUMMARY: &'static str = "testing hook: panics";
    const HIDDEN: bool = true;
}

/// Makes the first uniform `add` of the first function that has one use a
/// divergent value of its type as first operand, and says nothing changed:
/// its cached uniformity is then stale. With `<cfg>` it instead moves the
/// first `ret` into a block of its own (a new block and edge), and still says
/// nothing changed: every cached analysis of that function is then stale.
#[derive(Default)]
pub struct LiePreserved {
    cfg: bool,
}

impl ModulePass for LiePreserved {
    fn name(&self) -> String {
        if self.cfg {
            "simt-testing-lie-preserved<cfg>".into()
        } else {
            "simt-testing-lie-preserved".into()
        }
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        if self.cfg {
            split_first_return(cx);
            return Ok(Preserved::all());
        }
        let mut rewrite = None;
        for f in defined_functions(cx.module()) {
            let u = cx.analyses(f).uniformity();
            let insts: Vec<Inst<'_>> = f.get_basic_block_iter().flat_map(instructions).collect();
            let divergent = |i: &&Inst<'_>| !i.is_void() && u.is_divergent(i.value());
            let Some(&source) = insts.iter().find(divergent) else { continue };
            let target = insts
                .iter()
                .copied()
                .find(|i| i.opcode() == LLVMOpcode::LLVMAdd && !u.is_divergent(i.value()) && i.operand(0).ty() == source.ty());
            if let Some(target) = target {
                rewrite = Some((target, source));
                break;
            }
        }
        // The analysis borrow ended with the loop: now the module may change.
        if let Some((target, source)) = rewrite {
            target.set_operand(0, source.value());
        }
        Ok(Preserved::all())
    }
}

impl crate::pass::DeclaredPass for LiePreserved {
    const NAME: &'static str = "simt-testing-lie-preserved";
    const SUMMARY: &'static str = "testing hook: makes a uniform add divergent (or splits a block) and claims every analysis preserved";
    const OPTIONS: &'static [(&'static str, &'static str)] = &[("cfg", "split the block of the first `ret` instead (changes the CFG)")];
    const HIDDEN: bool = true;

    fn set_option(&mut self, key: &str, value: Option<&str>) -> Result<(), String> {
        match (key, value) {
            ("cfg", None) => self.cfg = true,
            _ => return Err(crate::pass::unknown_option::<Self>(key)),
        }
        Ok(())
    }
}

/// `b: …; ret` becomes `b: …; br b.ret` and `b.ret: ret`: a `ret` has no
/// successors, so no phi needs its incoming block changed.
fn split_first_return(cx: &mut PassContext<'_, '_>) {
    let ret = defined_functions(cx.module())
        .into_iter()
        .flat_map(|f| f.get_basic_block_iter())
        .filter_map(crate::ir::terminator)
        .find(|t| t.opcode() == LLVMOpcode::LLVMRet);
    let Some(ret) = ret else { return };
    let block = ret.block();
    let context = cx.module_mut().get_context();
    let tail = context.insert_basic_block_after(block, "lie.ret");
    ret.move_to_end(tail);
    let mut b = Builder::new(ret.value());
    b.position_at_end(block);
    b.br(tail);
}
