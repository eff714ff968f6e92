//! Random functions over byte memory, as a description that is printed as
//! LLVM IR and run by a byte-level interpreter (seed 003's oracle).
//!
//! A function has up to three `[N x i8]` allocas and sometimes a global,
//! four `i64` arguments that pick offsets, branch directions, loop trip
//! counts and masks, and a body of statements: stores and loads of 1–16
//! bytes at constant or argument-dependent offsets, `memmove`/`memset`,
//! masked stores of `<4 x i8>`, stores and loads through a `select` of two
//! objects, if/else and counted loops (0–3 trips) nested two deep. Every
//! memory statement is one memory instruction, numbered in layout order
//! like the analysis numbers them. The interpreter records for every byte
//! which statement wrote it last (`None`: nothing in this run).

#![allow(dead_code)]

use std::fmt::Write;

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x2545_f491_4f6c_dd1d)
    }
    pub fn next(&mut self) -> u64 {
        // xorshift64*
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// An offset into an object: constant, or `args[arg] % modulus`.
#[derive(Clone, Copy, Debug)]
pub enum Off {
    Const(u64),
    Var { arg: usize, modulus: u64 },
}

/// A branch condition: bit `shift` of `args[arg]`, plus the innermost
/// loop counter when inside a loop (so the direction changes per trip).
#[derive(Clone, Copy, Debug)]
pub struct Cond {
    pub arg: usize,
    pub shift: u32,
}

#[derive(Clone, Debug)]
pub enum Stmt {
    Store {
        id: u32,
        obj: usize,
        off: Off,
        size: u64,
    },
    Load {
        id: u32,
        obj: usize,
        off: Off,
        size: u64,
    },
    Memmove {
        id: u32,
        dst: usize,
        doff: Off,
        src: usize,
        soff: Off,
        len: u64,
    },
    Memset {
        id: u32,
        obj: usize,
        off: Off,
        len: u64,
    },
    /// `<4 x i8>` masked store; lane k enabled iff bit `shift + k` of `args[arg]`.
    Masked {
        id: u32,
        obj: usize,
        off: u64,
        arg: usize,
        shift: u32,
    },
    /// Through `select cond, a + off_a, b + off_b`.
    SelectStore {
        id: u32,
        cond: Cond,
        a: usize,
        b: usize,
        off: u64,
        size: u64,
    },
    SelectLoad {
        id: u32,
        cond: Cond,
        a: usize,
        b: usize,
        off: u64,
        size: u64,
    },
    If {
        cond: Cond,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
    },
    /// A loop that stores one element of `elem` bytes per iteration at
    /// `obj[i]` ([`FillLoop`]): a fill of the object, of part of it, or not
    /// one at all.
    Fill {
        id: u32,
        obj: usize,
        elem: u64,
        shape: FillLoop,
    },
    /// `(args[arg] >> shift) & 3` trips.
    Loop {
        arg: usize,
        shift: u32,
        body: Vec<Stmt>,
    },
}

/// How a fill loop runs. One dimension: `i` from `start`, `i += step`
/// while `i pred bound` (tested after the body when `rotated`, as clang
/// emits loops, else before), the store under `cond` when set, and a break
/// after it when `brk` holds. Two (`rows`): `for r < R: for c < cols_run:
/// obj[r * cols + c]`, both loops rotated.
#[derive(Clone, Copy, Debug)]
pub struct FillLoop {
    pub start: i64,
    pub step: i64,
    pub pred: Pred,
    pub bound: Bound,
    pub rotated: bool,
    pub cond: Option<Cond>,
    pub brk: Option<Cond>,
    /// `(R, cols, cols_run)`.
    pub rows: Option<(u64, u64, u64)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pred {
    Slt,
    Sge,
    Ne,
}

#[derive(Clone, Copy, Debug)]
pub enum Bound {
    Const(i64),
    /// `(args[arg] >> shift) % modulus`.
    Arg {
        arg: usize,
        shift: u32,
        modulus: u64,
    },
}

impl Pred {
    fn holds(self, a: i64, b: i64) -> bool {
        match self {
            Pred::Slt => a < b,
            Pred::Sge => a >= b,
            Pred::Ne => a != b,
        }
    }
    fn ir(self) -> &'static str {
        match self {
            Pred::Slt => "slt",
            Pred::Sge => "sge",
            Pred::Ne => "ne",
        }
    }
}

/// The element indices a fill loop stores to when nothing depends on the
/// arguments (no condition, no break, a constant bound), in order; `None`
/// otherwise.
pub fn fill_indices(shape: &FillLoop) -> Option<Vec<u64>> {
    if shape.cond.is_some() || shape.brk.is_some() {
        return None;
    }
    let Bound::Const(bound) = shape.bound else { return None };
    let mut out = Vec::new();
    run_fill(shape, bound, &mut |i| {
        out.push(i);
        true
    });
    Some(out)
}

/// Runs the index sequence of a fill loop; `body` returns false to break.
fn run_fill(shape: &FillLoop, bound: i64, body: &mut dyn FnMut(u64) -> bool) {
    if let Some((rows, cols, run)) = shape.rows {
        for r in 0..rows {
            // Rotated: the body runs once before the first test.
            let mut c = 0;
            loop {
                if !body(r * cols + c) {
                    return;
                }
                c += 1;
                if c >= run {
                    break;
                }
            }
        }
        return;
    }
    let mut i = shape.start;
    if !shape.rotated && !shape.pred.holds(i, bound) {
        return;
    }
    loop {
        if !body(i as u64) {
            return;
        }
        i += shape.step;
        if !shape.pred.holds(i, bound) {
            return;
        }
    }
}

pub struct Func {
    pub name: String,
    /// Object sizes; the last is a global when `global` is set.
    pub sizes: Vec<u64>,
    pub global: bool,
    pub body: Vec<Stmt>,
    pub n_accesses: u32,
}

pub const N_ARGS: usize = 4;

pub fn generate(rng: &mut Rng, name: &str) -> Func {
    generate_with(rng, name, false)
}

/// Like [`generate`], with fill loops among the statements (a quarter of
/// those not nested two deep): whole fills forwards and backwards, top- or
/// bottom-tested, 2-D fills, and loops that are not whole fills (bound one
/// short, start at 1, stride 2, the store under a condition, an early
/// break, a bound from an argument, rows one short).
pub fn generate_fills(rng: &mut Rng, name: &str) -> Func {
    generate_opts(rng, name, false, true)
}

/// Like [`generate`]; `plain` makes argument-dependent offsets, masked
/// stores and accesses through a `select` rarer (more loads whose bytes
/// known stores supply, for store-to-load forwarding).
pub fn generate_with(rng: &mut Rng, name: &str, plain: bool) -> Func {
    generate_opts(rng, name, plain, false)
}

fn generate_opts(rng: &mut Rng, name: &str, plain: bool, fills: bool) -> Func {
    let n_objs = 1 + rng.below(3) as usize;
    let mut sizes: Vec<u64> = (0..n_objs).map(|_| [8, 16, 24, 32][rng.below(4) as usize]).collect();
    let global = rng.below(4) == 0;
    if global {
        sizes.push(16);
    }
    let mut g = Gen { rng, sizes: &sizes, next_id: 0, plain, fills };
    let n = 3 + g.rng.below(10) as usize;
    let body = g.block(n, 0);
    let n_accesses = g.next_id;
    Func { name: name.into(), sizes, global, body, n_accesses }
}

struct Gen<'a> {
    rng: &'a mut Rng,
    sizes: &'a [u64],
    next_id: u32,
    plain: bool,
    fills: bool,
}

