//! `simt-converge`: convergence markers in the IR, at the blocks the queue
//! walk of seed 000 (ARM CN106257412A) picks (`analysis/convergence.rs`:
//! joins, loop exits, blocks queued behind an earlier path).
//!
//! How: a call `void @simt.converge(i32 block_id)` at the start of each
//! picked block, after the phis and any exception-handling pad (claim 9:
//! "immediately before the block, or anywhere the executor can tell which
//! block it belongs to"); `block_id` is the block's layout index when the
//! pass ran (0 = entry). At a marker the executor re-decides which threads
//! run together (claims 14-15). The callee is `convergent nounwind willreturn
//! memory(inaccessiblemem: readwrite)`: `default<O2>` keeps every call and
//! still optimises loads and stores around it (what O2 does to markers:
//! `passes/DESIGN.md`).
//!
//! ```text
//!   figure 3 of the patent after simt-converge (ids = layout index):
//!   entry: br bb0
//!   bb0:   call @simt.converge(i32 1)   ; loop header, leaves the loop to bb5
//!          br %c0, bb1, bb5
//!   bb1:   br %c1, bb2, bb3             ; one way in, runs first: no marker
//!   bb2:   br bb4
//!   bb3:   call @simt.converge(i32 4)   ; queued behind bb2, leaves the loop
//!          br %c3, bb4, bb5
//!   bb4:   call @simt.converge(i32 5)   ; bb2 and bb3 meet
//!          br bb0
//!   bb5:   call @simt.converge(i32 6)   ; bb0 and bb3 meet
//!          ret
//! ```
//!
//! Options: `divergent-only`: only the markers where threads can be apart
//! (the uniformity analysis, `Convergence::divergent_only`). `intrinsics`:
//! the same markers with LLVM's convergence control tokens: a root
//! (`convergence.entry`, or an `anchor` in a non-convergent function), a
//! `convergence.loop` heart per natural loop, each marker the token of its
//! innermost loop, an `anchor` inside irreducible cycles; every other
//! convergent call gets a bundle by the same rule, as LLVM rejects mixed
//! functions (the rules in full: `passes/DESIGN.md`).
//!
//! Idempotent (a marked block gets no second marker; tokens already there
//! stay, new markers taking a fresh `anchor`); `simt-strip-markers` undoes
//! it. Limits: blocks starting with a `catchswitch` get no marker; in
//! `intrinsics` mode a function with a convergent `callbr` gets plain
//! markers, with a warning (the C API cannot rebuild a `callbr` with a
//! bundle); LLVM 22's `llc -O0` aborts on `convergence.loop`, so strip the
//! markers before lowering, and verify (`-verify-each`) when the token form
//! goes through LLVM's pipelines.

use crate::analysis::cache::FunctionAnalyses;
use crate::analysis::convergence::DivergenceFacts;
use crate::cfg::BlockId;
use crate::ir::{defined_functions, function_name, has_fn_attribute, instructions, CallBuilder, Inst, Value};
use crate::pass::{ModulePass, PassContext, PassError, Preserved};
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::basic_block::BasicBlock;
use inkwell::intrinsics::Intrinsic;
use inkwell::module::Module;
use inkwell::values::FunctionValue;
use llvm_sys::LLVMOpcode;
use std::collections::HashMap;

/// The marker function's name; its type is `void (i32)`.
pub const MARKER: &str = "simt.converge";
/// The operand bundle tag of convergence control.
pub const BUNDLE: &str = "convergencectrl";
/// Name prefix of the convergence control intrinsics.
pub const INTRINSIC_PREFIX: &str = "llvm.experimental.convergence.";

#[derive(Clone, Debug, Default)]
pub struct Converge {
    pub divergent_only: bool,
    pub intrinsics: bool,
}

const NAME: &str = "simt-converge";

impl ModulePass for Converge {
    fn name(&self) -> String {
        let opts: Vec<&str> =
            [(self.divergent_only, "divergent-only"), (self.intrinsics, "intrinsics")].iter().filter(|o| o.0).map(|o| o.1).collect();
        if opts.is_empty() {
            NAME.into()
        } else {
            format!("{NAME}<{}>", opts.join(";"))
        }
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        let mut changed = false;
        for f in defined_functions(cx.module()) {
            // The plan is taken from the analyses before the IR changes.
            let plan = Plan::new(cx.analyses(f), self.divergent_only);
            if plan.marks.is_empty() {
                continue;
            }
            let outcome = apply(cx.module_mut(), f, &plan, self.intrinsics)
                .map_err(|message| PassError::Unsupported { pass: NAME.into(), message })?;
            if let Some(w) = outcome.warning {
                let _ = writeln!(cx.out(), "{NAME}: warning: function '{}': {w}", function_name(f));
            }
            changed |= outcome.changed;
        }
        Ok(if changed { Preserved::cfg_analyses() } else { Preserved::all() })
    }
}

