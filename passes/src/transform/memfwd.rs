//! `simt-memfwd`: store-to-load forwarding on seed 003's byte-precise
//! chains, across the partial overlaps where LLVM's GVN gives up.
//!
//! A load is replaced by a value built from the stores that wrote its bytes
//! when the chains say, byte by byte (`use_bytes`), that exactly one
//! definition may have written each byte last, and that definition is a
//! plain store or a `memset` with an exact descriptor (one object, constant
//! offsets): no `entry`, no may-definition, nothing predicated. The store's
//! value then dominates the load and is what memory holds.
//!
//! ```text
//!   store i32 %a, ptr %p          ; bytes 0-3
//!   store i32 %b, ptr %p+4        ; bytes 4-7
//!   %v = load i64, ptr %p         ; little-endian: zext %a | (zext %b << 32)
//!   memset(%r, 7, 8)
//!   %f = load float, ptr %r+4     ; bitcast 0x07070707
//!        A: store i64 %x, p       B: store i32 %y, p ; store i32 %z, p+4
//!              \                     /
//!               J: %v = load i64, p        ->  phi [%x, A], [%y|%z<<32, B]
//! ```
//!
//! Where the supplier differs by path, a load in a join block (or below one,
//! down single-predecessor blocks that define nothing) takes a phi of values
//! assembled at the end of each predecessor. A load no store supplies takes
//! the value of the nearest load above it in its block of the same bytes
//! when nothing between may write that object. Bytes a `memcpy`/`memmove`
//! (exact on both sides) wrote come from what wrote its source, one level
//! deep. Pieces are integers (bitcast, `ptrtoint`) shifted by the data
//! layout's byte order, truncated, zero-extended, or-ed and cast back.
//!
//! Skipped: volatile and atomic loads; loads of anything but private
//! allocas in functions with a fence or an atomic (the chains see this
//! function's writes only: `barrier` is a definition, an acquire is not);
//! vectors and aggregates; types whose bits do not fill their bytes (`i1`);
//! non-integral pointers; masked stores, calls or inexact stores; joins
//! whose block defines memory before the load.
//!
//! Seed 003 (Cambricon: memory descriptors and kill sets); the details and
//! what GVN misses: `passes/DESIGN.md`, BENCHMARKS.md (scripts/bench-memfwd). Checked by
//! `passes/tests/memdeps_oracle.rs` (each forwarded byte was last written by
//! its store, by execution) and `tests/memfwd_exec.rs` (kernels run before
//! and after on the host and the emulator; a wrong shift put in on purpose,
//! [`Flaw`], is seen). `-pass-remarks=simt-memfwd`: one remark per function
//! that lost loads.

use crate::analysis::memdeps::dataflow::{byte_defs, ByteDefs};
use crate::analysis::memdeps::intervals::Interval;
use crate::analysis::memdeps::model::{AccessId, Def, DescId, Range, Ref};
use crate::analysis::memdeps::{from_llvm, MemDeps};
use crate::cfg::BlockId;
use crate::function_cfg::FunctionCfg;
use crate::ir::{data_layout_of, data_layout_string, defined_functions, function_name, Builder, Inst, IntOp, Ty, Value};
use crate::pass::{ModulePass, PassContext, PassError, Preserved};
use crate::remarks::{Arg, RemarkKind};
use inkwell::basic_block::BasicBlock;
use inkwell::targets::{ByteOrdering, TargetData};
use llvm_sys::LLVMOpcode;
use std::collections::HashMap;

/// A fault put in on purpose, for tests that must see it (wrong results).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Flaw {
    #[default]
    None,
    /// Takes the bytes of a wider store from the wrong end (a wrong shift).
    WrongEnd,
}

#[derive(Default)]
pub struct MemFwd {
    /// Print how many loads each function lost.
    stats: bool,
    pub flaw: Flaw,
}

impl MemFwd {
    pub fn with_flaw(flaw: Flaw) -> MemFwd {
        MemFwd { stats: false, flaw }
    }
}

/// Where some bytes of a load come from.
#[derive(Clone, Copy, Debug)]
enum Source<'ctx> {
    /// A store of `value` whose first byte is at object offset `at`.
    Store { value: Value<'ctx>, at: u64 },
    /// A `memset` of this `i8`.
    Memset { byte: Value<'ctx> },
}

/// Object bytes `[lo, hi]` of a load, from one source.
#[derive(Clone, Copy, Debug)]
struct Part<'ctx> {
    lo: u64,
    hi: u64,
    src: Source<'ctx>,
}