impl Gen<'_> {
    fn id(&mut self) -> u32 {
        self.next_id += 1;
        self.next_id - 1
    }

    fn size(&mut self, obj: usize) -> u64 {
        let s = [1, 2, 4, 8, 16][self.rng.below(5) as usize];
        s.min(self.sizes[obj])
    }

    fn off(&mut self, obj: usize, size: u64) -> Off {
        let room = self.sizes[obj] - size + 1;
        if self.rng.below(if self.plain { 16 } else { 4 }) == 0 {
            Off::Var { arg: self.rng.below(N_ARGS as u64) as usize, modulus: room }
        } else {
            Off::Const(self.rng.below(room))
        }
    }

    fn cond(&mut self) -> Cond {
        Cond { arg: self.rng.below(N_ARGS as u64) as usize, shift: self.rng.below(60) as u32 }
    }

    fn block(&mut self, n: usize, depth: u32) -> Vec<Stmt> {
        (0..n).map(|_| self.stmt(depth)).collect()
    }

    fn obj(&mut self) -> usize {
        self.rng.below(self.sizes.len() as u64) as usize
    }

    fn fill(&mut self) -> Stmt {
        let obj = self.obj();
        let size = self.sizes[obj];
        let elems: Vec<u64> = [1, 2, 4, 8].into_iter().filter(|&e| size / e >= 4).collect();
        let elem = elems[self.rng.below(elems.len() as u64) as usize];
        let n = (size / elem) as i64;
        let rotated = self.rng.below(2) == 0;
        let mut shape = FillLoop {
            start: 0,
            step: 1,
            pred: if rotated && self.rng.below(2) == 0 { Pred::Ne } else { Pred::Slt },
            bound: Bound::Const(n),
            rotated,
            cond: None,
            brk: None,
            rows: None,
        };
        match self.rng.below(12) {
            0..=2 => {}
            3 => (shape.start, shape.step, shape.pred, shape.bound) = (n - 1, -1, Pred::Sge, Bound::Const(0)),
            4 => shape.rows = Some((2, n as u64 / 2, n as u64 / 2)),
            5 => shape.bound = Bound::Const(n - 1),
            6 => shape.start = 1,
            7 => (shape.step, shape.pred) = (2, Pred::Slt),
            8 => shape.cond = Some(self.cond()),
            9 => shape.brk = Some(self.cond()),
            10 => {
                let (arg, shift) = (self.rng.below(N_ARGS as u64) as usize, self.rng.below(60) as u32);
                (shape.pred, shape.bound) = (Pred::Slt, Bound::Arg { arg, shift, modulus: n as u64 + 1 });
            }
            _ => shape.rows = Some((2, n as u64 / 2, n as u64 / 2 - 1)),
        }
        Stmt::Fill { id: self.id(), obj, elem, shape }
    }

    fn stmt(&mut self, depth: u32) -> Stmt {
        if self.fills && depth < 2 && self.rng.below(4) == 0 {
            return self.fill();
        }
        let mut k = self.rng.below(if depth < 2 { 20 } else { 16 });
        if self.plain && (11..=14).contains(&k) && self.rng.below(4) != 0 {
            k = self.rng.below(9);
        }
        let obj = self.obj();
        match k {
            0..=4 => {
                let size = self.size(obj);
                let off = self.off(obj, size);
                Stmt::Store { id: self.id(), obj, off, size }
            }
            5..=8 => {
                let size = self.size(obj);
                let off = self.off(obj, size);
                Stmt::Load { id: self.id(), obj, off, size }
            }
            9 => {
                let src = self.obj();
                let len = 1 + self.rng.below(self.sizes[obj].min(self.sizes[src]));
                let doff = self.off(obj, len);
                let soff = self.off(src, len);
                Stmt::Memmove { id: self.id(), dst: obj, doff, src, soff, len }
            }
            10 => {
                let len = 1 + self.rng.below(self.sizes[obj]);
                let off = self.off(obj, len);
                Stmt::Memset { id: self.id(), obj, off, len }
            }
            11 | 12 => {
                let off = self.rng.below(self.sizes[obj] - 3);
                let arg = self.rng.below(N_ARGS as u64) as usize;
                Stmt::Masked { id: self.id(), obj, off, arg, shift: self.rng.below(60) as u32 }
            }
            13 | 14 => {
                let b = self.obj();
                let size = self.size(obj).min(self.sizes[b]);
                let off = self.rng.below(self.sizes[obj].min(self.sizes[b]) - size + 1);
                let cond = self.cond();
                if k == 13 {
                    Stmt::SelectStore { id: self.id(), cond, a: obj, b, off, size }
                } else {
                    Stmt::SelectLoad { id: self.id(), cond, a: obj, b, off, size }
                }
            }
            15 => {
                let size = self.size(obj);
                let off = self.off(obj, size);
                Stmt::Load { id: self.id(), obj, off, size }
            }
            16..=17 => {
                let cond = self.cond();
                let n1 = self.rng.below(4) as usize;
                let then = self.block(n1, depth + 1);
                let n2 = self.rng.below(4) as usize;
                let els = self.block(n2, depth + 1);
                Stmt::If { cond, then, els }
            }
            _ => {
                let arg = self.rng.below(N_ARGS as u64) as usize;
                let shift = self.rng.below(60) as u32;
                let n1 = 1 + self.rng.below(4) as usize;
                let body = self.block(n1, depth + 1);
                Stmt::Loop { arg, shift, body }
            }
        }
    }
}

