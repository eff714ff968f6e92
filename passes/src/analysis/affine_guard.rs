//! Comparisons that are monotone in a loop counter, for
//! `simt-wiloops-version`.
//!
//! In a loop whose counter `x` runs over `[0, C)`, a value `g(x)` built
//! from `x` and loop invariants by `add`, `sub`, `mul`/`shl` by a constant
//! and `trunc` is *modular-affine*: `g(x) = g(0) + s·x mod 2^w`, with a step
//! `s` known at compile time ([`Scope::step`]). Taking `s` as the
//! representative of least magnitude, if `|s|·(C-1) < 2^w` the exact integers
//! `g(0) + s·x` cover a span shorter than `2^w`, so they cross a wrap-around
//! point of the compare's signedness at most once, and exactly when the
//! ends come out in the wrong order: for `s > 0` there is no wrap iff
//! `g(0) <= g(C-1)` (for `s < 0`, iff `g(C-1) <= g(0)`), in that signedness
//! ([`nowrap_test`]). Without a wrap `g` is monotone over the loop, so an
//! ordered compare `g(x) pred u` with `u` invariant changes value at most
//! once, and it holds for every `x` iff it holds at `x = 0` and `x = C-1`.
//! [`claim`] is that reasoning on numbers; the tests check it against brute
//! force.
//!
//! Invariance ([`Scope::is_invariant`]): constants, arguments, globals,
//! values defined outside the loop, phis that pass on one invariant value
//! whatever the edge ([`forwarded`]), and instructions in the loop whose
//! operands are invariant and that can be computed anywhere (integer
//! arithmetic, casts, compares and selects; no loads, calls, other phis or
//! divisions, which may trap or read memory the loop writes).

use crate::ir::{Inst, Value};
use inkwell::basic_block::BasicBlock;
use llvm_sys::{LLVMIntPredicate, LLVMOpcode as O};
use std::collections::{HashMap, HashSet};

/// Which way `g` moves as the counter grows (a step of 0 counts as up).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Up,
    Down,
}

/// All ones in the low `width` bits.
pub fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// The direction of `g(0) + step·x mod 2^width` over `x` in `[0, trips)` when
/// its span `|step|·(trips-1)` is below `2^width` (`None` otherwise: it may
/// wrap more than once and no test of its ends can tell).
pub fn direction(step: u64, width: u32, trips: u64) -> Option<Direction> {
    assert!((1..=64).contains(&width) && trips >= 1, "a width of 1 to 64 bits and at least one trip");
    let s = step & mask(width);
    let half = 1u64 << (width - 1);
    let (magnitude, dir) = if s <= half { (s, Direction::Up) } else { ((mask(width) - s) + 1, Direction::Down) };
    ((magnitude as u128) * ((trips - 1) as u128) < (1u128 << width)).then_some(dir)
}

pub fn is_signed(pred: LLVMIntPredicate) -> bool {
    use LLVMIntPredicate as P;
    matches!(pred, P::LLVMIntSLT | P::LLVMIntSLE | P::LLVMIntSGT | P::LLVMIntSGE)
}

/// An ordering compare (`eq` and `ne` are not: they are not monotone).
pub fn is_ordered(pred: LLVMIntPredicate) -> bool {
    !matches!(pred, LLVMIntPredicate::LLVMIntEQ | LLVMIntPredicate::LLVMIntNE)
}

/// The run-time test that the ends `g0 = g(0)` and `gl = g(C-1)` show no
/// wrap in `pred`'s signedness: `le` and whether its operands are
/// `(g0, gl)` (true) or `(gl, g0)`.
pub fn nowrap_test(pred: LLVMIntPredicate, dir: Direction) -> (LLVMIntPredicate, bool) {
    let le = if is_signed(pred) { LLVMIntPredicate::LLVMIntSLE } else { LLVMIntPredicate::LLVMIntULE };
    (le, dir == Direction::Up)
}