/// How one load is replaced. `lo..=hi` are its object bytes.
enum Plan<'ctx> {
    Direct {
        load: Inst<'ctx>,
        lo: u64,
        hi: u64,
        parts: Vec<Part<'ctx>>,
    },
    /// The value an earlier load of the same bytes in the block read.
    Reload {
        load: Inst<'ctx>,
        from: Inst<'ctx>,
    },
    /// `desc` names the bytes (object and interval) for sharing the phi.
    Phi {
        load: Inst<'ctx>,
        desc: DescId,
        lo: u64,
        hi: u64,
        join: BasicBlock<'ctx>,
        incoming: Vec<(BasicBlock<'ctx>, Vec<Part<'ctx>>)>,
    },
}

/// What the data layout says about turning values into bytes.
struct Layout {
    td: TargetData,
    big_endian: bool,
    /// Address spaces whose pointers have no integer form (`ni:`).
    non_integral: Vec<u32>,
}

impl Layout {
    fn of(f: inkwell::values::FunctionValue<'_>) -> Layout {
        let td = data_layout_of(f);
        let big_endian = td.get_byte_ordering() == ByteOrdering::BigEndian;
        let non_integral = data_layout_string(f)
            .split('-')
            .filter_map(|c| c.strip_prefix("ni:"))
            .flat_map(|l| l.split(':').filter_map(|n| n.parse().ok()).collect::<Vec<u32>>())
            .collect();
        Layout { td, big_endian, non_integral }
    }

    /// Scalars whose bits fill their bytes: integers, floats, pointers.
    fn scalar(&self, ty: Ty<'_>) -> bool {
        ty.is_scalar() && ty.is_sized() && ty.size_in_bits(&self.td) == 8 * ty.store_size(&self.td)
    }

    /// Whether a value of `ty` can become an integer and back.
    fn has_int_form(&self, ty: Ty<'_>) -> bool {
        ty.address_space().is_none_or(|a| !self.non_integral.contains(&a))
    }
}

impl ModulePass for MemFwd {
    fn name(&self) -> String {
        if self.stats {
            "simt-memfwd<stats>".into()
        } else {
            "simt-memfwd".into()
        }
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        let mut changed = false;
        let mut report = String::new();
        for f in defined_functions(cx.module()) {
            let layout = Layout::of(f);
            let plans = {
                let fa = cx.analyses(f);
                plan(fa.memdeps(), &fa.cfg, &layout)
            };
            if plans.is_empty() {
                continue;
            }
            let joined = plans.iter().filter(|p| matches!(p, Plan::Phi { .. })).count();
            let n = plans.len();
            apply(cx.module_mut(), &plans, &layout, self.flaw);
            changed = true;
            if self.stats {
                report += &format!("simt-memfwd: '{}': forwarded {n} loads ({joined} through a phi)\n", function_name(f));
            }
            cx.remark(RemarkKind::Passed, "LoadsForwarded", f, || {
                vec![
                    Arg::new("Function", function_name(f)),
                    Arg::text(": forwarded "),
                    Arg::new("NumLoads", n),
                    Arg::text(" loads ("),
                    Arg::new("NumThroughPhi", joined),
                    Arg::text(" through a phi)"),
                ]
            });
        }
        cx.out().write_all(report.as_bytes()).map_err(|e| PassError::Output { pass: self.name(), message: e.to_string() })?;
        // Instructions only: blocks and edges stay.
        Ok(if changed { Preserved::cfg_analyses() } else { Preserved::all() })
    }
}

