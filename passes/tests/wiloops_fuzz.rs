//! `simt-wiloops` on generated kernels: whatever the CFG, the pass either
//! emits a module LLVM's verifier accepts or reports a clean error; it never
//! panics (issue 8 §5: pocl's "infinite loop after barrier" kernel panicked
//! in `emit.rs`).
//!
//! The generator (the random graphs of `convergence_props.rs`) makes 1..30
//! blocks with 0..=4 successors: irreducible cycles, self loops, endless
//! loops with no way to the exit, blocks the entry cannot reach, several
//! returns and `unreachable`s. Each block may start with a phi (one entry per
//! predecessor) and a barrier (so may the entry block), then reads and updates a private variable
//! (live across barriers), stores to global memory, and branches on a
//! divergent (work-item id, private value) or uniform (argument) condition,
//! or switches. Every kernel goes through the plain pass, the interleaved
//! form and the specialised form.

mod common;

use inkwell::context::Context;
use proptest::prelude::*;
use simt_passes::analysis::cache::AnalysisCache;
use simt_passes::ir::{parse_ir, verify};
use simt_passes::pass::{PassContext, PassError};
use simt_passes::registry;
use std::fmt::Write;

#[derive(Clone, Debug)]
struct Block {
    succs: Vec<u32>,
    barrier: bool,
    phi: bool,
    /// For blocks without successors: `ret` or `unreachable`.
    returns: bool,
    /// 0: work-item id, 1: private value, 2: uniform argument.
    cond: u8,
}

fn kernel() -> impl Strategy<Value = Vec<Block>> {
    (1usize..30, any::<bool>()).prop_flat_map(|(n, backbone)| {
        let edge = (any::<bool>(), 0..n as u32, -3i64..=3);
        let block = (
            proptest::collection::vec(edge, 0..=4),
            prop_oneof![1 => Just(false), 4 => Just(true)],
            prop_oneof![2 => Just(false), 1 => Just(true)],
            any::<bool>(),
            prop_oneof![4 => Just(true), 1 => Just(false)],
            0u8..3,
        );
        proptest::collection::vec(block, n).prop_map(move |blocks| {
            blocks
                .into_iter()
                .enumerate()
                .map(|(b, (edges, fall, barrier, phi, returns, cond))| {
                    let mut succs: Vec<u32> = Vec::new();
                    for (local, t, off) in edges {
                        let s = if local { (b as i64 + off).clamp(0, n as i64 - 1) as u32 } else { t };
                        if !succs.contains(&s) {
                            succs.push(s);
                        }
                    }
                    if backbone && b + 1 < n {
                        if fall {
                            succs.retain(|&s| s != b as u32 + 1);
                            succs.push(b as u32 + 1);
                        } else {
                            succs.clear();
                        }
                    }
                    Block { succs, barrier, phi, returns, cond }
                })
                .collect()
        })
    })
}

