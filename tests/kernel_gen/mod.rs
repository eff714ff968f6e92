//! Random CUDA-dialect kernels as LLVM IR text, deterministic from a seed,
//! for the uniformity oracle (`tests/uniformity_oracle.rs`).
//!
//! A kernel is a structured program over a few `i32` variables and one
//! pointer variable, lowered straight to SSA: phis at joins (only where the
//! incoming values differ, so values defined in a loop are also used after
//! it without LCSSA phis), loop headers with a phi per variable. Shapes:
//! diamonds and one-armed ifs, switches, loops tested at the top or the
//! bottom with breaks to one of two exit blocks that meet later with phis,
//! double breaks out of a nested loop to the outer loop's exit, continues,
//! irreducible cycles (two entries, either successor order), private arrays
//! (two `alloca [8 x i32]`) written at any index under any control and read
//! through a pointer that is a select or a phi of the two. Conditions and
//! trip counts are uniform (from the arguments, `ctaid`, `ntid`, loads at
//! uniform addresses) or divergent (`tid`, `laneid`, `lanemask.*`).
//!
//! Every loop counts its trips against a bound of at most 4, so every kernel
//! ends. Values are stored to `out[gid * K + k]` (race-free), so outputs can
//! be compared too. Parameters: `(ptr addrspace(1) %out, ptr %in,
//! ptr addrspace(1) %in1, i32 %n)`, `in` and `in1` 64 `i32` each.

#![allow(dead_code)]

/// Slots of `out` per work-item.
pub const K: u32 = 24;
/// Elements of `in` and `in1`.
pub const IN_LEN: u32 = 64;

/// splitmix64.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u32) -> u32 {
        (self.next_u64() % n as u64) as u32
    }
    pub fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent
    }
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[(self.next_u64() % xs.len() as u64) as usize]
    }
}

const NVARS: usize = 6;

#[derive(Clone, Debug)]
struct Var {
    /// The operand text (`%x`, or a constant).
    v: String,
    /// The generator's own guess that it can differ between work-items.
    div: bool,
}

#[derive(Clone, Debug)]
struct Env {
    vars: Vec<Var>,
    ptr: Var,
}

struct Block {
    name: String,
    phis: Vec<String>,
    insts: Vec<String>,
    term: Option<String>,
}

struct LoopCtx {
    /// The trip counter (a header phi).
    cnt: String,
    latch: usize,
    latch_in: Vec<(usize, Env)>,
    /// Exit blocks and the edges into them.
    exits: Vec<(usize, Vec<(usize, Env)>)>,
}

struct Gen {
    rng: Rng,
    blocks: Vec<Block>,
    cur: usize,
    id: u32,
    loops: Vec<LoopCtx>,
    slot: u32,
    budget: i32,
    depth: u32,
    /// Uniform values (`%n`, `%ctaid`, `%ntid`, …) available everywhere.
    uniform_roots: Vec<String>,
    divergent_roots: Vec<String>,
    /// Loads through the generic `%in` as well as `addrspace(1)`.
    generic_loads: bool,
    /// The shapes `simt-ifconvert`'s cost model looks for ([`module_ifc`]):
    /// off elsewhere, so other tests' kernels stay as they were.
    ifc_shapes: bool,
    /// Exchanges through `__shared__` memory between two barriers
    /// ([`kernel_with_barriers`]); the kernel's shared array is `@sh_NAME`.
    barriers: Option<String>,
    /// Enclosing branches and loops the generator guesses divergent: no
    /// barrier goes inside one.
    div_ctx: u32,
}

/// A kernel named `name`: its definition (no declarations, see [`DECLS`]).
pub fn kernel(seed: u64, name: &str) -> String {
    kernel_for(seed, name, Sources::All)
}

/// Which sources of uniform and divergent values a kernel draws on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Sources {
    /// Everything: `ctaid`, `ntid`, loads through the generic `%in`, lane masks.
    All,
    /// Only what LLVM 22's `print<uniformity>` for NVPTX judges as simt does
    /// (`%n`, loads through `addrspace(1)`, `tid`, `laneid`): LLVM calls
    /// `ctaid`, `ntid` and generic loads divergent, which hides every other
    /// difference behind them.
    LlvmAgreed,
}

/// A kernel that also exchanges values between work-items through a
/// `__shared__` array: `sh[tid] = v; __syncthreads(); v' = sh[(tid + 1) %
/// ntid]; __syncthreads();`, only where the generator guesses every enclosing
/// branch and loop uniform (users check that guess with the uniformity
/// analysis). Local sizes up to [`SHARED_LEN`]. The array's definition comes
/// first in the returned text; [`BARRIER_DECLS`] has the barrier.
pub fn kernel_with_barriers(seed: u64, name: &str) -> String {
    let text = generate(seed, name, Sources::All, Some(format!("@sh_{name}")), false);
    format!("@sh_{name} = internal addrspace(3) global [{SHARED_LEN} x i32] undef, align 4\n{text}")
}

/// Elements of a [`kernel_with_barriers`]'s shared array.
pub const SHARED_LEN: u32 = 64;

/// The barrier [`kernel_with_barriers`] calls (`__syncthreads`).
pub const BARRIER_DECLS: &str = "declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32) #0
attributes #0 = { convergent nounwind }
";

/// [`kernel`] drawing on `sources` only.
pub fn kernel_for(seed: u64, name: &str, sources: Sources) -> String {
    generate(seed, name, sources, None, false)
}

/// A module of kernels as [`module`] makes them, plus the shapes
/// `simt-ifconvert` treats specially: two-armed diamonds whose arms end
/// with stores to the same pointers (an `out` slot, a private array element
/// at an index chosen before the branch), and bounds checks (`gid + u < v`,
/// `tid - u <u v`, uniform `u`, `v`) as conditions.
pub fn module_ifc(kernels: &[(u64, String)]) -> String {
    let mut s = String::from(HEADER);
    for (seed, name) in kernels {
        s += &generate(*seed, name, Sources::All, None, true);
        s += "\n";
    }
    s + DECLS
}

