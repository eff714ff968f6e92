//! Random OpenCL C kernels, race-free and free of undefined behaviour by
//! construction, deterministic from a seed (CLsmith, Lidbury et al., PLDI
//! 2015; YARPGen): the kernel fuzzer's generator (`tests/cl_fuzz.rs`).
//!
//! Every kernel has the same parameters (so one launch shape serves all):
//!
//! ```text
//! k(__global uint *out,  global*K: work-item g writes only out[g*K .. g*K+K)
//!   __global const uint *in, __global const uint *idx,   IN_LEN each, random
//!   __global uint *hist,  HIST_LEN: only atomics whose result is order-free
//!   __global uint *out2,  OUT2_LEN: element i only by work-item i % global
//!   __local uint *tile,   local-size elements: exchanges between barriers
//!   uint n, uint zero)    n: a bound near the global size; zero: always 0
//! ```
//!
//! The shapes real kernels have, each aimed at a pass: counted innermost
//! loops of a few statements with non-constant trip counts (so `-O2` keeps
//! them: `simt-swp`), divergent `if`s with stores (`simt-ifconvert`), stores
//! then loads of the same private or `out` slots, also through a byte view
//! (`simt-memfwd`, `simt-memdse`), grid-stride loops over `out2`
//! (`simt-lockstep-loops`), `if (gid < n)` bounds checks
//! (`simt-wiloops-version`), barriers in loops and branches that every
//! work-item reaches (`simt-wiloops`); indirect and aliasing addresses
//! (`in[idx[..]]`, `pa[i] += pa[i - d]`, histograms into private arrays),
//! helpers (`static`, `static inline`, a struct by value, a private pointer,
//! one with a barrier), `uint4` vectors and exact `float4` arithmetic on
//! small integers, `char`..`long` variables of both signednesses.
//!
//! Why no undefined behaviour: arithmetic is done in `uint`/`ulong` (signed
//! and narrow variables enter as `(uint)v`, leave as `(T)(e)`, a truncation);
//! shift counts are masked, divisors are `| 1` (signed ones positive),
//! array indices masked to the (power-of-two) array sizes, loops bounded.
//! Why no race: see the parameter list; `__local` memory is written and read
//! only in exchanges fenced by barriers on both sides, which the generator
//! places only where every enclosing condition is uniform (kernel
//! arguments, constants, the local size, uniform loop counters).
//!
//! EMI (equivalence modulo inputs): blocks under `if (zero > 7u)`, never
//! taken, hold arbitrary generated code. [`generate`] draws them for both
//! variants and prints them only into [`Generated::emi`], so the two
//! variants must compute the same buffers.
//!
//! Left out, because `simt-lower-ocl-builtins` rejects them (with a clear
//! error): `add_sat`, `sub_sat`, `hadd`, `rhadd`, `abs_diff`, `upsample`,
//! `vload`/`vstore`, `convert_*` (vectors are loaded through `uint4`
//! pointers and converted element by element instead).

#![allow(dead_code)]

use super::kernel_gen::Rng;

/// Slots of `out` per work-item.
pub const K: u32 = 12;
/// Elements of `in` and `idx`.
pub const IN_LEN: u32 = 256;
/// Elements of `hist`: 32 sums, 32 bit sets, 8 minima, 8 maxima.
pub const HIST_LEN: u32 = 80;
/// Elements of `out2` (more than the largest `n`).
pub const OUT2_LEN: u32 = 1024;
/// The kernel's name.
pub const NAME: &str = "k";

/// The launch a kernel is generated for.
#[derive(Clone, Copy, Debug)]
pub struct Launch {
    pub local: u32,
    pub groups: u32,
    pub n: u32,
}

impl Launch {
    pub fn global(&self) -> u32 {
        self.local * self.groups
    }

    /// `simt-run`'s `--arg` specs, `zero` the value of the last parameter
    /// (0 for every run that must agree).
    pub fn args(&self, seed: u64) -> Vec<String> {
        vec![
            format!("buf:u32:{}", self.global() * K),
            format!("buf:u32:{IN_LEN}=rand:{seed}"),
            format!("buf:u32:{IN_LEN}=rand:{}", seed + 1),
            format!("buf:u32:{HIST_LEN}=rand:{}", seed + 2),
            format!("buf:u32:{OUT2_LEN}"),
            format!("local:u32:{}", self.local),
            format!("u32:{}", self.n),
            "u32:0".to_string(),
        ]
    }
}

/// One generated kernel in its two variants.
pub struct Generated {
    pub plain: String,
    pub emi: String,
    pub launch: Launch,
    /// Features the kernel has (for the fuzzer's summary): barriers inside
    /// loops, grid-stride loops, bounds checks, EMI blocks.
    pub barriers_in_loops: bool,
    pub grid_stride: bool,
    pub bounds_checks: bool,
    pub emi_blocks: u32,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ty {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
}

impl Ty {
    const ALL: [Ty; 8] = [Ty::U8, Ty::I8, Ty::U16, Ty::I16, Ty::U32, Ty::I32, Ty::U64, Ty::I64];
    fn c(self) -> &'static str {
        match self {
            Ty::U8 => "uchar",
            Ty::I8 => "char",
            Ty::U16 => "ushort",
            Ty::I16 => "short",
            Ty::U32 => "uint",
            Ty::I32 => "int",
            Ty::U64 => "ulong",
            Ty::I64 => "long",
        }
    }
    fn wide(self) -> bool {
        matches!(self, Ty::U64 | Ty::I64)
    }
}