/// The loads of a function that can be forwarded, and how.
fn plan<'ctx>(md: &MemDeps<'ctx>, fc: &FunctionCfg<'ctx>, layout: &Layout) -> Vec<Plan<'ctx>> {
    let p = &md.program;
    let mut block_of = vec![0usize; p.accesses.len()];
    for (b, list) in p.blocks.iter().enumerate() {
        for &a in list {
            block_of[a as usize] = b;
        }
    }
    // The chains see this function's writes and the calls it makes, not
    // other threads': a fence or an atomic may make another thread's write
    // visible (acquire) without defining anything here. With one in the
    // function, only private allocas whose address stays here are forwarded.
    let synchronizes = md
        .insts
        .iter()
        .any(|i| matches!(i.opcode(), LLVMOpcode::LLVMFence | LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg) || i.is_atomic());
    let private = |obj: u32| md.objects[obj as usize].is_some_and(|v| v.as_inst().is_some_and(|i| i.is_alloca()) && !from_llvm::escapes(v));
    let mut plans = Vec::new();
    for (k, access) in p.accesses.iter().enumerate() {
        let load = md.insts[k];
        if load.opcode() != LLVMOpcode::LLVMLoad || load.is_volatile() || load.is_atomic() || !layout.scalar(load.ty()) {
            continue;
        }
        let (Some(Ref::Must(d)), Some(bytes)) = (&access.use_, &md.solution.use_bytes[k]) else { continue };
        if synchronizes && !private(p.descs[*d as usize].obj) {
            continue;
        }
        let Range::Exact(lo, hi) = p.descs[*d as usize].range else { continue };
        let ty = load.ty();
        if let Some(parts) = supply(md, bytes, lo, hi, ty, layout) {
            plans.push(Plan::Direct { load, lo, hi, parts });
            continue;
        }
        let b = block_of[k];
        if let Some(from) = reload_of(md, &p.blocks[b], k, *d) {
            plans.push(Plan::Reload { load, from });
            continue;
        }
        // A join: each predecessor supplies the bytes, differently.
        let defines_before = p.blocks[b].iter().take_while(|&&a| a as usize != k).any(|&a| p.accesses[a as usize].def.is_some());
        let Some(join) = join_above(md, fc, b).filter(|_| !defines_before) else { continue };
        let preds = fc.cfg.preds(join);
        let mut incoming = Vec::new();
        for &pred in preds {
            let Some(st) = &md.solution.block_out[pred.index()] else { break };
            let Some(parts) = supply(md, &byte_defs(p, st, *d), lo, hi, ty, layout) else { break };
            incoming.push((fc.block(pred), parts));
        }
        if incoming.len() == preds.len() {
            plans.push(Plan::Phi { load, desc: *d, lo, hi, join: fc.block(join), incoming });
        }
    }
    plans
}

/// Load-to-load forwarding: the nearest load above access `k` in its block
/// (`block`, in order) of the same descriptor and type, when no access
/// between them may define any byte of that object (a def of one of its
/// descriptors, or of no descriptor: a call, an unknown pointer). Memory
/// then holds what the earlier load read.
fn reload_of<'ctx>(md: &MemDeps<'ctx>, block: &[AccessId], k: usize, d: DescId) -> Option<Inst<'ctx>> {
    let p = &md.program;
    let obj = p.descs[d as usize].obj;
    let at = block.iter().position(|&a| a as usize == k)?;
    for &a in block[..at].iter().rev() {
        let access = &p.accesses[a as usize];
        match &access.def {
            Some(Ref::Must(e)) if p.descs[*e as usize].obj == obj => return None,
            Some(Ref::May(objs)) if objs.contains(&obj) => return None,
            _ => {}
        }
        let i = md.insts[a as usize];
        let same = matches!(access.use_, Some(Ref::Must(u)) if u == d) && access.def.is_none();
        if same && i.opcode() == LLVMOpcode::LLVMLoad && !i.is_volatile() && !i.is_atomic() && i.ty() == md.insts[k].ty() {
            return Some(i);
        }
    }
    None
}

/// A forwarded load's access number and, for each run of its object bytes,
/// the access (store or memset) it takes them from.
pub type Sources = (u32, Vec<(Interval, u32)>);

/// For the execution oracle (`passes/tests/memdeps_oracle.rs`): each load
/// the pass would replace without a phi, and where its bytes come from.
pub fn direct_sources(md: &MemDeps<'_>, fc: &FunctionCfg<'_>) -> Vec<Sources> {
    let layout = Layout::of(fc.function);
    let access_of: HashMap<Inst<'_>, u32> = md.insts.iter().enumerate().map(|(k, &i)| (i, k as u32)).collect();
    let mut out = Vec::new();
    for plan in plan(md, fc, &layout) {
        let Plan::Direct { load, .. } = plan else { continue };
        let k = access_of[&load];
        let runs = md.solution.use_bytes[k as usize].as_ref().expect("planned from its bytes");
        let from = runs
            .iter()
            .map(|&(run, ref defs)| match defs.as_slice() {
                [Def::Access(a)] => (run, *a),
                _ => unreachable!("a planned load has one definition per byte"),
            })
            .collect();
        out.push((k, from));
    }
    out
}

