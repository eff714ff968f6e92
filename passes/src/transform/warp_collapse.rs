//! Warp collapsing, the first step of `simt-warp-exchange`: a loop of
//! shuffles whose control the compiler can follow runs once per warp, on
//! vectors of its 32 lanes, instead of once per lane and shuffle between
//! warp barriers.
//!
//! Why: COX's exchange (`warp_exchange.rs`) makes each shuffle a warp
//! barrier, so `for (off = 16; off > 0; off >>= 1) v += __shfl_down_sync(
//! FULL, v, off)` runs five region runs per warp, each a lane loop that
//! reads the 32 values of the one before back from the buffer. On this
//! machine that memory round trip per step, not the adds, is the cost: a C
//! model of the loop ran 8x slower through memory than with the warp's
//! values in registers (BENCHMARKS.md), and block_sum_warp ran 3x slower
//! than the same sum through shared memory. A warp's lanes are a vector
//! of 32: a shuffle by a constant is a `shufflevector`, lane-wise
//! arithmetic a vector operation.
//!
//! ```text
//!  P: br H                           P: br C
//!  H: v = phi [v0, P], [v', H]       C: slot[0][lane] = v0        ; each lane
//!     off = phi [16, P], [off', H]      warp barrier
//!     t = shfl.down(v, off)             once(buffer, lanes)       ; once per warp:
//!     v' = v + t                        warp barrier              ;   <32 x float> v, five
//!     off' = off >> 1                   v' = slot[1][lane]        ;   permutes and adds
//!     br off' == 0, X, H                br X
//!  X: … v' …                         X: … v' …
//! ```
//!
//! `once` is the loop run on vectors: the compiler follows the loop's
//! control (every branch in it must fold to a constant once the values the
//! lanes share are folded: a trip count and shuffle offsets known at
//! compile time), so it is straight-line code; a lane-varying value is a
//! `<32 x T>`, a shared one stays scalar; a shuffle is a permutation of the
//! vector, and where the warp may be partial (`lanes` < 32: the last warp
//! of a block whose size is not a multiple of 32) a select keeps a lane's
//! own value where its source lane does not exist, as the exchange does.
//! Lanes past `lanes` compute from stale slots and are never read: the
//! operations allowed have no undefined behaviour on any input (no
//! integer division), so the garbage stays there. `simt-wiloops`' warp dispatcher
//! runs the region holding `once` for one lane only (`emit/warp.rs`).
//!
//! Taken: a loop (one preheader, one exit block) whose instructions are
//! integer and float arithmetic, compares, casts, selects, the pure LLVM
//! intrinsics of [`VECTOR_INTRINSICS`] (and the C maths functions equal to
//! one, `fmaxf` and the like, made intrinsics first), `laneid` and shuffles
//! (`shfl.sync.*` of the exchange) with constant offsets and clamps, of
//! which there is at least one; values crossing into or out of it of
//! integer or float types up to 64 bits; at most [`MAX_STEPS`] blocks run
//! and [`ROWS`] values in and out. Anything else is left to the exchange.
//! The member mask is not checked, as in the exchange. Host only: the
//! emulator runs the warp functions themselves, so host against emulator
//! (`tests/warp_fuzz.rs`, `tests/cuda_sources.rs`) checks this pass.

use crate::analysis::cache::FunctionAnalyses;
use crate::ir::globals::{add_function, add_global, intrinsic_declaration};
use crate::ir::{const_vector, function_name, instructions, parameters, terminator, Builder, Inst, Ty, Value};
use crate::transform::warp_exchange::{sreg, warp_fn, warp_lanes, WarpFn, WARP_BARRIER};
use inkwell::basic_block::BasicBlock;
use inkwell::module::{Linkage, Module};
use inkwell::values::FunctionValue;
use llvm_sys::{LLVMOpcode, LLVMTypeKind};
use std::collections::{HashMap, HashSet};

/// The function a collapsed loop becomes; `simt-wiloops` runs the region
/// that calls it once per warp.
pub const ONCE_PREFIX: &str = "simt.warp.once";
/// The buffer the lanes and `once` exchange values through: [`ROWS`] rows
/// of 32 slots of up to 8 bytes, each value a row.
const BUFFER: &str = "simt.warp.cbuf";
/// Values into and out of one loop, together.
pub const ROWS: usize = 16;
const ROW_BYTES: u64 = 32 * 8;
/// Blocks the compiler runs through to follow a loop's control.
pub const MAX_STEPS: usize = 256;
const WARP: u32 = 32;

