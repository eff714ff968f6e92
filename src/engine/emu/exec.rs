//! The interpreter: work-groups one after another, the warps of a group in
//! turn, each warp's lane groups as its reconvergence policy picks them.
//!
//! One call of `Machine::exec` runs one lane group (an `Entry`) from its
//! PC until something the policy decides on happens; uniform branches stay
//! inside the loop. Every instruction is applied to the group's lanes with
//! one loop over the mask (a plain `0..width` loop when all lanes are on);
//! operands are register offsets, so a lane's value is one indexed load.
//!
//! Work-group barriers count work-items: a group that reaches a barrier
//! waits there, the warp runs its other groups, then the other warps run;
//! when nothing can run, every work-item still running must wait at the same
//! barrier, or the launch fails naming the two barriers (or a barrier and
//! the kernel's exit) as the host engine does.

use super::check::{self, Checker, Kind};
use super::memory::{ADDR_BITS, MAX_REGIONS, OFF_MASK};
use super::objects::{Object, ObjectLayout};
use super::policy::{self, Warp};
use super::program::*;
use super::regfile::{RegFile, Regs};
use super::regions::{Owned, Regions, Side};
use super::trace::Trace;
use crate::engine::buffers::{ArgValue, KernelArgs, LocalLayout};
use crate::launch::Checks;
use crate::launch::{Grid, Policy};
use simt_passes::kernel_model::Builtin;
use std::collections::BTreeSet;
use std::marker::PhantomData;

/// What one launch did, summed over its work-groups.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Instructions issued, each for one lane group of one warp.
    pub warp_instructions: u64,
    /// Sum over issued instructions of the lanes that ran them.
    pub lane_instructions: u64,
    /// Convergence checks performed: `markers`: checks executed; `ipdom`:
    /// arrivals of a path at its reconvergence point.
    pub convergence_checks: u64,
    /// Lane groups merged into others (at checks, reconvergence points, or
    /// for `markers` after a barrier).
    pub merges: u64,
    pub divergent_branches: u64,
    /// Divergent branches per block (layout order).
    pub block_divergence: Vec<u64>,
    /// Lane groups that entered each block and ran its conditional branch
    /// (`--profile`, [`super::profile`]).
    pub blocks: super::profile::BlockCounts,
    /// Barriers completed, per work-group.
    pub barriers: u64,
    /// The most lane groups one warp had at once.
    pub max_groups: u64,
    pub work_groups: u64,
    pub warps: u64,
    /// `simt-check-uniformity` checks executed (each for one lane group).
    pub uniformity_checks: u64,
}

/// A run-time error inside a warp.
#[derive(Debug)]
pub struct Fault {
    pub pc: u32,
    pub warp: u32,
    pub lane: Option<u32>,
    pub kind: FaultKind,
}

#[derive(Debug)]
pub enum FaultKind {
    Msg(String),
    Mem {
        what: &'static str,
        addr: u64,
        size: u64,
    },
    /// Check `id` saw `a` in the fault's lane and `b` in lane `other`.
    Uniformity {
        id: u32,
        other: u32,
        a: u64,
        b: u64,
        ptr: bool,
    },
}

/// Why `exec` stopped.
enum Ev {
    /// `ipdom`: the group arrived at its reconvergence point.
    Reached,
    /// A divergent branch at the end of this block; targets in `targets`.
    Split(u32),
    /// A convergence check was passed; the group now stands at this PC.
    Check(u32),
    /// Waiting at barrier `id`; continues at PC.
    Barrier(u32, u32),
    Exit,
}

macro_rules! lanes {
    ($mask:expr, $full:expr, $w:expr, |$l:ident| $body:block) => {{
        let m_: u64 = $mask;
        if m_ == $full {
            for $l in 0..$w $body
        } else {
            let mut mm_ = m_;
            while mm_ != 0 {
                let $l = mm_.trailing_zeros() as usize;
                mm_ &= mm_ - 1;
                $body
            }
        }
    }};
}

/// Register `$s` (an offset, slot × width) of lane `$l` in the warp's
/// register file `$r`. A validated [`Program`] keeps every offset's leaves
/// below `nslots × width`, the length the file was made with; the file
/// (`super::regfile`) indexes without a bounds check and stays in bounds for
/// any offset and lane.
macro_rules! reg {
    ($r:ident, $s:expr, $l:expr) => {
        $r[($s as u32, $l)]
    };
}