/// The join whose entry state is block `b`'s: `b` itself if it has two or
/// more predecessors, else the first such block up the chain of single
/// predecessors, if no block on the way defines memory. It dominates `b`.
fn join_above(md: &MemDeps<'_>, fc: &FunctionCfg<'_>, b: usize) -> Option<BlockId> {
    let mut at = BlockId(b as u32);
    // Bounded: a cycle of single-predecessor blocks is unreachable.
    for _ in 0..64 {
        if at == fc.cfg.entry() {
            return None;
        }
        match fc.cfg.preds(at) {
            [] => return None,
            [one] => {
                if md.program.blocks[one.index()].iter().any(|&a| md.program.accesses[a as usize].def.is_some()) {
                    return None;
                }
                at = *one;
            }
            _ => return Some(at),
        }
    }
    None
}

/// The sources of bytes `[lo, hi]` when each has exactly one definition
/// that may have written it last, a store or memset this pass can read.
fn supply<'ctx>(md: &MemDeps<'ctx>, bytes: &ByteDefs, lo: u64, hi: u64, ty: Ty<'ctx>, layout: &Layout) -> Option<Vec<Part<'ctx>>> {
    let mut parts: Vec<Part<'ctx>> = Vec::new();
    for &((rlo, rhi), ref defs) in bytes {
        let [Def::Access(a)] = defs.as_slice() else { return None };
        match source(md, *a as usize, layout) {
            Some(src) => parts.push(Part { lo: rlo, hi: rhi, src }),
            None => parts.extend(through_copy(md, *a as usize, rlo, rhi, layout)?),
        }
    }
    // A store of the load's own type over exactly its bytes needs no casts;
    // everything else goes through integers.
    let whole = matches!(parts.as_slice(), [Part { lo: l, hi: h, src: Source::Store { value, at } }]
        if *l == lo && *h == hi && *at == lo && value.ty() == ty);
    let int_forms = layout.has_int_form(ty)
        && parts.iter().all(|p| match p.src {
            Source::Store { value, .. } => layout.has_int_form(value.ty()),
            Source::Memset { .. } => true,
        });
    (whole || int_forms).then_some(parts)
}

/// Bytes `[lo, hi]` written by access `a` when it is a `memcpy`/`memmove`
/// with exact descriptors on both sides: the stores and memsets that wrote
/// the source bytes last, as the chains say at the copy (one each, read
/// before the copy writes). Every path to the load passes the copy and
/// every path to the copy passes those stores, so their values dominate the
/// load. A store's `at` is moved into the destination's offsets (it may go
/// below 0: offsets are taken modulo 2^64, as `Builder` uses them).
fn through_copy<'ctx>(md: &MemDeps<'ctx>, a: usize, lo: u64, hi: u64, layout: &Layout) -> Option<Vec<Part<'ctx>>> {
    let p = &md.program;
    let access = &p.accesses[a];
    let copy = md.insts[a];
    let is_copy = copy.opcode() == LLVMOpcode::LLVMCall
        && copy.intrinsic_name().is_some_and(|n| n.starts_with("llvm.memcpy") || n.starts_with("llvm.memmove"))
        && copy.num_call_args() >= 4
        && copy.operand(3).const_u64() == Some(0);
    let (Some(Ref::Must(dst)), Some(Ref::Must(src))) = (&access.def, &access.use_) else { return None };
    let (Range::Exact(dlo, _), Range::Exact(slo, _)) = (p.descs[*dst as usize].range, p.descs[*src as usize].range) else { return None };
    if !is_copy || access.predicated {
        return None;
    }
    let bytes = md.solution.use_bytes[a].as_ref()?;
    let (from, to) = ((lo.checked_sub(dlo)?) + slo, (hi.checked_sub(dlo)?) + slo);
    let mut parts = Vec::new();
    for &((rlo, rhi), ref defs) in bytes {
        let (rlo, rhi) = (rlo.max(from), rhi.min(to));
        if rlo > rhi {
            continue;
        }
        let [Def::Access(s)] = defs.as_slice() else { return None };
        let src = match source(md, *s as usize, layout)? {
            Source::Store { value, at } => Source::Store { value, at: at.wrapping_add(dlo).wrapping_sub(slo) },
            m @ Source::Memset { .. } => m,
        };
        parts.push(Part { lo: rlo - slo + dlo, hi: rhi - slo + dlo, src });
    }
    Some(parts)
}

