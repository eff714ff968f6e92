//! `simt-converge`: convergence markers in the IR, at the blocks the queue
//! walk of seed 000 (ARM CN106257412A) picks (`analysis/convergence.rs`:
//! joins, loop exits, blocks queued behind an earlier path).
//!
//! A marker is a call at the start of its block, after the phis (and after an
//! exception-handling pad), which claim 9 allows: "immediately before the
//! block, or anywhere the executor can tell which block it belongs to":
//!
//! ```llvm
//! bb4:
//!   %i = phi i32 ...
//!   call void @simt.converge(i32 5)          ; 5 = bb4's layout index
//! declare void @simt.converge(i32) #0
//! attributes #0 = { convergent nounwind willreturn memory(inaccessiblemem: readwrite) }
//! ```
//!
//! The ABI an executor looks for: `void @simt.converge(i32 block_id)`, where
//! `block_id` is the block's position in the function's layout when the pass
//! ran (0 = entry). At a marker the executor re-decides which threads run
//! together (claims 14-15: the group whose next instruction is earliest in PC
//! order). The attributes keep the call through `default<O2>`/`<O3>`: it may
//! write memory no IR can see, so it is never dead; `convergent` keeps it from
//! being moved into or out of control flow; it touches no IR-visible memory, so
//! loads and stores still optimise around it. Consequences, seen in
//! `test-ir/converge/survive-o2.ll`: such code may move across a marker, so after
//! optimisation a marker need not be first in its block; a duplicated block
//! has two calls with one id; and the branches around marked blocks are kept
//! (loop rotation, if-conversion into `select` leave them alone), which is
//! the price of the markers and a reason for `divergent-only`.
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
//! Options:
//!
//! - `divergent-only`: only the markers where threads can actually be apart,
//!   using the uniformity analysis (see `Convergence::divergent_only`).
//! - `intrinsics`: the same markers expressed with LLVM's convergence control
//!   (`docs/ConvergentOperations.rst`), which says which threads each marker
//!   gathers. The function's root token is `llvm.experimental.convergence.entry`
//!   (an `anchor` at the top of the entry block when the function is not
//!   `convergent`, since only convergent functions may hold `entry`); each
//!   natural loop gets a heart, `convergence.loop` at the top of its header with
//!   the enclosing loop's token; a marker takes the token of its innermost
//!   loop (the threads of that iteration reconverge there) or the root. Blocks
//!   in an irreducible cycle cannot name an outer token (the verifier rejects
//!   that inside a cycle without a heart, and an irreducible cycle has none):
//!   their markers take an `anchor` placed just before them. Every other
//!   convergent call of the function (barriers, shuffles, plain markers of an
//!   earlier run) gets a `convergencectrl` bundle by the same rule, because
//!   LLVM rejects functions that mix controlled and uncontrolled convergent
//!   calls. Only hearts and roots that something uses are emitted. LLVM 22's
//!   limits: `llc -O0` aborts on `convergence.loop` and x86's `-O0`
//!   instruction selection crashes on the tokens, so run `simt-strip-markers`
//!   before lowering; `default<O2>` kept the tokens valid on every test here
//!   (inlining a convergent helper included) but is known to move
//!   `convergence.entry` out of the entry block in some cases, so verify
//!   (`-verify-each`) when this form goes through LLVM's pipelines.
//!
//! Functions that already use convergence control tokens (from a frontend, or
//! an earlier `intrinsics` run) keep their tokens; their new markers each take
//! a fresh `anchor`, in both modes, since a plain marker would make the
//! function mixed. A block that already holds a marker gets none, so the pass
//! is idempotent. Limitations: blocks starting with a `catchswitch` get no
//! marker; in `intrinsics` mode, a function with a convergent `callbr` gets
//! plain markers (with a warning), as the C API cannot rebuild a `callbr` with
//! a bundle. `simt-strip-markers` removes all of it.