#[inline(always)]
fn mask_of(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Sign-extends the low `64 - sh` bits.
#[inline(always)]
fn sx(x: u64, sh: u32) -> i64 {
    ((x << sh) as i64) >> sh
}

#[inline(always)]
fn f32of(x: u64) -> f32 {
    f32::from_bits(x as u32)
}

#[inline(always)]
fn f64of(x: u64) -> f64 {
    f64::from_bits(x)
}

#[inline(always)]
fn b32(x: f32) -> u64 {
    x.to_bits() as u64
}

#[inline(always)]
fn b64(x: f64) -> u64 {
    x.to_bits()
}

/// A unary float operation at one precision; the two precisions differ only
/// in type and in which C library functions they call.
macro_rules! float_unary {
    ($name:ident, $t:ty, $exp10:path, $erf:path, $erfc:path, $tgamma:path, $lgamma:path) => {
        fn $name(op: FUOp, x: $t) -> $t {
            match op {
                FUOp::Neg => -x,
                FUOp::Abs => x.abs(),
                FUOp::Sqrt => x.sqrt(),
                FUOp::Floor => x.floor(),
                FUOp::Ceil => x.ceil(),
                FUOp::Trunc => x.trunc(),
                FUOp::Round => x.round(),
                FUOp::Rint => x.round_ties_even(),
                FUOp::Exp => x.exp(),
                FUOp::Exp2 => x.exp2(),
                FUOp::Exp10 => $exp10(x),
                FUOp::Log => x.ln(),
                FUOp::Log2 => x.log2(),
                FUOp::Log10 => x.log10(),
                FUOp::Sin => x.sin(),
                FUOp::Cos => x.cos(),
                FUOp::Tan => x.tan(),
                FUOp::Asin => x.asin(),
                FUOp::Acos => x.acos(),
                FUOp::Atan => x.atan(),
                FUOp::Sinh => x.sinh(),
                FUOp::Cosh => x.cosh(),
                FUOp::Tanh => x.tanh(),
                FUOp::Asinh => x.asinh(),
                FUOp::Acosh => x.acosh(),
                FUOp::Atanh => x.atanh(),
                FUOp::Cbrt => x.cbrt(),
                FUOp::Expm1 => x.exp_m1(),
                FUOp::Log1p => x.ln_1p(),
                FUOp::Erf => $erf(x),
                FUOp::Erfc => $erfc(x),
                FUOp::Tgamma => $tgamma(x),
                FUOp::Lgamma => $lgamma(x),
            }
        }
    };
}

float_unary!(f32_un, f32, super::math::exp10f, super::math::erff, super::math::erfcf, super::math::tgammaf, super::math::lgammaf);
float_unary!(f64_un, f64, super::math::exp10, super::math::erf, super::math::erfc, super::math::tgamma, super::math::lgamma);

/// A binary float operation at one precision; the two precisions differ only
/// in type and in which C library remainder they call.
macro_rules! float_binary {
    ($name:ident, $t:ty, $remainder:path) => {
        fn $name(op: FOp, x: $t, y: $t) -> $t {
            match op {
                FOp::Add => x + y,
                FOp::Sub => x - y,
                FOp::Mul => x * y,
                FOp::Div => x / y,
                FOp::Rem => x % y,
                FOp::MinNum => x.min(y),
                FOp::MaxNum => x.max(y),
                FOp::Minimum => {
                    if x.is_nan() || y.is_nan() {
                        x + y
                    } else if x < y {
                        x
                    } else if y < x {
                        y
                    } else if x.is_sign_negative() {
                        x
                    } else {
                        y
                    }
                }
                FOp::Maximum => {
                    if x.is_nan() || y.is_nan() {
                        x + y
                    } else if x > y {
                        x
                    } else if y > x {
                        y
                    } else if x.is_sign_positive() {
                        x
                    } else {
                        y
                    }
                }
                FOp::CopySign => x.copysign(y),
                FOp::Pow => x.powf(y),
                FOp::Atan2 => x.atan2(y),
                FOp::Hypot => x.hypot(y),
                FOp::Fdim => {
                    if x.is_nan() || y.is_nan() {
                        x + y
                    } else if x > y {
                        x - y
                    } else {
                        0.0
                    }
                }
                FOp::Remainder => $remainder(x, y),
            }
        }
    };
}

float_binary!(f32_bin, f32, super::math::remainderf);
float_binary!(f64_bin, f64, super::math::remainder);

fn fcmp(p: FPred, uno: bool, lt: bool, eq: bool, gt: bool) -> bool {
    match p.0 {
        0 => false,
        1 => eq,
        2 => gt,
        3 => gt || eq,
        4 => lt,
        5 => lt || eq,
        6 => lt || gt,
        7 => !uno,
        8 => uno,
        9 => uno || eq,
        10 => uno || gt,
        11 => uno || gt || eq,
        12 => uno || lt,
        13 => uno || lt || eq,
        14 => uno || !eq,
        _ => true,
    }
}

/// `atomicrmw`: the value stored, from the old value and the operand.
fn rmw(op: RmwOp, ty: MemTy, old: u64, v: u64) -> u64 {
    let bits = ty.bits as u32;
    let mk = mask_of(bits);
    let sh = 64 - bits;
    let float = |f32op: fn(f32, f32) -> f32, f64op: fn(f64, f64) -> f64| {
        if ty.size == 4 {
            b32(f32op(f32of(old), f32of(v)))
        } else {
            b64(f64op(f64of(old), f64of(v)))
        }
    };
    let r = match op {
        RmwOp::Xchg => v,
        RmwOp::Add => old.wrapping_add(v),
        RmwOp::Sub => old.wrapping_sub(v),
        RmwOp::And => old & v,
        RmwOp::Nand => !(old & v),
        RmwOp::Or => old | v,
        RmwOp::Xor => old ^ v,
        RmwOp::Max => {
            if sx(old, sh) >= sx(v, sh) {
                old
            } else {
                v
            }
        }
        RmwOp::Min => {
            if sx(old, sh) <= sx(v, sh) {
                old
            } else {
                v
            }
        }
        RmwOp::UMax => old.max(v),
        RmwOp::UMin => old.min(v),
        RmwOp::FAdd => float(|a, b| a + b, |a, b| a + b),
        RmwOp::FSub => float(|a, b| a - b, |a, b| a - b),
        RmwOp::FMax => float(f32::max, f64::max),
        RmwOp::FMin => float(f32::min, f64::min),
        RmwOp::FMaximum => float(|a, b| f32_bin(FOp::Maximum, a, b), |a, b| f64_bin(FOp::Maximum, a, b)),
        RmwOp::FMinimum => float(|a, b| f32_bin(FOp::Minimum, a, b), |a, b| f64_bin(FOp::Minimum, a, b)),
        RmwOp::UIncWrap => {
            if old >= v {
                0
            } else {
                old + 1
            }
        }
        RmwOp::UDecWrap => {
            if old == 0 || old > v {
                v
            } else {
                old - 1
            }
        }
        RmwOp::USubCond => {
            if old >= v {
                old - v
            } else {
                old
            }
        }
        RmwOp::USubSat => old.saturating_sub(v),
    };
    r & mk
}

fn put_bits(buf: &mut [u64; 16], pos: usize, bits: usize, v: u64) {
    for k in 0..bits {
        let bit = (v >> k) & 1;
        let p = pos + k;
        buf[p / 64] |= bit << (p % 64);
    }
}

fn get_bits(buf: &[u64; 16], pos: usize, bits: usize) -> u64 {
    let mut v = 0;
    for k in 0..bits {
        let p = pos + k;
        v |= ((buf[p / 64] >> (p % 64)) & 1) << k;
    }
    v
}

/// Phi copies of `edge` for the lanes in `m`.
#[inline(always)]
fn copy_edge(edge: &Edge, m: u64, full: u64, w: usize, r: &mut Regs<'_>, temps: R) {
    if edge.copies.is_empty() {
        return;
    }
    if !edge.via_temps {
        for &(d, s) in edge.copies.iter() {
            lanes!(m, full, w, |l| {
                reg!(r, d, l) = reg!(r, s, l);
            });
        }
    } else {
        for (k, &(_, s)) in edge.copies.iter().enumerate() {
            let t = temps + (k * w) as u32;
            lanes!(m, full, w, |l| {
                reg!(r, t, l) = reg!(r, s, l);
            });
        }
        for (k, &(d, _)) in edge.copies.iter().enumerate() {
            let t = temps + (k * w) as u32;
            lanes!(m, full, w, |l| {
                reg!(r, d, l) = reg!(r, t, l);
            });
        }
    }
}

/// The emulator state of one launch. Borrows the arguments' buffers.
pub struct Machine<'a> {
    p: &'a Program,
    policy: Policy,
    w: usize,
    full: u64,
    grid: Grid,
    items: u64,
    /// Every region: the arguments' buffers, local, global and private memory.
    mem: Regions<'a>,
    local: Owned,
    local_bytes: u64,
    private: Option<Owned>,
    warps: Vec<Warp>,
    group: [u64; 3],
    /// This work-group's local size: the grid's, or smaller in a
    /// non-uniform launch's last work-groups (lanes past it are not valid).
    group_local: [u64; 3],
    pub c: Counters,
    /// Scratch: (edge, lanes) of a divergent branch, then (PC, lanes).
    targets: Vec<(u32, u64)>,
    /// The PC at which the last `exec` stopped.
    stop_pc: u32,
    /// `--trace`: where the lane groups' moves are written.
    pub trace: Option<Box<Trace>>,
    /// `--check races,uninit,warp`: the checks, when on.
    pub check: Option<Box<Checker>>,
    /// `__local` arguments: parameter, offset in local memory, bytes.
    local_args: Vec<(usize, u64, u64)>,
    /// Each `__local` variable and argument and each private array in a
    /// region of its own ([`super::objects`]).
    objects: ObjectLayout,
    /// Advanced by one per work-group run (a terminal's progress bar).
    pub progress: Option<indicatif::ProgressBar>,
    _args: PhantomData<&'a mut KernelArgs>,
}

