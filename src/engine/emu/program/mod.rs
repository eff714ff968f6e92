//! The emulator's pre-decoded program: what the interpreter (`exec.rs`)
//! runs, built from kernel IR by the decoder ([`decode`]).
//!
//! Every SSA value gets dense register *slots*, one per scalar leaf: a scalar
//! or pointer takes one, a `<4 x float>` four, a `{ i32, i1 }` two. The
//! register file of a warp is `slots × width` 64-bit words, slot-major, and an
//! instruction names its operands by `slot × width` ([`R`]), so the
//! interpreter indexes a lane's value with one addition. Vector and aggregate
//! instructions are scalarised by the decoder: a `<4 x float>` add becomes
//! four adds.
//!
//! Values are held canonically in a `u64`: integers of N bits zero-extended,
//! `float` as its 32 bits, `double` as its 64 bits, pointers as the
//! emulator's tagged addresses ([`ADDR_BITS`]). Constants (and the kernel's
//! arguments) live in slots filled once per warp; work-item builtins
//! (`get_local_id`, `%tid.x`, …) in slots filled per work-group, so reading
//! them costs nothing.
//!
//! Phis are not instructions here: every CFG edge carries its phi copies (a
//! parallel copy, through temporaries when a phi reads another phi of the
//! same block), executed for the lanes that take the edge. Lanes that meet
//! at a join after diverging thus each bring their own incoming values.
//!
//! Instructions are laid out block by block in layout order, so an
//! instruction's index (its PC) orders the same way as seed 000's PC order:
//! block layout position, then position in the block.
//!
//! [`Program`]'s fields are private to this module and its child `decode`,
//! the only code that builds one.

use super::memory::ADDR_BITS;
use crate::launch::Policy;
use simt_passes::kernel_model::Builtin;

pub mod decode;

/// A register operand: slot × warp width.
pub type R = u32;

/// The PC of "no reconvergence point" (the virtual exit).
pub const EXIT_PC: u32 = u32::MAX;

/// A scalar leaf's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sk {
    I(u8),
    F32,
    F64,
    P,
}

impl Sk {
    pub fn bits(self) -> u32 {
        match self {
            Sk::I(b) => b as u32,
            Sk::F32 => 32,
            Sk::F64 | Sk::P => 64,
        }
    }
}

/// One scalar of a (possibly aggregate) type and its byte offset in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Leaf {
    pub off: u64,
    pub sk: Sk,
}

