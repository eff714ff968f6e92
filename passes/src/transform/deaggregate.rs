//! `simt-deaggregate-atomics<local-size=X,Y,Z>`: on the host engine, a
//! warp-aggregated atomic on shared memory becomes one atomic per lane again.
//!
//! Why: on a GPU the atomics of a warp's lanes to one address are serialised,
//! so CUDA code aggregates them. The lanes that would add to the same place
//! find each other (`__match_any_sync(mask, key)` for a key-addressed bin,
//! `__activemask()` or `__ballot_sync(mask, p)` for one counter) and one of
//! them, the leader, adds the group's count:
//!
//! ```text
//!   unsigned peers = __match_any_sync(FULL, bin);
//!   if (bin >= 0 && lane == __ffs(peers) - 1) atomicAdd(&bins[bin], __popc(peers));
//! becomes
//!   if (bin >= 0) atomicAdd(&bins[bin], 1);      // every lane of the group
//! ```
//!
//! On the host a block runs on one core, and `simt-local-atomics` makes its
//! shared atomics plain adds: there is nothing to serialise, and what is left
//! is the cost of aggregating. The match is a warp barrier
//! (`simt-warp-exchange`) and 32 compares per lane, and the leader test is a
//! branch on data. Every lane adding its own 1 gives the same sums (integer
//! addition commutes), and leaves the match and the leader test dead: the
//! histogram of the issue-24 corpus ran 6.5x the time of the same kernel
//! without aggregation.
//!
//! Sound when (each is checked):
//! - the group is well defined: `M` is `match.any.sync(FULL, key)` (a
//!   lane's group: the lanes with its key), `activemask` (the lanes that run
//!   it) or `vote.ballot.sync(FULL, p)` (the lanes whose `p` holds; the new
//!   test asks each lane its own `p`), with a full mask, so that each lane
//!   that runs the call is in a group;
//! - the leader test is `lane == cttz(M)` (`__ffs(M) - 1`) or
//!   `lane == 31 - ctlz(M)`: one lane of each group, as a member's `M` holds
//!   itself. `lane` is `%laneid`, or `threadIdx.x & 31` (`% 32`) where the
//!   launch's block makes that the lane (`local-size`: x a multiple of 32, or
//!   y = z = 1);
//! - whatever else the branch tests, the atomics' addresses, and every branch
//!   between the warp function and the test are the same across the group:
//!   built from `M`, the key, constants, arguments, globals and block-uniform
//!   ids. So all of a group reach the test, and all would add to one place;
//! - the leader's side of the branch does nothing but such atomics (integer
//!   `add`/`sub` of `popc(M)`, not volatile, result unused) and computations
//!   used only there, and its other side is the join;
//! - the atomics' object is one `__shared__` variable, and nothing else in
//!   the barrier interval around them (what other work-items of the block
//!   may run meanwhile) touches it but atomic adds and subtracts whose result
//!   is unused: no work-item can see the partial sums, the only thing that
//!   changes (one at a time instead of popc at once).
//!
//! Limits: integer add and subtract only (float sums would round
//! differently); global memory never (another block may read it while the
//! kernel runs); an atomic whose result is used stays (a warp-aggregated
//! increment that hands out slots, `atomicAggInc`: which slot each lane gets
//! would change). The leader test must be one branch: `lane == 0` leaders of
//! a ballot are not taken. Runs before `simt-warp-exchange`, on the host
//! only: the emulator runs the aggregation as written, so comparing the two
//! checks this pass. Seed: none; COX and CuPBoP run the aggregation as
//! written.

use crate::function_cfg::FunctionCfg;
use crate::ir::{debug_location, defined_functions, function_name, instructions, Builder, Inst, Value};
use crate::kernel_model::{builtin_of, is_kernel, Builtin, LOCAL_ADDRESS_SPACE};
use crate::pass::{DeclaredPass, ModulePass, PassContext, PassError, Preserved};
use crate::remarks::{Arg, RemarkKind};
use crate::transform::ifconvert::is_pure_call;
use crate::transform::warp_exchange::{warp_fn, WarpFn};
use inkwell::basic_block::BasicBlock;
use inkwell::values::FunctionValue;
use llvm_sys::{LLVMAtomicRMWBinOp, LLVMIntPredicate, LLVMOpcode as O};
use std::collections::{HashMap, HashSet};