impl<'a> Machine<'a> {
    /// Sets up memory and warps for launching `p` over `grid` with `args`.
    pub fn new(p: &'a Program, grid: Grid, args: &'a mut KernelArgs) -> Result<Machine<'a>, String> {
        let w = p.width() as usize;
        let full = mask_of(p.width());
        let items = grid.items_per_group();
        if p.first_private_region() as u64 + items > MAX_REGIONS {
            return Err(format!("work-groups of {items} work-items are too large for the emulator"));
        }
        if args.values.len() != p.params().len() {
            return Err(format!("kernel '{}' takes {} parameters, {} arguments given", p.kernel(), p.params().len(), args.values.len()));
        }
        let layout = LocalLayout::for_args(p.static_local_bytes(), args);
        let local_args: Vec<(usize, u64, u64)> = args
            .values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| match (v, layout.offsets[i]) {
                (ArgValue::Local { ty, count }, Some(off)) => Some((i, off, count * ty.size() as u64)),
                _ => None,
            })
            .collect();
        items.checked_mul(p.private_bytes()).filter(|&t| t < 1 << 36).ok_or_else(|| {
            format!(
                "{} bytes of private memory per work-item for {items} work-items is more than the emulator allocates",
                p.private_bytes()
            )
        })?;
        let objects = ObjectLayout::new(p, items, &local_args);
        if objects.total_regions() > MAX_REGIONS {
            return Err(format!("work-groups of {items} work-items are too large for the emulator"));
        }
        let mut mem = Regions::new(objects.total_regions() as usize);
        let mut param_values = Vec::with_capacity(args.values.len());
        for (i, v) in args.values.iter_mut().enumerate() {
            let value = match v {
                // A struct's parameter points at its bytes, as a buffer's.
                ArgValue::Buffer(b) | ArgValue::Struct(b) => {
                    mem.map(param_region(i) as usize, b.bytes_mut());
                    addr(param_region(i), 0)
                }
                ArgValue::Scalar(s) => {
                    let mut bytes = [0u8; 8];
                    bytes[..s.as_bytes().len()].copy_from_slice(s.as_bytes());
                    u64::from_le_bytes(bytes)
                }
                ArgValue::Local { .. } => {
                    objects.local_arg_value(i).unwrap_or_else(|| addr(p.local_region(), layout.offsets[i].unwrap_or(0)))
                }
            };
            param_values.push(value);
        }
        let local = mem.map_owned(p.local_region() as usize, vec![0u8; layout.total as usize]);
        for g in p.globals() {
            mem.map_owned(g.region as usize, g.bytes.clone());
        }
        // At most 2^36 bytes in all (checked above).
        let private = (p.private_bytes() > 0)
            .then(|| mem.map_owned_split(p.first_private_region() as usize, items as usize, p.private_bytes() as usize));
        objects.map(p, &mut mem);

        // Registers: constants and arguments once; builtins per work-group.
        let mut template = RegFile::new(p.nslots() as usize * w);
        for &(slot, v) in p.consts() {
            template.fill(slot as usize * w, w, v);
        }
        for (ps, v) in p.params().iter().zip(param_values) {
            template.fill(ps.slot as usize * w, w, v);
        }
        let nwarps = items.div_ceil(w as u64);
        let warps = (0..nwarps)
            .map(|k| {
                let lanes = (items - k * w as u64).min(w as u64) as u32;
                Warp { index: k as u32, regs: template.clone(), valid: mask_of(lanes), live: 0, entries: Vec::new() }
            })
            .collect();
        let c = Counters {
            block_divergence: vec![0; p.blocks().len()],
            blocks: super::profile::BlockCounts::new(p.blocks().len()),
            ..Counters::default()
        };
        Ok(Machine {
            p,
            policy: p.policy(),
            w,
            full,
            grid,
            items,
            mem,
            local,
            local_bytes: layout.total,
            private,
            warps,
            group: [0; 3],
            group_local: grid.local,
            c,
            targets: Vec::new(),
            stop_pc: 0,
            trace: None,
            check: None,
            local_args,
            objects,
            progress: None,
            _args: PhantomData,
        })
    }

    /// Turns on the checks of `checks` (see [`check`]).
    pub fn enable_checks(&mut self, checks: Checks) {
        if !checks.runs_checker() {
            return;
        }
        let n = self.objects.total_regions();
        let layout = check::Layout {
            lens: (0..n).map(|r| self.mem.len_of(r)).collect(),
            canon: self.objects.canon_table(self.p),
            local_region: self.p.local_region(),
            first_private_region: self.p.first_private_region(),
            items: self.items,
        };
        self.check = Some(Box::new(Checker::new(checks, layout)));
    }

    /// Runs every work-group.
    pub fn run(&mut self) -> Result<(), String> {
        for g in 0..self.grid.total_groups() {
            self.group = self.grid.group_id(g);
            let shape = self.grid.group_local(self.group);
            if shape != self.group_local {
                self.reshape(shape);
            }
            if let Some(c) = self.check.as_mut() {
                c.begin_group(g);
            }
            self.run_group()?;
            if let Some(pb) = &self.progress {
                pb.inc(1);
            }
            if let Some(c) = self.check.as_mut() {
                c.end_group();
                if c.host_bytes() > check::MAX_SHADOW_BYTES {
                    return Err(format!(
                        "kernel '{}': --check needs more than {} GiB of shadow memory for this launch (about 100 bytes per byte of __global memory touched): check a smaller launch",
                        self.p.kernel(),
                        check::MAX_SHADOW_BYTES >> 30
                    ));
                }
            }
        }
        Ok(())
    }

    /// The findings of the checks so far, as text: one entry per report
    /// kept, and the summary; `None` when no check runs.
    pub fn check_report(&self) -> Option<(Vec<String>, check::Findings)> {
        let c = self.check.as_ref()?;
        let texts = c.findings.kept.iter().map(|f| check::report::render(f, self)).collect();
        Some((texts, c.findings.clone()))
    }

    /// Makes the warps run a work-group of `local` work-items (x fastest):
    /// lanes past their count are not valid, warps past it have none.
    fn reshape(&mut self, local: [u64; 3]) {
        self.group_local = local;
        let items: u64 = local.iter().product();
        let w = self.w as u64;
        for (k, warp) in self.warps.iter_mut().enumerate() {
            warp.valid = mask_of(items.saturating_sub(k as u64 * w).min(w) as u32);
        }
    }

    fn local_id(&self, lin: u64) -> [u64; 3] {
        let l = self.group_local;
        [lin % l[0], (lin / l[0]) % l[1], lin / (l[0] * l[1])]
    }

    fn builtin_value(&self, what: SpecialKind, warp: u32, lane: usize) -> u64 {
        let g = &self.grid;
        let lin = warp as u64 * self.w as u64 + lane as u64;
        let lid = self.local_id(lin);
        let gid = |d: usize| self.group[d] * g.local[d] + lid[d] + g.global_offset[d];
        let dim = |d: u32, f: &dyn Fn(usize) -> u64, outside: u64| if d < 3 { f(d as usize) } else { outside };
        match what {
            SpecialKind::WarpSize => self.w as u64,
            SpecialKind::Builtin(b) => match b {
                Builtin::LocalId(d) => dim(d, &|d| lid[d], 0),
                Builtin::GlobalId(d) => dim(d, &gid, 0),
                Builtin::GroupId(d) => dim(d, &|d| self.group[d], 0),
                Builtin::LocalSize(d) => dim(d, &|d| self.group_local[d], 1),
                Builtin::EnqueuedLocalSize(d) => dim(d, &|d| g.local[d], 1),
                Builtin::NumGroups(d) => dim(d, &|d| g.num_groups()[d], 1),
                Builtin::GlobalSize(d) => dim(d, &|d| g.global[d], 1),
                Builtin::GlobalOffset(d) => dim(d, &|d| g.global_offset[d], 0),
                Builtin::WorkDim => g.work_dim as u64,
                Builtin::LocalLinearId => lin,
                Builtin::GlobalLinearId => {
                    let x = gid(0) - g.global_offset[0];
                    let y = gid(1) - g.global_offset[1];
                    let z = gid(2) - g.global_offset[2];
                    (z * g.global[1] + y) * g.global[0] + x
                }
                Builtin::LaneId => lane as u64,
                Builtin::WarpId => warp as u64,
                Builtin::Barrier => 0,
            },
            SpecialKind::LaneMask(k) => {
                let l = lane as u32;
                let lt = (1u64 << l) - 1;
                let le = (2u64 << l).wrapping_sub(1);
                let m32 = 0xffff_ffffu64;
                match k {
                    0 => 1u64 << l,
                    1 => le,
                    2 => lt,
                    3 => !lt & m32,
                    _ => !le & m32,
                }
            }
        }
    }

    fn run_group(&mut self) -> Result<(), String> {
        self.mem.zero(self.local);
        if let Some(private) = self.private {
            self.mem.zero(private);
        }
        self.c.work_groups += 1;
        if let Some(t) = self.trace.as_mut() {
            t.group(self.group, self.warps.len());
        }
        let w = self.w;
        for k in 0..self.warps.len() {
            let mut warp = std::mem::take(&mut self.warps[k]);
            for s in self.p.specials() {
                let mk = mask_of(s.bits as u32);
                for l in 0..w {
                    warp.regs[s.slot as usize * w + l] = self.builtin_value(s.what, warp.index, l) & mk;
                }
            }
            warp.start();
            self.c.warps += u64::from(warp.valid != 0);
            self.warps[k] = warp;
        }
        loop {
            for k in 0..self.warps.len() {
                let mut warp = std::mem::take(&mut self.warps[k]);
                let result = self.run_warp(&mut warp);
                self.warps[k] = warp;
                result.map_err(|f| self.describe(f))?;
            }
            if self.sync()? {
                return Ok(());
            }
        }
    }

    /// After every warp stopped: the group is done (`true`), or all its
    /// running work-items wait at one barrier and are released, or it is an
    /// error.
    fn sync(&mut self) -> Result<bool, String> {
        let mut ids = BTreeSet::new();
        let mut exited = false;
        let mut running = false;
        let mut stuck = false;
        for warp in &self.warps {
            exited |= warp.live != warp.valid;
            running |= warp.entries.iter().any(|e| e.mask & warp.live != 0);
            let mut waiting = 0;
            for (id, m) in warp.waiting() {
                ids.insert(id);
                waiting |= m;
            }
            stuck |= waiting != warp.live;
        }
        if !running {
            return Ok(true);
        }
        let name = |id: u32| self.p.barrier_names().get(id as usize).cloned().unwrap_or_else(|| format!("barrier #{}", id + 1));
        let [x, y, z] = self.group;
        let k = &self.p.kernel();
        if stuck {
            return Err(format!(
                "kernel '{k}': work-group ({x},{y},{z}): work-items can neither run nor wait at a barrier (emulator deadlock)"
            ));
        }
        match (ids.len(), exited) {
            (0, _) => Err(format!("kernel '{k}': work-group ({x},{y},{z}): no work-item can run (emulator deadlock)")),
            (1, false) => {
                if let Some(t) = self.trace.as_mut() {
                    t.release(self.c.warp_instructions, &name(*ids.iter().next().unwrap()));
                }
                for warp in &mut self.warps {
                    self.c.merges += policy::release(self.policy, warp);
                }
                self.c.barriers += 1;
                if let Some(c) = self.check.as_mut() {
                    c.barrier();
                }
                Ok(false)
            }
            _ => {
                let mut it = ids.iter();
                let a = name(*it.next().unwrap());
                let b = it.next().map_or_else(|| "the kernel's exit".to_string(), |&id| name(id));
                Err(format!("kernel '{k}': work-items of work-group ({x},{y},{z}) reached different barriers: {a} and {b}"))
            }
        }
    }

    fn run_warp(&mut self, warp: &mut Warp) -> Result<(), Fault> {
        loop {
            let Some(i) = policy::pick(self.policy, warp) else { return Ok(()) };
            self.c.max_groups = self.c.max_groups.max(warp.entries.len() as u64);
            let entry = warp.entries[i];
            let mask = entry.mask & warp.live;
            if let Some(t) = self.trace.as_mut() {
                t.run(self.c.warp_instructions, warp.index, entry.pc, mask);
            }
            // Two copies of the interpreter: the one without checks has no
            // trace of them in its loop.
            let ev = if self.check.is_some() { self.exec::<true>(warp, i)? } else { self.exec::<false>(warp, i)? };
            // Where the group stopped, for the trace.
            let (issued, at) = (self.c.warp_instructions, self.stop_pc);
            match ev {
                Ev::Reached => {
                    warp.entries.remove(i);
                    self.c.convergence_checks += 1;
                    self.c.merges += 1;
                    if let Some(t) = self.trace.as_mut() {
                        t.reconverge(issued, warp.index, at, mask);
                    }
                }
                Ev::Split(block) => {
                    self.c.divergent_branches += 1;
                    self.c.block_divergence[block as usize] += 1;
                    let ipdom_pc = self.p.blocks()[block as usize].ipdom_pc;
                    if let Some(t) = self.trace.as_mut() {
                        t.split(issued, warp.index, at, mask, &self.targets, ipdom_pc);
                    }
                    let mut t = std::mem::take(&mut self.targets);
                    policy::split(self.policy, warp, i, ipdom_pc, &mut t);
                    self.targets = t;
                }
                Ev::Check(pc) => {
                    let merged = policy::check(warp, i, pc);
                    self.c.merges += merged;
                    if let Some(t) = self.trace.as_mut() {
                        // `check` leaves the group that passed it last.
                        let g = warp.entries.last().map_or(mask, |e| e.mask & warp.live);
                        t.check(issued, warp.index, pc, g, merged);
                    }
                }
                Ev::Barrier(id, pc) => {
                    let e = &mut warp.entries[i];
                    e.pc = pc;
                    e.barrier = id;
                    if let Some(t) = self.trace.as_mut() {
                        let name = self.p.barrier_names().get(id as usize).map_or("?", String::as_str);
                        t.barrier(issued, warp.index, pc, mask, name);
                    }
                }
                Ev::Exit => {
                    warp.live &= !warp.entries[i].mask;
                    warp.entries.remove(i);
                    if let Some(t) = self.trace.as_mut() {
                        t.exit(issued, warp.index, at, mask);
                    }
                }
            }
        }
    }

    /// Runs lane group `i` of `warp` until the policy must decide.
    /// `CHECKED`: call the [`Checker`] on every memory access.
    #[allow(clippy::needless_range_loop)]
    fn exec<const CHECKED: bool>(&mut self, warp: &mut Warp, i: usize) -> Result<Ev, Fault> {
        let p = self.p;
        // At most 64 (`Program::validate`); saying so lets the compiler drop the
        // register file's lane mask.
        let w = self.w.min(super::regfile::LANES);
        let full = self.full;
        let mem = self.mem.view();
        let targets = &mut self.targets;
        let mut trace = self.trace.as_deref_mut();
        let mut check = if CHECKED { self.check.as_deref_mut() } else { None };
        let inst_text = p.inst_text();
        let issued = self.c.warp_instructions;
        let entry = warp.entries[i];
        let mask = entry.mask & warp.live;
        let rpc = entry.rpc;
        let alone = warp.entries.len() == 1;
        let widx = warp.index;
        let policy = self.policy;
        let item0 = widx * w as u32;
        let priv0 = p.first_private_region() as u64 + widx as u64 * w as u64;
        let objects = &self.objects;
        let insts = p.insts();
        let edges = p.edges();
        let temps = p.temps();
        let mut r: Regs<'_> = warp.regs.view();
        let mut pc = entry.pc;
        let counts = &mut self.c.blocks;
        counts.start(p, pc);
        let mut n: u64 = 0;
        let mut checks: u64 = 0;
        let mut ucheck: u64 = 0;
        let fault = |pc: u32, lane: Option<usize>, kind: FaultKind| Fault { pc, warp: widx, lane: lane.map(|l| l as u32), kind };
        let msg = |pc: u32, lane: Option<usize>, m: &str| fault(pc, lane, FaultKind::Msg(m.to_string()));

        macro_rules! un {
            ($d:expr, $a:expr, |$x:ident| $e:expr) => {
                lanes!(mask, full, w, |l| {
                    let $x = reg!(r, $a, l);
                    reg!(r, $d, l) = $e;
                })
            };
        }
        macro_rules! bin {
            ($d:expr, $a:expr, $b:expr, |$x:ident, $y:ident| $e:expr) => {
                lanes!(mask, full, w, |l| {
                    let $x = reg!(r, $a, l);
                    let $y = reg!(r, $b, l);
                    reg!(r, $d, l) = $e;
                })
            };
        }
        // A uniform branch took the group into the block at `pc`.
        macro_rules! entered {
            () => {
                counts.enter(p, pc);
                if let Some(t) = trace.as_deref_mut() {
                    t.enter(issued + n, widx, pc, mask);
                }
            };
        }
        macro_rules! take_edge {
            ($e:expr, $m:expr) => {{
                let edge = &edges[$e as usize];
                copy_edge(edge, $m, full, w, &mut r, temps);
                edge.pc
            }};
        }

        let ev = {
            loop {
                let Some(inst) = insts.get(pc as usize) else {
                    return Err(msg(pc, None, "control reached an invalid PC (emulator error)"));
                };
                n += 1;
                match *inst {
                    Inst::IBin { op, bits, d, a, b } => {
                        let bits32 = bits as u32;
                        let mk = mask_of(bits32);
                        let sh = 64 - bits32;
                        let bw = bits as u64;
                        match op {
                            IOp::Add => bin!(d, a, b, |x, y| x.wrapping_add(y) & mk),
                            IOp::Sub => bin!(d, a, b, |x, y| x.wrapping_sub(y) & mk),
                            IOp::Mul => bin!(d, a, b, |x, y| x.wrapping_mul(y) & mk),
                            IOp::And => bin!(d, a, b, |x, y| x & y),
                            IOp::Or => bin!(d, a, b, |x, y| x | y),
                            IOp::Xor => bin!(d, a, b, |x, y| x ^ y),
                            IOp::Shl => bin!(d, a, b, |x, y| if y >= bw { 0 } else { (x << y) & mk }),
                            IOp::LShr => bin!(d, a, b, |x, y| if y >= bw { 0 } else { x >> y }),
                            IOp::AShr => bin!(d, a, b, |x, y| if y >= bw { 0 } else { ((sx(x, sh) >> y) as u64) & mk }),
                            IOp::UDiv | IOp::URem | IOp::SDiv | IOp::SRem => {
                                lanes!(mask, full, w, |l| {
                                    let x = reg!(r, a, l);
                                    let y = reg!(r, b, l);
                                    if y == 0 {
                                        return Err(msg(pc, Some(l), "integer division by zero"));
                                    }
                                    reg!(r, d, l) = match op {
                                        IOp::UDiv => x / y,
                                        IOp::URem => x % y,
                                        IOp::SDiv => (sx(x, sh).wrapping_div(sx(y, sh)) as u64) & mk,
                                        _ => (sx(x, sh).wrapping_rem(sx(y, sh)) as u64) & mk,
                                    };
                                });
                            }
                            IOp::SMin => bin!(d, a, b, |x, y| if sx(x, sh) <= sx(y, sh) { x } else { y }),
                            IOp::SMax => bin!(d, a, b, |x, y| if sx(x, sh) >= sx(y, sh) { x } else { y }),
                            IOp::UMin => bin!(d, a, b, |x, y| x.min(y)),
                            IOp::UMax => bin!(d, a, b, |x, y| x.max(y)),
                            IOp::UAddSat => bin!(d, a, b, |x, y| x.saturating_add(y).min(mk)),
                            IOp::USubSat => bin!(d, a, b, |x, y| x.saturating_sub(y)),
                            IOp::SAddSat | IOp::SSubSat => {
                                let hi = (mk >> 1) as i128;
                                let lo = -hi - 1;
                                let add = op == IOp::SAddSat;
                                bin!(d, a, b, |x, y| {
                                    let (p, q) = (sx(x, sh) as i128, sx(y, sh) as i128);
                                    let s = if add { p + q } else { p - q };
                                    (s.clamp(lo, hi) as i64 as u64) & mk
                                })
                            }
                            IOp::UAddOv | IOp::USubOv | IOp::UMulOv => bin!(d, a, b, |x, y| {
                                let (p, q) = (x as u128, y as u128);
                                let out = match op {
                                    IOp::UAddOv => p + q > mk as u128,
                                    IOp::USubOv => p < q,
                                    _ => p * q > mk as u128,
                                };
                                out as u64
                            }),
                            IOp::SAddOv | IOp::SSubOv | IOp::SMulOv => {
                                let hi = (mk >> 1) as i128;
                                let lo = -hi - 1;
                                bin!(d, a, b, |x, y| {
                                    let (p, q) = (sx(x, sh) as i128, sx(y, sh) as i128);
                                    let s = match op {
                                        IOp::SAddOv => p + q,
                                        IOp::SSubOv => p - q,
                                        _ => p * q,
                                    };
                                    (s < lo || s > hi) as u64
                                })
                            }
                        }
                        pc += 1;
                    }
                    Inst::IUn { op, bits, d, a } => {
                        let b = bits as u32;
                        let mk = mask_of(b);
                        let sh = 64 - b;
                        match op {
                            IUOp::Ctpop => un!(d, a, |x| x.count_ones() as u64),
                            IUOp::Ctlz => un!(d, a, |x| (x.leading_zeros() - sh) as u64),
                            IUOp::Cttz => un!(d, a, |x| if x == 0 { b as u64 } else { x.trailing_zeros() as u64 }),
                            IUOp::Bswap => un!(d, a, |x| x.swap_bytes() >> sh),
                            IUOp::Bitrev => un!(d, a, |x| x.reverse_bits() >> sh),
                            IUOp::Abs => un!(d, a, |x| (sx(x, sh).wrapping_abs() as u64) & mk),
                        }
                        pc += 1;
                    }
                    Inst::Fsh { left, bits, d, a, b, c } => {
                        let bw = bits as u64;
                        let mk = mask_of(bits as u32);
                        lanes!(mask, full, w, |l| {
                            let (x, y, s) = (reg!(r, a, l), reg!(r, b, l), reg!(r, c, l) % bw);
                            // concat(x, y) shifted, as a 2×bits-wide value
                            let wide = ((x as u128) << bw) | y as u128;
                            let v = if left { (wide << s) >> bw } else { wide >> s };
                            reg!(r, d, l) = (v as u64) & mk;
                        });
                        pc += 1;
                    }
                    Inst::FBin { op, dbl, d, a, b } => {
                        if dbl {
                            match op {
                                FOp::Add => bin!(d, a, b, |x, y| b64(f64of(x) + f64of(y))),
                                FOp::Sub => bin!(d, a, b, |x, y| b64(f64of(x) - f64of(y))),
                                FOp::Mul => bin!(d, a, b, |x, y| b64(f64of(x) * f64of(y))),
                                FOp::Div => bin!(d, a, b, |x, y| b64(f64of(x) / f64of(y))),
                                _ => bin!(d, a, b, |x, y| b64(f64_bin(op, f64of(x), f64of(y)))),
                            }
                        } else {
                            match op {
                                FOp::Add => bin!(d, a, b, |x, y| b32(f32of(x) + f32of(y))),
                                FOp::Sub => bin!(d, a, b, |x, y| b32(f32of(x) - f32of(y))),
                                FOp::Mul => bin!(d, a, b, |x, y| b32(f32of(x) * f32of(y))),
                                FOp::Div => bin!(d, a, b, |x, y| b32(f32of(x) / f32of(y))),
                                _ => bin!(d, a, b, |x, y| b32(f32_bin(op, f32of(x), f32of(y)))),
                            }
                        }
                        pc += 1;
                    }
                    Inst::FUn { op, dbl, d, a } => {
                        if dbl {
                            un!(d, a, |x| b64(f64_un(op, f64of(x))));
                        } else {
                            un!(d, a, |x| b32(f32_un(op, f32of(x))));
                        }
                        pc += 1;
                    }
                    Inst::Warp { op, d, a, b, c, m } => {
                        if let (true, Some(ch)) = (CHECKED, check.as_deref_mut()) {
                            // Not under `none` (see check::warp).
                            if ch.watches_warp() && policy != Policy::None {
                                let mut masks = [0u64; super::regfile::LANES];
                                let mut sources = [check::warp::NO_SOURCE; super::regfile::LANES];
                                lanes!(mask, full, w, |l| {
                                    masks[l] = reg!(r, m, l) & 0xffff_ffff;
                                    if op.is_shuffle() {
                                        if let Some(j) = shfl_source(op, l, reg!(r, b, l), reg!(r, c, l)) {
                                            sources[l] = j as u8;
                                        }
                                    }
                                });
                                let named = masks.iter().fold(0, |x, y| x | y) & warp.live & !mask;
                                let gone = !warp.live | waiting_to_return(&warp.entries, named, insts, edges);
                                let call = check::warp::Call {
                                    op,
                                    masks: &masks,
                                    sources: op.is_shuffle().then_some(&sources[..]),
                                    running: mask,
                                    gone,
                                };
                                ch.warp_call(&call, item0, inst_text[pc as usize]);
                            }
                        }
                        // Every lane's result from the values before any is
                        // written (`d` may be read as another lane's source).
                        let mut out = [0u64; super::regfile::LANES];
                        let running = mask & 0xffff_ffff;
                        let ballot = |pred: R| {
                            let mut v = 0u64;
                            lanes!(mask, full, w, |l| {
                                v |= (reg!(r, pred, l) & 1) << l;
                            });
                            v
                        };
                        match op {
                            WarpOp::ActiveMask => lanes!(mask, full, w, |l| { out[l] = running }),
                            WarpOp::VoteBallot => {
                                let v = ballot(b);
                                lanes!(mask, full, w, |l| { out[l] = v & reg!(r, a, l) & 0xffff_ffff });
                            }
                            WarpOp::VoteAll | WarpOp::VoteAny | WarpOp::VoteUni => {
                                let v = ballot(b);
                                lanes!(mask, full, w, |l| {
                                    let members = reg!(r, a, l) & running;
                                    let yes = v & members;
                                    out[l] = u64::from(match op {
                                        WarpOp::VoteAll => yes == members,
                                        WarpOp::VoteAny => yes != 0,
                                        _ => yes == 0 || yes == members,
                                    });
                                });
                            }
                            WarpOp::MatchAny { wide } => {
                                let bits = if wide { u64::MAX } else { 0xffff_ffff };
                                lanes!(mask, full, w, |l| {
                                    let mine = reg!(r, b, l) & bits;
                                    let mut m = 0u64;
                                    lanes!(mask, full, w, |k| {
                                        if reg!(r, b, k) & bits == mine {
                                            m |= 1 << k;
                                        }
                                    });
                                    out[l] = m & reg!(r, a, l) & 0xffff_ffff;
                                });
                            }
                            WarpOp::Redux(rop) => lanes!(mask, full, w, |l| {
                                let members = reg!(r, b, l) & running;
                                let mut acc = redux_identity(rop);
                                lanes!(members, 0xffff_ffff, 32, |k| {
                                    acc = redux_step(rop, acc, reg!(r, a, k) as u32);
                                });
                                out[l] = u64::from(acc);
                            }),
                            // Only `--check warp` reads it; the emulator counts
                            // it as no instruction, as before that check.
                            WarpOp::SyncWarp => n -= 1,
                            _ => lanes!(mask, full, w, |l| {
                                // A source lane out of range, or not running
                                // (undefined in CUDA), gives the lane its own
                                // value, as on the host engine.
                                let src = match shfl_source(op, l, reg!(r, b, l), reg!(r, c, l)) {
                                    Some(j) if running >> j & 1 == 1 => j,
                                    _ => l,
                                };
                                out[l] = reg!(r, a, src);
                            }),
                        }
                        if op != WarpOp::SyncWarp {
                            lanes!(mask, full, w, |l| { reg!(r, d, l) = out[l] });
                        }
                        pc += 1;
                    }
                    Inst::Fma { dbl, d, a, b, c } => {
                        if dbl {
                            lanes!(mask, full, w, |l| {
                                reg!(r, d, l) = b64(f64of(reg!(r, a, l)).mul_add(f64of(reg!(r, b, l)), f64of(reg!(r, c, l))));
                            });
                        } else {
                            lanes!(mask, full, w, |l| {
                                reg!(r, d, l) = b32(f32of(reg!(r, a, l)).mul_add(f32of(reg!(r, b, l)), f32of(reg!(r, c, l))));
                            });
                        }
                        pc += 1;
                    }
                    Inst::Powi { dbl, d, a, b } => {
                        if dbl {
                            bin!(d, a, b, |x, y| b64(f64of(x).powi(y as u32 as i32)));
                        } else {
                            bin!(d, a, b, |x, y| b32(f32of(x).powi(y as u32 as i32)));
                        }
                        pc += 1;
                    }
                    Inst::ICmp { p: pred, bits, d, a, b } => {
                        let sh = 64 - bits as u32;
                        match pred {
                            IPred::Eq => bin!(d, a, b, |x, y| (x == y) as u64),
                            IPred::Ne => bin!(d, a, b, |x, y| (x != y) as u64),
                            IPred::Ugt => bin!(d, a, b, |x, y| (x > y) as u64),
                            IPred::Uge => bin!(d, a, b, |x, y| (x >= y) as u64),
                            IPred::Ult => bin!(d, a, b, |x, y| (x < y) as u64),
                            IPred::Ule => bin!(d, a, b, |x, y| (x <= y) as u64),
                            IPred::Sgt => bin!(d, a, b, |x, y| (sx(x, sh) > sx(y, sh)) as u64),
                            IPred::Sge => bin!(d, a, b, |x, y| (sx(x, sh) >= sx(y, sh)) as u64),
                            IPred::Slt => bin!(d, a, b, |x, y| (sx(x, sh) < sx(y, sh)) as u64),
                            IPred::Sle => bin!(d, a, b, |x, y| (sx(x, sh) <= sx(y, sh)) as u64),
                        }
                        pc += 1;
                    }
                    Inst::FCmp { p: pred, dbl, d, a, b } => {
                        if dbl {
                            bin!(d, a, b, |x, y| {
                                let (x, y) = (f64of(x), f64of(y));
                                fcmp(pred, x.is_nan() || y.is_nan(), x < y, x == y, x > y) as u64
                            });
                        } else {
                            bin!(d, a, b, |x, y| {
                                let (x, y) = (f32of(x), f32of(y));
                                fcmp(pred, x.is_nan() || y.is_nan(), x < y, x == y, x > y) as u64
                            });
                        }
                        pc += 1;
                    }
                    Inst::Cast { op, d, a } => {
                        match op {
                            CastOp::Trunc(to) => {
                                let mk = mask_of(to as u32);
                                un!(d, a, |x| x & mk)
                            }
                            CastOp::SExt { from, to } => {
                                let (sh, mk) = (64 - from as u32, mask_of(to as u32));
                                un!(d, a, |x| (sx(x, sh) as u64) & mk)
                            }
                            CastOp::FToU { dbl, to } => {
                                let mk = mask_of(to as u32);
                                un!(d, a, |x| (if dbl { f64of(x) as u64 } else { f32of(x) as u64 }) & mk)
                            }
                            CastOp::FToS { dbl, to } => {
                                let mk = mask_of(to as u32);
                                un!(d, a, |x| ((if dbl { f64of(x) as i64 } else { f32of(x) as i64 }) as u64) & mk)
                            }
                            CastOp::FToSSat { dbl, to } => {
                                let (mk, to) = (mask_of(to as u32), to as u32);
                                let (lo, hi) = (-(2f64.powi(to as i32 - 1)), 2f64.powi(to as i32 - 1) - 1.0);
                                un!(d, a, |x| {
                                    let f = if dbl { f64of(x) } else { f32of(x) as f64 };
                                    // Rust's `as` saturates at i64 and maps NaN to 0.
                                    (if to == 64 {
                                        f as i64
                                    } else if f.is_nan() {
                                        0
                                    } else {
                                        f.clamp(lo, hi) as i64
                                    }) as u64
                                        & mk
                                })
                            }
                            CastOp::FToUSat { dbl, to } => {
                                let (mk, to) = (mask_of(to as u32), to as u32);
                                let hi = 2f64.powi(to as i32) - 1.0;
                                un!(d, a, |x| {
                                    let f = if dbl { f64of(x) } else { f32of(x) as f64 };
                                    (if to == 64 {
                                        f as u64
                                    } else if f.is_nan() {
                                        0
                                    } else {
                                        f.clamp(0.0, hi) as u64
                                    }) & mk
                                })
                            }
                            CastOp::UToF { dbl } => un!(d, a, |x| if dbl { b64(x as f64) } else { b32(x as f32) }),
                            CastOp::SToF { from, dbl } => {
                                let sh = 64 - from as u32;
                                un!(d, a, |x| if dbl { b64(sx(x, sh) as f64) } else { b32(sx(x, sh) as f32) })
                            }
                            CastOp::FTrunc => un!(d, a, |x| b32(f64of(x) as f32)),
                            CastOp::FExt => un!(d, a, |x| b64(f32of(x) as f64)),
                        }
                        pc += 1;
                    }
                    Inst::Select { d, c, a, b } => {
                        lanes!(mask, full, w, |l| {
                            reg!(r, d, l) = if reg!(r, c, l) & 1 != 0 { reg!(r, a, l) } else { reg!(r, b, l) };
                        });
                        pc += 1;
                    }
                    Inst::Mov { d, a } => {
                        un!(d, a, |x| x);
                        pc += 1;
                    }
                    Inst::Gep0 { d, base, off } => {
                        un!(d, base, |x| x.wrapping_add(off as u64));
                        pc += 1;
                    }
                    Inst::Gep1 { d, base, off, idx, scale, bits } => {
                        let sh = 64 - bits as u32;
                        bin!(d, base, idx, |x, y| x.wrapping_add(off as u64).wrapping_add(sx(y, sh).wrapping_mul(scale) as u64));
                        pc += 1;
                    }
                    Inst::Gep { d, base, off, ref idx } => {
                        lanes!(mask, full, w, |l| {
                            let mut v = reg!(r, base, l).wrapping_add(off as u64);
                            for &(ir, scale, bits) in idx.iter() {
                                v = v.wrapping_add(sx(reg!(r, ir, l), 64 - bits as u32).wrapping_mul(scale) as u64);
                            }
                            reg!(r, d, l) = v;
                        });
                        pc += 1;
                    }
                    Inst::Load { d, p: pp, off, ty } => {
                        let mk = mask_of(ty.bits as u32);
                        let size = ty.size as u64;
                        if let (true, Some(c)) = (CHECKED, check.as_deref_mut()) {
                            lanes!(mask, full, w, |l| {
                                c.access(
                                    item0 + l as u32,
                                    reg!(r, pp, l).wrapping_add(off as u64),
                                    size,
                                    Kind::Read,
                                    inst_text[pc as usize],
                                );
                            });
                        }
                        lanes!(mask, full, w, |l| {
                            let at = reg!(r, pp, l).wrapping_add(off as u64);
                            match mem.load(at, ty.size) {
                                Some(x) => reg!(r, d, l) = x & mk,
                                None => return Err(fault(pc, Some(l), FaultKind::Mem { what: "load", addr: at, size })),
                            }
                        });
                        pc += 1;
                    }
                    Inst::Store { v, p: pp, off, ty } => {
                        let size = ty.size as u64;
                        if let (true, Some(c)) = (CHECKED, check.as_deref_mut()) {
                            lanes!(mask, full, w, |l| {
                                c.access(
                                    item0 + l as u32,
                                    reg!(r, pp, l).wrapping_add(off as u64),
                                    size,
                                    Kind::Write,
                                    inst_text[pc as usize],
                                );
                            });
                        }
                        lanes!(mask, full, w, |l| {
                            let at = reg!(r, pp, l).wrapping_add(off as u64);
                            match mem.store(at, ty.size, reg!(r, v, l)) {
                                Some(()) => {}
                                None => return Err(fault(pc, Some(l), FaultKind::Mem { what: "store", addr: at, size })),
                            }
                        });
                        pc += 1;
                    }
                    Inst::Alloca { d, off, obj } => {
                        match objects.alloca_base(item0 as u64) {
                            Some(base) => {
                                let n = objects.nallocas();
                                lanes!(mask, full, w, |l| {
                                    reg!(r, d, l) = (base + l as u64 * n + obj as u64) << ADDR_BITS;
                                });
                            }
                            None => lanes!(mask, full, w, |l| {
                                reg!(r, d, l) = ((priv0 + l as u64) << ADDR_BITS) | off;
                            }),
                        }
                        pc += 1;
                    }
                    Inst::Rmw { op, ty, d, p: pp, v } => {
                        let mk = mask_of(ty.bits as u32);
                        let size = ty.size as u64;
                        if let (true, Some(c)) = (CHECKED, check.as_deref_mut()) {
                            lanes!(mask, full, w, |l| {
                                c.access(item0 + l as u32, reg!(r, pp, l), size, Kind::Atomic, inst_text[pc as usize]);
                            });
                        }
                        lanes!(mask, full, w, |l| {
                            let at = reg!(r, pp, l);
                            let x = reg!(r, v, l);
                            let Some(old) = mem.update(at, ty.size, |old| Some(rmw(op, ty, old & mk, x))) else {
                                return Err(fault(pc, Some(l), FaultKind::Mem { what: "atomic access", addr: at, size }));
                            };
                            reg!(r, d, l) = old & mk;
                        });
                        pc += 1;
                    }
                    Inst::CmpXchg { ty, d, ok, p: pp, cmp, new } => {
                        let mk = mask_of(ty.bits as u32);
                        let size = ty.size as u64;
                        if let (true, Some(c)) = (CHECKED, check.as_deref_mut()) {
                            lanes!(mask, full, w, |l| {
                                c.access(item0 + l as u32, reg!(r, pp, l), size, Kind::Atomic, inst_text[pc as usize]);
                            });
                        }
                        lanes!(mask, full, w, |l| {
                            let at = reg!(r, pp, l);
                            let (c, nv) = (reg!(r, cmp, l), reg!(r, new, l));
                            let Some(old) = mem.update(at, ty.size, |old| (old & mk == c).then_some(nv)) else {
                                return Err(fault(pc, Some(l), FaultKind::Mem { what: "atomic access", addr: at, size }));
                            };
                            let old = old & mk;
                            reg!(r, d, l) = old;
                            reg!(r, ok, l) = (old == c) as u64;
                        });
                        pc += 1;
                    }
                    Inst::Memcpy { dst, src, n: nr } => {
                        lanes!(mask, full, w, |l| {
                            let len = reg!(r, nr, l);
                            if len != 0 {
                                let (da, sa) = (reg!(r, dst, l), reg!(r, src, l));
                                if let (true, Some(c)) = (CHECKED, check.as_deref_mut()) {
                                    c.copy(item0 + l as u32, da, sa, len, inst_text[pc as usize]);
                                }
                                match mem.copy(da, sa, len) {
                                    Ok(()) => {}
                                    Err(Side::Dst) => {
                                        return Err(fault(pc, Some(l), FaultKind::Mem { what: "memcpy destination", addr: da, size: len }))
                                    }
                                    Err(Side::Src) => {
                                        return Err(fault(pc, Some(l), FaultKind::Mem { what: "memcpy source", addr: sa, size: len }))
                                    }
                                }
                            }
                        });
                        pc += 1;
                    }
                    Inst::Memset { dst, v, n: nr } => {
                        lanes!(mask, full, w, |l| {
                            let len = reg!(r, nr, l);
                            if len != 0 {
                                let da = reg!(r, dst, l);
                                if let (true, Some(c)) = (CHECKED, check.as_deref_mut()) {
                                    c.fill(item0 + l as u32, da, len, inst_text[pc as usize]);
                                }
                                if mem.fill(da, reg!(r, v, l) as u8, len).is_none() {
                                    return Err(fault(pc, Some(l), FaultKind::Mem { what: "memset", addr: da, size: len }));
                                }
                            }
                        });
                        pc += 1;
                    }
                    Inst::ExtractDyn { d, base, n: len, idx, bits } => {
                        let mk = mask_of(bits as u32);
                        lanes!(mask, full, w, |l| {
                            let k = reg!(r, idx, l) & mk;
                            reg!(r, d, l) = if k < len as u64 { reg!(r, base + k as u32 * w as u32, l) } else { 0 };
                        });
                        pc += 1;
                    }
                    Inst::InsertDyn { d, n: len, v, idx, bits } => {
                        let mk = mask_of(bits as u32);
                        lanes!(mask, full, w, |l| {
                            let k = reg!(r, idx, l) & mk;
                            if k < len as u64 {
                                reg!(r, d + k as u32 * w as u32, l) = reg!(r, v, l);
                            }
                        });
                        pc += 1;
                    }
                    Inst::Repack { d, ref dl, s, ref sl } => {
                        lanes!(mask, full, w, |l| {
                            let mut buf = [0u64; 16];
                            let mut pos = 0;
                            for (k, sk) in sl.iter().enumerate() {
                                let b = sk.bits() as usize;
                                put_bits(&mut buf, pos, b, reg!(r, s + (k * w) as u32, l));
                                pos += b;
                            }
                            pos = 0;
                            for (k, sk) in dl.iter().enumerate() {
                                let b = sk.bits() as usize;
                                reg!(r, d + (k * w) as u32, l) = get_bits(&buf, pos, b);
                                pos += b;
                            }
                        });
                        pc += 1;
                    }
                    Inst::Barrier { id } => break Ev::Barrier(id, pc + 1),
                    Inst::Converge => {
                        // A scheduler event, not a kernel instruction: counted
                        // as a check, not as issued.
                        n -= 1;
                        pc += 1;
                        checks += 1;
                        if !alone {
                            break Ev::Check(pc);
                        }
                    }
                    Inst::CheckUniform { a, n: leaves, ptr, id } => {
                        // An oracle's probe, not a kernel instruction.
                        n -= 1;
                        ucheck += 1;
                        let first = mask.trailing_zeros() as usize;
                        // Pointers into private memory: relative to the lane's own.
                        let canon = |v: u64, l: usize| -> (bool, u64, u64) {
                            match objects.relative_private(v, item0 as u64 + l as u64).filter(|_| ptr) {
                                Some((region, off)) => (true, region, off),
                                None => (false, v, 0),
                            }
                        };
                        for k in 0..leaves {
                            let s = a + k * w as u32;
                            let c0 = canon(reg!(r, s, first), first);
                            lanes!(mask, full, w, |l| {
                                if canon(reg!(r, s, l), l) != c0 {
                                    let (x, y) = (reg!(r, s, first), reg!(r, s, l));
                                    return Err(fault(pc, Some(first), FaultKind::Uniformity { id, other: l as u32, a: x, b: y, ptr }));
                                }
                            });
                        }
                        pc += 1;
                    }
                    Inst::Trap => {
                        return Err(msg(pc, Some(mask.trailing_zeros() as usize), "the kernel trapped (llvm.trap or a failed assertion)"))
                    }
                    Inst::Unreachable => return Err(msg(pc, Some(mask.trailing_zeros() as usize), "control reached 'unreachable'")),
                    Inst::Ret => break Ev::Exit,
                    Inst::Br { e } => {
                        pc = take_edge!(e, mask);
                        if pc == rpc {
                            break Ev::Reached;
                        }
                        entered!();
                    }
                    Inst::CondBr { c, t, f } => {
                        counts.branch(p, pc);
                        let mut tm = 0u64;
                        for l in 0..w {
                            tm |= (reg!(r, c, l) & 1) << l;
                        }
                        tm &= mask;
                        let fm = mask & !tm;
                        if fm == 0 || tm == 0 {
                            pc = take_edge!(if fm == 0 { t } else { f }, mask);
                            if pc == rpc {
                                break Ev::Reached;
                            }
                            entered!();
                        } else {
                            let block = p.inst_block()[pc as usize];
                            let tp = take_edge!(t, tm);
                            let fp = take_edge!(f, fm);
                            targets.clear();
                            targets.push((tp, tm));
                            targets.push((fp, fm));
                            break Ev::Split(block);
                        }
                    }
                    Inst::Switch { v, ref cases, default } => {
                        counts.branch(p, pc);
                        targets.clear();
                        lanes!(mask, full, w, |l| {
                            let x = reg!(r, v, l);
                            let e = cases.iter().find(|c| c.0 == x).map_or(default, |c| c.1);
                            match targets.iter_mut().find(|t| t.0 == e) {
                                Some(t) => t.1 |= 1 << l,
                                None => targets.push((e, 1 << l)),
                            }
                        });
                        if targets.len() == 1 {
                            pc = take_edge!(targets[0].0, mask);
                            if pc == rpc {
                                break Ev::Reached;
                            }
                            entered!();
                        } else {
                            let block = p.inst_block()[pc as usize];
                            for t in targets.iter_mut() {
                                t.0 = take_edge!(t.0, t.1);
                            }
                            break Ev::Split(block);
                        }
                    }
                }
            }
        };
        self.c.warp_instructions += n;
        self.c.lane_instructions += n * mask.count_ones() as u64;
        self.c.convergence_checks += checks;
        self.c.uniformity_checks += ucheck;
        self.stop_pc = pc;
        Ok(ev)
    }

    /// The error message of a fault, naming the work-item and instruction.
    pub fn describe(&self, f: Fault) -> String {
        let k = &self.p.kernel();
        let [gx, gy, gz] = self.group;
        if let FaultKind::Uniformity { id, other, a, b, ptr } = f.kind {
            let lin = |l: u32| f.warp as u64 * self.w as u64 + l as u64;
            let show = |v: u64| if ptr { self.describe_addr(v) } else { v.to_string() };
            let (value, at) = match self.p.checks().get(id as usize) {
                Some([_, value, at]) => (value.as_str(), at.as_str()),
                None => ("?", "?"),
            };
            return format!(
                "kernel '{k}': uniformity violated at '{at}': '{value}' is called uniform but work-items {} and {} of work-group ({gx},{gy},{gz}) see {} and {}",
                lin(f.lane.unwrap_or(0)),
                lin(other),
                show(a),
                show(b)
            );
        }
        let who = match f.lane {
            Some(l) => {
                let lin = f.warp as u64 * self.w as u64 + l as u64;
                let [x, y, z] = self.local_id(lin);
                format!("work-item ({x},{y},{z}) of work-group ({gx},{gy},{gz})")
            }
            None => format!("work-group ({gx},{gy},{gz})"),
        };
        let what = match f.kind {
            FaultKind::Msg(m) => m,
            FaultKind::Uniformity { .. } => unreachable!("handled above"),
            FaultKind::Mem { what, addr, size } => {
                let at = self.p.loc_of(f.pc).map_or_else(String::new, |loc| format!(" at {loc}"));
                format!("{what} of {size} byte{} at {} is out of bounds{at}", if size == 1 { "" } else { "s" }, self.describe_addr(addr))
            }
        };
        format!("kernel '{k}': {who}: {what} in '{}'", self.p.text_of(f.pc))
    }

    /// Byte `off` of local memory: in which variable or `__local` argument.
    fn describe_local(&self, off: u64) -> String {
        let len = self.local_bytes;
        if let Some((name, start, _)) = self.p.local_vars().iter().find(|&&(_, start, size)| off >= start && off < start + size) {
            return format!("offset {} of @{name} (local memory offset {off} of {len} bytes)", off - start);
        }
        if let Some(&(i, start, _)) = self.local_args.iter().find(|&&(_, start, size)| off >= start && off < start + size) {
            return format!("offset {} of __local argument {i} (local memory offset {off} of {len} bytes)", off - start);
        }
        format!("offset {off} of local memory ({len} bytes per work-group)")
    }

    fn describe_addr(&self, a: u64) -> String {
        let p = self.p;
        let (r, off) = (a >> ADDR_BITS, a & OFF_MASK);
        // A negative index borrows from the region bits: an offset in the
        // upper half of a region (no buffer is that big) is one below the
        // start of the next region.
        let (r, off) = if off >= 1 << (ADDR_BITS - 1) { (r + 1, off as i64 - (1i64 << ADDR_BITS)) } else { (r, off as i64) };
        let len = self.mem.len_of(r);
        if r == 0 {
            return if a == 0 { "the null pointer".into() } else { format!("address {a:#x}, outside every buffer") };
        }
        // A __local object also gives the offset in local memory, which is
        // what the host engine (one guarded block) can tell.
        let in_local = || {
            let start = self.objects.canon(p, r).map_or(0, |(_, s)| s as i64);
            format!("local memory offset {} of {} bytes per work-group", start + off, self.local_bytes)
        };
        match self.objects.object(r) {
            Some(Object::LocalVar(k)) => {
                return format!("offset {off} of __local variable @{} ({len} bytes; {})", p.local_vars()[k].0, in_local())
            }
            Some(Object::LocalArg { param }) => return format!("offset {off} of __local argument {param} ({len} bytes; {})", in_local()),
            Some(Object::Alloca { item, index }) => {
                let [x, y, z] = self.local_id(item);
                let a = &p.allocas()[index];
                let array = if a.name.is_empty() {
                    format!("private array {index} ({})", a.ty)
                } else {
                    format!("private array %{} ({})", a.name, a.ty)
                };
                return format!("offset {off} of {array} of work-item ({x},{y},{z}) ({len} bytes)");
            }
            None => {}
        }
        if r <= p.params().len() as u64 {
            return format!("offset {off} of argument {} ({len} bytes)", r - 1);
        }
        if r == p.local_region() as u64 {
            return format!("offset {off} of local memory ({len} bytes per work-group)");
        }
        if let Some(g) = p.globals().iter().find(|g| g.region as u64 == r) {
            return format!("offset {off} of @{} ({len} bytes)", g.name);
        }
        let first = p.first_private_region() as u64;
        if r >= first && r < first + self.items {
            let [x, y, z] = self.local_id(r - first);
            return format!("offset {off} of the private memory of work-item ({x},{y},{z}) ({len} bytes)");
        }
        format!("address {a:#x}, outside every buffer")
    }

    /// Local memory bytes per work-group.
    pub fn local_bytes(&self) -> u64 {
        self.local_bytes
    }

    pub fn warps_per_group(&self) -> usize {
        self.warps.len()
    }
}