/// The pure LLVM intrinsics whose vector forms `once` may call.
pub const VECTOR_INTRINSICS: &[&str] = &[
    "fma",
    "fmuladd",
    "fabs",
    "minnum",
    "maxnum",
    "minimum",
    "maximum",
    "sqrt",
    "copysign",
    "floor",
    "ceil",
    "trunc",
    "rint",
    "nearbyint",
    "round",
    "roundeven",
    "smin",
    "smax",
    "umin",
    "umax",
    "ctpop",
    "bitreverse",
    "bswap",
    "abs",
    "ctlz",
    "cttz",
];

/// C maths functions that are LLVM intrinsics, by base name. LLVM's
/// instcombine makes `fmaxf` `llvm.maxnum.f32` where the target has a C
/// library (the host's O3 does, later); clang leaves the calls for NVPTX,
/// and a call to `fmaxf` in a warp's `fmaxf(v, __shfl_xor_sync(…))` loop
/// kept it from collapsing (softmax_warp's max ran five exchanges).
const LIBM_INTRINSICS: &[(&str, &str)] = &[
    ("fmaxf", "maxnum"),
    ("fmax", "maxnum"),
    ("fminf", "minnum"),
    ("fmin", "minnum"),
    ("fabsf", "fabs"),
    ("fabs", "fabs"),
    ("copysignf", "copysign"),
    ("copysign", "copysign"),
    ("floorf", "floor"),
    ("floor", "floor"),
    ("ceilf", "ceil"),
    ("ceil", "ceil"),
    ("truncf", "trunc"),
    ("trunc", "trunc"),
    ("rintf", "rint"),
    ("rint", "rint"),
    ("nearbyintf", "nearbyint"),
    ("nearbyint", "nearbyint"),
    ("roundf", "round"),
    ("round", "round"),
];

/// Replaces `f`'s calls to the C maths functions of `LIBM_INTRINSICS`
/// (declarations, called with their C types: `float` or `double`
/// throughout) by the intrinsics, which [`plan`] can take.
pub fn libm_as_intrinsics<'ctx>(m: &Module<'ctx>, f: FunctionValue<'ctx>) {
    let calls: Vec<(Inst<'ctx>, &str)> = f
        .get_basic_block_iter()
        .flat_map(instructions)
        .filter_map(|i| {
            if !i.is_call() {
                return None;
            }
            let callee = i.called_function().filter(|c| c.count_basic_blocks() == 0)?;
            let name = function_name(callee);
            let &(_, base) = LIBM_INTRINSICS.iter().find(|(c, _)| *c == name)?;
            let t = i.ty();
            let arity = if matches!(base, "maxnum" | "minnum" | "copysign") { 2 } else { 1 };
            let typed = matches!(t.kind(), LLVMTypeKind::LLVMFloatTypeKind | LLVMTypeKind::LLVMDoubleTypeKind)
                && i.call_args().len() == arity
                && i.call_args().iter().all(|a| a.ty() == t);
            typed.then_some((i, base))
        })
        .collect();
    for &(i, base) in &calls {
        let mut b = Builder::new(i.value());
        b.position_before(i);
        let (callee, fty) = intrinsic_declaration(m, &format!("llvm.{base}"), &[i.ty()]);
        let call = b.call(fty, callee, &i.call_args(), "");
        b.copy_fast_math(i, call.value());
        i.value().replace_all_uses_with(call.value());
        i.erase();
    }
}

/// A loop that may collapse, as planned on the unchanged kernel.
pub struct Candidate<'ctx> {
    header: BasicBlock<'ctx>,
    pre: BasicBlock<'ctx>,
    blocks: HashSet<BasicBlock<'ctx>>,
    /// The values from outside it uses, each with whether all work-items
    /// of a block hold the same.
    inputs: Vec<(Value<'ctx>, bool)>,
    /// Its values used outside it.
    outputs: Vec<Value<'ctx>>,
    /// A shuffle in it, whose debug location the barriers take.
    shuffle: Inst<'ctx>,
}