use crate::analysis::cache::FunctionAnalyses;
use crate::analysis::convergence::{Convergence, DivergenceFacts};
use crate::cfg::BlockId;
use crate::ir::{called_function_name, defined_functions, function_name};
use crate::pass::{Changed, ModulePass, PassContext, PassError};
use inkwell::values::{AsValueRef, FunctionValue};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
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

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Changed, PassError> {
        let module = cx.module.as_mut_ptr();
        let mut changed = false;
        for f in defined_functions(cx.module) {
            let plan = Plan::new(cx.analyses.get(f), self.divergent_only);
            if plan.marks.is_empty() {
                continue;
            }
            let outcome = unsafe { apply(module, f, &plan, self.intrinsics) }
                .map_err(|message| PassError::Unsupported { pass: NAME.into(), message })?;
            if let Some(w) = outcome.warning {
                let _ = writeln!(cx.out, "{NAME}: warning: function '{}': {w}", function_name(f));
            }
            changed |= outcome.changed;
        }
        Ok(if changed { Changed::Instructions } else { Changed::Nothing })
    }
}

/// The marked blocks of one function and the loop nest the tokens follow,
/// taken from the analyses before the IR changes.
struct Plan {
    blocks: Vec<LLVMBasicBlockRef>,
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

impl Plan {
    fn new(fa: &FunctionAnalyses<'_>, divergent_only: bool) -> Plan {
        let cfg = &fa.cfg.cfg;
        let li = fa.loops();
        let conv = Convergence::compute(cfg, li);
        let marks = if divergent_only {
            conv.divergent_only(cfg, li, &DivergenceFacts::of(fa.uniformity()))
        } else {
            conv.marked().to_vec()
        };
        let mut irreducible = vec![false; cfg.len()];
        for c in li.irreducible_cycles() {
            for b in &c.blocks {
                irreducible[b.index()] = true;
            }
        }
        let loops: Vec<(BlockId, Option<usize>)> =
            li.loops().map(|(_, l)| (l.header, l.parent.map(|p| p.0 as usize))).collect();
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
        let blocks = fa.cfg.blocks().iter().map(|b| b.as_mut_ptr()).collect();
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

unsafe fn apply(module: LLVMModuleRef, f: FunctionValue<'_>, plan: &Plan, intrinsics: bool) -> Result<Outcome, String> {
    let fv = f.as_value_ref();
    let ctx = LLVMGetModuleContext(module);
    let marker = marker_function(module)?;
    let controlled = uses_convergence_control(fv);
    let mut warning = None;
    let mut use_tokens = intrinsics && !controlled;
    let users = if use_tokens { convergent_calls(fv) } else { Vec::new() };
    if users.iter().any(|&c| !LLVMIsACallBrInst(c).is_null()) {
        warning = Some("a convergent callbr cannot carry a convergencectrl bundle; plain markers used".to_string());
        use_tokens = false;
    }
    let marked: Vec<(BlockId, LLVMBasicBlockRef)> = plan
        .marks
        .iter()
        .map(|&b| (b, plan.blocks[b.index()]))
        .filter(|&(_, bb)| !has_marker(bb, marker) && insertion_point(bb).is_some())
        .collect();
    if marked.is_empty() && users.is_empty() {
        return Ok(Outcome { changed: false, warning });
    }
    let builder = LLVMCreateBuilderInContext(ctx);

    if !use_tokens {
        for &(b, bb) in &marked {
            LLVMPositionBuilderBefore(builder, first_after_tokens(bb));
            let token = if controlled { Some(build_intrinsic(module, builder, "anchor", None, "simt.anchor")) } else { None };
            build_marker(module, builder, marker, b.0, token);
        }
        LLVMDisposeBuilder(builder);
        return Ok(Outcome { changed: !marked.is_empty(), warning });
    }

    // Which tokens are needed: each user's, and each needed heart's parent.
    let index: HashMap<LLVMBasicBlockRef, BlockId> =
        plan.blocks.iter().enumerate().map(|(i, &bb)| (bb, BlockId(i as u32))).collect();
    let mut needed = vec![false; plan.loops.len()];
    let mut need_root = false;
    let user_tokens: Vec<Token> = users.iter().map(|&c| plan.token_of(index[&LLVMGetInstructionParent(c)])).collect();
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
    let entry = LLVMGetEntryBasicBlock(fv);
    let root = if need_root {
        LLVMPositionBuilderBefore(builder, LLVMGetFirstInstruction(entry));
        let convergent = has_fn_attr(fv, "convergent");
        Some(if convergent {
            build_intrinsic(module, builder, "entry", None, "simt.entry")
        } else {
            build_intrinsic(module, builder, "anchor", None, "simt.root")
        })
    } else {
        None
    };
    // Hearts, outer loops first (a parent's header dominates its children's).
    let mut hearts: Vec<Option<LLVMValueRef>> = vec![None; plan.loops.len()];
    let mut order: Vec<usize> = (0..plan.loops.len()).filter(|&l| needed[l]).collect();
    order.sort_by_key(|&l| depth(plan, l));
    for l in order {
        let header = plan.blocks[plan.loops[l].0.index()];
        let parent = match plan.loops[l].1 {
            Some(p) => hearts[p].expect("outer heart built first"),
            None => root.expect("root built"),
        };
        LLVMPositionBuilderBefore(builder, insertion_point(header).ok_or("loop header without an insertion point")?);
        hearts[l] = Some(build_intrinsic(module, builder, "loop", Some(parent), "simt.loop"));
    }
    let token_value = |t: Token, builder: LLVMBuilderRef| match t {
        Token::Root => root.expect("root built"),
        Token::Heart(l) => hearts[l].expect("heart built"),
        Token::Anchor => build_intrinsic(module, builder, "anchor", None, "simt.anchor"),
    };
    for &(b, bb) in &marked {
        // After the heart, if this block is a header (the heart must come first).
        LLVMPositionBuilderBefore(builder, first_after_tokens(bb));
        let t = token_value(plan.token_of(b), builder);
        build_marker(module, builder, marker, b.0, Some(t));
    }
    for (&call, &t) in users.iter().zip(&user_tokens) {
        LLVMPositionBuilderBefore(builder, call);
        let token = token_value(t, builder);
        rebuild_call(builder, call, &|_| true, Some(token))?;
    }
    LLVMDisposeBuilder(builder);
    Ok(Outcome { changed: true, warning })
}

fn depth(plan: &Plan, mut l: usize) -> usize {
    let mut d = 0;
    while let Some(p) = plan.loops[l].1 {
        d += 1;
        l = p;
    }
    d
}

/// `@simt.converge`, declared with its attributes if the module lacks it.
unsafe fn marker_function(module: LLVMModuleRef) -> Result<LLVMValueRef, String> {
    let ctx = LLVMGetModuleContext(module);
    let void = LLVMVoidTypeInContext(ctx);
    let mut params = [LLVMInt32TypeInContext(ctx)];
    let fty = LLVMFunctionType(void, params.as_mut_ptr(), 1, 0);
    let name = c"simt.converge";
    let existing = LLVMGetNamedFunction(module, name.as_ptr());
    if !existing.is_null() {
        if LLVMGlobalGetValueType(existing) != fty {
            return Err(format!("@{MARKER} already exists with another type (expected void (i32))"));
        }
        return Ok(existing);
    }
    let f = LLVMAddFunction(module, name.as_ptr(), fty);
    for (attr, value) in [("convergent", 0u64), ("nounwind", 0), ("willreturn", 0), ("memory", INACCESSIBLE_MEM_READWRITE)] {
        let kind = LLVMGetEnumAttributeKindForName(attr.as_ptr().cast(), attr.len());
        LLVMAddAttributeAtIndex(f, llvm_sys::LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(ctx, kind, value));
    }
    Ok(f)
}

/// `memory(inaccessiblemem: readwrite)`: LLVM's MemoryEffects keep two bits
/// (ModRef) per location, `InaccessibleMem` being location 1.
const INACCESSIBLE_MEM_READWRITE: u64 = 3 << 2;

unsafe fn build_marker(
    module: LLVMModuleRef,
    builder: LLVMBuilderRef,
    marker: LLVMValueRef,
    id: u32,
    token: Option<LLVMValueRef>,
) -> LLVMValueRef {
    let ctx = LLVMGetModuleContext(module);
    let mut args = [LLVMConstInt(LLVMInt32TypeInContext(ctx), id as u64, 0)];
    build_call(builder, LLVMGlobalGetValueType(marker), marker, &mut args, token, "")
}

/// `call token @llvm.experimental.convergence.KIND() [convergencectrl(parent)]`.
/// Built through the C API: inkwell panics on calls returning `token`.
unsafe fn build_intrinsic(
    module: LLVMModuleRef,
    builder: LLVMBuilderRef,
    kind: &str,
    parent: Option<LLVMValueRef>,
    name: &str,
) -> LLVMValueRef {
    let full = format!("{INTRINSIC_PREFIX}{kind}");
    let id = LLVMLookupIntrinsicID(full.as_ptr().cast(), full.len());
    assert!(id != 0, "LLVM knows {full}");
    let decl = LLVMGetIntrinsicDeclaration(module, id, std::ptr::null_mut(), 0);
    build_call(builder, LLVMGlobalGetValueType(decl), decl, &mut [], parent, name)
}

unsafe fn build_call(
    builder: LLVMBuilderRef,
    fty: LLVMTypeRef,
    callee: LLVMValueRef,
    args: &mut [LLVMValueRef],
    token: Option<LLVMValueRef>,
    name: &str,
) -> LLVMValueRef {
    let cname = std::ffi::CString::new(name).expect("no NUL");
    match token {
        None => LLVMBuildCall2(builder, fty, callee, args.as_mut_ptr(), args.len() as u32, cname.as_ptr()),
        Some(t) => {
            let mut targs = [t];
            let bundle = LLVMCreateOperandBundle(BUNDLE.as_ptr().cast(), BUNDLE.len(), targs.as_mut_ptr(), 1);
            let mut bundles = [bundle];
            let call = LLVMBuildCallWithOperandBundles(
                builder,
                fty,
                callee,
                args.as_mut_ptr(),
                args.len() as u32,
                bundles.as_mut_ptr(),
                1,
                cname.as_ptr(),
            );
            LLVMDisposeOperandBundle(bundle);
            call
        }
    }
}

/// Where a marker goes: after the phis and any exception-handling pad; `None`
/// for blocks that can hold nothing else (`catchswitch`).
unsafe fn insertion_point(bb: LLVMBasicBlockRef) -> Option<LLVMValueRef> {
    let mut i = LLVMGetFirstInstruction(bb);
    while !i.is_null() && (!LLVMIsAPHINode(i).is_null() || !LLVMIsALandingPadInst(i).is_null() || !LLVMIsAFuncletPadInst(i).is_null()) {
        i = LLVMGetNextInstruction(i);
    }
    (!i.is_null() && LLVMIsACatchSwitchInst(i).is_null()).then_some(i)
}

/// The insertion point, past convergence tokens already placed there.
unsafe fn first_after_tokens(bb: LLVMBasicBlockRef) -> LLVMValueRef {
    let mut i = insertion_point(bb).expect("checked");
    while is_convergence_intrinsic(i) {
        i = LLVMGetNextInstruction(i);
    }
    i
}

unsafe fn has_marker(bb: LLVMBasicBlockRef, marker: LLVMValueRef) -> bool {
    let mut i = LLVMGetFirstInstruction(bb);
    while !i.is_null() {
        if !LLVMIsACallInst(i).is_null() && LLVMGetCalledValue(i) == marker {
            return true;
        }
        i = LLVMGetNextInstruction(i);
    }
    false
}

unsafe fn has_fn_attr(f: LLVMValueRef, name: &str) -> bool {
    let kind = LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len());
    !LLVMGetEnumAttributeAtIndex(f, llvm_sys::LLVMAttributeFunctionIndex, kind).is_null()
}

pub(crate) unsafe fn is_convergence_intrinsic(i: LLVMValueRef) -> bool {
    !LLVMIsACallInst(i).is_null() && called_function_name(i).is_some_and(|n| n.starts_with(INTRINSIC_PREFIX))
}

/// Whether a call site is convergent (its own attribute or its callee's).
pub(crate) unsafe fn is_convergent_call(i: LLVMValueRef) -> bool {
    if LLVMIsACallInst(i).is_null() && LLVMIsAInvokeInst(i).is_null() && LLVMIsACallBrInst(i).is_null() {
        return false;
    }
    let kind = LLVMGetEnumAttributeKindForName(c"convergent".as_ptr(), 10);
    if !LLVMGetCallSiteEnumAttribute(i, llvm_sys::LLVMAttributeFunctionIndex, kind).is_null() {
        return true;
    }
    let callee = LLVMGetCalledValue(i);
    !callee.is_null() && !LLVMIsAFunction(callee).is_null() && has_fn_attr(callee, "convergent")
}

/// The tags of a call's operand bundles.
pub(crate) unsafe fn bundle_tags(call: LLVMValueRef) -> Vec<String> {
    if LLVMIsACallInst(call).is_null() && LLVMIsAInvokeInst(call).is_null() {
        return Vec::new();
    }
    (0..LLVMGetNumOperandBundles(call))
        .map(|i| {
            let b = LLVMGetOperandBundleAtIndex(call, i);
            let mut len = 0;
            let p = LLVMGetOperandBundleTag(b, &mut len);
            let tag = String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), len)).into_owned();
            LLVMDisposeOperandBundle(b);
            tag
        })
        .collect()
}