/// Number of scalar variables `v0..`.
const NVARS: usize = 8;
/// Helpers `h0..` of two `uint`s.
const NHELPERS: usize = 3;

struct Gen {
    rng: Rng,
    /// Both variants' text; `emi_depth > 0` keeps lines out of `plain`.
    plain: String,
    emi: String,
    emi_depth: u32,
    indent: usize,
    vars: Vec<Ty>,
    /// Loop counters in scope (`uint`), with whether each is uniform.
    loop_vars: Vec<(String, bool)>,
    /// Enclosing conditions or loops that may differ between work-items.
    div_ctx: u32,
    loop_depth: u32,
    next_id: u32,
    budget: i32,
    /// Inside a loop meant to stay one block (`simt-swp`): simple statements.
    simple: bool,
    /// Expressions that read no memory (registers, ids, constants).
    no_mem: bool,
    barriers_in_loops: bool,
    grid_stride: bool,
    bounds_checks: bool,
    emi_blocks: u32,
}

/// The kernel of `seed` in both variants, with its launch.
pub fn generate(seed: u64) -> Generated {
    let mut rng = Rng(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ 0xc1_5eed);
    let local = *rng.pick(&[16u32, 32, 32, 64, 64]);
    let groups = 1 + rng.below(4);
    let global = local * groups;
    let n = match rng.below(5) {
        0 => global,
        1 => global - 1 - rng.below(local),
        2 => global + rng.below(local),
        3 => 2 * global + rng.below(global),
        _ => rng.below(global),
    };
    let launch = Launch { local, groups, n };
    let mut g = Gen {
        rng,
        plain: String::new(),
        emi: String::new(),
        emi_depth: 0,
        indent: 0,
        vars: Vec::new(),
        loop_vars: Vec::new(),
        div_ctx: 0,
        loop_depth: 0,
        next_id: 0,
        budget: 0,
        simple: false,
        no_mem: false,
        barriers_in_loops: false,
        grid_stride: false,
        bounds_checks: false,
        emi_blocks: 0,
    };
    g.budget = 14 + g.rng.below(22) as i32;
    g.vars = (0..NVARS).map(|_| *g.rng.pick(&Ty::ALL)).collect();
    g.prelude();
    g.kernel();
    Generated {
        plain: g.plain,
        emi: g.emi,
        launch,
        barriers_in_loops: g.barriers_in_loops,
        grid_stride: g.grid_stride,
        bounds_checks: g.bounds_checks,
        emi_blocks: g.emi_blocks,
    }
}

impl Gen {
    fn line(&mut self, s: &str) {
        let text = format!("{}{s}\n", "  ".repeat(self.indent));
        if self.emi_depth == 0 {
            self.plain += &text;
        }
        self.emi += &text;
    }

    fn id(&mut self) -> u32 {
        self.next_id += 1;
        self.next_id
    }

    fn c(&mut self) -> String {
        match self.rng.below(4) {
            0 => format!("{}u", self.rng.below(8)),
            1 => format!("{}u", self.rng.below(256)),
            2 => format!("0x{:x}u", self.rng.next_u64() as u32),
            _ => format!("{}u", self.rng.below(100_000)),
        }
    }

    /// Helpers: pure ones over two `uint`s, a struct by value, a private
    /// pointer, one reading the local id, one holding a barrier.
    fn prelude(&mut self) {
        self.line("typedef struct { uint a; ushort b; uchar c; ulong d; } S;");
        for h in 0..NHELPERS {
            let inline = if self.rng.chance(50) { "static inline" } else { "static" };
            self.line(&format!("{inline} uint h{h}(uint a, uint b) {{"));
            self.indent += 1;
            let e = self.pure_expr(3);
            self.line(&format!("uint t = {e};"));
            if self.rng.chance(50) {
                let (c, e) = (self.pure_expr(1), self.pure_expr(2));
                self.line(&format!("if (({c}) & 1u) t ^= {e};"));
            }
            if self.rng.chance(50) {
                let e = self.pure_expr(2);
                self.line(&format!("for (uint j = 0; j < (b & 7u); j++) t = t * 31u + ({e});"));
            }
            self.line("return t;");
            self.indent -= 1;
            self.line("}");
        }
        let (e1, e2, e3) = (self.pure_expr(2), self.pure_expr(2), self.pure_expr(2));
        self.line(&format!(
            "static S mks(uint a, uint b) {{ S s; s.a = {e1}; s.b = (ushort)({e2}); s.c = (uchar)({e3}); s.d = (ulong)a * (ulong)b; return s; }}"
        ));
        self.line("static uint uses(S s, uint k) { return (k & 1u) ? s.a + (uint)s.c : (uint)s.b ^ (uint)(s.d >> (k & 63u)); }");
        self.line("static void bump(uint *p, uint k) { p[k & 15u] += k; p[(k >> 4) & 15u] ^= p[(k >> 8) & 15u]; }");
        self.line("static uint me(uint k) { return (uint)get_local_id(0) * 3u + k; }");
        self.line("static void sync(void) { barrier(CLK_LOCAL_MEM_FENCE); }");
    }

    /// A `uint` expression over the helper parameters `a`, `b`.
    fn pure_expr(&mut self, depth: u32) -> String {
        if depth == 0 || self.rng.chance(25) {
            return match self.rng.below(3) {
                0 => "a".into(),
                1 => "b".into(),
                _ => self.c(),
            };
        }
        let (l, r) = (self.pure_expr(depth - 1), self.pure_expr(depth - 1));
        self.binop(l, r)
    }