// ------------------------------------------------------------------ IR

pub fn module_ir(funcs: &[Func]) -> String {
    let mut s = String::from(
        "target datalayout = \"e-m:e-i64:64-n8:16:32:64-S128\"\n\
         declare void @llvm.memmove.p0.p0.i64(ptr, ptr, i64, i1)\n\
         declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)\n\
         declare void @llvm.masked.store.v4i8.p0(<4 x i8>, ptr, <4 x i1>)\n",
    );
    for f in funcs {
        if f.global {
            let _ = writeln!(s, "@{}.g = internal global [16 x i8] zeroinitializer", f.name);
        }
        s += &function_ir(f);
    }
    s
}

struct Emit<'f> {
    f: &'f Func,
    out: String,
    tmp: u32,
    /// Innermost loop counter, if any.
    counter: Option<String>,
    /// As a kernel for the engines (`kernel_module_ir`).
    kernel: bool,
}

impl Emit<'_> {
    fn t(&mut self) -> String {
        self.tmp += 1;
        format!("%t{}", self.tmp)
    }

    fn obj(&self, k: usize) -> String {
        if !self.kernel && self.f.global && k == self.f.sizes.len() - 1 {
            format!("@{}.g", self.f.name)
        } else {
            format!("%o{k}")
        }
    }

    fn ptr(&mut self, obj: usize, off: Off) -> String {
        let base = self.obj(obj);
        let idx = match off {
            Off::Const(0) => return base,
            Off::Const(c) => c.to_string(),
            Off::Var { arg, modulus } => {
                let r = self.t();
                let _ = writeln!(self.out, "  {r} = urem i64 %x{arg}, {modulus}");
                r
            }
        };
        let p = self.t();
        let _ = writeln!(self.out, "  {p} = getelementptr i8, ptr {base}, i64 {idx}");
        p
    }

    fn cond(&mut self, c: Cond) -> String {
        let sh = self.t();
        let _ = writeln!(self.out, "  {sh} = lshr i64 %x{}, {}", c.arg, c.shift);
        let v = match self.counter.clone() {
            Some(i) => {
                let a = self.t();
                let _ = writeln!(self.out, "  {a} = add i64 {sh}, {i}");
                a
            }
            None => sh,
        };
        let b = self.t();
        let _ = writeln!(self.out, "  {b} = trunc i64 {v} to i1");
        b
    }

    fn label(&mut self) -> String {
        self.tmp += 1;
        format!("b{}", self.tmp)
    }

    fn stmts(&mut self, body: &[Stmt]) {
        for s in body {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match *s {
            Stmt::Store { obj, off, size, id } => {
                let p = self.ptr(obj, off);
                if self.kernel {
                    let (ty, v) = self.kernel_value(id, size);
                    let _ = writeln!(self.out, "  store {ty} {v}, ptr {p}, align 1");
                } else {
                    let _ = writeln!(self.out, "  store i{} {}, ptr {p}, align 1", size * 8, self.tmp);
                }
            }
            Stmt::Load { obj, off, size, id } => {
                let p = self.ptr(obj, off);
                let v = self.t();
                if self.kernel {
                    let ty = scalar_type(id + 1, size);
                    let _ = writeln!(self.out, "  {v} = load {ty}, ptr {p}, align 1");
                    self.kernel_out(id, ty, size, &v);
                } else {
                    let _ = writeln!(self.out, "  {v} = load i{}, ptr {p}, align 1", size * 8);
                }
            }
            Stmt::Memmove { dst, doff, src, soff, len, .. } => {
                let d = self.ptr(dst, doff);
                let sp = self.ptr(src, soff);
                let _ = writeln!(self.out, "  call void @llvm.memmove.p0.p0.i64(ptr {d}, ptr {sp}, i64 {len}, i1 false)");
            }
            Stmt::Memset { obj, off, len, id } => {
                let p = self.ptr(obj, off);
                let byte = if self.kernel && id % 2 == 1 {
                    let b = self.t();
                    let _ = writeln!(self.out, "  {b} = trunc i64 %x{} to i8", id as usize % N_ARGS);
                    b
                } else {
                    "7".to_string()
                };
                let _ = writeln!(self.out, "  call void @llvm.memset.p0.i64(ptr {p}, i8 {byte}, i64 {len}, i1 false)");
            }
            Stmt::Masked { obj, off, arg, shift, .. } => {
                let p = self.ptr(obj, Off::Const(off));
                let sh = self.t();
                let tr = self.t();
                let m = self.t();
                let _ = writeln!(self.out, "  {sh} = lshr i64 %x{arg}, {shift}");
                let _ = writeln!(self.out, "  {tr} = trunc i64 {sh} to i4");
                let _ = writeln!(self.out, "  {m} = bitcast i4 {tr} to <4 x i1>");
                if self.kernel {
                    // The emulator has no masked stores: a vector load, a
                    // select and a vector store (a store this pass cannot
                    // take apart, as it cannot a masked one).
                    let (old, new) = (self.t(), self.t());
                    let _ = writeln!(
                        self.out,
                        "  {old} = load <4 x i8>, ptr {p}, align 1\n  {new} = select <4 x i1> {m}, <4 x i8> <i8 1, i8 2, i8 3, i8 4>, <4 x i8> {old}\n  store <4 x i8> {new}, ptr {p}, align 1"
                    );
                    return;
                }
                let _ = writeln!(
                    self.out,
                    "  call void @llvm.masked.store.v4i8.p0(<4 x i8> <i8 1, i8 2, i8 3, i8 4>, ptr align 1 {p}, <4 x i1> {m})"
                );
            }
            Stmt::SelectStore { cond, a, b, off, size, .. } | Stmt::SelectLoad { cond, a, b, off, size, .. } => {
                let pa = self.ptr(a, Off::Const(off));
                let pb = self.ptr(b, Off::Const(off));
                let c = self.cond(cond);
                let p = self.t();
                let _ = writeln!(self.out, "  {p} = select i1 {c}, ptr {pa}, ptr {pb}");
                // The emulator has no i128.
                let (ty, five) =
                    if self.kernel && size == 16 { ("<2 x i64>".to_string(), "<i64 5, i64 0>") } else { (format!("i{}", size * 8), "5") };
                if matches!(s, Stmt::SelectStore { .. }) {
                    let _ = writeln!(self.out, "  store {ty} {five}, ptr {p}, align 1");
                } else {
                    let v = self.t();
                    let _ = writeln!(self.out, "  {v} = load {ty}, ptr {p}, align 1");
                    if let (true, Stmt::SelectLoad { id, .. }) = (self.kernel, s) {
                        self.kernel_out(*id, &ty, size, &v);
                    }
                }
            }
            Stmt::If { cond, ref then, ref els } => {
                let c = self.cond(cond);
                let (lt, le, lj) = (self.label(), self.label(), self.label());
                let _ = writeln!(self.out, "  br i1 {c}, label %{lt}, label %{le}\n{lt}:");
                self.stmts(then);
                let _ = writeln!(self.out, "  br label %{lj}\n{le}:");
                self.stmts(els);
                let _ = writeln!(self.out, "  br label %{lj}\n{lj}:");
            }
            Stmt::Fill { id, obj, elem, shape } => self.fill(id, obj, elem, &shape),
            Stmt::Loop { arg, shift, ref body } => {
                let (pre, head, lb, latch, exit) = (self.label(), self.label(), self.label(), self.label(), self.label());
                let sh = self.t();
                let n = self.t();
                let i = self.t();
                let next = self.t();
                let go = self.t();
                let _ = writeln!(
                    self.out,
                    "  {sh} = lshr i64 %x{arg}, {shift}\n  {n} = and i64 {sh}, 3\n  br label %{pre}\n{pre}:\n  br label %{head}"
                );
                let _ = writeln!(self.out, "{head}:\n  {i} = phi i64 [ 0, %{pre} ], [ {next}, %{latch} ]");
                let _ = writeln!(self.out, "  {go} = icmp ult i64 {i}, {n}\n  br i1 {go}, label %{lb}, label %{exit}\n{lb}:");
                let saved = self.counter.replace(i.clone());
                self.stmts(body);
                self.counter = saved;
                let _ = writeln!(self.out, "  br label %{latch}\n{latch}:\n  {next} = add i64 {i}, 1\n  br label %{head}\n{exit}:");
            }
        }
    }
}