/// `a pred b` on `width`-bit values.
pub fn compare(pred: LLVMIntPredicate, width: u32, a: u64, b: u64) -> bool {
    use LLVMIntPredicate as P;
    let (a, b) = (a & mask(width), b & mask(width));
    let sx = |v: u64| ((v << (64 - width)) as i64) >> (64 - width);
    match pred {
        P::LLVMIntEQ => a == b,
        P::LLVMIntNE => a != b,
        P::LLVMIntULT => a < b,
        P::LLVMIntULE => a <= b,
        P::LLVMIntUGT => a > b,
        P::LLVMIntUGE => a >= b,
        P::LLVMIntSLT => sx(a) < sx(b),
        P::LLVMIntSLE => sx(a) <= sx(b),
        P::LLVMIntSGT => sx(a) > sx(b),
        P::LLVMIntSGE => sx(a) >= sx(b),
    }
}

/// What the pass concludes at run time for `g(x) pred u` (`g_left`) or
/// `u pred g(x)`, with `g(x) = g0 + step·x mod 2^width` over `[0, trips)`:
/// `Some(true)` when it proves the compare true for every `x` (both ends
/// true and no wrap), `Some(false)` when the test fails, `None` when the
/// step rules the loop out at compile time. The pass emits exactly this
/// test in IR, from [`direction`] and [`nowrap_test`].
pub fn claim(pred: LLVMIntPredicate, width: u32, g0: u64, step: u64, trips: u64, u: u64, g_left: bool) -> Option<bool> {
    let dir = direction(step, width, trips)?;
    let g = |x: u64| g0.wrapping_add(step.wrapping_mul(x)) & mask(width);
    let cond = |x: u64| if g_left { compare(pred, width, g(x), u) } else { compare(pred, width, u, g(x)) };
    let (le, g0_first) = nowrap_test(pred, dir);
    let (a, b) = if g0_first { (g(0), g(trips - 1)) } else { (g(trips - 1), g(0)) };
    Some(cond(0) && cond(trips - 1) && compare(le, width, a, b))
}

/// The loop a guard is read in: its blocks and its counter.
pub struct Scope<'c> {
    blocks: HashSet<BasicBlock<'c>>,
    counter: Value<'c>,
    invariant: HashMap<Value<'c>, bool>,
}

/// How deep an expression may be before it is given up on (the walks
/// follow operands; kernels' index expressions are a handful deep).
const MAX_DEPTH: u32 = 24;

impl<'c> Scope<'c> {
    pub fn new(blocks: impl IntoIterator<Item = BasicBlock<'c>>, counter: Value<'c>) -> Scope<'c> {
        Scope { blocks: blocks.into_iter().collect(), counter, invariant: HashMap::new() }
    }

    pub fn counter(&self) -> Value<'c> {
        self.counter
    }

    /// An instruction of the loop.
    pub fn inside(&self, v: Value<'c>) -> Option<Inst<'c>> {
        v.as_inst().filter(|i| self.blocks.contains(&i.block()))
    }

    /// The same in every iteration (see the module documentation).
    pub fn is_invariant(&mut self, v: Value<'c>) -> bool {
        self.invariant_at(v, 0)
    }

    fn invariant_at(&mut self, v: Value<'c>, depth: u32) -> bool {
        let Some(i) = self.inside(v) else { return v.as_block().is_none() };
        if let Some(&known) = self.invariant.get(&v) {
            return known;
        }
        let yes = depth < MAX_DEPTH
            && match forwarded(i) {
                Some(w) => self.invariant_at(w, depth + 1),
                None => is_speculatable(i) && i.operands().all(|o| self.invariant_at(o, depth + 1)),
            };
        self.invariant.insert(v, yes);
        yes
    }

    /// The step `s` (mod `2^w`, `w` the width of `v`) of a value
    /// `g(0) + s·x` built from the counter and invariants by add, sub,
    /// mul/shl by a constant and trunc; `Some(0)` for invariants, `None` for
    /// anything else.
    pub fn step(&mut self, v: Value<'c>) -> Option<u64> {
        let counter = self.counter;
        let [s] = linear(v, MAX_DEPTH, &mut |v| {
            if v == counter {
                Term::Known([1])
            } else if self.is_invariant(v) {
                Term::Known([0])
            } else {
                self.inside(v).and_then(forwarded).map_or(Term::Walk, Term::Via)
            }
        })?;
        Some(s)
    }
}

/// What [`linear`] makes of a value before looking at its operation.
pub enum Term<'c, const N: usize> {
    /// Its coefficients, as they are (masked to its width).
    Known([u64; N]),
    /// The same value as this one (a phi passing one value on).
    Via(Value<'c>),
    /// Built by an operation to follow.
    Walk,
}