/// The marked blocks of one function and the loop nest the tokens follow,
/// taken from the analyses before the IR changes.
struct Plan<'ctx> {
    blocks: Vec<BasicBlock<'ctx>>,
    marks: Vec<BlockId>,
    /// Natural loops: header and parent (indices into this list).
    loops: Vec<(BlockId, Option<usize>)>,
    /// Innermost natural loop of each block.
    innermost: Vec<Option<usize>>,
    /// Whether a loop may have a heart: neither its header nor an enclosing
    /// loop's header lies in an irreducible cycle.
    heart_ok: Vec<bool>,
    /// Whether each block lies in an irreducible cycle.
    irreducible: Vec<bool>,
}

impl<'ctx> Plan<'ctx> {
    fn new(fa: &FunctionAnalyses<'ctx>, divergent_only: bool) -> Plan<'ctx> {
        let cfg = &fa.cfg.cfg;
        let li = fa.loops();
        let conv = fa.convergence();
        let marks =
            if divergent_only { conv.divergent_only(cfg, li, &DivergenceFacts::of(fa.uniformity())) } else { conv.marked().to_vec() };
        let mut irreducible = vec![false; cfg.len()];
        for c in li.irreducible_cycles() {
            for b in &c.blocks {
                irreducible[b.index()] = true;
            }
        }
        let loops: Vec<(BlockId, Option<usize>)> = li.loops().map(|(_, l)| (l.header, l.parent.map(|p| p.0 as usize))).collect();
        let heart_ok = (0..loops.len())
            .map(|mut i| loop {
                if irreducible[loops[i].0.index()] {
                    break false;
                }
                match loops[i].1 {
                    Some(p) => i = p,
                    None => break true,
                }
            })
            .collect();
        let innermost = cfg.blocks().map(|b| li.innermost(b).map(|l| l.0 as usize)).collect();
        let blocks = fa.cfg.blocks().to_vec();
        Plan { blocks, marks, loops, innermost, heart_ok, irreducible }
    }

    fn token_of(&self, b: BlockId) -> Token {
        if self.irreducible[b.index()] {
            return Token::Anchor;
        }
        match self.innermost[b.index()] {
            None => Token::Root,
            Some(l) if self.heart_ok[l] => Token::Heart(l),
            Some(_) => Token::Anchor,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Token {
    Root,
    Heart(usize),
    /// A fresh anchor just before the user.
    Anchor,
}

struct Outcome {
    changed: bool,
    warning: Option<String>,
}

fn apply<'ctx>(module: &mut Module<'ctx>, f: FunctionValue<'ctx>, plan: &Plan<'ctx>, intrinsics: bool) -> Result<Outcome, String> {
    let marker = marker_function(module)?;
    let controlled = uses_convergence_control(f);
    let mut warning = None;
    let mut use_tokens = intrinsics && !controlled;
    let users = if use_tokens { convergent_calls(f) } else { Vec::new() };
    if users.iter().any(|c| c.is_callbr()) {
        warning = Some("a convergent callbr cannot carry a convergencectrl bundle; plain markers used".to_string());
        use_tokens = false;
    }
    let marked: Vec<(BlockId, BasicBlock<'ctx>)> = plan
        .marks
        .iter()
        .map(|&b| (b, plan.blocks[b.index()]))
        .filter(|&(_, bb)| !has_marker(bb, marker) && insertion_point(bb).is_some())
        .collect();
    if marked.is_empty() && users.is_empty() {
        return Ok(Outcome { changed: false, warning });
    }
    let mut builder = CallBuilder::new(Value::from(f));

    if !use_tokens {
        for &(b, bb) in &marked {
            builder.position_before(first_after_tokens(bb));
            let token = if controlled { Some(build_intrinsic(module, &mut builder, "anchor", None, "simt.anchor")) } else { None };
            build_marker(module, &mut builder, marker, b.0, token);
        }
        return Ok(Outcome { changed: !marked.is_empty(), warning });
    }

    // Which tokens are needed: each user's, and each needed heart's parent.
    let index: HashMap<BasicBlock<'ctx>, BlockId> = plan.blocks.iter().enumerate().map(|(i, &bb)| (bb, BlockId(i as u32))).collect();
    let mut needed = vec![false; plan.loops.len()];
    let mut need_root = false;
    let user_tokens: Vec<Token> = users.iter().map(|c| plan.token_of(index[&c.block()])).collect();
    for t in marked.iter().map(|&(b, _)| plan.token_of(b)).chain(user_tokens.iter().copied()) {
        match t {
            Token::Root => need_root = true,
            Token::Heart(mut l) => loop {
                needed[l] = true;
                match plan.loops[l].1 {
                    Some(p) => l = p,
                    None => {
                        need_root = true;
                        break;
                    }
                }
            },
            Token::Anchor => {}
        }
    }
    let root = if need_root {
        let entry = f.get_first_basic_block().expect("a defined function has an entry block");
        builder.position_before(entry.get_first_instruction().expect("the entry block is not empty").into());
        let convergent = has_fn_attribute(f, "convergent");
        Some(if convergent {
            build_intrinsic(module, &mut builder, "entry", None, "simt.entry")
        } else {
            build_intrinsic(module, &mut builder, "anchor", None, "simt.root")
        })
    } else {
        None
    };
    // Hearts, outer loops first (a parent's header dominates its children's).
    let mut hearts: Vec<Option<Value<'ctx>>> = vec![None; plan.loops.len()];
    let mut order: Vec<usize> = (0..plan.loops.len()).filter(|&l| needed[l]).collect();
    order.sort_by_key(|&l| depth(plan, l));
    for l in order {
        let header = plan.blocks[plan.loops[l].0.index()];
        let parent = match plan.loops[l].1 {
            Some(p) => hearts[p].expect("outer heart built first"),
            None => root.expect("root built"),
        };
        builder.position_before(insertion_point(header).ok_or("loop header without an insertion point")?);
        hearts[l] = Some(build_intrinsic(module, &mut builder, "loop", Some(parent), "simt.loop"));
    }
    let token_value = |t: Token, builder: &mut CallBuilder<'ctx>| match t {
        Token::Root => root.expect("root built"),
        Token::Heart(l) => hearts[l].expect("heart built"),
        Token::Anchor => build_intrinsic(module, builder, "anchor", None, "simt.anchor"),
    };
    for &(b, bb) in &marked {
        // After the heart, if this block is a header (the heart must come first).
        builder.position_before(first_after_tokens(bb));
        let t = token_value(plan.token_of(b), &mut builder);
        build_marker(module, &mut builder, marker, b.0, Some(t));
    }
    for (&call, &t) in users.iter().zip(&user_tokens) {
        builder.position_before(call);
        let token = token_value(t, &mut builder);
        builder.rebuild_call(call, &|_| true, &[(BUNDLE, &[token])])?;
    }
    Ok(Outcome { changed: true, warning })
}

fn depth(plan: &Plan<'_>, mut l: usize) -> usize {
    let mut d = 0;
    while let Some(p) = plan.loops[l].1 {
        d += 1;
        l = p;
    }
    d
}

/// `@simt.converge`, declared with its attributes if the module lacks it.
fn marker_function<'ctx>(module: &Module<'ctx>) -> Result<FunctionValue<'ctx>, String> {
    let ctx = module.get_context();
    let fty = ctx.void_type().fn_type(&[ctx.i32_type().into()], false);
    if let Some(existing) = module.get_function(MARKER) {
        if existing.get_type() != fty {
            return Err(format!("@{MARKER} already exists with another type (expected void (i32))"));
        }
        return Ok(existing);
    }
    let f = module.add_function(MARKER, fty, None);
    for (attr, value) in [("convergent", 0u64), ("nounwind", 0), ("willreturn", 0), ("memory", INACCESSIBLE_MEM_READWRITE)] {
        f.add_attribute(AttributeLoc::Function, ctx.create_enum_attribute(Attribute::get_named_enum_kind_id(attr), value));
    }
    Ok(f)
}

/// `memory(inaccessiblemem: readwrite)`: LLVM's MemoryEffects keep two bits
/// (ModRef) per location, `InaccessibleMem` being location 1.
const INACCESSIBLE_MEM_READWRITE: u64 = 3 << 2;

fn build_marker<'ctx>(
    module: &Module<'ctx>,
    builder: &mut CallBuilder<'ctx>,
    marker: FunctionValue<'ctx>,
    id: u32,
    token: Option<Value<'ctx>>,
) -> Inst<'ctx> {
    let id = Value::from_basic(module.get_context().i32_type().const_int(id as u64, false));
    match token {
        None => builder.call(marker, &[id], &[], ""),
        Some(t) => builder.call(marker, &[id], &[(BUNDLE, &[t])], ""),
    }
}