#[derive(Clone, Debug, Default)]
pub struct DeaggregateAtomics {
    /// The block size of the launch: where it is known, `threadIdx.x & 31`
    /// may be the lane.
    pub local_size: Option<[u64; 3]>,
}

impl DeclaredPass for DeaggregateAtomics {
    const NAME: &'static str = "simt-deaggregate-atomics";
    const SUMMARY: &'static str =
        "warp-aggregated atomics on shared memory (a leader adding popc of a match_any, ballot or activemask group) become one add per lane (host)";
    const OPTIONS: &'static [(&'static str, &'static str)] =
        &[("local-size=X,Y,Z", "the block size of the launch (without it only %laneid is taken for the lane)")];

    fn set_option(&mut self, key: &str, value: Option<&str>) -> Result<(), String> {
        match key {
            "local-size" => {
                self.local_size = Some(crate::pass::parse_local_size(value)?);
                Ok(())
            }
            _ => Err(crate::pass::unknown_option::<Self>(key)),
        }
    }
}

impl ModulePass for DeaggregateAtomics {
    fn name(&self) -> String {
        match self.local_size {
            Some([x, y, z]) => format!("{}<local-size={x},{y},{z}>", Self::NAME),
            None => Self::NAME.into(),
        }
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        let mut changed = false;
        for f in defined_functions(cx.module()).into_iter().filter(|&f| is_kernel(f)) {
            let fc = &cx.analyses(f).cfg;
            let found: Vec<(String, Result<Plan<'_>, String>)> =
                fc.blocks().iter().filter_map(|&bb| leader_branch(bb, self.local_size)).map(|c| (place(&c), plan(fc, c))).collect();
            for (at, result) in found {
                match result {
                    Ok(p) => {
                        let n = p.atomics.len();
                        apply(p);
                        changed = true;
                        cx.remark(RemarkKind::Passed, "Deaggregated", f, || {
                            leader_remark(
                                f,
                                &at,
                                [
                                    Arg::text(" dropped: each lane of the group runs its "),
                                    Arg::new("NumAtomics", n),
                                    Arg::text(" atomic(s) with 1 for popc"),
                                ],
                            )
                        });
                    }
                    Err(why) => cx.remark(RemarkKind::Missed, "NotDeaggregated", f, || {
                        leader_remark(f, &at, [Arg::text(" stays: "), Arg::new("Reason", why)])
                    }),
                }
            }
        }
        // Values, operands and branch conditions changed; no edge did.
        Ok(if changed { Preserved::cfg_analyses() } else { Preserved::all() })
    }
}

/// A remark on the leader test at `at` of `f`: what became of it.
fn leader_remark(f: FunctionValue<'_>, at: &str, verdict: impl IntoIterator<Item = Arg>) -> Vec<Arg> {
    let mut args = vec![Arg::new("Function", function_name(f)), Arg::text(": the leader test at "), Arg::new("Location", at)];
    args.extend(verdict);
    args
}

/// A conditional branch one of whose conjuncts is a leader test.
struct Candidate<'ctx> {
    branch: Inst<'ctx>,
    /// The warp function that forms the groups (`M`), and which it is.
    source: Inst<'ctx>,
    kind: WarpFn,
    /// The conjuncts of the branch's condition, in order, and which is the
    /// leader test.
    leaves: Vec<Value<'ctx>>,
    leader: usize,
}

/// What the pass changes at one leader test.
struct Plan<'ctx> {
    candidate: Candidate<'ctx>,
    /// A member's own condition for being in its group: `p` of a ballot;
    /// none for `match.any` and `activemask`, whose groups hold every lane.
    member: Option<Value<'ctx>>,
    atomics: Vec<Inst<'ctx>>,
}

/// The leader test as remarks name it: `file:line:col` of its branch, else
/// its text.
fn place(c: &Candidate<'_>) -> String {
    match debug_location(c.branch) {
        Some((file, line, col)) => format!("{file}:{line}:{col}"),
        None => format!("`{}`", short(c.leaves[c.leader])),
    }
}

