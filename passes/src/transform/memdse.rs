//! `simt-memdse`: dead-store elimination on seed 003's def-use chains.
//!
//! A store is dead when no instruction can read a byte it wrote: its
//! def-use chain is empty and, unless it writes a function-local alloca
//! (whose bytes die on return), it reaches no function exit. Because the
//! chains are byte-precise, "every byte overwritten on every path before
//! any use" includes overwrites assembled from several smaller stores, the
//! patent's md2 + md3 covering md1:
//!
//! ```text
//!   store i64 0, ptr @g           ; dead: both halves overwritten below
//!   store i32 1, ptr @g
//!   store i32 2, ptr @g+4
//!   ret void                      ; @g lives on, so only the first goes
//! ```
//!
//! LLVM's `dse` finds these too (MemorySSA walks, partial-overwrite
//! intervals, and it also merges constant stores); scripts/bench-memdeps
//! counts both on the same modules (BENCHMARKS.md).
//!
//! Removed: plain `store`s, masked stores and non-volatile `memset`/`memcpy`/
//! `memmove`, exact or not, predicated or not, through a known pointer or
//! not: only the def-use chain and the objects it may write decide (an
//! inexact store is in its record's definitions at an exit if it can reach
//! one). Removing a `memcpy` removes a use,
//! which can make the stores that fed it dead: the pass repeats until none is.
//! Limits: only exact, unconditional stores kill, and loops that write every
//! byte of an object (`memdeps::fills`: `for (i = 0; i < N; i++) a[i] = …`,
//! constant trip counts), so a store overwritten by an inexact or masked one
//! outside such a loop stays; a store whose object a call may read
//! stays (the call is a use); a use that says `any` keeps every store to its
//! object.
//! Soundness rests on the chains, which `passes/tests/memdeps_oracle.rs`
//! checks by execution; this pass is checked by running kernels before and
//! after it (`tests/memdse_exec.rs`).
//! `-pass-remarks=simt-memdse`: one remark per function that lost stores.

use crate::analysis::memdeps::dataflow::Config;
use crate::analysis::memdeps::model::{Def, Ref};
use crate::analysis::memdeps::MemDeps;
use crate::ir::{defined_functions, function_name, Inst};
use crate::pass::{ModulePass, PassContext, PassError, Preserved};
use crate::remarks::{Arg, RemarkKind};
use inkwell::module::Module;
use llvm_sys::LLVMOpcode;
use std::collections::HashSet;

#[derive(Default)]
pub struct MemDse {
    /// Print how many stores each function lost.
    stats: bool,
}

impl ModulePass for MemDse {
    fn name(&self) -> String {
        if self.stats {
            "simt-memdse<stats>".into()
        } else {
            "simt-memdse".into()
        }
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        let mut changed = false;
        let mut report = String::new();
        for f in defined_functions(cx.module()) {
            let mut removed = 0usize;
            let mut first = true;
            loop {
                // The cached chains describe the function as it was; after an
                // erasure (same CFG) they are computed again here.
                let dead = {
                    let fa = cx.analyses(f);
                    if first {
                        dead_stores(fa.memdeps())
                    } else {
                        dead_stores(&MemDeps::compute(&fa.cfg, fa.dom(), Config::SOUND))
                    }
                };
                first = false;
                if dead.is_empty() {
                    break;
                }
                let reads = dead.iter().any(|i| is_transfer(*i));
                removed += dead.len();
                erase(cx.module_mut(), &dead);
                changed = true;
                if !reads {
                    break;
                }
            }
            if self.stats && removed > 0 {
                report += &format!("simt-memdse: '{}': removed {removed} dead stores\n", function_name(f));
            }
            if removed > 0 {
                cx.remark(RemarkKind::Passed, "DeadStoresRemoved", f, || {
                    vec![
                        Arg::new("Function", function_name(f)),
                        Arg::text(": removed "),
                        Arg::new("NumStores", removed),
                        Arg::text(" dead stores"),
                    ]
                });
            }
        }
        cx.out().write_all(report.as_bytes()).map_err(|e| PassError::Output { pass: self.name(), message: e.to_string() })?;
        // Only stores go: blocks and edges stay.
        Ok(if changed { Preserved::cfg_analyses() } else { Preserved::all() })
    }
}