impl Emit<'_> {
    /// The store of a fill loop at element `idx`.
    fn fill_store(&mut self, id: u32, obj: usize, elem: u64, idx: &str) {
        let base = self.obj(obj);
        let p = self.t();
        let _ = writeln!(self.out, "  {p} = getelementptr i{}, ptr {base}, i64 {idx}", elem * 8);
        if self.kernel {
            let (ty, v) = self.kernel_value(id, elem);
            let _ = writeln!(self.out, "  store {ty} {v}, ptr {p}, align 1");
        } else {
            let _ = writeln!(self.out, "  store i{} {}, ptr {p}, align 1", elem * 8, self.tmp);
        }
    }

    /// A fill loop; its exit block is `fx<id>`.
    fn fill(&mut self, id: u32, obj: usize, elem: u64, s: &FillLoop) {
        let exit = format!("fx{id}");
        if let Some((rows, cols, run)) = s.rows {
            let (pre, oh, ih, ol) = (self.label(), self.label(), self.label(), self.label());
            let (r, rn, base, c, cn, idx, ic, oc) = (self.t(), self.t(), self.t(), self.t(), self.t(), self.t(), self.t(), self.t());
            let _ = writeln!(self.out, "  br label %{pre}\n{pre}:\n  br label %{oh}\n{oh}:");
            let _ = writeln!(
                self.out,
                "  {r} = phi i64 [ 0, %{pre} ], [ {rn}, %{ol} ]\n  {base} = mul i64 {r}, {cols}\n  br label %{ih}\n{ih}:"
            );
            let _ = writeln!(self.out, "  {c} = phi i64 [ 0, %{oh} ], [ {cn}, %{ih} ]\n  {idx} = add i64 {base}, {c}");
            self.fill_store(id, obj, elem, &idx);
            let _ = writeln!(
                self.out,
                "  {cn} = add i64 {c}, 1\n  {ic} = icmp ult i64 {cn}, {run}\n  br i1 {ic}, label %{ih}, label %{ol}\n{ol}:"
            );
            let _ = writeln!(
                self.out,
                "  {rn} = add i64 {r}, 1\n  {oc} = icmp ult i64 {rn}, {rows}\n  br i1 {oc}, label %{oh}, label %{exit}\n{exit}:"
            );
            return;
        }
        let (pre, head, st, cont, latch) = (self.label(), self.label(), self.label(), self.label(), self.label());
        let bound = match s.bound {
            Bound::Const(b) => b.to_string(),
            Bound::Arg { arg, shift, modulus } => {
                let (sh, n) = (self.t(), self.t());
                let _ = writeln!(self.out, "  {sh} = lshr i64 %x{arg}, {shift}\n  {n} = urem i64 {sh}, {modulus}");
                n
            }
        };
        let (i, next, go) = (self.t(), self.t(), self.t());
        let _ = writeln!(self.out, "  br label %{pre}\n{pre}:\n  br label %{head}\n{head}:");
        let _ = writeln!(self.out, "  {i} = phi i64 [ {}, %{pre} ], [ {next}, %{latch} ]", s.start);
        let saved = self.counter.replace(i.clone());
        if !s.rotated {
            let body = self.label();
            let _ =
                writeln!(self.out, "  {go} = icmp {} i64 {i}, {bound}\n  br i1 {go}, label %{body}, label %{exit}\n{body}:", s.pred.ir());
        }
        match s.cond {
            Some(c) => {
                let c = self.cond(c);
                let _ = writeln!(self.out, "  br i1 {c}, label %{st}, label %{cont}\n{st}:");
            }
            None => {
                let _ = writeln!(self.out, "  br label %{st}\n{st}:");
            }
        }
        self.fill_store(id, obj, elem, &i);
        let _ = writeln!(self.out, "  br label %{cont}\n{cont}:");
        match s.brk {
            Some(c) => {
                let c = self.cond(c);
                let _ = writeln!(self.out, "  br i1 {c}, label %{exit}, label %{latch}\n{latch}:");
            }
            None => {
                let _ = writeln!(self.out, "  br label %{latch}\n{latch}:");
            }
        }
        self.counter = saved;
        let _ = writeln!(self.out, "  {next} = add i64 {i}, {}", s.step);
        if s.rotated {
            let _ = writeln!(
                self.out,
                "  {go} = icmp {} i64 {next}, {bound}\n  br i1 {go}, label %{head}, label %{exit}\n{exit}:",
                s.pred.ir()
            );
        } else {
            let _ = writeln!(self.out, "  br label %{head}\n{exit}:");
        }
    }
}

