//! `simt-flatten-calls`: inlines, into the kernels, every call to a defined
//! function that uses barriers or work-item builtins, directly or through
//! its own callees (pocl's `Flatten`/`FlattenBarrierSubs`).
//!
//! `simt-wiloops` splits a kernel at its barriers and computes work-item ids
//! per loop iteration, so both must be visible in the kernel's own body; a
//! helper clang did not inline (`__attribute__((noinline))`, `-O0`, a big
//! function) hides them behind a call. `always-inline` alone does not help:
//! such helpers are not `alwaysinline`, and may be `noinline`/`optnone`.
//!
//! ```text
//!   kernel ──call──▶ scan (noinline) ──call──▶ group_sum: barrier
//!      every function on a path to a builtin is marked alwaysinline,
//!      LLVM's always-inline pass inlines them bottom-up:
//!   kernel: …body of scan, body of group_sum: barrier…
//! ```
//!
//! Only functions some kernel needs are touched; functions that were
//! `alwaysinline` but use no builtin keep their calls (their flag is lifted
//! during the run and restored). Limits: a recursive function that reaches a
//! builtin cannot be inlined and is reported with its cycle; indirect calls
//! are not followed (OpenCL C has none).

use crate::ir::{function_name, run_passes, Value};
use crate::pass::{ModulePass, PassContext, PassError, Preserved};
use crate::transform::call_graph::{self, CallGraph};
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::Module;
use inkwell::values::FunctionValue;
use std::collections::{HashMap, HashSet};

#[derive(Default)]
pub struct FlattenCalls;

pub const NAME: &str = "simt-flatten-calls";

impl ModulePass for FlattenCalls {
    fn name(&self) -> String {
        NAME.into()
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        let m = cx.module_mut();
        let err = |message| PassError::Unsupported { pass: NAME.into(), message };
        let kernels = call_graph::kernels(m);
        let graph = CallGraph::new(m);
        let users = graph.builtin_users();
        // Kernels use builtins too, but are never callees (LLVM forbids
        // calling the kernel calling conventions).
        let to_inline: HashSet<FunctionValue<'_>> =
            graph.needed_by(&kernels).into_iter().filter(|f| users.contains(f) && !kernels.contains(f)).collect();
        if to_inline.is_empty() {
            return Ok(Preserved::all());
        }
        if let Some(cycle) = find_cycle(&graph, &to_inline) {
            let names: Vec<String> = cycle.iter().map(|&f| function_name(f)).collect();
            return Err(err(format!(
                "function '{}' is recursive ({}) and uses barriers or work-item builtins: it cannot be inlined into a kernel",
                names[0],
                names.join(" -> ")
            )));
        }
        let lifted = set_inline_flags(m, &to_inline);
        let result = run_passes(m, "always-inline");
        restore_always_inline(m, &lifted);
        result.map_err(|e| err(format!("LLVM's always-inline failed: {e}")))?;
        // A call that survived (LLVM refuses some, e.g. varargs callees)
        // would stop simt-wiloops later with a vaguer message.
        let after = CallGraph::new(m);
        for k in &kernels {
            if let Some(&left) = after.callees(*k).iter().find(|c| to_inline.contains(c)) {
                return Err(err(format!(
                    "kernel '{}': the call to '{}' (which uses barriers or work-item builtins) could not be inlined",
                    function_name(*k),
                    function_name(left)
                )));
            }
        }
        // Inlining changes CFGs and may delete the callees.
        Ok(Preserved::none())
    }
}

/// A cycle of direct calls among `set`, as the functions along it (first
/// repeated at the end), if there is one.
fn find_cycle<'ctx>(g: &CallGraph<'ctx>, set: &HashSet<FunctionValue<'ctx>>) -> Option<Vec<FunctionValue<'ctx>>> {
    // Iterative DFS with colours; the stack holds the current path.
    #[derive(Clone, Copy, PartialEq)]
    enum Colour {
        Active,
        Done,
    }
    let mut colour: HashMap<FunctionValue<'ctx>, Colour> = HashMap::new();
    let mut roots: Vec<FunctionValue<'ctx>> = set.iter().copied().collect();
    roots.sort_by_key(|&f| function_name(f));
    for root in roots {
        if colour.contains_key(&root) {
            continue;
        }
        let mut path: Vec<(FunctionValue<'ctx>, usize)> = vec![(root, 0)];
        colour.insert(root, Colour::Active);
        while let Some(top) = path.last_mut() {
            let (f, idx) = *top;
            top.1 += 1;
            let callees = g.callees(f);
            if idx >= callees.len() {
                colour.insert(f, Colour::Done);
                path.pop();
                continue;
            }
            let c = callees[idx];
            if !set.contains(&c) {
                continue;
            }
            match colour.get(&c) {
                Some(Colour::Active) => {
                    let start = path.iter().position(|&(p, _)| p == c).expect("active functions are on the path");
                    let mut cycle: Vec<FunctionValue<'ctx>> = path[start..].iter().map(|&(p, _)| p).collect();
                    cycle.push(c);
                    return Some(cycle);
                }
                Some(Colour::Done) => {}
                None => {
                    colour.insert(c, Colour::Active);
                    path.push((c, 0));
                }
            }
        }
    }
    None
}

fn kind(name: &str) -> u32 {
    Attribute::get_named_enum_kind_id(name)
}

/// Marks `set` `alwaysinline` (without `noinline`/`optnone`, which forbid
/// it) and lifts `alwaysinline` from every other defined function, so the
/// pass inlines exactly `set`; returns the functions lifted.
fn set_inline_flags<'ctx>(m: &Module<'ctx>, set: &HashSet<FunctionValue<'ctx>>) -> Vec<FunctionValue<'ctx>> {
    let ctx = m.get_context();
    let (always, noinline, optnone) = (kind("alwaysinline"), kind("noinline"), kind("optnone"));
    let mut lifted = Vec::new();
    for f in m.get_functions() {
        if Value::from(f).is_declaration() {
            continue;
        }
        let has_always = f.get_enum_attribute(AttributeLoc::Function, always).is_some();
        if set.contains(&f) {
            f.remove_enum_attribute(AttributeLoc::Function, noinline);
            f.remove_enum_attribute(AttributeLoc::Function, optnone);
            if !has_always {
                f.add_attribute(AttributeLoc::Function, ctx.create_enum_attribute(always, 0));
            }
        } else if has_always {
            f.remove_enum_attribute(AttributeLoc::Function, always);
            lifted.push(f);
        }
    }
    lifted
}

fn restore_always_inline<'ctx>(m: &Module<'ctx>, lifted: &[FunctionValue<'ctx>]) {
    let ctx = m.get_context();
    let always = kind("alwaysinline");
    for &f in lifted {
        f.add_attribute(AttributeLoc::Function, ctx.create_enum_attribute(always, 0));
    }
}

impl crate::pass::DeclaredPass for FlattenCalls {
    const NAME: &'static str = NAME;
    const SUMMARY: &'static str = "inlines into kernels every call to a function that uses barriers or work-item builtins (pocl's Flatten)";
}