/// The kernel as spir64 IR, in the form clang emits.
fn to_ir(blocks: &[Block], entry_barrier: bool) -> String {
    let mut preds: Vec<Vec<String>> = vec![Vec::new(); blocks.len()];
    preds[0].push("entry".into());
    for (b, blk) in blocks.iter().enumerate() {
        for &s in &blk.succs {
            preds[s as usize].push(format!("b{b}"));
        }
    }
    let mut s = String::from(
        "target triple = \"spir64\"\n\
         define spir_kernel void @k(ptr addrspace(1) %o, i32 %u) {\n\
         entry:\n  %p = alloca i32, align 4\n  %lid = call i64 @_Z12get_local_idj(i32 0)\n\
         \x20 %x = load i32, ptr addrspace(1) %o, align 4\n  store i32 %x, ptr %p, align 4\n",
    );
    if entry_barrier {
        // The entry block splits too: the allocas stay above the barrier.
        s.push_str("  call void @_Z7barrierj(i32 1)\n");
    }
    s.push_str("  br label %b0\n");
    for (b, blk) in blocks.iter().enumerate() {
        writeln!(s, "b{b}:").unwrap();
        let with_phi = blk.phi && !preds[b].is_empty();
        if with_phi {
            let entries: Vec<String> = preds[b].iter().enumerate().map(|(k, p)| format!("[ {k}, %{p} ]")).collect();
            writeln!(s, "  %phi{b} = phi i32 {}", entries.join(", ")).unwrap();
        }
        if blk.barrier {
            writeln!(s, "  call void @_Z7barrierj(i32 1)").unwrap();
        }
        let extra = if with_phi { format!("%phi{b}") } else { "%x".into() };
        writeln!(s, "  %v{b} = load i32, ptr %p, align 4\n  %w{b} = add i32 %v{b}, {extra}\n  store i32 %w{b}, ptr %p, align 4").unwrap();
        writeln!(s, "  %g{b} = getelementptr i32, ptr addrspace(1) %o, i64 %lid\n  store i32 %w{b}, ptr addrspace(1) %g{b}, align 4")
            .unwrap();
        let sel = match blk.cond {
            0 => {
                writeln!(s, "  %t{b} = trunc i64 %lid to i32").unwrap();
                format!("%t{b}")
            }
            1 => format!("%w{b}"),
            _ => "%u".to_string(),
        };
        match blk.succs.as_slice() {
            [] if blk.returns => s.push_str("  ret void\n"),
            [] => s.push_str("  unreachable\n"),
            [t] => writeln!(s, "  br label %b{t}").unwrap(),
            [t, f] => writeln!(s, "  %c{b} = icmp ult i32 {sel}, {b}\n  br i1 %c{b}, label %b{t}, label %b{f}").unwrap(),
            [d, rest @ ..] => {
                let cases: Vec<String> = rest.iter().enumerate().map(|(k, t)| format!("i32 {k}, label %b{t}")).collect();
                writeln!(s, "  switch i32 {sel}, label %b{d} [ {} ]", cases.join(" ")).unwrap();
            }
        }
    }
    s.push_str("}\ndeclare i64 @_Z12get_local_idj(i32)\ndeclare void @_Z7barrierj(i32) convergent\n");
    s
}

/// Runs `pass` on `ir`: Ok when the output verifies or the pass reports a
/// clean error, Err with the reason otherwise.
fn check(ir: &str, pass: &str) -> Result<(), String> {
    let ctx = Context::create();
    let mut m = parse_ir(&ctx, "fuzz.ll", ir.as_bytes()).map_err(|e| format!("the generator made bad IR: {e:?}\n{ir}"))?;
    verify(&m).map_err(|e| format!("the generator made an invalid module: {e}\n{ir}"))?;
    let p = registry::build(pass).expect("a registered pass");
    let mut analyses = AnalysisCache::new();
    let mut out = Vec::new();
    match p.run(&mut PassContext::new(&mut m, &mut analyses, &mut out)) {
        Ok(_) => verify(&m).map_err(|e| format!("{pass} broke the module: {e}\n{ir}")),
        Err(PassError::Unsupported { message, .. }) if !message.contains("internal") => Ok(()),
        Err(e) => Err(format!("{pass}: {e}\n{ir}")),
    }
}

proptest! {
    #![proptest_config(common::config_with(256))]

    #[test]
    fn wiloops_never_panics_and_verifies(blocks in kernel(), entry_barrier in any::<bool>()) {
        let ir = to_ir(&blocks, entry_barrier);
        for pass in ["simt-wiloops", "simt-wiloops<interleave=2>", "simt-wiloops<local-size=4,2,1>"] {
            if let Err(e) = check(&ir, pass) {
                prop_assert!(false, "{}", e);
            }
        }
    }
}

/// pocl's "infinite loop after barrier" shape, and a kernel with no exit at
/// all: the panics the issue reported, kept as plain regression tests.
#[test]
fn regions_that_never_exit() {
    let after_barrier = vec![
        Block { succs: vec![1], barrier: true, phi: false, returns: true, cond: 0 },
        Block { succs: vec![1], barrier: false, phi: false, returns: true, cond: 0 },
    ];
    let no_exit = vec![Block { succs: vec![0], barrier: false, phi: true, returns: true, cond: 0 }];
    for k in [after_barrier, no_exit] {
        check(&to_ir(&k, false), "simt-wiloops").unwrap();
    }
}