fn generate(seed: u64, name: &str, sources: Sources, barriers: Option<String>, ifc_shapes: bool) -> String {
    let all = sources == Sources::All;
    let mut g = Gen {
        rng: Rng(seed ^ 0x5eed_0f0a_c1e0_u64),
        blocks: Vec::new(),
        cur: 0,
        id: 0,
        loops: Vec::new(),
        slot: 0,
        budget: 0,
        depth: 0,
        uniform_roots: Vec::new(),
        divergent_roots: Vec::new(),
        generic_loads: true,
        ifc_shapes,
        barriers,
        div_ctx: 0,
    };
    g.budget = 8 + g.rng.below(14) as i32;
    g.new_block("entry");
    let e = &mut g.blocks[0].insts;
    e.push("%tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()".into());
    e.push("%ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()".into());
    e.push("%ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()".into());
    e.push("%laneid = call i32 @llvm.nvvm.read.ptx.sreg.laneid()".into());
    let masks = ["eq", "le", "lt", "ge", "gt"];
    let mk = masks[g.rng.below(5) as usize];
    // No lane masks with barriers: those kernels also run on the host, whose
    // back end has no lanes to mask.
    let lanemask = all && seed.is_multiple_of(4) && g.barriers.is_none();
    if lanemask {
        e.push(format!("%lanemask = call i32 @llvm.nvvm.read.ptx.sreg.lanemask.{mk}()"));
    }
    e.push("%gbase = mul i32 %ctaid, %ntid".into());
    e.push("%gid = add i32 %gbase, %tid".into());
    e.push(format!("%obase = mul i32 %gid, {K}"));
    e.push("%pa = alloca [8 x i32], align 4".into());
    e.push("%pb = alloca [8 x i32], align 4".into());
    e.push(if all { "%u0 = load i32, ptr %in, align 4" } else { "%u0 = load i32, ptr addrspace(1) %in1, align 4" }.into());
    e.push("%u1p = getelementptr i32, ptr addrspace(1) %in1, i32 1".into());
    e.push("%u1 = load i32, ptr addrspace(1) %u1p, align 4".into());
    // Private arrays start defined: element i of pa is i, of pb 7 - i.
    for i in 0..8 {
        e.push(format!("%pai{i} = getelementptr [8 x i32], ptr %pa, i32 0, i32 {i}"));
        e.push(format!("store i32 {i}, ptr %pai{i}, align 4"));
        e.push(format!("%pbi{i} = getelementptr [8 x i32], ptr %pb, i32 0, i32 {i}"));
        e.push(format!("store i32 {}, ptr %pbi{i}, align 4", 7 - i));
    }
    g.uniform_roots = if all {
        vec!["%n".into(), "%ctaid".into(), "%ntid".into(), "%u0".into(), "%u1".into()]
    } else {
        vec!["%n".into(), "%u0".into(), "%u1".into()]
    };
    g.generic_loads = all;
    // Lane masks in a quarter of the kernels only: the analysis's verdict on
    // them is one bug that would otherwise hide every other.
    g.divergent_roots = vec!["%tid".into(), "%laneid".into(), "%gid".into()];
    if lanemask {
        g.divergent_roots.push("%lanemask".into());
    }
    let mut vars = Vec::new();
    for k in 0..NVARS {
        let (v, div) = match k {
            0 => ("%tid", true),
            1 => ("%n", false),
            2 if all => ("%ctaid", false),
            2 => ("%n", false),
            3 => ("%u0", false),
            4 if lanemask => ("%lanemask", true),
            4 => ("%laneid", true),
            _ => ("%u1", false),
        };
        vars.push(Var { v: v.into(), div });
    }
    let mut env = Env { vars, ptr: Var { v: "%pa".into(), div: false } };
    g.seq(&mut env, 0);
    // The final values.
    for k in 0..NVARS {
        g.store(&env, k);
    }
    g.term("ret void".into());

    let mut s = format!("define ptx_kernel void @{name}(ptr addrspace(1) %out, ptr %in, ptr addrspace(1) %in1, i32 %n) {{\n");
    for b in &g.blocks {
        s += &format!("{}:\n", b.name);
        for p in &b.phis {
            s += &format!("  {p}\n");
        }
        for i in &b.insts {
            s += &format!("  {i}\n");
        }
        s += &format!("  {}\n", b.term.as_deref().expect("every block is terminated"));
    }
    s += "}\n";
    s
}

/// The declarations every generated kernel needs, and the module header.
pub const HEADER: &str = "target triple = \"nvptx64-nvidia-cuda\"\n";
pub const DECLS: &str = "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.laneid()
declare i32 @llvm.nvvm.read.ptx.sreg.lanemask.eq()
declare i32 @llvm.nvvm.read.ptx.sreg.lanemask.le()
declare i32 @llvm.nvvm.read.ptx.sreg.lanemask.lt()
declare i32 @llvm.nvvm.read.ptx.sreg.lanemask.ge()
declare i32 @llvm.nvvm.read.ptx.sreg.lanemask.gt()
";

/// A whole module of the kernels `(seed, name)`.
pub fn module(kernels: &[(u64, String)]) -> String {
    module_for(kernels, Sources::All)
}

/// [`module`] drawing on `sources` only.
pub fn module_for(kernels: &[(u64, String)], sources: Sources) -> String {
    let mut s = String::from(HEADER);
    for (seed, name) in kernels {
        s += &kernel_for(*seed, name, sources);
        s += "\n";
    }
    s + DECLS
}

impl Gen {
    fn fresh(&mut self, stem: &str) -> String {
        self.id += 1;
        format!("%{stem}{}", self.id)
    }

    fn new_block(&mut self, stem: &str) -> usize {
        self.id += 1;
        let name = if stem == "entry" { "entry".to_string() } else { format!("{stem}{}", self.id) };
        self.blocks.push(Block { name, phis: Vec::new(), insts: Vec::new(), term: None });
        self.blocks.len() - 1
    }