/// The type a kernel stores or loads `size` bytes as, by `pick`: integers,
/// and floats and pointers where one has that size (no `half`: the
/// emulator has none).
fn scalar_type(pick: u32, size: u64) -> &'static str {
    match (pick % 3, size) {
        (1, 4) => "float",
        (1, 8) => "double",
        (2, 8) => "ptr",
        (_, 1) => "i8",
        (_, 2) => "i16",
        (_, 4) => "i32",
        (_, 8) => "i64",
        // The emulator has no i128.
        _ => "<2 x i64>",
    }
}

impl Emit<'_> {
    /// A value for store `id` of `size` bytes that depends on the arguments.
    fn kernel_value(&mut self, id: u32, size: u64) -> (&'static str, String) {
        let (m, v) = (self.t(), self.t());
        let x = id as usize % N_ARGS;
        let _ = writeln!(self.out, "  {m} = mul i64 %x{x}, {}\n  {v} = add i64 {m}, {id}", 2 * id + 1);
        let ty = scalar_type(id, size);
        let int = self.t();
        if size == 16 {
            let _ = writeln!(self.out, "  {int} = insertelement <2 x i64> <i64 0, i64 {id}>, i64 {v}, i32 0");
            return (ty, int);
        }
        let cast = if size == 8 { "bitcast" } else { "trunc" };
        let _ = writeln!(self.out, "  {int} = {cast} i64 {v} to i{}", size * 8);
        let out = match ty {
            "ptr" => {
                let p = self.t();
                let _ = writeln!(self.out, "  {p} = inttoptr i64 {int} to ptr");
                p
            }
            t if t.starts_with('i') => int,
            t => {
                let f = self.t();
                let _ = writeln!(self.out, "  {f} = bitcast i{} {int} to {t}", size * 8);
                f
            }
        };
        (ty, out)
    }

    /// Writes what load `id` read to its slot of the output buffer (16
    /// bytes per load and work-item).
    fn kernel_out(&mut self, id: u32, ty: &str, size: u64, v: &str) {
        let int = match ty {
            "ptr" => {
                let i = self.t();
                let _ = writeln!(self.out, "  {i} = ptrtoint ptr {v} to i64");
                i
            }
            t if t.starts_with('i') || t.starts_with('<') => v.to_string(),
            t => {
                let i = self.t();
                let _ = writeln!(self.out, "  {i} = bitcast {t} {v} to i{}", size * 8);
                i
            }
        };
        let (k, p) = (self.t(), self.t());
        let _ = writeln!(self.out, "  {k} = add i64 %slot0, {}", id * 16);
        let _ = writeln!(self.out, "  {p} = getelementptr i8, ptr addrspace(1) %out, i64 {k}");
        let ty = if ty.starts_with('<') { ty.to_string() } else { format!("i{}", size * 8) };
        let _ = writeln!(self.out, "  store {ty} {int}, ptr addrspace(1) {p}, align 1");
    }
}