/// How `--check` reports name the launch's instructions, work-items and
/// addresses.
impl check::report::Names for Machine<'_> {
    fn place(&self, inst: u32) -> String {
        // The block of the first instruction decoded from this text.
        let block = self.p.inst_text().iter().position(|&t| t == inst).map_or(0, |pc| self.p.inst_block()[pc]);
        self.p.text_place(inst, block)
    }

    fn work_item(&self, item: u32) -> String {
        let [x, y, z] = self.local_id(item as u64);
        format!("({x},{y},{z})")
    }

    fn work_group(&self, group: u64) -> String {
        let [x, y, z] = self.grid.group_id(group);
        format!("({x},{y},{z})")
    }

    fn address(&self, region: u32, off: u64) -> String {
        if region == self.p.local_region() {
            self.describe_local(off)
        } else {
            self.describe_addr(addr(region, off))
        }
    }
}

/// The lane that lane `l` of a shuffle reads, from its lane, delta or xor
/// mask `b` and its clamp and segment mask `c`; `None` when that lane is out
/// of range (PTX's `pval` false: the lane keeps its own value). PTX ISA,
/// shfl.sync: lanes of 32, `c` holds the clamp (bits 0-4) and segment mask
/// (8-12).
fn shfl_source(op: WarpOp, l: usize, b: u64, c: u64) -> Option<usize> {
    let lane = l as i64;
    let bv = (b & 0x1f) as i64;
    let seg = ((c >> 8) & 0x1f) as i64;
    let max = (lane & seg) | ((c & 0x1f) as i64 & !seg);
    let min = lane & seg;
    let (j, ok) = match op {
        WarpOp::ShflUp => (lane - bv, lane - bv >= max),
        WarpOp::ShflDown => (lane + bv, lane + bv <= max),
        WarpOp::ShflBfly => (lane ^ bv, (lane ^ bv) <= max),
        _ => (min | (bv & !seg), (min | (bv & !seg)) <= max),
    };
    ok.then_some(j as usize)
}

