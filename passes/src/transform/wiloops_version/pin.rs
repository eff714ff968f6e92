//! Pinning: a work-item loop whose every effect sits behind `g(x) == u`
//! runs the one work-item that can pass, not all of them.
//!
//! Why: `if (lane == 0) sums[warp] = v;` and OpenCL's `if (lid == 0)
//! out[group] = acc;` become, in `simt-wiloops`' loops, 32 or 256 trips of
//! which one stores. The vectoriser turns them into a loop of predicated
//! stores (block_sum_warp: eight vector trips of a compare and a branch per
//! warp, twice), and a lane loop marked to stay rolled is not unrolled either,
//! so nothing folds the test.
//!
//! When `g` is modular-affine in the counter with an odd step `s` (mod
//! `2^k`: `g` itself, `g & (2^k - 1)` or `zext g`, as `lane == 0` and
//! `(tid & 31) == 0` are), `x ↦ g(x) mod 2^k` is one-to-one on any `2^k`
//! consecutive `x`, so at most one `x` in `[0, C)` passes when `C <= 2^k`:
//! `x* = s⁻¹·(u - g(0)) mod 2^k`. The loop then runs once, for
//! `min(x*, C - 1)`: `x*` itself when it is in the loop, and otherwise a
//! work-item whose test fails (none passes), so nothing runs.
//!
//! ```text
//!   P: br H                       P: x0 = min(s⁻¹·(u - g(0)) mod 2^k, C-1)
//!   H: x = phi [0, P], [x+1, L]   H: (x is x0; other counters start + c·x0)
//!      … br (g(x) == u), T, F  ⇒     … br (g(x) == u), T, F
//!   L: br x+1 <u C, H, E          L: br E
//! ```
//!
//! Conditions: the loop shape versioning needs (`plain_loop`, `counter`),
//! with no limit on its size; only counters carried; no value that changes
//! with the work-item used after the loop; one conditional branch such that
//! no path from the header avoiding one of its edges reaches a store, an
//! atomic, a fence, a volatile load or a call other than a speculatable
//! intrinsic; the branch's condition requires an equality on that edge
//! (through `and`/`or`/`select`/`xor true` trees, as versioning reads
//! them). The test stays: LLVM folds it for a known `x*`.

use super::{counter, is_counter, plain_loop, preheader, Emit, End, Limits, Shape, DEFAULT_LIMITS};
use crate::analysis::affine_guard::{mask, Scope};
use crate::ir::{has_fn_attribute, instructions, terminator, Builder, Inst, IntOp, Value};
use inkwell::basic_block::BasicBlock;
use llvm_sys::{LLVMIntPredicate, LLVMOpcode as O};
use std::collections::HashSet;

/// `g(x) == u` (in `k` low bits) as the guard requires it.
struct Equality<'c> {
    /// Modular-affine in the counter, with the odd `step` (mod `2^k`).
    g: Value<'c>,
    /// Loop-invariant.
    u: Value<'c>,
    /// How many low bits of `g` the compare sees.
    k: u32,
    step: u64,
}