    fn name(&self, b: usize) -> String {
        format!("%{}", self.blocks[b].name)
    }

    fn emit(&mut self, s: String) {
        self.blocks[self.cur].insts.push(s);
    }

    fn term(&mut self, s: String) {
        let b = &mut self.blocks[self.cur];
        assert!(b.term.is_none(), "block {} terminated twice", b.name);
        b.term = Some(s);
    }

    fn br(&mut self, to: usize) {
        let t = format!("br label {}", self.name(to));
        self.term(t);
    }

    /// An i32 operand: mostly a variable, sometimes a root or a constant;
    /// `uniform` prefers values the generator thinks uniform.
    fn operand(&mut self, env: &Env, uniform: bool) -> Var {
        if uniform {
            let cands: Vec<&Var> = env.vars.iter().filter(|v| !v.div).collect();
            if !cands.is_empty() && self.rng.chance(60) {
                return cands[self.rng.below(cands.len() as u32) as usize].clone();
            }
            if self.rng.chance(50) {
                let r = self.uniform_roots[self.rng.below(self.uniform_roots.len() as u32) as usize].clone();
                return Var { v: r, div: false };
            }
            return Var { v: format!("{}", self.rng.below(9)), div: false };
        }
        match self.rng.below(10) {
            0 => Var { v: format!("{}", self.rng.below(9)), div: false },
            1 => {
                let r = self.divergent_roots[self.rng.below(self.divergent_roots.len() as u32) as usize].clone();
                Var { v: r, div: true }
            }
            _ => env.vars[self.rng.below(NVARS as u32) as usize].clone(),
        }
    }

    /// An i1 condition, uniform or divergent as the dice say.
    fn cond(&mut self, env: &Env) -> (String, bool) {
        if self.ifc_shapes && self.rng.chance(20) {
            // A bounds check: a work-item id plus or minus a uniform value
            // against a uniform value.
            let id = if self.rng.chance(50) { "%gid" } else { "%tid" };
            let u = self.operand(env, true);
            let v = self.operand(env, true);
            let (op, p) = if self.rng.chance(50) { ("add", "slt") } else { ("sub", "ult") };
            let x = self.fresh("bx");
            let c = self.fresh("c");
            self.emit(format!("{x} = {op} i32 {id}, {}", u.v));
            let bound = if self.rng.chance(50) { v.v } else { format!("{}", self.rng.below(80)) };
            self.emit(format!("{c} = icmp {p} i32 {x}, {bound}"));
            return (c, true);
        }
        let uniform = self.rng.chance(50);
        if !self.loops.is_empty() && self.rng.chance(35) {
            // Against a loop's trip counter: work-items that differ in `a`
            // take the branch in different iterations.
            let l = self.rng.below(self.loops.len() as u32) as usize;
            let cnt = self.loops[l].cnt.clone();
            let a = self.operand(env, uniform);
            let am = self.fresh("m");
            let c = self.fresh("c");
            self.emit(format!("{am} = and i32 {}, 3", a.v));
            let p = if self.rng.chance(50) { "eq" } else { "ult" };
            self.emit(format!("{c} = icmp {p} i32 {am}, {cnt}"));
            return (c, a.div);
        }
        let a = self.operand(env, uniform);
        let b = self.operand(env, uniform);
        let preds = ["eq", "ne", "ult", "ugt", "slt", "sge"];
        let p = preds[self.rng.below(preds.len() as u32) as usize];
        let c = self.fresh("c");
        // Mask to small values so both directions happen.
        let am = self.fresh("m");
        self.emit(format!("{am} = and i32 {}, 3", a.v));
        let rhs = if self.rng.chance(50) { format!("{}", self.rng.below(4)) } else { b.v.clone() };
        self.emit(format!("{c} = icmp {p} i32 {am}, {rhs}"));
        (c, a.div || b.div)
    }

    fn store(&mut self, env: &Env, k: usize) {
        if self.slot >= K {
            return;
        }
        let s = self.slot;
        self.slot += 1;
        let i = self.fresh("oi");
        let p = self.fresh("op");
        self.emit(format!("{i} = add i32 %obase, {s}"));
        self.emit(format!("{p} = getelementptr i32, ptr addrspace(1) %out, i32 {i}"));
        let v = env.vars[k].v.clone();
        self.emit(format!("store i32 {v}, ptr addrspace(1) {p}, align 4"));
    }