impl<'ctx> Candidate<'ctx> {
    /// The loop's header, which names it.
    pub fn header(&self) -> BasicBlock<'ctx> {
        self.header
    }
}

/// The outermost loops of `fa`'s kernel that hold a shuffle and nothing a
/// vector cannot do (the header's "Taken", as far as it can be seen
/// without following the loop's control).
pub fn plan<'ctx>(fa: &FunctionAnalyses<'ctx>) -> Vec<Candidate<'ctx>> {
    let (cfg, li, uni) = (&fa.cfg, fa.loops(), fa.uniformity());
    let mut out: Vec<Candidate<'ctx>> = Vec::new();
    let mut taken: HashSet<BasicBlock<'ctx>> = HashSet::new();
    // Outer loops first: an inner loop of a taken one goes with it.
    let mut loops: Vec<_> = li.loops().map(|(_, l)| l).collect();
    loops.sort_by_key(|l| l.depth);
    for lp in loops {
        let header = cfg.block(lp.header);
        if taken.contains(&header) || lp.exits.len() != 1 {
            continue;
        }
        let blocks: HashSet<BasicBlock<'ctx>> = lp.blocks.iter().map(|&b| cfg.block(b)).collect();
        let outside: Vec<_> = cfg.cfg.preds(lp.header).iter().filter(|p| !lp.blocks.contains(p)).collect();
        let [&pre] = outside[..] else { continue };
        let pre = cfg.block(pre);
        let mut shuffle = None;
        let mut inputs: Vec<(Value<'ctx>, bool)> = Vec::new();
        let mut outputs = Vec::new();
        let mut fits = true;
        for i in lp.blocks.iter().flat_map(|&b| instructions(cfg.block(b))) {
            match kind(i) {
                Kind::Shuffle => shuffle = shuffle.or(Some(i)),
                Kind::Other => fits = false,
                _ => {}
            }
            for v in i.operands() {
                let from_outside = v.is_argument() || v.as_inst().is_some_and(|d| !blocks.contains(&d.block()));
                if from_outside && !inputs.iter().any(|(x, _)| *x == v) {
                    inputs.push((v, !uni.is_divergent(v)));
                }
            }
            if !i.is_void() && i.value().uses().iter().any(|(u, _)| !blocks.contains(&u.block())) {
                outputs.push(i.value());
            }
        }
        let crossing = inputs.iter().map(|(v, _)| *v).chain(outputs.iter().copied());
        let storable = crossing.clone().all(|v| slot_type(v.ty()).is_some());
        if let (true, true, Some(shuffle)) = (fits && storable, inputs.len() + outputs.len() <= ROWS, shuffle) {
            taken.extend(blocks.iter().copied());
            out.push(Candidate { header, pre, blocks, inputs, outputs, shuffle });
        }
    }
    out
}

/// What an instruction is to the collapsing.
#[derive(PartialEq, Eq)]
enum Kind {
    Shuffle,
    Lane,
    Intrinsic,
    Plain,
    Other,
}

fn kind(i: Inst<'_>) -> Kind {
    use LLVMOpcode::*;
    match i.opcode() {
        LLVMCall => {
            let Some(name) = i.called_function().map(function_name) else { return Kind::Other };
            if matches!(warp_fn(&name), Some(WarpFn::Shfl(_))) {
                Kind::Shuffle
            } else if name == "llvm.nvvm.read.ptx.sreg.laneid" {
                Kind::Lane
            } else if vector_intrinsic(&name).is_some() {
                Kind::Intrinsic
            } else {
                Kind::Other
            }
        }
        LLVMAdd | LLVMSub | LLVMMul | LLVMShl | LLVMLShr | LLVMAShr | LLVMAnd | LLVMOr | LLVMXor | LLVMFAdd | LLVMFSub | LLVMFMul
        | LLVMFDiv | LLVMFNeg | LLVMTrunc | LLVMZExt | LLVMSExt | LLVMFPToUI | LLVMFPToSI | LLVMUIToFP | LLVMSIToFP | LLVMFPTrunc
        | LLVMFPExt | LLVMBitCast | LLVMICmp | LLVMFCmp | LLVMSelect | LLVMFreeze | LLVMPHI | LLVMBr => Kind::Plain,
        _ => Kind::Other,
    }
}