/// How a leaf is loaded and stored: `size` bytes, the low `bits` of which
/// are the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemTy {
    pub size: u8,
    pub bits: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IOp {
    Add,
    Sub,
    Mul,
    UDiv,
    SDiv,
    URem,
    SRem,
    Shl,
    LShr,
    AShr,
    And,
    Or,
    Xor,
    SMin,
    SMax,
    UMin,
    UMax,
    UAddSat,
    USubSat,
    SAddSat,
    SSubSat,
    /// Whether `a + b`, `a - b`, `a * b` overflow, unsigned or signed (the
    /// `i1` of `llvm.*.with.overflow`).
    UAddOv,
    SAddOv,
    USubOv,
    SSubOv,
    UMulOv,
    SMulOv,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IUOp {
    Ctpop,
    Ctlz,
    Cttz,
    Bswap,
    Bitrev,
    Abs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    MinNum,
    MaxNum,
    Minimum,
    Maximum,
    CopySign,
    Pow,
    Atan2,
    Hypot,
    Fdim,
    Remainder,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FUOp {
    Neg,
    Abs,
    Sqrt,
    Floor,
    Ceil,
    Trunc,
    Round,
    Rint,
    Exp,
    Exp2,
    Exp10,
    Log,
    Log2,
    Log10,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Cbrt,
    Expm1,
    Log1p,
    Erf,
    Erfc,
    Tgamma,
    Lgamma,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IPred {
    Eq,
    Ne,
    Ugt,
    Uge,
    Ult,
    Ule,
    Sgt,
    Sge,
    Slt,
    Sle,
}

/// LLVM's `fcmp` predicates, numbered as `LLVMRealPredicate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FPred(pub u8);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CastOp {
    /// Keep the low `to` bits.
    Trunc(u8),
    SExt {
        from: u8,
        to: u8,
    },
    FToU {
        dbl: bool,
        to: u8,
    },
    FToS {
        dbl: bool,
        to: u8,
    },
    /// `llvm.fpto{s,u}i.sat`: clamped to the `to`-bit range, NaN to 0.
    FToSSat {
        dbl: bool,
        to: u8,
    },
    FToUSat {
        dbl: bool,
        to: u8,
    },
    UToF {
        dbl: bool,
    },
    SToF {
        from: u8,
        dbl: bool,
    },
    FTrunc,
    FExt,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpOp {
    /// `shfl.sync.{idx,up,down,bfly}`: `d` = `a` of the lane PTX's rules
    /// pick from `b` (lane, delta or xor mask) and `c` (clamp, segment mask).
    ShflIdx,
    ShflUp,
    ShflDown,
    ShflBfly,
    /// `vote.{all,any,uni,ballot}.sync`: over the running lanes of the
    /// member mask `a`, the predicate `b`.
    VoteAll,
    VoteAny,
    VoteUni,
    VoteBallot,
    /// `activemask`: the running lanes.
    ActiveMask,
    /// `match.any.sync.{i32,i64}`: the running lanes of the member mask `a`
    /// whose value `b` (its low 32 bits, or all 64) equals the lane's.
    MatchAny {
        wide: bool,
    },
    /// `redux.sync.*`: over the running lanes of the member mask `b`, the
    /// 32-bit values `a` combined by the operation.
    Redux(ReduxOp),
    /// `bar.warp.sync` (`__syncwarp`): the lanes run in lockstep, so it does
    /// nothing but give `--check warp` its member mask.
    SyncWarp,
}

impl WarpOp {
    /// The PTX instruction and the CUDA function that emits it, for reports.
    pub fn names(self) -> (&'static str, &'static str) {
        match self {
            WarpOp::ShflIdx => ("shfl.sync.idx", "__shfl_sync"),
            WarpOp::ShflUp => ("shfl.sync.up", "__shfl_up_sync"),
            WarpOp::ShflDown => ("shfl.sync.down", "__shfl_down_sync"),
            WarpOp::ShflBfly => ("shfl.sync.bfly", "__shfl_xor_sync"),
            WarpOp::VoteAll => ("vote.sync.all", "__all_sync"),
            WarpOp::VoteAny => ("vote.sync.any", "__any_sync"),
            WarpOp::VoteUni => ("vote.sync.uni", "__uni_sync"),
            WarpOp::VoteBallot => ("vote.sync.ballot", "__ballot_sync"),
            WarpOp::ActiveMask => ("activemask", "__activemask"),
            WarpOp::MatchAny { .. } => ("match.any.sync", "__match_any_sync"),
            WarpOp::Redux(ReduxOp::Add) => ("redux.sync.add", "__reduce_add_sync"),
            WarpOp::Redux(ReduxOp::Min) => ("redux.sync.min", "__reduce_min_sync"),
            WarpOp::Redux(ReduxOp::Max) => ("redux.sync.max", "__reduce_max_sync"),
            WarpOp::Redux(ReduxOp::UMin) => ("redux.sync.min.u32", "__reduce_min_sync"),
            WarpOp::Redux(ReduxOp::UMax) => ("redux.sync.max.u32", "__reduce_max_sync"),
            WarpOp::Redux(ReduxOp::And) => ("redux.sync.and", "__reduce_and_sync"),
            WarpOp::Redux(ReduxOp::Or) => ("redux.sync.or", "__reduce_or_sync"),
            WarpOp::Redux(ReduxOp::Xor) => ("redux.sync.xor", "__reduce_xor_sync"),
            WarpOp::SyncWarp => ("bar.warp.sync", "__syncwarp"),
        }
    }

    pub fn is_shuffle(self) -> bool {
        matches!(self, WarpOp::ShflIdx | WarpOp::ShflUp | WarpOp::ShflDown | WarpOp::ShflBfly)
    }
}

/// The operations of `redux.sync` (PTX ISA, sm_80).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduxOp {
    Add,
    Min,
    Max,
    UMin,
    UMax,
    And,
    Or,
    Xor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RmwOp {
    Xchg,
    Add,
    Sub,
    And,
    Nand,
    Or,
    Xor,
    Max,
    Min,
    UMax,
    UMin,
    FAdd,
    FSub,
    FMax,
    FMin,
    FMaximum,
    FMinimum,
    UIncWrap,
    UDecWrap,
    USubCond,
    USubSat,
}

/// One pre-decoded instruction. `d` is the destination, the other `R`s are
/// operands; all are register offsets (slot × width).
#[derive(Clone, Debug)]
pub enum Inst {
    IBin {
        op: IOp,
        bits: u8,
        d: R,
        a: R,
        b: R,
    },
    IUn {
        op: IUOp,
        bits: u8,
        d: R,
        a: R,
    },
    /// Funnel shift (`llvm.fshl`/`llvm.fshr`).
    Fsh {
        left: bool,
        bits: u8,
        d: R,
        a: R,
        b: R,
        c: R,
    },
    FBin {
        op: FOp,
        dbl: bool,
        d: R,
        a: R,
        b: R,
    },
    FUn {
        op: FUOp,
        dbl: bool,
        d: R,
        a: R,
    },
    /// A CUDA warp function (`llvm.nvvm.shfl.sync.*`, `vote.*.sync`,
    /// `activemask`, …): reads the other lanes of the warp (`WarpOp`); `m`
    /// is its member mask (`activemask` has none: `d`).
    Warp {
        op: WarpOp,
        d: R,
        a: R,
        b: R,
        c: R,
        m: R,
    },
    /// `a * b + c` rounded once (`llvm.fma`, `llvm.fmuladd`).
    Fma {
        dbl: bool,
        d: R,
        a: R,
        b: R,
        c: R,
    },
    /// `llvm.powi`: float to an i32 power.
    Powi {
        dbl: bool,
        d: R,
        a: R,
        b: R,
    },
    ICmp {
        p: IPred,
        bits: u8,
        d: R,
        a: R,
        b: R,
    },
    FCmp {
        p: FPred,
        dbl: bool,
        d: R,
        a: R,
        b: R,
    },
    Cast {
        op: CastOp,
        d: R,
        a: R,
    },
    Select {
        d: R,
        c: R,
        a: R,
        b: R,
    },
    Mov {
        d: R,
        a: R,
    },
    /// `base + off`.
    Gep0 {
        d: R,
        base: R,
        off: i64,
    },
    /// `base + off + sext(idx) * scale`.
    Gep1 {
        d: R,
        base: R,
        off: i64,
        idx: R,
        scale: i64,
        bits: u8,
    },
    Gep {
        d: R,
        base: R,
        off: i64,
        idx: Box<[(R, i64, u8)]>,
    },
    Load {
        d: R,
        p: R,
        off: i64,
        ty: MemTy,
    },
    Store {
        v: R,
        p: R,
        off: i64,
        ty: MemTy,
    },
    /// The work-item's private frame + `off`: private array `obj`
    /// (`Program::allocas`), in its own region when it has one
    /// (`objects`).
    Alloca {
        d: R,
        off: u64,
        obj: u32,
    },
    Rmw {
        op: RmwOp,
        ty: MemTy,
        d: R,
        p: R,
        v: R,
    },
    CmpXchg {
        ty: MemTy,
        d: R,
        ok: R,
        p: R,
        cmp: R,
        new: R,
    },
    Memcpy {
        dst: R,
        src: R,
        n: R,
    },
    Memset {
        dst: R,
        v: R,
        n: R,
    },
    /// `d = vector[idx]`, the vector's `n` leaves at `base`.
    ExtractDyn {
        d: R,
        base: R,
        n: u32,
        idx: R,
        bits: u8,
    },
    /// `d[idx] = v` (d already holds a copy of the vector).
    InsertDyn {
        d: R,
        n: u32,
        v: R,
        idx: R,
        bits: u8,
    },
    /// Reinterpreting bits between leaf lists of equal total size
    /// (`bitcast <2 x i32> to i64`, …).
    Repack {
        d: R,
        dl: Box<[Sk]>,
        s: R,
        sl: Box<[Sk]>,
    },
    Barrier {
        id: u32,
    },
    /// A convergence check (markers policy only).
    Converge,
    /// `llvm.trap` and friends.
    Trap,
    /// `simt-check-uniformity`'s check: the `n` leaves at `a` must be equal
    /// in every running lane (pointers into private memory compared relative
    /// to each lane's own). `id` indexes [`Program::checks`].
    CheckUniform {
        a: R,
        n: u32,
        ptr: bool,
        id: u32,
    },
    Br {
        e: u32,
    },
    CondBr {
        c: R,
        t: u32,
        f: u32,
    },
    Switch {
        v: R,
        cases: Box<[(u64, u32)]>,
        default: u32,
    },
    Ret,
    Unreachable,
}

/// A CFG edge: the target block and the phi copies (destination, source)
/// made by the lanes that take it.
#[derive(Clone, Debug)]
pub struct Edge {
    pub from: u32,
    pub to: u32,
    /// PC of the target's first instruction.
    pub pc: u32,
    pub copies: Box<[(R, R)]>,
    /// Some source is also a destination: copy through the temporaries.
    pub via_temps: bool,
}

#[derive(Clone, Debug)]
pub struct BlockInfo {
    pub name: String,
    pub first: u32,
    /// PC of the immediate post-dominator's first instruction, or [`EXIT_PC`].
    pub ipdom_pc: u32,
    /// A convergence check starts the block (markers policy).
    pub check: bool,
}

/// What a kernel parameter becomes.
#[derive(Clone, Copy, Debug)]
pub struct ParamSlot {
    pub slot: u32,
    pub sk: Sk,
}

/// A work-item builtin held in a slot, filled per work-group.
#[derive(Clone, Copy, Debug)]
pub struct Special {
    pub slot: u32,
    pub what: SpecialKind,
    pub bits: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpecialKind {
    Builtin(Builtin),
    WarpSize,
    /// `%lanemask_eq`, `_le`, `_lt`, `_ge`, `_gt` (0 to 4).
    LaneMask(u8),
}

/// A private array: its name (empty when unnamed; clang keeps none), its
/// allocated type as IR text, offset in the work-item's private memory and
/// size in bytes.
#[derive(Clone, Debug)]
pub struct AllocaInfo {
    pub name: String,
    pub ty: String,
    pub off: u64,
    pub size: u64,
}

/// A module-scope variable outside local memory: its own region.
#[derive(Clone, Debug)]
pub struct GlobalData {
    pub name: String,
    pub region: u32,
    pub bytes: Vec<u8>,
}

/// The decoded kernel.
///
/// Built only by [`decode`], which checks it with `Program::validate`
/// before handing it out; its fields are private, so the invariant that
/// check establishes holds for every `Program` the interpreter sees:
///
/// - `1 <= width <= 64`, and `nslots × width` fits a `u32`;
/// - every register operand `R` of every instruction, edge copy, constant,
///   parameter and builtin is a slot offset (a multiple of `width`) whose
///   leaves (`n` of them for multi-leaf operands) lie below `nslots × width`,
///   and so do the temporaries of every edge copied through them;
/// - every edge index in a branch is below `edges.len()`, every edge's
///   blocks below `blocks.len()` and its PC below `insts.len()`; every
///   block's first PC and post-dominator PC (or [`EXIT_PC`]) too;
/// - `inst_text` and `inst_block` have one entry per instruction, each in
///   range; barrier ids are below `barrier_names.len()`;
/// - the regions are laid out as documented: parameters `1..=n`, local
///   memory `n + 1`, globals and local variables' own regions between it
///   and `first_private_region`; every `Alloca`'s object is an entry of
///   `allocas`.
///
/// The interpreter relies on the register bounds for its register file
/// (`exec.rs`), and reports a broken one as an emulator error otherwise.
#[derive(Debug)]
pub struct Program {
    kernel: String,
    policy: Policy,
    width: u32,
    insts: Vec<Inst>,
    /// Per instruction: index into `texts`, the IR it came from.
    inst_text: Vec<u32>,
    texts: Vec<String>,
    /// Per text: the source location (`file:line`) of its IR instruction,
    /// when the module has debug info.
    text_locs: Vec<Option<String>>,
    /// Per instruction: its block.
    inst_block: Vec<u32>,
    blocks: Vec<BlockInfo>,
    edges: Vec<Edge>,
    nslots: u32,
    /// First of the temporaries used by parallel phi copies.
    temps: R,
    consts: Vec<(u32, u64)>,
    params: Vec<ParamSlot>,
    specials: Vec<Special>,
    /// Bytes of private memory per work-item (its allocas).
    private_bytes: u64,
    /// Bytes of the kernel's own local (`__local`, `__shared__`) variables.
    static_local_bytes: u64,
    /// Those variables: name, offset in local memory, size in bytes.
    local_vars: Vec<(String, u64, u64)>,
    /// Per local variable, its own region (`objects`), 0 for none.
    local_var_regions: Vec<u32>,
    /// The private arrays (allocas), in the order decoded.
    allocas: Vec<AllocaInfo>,
    globals: Vec<GlobalData>,
    /// Per barrier id: how errors name it.
    barrier_names: Vec<String>,
    /// Convergence markers found in the IR (markers policy); 0 means the
    /// implicit check points were used.
    explicit_markers: usize,
    /// Regions: the parameters are 1..=n, then local memory, the globals,
    /// the local variables' own regions, then one private region per
    /// work-item (and the launch's object regions, `objects`).
    local_region: u32,
    first_private_region: u32,
    /// `simt-check-uniformity`'s table: per check id, "kernel", "value", "use".
    checks: Vec<[String; 3]>,
}

impl Program {
    /// Checks the invariant documented on [`Program`].
    fn validate(&self) -> Result<(), String> {
        let bad = |what: String| Err(format!("internal error: the decoded program is inconsistent: {what}"));
        let w = self.width;
        if !(1..=64).contains(&w) {
            return bad(format!("warp width {w}"));
        }
        let Some(total) = self.nslots.checked_mul(w) else { return bad(format!("{} slots of width {w}", self.nslots)) };
        // `n` leaves starting at register offset `r`.
        let regs = |r: R, n: u64, what: &str| -> Result<(), String> {
            if !r.is_multiple_of(w) || (r as u64) + n * (w as u64) > total as u64 {
                return bad(format!("{what}: register offset {r} with {n} leaves outside {total} registers"));
            }
            Ok(())
        };
        let slot = |s: u32, what: &str| {
            regs(s.wrapping_mul(w), 1, what).and(if s < self.nslots { Ok(()) } else { bad(format!("{what}: slot {s}")) })
        };
        let edge = |e: u32| if (e as usize) < self.edges.len() { Ok(()) } else { bad(format!("edge {e} of {}", self.edges.len())) };
        let pc_ok = |pc: u32| (pc as usize) < self.insts.len();
        if self.inst_text.len() != self.insts.len() || self.inst_block.len() != self.insts.len() {
            return bad("per-instruction tables of another length".into());
        }
        for (pc, inst) in self.insts.iter().enumerate() {
            let what = format!("instruction {pc} ({inst:?})");
            let r1 = |r: R| regs(r, 1, &what);
            match *inst {
                Inst::IBin { d, a, b, .. }
                | Inst::FBin { d, a, b, .. }
                | Inst::ICmp { d, a, b, .. }
                | Inst::FCmp { d, a, b, .. }
                | Inst::Powi { d, a, b, .. } => {
                    r1(d)?;
                    r1(a)?;
                    r1(b)?;
                }
                Inst::Fsh { d, a, b, c, .. } | Inst::Fma { d, a, b, c, .. } => {
                    r1(d)?;
                    r1(a)?;
                    r1(b)?;
                    r1(c)?;
                }
                Inst::Warp { d, a, b, c, m, .. } => {
                    r1(d)?;
                    r1(a)?;
                    r1(b)?;
                    r1(c)?;
                    r1(m)?;
                }
                Inst::IUn { d, a, .. } | Inst::FUn { d, a, .. } | Inst::Cast { d, a, .. } | Inst::Mov { d, a } => {
                    r1(d)?;
                    r1(a)?;
                }
                Inst::Select { d, c, a, b } => {
                    r1(d)?;
                    r1(c)?;
                    r1(a)?;
                    r1(b)?;
                }
                Inst::Gep0 { d, base, .. } => {
                    r1(d)?;
                    r1(base)?;
                }
                Inst::Gep1 { d, base, idx, .. } => {
                    r1(d)?;
                    r1(base)?;
                    r1(idx)?;
                }
                Inst::Gep { d, base, ref idx, .. } => {
                    r1(d)?;
                    r1(base)?;
                    for &(r, _, _) in idx.iter() {
                        r1(r)?;
                    }
                }
                Inst::Load { d, p, .. } => {
                    r1(d)?;
                    r1(p)?;
                }
                Inst::Store { v, p, .. } => {
                    r1(v)?;
                    r1(p)?;
                }
                Inst::Alloca { d, .. } => r1(d)?,
                Inst::Rmw { d, p, v, .. } => {
                    r1(d)?;
                    r1(p)?;
                    r1(v)?;
                }
                Inst::CmpXchg { d, ok, p, cmp, new, .. } => {
                    r1(d)?;
                    r1(ok)?;
                    r1(p)?;
                    r1(cmp)?;
                    r1(new)?;
                }
                Inst::Memcpy { dst, src, n } => {
                    r1(dst)?;
                    r1(src)?;
                    r1(n)?;
                }
                Inst::Memset { dst, v, n } => {
                    r1(dst)?;
                    r1(v)?;
                    r1(n)?;
                }
                Inst::ExtractDyn { d, base, n, idx, .. } => {
                    r1(d)?;
                    regs(base, n as u64, &what)?;
                    r1(idx)?;
                }
                Inst::InsertDyn { d, n, v, idx, .. } => {
                    regs(d, n as u64, &what)?;
                    r1(v)?;
                    r1(idx)?;
                }
                Inst::Repack { d, ref dl, s, ref sl } => {
                    regs(d, dl.len() as u64, &what)?;
                    regs(s, sl.len() as u64, &what)?;
                }
                Inst::Barrier { id } => {
                    if id as usize >= self.barrier_names.len() {
                        return bad(format!("{what}: barrier {id}"));
                    }
                }
                Inst::CheckUniform { a, n, .. } => regs(a, n as u64, &what)?,
                Inst::Br { e } => edge(e)?,
                Inst::CondBr { c, t, f } => {
                    r1(c)?;
                    edge(t)?;
                    edge(f)?;
                }
                Inst::Switch { v, ref cases, default } => {
                    r1(v)?;
                    edge(default)?;
                    for &(_, e) in cases.iter() {
                        edge(e)?;
                    }
                }
                Inst::Converge | Inst::Trap | Inst::Ret | Inst::Unreachable => {}
            }
            if self.inst_text[pc] as usize >= self.texts.len() || self.inst_block[pc] as usize >= self.blocks.len() {
                return bad(format!("{what}: text or block out of range"));
            }
        }
        for (k, e) in self.edges.iter().enumerate() {
            if e.from as usize >= self.blocks.len() || e.to as usize >= self.blocks.len() || !pc_ok(e.pc) {
                return bad(format!("edge {k}: blocks {} -> {}, PC {}", e.from, e.to, e.pc));
            }
            for &(d, s) in e.copies.iter() {
                regs(d, 1, "phi copy")?;
                regs(s, 1, "phi copy")?;
            }
            if e.via_temps {
                regs(self.temps, e.copies.len() as u64, "phi copy temporaries")?;
            }
        }
        for (k, b) in self.blocks.iter().enumerate() {
            if !pc_ok(b.first) || !(b.ipdom_pc == EXIT_PC || pc_ok(b.ipdom_pc)) {
                return bad(format!("block {k}: first PC {}, post-dominator PC {}", b.first, b.ipdom_pc));
            }
        }
        for &(s, _) in &self.consts {
            slot(s, "constant")?;
        }
        for ps in &self.params {
            slot(ps.slot, "parameter")?;
        }
        for sp in &self.specials {
            slot(sp.slot, "builtin")?;
        }
        if self.local_region as usize != self.params.len() + 1 || self.first_private_region < self.local_region + 1 {
            return bad(format!("regions: local {}, first private {}", self.local_region, self.first_private_region));
        }
        for g in &self.globals {
            if g.region <= self.local_region || g.region >= self.first_private_region {
                return bad(format!("global @{} in region {}", g.name, g.region));
            }
        }
        for &r in &self.local_var_regions {
            if r != 0 && (r <= self.local_region || r >= self.first_private_region) {
                return bad(format!("local variable in region {r}"));
            }
        }
        for i in &self.insts {
            if let Inst::Alloca { obj, .. } = *i {
                if obj as usize >= self.allocas.len() {
                    return bad(format!("private array {obj} of {}", self.allocas.len()));
                }
            }
        }
        Ok(())
    }

    pub fn kernel(&self) -> &str {
        &self.kernel
    }

    pub fn policy(&self) -> Policy {
        self.policy
    }

    pub fn width(&self) -> u32 {
        self.width
    }

    pub fn insts(&self) -> &[Inst] {
        &self.insts
    }

    pub fn inst_text(&self) -> &[u32] {
        &self.inst_text
    }

    pub fn texts(&self) -> &[String] {
        &self.texts
    }

    /// Where text `t` came from: `file:line` when the module has debug
    /// info, else the IR instruction and its block.
    pub fn text_place(&self, t: u32, block: u32) -> String {
        match self.text_locs.get(t as usize) {
            Some(Some(loc)) => loc.clone(),
            _ => {
                let text = self.texts.get(t as usize).map_or("?", String::as_str).trim();
                let block = self.blocks.get(block as usize).map_or("?", |b| b.name.as_str());
                format!("'{text}' in block {block}")
            }
        }
    }

    /// The kernel's local variables: name, offset in local memory, size.
    pub fn local_vars(&self) -> &[(String, u64, u64)] {
        &self.local_vars
    }

    /// Per local variable, its own region (0: none; see `objects`).
    pub fn local_var_regions(&self) -> &[u32] {
        &self.local_var_regions
    }

    /// The private arrays, by `Inst::Alloca`'s `obj`.
    pub fn allocas(&self) -> &[AllocaInfo] {
        &self.allocas
    }

    /// The source location (`file:line`) of instruction `pc`, when the
    /// module has debug info.
    pub fn loc_of(&self, pc: u32) -> Option<&str> {
        let t = *self.inst_text.get(pc as usize)?;
        self.text_locs.get(t as usize)?.as_deref()
    }

    pub fn inst_block(&self) -> &[u32] {
        &self.inst_block
    }

    pub fn blocks(&self) -> &[BlockInfo] {
        &self.blocks
    }

    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    pub fn nslots(&self) -> u32 {
        self.nslots
    }

    pub fn temps(&self) -> R {
        self.temps
    }

    pub fn consts(&self) -> &[(u32, u64)] {
        &self.consts
    }

    pub fn params(&self) -> &[ParamSlot] {
        &self.params
    }

    pub fn specials(&self) -> &[Special] {
        &self.specials
    }

    pub fn private_bytes(&self) -> u64 {
        self.private_bytes
    }

    pub fn static_local_bytes(&self) -> u64 {
        self.static_local_bytes
    }

    pub fn globals(&self) -> &[GlobalData] {
        &self.globals
    }

    pub fn barrier_names(&self) -> &[String] {
        &self.barrier_names
    }

    pub fn explicit_markers(&self) -> usize {
        self.explicit_markers
    }

    pub fn local_region(&self) -> u32 {
        self.local_region
    }

    pub fn first_private_region(&self) -> u32 {
        self.first_private_region
    }

    pub fn checks(&self) -> &[[String; 3]] {
        &self.checks
    }

    pub fn text_of(&self, pc: u32) -> &str {
        self.inst_text.get(pc as usize).and_then(|&t| self.texts.get(t as usize)).map_or("?", String::as_str)
    }
}

/// The address of byte `off` of region `r`.
pub fn addr(r: u32, off: u64) -> u64 {
    ((r as u64) << ADDR_BITS) | off
}

/// The region a parameter's buffer gets.
pub fn param_region(index: usize) -> u32 {
    index as u32 + 1
}