/// The conjuncts of `c`: through `and` and `select(a, b, false)`.
fn conjuncts(c: Value<'_>) -> Vec<Value<'_>> {
    let Some(i) = c.as_inst() else { return vec![c] };
    let is_false = |v: Value<'_>| v.const_u64() == Some(0);
    match i.opcode() {
        O::LLVMAnd => [i.operand(0), i.operand(1)].into_iter().flat_map(conjuncts).collect(),
        O::LLVMSelect if is_false(i.operand(2)) => [i.operand(0), i.operand(1)].into_iter().flat_map(conjuncts).collect(),
        _ => vec![c],
    }
}

/// `bb`'s conditional branch, if exactly one of its conjuncts is a leader
/// test (see the header).
fn leader_branch(bb: BasicBlock<'_>, local_size: Option<[u64; 3]>) -> Option<Candidate<'_>> {
    let branch = crate::ir::terminator(bb)?;
    if branch.opcode() != O::LLVMBr || !branch.is_conditional_terminator() {
        return None;
    }
    let leaves = conjuncts(branch.branch_condition());
    let tests: Vec<(usize, (Inst<'_>, WarpFn))> =
        leaves.iter().enumerate().filter_map(|(k, &l)| leader_test(l, local_size).map(|m| (k, m))).collect();
    let [(leader, (source, kind))] = tests[..] else { return None };
    // `M != 0` holds for every member of a group (its `M` holds itself):
    // a test of it would keep `M` alive for nothing.
    let nonzero = |v: Value<'_>| {
        v.as_inst().is_some_and(|i| {
            i.opcode() == O::LLVMICmp
                && i.icmp_predicate() == LLVMIntPredicate::LLVMIntNE
                && i.operand(0) == source.value()
                && i.operand(1).const_u64() == Some(0)
        })
    };
    let leader_value = leaves[leader];
    let leaves: Vec<Value<'_>> = leaves.into_iter().filter(|&l| !nonzero(l)).collect();
    let leader = leaves.iter().position(|&l| l == leader_value).expect("the leader test is no `M != 0`");
    Some(Candidate { branch, source, kind, leaves, leader })
}

/// The group-forming warp function `M` of `lane == cttz(M)` or
/// `lane == 31 - ctlz(M)`, and which it is.
fn leader_test<'ctx>(v: Value<'ctx>, local_size: Option<[u64; 3]>) -> Option<(Inst<'ctx>, WarpFn)> {
    let i = v.as_inst()?;
    if i.opcode() != O::LLVMICmp || i.icmp_predicate() != LLVMIntPredicate::LLVMIntEQ {
        return None;
    }
    let (a, b) = (i.operand(0), i.operand(1));
    [(a, b), (b, a)].into_iter().find_map(|(lane, pick)| if is_lane(lane, local_size) { picked_from(pick) } else { None })
}

/// `M` of `cttz(M)`, `ctlz(M) ^ 31` or `31 - ctlz(M)`, where `M` forms
/// groups, and which warp function `M` is.
fn picked_from<'ctx>(v: Value<'ctx>) -> Option<(Inst<'ctx>, WarpFn)> {
    let i = v.as_inst()?;
    let call_of = |v: Value<'ctx>, prefix: &str| {
        v.as_inst().filter(|c| c.is_call() && c.called_function_name().is_some_and(|n| n.starts_with(prefix))).map(|c| c.operand(0))
    };
    let m = match i.opcode() {
        O::LLVMCall => call_of(v, "llvm.cttz.")?,
        O::LLVMXor if i.operand(1).const_u64() == Some(31) => call_of(i.operand(0), "llvm.ctlz.i32")?,
        O::LLVMSub if i.operand(0).const_u64() == Some(31) => call_of(i.operand(1), "llvm.ctlz.i32")?,
        _ => return None,
    };
    let m = m.as_inst().filter(|m| m.is_call())?;
    // A full member mask: every lane that runs the call is in its own
    // group (one outside the mask, undefined in CUDA, would not be).
    let full = || m.operand(0).const_u64() == Some(u64::from(u32::MAX));
    match m.called_function_name().and_then(|n| warp_fn(&n))? {
        WarpFn::Active => Some((m, WarpFn::Active)),
        kind @ (WarpFn::MatchAny | WarpFn::Vote(0)) if full() => Some((m, kind)),
        _ => None,
    }
}