/// Every instruction of `f`, in layout order.
pub(crate) unsafe fn instructions(f: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    let mut bb = LLVMGetFirstBasicBlock(f);
    while !bb.is_null() {
        let mut i = LLVMGetFirstInstruction(bb);
        while !i.is_null() {
            out.push(i);
            i = LLVMGetNextInstruction(i);
        }
        bb = LLVMGetNextBasicBlock(bb);
    }
    out
}

/// Whether the function already uses convergence control tokens.
unsafe fn uses_convergence_control(f: LLVMValueRef) -> bool {
    instructions(f).into_iter().any(|i| is_convergence_intrinsic(i) || bundle_tags(i).iter().any(|t| t == BUNDLE))
}

/// The convergent calls that must carry a token once the function is
/// controlled: all but the convergence intrinsics, markers of an earlier plain
/// run included.
unsafe fn convergent_calls(f: LLVMValueRef) -> Vec<LLVMValueRef> {
    instructions(f).into_iter().filter(|&i| is_convergent_call(i) && !is_convergence_intrinsic(i)).collect()
}

/// Replaces the call or invoke `call` by one with the same callee, arguments,
/// attributes, calling convention, tail-call kind, fast-math flags, metadata,
/// debug location and name, keeping the operand bundles `keep` accepts and
/// adding a `convergencectrl` bundle with `token`. `builder` must be
/// positioned before `call`. Returns the new instruction.
pub(crate) unsafe fn rebuild_call(
    builder: LLVMBuilderRef,
    call: LLVMValueRef,
    keep: &dyn Fn(&str) -> bool,
    token: Option<LLVMValueRef>,
) -> Result<LLVMValueRef, String> {
    let is_invoke = !LLVMIsAInvokeInst(call).is_null();
    if LLVMIsACallInst(call).is_null() && !is_invoke {
        return Err("only calls and invokes can have their operand bundles rebuilt".into());
    }
    let fty = LLVMGetCalledFunctionType(call);
    let callee = LLVMGetCalledValue(call);
    let nargs = LLVMGetNumArgOperands(call);
    let mut args: Vec<LLVMValueRef> = (0..nargs).map(|i| LLVMGetOperand(call, i)).collect();
    let mut bundles: Vec<LLVMOperandBundleRef> = Vec::new();
    for i in 0..LLVMGetNumOperandBundles(call) {
        let b = LLVMGetOperandBundleAtIndex(call, i);
        let mut len = 0;
        let p = LLVMGetOperandBundleTag(b, &mut len);
        let tag = String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), len)).into_owned();
        if keep(&tag) {
            bundles.push(b);
        } else {
            LLVMDisposeOperandBundle(b);
        }
    }
    if let Some(t) = token {
        let mut targs = [t];
        bundles.push(LLVMCreateOperandBundle(BUNDLE.as_ptr().cast(), BUNDLE.len(), targs.as_mut_ptr(), 1));
    }
    let mut len = 0;
    let name_ptr = LLVMGetValueName2(call, &mut len);
    let name = std::ffi::CString::new(std::slice::from_raw_parts(name_ptr.cast::<u8>(), len)).unwrap_or_default();
    LLVMSetValueName2(call, c"".as_ptr(), 0);
    let new = if is_invoke {
        LLVMBuildInvokeWithOperandBundles(
            builder,
            fty,
            callee,
            args.as_mut_ptr(),
            nargs,
            LLVMGetNormalDest(call),
            LLVMGetUnwindDest(call),
            bundles.as_mut_ptr(),
            bundles.len() as u32,
            name.as_ptr(),
        )
    } else {
        LLVMBuildCallWithOperandBundles(
            builder,
            fty,
            callee,
            args.as_mut_ptr(),
            nargs,
            bundles.as_mut_ptr(),
            bundles.len() as u32,
            name.as_ptr(),
        )
    };
    for b in bundles {
        LLVMDisposeOperandBundle(b);
    }
    LLVMSetInstructionCallConv(new, LLVMGetInstructionCallConv(call));
    if !is_invoke {
        LLVMSetTailCallKind(new, LLVMGetTailCallKind(call));
    }
    let mut indices = vec![llvm_sys::LLVMAttributeFunctionIndex, llvm_sys::LLVMAttributeReturnIndex];
    indices.extend(1..=nargs);
    for idx in indices {
        let n = LLVMGetCallSiteAttributeCount(call, idx);
        if n == 0 {
            continue;
        }
        let mut attrs: Vec<LLVMAttributeRef> = vec![std::ptr::null_mut(); n as usize];
        LLVMGetCallSiteAttributes(call, idx, attrs.as_mut_ptr());
        for a in attrs {
            LLVMAddCallSiteAttribute(new, idx, a);
        }
    }
    if LLVMCanValueUseFastMathFlags(call) != 0 {
        LLVMSetFastMathFlags(new, LLVMGetFastMathFlags(call));
    }
    let ctx = LLVMGetTypeContext(LLVMTypeOf(call));
    let mut count = 0usize;
    let entries = LLVMInstructionGetAllMetadataOtherThanDebugLoc(call, &mut count);
    for k in 0..count as u32 {
        let kind = LLVMValueMetadataEntriesGetKind(entries, k);
        let md = LLVMValueMetadataEntriesGetMetadata(entries, k);
        LLVMSetMetadata(new, kind, LLVMMetadataAsValue(ctx, md));
    }
    if !entries.is_null() {
        LLVMDisposeValueMetadataEntries(entries);
    }
    let loc = llvm_sys::debuginfo::LLVMInstructionGetDebugLoc(call);
    if !loc.is_null() {
        llvm_sys::debuginfo::LLVMInstructionSetDebugLoc(new, loc);
    }
    if LLVMGetTypeKind(LLVMTypeOf(call)) != llvm_sys::LLVMTypeKind::LLVMVoidTypeKind {
        LLVMReplaceAllUsesWith(call, new);
    }
    LLVMInstructionEraseFromParent(call);
    Ok(new)
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