/// The coefficients `c` of an integer `v` as `v0 + Σ c_k·t_k (mod 2^w)`,
/// `w` its width, where `term` names the terms `t_k` (and the values that
/// add nothing: all-zero coefficients), and `v` is built from them by add,
/// sub, mul/shl by a constant and trunc; `None` for anything else, or
/// deeper than `depth` operations.
pub fn linear<'c, const N: usize>(v: Value<'c>, depth: u32, term: &mut impl FnMut(Value<'c>) -> Term<'c, N>) -> Option<[u64; N]> {
    if !v.ty().is_integer() || v.ty().int_width() > 64 {
        return None;
    }
    let width = v.ty().int_width();
    let m = mask(width);
    let i = match term(v) {
        Term::Known(c) => return Some(c.map(|c| c & m)),
        Term::Via(w) if depth > 0 => return linear(w, depth - 1, term),
        Term::Walk if depth > 0 => v.as_inst()?,
        _ => return None,
    };
    let mut op = |k: u32| linear(i.operand(k), depth - 1, term);
    let scaled = |c: [u64; N], f: &dyn Fn(u64) -> u64| c.map(|c| f(c) & m);
    match i.opcode() {
        O::LLVMAdd => {
            let (a, b) = (op(0)?, op(1)?);
            Some(std::array::from_fn(|k| a[k].wrapping_add(b[k]) & m))
        }
        O::LLVMSub => {
            let (a, b) = (op(0)?, op(1)?);
            Some(std::array::from_fn(|k| a[k].wrapping_sub(b[k]) & m))
        }
        O::LLVMMul => match (i.operand(0).const_u64(), i.operand(1).const_u64()) {
            (_, Some(k)) => Some(scaled(op(0)?, &|c| c.wrapping_mul(k))),
            (Some(k), None) => Some(scaled(op(1)?, &|c| c.wrapping_mul(k))),
            (None, None) => None,
        },
        O::LLVMShl => {
            let k = i.operand(1).const_u64().filter(|&k| k < u64::from(width))?;
            Some(scaled(op(0)?, &|c| c << k))
        }
        O::LLVMTrunc => Some(scaled(op(0)?, &|c| c)),
        _ => None,
    }
}