/// Whether `v` is the work-item's lane: `%laneid`, or `threadIdx.x & 31`
/// (`% 32`) in a block where that is the lane.
fn is_lane(v: Value<'_>, local_size: Option<[u64; 3]>) -> bool {
    let Some(i) = v.as_inst() else { return false };
    if builtin_of(i) == Some(Builtin::LaneId) {
        return true;
    }
    // The lane is the linear id's low five bits; x's are those where rows
    // of the block are whole warps, or there is one row.
    let x_is_linear = local_size.is_some_and(|[x, y, z]| x % 32 == 0 || y * z == 1);
    let mask = match i.opcode() {
        O::LLVMAnd => 31,
        O::LLVMURem => 32,
        _ => return false,
    };
    let tid_x = |v: Value<'_>| v.as_inst().is_some_and(|t| builtin_of(t) == Some(Builtin::LocalId(0)));
    x_is_linear && i.operand(1).const_u64() == Some(mask) && tid_x(i.operand(0))
}

/// Which values are the same for every lane of one group: those built
/// from `M`, the key, constants, arguments and block-uniform ids.
struct GroupUniform<'ctx> {
    source: Value<'ctx>,
    key: Option<Value<'ctx>>,
    memo: HashMap<Value<'ctx>, bool>,
}

impl<'ctx> GroupUniform<'ctx> {
    fn new(source: Inst<'ctx>, kind: WarpFn) -> Self {
        let key = (kind == WarpFn::MatchAny).then(|| source.operand(1));
        GroupUniform { source: source.value(), key, memo: HashMap::new() }
    }

    fn holds(&mut self, v: Value<'ctx>) -> bool {
        self.holds_within(v, 64)
    }

    fn holds_within(&mut self, v: Value<'ctx>, depth: u32) -> bool {
        if v == self.source || Some(v) == self.key || v.is_constant() || v.is_argument() {
            return true;
        }
        if let Some(&known) = self.memo.get(&v) {
            return known;
        }
        let Some(i) = v.as_inst() else { return false };
        let computed = depth > 0
            && match i.opcode() {
                O::LLVMCall => match builtin_of(i) {
                    Some(b) => b != Builtin::Barrier && !b.is_divergent(),
                    None => is_pure_call(i) && (0..i.num_call_args()).all(|k| self.holds_within(i.operand(k), depth - 1)),
                },
                op if crate::ir::is_plain_int_op(op) => i.operands().all(|o| self.holds_within(o, depth - 1)),
                O::LLVMFreeze | O::LLVMGetElementPtr | O::LLVMBitCast | O::LLVMAddrSpaceCast => {
                    i.operands().all(|o| self.holds_within(o, depth - 1))
                }
                // Loads (another work-item may store between two lanes'
                // reads), phis (a value of another iteration or path),
                // divisions (not needed by the shapes taken) and the rest.
                _ => false,
            };
        self.memo.insert(v, computed);
        computed
    }
}

/// Checks a leader test against the header's conditions.
fn plan<'ctx>(fc: &FunctionCfg<'ctx>, c: Candidate<'ctx>) -> Result<Plan<'ctx>, String> {
    let mut gu = GroupUniform::new(c.source, c.kind);
    let member = (c.kind == WarpFn::Vote(0)).then(|| c.source.operand(1));
    for (k, &leaf) in c.leaves.iter().enumerate() {
        if k != c.leader && !gu.holds(leaf) {
            return Err(format!("the branch also tests {}, which may differ within a group", short(leaf)));
        }
    }
    if let Some(split) = splitting_branch(fc, c.source, c.branch.block(), &mut gu) {
        return Err(format!("{split}, between the warp function and the test, may split a group"));
    }
    let [leader_side, join] = c.branch.successors()[..] else { unreachable!("a conditional br has two successors") };
    let region = leader_region(fc, c.branch.block(), leader_side, join)?;
    let mut atomics = Vec::new();
    for &bb in &region {
        for i in instructions(bb) {
            match i.opcode() {
                O::LLVMAtomicRMW => atomics.push(aggregated_atomic(i, c.source, &mut gu)?),
                O::LLVMBr if i.is_conditional_terminator() && !gu.holds(i.branch_condition()) => {
                    return Err(format!("the leader's side branches on {}, which may differ within a group", short(i.branch_condition())));
                }
                O::LLVMBr => {}
                _ if has_effect(i) => return Err(format!("the leader's side also does `{}`", short(i.value()))),
                _ => {
                    if let Some(u) = i.users().into_iter().find(|u| !region.contains(&u.block())) {
                        return Err(format!("{} is computed on the leader's side and used by {}", short(i.value()), short(u.value())));
                    }
                }
            }
        }
    }
    if atomics.is_empty() {
        return Err("the leader's side has no atomic".into());
    }
    for phi in instructions(join).take_while(|i| i.is_phi()) {
        let from: Vec<Value<'ctx>> =
            phi.incoming().into_iter().filter(|(_, b)| *b == c.branch.block() || region.contains(b)).map(|(v, _)| v).collect();
        if from.windows(2).any(|w| w[0] != w[1]) {
            return Err(format!("{} at the join tells the leader from the rest", short(phi.value())));
        }
    }
    for &a in &atomics {
        private_in_interval(fc, a)?;
    }
    Ok(Plan { candidate: c, member, atomics })
}