/// Erases the dead stores of the module.
fn erase(_module: &mut Module<'_>, dead: &[Inst<'_>]) {
    for i in dead {
        i.erase();
    }
}

/// The stores of `md` that no use reads and that reach no exit (unless they
/// write an alloca).
pub fn dead_stores<'ctx>(md: &MemDeps<'ctx>) -> Vec<Inst<'ctx>> {
    let p = &md.program;
    let def_uses = md.solution.def_uses();
    // What may still be in memory when the function returns.
    // and objects whose records there say `any`.
    let mut at_exit: HashSet<u32> = HashSet::new();
    let mut any_at_exit: HashSet<u32> = HashSet::new();
    for (b, st) in md.solution.block_out.iter().enumerate() {
        let Some(st) = st else { continue };
        if !md.exit_blocks.contains(&b) {
            continue;
        }
        for (d, r) in st {
            for def in &r.defs {
                match def {
                    Def::Access(a) => {
                        at_exit.insert(*a);
                    }
                    Def::Any => {
                        any_at_exit.insert(p.descs[*d as usize].obj);
                    }
                    Def::Entry => {}
                }
            }
        }
    }
    // Objects some use reads `any` definition of: nothing stored there is dead.
    let mut read_any: HashSet<u32> = HashSet::new();
    for (a, defs) in p.accesses.iter().zip(&md.solution.use_defs) {
        if defs.as_ref().is_some_and(|d| d.contains(&Def::Any)) {
            match a.use_.as_ref().expect("a use has a set") {
                Ref::Must(d) => {
                    read_any.insert(p.descs[*d as usize].obj);
                }
                Ref::May(objs) => read_any.extend(objs.iter().copied()),
            }
        }
    }
    let mut dead = Vec::new();
    for (k, a) in p.accesses.iter().enumerate() {
        let Some(def) = &a.def else { continue };
        if !removable(md.insts[k]) || !def_uses[k].is_empty() {
            continue;
        }
        // No use reads a byte it wrote; what remains is whether its bytes
        // outlive the function, object by object.
        let objs: Vec<u32> = match def {
            Ref::Must(d) => vec![p.descs[*d as usize].obj],
            Ref::May(objs) => objs.clone(),
        };
        let gone = objs.iter().all(|&obj| {
            let local = md.objects[obj as usize].and_then(|v| v.as_inst()).is_some_and(|i| i.is_alloca());
            !read_any.contains(&obj) && (local || (!at_exit.contains(&(k as u32)) && !any_at_exit.contains(&obj)))
        });
        if gone {
            dead.push(md.insts[k]);
        }
    }
    dead
}

fn is_transfer(i: Inst<'_>) -> bool {
    i.intrinsic_name().is_some_and(|n| n.starts_with("llvm.memcpy") || n.starts_with("llvm.memmove"))
}

/// Plain stores and non-volatile memory intrinsics.
fn removable(i: Inst<'_>) -> bool {
    match i.opcode() {
        LLVMOpcode::LLVMStore => !i.is_volatile() && !i.is_atomic(),
        LLVMOpcode::LLVMCall => {
            let name = i.intrinsic_name().unwrap_or_default();
            let known = ["llvm.memset", "llvm.memcpy", "llvm.memmove"].iter().any(|p| name.starts_with(p));
            (known && i.num_call_args() >= 4 && i.operand(3).const_u64() == Some(0)) || name.starts_with("llvm.masked.store")
        }
        _ => false,
    }
}

impl crate::pass::DeclaredPass for MemDse {
    const NAME: &'static str = "simt-memdse";
    const SUMMARY: &'static str = "removes stores no use can read, by seed 003's byte-precise memory chains (partial overwrites, joins)";
    const SEED: Option<&'static str> = Some("003");
    const OPTIONS: &'static [(&'static str, &'static str)] = &[("stats", "print how many stores each function lost")];

    fn set_option(&mut self, key: &str, value: Option<&str>) -> Result<(), String> {
        match (key, value) {
            ("stats", None) => self.stats = true,
            _ => return Err(crate::pass::unknown_option::<Self>(key)),
        }
        Ok(())
    }
}