/// What access `a` writes, if it is a plain store or memset of an exact
/// descriptor whose bytes this pass can take apart.
fn source<'ctx>(md: &MemDeps<'ctx>, a: usize, layout: &Layout) -> Option<Source<'ctx>> {
    let access = &md.program.accesses[a];
    let Some(Ref::Must(d)) = access.def else { return None };
    let Range::Exact(at, _) = md.program.descs[d as usize].range else { return None };
    if access.predicated {
        return None;
    }
    let i = md.insts[a];
    match i.opcode() {
        LLVMOpcode::LLVMStore if !i.is_volatile() && !i.is_atomic() && layout.scalar(i.operand(0).ty()) => {
            Some(Source::Store { value: i.operand(0), at })
        }
        LLVMOpcode::LLVMCall
            if i.intrinsic_name().is_some_and(|n| n.starts_with("llvm.memset"))
                && i.num_call_args() >= 4
                && i.operand(3).const_u64() == Some(0) =>
        {
            Some(Source::Memset { byte: i.operand(1) })
        }
        _ => None,
    }
}

/// Builds every planned value, then replaces the loads (a value may be built
/// from a load that another plan replaces: the replacement reaches it too).
fn apply<'ctx>(_module: &mut inkwell::module::Module<'ctx>, plans: &[Plan<'ctx>], layout: &Layout, flaw: Flaw) {
    let mut done: Vec<(Inst<'ctx>, Value<'ctx>)> = Vec::new();
    let mut phis: HashMap<(BasicBlock<'ctx>, DescId, Ty<'ctx>), Value<'ctx>> = HashMap::new();
    for plan in plans {
        match plan {
            Plan::Direct { load, lo, hi, parts } => {
                let mut b = Builder::new(load.value());
                b.position_before(*load);
                let v = Assemble { b: &mut b, layout, flaw }.value(parts, *lo, *hi, load.ty());
                done.push((*load, v));
            }
            Plan::Reload { load, from } => done.push((*load, from.value())),
            Plan::Phi { load, desc, lo, hi, join, incoming } => {
                // Several loads of the same bytes below one join share its phi.
                let key = (*join, *desc, load.ty());
                if let Some(&phi) = phis.get(&key) {
                    done.push((*load, phi));
                    continue;
                }
                let mut b = Builder::new(load.value());
                let mut entries = Vec::new();
                for (pred, parts) in incoming {
                    let term = crate::ir::terminator(*pred).expect("a predecessor ends in a terminator");
                    b.position_before(term);
                    let v = Assemble { b: &mut b, layout, flaw }.value(parts, *lo, *hi, load.ty());
                    // One entry per edge: a switch may branch here twice.
                    let edges = crate::ir::successors(*pred).into_iter().filter(|s| s == join).count();
                    entries.extend(std::iter::repeat_n((v, *pred), edges));
                }
                let first = join.get_first_instruction().map(Inst::from).expect("the join holds the load");
                b.position_before(first);
                let phi = b.phi(load.ty(), "fwd");
                phi.add_incoming(&entries);
                phis.insert(key, phi.value());
                done.push((*load, phi.value()));
            }
        }
    }
    // A load's value may be another forwarded load itself (a store of a
    // loaded value, used as it is): follow what that one became.
    let mut became: HashMap<Value<'ctx>, Value<'ctx>> = HashMap::new();
    for (load, mut v) in done {
        while let Some(&w) = became.get(&v) {
            v = w;
        }
        load.value().replace_all_uses_with(v);
        load.erase();
        became.insert(load.value(), v);
    }
}

/// Turns stored values into the bytes of a load, at the builder's position.
struct Assemble<'b, 'ctx> {
    b: &'b mut Builder<'ctx>,
    layout: &'b Layout,
    flaw: Flaw,
}