/// The first branch on a path from `source` to `to` (not through `source`
/// again) whose condition may differ within a group, as its text.
fn splitting_branch<'ctx>(fc: &FunctionCfg<'ctx>, source: Inst<'ctx>, to: BasicBlock<'ctx>, gu: &mut GroupUniform<'ctx>) -> Option<String> {
    let (from, to) = (fc.id(source.block())?, fc.id(to)?);
    if from == to {
        return None;
    }
    let reach = |start: Vec<_>, next: &dyn Fn(crate::cfg::BlockId) -> Vec<crate::cfg::BlockId>| {
        let mut seen: HashSet<_> = start.iter().copied().collect();
        let mut work = start;
        while let Some(b) = work.pop() {
            for n in next(b) {
                if n != from && seen.insert(n) {
                    work.push(n);
                }
            }
        }
        seen
    };
    let after = reach(fc.cfg.succs(from).to_vec(), &|b| if b == to { vec![] } else { fc.cfg.succs(b).to_vec() });
    let before = reach(vec![to], &|b| fc.cfg.preds(b).to_vec());
    let mut between: Vec<_> = after.intersection(&before).copied().filter(|&b| b != to).collect();
    between.push(from);
    between.sort();
    between.into_iter().map(|b| fc.block(b)).find_map(|bb| {
        let t = crate::ir::terminator(bb)?;
        let uniform = match t.opcode() {
            O::LLVMBr => !t.is_conditional_terminator() || gu.holds(t.branch_condition()),
            O::LLVMSwitch => gu.holds(t.operand(0)),
            _ => false,
        };
        (!uniform).then(|| format!("`{}`", short(t.value())))
    })
}

/// The blocks of the leader's side: from `start`, up to `join`. They must be
/// entered only from `branch_block` and left only to `join`.
fn leader_region<'ctx>(
    fc: &FunctionCfg<'ctx>,
    branch_block: BasicBlock<'ctx>,
    start: BasicBlock<'ctx>,
    join: BasicBlock<'ctx>,
) -> Result<Vec<BasicBlock<'ctx>>, String> {
    if start == join {
        return Err("both sides of the branch are the join".into());
    }
    let mut region = vec![start];
    let mut k = 0;
    while k < region.len() {
        let bb = region[k];
        k += 1;
        if bb == branch_block {
            return Err("the leader's side loops back to the test".into());
        }
        for s in crate::ir::successors(bb) {
            if s != join && !region.contains(&s) {
                region.push(s);
            }
        }
    }
    for &bb in &region {
        let id = fc.id(bb).expect("a block of the function");
        let outside = fc.cfg.preds(id).iter().map(|&p| fc.block(p)).find(|p| *p != branch_block && !region.contains(p));
        if let Some(p) = outside {
            return Err(format!("the leader's side is also entered from %{}", p.get_name().to_string_lossy()));
        }
    }
    Ok(region)
}

/// `a` if it adds or subtracts `popc(M)` (of the same width, or cast) to an
/// address the same across a group, with its result unused.
fn aggregated_atomic<'ctx>(a: Inst<'ctx>, source: Inst<'ctx>, gu: &mut GroupUniform<'ctx>) -> Result<Inst<'ctx>, String> {
    use LLVMAtomicRMWBinOp::*;
    if !matches!(a.atomic_rmw_op(), LLVMAtomicRMWBinOpAdd | LLVMAtomicRMWBinOpSub) || a.is_volatile() {
        return Err(format!("`{}` is not an integer add or subtract", short(a.value())));
    }
    if a.value().has_uses() {
        return Err(format!("the result of `{}` is used", short(a.value())));
    }
    let mut v = a.operand(1);
    while let Some(i) = v.as_inst().filter(|i| matches!(i.opcode(), O::LLVMZExt | O::LLVMSExt | O::LLVMTrunc)) {
        v = i.operand(0);
    }
    let popc = v.as_inst().is_some_and(|i| {
        i.is_call() && i.called_function_name().is_some_and(|n| n.starts_with("llvm.ctpop.")) && i.operand(0) == source.value()
    });
    if !popc {
        return Err(format!("`{}` does not add the group's popc", short(a.value())));
    }
    if !gu.holds(a.operand(0)) {
        return Err(format!("the address of `{}` may differ within a group", short(a.value())));
    }
    Ok(a)
}