/// Pins the loop when it has such a guard; `Ok(None)` when it has none,
/// `Err` (before any change) when its shape rules it out. Returns the name
/// of the block whose branch tests the equality.
pub(super) fn pin<'c>(shape: &Shape<'c>) -> Result<Option<String>, String> {
    let any_size = Limits { max_size: usize::MAX, ..DEFAULT_LIMITS };
    let (latch, exit, enter, _) = plain_loop(shape, any_size)?;
    let (header, pre) = (shape.header, enter.block());
    let latch_term = terminator(latch).ok_or("no latch terminator")?;
    let (x, trips) = counter(latch_term, header, pre, latch)?;
    if trips < 2 {
        return Ok(None);
    }
    let phis: Vec<Inst<'c>> = instructions(header).take_while(|i| i.is_phi()).collect();
    if !phis.iter().all(|&p| p == x || is_counter(p, pre, latch)) {
        return Err("the loop carries a value besides counters".into());
    }
    let mut scope = Scope::new(shape.blocks.iter().copied(), x.value());
    let Some((at, eq)) = guard(shape, latch, &mut scope, trips) else { return Ok(None) };
    for i in shape.blocks.iter().flat_map(|&b| instructions(b)) {
        if i.users().iter().any(|u| !shape.members.contains(&u.block())) && !scope.is_invariant(i.value()) {
            return Err("a value that changes with the work-item is used after the loop".into());
        }
    }
    if enter.opcode() != O::LLVMBr || enter.is_conditional_terminator() {
        // A versioned or unswitched loop, entered by the choice of copy:
        // a block of its own on that edge for the start, and everything
        // read again (the header's phis are rebuilt).
        preheader(enter, header);
        return pin(shape);
    }
    let pre_term = enter;

    // From here on the function changes.
    let mut emit = Emit::new(pre_term, &mut scope, trips);
    let g0 = emit.at(eq.g, End::First);
    let u = emit.at(eq.u, End::Any);
    let b = &mut emit.b;
    let ty = g0.ty();
    let u = if u.ty().int_width() > ty.int_width() { b.trunc(u, ty, "pin.u") } else { u };
    let d = b.int_op(IntOp::Sub, u, g0, "pin.d");
    let mut first = b.int_op(IntOp::Mul, d, ty.const_int(inverse(eq.step) & mask(ty.int_width())), "pin.x");
    if eq.k < ty.int_width() {
        first = b.int_op(IntOp::And, first, ty.const_int(mask(eq.k)), "pin.x");
    }
    let last = ty.const_int(trips - 1);
    let inside = b.icmp(LLVMIntPredicate::LLVMIntULT, first, last, "pin.inside");
    let first = b.select(inside, first, last, "pin.x");
    let first = b.freeze(first, "pin.x");
    let first = b.int_cast_unsigned(first, x.ty(), "pin.x");
    for p in phis {
        let start = if p == x {
            first
        } else {
            let (init, _) = p.incoming().into_iter().find(|(_, from)| *from == pre).expect("a counter enters from the preheader");
            let (inc, _) = p.incoming().into_iter().find(|(_, from)| *from == latch).expect("a counter steps in the latch");
            let inc = inc.as_inst().expect("a counter's step");
            let c = if inc.operand(0) == p.value() { inc.operand(1) } else { inc.operand(0) };
            let at = b.int_cast_unsigned(first, p.ty(), "pin.at");
            let off = b.int_op(IntOp::Mul, at, c, "pin.off");
            b.int_op(IntOp::Add, init, off, "pin.start")
        };
        p.value().replace_all_uses_with(start);
        p.erase();
    }
    let mut b = Builder::new(latch_term.value());
    b.position_before(latch_term);
    b.br(exit);
    latch_term.erase();
    Ok(Some(at.get_name().to_string_lossy().into_owned()))
}

/// The equality that every effect of the loop waits for, from the first
/// conditional branch that guards them all.
fn guard<'c>(shape: &Shape<'c>, latch: BasicBlock<'c>, scope: &mut Scope<'c>, trips: u64) -> Option<(BasicBlock<'c>, Equality<'c>)> {
    for &b in &shape.blocks {
        let Some(t) = terminator(b) else { continue };
        if b == latch || t.opcode() != O::LLVMBr || !t.is_conditional_terminator() {
            continue;
        }
        let s = t.successors();
        if s[0] == s[1] {
            continue;
        }
        for (slot, want) in [(0, true), (1, false)] {
            if only_through(shape, b, s[slot]) {
                if let Some(eq) = equality(t.branch_condition(), want, scope, trips) {
                    return Some((b, eq));
                }
            }
        }
    }
    None
}

/// Whether every effect of the loop is reached only over the edge `from →
/// to`: a walk from the header that neither takes that edge nor goes back
/// to the header meets none.
pub(super) fn only_through<'c>(shape: &Shape<'c>, from: BasicBlock<'c>, to: BasicBlock<'c>) -> bool {
    let mut seen = HashSet::from([shape.header]);
    let mut work = vec![shape.header];
    while let Some(b) = work.pop() {
        if instructions(b).any(has_effect) {
            return false;
        }
        for s in crate::ir::successors(b) {
            if (b == from && s == to) || !shape.members.contains(&s) || !seen.insert(s) {
                continue;
            }
            work.push(s);
        }
    }
    true
}

/// Whether skipping `i` could change what the program does.
fn has_effect(i: Inst<'_>) -> bool {
    match i.opcode() {
        O::LLVMStore | O::LLVMAtomicRMW | O::LLVMAtomicCmpXchg | O::LLVMFence | O::LLVMVAArg | O::LLVMInvoke | O::LLVMCallBr => true,
        O::LLVMLoad => i.is_volatile(),
        O::LLVMCall => {
            let intrinsic = i.called_function_name().is_some_and(|n| n.starts_with("llvm."));
            !(intrinsic && i.called_function().is_some_and(|f| has_fn_attribute(f, "speculatable")))
        }
        _ => false,
    }
}