    fn binop(&mut self, l: String, r: String) -> String {
        match self.rng.below(16) {
            0 => format!("({l} + {r})"),
            1 => format!("({l} - {r})"),
            2 => format!("({l} * {r})"),
            3 => format!("({l} ^ {r})"),
            4 => format!("({l} & {r})"),
            5 => format!("({l} | {r})"),
            6 => format!("({l} << ({r} & 31u))"),
            7 => format!("({l} >> ({r} & 31u))"),
            8 => format!("({l} / ({r} | 1u))"),
            9 => format!("({l} % ({r} | 1u))"),
            10 => format!("(uint)((int){l} >> ({r} & 31u))"),
            11 => format!("(uint)((int){l} / (int)(({r} & 0xffu) | 1u))"),
            12 => format!("(uint)({l} < {r})"),
            13 => format!("(uint)((int){l} <= (int){r})"),
            14 => format!("({l} == {r} ? {l} : {r})"),
            _ => format!("(uint)(((ulong){l} * (ulong){r}) >> 17)"),
        }
    }

    /// A `uint` expression of the kernel body.
    fn expr(&mut self, depth: u32) -> String {
        if depth == 0 || self.rng.chance(20) {
            return self.leaf(depth);
        }
        match self.rng.below(20) {
            0 => {
                let (a, b) = (self.expr(depth - 1), self.expr(depth - 1));
                format!("h{}({a}, {b})", self.rng.below(NHELPERS as u32))
            }
            1 => {
                let (a, b, k) = (self.expr(depth - 1), self.expr(depth - 1), self.expr(depth - 1));
                format!("uses(mks({a}, {b}), {k})")
            }
            2 => {
                let (a, b) = (self.expr(depth - 1), self.expr(depth - 1));
                let f = *self.rng.pick(&["min", "max", "rotate", "mul_hi", "add_sat", "sub_sat", "hadd", "rhadd", "abs_diff"]);
                format!("{f}({a}, {b})")
            }
            3 => {
                let a = self.expr(depth - 1);
                let f = *self.rng.pick(&["popcount", "clz"]);
                format!("{f}({a})")
            }
            4 => {
                let a = self.expr(depth - 1);
                // C casts wrap; `convert_*_sat` clamps (an unsigned source
                // has no lower bound to meet).
                let t = *self.rng.pick(&[
                    "(uchar)",
                    "(char)",
                    "(ushort)",
                    "(short)",
                    "convert_uchar_sat",
                    "convert_char_sat",
                    "convert_short_sat",
                ]);
                format!("(uint){t}({a})")
            }
            5 => {
                let (a, b) = (self.expr(depth - 1), self.expr(depth - 1));
                format!("(uint)((ulong){a} * (ulong){b} >> ({b} & 63u))")
            }
            6 => {
                let (c, a, b) = (self.expr(depth - 1), self.expr(depth - 1), self.expr(depth - 1));
                format!("(({c} & 1u) ? {a} : {b})")
            }
            7 => {
                let a = self.expr(depth - 1);
                format!("me({a})")
            }
            _ => {
                let (l, r) = (self.expr(depth - 1), self.expr(depth - 1));
                self.binop(l, r)
            }
        }
    }

    fn var(&mut self) -> usize {
        self.rng.below(NVARS as u32) as usize
    }

    fn leaf(&mut self, depth: u32) -> String {
        let i = self.loop_vars.last().map(|(v, _)| v.clone());
        if self.no_mem {
            return match (self.rng.below(8), i) {
                (0..=3, _) => format!("(uint)v{}", self.var()),
                (4, Some(i)) => format!("(uint){i}"),
                (4, None) => "gidu".into(),
                (5, _) => "lidu".into(),
                (6, _) => format!("q0.s{}", self.rng.below(4)),
                _ => self.c(),
            };
        }
        match self.rng.below(16) {
            0..=3 => format!("(uint)v{}", self.var()),
            4 => self.c(),
            5 => "gidu".into(),
            6 => "lidu".into(),
            7 if i.is_some() => format!("({}u * {})", self.rng.below(5), i.unwrap()),
            7 | 8 => {
                let e = self.index_expr(depth);
                format!("in[({e}) & 255u]")
            }
            9 => {
                let e = self.index_expr(depth);
                format!("in[idx[({e}) & 255u] & 255u]")
            }
            10 => {
                let e = self.index_expr(depth);
                format!("pa[({e}) & 15u]")
            }
            11 => {
                let e = self.index_expr(depth);
                format!("(uint)pb[({e}) & 7u]")
            }
            12 => {
                let e = self.index_expr(depth);
                format!("(uint)((uchar *)pa)[({e}) & 63u]")
            }
            13 => format!("q0.s{}", self.rng.below(4)),
            14 => format!("out[ob + {}u]", self.rng.below(K)),
            _ => "out2[gidu]".into(),
        }
    }

    /// An index: the loop counter, the ids, or a small expression.
    fn index_expr(&mut self, depth: u32) -> String {
        let i = self.loop_vars.last().map(|(v, _)| v.clone());
        match (self.rng.below(4), i) {
            (0 | 1, Some(i)) => format!("{i} * {}u + gidu * {}u", 1 + self.rng.below(3), self.rng.below(5)),
            (0, None) => format!("gidu + {}u", self.rng.below(8)),
            (1, None) => format!("lidu * {}u", 1 + self.rng.below(7)),
            _ if depth > 1 => self.expr(depth.min(2) - 1),
            _ => format!("(uint)v{}", self.var()),
        }
    }