/// Bytes of `%in` each work-item reads: its four arguments, then the first
/// contents of each object.
pub const KERNEL_IN_BYTES: u64 = 32 + 4 * 32;

/// Bytes of `%out` per work-item: 16 per memory instruction.
pub fn kernel_out_bytes(f: &Func) -> u64 {
    16 * u64::from(f.n_accesses)
}

/// The functions as OpenCL kernels (spir64) for the engines: `f(ptr
/// addrspace(1) noalias %in, ptr addrspace(1) noalias %out)`. Work-item `g`
/// reads its arguments from `%in + g * KERNEL_IN_BYTES`; objects 0 and 2
/// start as a `memset` of an argument's low byte, objects 1 and 3 with a
/// `memcpy` from `%in` (which no forwarding can take apart, like bytes from
/// before the function). It stores values computed from its arguments
/// (integers, floats, doubles, pointers), and writes every value a
/// load reads to `%out`. The global object is an alloca here (one per
/// work-item: no races).
pub fn kernel_module_ir(funcs: &[Func]) -> String {
    let mut s = String::from(
        "target datalayout = \"e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1\"\n\
         target triple = \"spir64\"\n\
         declare spir_func i64 @_Z13get_global_idj(i32)\n\
         declare void @llvm.memmove.p0.p0.i64(ptr, ptr, i64, i1)\n\
         declare void @llvm.memcpy.p0.p1.i64(ptr, ptr addrspace(1), i64, i1)\n\
         declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)\n\
         declare void @llvm.masked.store.v4i8.p0(<4 x i8>, ptr, <4 x i1>)\n",
    );
    for f in funcs {
        let mut e = Emit { f, out: String::new(), tmp: 0, counter: None, kernel: true };
        let _ =
            writeln!(e.out, "define spir_kernel void @{}(ptr addrspace(1) noalias %in, ptr addrspace(1) noalias %out) {{\nentry:", f.name);
        let _ = writeln!(e.out, "  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)");
        let _ = writeln!(e.out, "  %inb = mul i64 %gid, {KERNEL_IN_BYTES}\n  %slot0 = mul i64 %gid, {}", kernel_out_bytes(f));
        for k in 0..N_ARGS {
            let _ = writeln!(
                e.out,
                "  %xa{k} = add i64 %inb, {}\n  %xp{k} = getelementptr i8, ptr addrspace(1) %in, i64 %xa{k}\n  %x{k} = load i64, ptr addrspace(1) %xp{k}, align 1",
                8 * k
            );
        }
        for (k, size) in f.sizes.iter().enumerate() {
            let _ = writeln!(e.out, "  %o{k} = alloca [{size} x i8], align 1");
            if k % 2 == 0 {
                let _ = writeln!(
                    e.out,
                    "  %ib{k} = trunc i64 %x{k} to i8\n  call void @llvm.memset.p0.i64(ptr %o{k}, i8 %ib{k}, i64 {size}, i1 false)"
                );
            } else {
                let _ = writeln!(
                    e.out,
                    "  %ia{k} = add i64 %inb, {}\n  %ip{k} = getelementptr i8, ptr addrspace(1) %in, i64 %ia{k}\n  call void @llvm.memcpy.p0.p1.i64(ptr %o{k}, ptr addrspace(1) %ip{k}, i64 {size}, i1 false)",
                    32 + 32 * k
                );
            }
        }
        e.stmts(&f.body);
        e.out += "  ret void\n}\n";
        s += &e.out;
    }
    s
}