/// Why other work-items of the block might see the partial sums of atomic
/// `a`, if they might: its object is not one `__shared__` variable, or
/// something in the barrier interval around `a` other than an unused
/// atomic add or subtract may touch it.
fn private_in_interval<'ctx>(fc: &FunctionCfg<'ctx>, a: Inst<'ctx>) -> Result<(), String> {
    let Object::Global(g) = object_of(a.operand(0)) else {
        return Err(format!("`{}` is not to a __shared__ variable", short(a.value())));
    };
    if g.address_space() != Some(LOCAL_ADDRESS_SPACE) {
        return Err(format!("`{}` is to global memory, which other blocks may read meanwhile", short(a.value())));
    }
    for i in barrier_interval(fc, a) {
        let pointer = match i.opcode() {
            O::LLVMLoad | O::LLVMAtomicRMW | O::LLVMAtomicCmpXchg => Some(i.operand(0)),
            O::LLVMStore => Some(i.operand(1)),
            O::LLVMCall if !touches_memory(i) => None,
            O::LLVMCall | O::LLVMInvoke | O::LLVMCallBr => {
                return Err(format!("`{}`, between the same barriers, may touch %{}", short(i.value()), g.name()))
            }
            _ => None,
        };
        let Some(p) = pointer else { continue };
        let may_alias = match object_of(p) {
            Object::Global(h) => h == g,
            Object::Argument | Object::Alloca => false,
            Object::Unknown => true,
        };
        let commutes = i.opcode() == O::LLVMAtomicRMW
            && matches!(i.atomic_rmw_op(), LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpAdd | LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpSub)
            && !i.is_volatile()
            && !i.value().has_uses();
        if may_alias && !commutes {
            return Err(format!("`{}`, between the same barriers, may see the partial sums in %{}", short(i.value()), g.name()));
        }
    }
    Ok(())
}

/// Whether a call may read or write memory that a work-item's loads and
/// stores reach (warp functions exchange through none of it).
fn touches_memory(call: Inst<'_>) -> bool {
    let name = call.called_function_name().unwrap_or_default();
    !(is_pure_call(call)
        || builtin_of(call).is_some()
        || warp_fn(&name).is_some()
        || name.starts_with("llvm.lifetime.")
        || name.starts_with("llvm.assume")
        || call.call_memory() == crate::ir::CallMemory::None)
}

/// What a pointer points into, as far as the pass needs it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Object<'ctx> {
    Global(Value<'ctx>),
    /// A kernel argument: the host's memory, never a block's shared memory.
    Argument,
    Alloca,
    Unknown,
}