    /// One simple statement (no control flow).
    fn simple(&mut self, env: &mut Env) {
        if self.barriers.is_some() && self.div_ctx == 0 && self.rng.chance(25) {
            self.exchange(env);
            return;
        }
        let k = self.rng.below(NVARS as u32) as usize;
        match self.rng.below(14) {
            0..=3 => {
                let a = self.operand(env, false);
                let b = {
                    let u = self.rng.chance(50);
                    self.operand(env, u)
                };
                let ops = ["add", "sub", "mul", "xor", "and", "or"];
                let op = ops[self.rng.below(ops.len() as u32) as usize];
                let d = self.fresh("v");
                self.emit(format!("{d} = {op} i32 {}, {}", a.v, b.v));
                env.vars[k] = Var { v: d, div: a.div || b.div };
            }
            4 => {
                let (c, cd) = self.cond(env);
                let a = self.operand(env, false);
                let b = self.operand(env, false);
                let d = self.fresh("s");
                self.emit(format!("{d} = select i1 {c}, i32 {}, i32 {}", a.v, b.v));
                env.vars[k] = Var { v: d, div: cd || a.div || b.div };
            }
            5 => self.store(env, k),
            6 => {
                // A load at an index from a variable: through the generic
                // pointer (LLVM's NVPTX TTI calls it divergent) or addrspace(1).
                let a = {
                    let u = self.rng.chance(60);
                    self.operand(env, u)
                };
                let m = self.fresh("li");
                self.emit(format!("{m} = and i32 {}, {}", a.v, IN_LEN - 1));
                let p = self.fresh("lp");
                let d = self.fresh("l");
                if self.generic_loads && self.rng.chance(50) {
                    self.emit(format!("{p} = getelementptr i32, ptr %in, i32 {m}"));
                    self.emit(format!("{d} = load i32, ptr {p}, align 4"));
                } else {
                    self.emit(format!("{p} = getelementptr i32, ptr addrspace(1) %in1, i32 {m}"));
                    self.emit(format!("{d} = load i32, ptr addrspace(1) {p}, align 4"));
                }
                env.vars[k] = Var { v: d, div: a.div };
            }
            7 => {
                // Write a private array at a uniform or divergent index.
                let a = {
                    let u = self.rng.chance(50);
                    self.operand(env, u)
                };
                let v = {
                    let u = self.rng.chance(50);
                    self.operand(env, u)
                };
                let m = self.fresh("pi");
                self.emit(format!("{m} = and i32 {}, 7", a.v));
                let arr = if self.rng.chance(50) { "%pa".to_string() } else { env.ptr.v.clone() };
                let p = self.fresh("pp");
                self.emit(format!("{p} = getelementptr [8 x i32], ptr {arr}, i32 0, i32 {m}"));
                self.emit(format!("store i32 {}, ptr {p}, align 4", v.v));
            }
            8 | 9 => {
                // Read through the pointer variable (a select or phi of allocas).
                let a = {
                    let u = self.rng.chance(60);
                    self.operand(env, u)
                };
                let m = self.fresh("pi");
                self.emit(format!("{m} = and i32 {}, 7", a.v));
                let p = self.fresh("pp");
                let d = self.fresh("pl");
                self.emit(format!("{p} = getelementptr i32, ptr {}, i32 {m}", env.ptr.v));
                self.emit(format!("{d} = load i32, ptr {p}, align 4"));
                env.vars[k] = Var { v: d, div: true };
            }
            10 => {
                let (c, cd) = self.cond(env);
                let d = self.fresh("ptr");
                let (x, y) = if self.rng.chance(50) { ("%pa", "%pb") } else { ("%pb", "%pa") };
                self.emit(format!("{d} = select i1 {c}, ptr {x}, ptr {y}"));
                env.ptr = Var { v: d, div: cd };
            }
            11 => {
                // A float round trip.
                let a = self.operand(env, false);
                let f = self.fresh("f");
                let g = self.fresh("f");
                let d = self.fresh("fi");
                self.emit(format!("{f} = sitofp i32 {} to float", a.v));
                self.emit(format!("{g} = fmul float {f}, 5.000000e-01"));
                self.emit(format!("{d} = fptosi float {g} to i32"));
                env.vars[k] = Var { v: d, div: a.div };
            }
            _ => {
                let a = self.operand(env, false);
                let d = self.fresh("sh");
                let sh = 1 + self.rng.below(3);
                self.emit(format!("{d} = shl i32 {}, {sh}", a.v));
                env.vars[k] = Var { v: d, div: a.div };
            }
        }
    }

    /// `sh[tid] = v; barrier; v' = sh[(tid + 1) % ntid]; barrier`: race-free,
    /// since every write is separated by a barrier from every other
    /// work-item's read of that element.
    fn exchange(&mut self, env: &mut Env) {
        let sh = self.barriers.clone().expect("only with barriers");
        let k = self.rng.below(NVARS as u32) as usize;
        let v = env.vars[self.rng.below(NVARS as u32) as usize].v.clone();
        let (ws, nx, ni, rs, d) = (self.fresh("xw"), self.fresh("xn"), self.fresh("xi"), self.fresh("xr"), self.fresh("x"));
        self.emit(format!("{ws} = getelementptr [{SHARED_LEN} x i32], ptr addrspace(3) {sh}, i32 0, i32 %tid"));
        self.emit(format!("store i32 {v}, ptr addrspace(3) {ws}, align 4"));
        self.emit("call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)".into());
        self.emit(format!("{nx} = add i32 %tid, 1"));
        self.emit(format!("{ni} = urem i32 {nx}, %ntid"));
        self.emit(format!("{rs} = getelementptr [{SHARED_LEN} x i32], ptr addrspace(3) {sh}, i32 0, i32 {ni}"));
        self.emit(format!("{d} = load i32, ptr addrspace(3) {rs}, align 4"));
        self.emit("call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)".into());
        env.vars[k] = Var { v: d, div: true };
    }

    /// A sequence of statements.
    fn seq(&mut self, env: &mut Env, depth: u32) {
        let n = 1 + self.rng.below(4);
        for _ in 0..n {
            if self.budget <= 0 {
                self.simple(env);
                continue;
            }
            self.budget -= 1;
            let structured = depth < 3 && self.rng.chance(45);
            if !structured {
                self.simple(env);
                continue;
            }
            let in_loop = !self.loops.is_empty();
            match self.rng.below(if in_loop { 9 } else { 6 }) {
                0 | 1 => self.diamond(env, depth),
                2 => self.switch(env, depth),
                3 | 4 => self.looop(env, depth),
                5 => self.irreducible(env),
                6 | 7 => self.if_break(env),
                _ => self.if_continue(env),
            }
        }
    }