    /// A condition: divergent (work-item dependent) or uniform, as asked.
    fn cond(&mut self, uniform: bool) -> String {
        if uniform {
            let u: Vec<String> = self.loop_vars.iter().filter(|(_, u)| *u).map(|(v, _)| v.clone()).collect();
            return match self.rng.below(5) {
                0 => format!("n > {}u", self.rng.below(300)),
                1 => format!("(n & {}u) != 0u", 1 + self.rng.below(15)),
                2 if !u.is_empty() => format!("({} & 1u) == 0u", self.rng.pick(&u)),
                3 => format!("lszu > {}u", *self.rng.pick(&[8u32, 16, 32])),
                _ => format!("zero < {}u", self.rng.below(3)),
            };
        }
        match self.rng.below(5) {
            0 => format!("lidu < lszu / {}u", *self.rng.pick(&[2u32, 4])),
            1 => format!("(gidu & {}u) == 0u", *self.rng.pick(&[1u32, 3, 7])),
            2 => {
                let e = self.expr(2);
                format!("(int)({e}) < {}", self.rng.below(1000) as i32 - 200)
            }
            _ => {
                let e = self.expr(2);
                format!("(({e}) & {}u) != 0u", *self.rng.pick(&[1u32, 2, 3, 8]))
            }
        }
    }

    fn assign(&mut self) {
        let v = self.var();
        let d = 2 + self.rng.chance(30) as u32;
        let e = self.expr(d);
        let t = self.vars[v].c();
        if self.vars[v].wide() && self.rng.chance(50) {
            let e2 = self.expr(2);
            self.line(&format!("v{v} = ({t})(((ulong)({e}) << 32) | (ulong)({e2}));"));
        } else {
            self.line(&format!("v{v} = ({t})({e});"));
        }
    }

    fn kernel(&mut self) {
        self.line("__kernel void k(__global uint *out, __global const uint *in, __global const uint *idx,");
        self.line("                __global uint *hist, __global uint *out2, __local uint *tile, uint n, uint zero) {");
        self.indent += 1;
        self.line("__local uint lt[64];");
        self.line("uint gidu = (uint)get_global_id(0), lidu = (uint)get_local_id(0);");
        self.line("uint lszu = (uint)get_local_size(0), gszu = (uint)get_global_size(0);");
        self.line(&format!("uint ob = gidu * {K}u;"));
        for v in 0..NVARS {
            let t = self.vars[v].c();
            {
                let l = format!("{t} v{v} = ({t})in[(gidu * {}u + {v}u) & 255u];", 1 + self.rng.below(7));
                self.line(&l)
            };
        }
        self.line("uint pa[16];");
        self.line("ushort pb[8];");
        self.line("for (uint i = 0; i < 16u; i++) pa[i] = in[(gidu + i * 5u) & 255u];");
        self.line("for (uint i = 0; i < 8u; i++) pb[i] = (ushort)idx[(gidu * 3u + i) & 255u];");
        {
            let l = format!("uint4 q0 = ((__global const uint4 *)in)[(gidu + {}u) & 63u];", self.rng.below(64));
            self.line(&l)
        };
        // Most kernels get a grid-stride loop and a bounds check, at a
        // random point of the top level.
        let (mut gs, mut bc) = (self.rng.chance(75), self.rng.chance(75));
        while self.budget > 0 {
            self.stmt();
            if gs && self.rng.chance(25) {
                self.grid_stride();
                gs = false;
            }
            if bc && self.rng.chance(25) {
                self.bounds_check();
                bc = false;
            }
        }
        if gs {
            self.grid_stride();
        }
        if bc {
            self.bounds_check();
        }
        for v in 0..NVARS {
            let t = self.vars[v];
            if t.wide() {
                self.line(&format!("out[ob + {v}u] += (uint)v{v} ^ (uint)((ulong)v{v} >> 32);"));
            } else {
                self.line(&format!("out[ob + {v}u] += (uint)v{v};"));
            }
        }
        self.line("out[ob + 8u] += q0.x ^ q0.y ^ q0.z ^ q0.w;");
        self.line("uint sum = 0u;");
        self.line("for (uint i = 0; i < 16u; i++) sum = sum * 3u + pa[i];");
        self.line("for (uint i = 0; i < 8u; i++) sum = sum * 5u + (uint)pb[i];");
        self.line("out[ob + 9u] += sum;");
        self.indent -= 1;
        self.line("}");
    }

    /// Statements until the budget or a block's count runs out.
    fn block(&mut self, max: u32) {
        let n = 1 + self.rng.below(max);
        for _ in 0..n {
            if self.budget <= 0 {
                break;
            }
            self.stmt();
        }
    }

    fn braced(&mut self, head: &str, max: u32) {
        self.line(&format!("{head} {{"));
        self.indent += 1;
        self.block(max);
        self.indent -= 1;
        self.line("}");
    }

    fn stmt(&mut self) {
        self.budget -= 1;
        if self.simple {
            return self.simple_stmt();
        }
        let top = self.loop_depth == 0 && self.div_ctx == 0 && self.emi_depth == 0;
        let deep = self.loop_depth >= 2 || self.indent > 6;
        match self.rng.below(27) {
            0..=3 => self.assign(),
            4 | 5 if !deep => self.if_stmt(),
            6 if !deep => self.switch_stmt(),
            7 | 8 if !deep => self.swp_loop(),
            9 if !deep => self.loop_stmt(),
            10 if !deep => self.while_stmt(),
            11 => self.private_array(),
            12 => self.out_slot(),
            13 => self.atomic(),
            14 => self.vector(),
            15 => self.float4(),
            16 | 17 if self.div_ctx == 0 => self.exchange(),
            18 if self.div_ctx == 0 && !deep => self.barrier_loop(),
            19 if top => self.grid_stride(),
            20 if top => self.bounds_check(),
            21 if self.emi_depth == 0 && !deep => self.emi_block(),
            22 | 23 | 25 => self.mem_shapes(),
            24 => {
                let e = self.expr(2);
                self.line(&format!("bump(pa, {e});"));
            }
            _ => self.assign(),
        }
    }