/// Of `lanes` (none running the current lane group), those whose next
/// instructions are the kernel's return (through unconditional branches and
/// convergence checks): for a warp function's mask they have exited. A lane
/// stands where its topmost entry does (`ipdom` keeps a path's lanes in the
/// reconvergence entry below it too).
fn waiting_to_return(entries: &[policy::Entry], lanes: u64, insts: &[Inst], edges: &[Edge]) -> u64 {
    let returns = |mut pc: u32| {
        for _ in 0..16 {
            match insts.get(pc as usize) {
                Some(Inst::Ret) => return true,
                Some(Inst::Br { e }) => pc = edges[*e as usize].pc,
                Some(Inst::Converge) => pc += 1,
                _ => return false,
            }
        }
        false
    };
    let (mut seen, mut out) = (0u64, 0u64);
    for e in entries.iter().rev() {
        let here = e.mask & lanes & !seen;
        seen |= here;
        if here != 0 && e.barrier == policy::NO_BARRIER && returns(e.pc) {
            out |= here;
        }
    }
    out
}

/// `redux.sync`'s starting value: what the operation leaves unchanged.
fn redux_identity(op: ReduxOp) -> u32 {
    match op {
        ReduxOp::Min => i32::MAX as u32,
        ReduxOp::Max => i32::MIN as u32,
        ReduxOp::UMin | ReduxOp::And => u32::MAX,
        ReduxOp::Add | ReduxOp::UMax | ReduxOp::Or | ReduxOp::Xor => 0,
    }
}

fn redux_step(op: ReduxOp, acc: u32, v: u32) -> u32 {
    match op {
        ReduxOp::Add => acc.wrapping_add(v),
        ReduxOp::Min => (acc as i32).min(v as i32) as u32,
        ReduxOp::Max => (acc as i32).max(v as i32) as u32,
        ReduxOp::UMin => acc.min(v),
        ReduxOp::UMax => acc.max(v),
        ReduxOp::And => acc & v,
        ReduxOp::Or => acc | v,
        ReduxOp::Xor => acc ^ v,
    }
}