    /// Phis at `join` for the incoming `(block, env)`s; the joined env.
    fn join(&mut self, join: usize, incoming: &[(usize, Env)]) -> Env {
        assert!(!incoming.is_empty());
        if incoming.len() == 1 {
            return incoming[0].1.clone();
        }
        let mut out = incoming[0].1.clone();
        for k in 0..=NVARS {
            let get = |e: &Env| if k < NVARS { e.vars[k].clone() } else { e.ptr.clone() };
            let first = get(&incoming[0].1);
            let all_same = incoming.iter().all(|(_, e)| get(e).v == first.v);
            let div = incoming.iter().any(|(_, e)| get(e).div);
            let joined = if all_same {
                Var { v: first.v.clone(), div }
            } else {
                let d = self.fresh(if k < NVARS { "j" } else { "jp" });
                let ty = if k < NVARS { "i32" } else { "ptr" };
                let list: Vec<String> = incoming.iter().map(|(b, e)| format!("[ {}, {} ]", get(e).v, self.name(*b))).collect();
                self.blocks[join].phis.push(format!("{d} = phi {ty} {}", list.join(", ")));
                // A join after any branch may be divergent: the guess errs that way.
                Var { v: d, div: true }
            };
            if k < NVARS {
                out.vars[k] = joined;
            } else {
                out.ptr = joined;
            }
        }
        out
    }

    fn diamond(&mut self, env: &mut Env, depth: u32) {
        let (c, cd) = self.cond(env);
        self.div_ctx += u32::from(cd);
        let t = self.new_block("then");
        let j = self.new_block("join");
        let one_armed = self.rng.chance(30);
        let f = if one_armed { j } else { self.new_block("else") };
        let common = if self.ifc_shapes && !one_armed && self.rng.chance(40) { self.common_store_ptrs(env) } else { Vec::new() };
        let from = self.cur;
        let term = format!("br i1 {c}, label {}, label {}", self.name(t), self.name(f));
        self.term(term);
        let mut incoming = Vec::new();
        self.cur = t;
        let mut te = env.clone();
        if self.rng.chance(40) {
            te.ptr = Var { v: if self.rng.chance(50) { "%pb".into() } else { "%pa".into() }, div: false };
        }
        self.seq(&mut te, depth + 1);
        self.common_stores(&te, &common);
        incoming.push((self.cur, te));
        self.br(j);
        if one_armed {
            incoming.push((from, env.clone()));
        } else {
            self.cur = f;
            let mut fe = env.clone();
            self.seq(&mut fe, depth + 1);
            self.common_stores(&fe, &common);
            incoming.push((self.cur, fe));
            self.br(j);
        }
        self.cur = j;
        *env = self.join(j, &incoming);
        self.div_ctx -= u32::from(cd);
    }

    /// Pointers made before a diamond that both its arms store to last: a
    /// fresh `out` slot (one store per work-item: race-free), and sometimes
    /// an element of `%pa` at an index known before the branch.
    fn common_store_ptrs(&mut self, env: &Env) -> Vec<(String, &'static str)> {
        let mut ptrs = Vec::new();
        if self.slot < K {
            let s = self.slot;
            self.slot += 1;
            let i = self.fresh("ci");
            let p = self.fresh("cp");
            self.emit(format!("{i} = add i32 %obase, {s}"));
            self.emit(format!("{p} = getelementptr i32, ptr addrspace(1) %out, i32 {i}"));
            ptrs.push((p, "ptr addrspace(1)"));
        }
        if ptrs.is_empty() || self.rng.chance(50) {
            let a = self.operand(env, false);
            let m = self.fresh("ci");
            let p = self.fresh("cp");
            self.emit(format!("{m} = and i32 {}, 7", a.v));
            self.emit(format!("{p} = getelementptr [8 x i32], ptr %pa, i32 0, i32 {m}"));
            ptrs.push((p, "ptr"));
        }
        if self.rng.chance(50) {
            ptrs.reverse();
        }
        ptrs
    }