    /// What a loop meant for `simt-swp` holds: after `-O2` (and
    /// `simt-ifconvert` for the conditional ones) one block.
    fn simple_stmt(&mut self) {
        let i = self.loop_vars.last().unwrap().0.clone();
        match self.rng.below(14) {
            9 => {
                // A recurrence through a private array, `d` trips apart.
                let (d, c) = (1 + self.rng.below(4), 1 + self.rng.below(5));
                self.line(&format!("pa[({i} + {d}u) & 15u] += pa[{i} & 15u] * {c}u;"));
            }
            10 => {
                // Gather and scatter on one array.
                let e = self.expr(1);
                self.line(&format!("pa[idx[({i} + gidu) & 255u] & 15u] = pa[in[({i} * 3u) & 255u] & 15u] + {e};"));
            }
            11 => {
                // A histogram into the work-item's own `out` slots.
                let k = self.rng.below(5);
                self.line(&format!("out[ob + (in[({i} + gidu * {k}u) & 255u] & 7u)] += 1u;"));
            }
            12 => {
                // Bytes of the words the loop also reads whole.
                let e = self.expr(1);
                let (k, o) = (1 + 2 * self.rng.below(3), self.rng.below(4));
                self.line(&format!("((uchar *)pa)[({i} * {k}u + {o}u) & 63u] = (uchar)({e});"));
            }
            13 => {
                let v = self.var();
                let t = self.vars[v].c();
                let k = 1 + self.rng.below(5);
                self.line(&format!("v{v} = ({t})((uint)v{v} * 7u + (uint)((uchar *)pa)[({i} * {k}u) & 63u] + pa[({i} >> 2) & 15u]);"));
            }
            0 | 1 => {
                let v = self.var();
                let t = self.vars[v].c();
                let e = self.expr(2);
                {
                    let l = format!("v{v} = ({t})((uint)v{v} * {}u + {e});", 1 + 2 * self.rng.below(4));
                    self.line(&l)
                };
            }
            2 => {
                let e = self.expr(2);
                {
                    let l = format!("pa[({i} * {}u + {}u) & 15u] = {e};", 1 + self.rng.below(3), self.rng.below(16));
                    self.line(&l)
                };
            }
            3 => {
                // Histogram into a private array: indirect read-modify-write.
                {
                    let l = format!("pa[in[({i} + gidu * {}u) & 255u] & 15u] += {}u;", self.rng.below(9), 1 + self.rng.below(3));
                    self.line(&l)
                };
            }
            4 => {
                // A recurrence through memory: the own slots of `out`.
                let d = 1 + self.rng.below(3);
                {
                    let l = format!("out[ob + (({i} + {d}u) & 7u)] += out[ob + ({i} & 7u)] * {}u;", 1 + self.rng.below(5));
                    self.line(&l)
                };
            }
            5 => {
                let (c, v) = (self.cond(false), self.var());
                let t = self.vars[v].c();
                let e = self.expr(2);
                self.line(&format!("if ({c}) v{v} = ({t})({e});"));
            }
            6 => {
                let c = self.cond(false);
                let e = self.expr(2);
                self.line(&format!("if ({c}) pa[{i} & 15u] = {e};"));
            }
            7 => {
                let e = self.expr(1);
                self.line(&format!("pb[{i} & 7u] = (ushort)(pb[({i} + 1u) & 7u] + {e});"));
            }
            _ => {
                let v = self.var();
                let t = self.vars[v].c();
                {
                    let l = format!(
                        "v{v} = ({t})((uint)v{v} + in[({i} * {}u + (uint)v{}) & 255u] * in[idx[{i} & 255u] & 255u]);",
                        1 + self.rng.below(4),
                        self.var()
                    );
                    self.line(&l)
                };
            }
        }
    }

    fn if_stmt(&mut self) {
        let uniform = self.rng.chance(30);
        let c = self.cond(uniform);
        if !uniform {
            self.div_ctx += 1;
        }
        self.braced(&format!("if ({c})"), 3);
        if self.rng.chance(50) {
            self.braced("else", 3);
        }
        if !uniform {
            self.div_ctx -= 1;
        }
    }

    fn switch_stmt(&mut self) {
        let e = self.expr(2);
        self.line(&format!("switch (({e}) & 3u) {{"));
        self.div_ctx += 1;
        // Each case in braces: a declaration may open it.
        for case in 0..3 {
            self.line(&format!("case {case}u: {{"));
            self.indent += 1;
            self.block(2);
            if self.rng.chance(75) {
                self.line("break;");
            }
            self.indent -= 1;
            self.line("}");
        }
        self.line("default: {");
        self.indent += 1;
        self.block(2);
        self.line("break;");
        self.indent -= 1;
        self.line("}");
        self.line("}");
        self.div_ctx -= 1;
    }

    /// A trip count `-O2` cannot see: from the arguments or a variable.
    fn trips(&mut self, uniform: bool) -> String {
        if uniform {
            match self.rng.below(3) {
                0 => format!("zero + {}u", 3 + self.rng.below(30)),
                1 => format!("(n & 15u) + {}u", 1 + self.rng.below(8)),
                _ => format!("lszu / {}u", *self.rng.pick(&[2u32, 4, 8])),
            }
        } else {
            format!("((uint)v{} & {}u)", self.var(), *self.rng.pick(&[7u32, 15, 31]))
        }
    }