/// `call token @llvm.experimental.convergence.KIND() [convergencectrl(parent)]`.
/// Built by the IR layer's call builder: inkwell panics on calls returning `token`.
fn build_intrinsic<'ctx>(
    module: &Module<'ctx>,
    builder: &mut CallBuilder<'ctx>,
    kind: &str,
    parent: Option<Value<'ctx>>,
    name: &str,
) -> Value<'ctx> {
    let full = format!("{INTRINSIC_PREFIX}{kind}");
    let decl = Intrinsic::find(&full)
        .unwrap_or_else(|| panic!("LLVM knows {full}"))
        .get_declaration(module, &[])
        .unwrap_or_else(|| panic!("{full} is not overloaded"));
    let call = match parent {
        None => builder.call(decl, &[], &[], name),
        Some(p) => builder.call(decl, &[], &[(BUNDLE, &[p])], name),
    };
    call.value()
}

/// Where a marker goes: after the phis and any exception-handling pad; `None`
/// for blocks that can hold nothing else (`catchswitch`).
fn insertion_point(bb: BasicBlock<'_>) -> Option<Inst<'_>> {
    let i = instructions(bb).find(|i| {
        !matches!(i.opcode(), LLVMOpcode::LLVMPHI | LLVMOpcode::LLVMLandingPad | LLVMOpcode::LLVMCatchPad | LLVMOpcode::LLVMCleanupPad)
    })?;
    (i.opcode() != LLVMOpcode::LLVMCatchSwitch).then_some(i)
}

/// The insertion point, past convergence tokens already placed there.
fn first_after_tokens(bb: BasicBlock<'_>) -> Inst<'_> {
    let mut i = insertion_point(bb).expect("checked");
    while is_convergence_intrinsic(i) {
        i = i.next().expect("a call is not a terminator");
    }
    i
}

fn has_marker<'ctx>(bb: BasicBlock<'ctx>, marker: FunctionValue<'ctx>) -> bool {
    instructions(bb).any(|i| i.is_call() && i.called_value() == Some(Value::from(marker)))
}

pub(crate) fn is_convergence_intrinsic(i: Inst<'_>) -> bool {
    i.is_call() && i.called_function_name().is_some_and(|n| n.starts_with(INTRINSIC_PREFIX))
}

/// Whether a call site is convergent (its own attribute or its callee's).
pub(crate) fn is_convergent_call(i: Inst<'_>) -> bool {
    if !i.is_call_site() {
        return false;
    }
    i.has_call_site_fn_attribute("convergent") || i.called_function().is_some_and(|f| has_fn_attribute(f, "convergent"))
}

/// The tags of a call's or invoke's operand bundles (none for anything else).
pub(crate) fn bundle_tags(call: Inst<'_>) -> Vec<String> {
    if call.is_call() || call.is_invoke() {
        call.bundle_tags()
    } else {
        Vec::new()
    }
}

/// Every instruction of `f`, in layout order.
pub(crate) fn function_instructions(f: FunctionValue<'_>) -> Vec<Inst<'_>> {
    f.get_basic_block_iter().flat_map(instructions).collect()
}

/// Whether the function already uses convergence control tokens.
fn uses_convergence_control(f: FunctionValue<'_>) -> bool {
    function_instructions(f).into_iter().any(|i| is_convergence_intrinsic(i) || bundle_tags(i).iter().any(|t| t == BUNDLE))
}

/// The convergent calls that must carry a token once the function is
/// controlled: all but the convergence intrinsics, markers of an earlier plain
/// run included.
fn convergent_calls(f: FunctionValue<'_>) -> Vec<Inst<'_>> {
    function_instructions(f).into_iter().filter(|&i| is_convergent_call(i) && !is_convergence_intrinsic(i)).collect()
}

impl crate::pass::DeclaredPass for Converge {
    const NAME: &'static str = "simt-converge";
    const SUMMARY: &'static str = "calls to @simt.converge(i32 block) where threads should reconverge (joins, loop exits)";
    const SEED: Option<&'static str> = Some("000");
    const OPTIONS: &'static [(&'static str, &'static str)] = &[
        ("divergent-only", "only where divergent branches' paths meet and at exits of loops with divergent exits"),
        ("intrinsics", "give markers llvm.experimental.convergence entry/loop/anchor tokens"),
    ];

    fn set_option(&mut self, key: &str, value: Option<&str>) -> Result<(), String> {
        match (key, value) {
            ("divergent-only", None) => self.divergent_only = true,
            ("intrinsics", None) => self.intrinsics = true,
            _ => return Err(crate::pass::unknown_option::<Self>(key)),
        }
        Ok(())
    }
}