/// The value a phi passes on whatever the edge (a single-entry phi of
/// LCSSA form, or one whose entries all agree); `None` for anything else.
pub fn forwarded(i: Inst<'_>) -> Option<Value<'_>> {
    if !i.is_phi() {
        return None;
    }
    let vals = i.incoming_values();
    let first = *vals.first()?;
    (first != i.value() && vals.iter().all(|&v| v == first)).then_some(first)
}

/// Whether an instruction may be computed before the loop instead of where
/// it is: no memory, no traps, no control (poison it may give is frozen by
/// the pass's user).
fn is_speculatable(i: Inst<'_>) -> bool {
    crate::ir::is_plain_int_op(i.opcode()) && i.operands().all(|o| o.ty().is_integer())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use LLVMIntPredicate as P;

    const ORDERED: [LLVMIntPredicate; 8] =
        [P::LLVMIntSLT, P::LLVMIntSLE, P::LLVMIntSGT, P::LLVMIntSGE, P::LLVMIntULT, P::LLVMIntULE, P::LLVMIntUGT, P::LLVMIntUGE];

    /// Brute force: the compare at every x of the loop.
    fn everywhere(pred: LLVMIntPredicate, width: u32, g0: u64, step: u64, trips: u64, u: u64, g_left: bool) -> bool {
        (0..trips).all(|x| {
            let g = g0.wrapping_add(step.wrapping_mul(x)) & mask(width);
            if g_left {
                compare(pred, width, g, u)
            } else {
                compare(pred, width, u, g)
            }
        })
    }

    /// Brute force: whether the exact integers g(0) + s·x leave the range
    /// of the signedness (s taken as `direction` takes it).
    fn wraps(signed: bool, width: u32, g0: u64, step: u64, trips: u64) -> bool {
        let m = mask(width);
        let half = 1u64 << (width - 1);
        let s = step & m;
        let s: i128 = if s <= half { s as i128 } else { s as i128 - (m as i128 + 1) };
        let (lo, hi, start): (i128, i128, i128) = if signed {
            let g0 = ((g0 << (64 - width)) as i64 >> (64 - width)) as i128;
            (-(half as i128), half as i128 - 1, g0)
        } else {
            (0, m as i128, (g0 & m) as i128)
        };
        (0..trips as i128).any(|x| !(lo..=hi).contains(&(start + s * x)))
    }

    fn case() -> impl Strategy<Value = (u32, LLVMIntPredicate, u64, u64, u64, u64, bool)> {
        (prop::sample::select(vec![8u32, 16, 32, 64]), prop::sample::select(ORDERED.to_vec()), any::<u64>(), any::<bool>()).prop_flat_map(
            |(w, pred, g0, g_left)| {
                let m = mask(w);
                // Steps of every size, small ones (the usual) most often;
                // u near g's range so both answers come up.
                let step = prop_oneof![3 => -4i64..=4, 1 => any::<i64>()].prop_map(move |s| s as u64 & m);
                let trips = prop_oneof![3 => 1u64..=64, 1 => 1u64..=700];
                (
                    Just(w),
                    Just(pred),
                    Just(g0 & m),
                    step,
                    trips,
                    prop_oneof![any::<u64>(), (-300i64..=300).prop_map(|d| d as u64)],
                    Just(g_left),
                )
                    .prop_map(move |(w, p, g0, s, c, u, l)| (w, p, g0, s, c, g0.wrapping_add(u) & m, l))
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// The pass's test never claims a compare true everywhere when some
        /// x makes it false.
        #[test]
        fn claim_is_sound((w, pred, g0, step, trips, u, g_left) in case()) {
            if claim(pred, w, g0, step, trips, u, g_left) == Some(true) {
                prop_assert!(everywhere(pred, w, g0, step, trips, u, g_left));
            }
        }

        /// The ends test for wrapping is exact when the span fits.
        #[test]
        fn nowrap_test_is_exact((w, pred, g0, step, trips, _u, _l) in case()) {
            if let Some(dir) = direction(step, w, trips) {
                let g = |x: u64| g0.wrapping_add(step.wrapping_mul(x)) & mask(w);
                let (le, g0_first) = nowrap_test(pred, dir);
                let (a, b) = if g0_first { (g(0), g(trips - 1)) } else { (g(trips - 1), g(0)) };
                prop_assert_eq!(compare(le, w, a, b), !wraps(is_signed(pred), w, g0, step, trips));
            }
        }
    }

    /// Every i8 case with a step of magnitude at most 3 and up to 90 trips:
    /// the claim is sound, and complete where nothing wraps.
    #[test]
    fn exhaustive_on_i8() {
        let (mut proved, mut refused) = (0u32, 0u32);
        for pred in ORDERED {
            for step in [0u64, 1, 2, 3, 253, 254, 255] {
                for trips in [1u64, 2, 3, 17, 90] {
                    for g0 in (0..256u64).step_by(3) {
                        for u in (0..256u64).step_by(5) {
                            for g_left in [true, false] {
                                let truth = everywhere(pred, 8, g0, step, trips, u, g_left);
                                match claim(pred, 8, g0, step, trips, u, g_left) {
                                    Some(true) => {
                                        assert!(truth, "{pred:?} g0={g0} s={step} C={trips} u={u} left={g_left}");
                                        proved += 1;
                                    }
                                    Some(false) if truth && !wraps(is_signed(pred), 8, g0, step, trips) => {
                                        panic!("refused a true compare without wrap: {pred:?} g0={g0} s={step} C={trips} u={u}")
                                    }
                                    Some(false) => refused += 1,
                                    None => {}
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(proved > 10_000 && refused > 10_000, "{proved} proved, {refused} refused");
    }

    #[test]
    fn direction_bounds_the_span() {
        assert_eq!(direction(1, 8, 256), Some(Direction::Up));
        assert_eq!(direction(1, 8, 257), None);
        assert_eq!(direction(255, 8, 256), Some(Direction::Down));
        assert_eq!(direction(2, 8, 129), None);
        assert_eq!(direction(128, 8, 2), Some(Direction::Up));
        assert_eq!(direction(128, 8, 3), None);
        assert_eq!(direction(0, 64, u64::MAX), Some(Direction::Up));
        assert_eq!(direction(u64::MAX, 64, 1 << 40), Some(Direction::Down));
    }
}