    fn open_loop(&mut self, uniform: bool, start: &str) -> String {
        let i = format!("i{}", self.id());
        let t = self.trips(uniform);
        if self.rng.chance(25) {
            // A signed counter: `slt` loops for the pipeliner.
            self.line(&format!("for (int {i} = (int){start}; {i} < (int)({t}); {i}++) {{"));
        } else {
            self.line(&format!("for (uint {i} = {start}; {i} < {t}; {i}++) {{"));
        }
        self.indent += 1;
        self.loop_vars.push((i.clone(), uniform));
        self.loop_depth += 1;
        if !uniform {
            self.div_ctx += 1;
        }
        i
    }

    fn close_loop(&mut self, uniform: bool) {
        if !uniform {
            self.div_ctx -= 1;
        }
        self.loop_depth -= 1;
        self.loop_vars.pop();
        self.indent -= 1;
        self.line("}");
    }

    fn swp_loop(&mut self) {
        let uniform = self.rng.chance(50);
        if self.rng.chance(25) {
            // Tested at the bottom: at least one trip.
            let i = format!("i{}", self.id());
            let t = self.trips(uniform);
            self.line(&format!("uint {i} = 0u;"));
            self.line("do {");
            self.indent += 1;
            self.loop_vars.push((i.clone(), uniform));
            self.loop_depth += 1;
            self.div_ctx += !uniform as u32;
            self.simple = true;
            self.block(4);
            self.simple = false;
            self.div_ctx -= !uniform as u32;
            self.loop_depth -= 1;
            self.loop_vars.pop();
            self.line(&format!("{i}++;"));
            self.indent -= 1;
            self.line(&format!("}} while ({i} < {t});"));
            return;
        }
        self.open_loop(uniform, "0u");
        self.simple = true;
        self.block(4);
        self.simple = false;
        self.close_loop(uniform);
    }

    fn loop_stmt(&mut self) {
        let uniform = self.rng.chance(40);
        let exit = self.rng.chance(30);
        let i = self.open_loop(uniform, "0u");
        // After a divergent break the loop is no longer uniform: no
        // barrier in its body.
        let divergent_exit = uniform && exit;
        self.div_ctx += divergent_exit as u32;
        self.block(3);
        self.div_ctx -= divergent_exit as u32;
        if exit {
            let c = self.cond(false);
            {
                let l = format!("if (({c}) && {i} > 2u) {};", if self.rng.chance(50) { "break" } else { "continue" });
                self.line(&l)
            };
        }
        self.close_loop(uniform);
    }

    fn while_stmt(&mut self) {
        let w = format!("w{}", self.id());
        let v = self.var();
        self.line(&format!("uint {w} = 0u;"));
        self.line(&format!("while ({w} < 6u && ((uint)v{v} & 3u) != 0u) {{"));
        self.indent += 1;
        self.div_ctx += 1;
        self.loop_depth += 1;
        self.block(3);
        let t = self.vars[v].c();
        let e = self.expr(1);
        self.line(&format!("v{v} = ({t})((uint)v{v} + {e});"));
        self.line(&format!("{w}++;"));
        self.loop_depth -= 1;
        self.div_ctx -= 1;
        self.indent -= 1;
        self.line("}");
    }

    fn private_array(&mut self) {
        match self.rng.below(5) {
            0 => {
                let (i, e) = (self.index_expr(2), self.expr(2));
                self.line(&format!("pa[({i}) & 15u] = {e};"));
            }
            1 => {
                // A byte store into a word: the partial overlap memfwd forwards.
                let (b, e) = (self.rng.below(64), self.expr(2));
                self.line(&format!("((uchar *)pa)[{b}u] = (uchar)({e});"));
                let v = self.var();
                let t = self.vars[v].c();
                self.line(&format!("v{v} = ({t})((uint)v{v} ^ pa[{}u]);", b / 4));
            }
            2 => {
                let d = 1 + self.rng.below(4);
                let j = format!("j{}", self.id());
                {
                    let l = format!("for (uint {j} = {d}u; {j} < 16u; {j}++) pa[{j}] += pa[{j} - {d}u] * {}u;", 1 + self.rng.below(5));
                    self.line(&l)
                };
            }
            3 => {
                let j = format!("j{}", self.id());
                let u = self.rng.chance(50);
                let t = self.trips(u);
                self.line(&format!("for (uint {j} = 0u; {j} < {t}; {j}++) pa[idx[({j} + gidu) & 255u] & 15u] += pa[{j} & 15u];"));
            }
            _ => {
                let (i, e) = (self.rng.below(8), self.expr(2));
                self.line(&format!("pb[{i}] = (ushort)({e});"));
                {
                    let l = format!("pb[{}] += pb[{i}];", (i + 1 + self.rng.below(7)) % 8);
                    self.line(&l)
                };
            }
        }
    }

    /// An expression that reads no memory, so nothing between two stores
    /// may read the first.
    fn reg_expr(&mut self, depth: u32) -> String {
        let was = self.no_mem;
        self.no_mem = true;
        let e = self.expr(depth);
        self.no_mem = was;
        e
    }