/// An equality that `v` being `want` requires, of a `g` that takes each of
/// its values at most once over the loop.
fn equality<'c>(v: Value<'c>, want: bool, scope: &mut Scope<'c>, trips: u64) -> Option<Equality<'c>> {
    let i = scope.inside(v)?;
    let op = |k: u32| i.operand(k);
    let either = |a: Value<'c>, b: Value<'c>, want: bool, scope: &mut Scope<'c>| {
        equality(a, want, scope, trips).or_else(|| equality(b, want, scope, trips))
    };
    match i.opcode() {
        O::LLVMAnd if want => either(op(0), op(1), true, scope),
        O::LLVMOr if !want => either(op(0), op(1), false, scope),
        O::LLVMSelect if want && op(2).const_u64() == Some(0) => either(op(0), op(1), true, scope),
        O::LLVMSelect if !want && op(1).const_u64() == Some(1) => either(op(0), op(2), false, scope),
        O::LLVMXor if op(1).const_u64() == Some(1) => equality(op(0), !want, scope, trips),
        O::LLVMICmp => {
            let pred = i.icmp_predicate();
            if pred != (if want { LLVMIntPredicate::LLVMIntEQ } else { LLVMIntPredicate::LLVMIntNE }) {
                return None;
            }
            let (g, u) = if scope.is_invariant(op(1)) {
                (op(0), op(1))
            } else if scope.is_invariant(op(0)) {
                (op(1), op(0))
            } else {
                return None;
            };
            let (g, k) = low_bits(g, scope);
            let step = scope.step(g)? & mask(k);
            let fits = k >= 64 || trips <= 1u64 << k;
            // `step` and `is_invariant` accept only what `Emit::at` rebuilds.
            (step % 2 == 1 && fits).then_some(Equality { g, u, k, step })
        }
        _ => None,
    }
}

/// `g` compared in its `k` low bits: the operand of `h & (2^k - 1)` or of
/// `zext h` (k = h's width), else `g` in its own width.
fn low_bits<'c>(g: Value<'c>, scope: &Scope<'c>) -> (Value<'c>, u32) {
    let Some(i) = scope.inside(g) else { return (g, g.ty().int_width()) };
    match i.opcode() {
        O::LLVMZExt => (i.operand(0), i.operand(0).ty().int_width()),
        O::LLVMAnd => {
            let (h, m) = match (i.operand(0).const_u64(), i.operand(1).const_u64()) {
                (_, Some(m)) => (i.operand(0), m),
                (Some(m), None) => (i.operand(1), m),
                _ => return (g, g.ty().int_width()),
            };
            let k = m.trailing_ones();
            if m != 0 && m == mask(k) {
                (h, k)
            } else {
                (g, g.ty().int_width())
            }
        }
        _ => (g, g.ty().int_width()),
    }
}

/// `s⁻¹ mod 2^64` for odd `s` (Newton's iteration doubles the correct bits).
fn inverse(s: u64) -> u64 {
    let mut inv = s;
    for _ in 0..6 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(s.wrapping_mul(inv)));
    }
    inv
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The inverse, and the claim the pass rests on: with an odd step
        /// and `C <= 2^k`, `min(x*, C-1)` is the only `x` in `[0, C)` where
        /// `g(x) == u` in `k` bits, if any is.
        #[test]
        fn one_work_item(k in 1u32..=12, g0: u64, s in any::<u64>().prop_map(|s| s | 1), u: u64, trips_frac in 0.0f64..=1.0) {
            prop_assert_eq!(s.wrapping_mul(inverse(s)), 1);
            let m = mask(k);
            let trips = 2 + ((m - 1) as f64 * trips_frac) as u64;
            let g = |x: u64| g0.wrapping_add(s.wrapping_mul(x)) & m;
            let passing: Vec<u64> = (0..trips).filter(|&x| g(x) == u & m).collect();
            let first = (inverse(s).wrapping_mul((u & m).wrapping_sub(g0)) & m).min(trips - 1);
            prop_assert!(passing.len() <= 1);
            prop_assert!(passing.is_empty() || passing == [first]);
        }
    }
}