/// The object `p` is derived from, through GEPs, casts, and selects and phis
/// whose every value has the same one.
fn object_of(p: Value<'_>) -> Object<'_> {
    let mut seen = HashSet::new();
    let mut found: Option<Object<'_>> = None;
    let mut work = vec![p];
    while let Some(p) = work.pop() {
        if !seen.insert(p) {
            continue;
        }
        let here = if p.is_global() {
            Object::Global(p)
        } else if p.is_argument() {
            Object::Argument
        } else {
            match p.opcode() {
                Some(O::LLVMGetElementPtr | O::LLVMBitCast | O::LLVMAddrSpaceCast) => {
                    work.push(p.operand(0));
                    continue;
                }
                Some(O::LLVMSelect) => {
                    work.extend([p.operand(1), p.operand(2)]);
                    continue;
                }
                Some(O::LLVMPHI) => {
                    work.extend(p.as_inst().expect("a phi instruction").incoming_values());
                    continue;
                }
                Some(O::LLVMAlloca) => Object::Alloca,
                _ => Object::Unknown,
            }
        };
        if found.is_some_and(|f| f != here) {
            return Object::Unknown;
        }
        found = Some(here);
    }
    found.unwrap_or(Object::Unknown)
}

/// The instructions that other work-items of the block may run while one
/// runs `at`: everything reachable, without crossing a barrier, from the
/// barriers (or the entry) from which `at` is reachable without crossing one.
fn barrier_interval<'ctx>(fc: &FunctionCfg<'ctx>, at: Inst<'ctx>) -> Vec<Inst<'ctx>> {
    let is_barrier = |i: Inst<'_>| i.is_call() && builtin_of(i) == Some(Builtin::Barrier);
    // Where the interval starts: after a barrier, or at a block's top.
    let mut starts: Vec<(BasicBlock<'ctx>, Option<Inst<'ctx>>)> = Vec::new();
    let mut seen = HashSet::new();
    let mut work: Vec<(BasicBlock<'ctx>, Option<Inst<'ctx>>)> = vec![(at.block(), Some(at))];
    while let Some((bb, below)) = work.pop() {
        let mut before: Vec<Inst<'ctx>> = instructions(bb).take_while(|&i| Some(i) != below).collect();
        if below.is_none() && !seen.insert(bb) {
            continue;
        }
        before.reverse();
        if let Some(b) = before.into_iter().find(|&i| is_barrier(i)) {
            starts.push((bb, Some(b)));
            continue;
        }
        let preds = fc.cfg.preds(fc.id(bb).expect("a block of the function"));
        if preds.is_empty() {
            starts.push((bb, None));
        }
        work.extend(preds.iter().map(|&p| (fc.block(p), None)));
    }
    let mut out = Vec::new();
    let mut entered = HashSet::new();
    let mut work = starts;
    while let Some((bb, after)) = work.pop() {
        if after.is_none() && !entered.insert(bb) {
            continue;
        }
        let mut rest = instructions(bb);
        if let Some(b) = after {
            rest.by_ref().find(|&i| i == b);
        }
        let mut crossed = false;
        for i in rest {
            if is_barrier(i) {
                crossed = true;
                break;
            }
            out.push(i);
        }
        if !crossed {
            work.extend(crate::ir::successors(bb).into_iter().map(|s| (s, None)));
        }
    }
    out
}

/// Whether skipping or repeating `i` could change what the program does.
fn has_effect(i: Inst<'_>) -> bool {
    match i.opcode() {
        O::LLVMCall => !is_pure_call(i),
        O::LLVMLoad | O::LLVMStore | O::LLVMAtomicCmpXchg | O::LLVMFence | O::LLVMAlloca | O::LLVMVAArg | O::LLVMInvoke | O::LLVMCallBr => {
            true
        }
        _ => i.is_terminator() && i.opcode() != O::LLVMBr,
    }
}

/// `v` as a remark names it: its name, else its printed text.
fn short(v: Value<'_>) -> String {
    let name = v.name();
    if name.is_empty() {
        v.print().trim().to_string()
    } else {
        format!("%{name}")
    }
}

/// Drops the leader test: the branch tests the other conjuncts (and a
/// ballot member's own `p`), and each atomic adds 1; then the leader test,
/// the popc and `M` go where nothing else uses them.
fn apply(p: Plan<'_>) {
    let c = &p.candidate;
    let old = c.branch.branch_condition();
    let mut b = Builder::new(old);
    b.position_before(c.branch);
    let bool_false = old.ty().const_int(0);
    let tests = p.member.into_iter().chain(c.leaves.iter().enumerate().filter(|(k, _)| *k != c.leader).map(|(_, &v)| v));
    // Selects, not `and`s: a later conjunct may be poison where an earlier
    // one is false, as in the original's own selects.
    let cond = tests.reduce(|acc, v| b.select(acc, v, bool_false, "deagg.test")).unwrap_or_else(|| old.ty().const_int(1));
    c.branch.set_operand(0, cond);
    let mut dead = vec![old];
    for &a in &p.atomics {
        dead.push(a.operand(1));
        a.set_operand(1, a.operand(1).ty().const_int(1));
    }
    erase_dead(dead);
    if !c.source.value().has_uses() {
        c.source.erase();
    }
}

/// Erases the unused, effect-free instructions among `values`, then their
/// operands the same way.
fn erase_dead(mut values: Vec<Value<'_>>) {
    let mut erased = HashSet::new();
    while let Some(v) = values.pop() {
        if erased.contains(&v) {
            continue;
        }
        let Some(i) = v.as_inst() else { continue };
        if v.has_uses() || has_effect(i) || i.is_terminator() || i.is_phi() {
            continue;
        }
        values.extend(i.operands());
        erased.insert(v);
        i.erase();
    }
}