    /// Stores and loads of one slot with nothing between that may read
    /// it: dead stores (overwritten on every path, also by bytes) for
    /// `simt-memdse`, loads whose bytes known stores supply (a wider store,
    /// several narrower ones, one per predecessor) for `simt-memfwd`.
    fn mem_shapes(&mut self) {
        let (word, bytes) = if self.rng.chance(50) {
            let k = self.rng.below(16);
            (format!("pa[{k}u]"), format!("((uchar *)pa)[{}u", 4 * k))
        } else {
            let s = self.rng.below(K);
            (format!("out[ob + {s}u]"), format!("((__global uchar *)out)[(ob + {s}u) * 4u + "))
        };
        let v = self.var();
        let t = self.vars[v].c();
        let e0 = self.reg_expr(2);
        match self.rng.below(5) {
            0 => {
                // Dead: overwritten on both paths, by the word on one and by
                // its four bytes on the other (so clang cannot sink the two
                // into one store); the load after the join takes a value
                // assembled per predecessor.
                let (c, e1) = (self.cond(false), self.reg_expr(2));
                self.line(&format!("{word} = {e0};"));
                self.line(&format!("if ({c}) {{"));
                self.line(&format!("  {word} = {e1};"));
                self.line("} else {");
                for b in 0..4 {
                    let e = self.reg_expr(1);
                    let at = self.byte_at(&bytes, b);
                    self.line(&format!("  {at} = (uchar)({e});"));
                }
                self.line("}");
                let (whole, b) = (self.rng.chance(50), self.rng.below(4));
                let at = if whole { word.clone() } else { self.byte_at(&bytes, b) };
                self.line(&format!("v{v} = ({t})((uint)v{v} * 5u + (uint){at});"));
            }
            1 => {
                // Dead: overwritten by its four bytes.
                self.line(&format!("{word} = {e0};"));
                for b in 0..4 {
                    let e = self.reg_expr(1);
                    let at = self.byte_at(&bytes, b);
                    self.line(&format!("{at} = (uchar)({e});"));
                }
            }
            2 => {
                // A byte of a word just stored.
                let b = self.rng.below(4);
                let at = self.byte_at(&bytes, b);
                self.line(&format!("{word} = {e0};"));
                self.line(&format!("v{v} = ({t})((uint)v{v} + (uint){at});"));
            }
            3 => {
                // A word assembled from four byte stores.
                for b in 0..4 {
                    let e = self.reg_expr(1);
                    let at = self.byte_at(&bytes, b);
                    self.line(&format!("{at} = (uchar)({e});"));
                }
                self.line(&format!("v{v} = ({t})((uint)v{v} ^ {word});"));
            }
            _ => {
                // A different supplier per predecessor.
                let (c, e1) = (self.cond(false), self.reg_expr(2));
                self.line(&format!("if ({c}) {word} = {e0}; else {word} = {e1};"));
                let (whole, b) = (self.rng.chance(50), self.rng.below(4));
                let at = if whole { word.clone() } else { self.byte_at(&bytes, b) };
                self.line(&format!("v{v} = ({t})((uint)v{v} * 5u + (uint){at});"));
            }
        }
    }

    /// Byte `b` of the slot whose byte view starts with `bytes`.
    fn byte_at(&self, bytes: &str, b: u32) -> String {
        if let Some(base) = bytes.strip_suffix('u') {
            // `((uchar *)pa)[4ku`
            let k: u32 = base.rsplit('[').next().unwrap().parse().unwrap();
            format!("{}[{}u]", base.rsplit_once('[').unwrap().0, k + b)
        } else {
            format!("{bytes}{b}u]")
        }
    }

    /// Stores to the work-item's own `out` slots, some overwritten later
    /// (memdse), some read back (memfwd).
    fn out_slot(&mut self) {
        let s = self.rng.below(K);
        let e = self.expr(2);
        match self.rng.below(3) {
            0 => self.line(&format!("out[ob + {s}u] = {e};")),
            1 => self.line(&format!("out[ob + {s}u] += {e};")),
            _ => {
                self.line(&format!("out[ob + {s}u] = {e};"));
                let e2 = self.expr(2);
                self.line(&format!("out[ob + {s}u] = out[ob + {s}u] * 3u + {e2};"));
            }
        }
    }

    fn atomic(&mut self) {
        let (a, b) = (self.expr(2), self.expr(2));
        match self.rng.below(5) {
            // Additions and ors on separate counters: (x + a) | b is not
            // (x | b) + a, so mixing them on one would depend on the order.
            0 | 1 => self.line(&format!("atomic_add(&hist[({a}) & 31u], ({b}) & 255u);")),
            2 => self.line(&format!("atomic_min(&hist[64u + (({a}) & 7u)], ({b}) & 1023u);")),
            3 => self.line(&format!("atomic_max(&hist[72u + (({a}) & 7u)], ({b}) & 1023u);")),
            _ => self.line(&format!("atomic_or(&hist[32u + (({a}) & 31u)], 1u << (({b}) & 31u));")),
        }
    }

    fn vector(&mut self) {
        let (a, b) = (self.expr(2), self.expr(1));
        match self.rng.below(4) {
            0 => self.line(&format!("q0 = q0 * (uint4)({a}) + q0.wzyx;")),
            1 => self.line(&format!("q0 = select(q0, q0.yzwx ^ (uint4)({a}), as_uint4(as_int4(q0) < (int4)((int)({b}))));")),
            2 => {
                {
                    let l = format!("q0.s{} ^= {a};", self.rng.below(4));
                    self.line(&l)
                };
                let v = self.var();
                let t = self.vars[v].c();
                self.line(&format!("v{v} = ({t})(q0.x + q0.y * 3u + (q0.z >> ({b} & 31u)));"));
            }
            _ => self.line(&format!(
                "q0 = (q0 << (uint4)({b} & 31u)) | (q0 >> (uint4)(3u, 5u, 7u, 11u)) + ((__global const uint4 *)in)[({a}) & 63u];"
            )),
        }
    }