/// The intrinsic's base name (`fma` of `llvm.fma.f32`), if `once` may call
/// its vector form.
fn vector_intrinsic(name: &str) -> Option<&'static str> {
    let rest = name.strip_prefix("llvm.")?;
    VECTOR_INTRINSICS.iter().copied().find(|b| rest.strip_prefix(b).is_some_and(|s| s.starts_with('.')))
}

/// How a value of type `t` sits in its slot: `t`, or `i8` for an `i1`.
fn slot_type(t: Ty<'_>) -> Option<Ty<'_>> {
    if t.is_integer() && t.int_width() == 1 {
        Some(t.int_in_context_of(8))
    } else if (t.is_integer() && t.int_width() <= 64)
        || matches!(
            t.kind(),
            LLVMTypeKind::LLVMHalfTypeKind
                | LLVMTypeKind::LLVMBFloatTypeKind
                | LLVMTypeKind::LLVMFloatTypeKind
                | LLVMTypeKind::LLVMDoubleTypeKind
        )
    {
        Some(t)
    } else {
        None
    }
}

/// A value of the loop, run for the whole warp.
#[derive(Clone, Copy)]
enum Lanes<'ctx> {
    /// The same in every lane.
    Shared(Value<'ctx>),
    /// `<32 x T>`, lane `l` in element `l`.
    Each(Value<'ctx>),
}

impl<'ctx> Lanes<'ctx> {
    fn value(self) -> Value<'ctx> {
        match self {
            Lanes::Shared(v) | Lanes::Each(v) => v,
        }
    }
}

/// Collapses `c` in module `m` (see the header); false, with nothing
/// changed, where its control cannot be followed at compile time.
pub fn apply<'ctx>(m: &Module<'ctx>, c: &Candidate<'ctx>) -> bool {
    let Some((once, exit_edge, results)) = build_once(m, c) else { return false };
    rewrite_kernel(m, c, once, exit_edge, &results);
    true
}

/// `once`'s function for `c`, the loop's exit edge it took and whether
/// each output is shared; `None` (and no function) where it cannot be
/// built.
type Built<'ctx> = (FunctionValue<'ctx>, (BasicBlock<'ctx>, BasicBlock<'ctx>), Vec<bool>);

fn build_once<'ctx>(m: &Module<'ctx>, c: &Candidate<'ctx>) -> Option<Built<'ctx>> {
    let ctx = m.get_context();
    let (i32t, void) = (Ty::of(ctx.i32_type()), Ty::of(ctx.void_type()));
    let local = Ty::of(ctx.ptr_type(inkwell::AddressSpace::from(3u16)));
    let f = add_function(m, ONCE_PREFIX, Ty::function(void, &[local, i32t]));
    f.set_linkage(Linkage::Internal);
    let entry = ctx.append_basic_block(f, "entry");
    let mut b = Builder::new(Value::from(f));
    b.position_at_end(entry);
    let params = parameters(f);
    let (buf, n) = (params[0], params[1]);
    let built = Follow { b: &mut b, m, buf, n, env: HashMap::new() }.run(c);
    match built {
        Some((edge, shared)) => Some((f, edge, shared)),
        None => {
            crate::ir::delete_function(f);
            None
        }
    }
}

struct Follow<'a, 'ctx> {
    b: &'a mut Builder<'ctx>,
    m: &'a Module<'ctx>,
    buf: Value<'ctx>,
    n: Value<'ctx>,
    env: HashMap<Value<'ctx>, Lanes<'ctx>>,
}