impl<'ctx> Assemble<'_, 'ctx> {
    fn value(&mut self, parts: &[Part<'ctx>], lo: u64, hi: u64, ty: Ty<'ctx>) -> Value<'ctx> {
        if let [Part { lo: l, hi: h, src: Source::Store { value, at } }] = parts {
            if *l == lo && *h == hi && *at == lo && value.ty() == ty {
                return *value;
            }
        }
        let bits = (8 * (hi - lo + 1)) as u32;
        let int_ty = ty.int_in_context_of(bits);
        let mut acc: Option<Value<'ctx>> = None;
        for part in parts {
            let len = part.hi - part.lo + 1;
            let piece_ty = ty.int_in_context_of((8 * len) as u32);
            let piece = match part.src {
                Source::Store { value, at } => {
                    let size = value.ty().store_size(&self.layout.td);
                    let whole = self.as_int(value);
                    // Byte `at + k` of the store is bits 8k.. of its value on a
                    // little-endian target, bits 8(size-1-k).. on a big-endian one.
                    let from_low = self.layout.big_endian == (self.flaw == Flaw::WrongEnd);
                    // Wrapping: `at` of a store seen through a copy is in
                    // the destination's offsets and may be below 0.
                    let skip = if from_low { part.lo.wrapping_sub(at) } else { at.wrapping_add(size - 1).wrapping_sub(part.hi) };
                    let shifted = if skip > 0 { self.b.lshr(whole, whole.ty().const_int(8 * skip), "fwd.shr") } else { whole };
                    if len < size {
                        self.b.trunc(shifted, piece_ty, "fwd.part")
                    } else {
                        shifted
                    }
                }
                Source::Memset { byte } => self.splat(byte, piece_ty, len),
            };
            let wide = if len < hi - lo + 1 { self.b.zext(piece, int_ty, "fwd.ext") } else { piece };
            let place = if self.layout.big_endian { hi - part.hi } else { part.lo - lo };
            let placed = if place > 0 { self.b.shl(wide, int_ty.const_int(8 * place), "fwd.shl") } else { wide };
            acc = Some(match acc {
                None => placed,
                Some(a) => self.b.int_op(IntOp::Or, a, placed, "fwd.or"),
            });
        }
        let v = acc.expect("a load has bytes");
        self.int_as(v, ty)
    }

    /// `byte` repeated over the `len` bytes of `ty`, by doubling.
    fn splat(&mut self, byte: Value<'ctx>, ty: Ty<'ctx>, len: u64) -> Value<'ctx> {
        let mut v = if len > 1 { self.b.zext(byte, ty, "fwd.set") } else { byte };
        let mut have = 1;
        while have < len {
            let up = self.b.shl(v, ty.const_int(8 * have), "fwd.set");
            v = self.b.int_op(IntOp::Or, v, up, "fwd.set");
            have *= 2;
        }
        v
    }

    fn as_int(&mut self, v: Value<'ctx>) -> Value<'ctx> {
        let ty = v.ty();
        if ty.is_integer() {
            return v;
        }
        let int_ty = ty.int_in_context_of((8 * ty.store_size(&self.layout.td)) as u32);
        if ty.is_pointer() {
            self.b.ptr_to_int(v, int_ty, "fwd.int")
        } else {
            self.b.bit_cast(v, int_ty, "fwd.int")
        }
    }

    fn int_as(&mut self, v: Value<'ctx>, ty: Ty<'ctx>) -> Value<'ctx> {
        if ty.is_integer() {
            v
        } else if ty.is_pointer() {
            self.b.int_to_ptr(v, ty, "fwd.ptr")
        } else {
            self.b.bit_cast(v, ty, "fwd.val")
        }
    }
}

impl crate::pass::DeclaredPass for MemFwd {
    const NAME: &'static str = "simt-memfwd";
    const SUMMARY: &'static str =
        "forwards stores to loads by seed 003's per-byte memory chains: partial overlaps, several stores, memset, phis at joins";
    const SEED: Option<&'static str> = Some("003");
    const OPTIONS: &'static [(&'static str, &'static str)] = &[("stats", "print how many loads each function lost")];

    fn set_option(&mut self, key: &str, value: Option<&str>) -> Result<(), String> {
        match (key, value) {
            ("stats", None) => self.stats = true,
            _ => return Err(crate::pass::unknown_option::<Self>(key)),
        }
        Ok(())
    }
}