    /// Floats on integers below 1024: every result exact, fused or not.
    fn float4(&mut self) {
        let id = self.id();
        self.line(&format!("uint4 m{id} = q0 & (uint4)(1023u);"));
        self.line(&format!("float4 f{id} = (float4)((float)m{id}.x, (float)m{id}.y, (float)m{id}.z, (float)m{id}.w);"));
        self.line(&format!("f{id} = f{id} * f{id}.yzwx + f{id}.zwxy;"));
        let v = self.var();
        let t = self.vars[v].c();
        self.line(&format!("v{v} = ({t})((uint)f{id}.x + (uint)f{id}.y * 7u + (uint)f{id}.w);"));
    }

    /// Exchanges through `__local` memory, fenced by barriers on both sides.
    fn exchange(&mut self) {
        let bar = if self.rng.chance(20) { "sync();" } else { "barrier(CLK_LOCAL_MEM_FENCE);" };
        let v = self.var();
        let t = self.vars[v].c();
        match self.rng.below(4) {
            0 => {
                let e = self.expr(2);
                self.line(&format!("tile[lidu] = {e};"));
                self.line(bar);
                {
                    let l = format!("v{v} = ({t})((uint)v{v} + tile[(lidu + {}u) & (lszu - 1u)]);", 1 + self.rng.below(63));
                    self.line(&l)
                };
                self.line(bar);
            }
            1 => {
                let e = self.expr(2);
                self.line(&format!("tile[lidu] = {e};"));
                self.line(bar);
                let s = format!("s{}", self.id());
                self.line(&format!("for (uint {s} = lszu / 2u; {s} > 0u; {s} >>= 1) {{"));
                self.line(&format!("  if (lidu < {s}) tile[lidu] += tile[lidu + {s}];"));
                self.line(&format!("  {bar}"));
                self.line("}");
                self.line(&format!("v{v} = ({t})((uint)v{v} ^ tile[0]);"));
                self.line(bar);
                self.barriers_in_loops = true;
            }
            2 => {
                let e = self.expr(2);
                let op = *self.rng.pick(&["atomic_add", "atomic_max", "atomic_xor"]);
                self.line("if (lidu == 0u) tile[0] = 0u;");
                self.line(bar);
                self.line(&format!("{op}(&tile[0], ({e}) & 255u);"));
                self.line(bar);
                self.line(&format!("v{v} = ({t})((uint)v{v} + tile[0]);"));
                self.line(bar);
            }
            _ => {
                let e = self.expr(2);
                self.line(&format!("lt[lidu] = {e};"));
                self.line(bar);
                self.line(&format!("v{v} = ({t})((uint)v{v} * 3u + lt[lszu - 1u - lidu]);"));
                self.line(bar);
            }
        }
        if self.loop_depth > 0 {
            self.barriers_in_loops = true;
        }
    }

    fn barrier_loop(&mut self) {
        let i = self.open_loop(true, "0u");
        self.exchange();
        self.block(3);
        let _ = i;
        self.close_loop(true);
        self.barriers_in_loops = true;
    }

    /// `for (i = gid; i < n; i += global size)`: each `out2[i]` belongs to
    /// one work-item.
    fn grid_stride(&mut self) {
        let i = format!("g{}", self.id());
        let e = self.expr(2);
        let acc = self.var();
        let t = self.vars[acc].c();
        self.line(&format!("for (uint {i} = gidu; {i} < n; {i} += gszu) {{"));
        self.indent += 1;
        self.loop_vars.push((i.clone(), false));
        match self.rng.below(3) {
            0 => {
                let l = format!("out2[{i}] = in[{i} & 255u] * {}u + {e};", 1 + self.rng.below(9));
                self.line(&l)
            }
            1 => self.line(&format!("out2[{i}] += in[idx[{i} & 255u] & 255u] ^ {e};")),
            _ => {
                let c = self.cond(false);
                self.line(&format!("if ({c}) out2[{i}] ^= {e}; else out2[{i}] += {i};"));
            }
        }
        if self.rng.chance(50) {
            self.line(&format!("v{acc} = ({t})((uint)v{acc} + out2[{i}]);"));
        }
        self.loop_vars.pop();
        self.indent -= 1;
        self.line("}");
        self.grid_stride = true;
    }

    /// A bounds check monotone in the work-item id, around stores to the
    /// work-item's own slots.
    fn bounds_check(&mut self) {
        let c = match self.rng.below(4) {
            0 => "gidu < n".to_string(),
            1 => format!("gidu + {}u < n", self.rng.below(16)),
            2 => format!("lidu * 2u < lszu + {}u", self.rng.below(8)),
            _ => "gidu >= n / 2u".to_string(),
        };
        self.line(&format!("if ({c}) {{"));
        self.indent += 1;
        self.div_ctx += 1;
        let e = self.expr(2);
        self.line(&format!("out2[gidu] = out2[gidu] * 7u + {e};"));
        let e = self.expr(2);
        {
            let l = format!("out[ob + {}u] ^= {e};", self.rng.below(K));
            self.line(&l)
        };
        if self.rng.chance(50) {
            self.block(2);
        }
        self.div_ctx -= 1;
        self.indent -= 1;
        self.line("}");
        self.bounds_checks = true;
    }

    fn emi_block(&mut self) {
        self.emi_depth += 1;
        self.emi_blocks += 1;
        let head = format!("if (zero > {}u)", 7 + self.rng.below(100));
        self.braced(&head, 4);
        self.emi_depth -= 1;
    }
}