    /// The stores of [`Self::common_store_ptrs`] at the end of an arm, of
    /// values the arm chose.
    fn common_stores(&mut self, env: &Env, ptrs: &[(String, &'static str)]) {
        for (p, ty) in ptrs {
            let v = self.operand(env, false);
            self.emit(format!("store i32 {}, {ty} {p}, align 4", v.v));
        }
    }

    fn switch(&mut self, env: &mut Env, depth: u32) {
        let uniform = self.rng.chance(50);
        let a = self.operand(env, uniform);
        self.div_ctx += u32::from(a.div);
        let x = self.fresh("sw");
        self.emit(format!("{x} = and i32 {}, 3", a.v));
        let ncases = 1 + self.rng.below(3);
        let cases: Vec<usize> = (0..ncases).map(|_| self.new_block("case")).collect();
        let j = self.new_block("swjoin");
        let default_direct = self.rng.chance(50);
        let default = if default_direct { j } else { self.new_block("default") };
        let from = self.cur;
        let list: Vec<String> = cases.iter().enumerate().map(|(i, &b)| format!("i32 {i}, label {}", self.name(b))).collect();
        let term = format!("switch i32 {x}, label {} [ {} ]", self.name(default), list.join(" "));
        self.term(term);
        let mut incoming = Vec::new();
        let mut arms = cases.clone();
        if !default_direct {
            arms.push(default);
        } else {
            incoming.push((from, env.clone()));
        }
        for b in arms {
            self.cur = b;
            let mut e = env.clone();
            self.seq(&mut e, depth + 1);
            incoming.push((self.cur, e));
            self.br(j);
        }
        self.cur = j;
        *env = self.join(j, &incoming);
        self.div_ctx -= u32::from(a.div);
    }

    /// A loop: counter, top or bottom test, one or two exit blocks that
    /// meet after it.
    fn looop(&mut self, env: &mut Env, depth: u32) {
        // The bound, 1 to 4: uniform or divergent.
        let b = {
            let u = self.rng.chance(55);
            self.operand(env, u)
        };
        let bm = self.fresh("bm");
        let bound = self.fresh("bound");
        self.emit(format!("{bm} = and i32 {}, 3", b.v));
        self.emit(format!("{bound} = add i32 {bm}, 1"));
        let pre = self.cur;
        let header = self.new_block("header");
        let body = self.new_block("body");
        let latch = self.new_block("latch");
        let nexits = 1 + self.rng.below(2) as usize;
        let exits: Vec<usize> = (0..nexits).map(|_| self.new_block("exit")).collect();
        let top_test = self.rng.chance(50);
        self.br(header);
        // Header phis: one per variable, filled when the latch is known.
        let cnt = self.fresh("cnt");
        let cnt_next = self.fresh("cntn");
        let mut hphis = Vec::new();
        let mut henv = env.clone();
        for k in 0..=NVARS {
            let d = self.fresh(if k < NVARS { "h" } else { "hp" });
            hphis.push(d.clone());
            if k < NVARS {
                henv.vars[k] = Var { v: d, div: env.vars[k].div || b.div };
            } else {
                henv.ptr = Var { v: d, div: env.ptr.div || b.div };
            }
        }
        self.cur = header;
        self.loops.push(LoopCtx { cnt: cnt.clone(), latch, latch_in: Vec::new(), exits: exits.iter().map(|&e| (e, Vec::new())).collect() });
        if top_test {
            let c = self.fresh("lc");
            self.emit(format!("{c} = icmp slt i32 {cnt}, {bound}"));
            let t = format!("br i1 {c}, label {}, label {}", self.name(body), self.name(exits[0]));
            self.term(t);
            self.loops.last_mut().unwrap().exits[0].1.push((header, henv.clone()));
        } else {
            self.br(body);
        }
        self.cur = body;
        let mut benv = henv.clone();
        self.depth += 1;
        self.div_ctx += u32::from(b.div);
        self.seq(&mut benv, depth + 1);
        self.div_ctx -= u32::from(b.div);
        self.depth -= 1;
        let fall = self.cur;
        self.br(latch);
        let mut ctx = self.loops.pop().unwrap();
        ctx.latch_in.push((fall, benv));
        // Latch: join of the fallthrough and the continues.
        self.cur = latch;
        let lenv = self.join(latch, &ctx.latch_in.clone());
        self.emit(format!("{cnt_next} = add i32 {cnt}, 1"));
        if top_test {
            self.br(header);
        } else {
            let c = self.fresh("lc");
            self.emit(format!("{c} = icmp slt i32 {cnt_next}, {bound}"));
            let t = format!("br i1 {c}, label {}, label {}", self.name(header), self.name(exits[0]));
            self.term(t);
            ctx.exits[0].1.push((latch, lenv.clone()));
        }
        // Header phis.
        let (pn, ln) = (self.name(pre), self.name(latch));
        self.blocks[header].phis.push(format!("{cnt} = phi i32 [ 0, {pn} ], [ {cnt_next}, {ln} ]"));
        for (k, hphi) in hphis[..=NVARS].iter().enumerate() {
            let (ty, init, back) = if k < NVARS {
                ("i32", env.vars[k].v.clone(), lenv.vars[k].v.clone())
            } else {
                ("ptr", env.ptr.v.clone(), lenv.ptr.v.clone())
            };
            self.blocks[header].phis.push(format!("{hphi} = phi {ty} [ {init}, {pn} ], [ {back}, {ln} ]"));
        }
        // Exit blocks, then where they meet. Often each exit sets one
        // variable to its own constant (a "which exit" flag): the phi where
        // the exits meet then has only constants coming in, so only sync
        // dependence (not data dependence) can make it divergent.
        let flag = self.rng.chance(60).then(|| self.rng.below(NVARS as u32) as usize);
        let mut after = Vec::new();
        for (x, (e, incoming)) in ctx.exits.into_iter().enumerate() {
            if incoming.is_empty() {
                // No edge: leave it out (a block without predecessors).
                self.blocks[e].term = Some("unreachable".into());
                continue;
            }
            self.cur = e;
            let mut eenv = self.join(e, &incoming);
            if self.rng.chance(50) {
                self.simple(&mut eenv);
            }
            if let Some(k) = flag {
                eenv.vars[k] = Var { v: format!("{}", 10 + x), div: false };
            }
            after.push((self.cur, eenv));
        }
        if after.len() == 1 {
            *env = after.pop().unwrap().1;
            return;
        }
        let j = self.new_block("exitjoin");
        for (b, _) in &after {
            self.cur = *b;
            self.br(j);
        }
        self.cur = j;
        *env = self.join(j, &after);
    }

    /// `if (c) break;` out of the innermost loop or (a double break) the one
    /// around it, to one of its exit blocks.
    fn if_break(&mut self, env: &mut Env) {
        let (c, _) = self.cond(env);
        let nl = self.loops.len();
        let level = if nl >= 2 && self.rng.chance(40) { nl - 2 } else { nl - 1 };
        let nexits = self.loops[level].exits.len();
        let which = self.rng.below(nexits as u32) as usize;
        let target = self.loops[level].exits[which].0;
        let cont = self.new_block("cont");
        let (tn, cn) = (self.name(target), self.name(cont));
        let t =
            if self.rng.chance(50) { format!("br i1 {c}, label {tn}, label {cn}") } else { format!("br i1 {c}, label {cn}, label {tn}") };
        self.term(t);
        let from = self.cur;
        self.loops[level].exits[which].1.push((from, env.clone()));
        self.cur = cont;
    }

    /// `if (c) continue;`
    fn if_continue(&mut self, env: &mut Env) {
        let (c, _) = self.cond(env);
        let latch = self.loops.last().unwrap().latch;
        let cont = self.new_block("cont");
        let t = format!("br i1 {c}, label {}, label {}", self.name(latch), self.name(cont));
        self.term(t);
        let from = self.cur;
        self.loops.last_mut().unwrap().latch_in.push((from, env.clone()));
        self.cur = cont;
    }

    /// Two blocks A and B, each branching to the other, entered at either
    /// from a branch here; each counts its visits and leaves at the bound.
    fn irreducible(&mut self, env: &mut Env) {
        // Barriers stay out of irreducible cycles (no structured owner).
        self.div_ctx += 1;
        let (c, _) = self.cond(env);
        let b = {
            let u = self.rng.chance(50);
            self.operand(env, u)
        };
        let bound = self.fresh("ibound");
        let bm = self.fresh("bm");
        self.emit(format!("{bm} = and i32 {}, 3", b.v));
        self.emit(format!("{bound} = add i32 {bm}, 2"));
        let pre = self.cur;
        let a = self.new_block("irrA");
        let bb = self.new_block("irrB");
        let exit = self.new_block("irrexit");
        let (an, bn) = (self.name(a), self.name(bb));
        let t =
            if self.rng.chance(50) { format!("br i1 {c}, label {an}, label {bn}") } else { format!("br i1 {c}, label {bn}, label {an}") };
        self.term(t);
        // Phi names of A and B.
        let names = |g: &mut Gen, stem: &str| -> Vec<String> { (0..=NVARS + 1).map(|_| g.fresh(stem)).collect() };
        let pa = names(self, "ia");
        let pb = names(self, "ib");
        let as_env = |names: &[String], env: &Env| {
            let mut e = env.clone();
            for (var, name) in e.vars[..NVARS].iter_mut().zip(&names[..NVARS]) {
                *var = Var { v: name.clone(), div: true };
            }
            e.ptr = Var { v: names[NVARS].clone(), div: true };
            e
        };
        // A
        self.cur = a;
        let mut ea = as_env(&pa, env);
        self.simple(&mut ea);
        self.simple(&mut ea);
        let ca = self.fresh("icnt");
        self.emit(format!("{ca} = add i32 {}, 1", pa[NVARS + 1]));
        let (cc, _) = self.cond(&ea);
        let lt = self.fresh("ilt");
        let go = self.fresh("igo");
        self.emit(format!("{lt} = icmp slt i32 {ca}, {bound}"));
        self.emit(format!("{go} = and i1 {lt}, {cc}"));
        let a_end = self.cur;
        let xn = self.name(exit);
        self.term(format!("br i1 {go}, label {bn}, label {xn}"));
        // B
        self.cur = bb;
        let mut eb = as_env(&pb, env);
        self.simple(&mut eb);
        let cb = self.fresh("icnt");
        self.emit(format!("{cb} = add i32 {}, 1", pb[NVARS + 1]));
        let lt2 = self.fresh("ilt");
        self.emit(format!("{lt2} = icmp slt i32 {cb}, {bound}"));
        let b_end = self.cur;
        if self.rng.chance(50) {
            self.term(format!("br i1 {lt2}, label {an}, label {xn}"));
        } else {
            let ge = self.fresh("ige");
            self.emit(format!("{ge} = xor i1 {lt2}, true"));
            self.term(format!("br i1 {ge}, label {xn}, label {an}"));
        }
        // Phis of A (from pre and B's end) and B (from pre and A's end).
        let (pren, aen, ben) = (self.name(pre), self.name(a_end), self.name(b_end));
        for k in 0..=NVARS + 1 {
            let (ty, init, from_b, from_a) = if k < NVARS {
                ("i32", env.vars[k].v.clone(), eb.vars[k].v.clone(), ea.vars[k].v.clone())
            } else if k == NVARS {
                ("ptr", env.ptr.v.clone(), eb.ptr.v.clone(), ea.ptr.v.clone())
            } else {
                ("i32", "0".to_string(), cb.clone(), ca.clone())
            };
            self.blocks[a].phis.push(format!("{} = phi {ty} [ {init}, {pren} ], [ {from_b}, {ben} ]", pa[k]));
            self.blocks[bb].phis.push(format!("{} = phi {ty} [ {init}, {pren} ], [ {from_a}, {aen} ]", pb[k]));
        }
        self.cur = exit;
        *env = self.join(exit, &[(a_end, ea), (b_end, eb)]);
        self.div_ctx -= 1;
    }
}

/// A launch for generated kernel `seed`: work-group size, number of
/// work-groups, and `simt-run` argument specs for its parameters (`out`
/// zeroed, `in`/`in1` random, `n` small).
pub fn launch(seed: u64) -> (u64, u64, Vec<String>) {
    let local = [8u64, 32, 64][(seed % 3) as usize];
    let groups = 2 + (seed / 3) % 2;
    let items = local * groups;
    let args = vec![
        format!("buf:i32:{}=zero", items * K as u64),
        format!("buf:i32:{IN_LEN}=rand:{seed}"),
        format!("buf:i32:{IN_LEN}=rand:{}", seed + 1),
        format!("i32:{}", seed % 7),
    ];
    (local, groups, args)
}

/// A kernel of short if-regions on a loaded value, for the cost rules of
/// `simt-ifconvert` (issue 23): one to three triangles, diamonds or a
/// triangle around a diamond, one after another, with arms of 0 to 6
/// instructions (now and then a guarded load, a division or a store), on
/// conditions that split rarely (a low-bit pattern of random data), often
/// (a threshold, a lane id) or never (a uniform argument). Parameters:
/// `out` and `side` (i32 per work-item), `in` (random, one per work-item),
/// `aux` (256 random), `n`; [`launch_rare`] gives the launch.
pub fn module_rare(seed: u64, name: &str) -> String {
    let mut rng = Rng(seed ^ 0x0a1e_5a2e_u64);
    let mut s = String::from(HEADER);
    s += &format!(
        "define ptx_kernel void @{name}(ptr addrspace(1) %out, ptr addrspace(1) %side, ptr addrspace(1) %in, ptr addrspace(1) %aux, i32 %n) {{\nentry:\n"
    );
    for l in [
        "%tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()",
        "%ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()",
        "%ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()",
        "%laneid = call i32 @llvm.nvvm.read.ptx.sreg.laneid()",
        "%gb = mul i32 %ctaid, %ntid",
        "%gid = add i32 %gb, %tid",
        "%ip = getelementptr i32, ptr addrspace(1) %in, i32 %gid",
        "%v0 = load i32, ptr addrspace(1) %ip, align 4",
        "%sp = getelementptr i32, ptr addrspace(1) %side, i32 %gid",
    ] {
        s += &format!("  {l}\n");
    }
    let mut id = 0u32;
    let mut fresh = |p: &str| {
        id += 1;
        format!("%{p}{id}")
    };
    // Straight-line code on `v`: `len` instructions; returns the result.
    let arm = |rng: &mut Rng, s: &mut String, v: &str, len: u32, fresh: &mut dyn FnMut(&str) -> String| -> String {
        let mut v = v.to_string();
        for _ in 0..len {
            let d = fresh("a");
            match rng.below(10) {
                0 => {
                    let (i, p) = (fresh("i"), fresh("p"));
                    *s += &format!("  {i} = and i32 {v}, 255\n  {p} = getelementptr i32, ptr addrspace(1) %aux, i32 {i}\n  {d} = load i32, ptr addrspace(1) {p}, align 4\n");
                }
                1 => {
                    let q = fresh("q");
                    *s += &format!("  {q} = or i32 %v0, 1\n  {d} = udiv i32 {v}, {q}\n");
                }
                2 => {
                    *s += &format!("  store i32 {v}, ptr addrspace(1) %sp, align 4\n  {d} = add i32 {v}, 1\n");
                }
                k => {
                    let op = ["add", "mul", "xor", "lshr", "sub", "shl", "or"][(k - 3) as usize];
                    let c = 1 + rng.below(29);
                    *s += &format!("  {d} = {op} i32 {v}, {c}\n");
                }
            }
            v = d;
        }
        v
    };
    let cond = |rng: &mut Rng, s: &mut String, v: &str, fresh: &mut dyn FnMut(&str) -> String| -> String {
        let c = fresh("c");
        match rng.below(5) {
            0 | 1 => {
                let m = fresh("m");
                let mask = rng.pick(&[1, 3, 63, 511, 4095]);
                *s += &format!("  {m} = and i32 %v0, {mask}\n  {c} = icmp eq i32 {m}, 0\n");
            }
            2 => *s += &format!("  {c} = icmp slt i32 {v}, {}\n", rng.below(1000) as i32 - 500),
            3 => *s += &format!("  {c} = icmp ult i32 %laneid, {}\n", rng.pick(&[1, 4, 16])),
            _ => *s += &format!("  {c} = icmp sgt i32 %n, {}\n", rng.below(4)),
        }
        c
    };
    let mut v = "%v0".to_string();
    for _ in 0..1 + rng.below(3) {
        let (arm_a, arm_b, join) = (fresh("A"), fresh("B"), fresh("J"));
        let (la, lb) = (rng.below(7), rng.below(7));
        let c = cond(&mut rng, &mut s, &v, &mut fresh);
        let (x, y, a, b, j) = (&arm_a[1..], &arm_b[1..], &arm_a, &arm_b, &join);
        let r = fresh("r");
        match rng.below(3) {
            // Triangle.
            0 => {
                let head = cur_block(&s);
                s += &format!("  br i1 {c}, label {a}, label {j}\n{x}:\n");
                let va = arm(&mut rng, &mut s, &v, la, &mut fresh);
                s += &format!("  br label {j}\n{}:\n  {r} = phi i32 [ {va}, {a} ], [ {v}, %{head} ]\n", &j[1..]);
            }
            // Diamond.
            1 => {
                s += &format!("  br i1 {c}, label {a}, label {b}\n{x}:\n");
                let va = arm(&mut rng, &mut s, &v, la, &mut fresh);
                s += &format!("  br label {j}\n{y}:\n");
                let vb = arm(&mut rng, &mut s, &v, lb, &mut fresh);
                s += &format!("  br label {j}\n{}:\n  {r} = phi i32 [ {va}, {a} ], [ {vb}, {b} ]\n", &j[1..]);
            }
            // A triangle around a diamond.
            _ => {
                let head = cur_block(&s);
                s += &format!("  br i1 {c}, label {a}, label {j}\n{x}:\n");
                let pre = arm(&mut rng, &mut s, &v, la % 3, &mut fresh);
                let (ia, ib, ij) = (fresh("IA"), fresh("IB"), fresh("IJ"));
                let ic = cond(&mut rng, &mut s, &pre, &mut fresh);
                s += &format!("  br i1 {ic}, label {ia}, label {ib}\n{}:\n", &ia[1..]);
                let via = arm(&mut rng, &mut s, &pre, lb % 3, &mut fresh);
                s += &format!("  br label {ij}\n{}:\n", &ib[1..]);
                let vib = arm(&mut rng, &mut s, &pre, la % 2, &mut fresh);
                let ir = fresh("ir");
                s += &format!("  br label {ij}\n{}:\n  {ir} = phi i32 [ {via}, {ia} ], [ {vib}, {ib} ]\n", &ij[1..]);
                s += &format!("  br label {j}\n{}:\n  {r} = phi i32 [ {ir}, {ij} ], [ {v}, %{head} ]\n", &j[1..]);
            }
        }
        v = r;
    }
    s += &format!(
        "  %op = getelementptr i32, ptr addrspace(1) %out, i32 %gid\n  store i32 {v}, ptr addrspace(1) %op, align 4\n  ret void\n}}\n"
    );
    s + DECLS
}

/// The label of the block `s` ends in (the last `name:` line).
fn cur_block(s: &str) -> String {
    s.lines().rev().find_map(|l| l.strip_suffix(':').filter(|n| !n.starts_with(' '))).unwrap_or("entry").to_string()
}

/// The launch of [`module_rare`]'s kernel: (local size, groups, args).
pub fn launch_rare(seed: u64) -> (u64, u64, Vec<String>) {
    let local = [32u64, 64, 128][(seed % 3) as usize];
    let groups = 2 + (seed / 3) % 3;
    let items = local * groups;
    let args = vec![
        format!("buf:i32:{items}"),
        format!("buf:i32:{items}"),
        format!("buf:i32:{items}=rand:{seed}"),
        format!("buf:i32:256=rand:{}", seed + 1),
        format!("i32:{}", seed % 5),
    ];
    (local, groups, args)
}