pub fn function_ir(f: &Func) -> String {
    let mut e = Emit { f, out: String::new(), tmp: 0, counter: None, kernel: false };
    let args: Vec<String> = (0..N_ARGS).map(|k| format!("i64 %x{k}")).collect();
    let _ = writeln!(e.out, "define void @{}({}) {{\nentry:", f.name, args.join(", "));
    let n_alloca = f.sizes.len() - usize::from(f.global);
    for (k, size) in f.sizes.iter().enumerate().take(n_alloca) {
        let _ = writeln!(e.out, "  %o{k} = alloca [{size} x i8], align 1");
    }
    e.stmts(&f.body);
    e.out += "  ret void\n}\n";
    e.out
}

// ---------------------------------------------------------- interpreter

/// One byte read by a memory instruction, the store that wrote it last and
/// its value.
pub struct Read {
    pub access: u32,
    /// The byte's offset in its object.
    pub offset: u64,
    pub writer: Option<u32>,
    pub value: u64,
}

/// A byte: who wrote it last, and what it holds (`memmove` copies values).
#[derive(Clone, Copy)]
struct Byte {
    writer: Option<u32>,
    value: u64,
}

/// Runs `f` on `args`, reporting every byte each load (and memmove) reads
/// with its last writer.
pub fn run(f: &Func, args: &[u64; N_ARGS], read: &mut dyn FnMut(Read)) {
    run_without(f, args, &[], read)
}