impl<'ctx> Follow<'_, 'ctx> {
    /// Loads the inputs, follows the loop and stores the outputs.
    fn run(&mut self, c: &Candidate<'ctx>) -> Option<((BasicBlock<'ctx>, BasicBlock<'ctx>), Vec<bool>)> {
        for (k, &(v, shared)) in c.inputs.iter().enumerate() {
            let st = slot_type(v.ty())?;
            let row = row(self.b, self.buf, k);
            let got = if shared {
                let x = self.b.load(st, row, "").value();
                Lanes::Shared(if st == v.ty() { x } else { self.b.trunc(x, v.ty(), "") })
            } else {
                let x = self.b.load(st.vector_of(WARP), row, "");
                x.set_alignment(align(st));
                let x = x.value();
                Lanes::Each(if st == v.ty() { x } else { self.b.trunc(x, v.ty().vector_of(WARP), "") })
            };
            self.env.insert(v, got);
        }
        let (mut block, mut pred) = (c.header, c.pre);
        let mut steps = 0;
        let edge = loop {
            steps += 1;
            if steps > MAX_STEPS {
                return None;
            }
            let phis: Vec<Inst<'ctx>> = instructions(block).take_while(|i| i.is_phi()).collect();
            let mut now = Vec::new();
            for p in &phis {
                let (v, _) = p.incoming().into_iter().find(|(_, from)| *from == pred)?;
                now.push(self.get(v)?);
            }
            for (p, v) in phis.iter().zip(now) {
                self.env.insert(p.value(), v);
            }
            let t = terminator(block)?;
            for i in instructions(block).skip(phis.len()).filter(|&i| i != t) {
                let v = self.emit(i)?;
                self.env.insert(i.value(), v);
            }
            if t.opcode() != LLVMOpcode::LLVMBr {
                return None;
            }
            let next = if t.is_conditional_terminator() {
                let Lanes::Shared(cond) = self.get(t.branch_condition())? else { return None };
                t.successors()[if cond.const_u64()? == 1 { 0 } else { 1 }]
            } else {
                t.successors()[0]
            };
            if !c.blocks.contains(&next) {
                break (block, next);
            }
            (pred, block) = (block, next);
        };
        let mut shared = Vec::new();
        for (k, &v) in c.outputs.iter().enumerate() {
            let got = *self.env.get(&v)?;
            let st = slot_type(v.ty())?;
            let row = row(self.b, self.buf, c.inputs.len() + k);
            let x = got.value();
            let one = matches!(got, Lanes::Shared(_));
            let t = if one { st } else { st.vector_of(WARP) };
            let x = if st == v.ty() { x } else { self.b.zext(x, t, "") };
            self.b.store(x, row).set_alignment(align(st));
            shared.push(one);
        }
        self.b.ret_void();
        Some((edge, shared))
    }

    /// What `v` is in the warp: an input or a value already run, or a
    /// constant (the same everywhere); `None` for any other value of the
    /// kernel, which `once` cannot see, and for globals.
    fn get(&self, v: Value<'ctx>) -> Option<Lanes<'ctx>> {
        match self.env.get(&v) {
            Some(&x) => Some(x),
            // Globals stay out: `simt-wiloops` moves local memory for the
            // kernel's uses only.
            None => (v.as_inst().is_none() && !v.is_argument() && !v.is_global() && !v.is_constant_expr()).then_some(Lanes::Shared(v)),
        }
    }

    fn vector(&mut self, v: Lanes<'ctx>) -> Value<'ctx> {
        match v {
            Lanes::Each(x) => x,
            Lanes::Shared(x) => self.b.splat(x, WARP),
        }
    }

    /// Runs instruction `i` for the warp.
    fn emit(&mut self, i: Inst<'ctx>) -> Option<Lanes<'ctx>> {
        match kind(i) {
            Kind::Lane => {
                let i32t = i.ty();
                Some(Lanes::Each(const_vector(&(0..WARP).map(|l| i32t.const_int(u64::from(l))).collect::<Vec<_>>())))
            }
            Kind::Shuffle => self.shuffle(i),
            Kind::Intrinsic => self.intrinsic(i),
            Kind::Plain => {
                let ops: Vec<Lanes<'ctx>> = i.operands().map(|v| self.get(v)).collect::<Option<_>>()?;
                if ops.iter().all(|o| matches!(o, Lanes::Shared(_))) {
                    let vals: Vec<Value<'ctx>> = ops.iter().map(|o| o.value()).collect();
                    return Some(Lanes::Shared(self.b.rebuild_like(i, &vals, i.ty())?));
                }
                slot_type(i.ty())?;
                // A select's shared condition picks whole vectors.
                let keep_first = i.opcode() == LLVMOpcode::LLVMSelect && matches!(ops[0], Lanes::Shared(_));
                let vals: Vec<Value<'ctx>> =
                    ops.iter().enumerate().map(|(k, &o)| if k == 0 && keep_first { o.value() } else { self.vector(o) }).collect();
                Some(Lanes::Each(self.b.rebuild_like(i, &vals, i.ty().vector_of(WARP))?))
            }
            Kind::Other => None,
        }
    }

    /// A pure intrinsic on the warp's vectors (a shared immediate, the
    /// `i1` of `abs`, `ctlz` and `cttz`, stays scalar).
    fn intrinsic(&mut self, i: Inst<'ctx>) -> Option<Lanes<'ctx>> {
        let name = function_name(i.called_function()?);
        let args: Vec<Lanes<'ctx>> = i.call_args().into_iter().map(|v| self.get(v)).collect::<Option<_>>()?;
        let each = args.iter().any(|a| matches!(a, Lanes::Each(_)));
        let ty = if each { i.ty().vector_of(WARP) } else { i.ty() };
        let immediate = matches!(vector_intrinsic(&name), Some("abs" | "ctlz" | "cttz"));
        let vals: Vec<Value<'ctx>> =
            args.iter().enumerate().map(|(k, &a)| if !each || (immediate && k > 0) { a.value() } else { self.vector(a) }).collect();
        let (f, fty) = intrinsic_declaration(self.m, &name, &[ty]);
        let call = self.b.call(fty, f, &vals, "");
        self.b.copy_fast_math(i, call.value());
        Some(if each { Lanes::Each(call.value()) } else { Lanes::Shared(call.value()) })
    }

    /// `shfl.sync.<mode>(mask, v, b, c)` with constant `b` and `c`: lane `l`
    /// takes lane `src(l)`'s `v` where PTX says it may and that lane
    /// exists, else keeps its own (the exchange's `simt.warp.shfl`).
    fn shuffle(&mut self, i: Inst<'ctx>) -> Option<Lanes<'ctx>> {
        let Some(WarpFn::Shfl(mode)) = warp_fn(&function_name(i.called_function()?)) else { return None };
        let args = i.call_args();
        let (Lanes::Shared(bv), Lanes::Shared(cv)) = (self.get(args[2])?, self.get(args[3])?) else { return None };
        let (bv, cv) = (bv.const_u64()? as u32, cv.const_u64()? as u32);
        let v = self.get(args[1])?;
        let v = self.vector(v);
        let mut from = Vec::new();
        let mut must_exist = Vec::new();
        for l in 0..WARP {
            let src = ptx_source(mode, l, bv, cv);
            from.push(src.unwrap_or(l));
            // A lane past its own exists only in a full warp.
            must_exist.push(src.filter(|&s| s > l));
        }
        let taken = self.b.permute(v, &from);
        if must_exist.iter().all(Option::is_none) {
            return Some(Lanes::Each(taken));
        }
        let i32t = self.n.ty();
        let need = const_vector(&must_exist.iter().map(|s| i32t.const_int(u64::from(s.unwrap_or(0)))).collect::<Vec<_>>());
        let lanes = self.b.splat(self.n, WARP);
        let exists = self.b.icmp(llvm_sys::LLVMIntPredicate::LLVMIntULT, need, lanes, "");
        Some(Lanes::Each(self.b.select(exists, taken, v, "")))
    }
}

/// The lane that lane `l` reads in `shfl.sync` mode `mode` (0 idx, 1 up,
/// 2 down, 3 bfly) with operand `b` and clamp/segment word `c`, if PTX
/// lets it read one (else it keeps its own value).
pub fn ptx_source(mode: u32, l: u32, b: u32, c: u32) -> Option<u32> {
    let (l, bv) = (l as i32, (b & 31) as i32);
    let seg = ((c >> 8) & 31) as i32;
    let min = l & seg;
    let max = min | ((c & 31) as i32 & !seg);
    let (j, ok) = match mode {
        0 => {
            let j = min | (bv & !seg);
            (j, j <= max)
        }
        1 => (l - bv, l - bv >= max),
        2 => (l + bv, l + bv <= max),
        _ => (l ^ bv, (l ^ bv) <= max),
    };
    (ok && (0..WARP as i32).contains(&j)).then_some(j as u32)
}

/// The alignment of a slot of type `t` (a vector of 32 of them is
/// aligned as one, not as its size).
fn align(t: Ty<'_>) -> u32 {
    match t.kind() {
        LLVMTypeKind::LLVMHalfTypeKind | LLVMTypeKind::LLVMBFloatTypeKind => 2,
        LLVMTypeKind::LLVMFloatTypeKind => 4,
        LLVMTypeKind::LLVMDoubleTypeKind => 8,
        _ => t.int_width().div_ceil(8),
    }
}

/// Row `k` of the buffer.
fn row<'ctx>(b: &mut Builder<'ctx>, buf: Value<'ctx>, k: usize) -> Value<'ctx> {
    let i8t = buf.ty().int_in_context_of(8);
    let at = buf.ty().int_in_context_of(64).const_int(k as u64 * ROW_BYTES);
    b.inbounds_gep(i8t, buf, &[at], "")
}

/// Replaces the loop by the lanes' writes, the barrier, `once`, the barrier
/// and the lanes' reads, and deletes it.
fn rewrite_kernel<'ctx>(
    m: &Module<'ctx>,
    c: &Candidate<'ctx>,
    once: FunctionValue<'ctx>,
    (exiting, exit): (BasicBlock<'ctx>, BasicBlock<'ctx>),
    shared: &[bool],
) {
    let ctx = m.get_context();
    let buf = match m.get_global(BUFFER) {
        Some(g) => Value::of(g.as_pointer_value()),
        None => {
            let ty = Ty::of(ctx.i8_type()).array(ROWS as u64 * ROW_BYTES);
            let g = add_global(m, BUFFER, ty, 3);
            g.set_initializer(ty.poison());
            g.set_global_alignment(64);
            m.get_global(BUFFER).expect("just added").set_linkage(Linkage::Internal);
            g
        }
    };
    let barrier = crate::ir::globals::function_or_declare(m, WARP_BARRIER, Ty::function(Ty::of(ctx.void_type()), &[]));
    let at = crate::ir::insert_block_before(c.header, "warp.collapsed");
    let mut b = Builder::new(Value::from(once));
    b.position_at_end(at);
    let lane = sreg(m, &mut b, "laneid");
    let lane64 = b.zext(lane, Ty::of(ctx.i64_type()), "");
    for (k, &(v, _)) in c.inputs.iter().enumerate() {
        let st = slot_type(v.ty()).expect("planned");
        let x = if st == v.ty() { v } else { b.zext(v, st, "") };
        let r = row(&mut b, buf, k);
        let slot = b.inbounds_gep(st, r, &[lane64], "");
        b.store(x, slot);
    }
    b.call_function(barrier, &[], "").copy_debug_location(c.shuffle);
    let n = warp_lanes(m, &mut b);
    b.call_function(Value::from(once), &[buf, n], "");
    b.call_function(barrier, &[], "").copy_debug_location(c.shuffle);
    let lane = sreg(m, &mut b, "laneid");
    let lane64 = b.zext(lane, Ty::of(ctx.i64_type()), "");
    let mut results = HashMap::new();
    for (k, (&v, &one)) in c.outputs.iter().zip(shared).enumerate() {
        let st = slot_type(v.ty()).expect("planned");
        let r = row(&mut b, buf, c.inputs.len() + k);
        let slot = if one { r } else { b.inbounds_gep(st, r, &[lane64], "") };
        let x = b.load(st, slot, "").value();
        results.insert(v, if st == v.ty() { x } else { b.trunc(x, v.ty(), "") });
    }
    b.br(exit);
    let pre_t = terminator(c.pre).expect("a terminated block");
    for (k, s) in pre_t.successors().into_iter().enumerate() {
        if s == c.header {
            pre_t.set_successor(k as u32, at);
        }
    }
    for phi in instructions(exit).take_while(|i| i.is_phi()).collect::<Vec<_>>() {
        let entries: Vec<(Value<'ctx>, BasicBlock<'ctx>)> = phi
            .incoming()
            .into_iter()
            .filter_map(|(v, from)| {
                let v = results.get(&v).copied().unwrap_or(v);
                if from == exiting {
                    Some((v, at))
                } else {
                    (!c.blocks.contains(&from)).then_some((v, from))
                }
            })
            .collect();
        let kept = phi.retain_incoming(|_| false);
        kept.add_incoming(&entries);
    }
    for (&v, &r) in &results {
        for (user, k) in v.uses() {
            if !c.blocks.contains(&user.block()) {
                user.set_operand(k, r);
            }
        }
    }
}