/// Runs `f` as if the memory statements `removed` were not there.
pub fn run_without(f: &Func, args: &[u64; N_ARGS], removed: &[u32], read: &mut dyn FnMut(Read)) {
    let mut mem: Vec<Vec<Byte>> =
        f.sizes.iter().enumerate().map(|(o, &n)| (0..n).map(|k| Byte { writer: None, value: (o as u64) << 32 | k }).collect()).collect();
    let mut x = Exec { args, removed, mem: &mut mem, read };
    x.block(&f.body, None);
}

fn written(id: u32, k: usize) -> Byte {
    Byte { writer: Some(id), value: (u64::from(id) << 16) + 1_000_000 + k as u64 }
}

fn offset(off: Off, args: &[u64; N_ARGS]) -> usize {
    match off {
        Off::Const(c) => c as usize,
        Off::Var { arg, modulus } => (args[arg] % modulus) as usize,
    }
}

fn cond(c: Cond, args: &[u64; N_ARGS], counter: Option<u64>) -> bool {
    ((args[c.arg] >> c.shift).wrapping_add(counter.unwrap_or(0))) & 1 == 1
}

struct Exec<'a> {
    args: &'a [u64; N_ARGS],
    removed: &'a [u32],
    mem: &'a mut [Vec<Byte>],
    read: &'a mut dyn FnMut(Read),
}

impl Exec<'_> {
    fn write(&mut self, id: u32, obj: usize, lo: usize, n: usize) {
        if !self.removed.contains(&id) {
            for k in lo..lo + n {
                self.mem[obj][k] = written(id, k);
            }
        }
    }

    fn load(&mut self, id: u32, obj: usize, lo: usize, n: usize) {
        for k in lo..lo + n {
            let b = self.mem[obj][k];
            (self.read)(Read { access: id, offset: k as u64, writer: b.writer, value: b.value });
        }
    }

    fn block(&mut self, body: &[Stmt], counter: Option<u64>) {
        let args = self.args;
        for s in body {
            match *s {
                Stmt::Store { id, obj, off, size } => self.write(id, obj, offset(off, args), size as usize),
                Stmt::Load { id, obj, off, size } => self.load(id, obj, offset(off, args), size as usize),
                Stmt::Memmove { id, dst, doff, src, soff, len } => {
                    let (d, so, n) = (offset(doff, args), offset(soff, args), len as usize);
                    self.load(id, src, so, n);
                    if !self.removed.contains(&id) {
                        let copy: Vec<Byte> = self.mem[src][so..so + n].to_vec();
                        for (k, b) in copy.into_iter().enumerate() {
                            self.mem[dst][d + k] = Byte { writer: Some(id), value: b.value };
                        }
                    }
                }
                Stmt::Memset { id, obj, off, len } => {
                    let o = offset(off, args);
                    if !self.removed.contains(&id) {
                        self.mem[obj][o..o + len as usize].fill(Byte { writer: Some(id), value: 7 });
                    }
                }
                Stmt::Masked { id, obj, off, arg, shift } => {
                    for lane in 0..4u32 {
                        if (args[arg] >> (shift + lane)) & 1 == 1 {
                            self.write(id, obj, off as usize + lane as usize, 1);
                        }
                    }
                }
                Stmt::SelectStore { id, cond: c, a, b, off, size } => {
                    let obj = if cond(c, args, counter) { a } else { b };
                    self.write(id, obj, off as usize, size as usize);
                }
                Stmt::SelectLoad { id, cond: c, a, b, off, size } => {
                    let obj = if cond(c, args, counter) { a } else { b };
                    self.load(id, obj, off as usize, size as usize);
                }
                Stmt::If { cond: c, ref then, ref els } => {
                    let body = if cond(c, args, counter) { then } else { els };
                    self.block(body, counter);
                }
                Stmt::Fill { id, obj, elem, ref shape } => {
                    let bound = match shape.bound {
                        Bound::Const(b) => b,
                        Bound::Arg { arg, shift, modulus } => ((args[arg] >> shift) % modulus) as i64,
                    };
                    run_fill(shape, bound, &mut |i| {
                        if shape.cond.is_none_or(|c| cond(c, args, Some(i))) {
                            self.write(id, obj, (i * elem) as usize, elem as usize);
                        }
                        !shape.brk.is_some_and(|c| cond(c, args, Some(i)))
                    });
                }
                Stmt::Loop { arg, shift, ref body } => {
                    for i in 0..((args[arg] >> shift) & 3) {
                        self.block(body, Some(i));
                    }
                }
            }
        }
    }
}
