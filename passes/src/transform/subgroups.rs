//! `simt-subgroups`: OpenCL's sub-group functions (cl_khr_subgroups,
//! cl_khr_subgroup_shuffle and _shuffle_relative) as CUDA warp functions,
//! so that they run wherever those do: on the emulator at `--warp-width 32`
//! and on the host through `simt-warp-exchange` (COX).
//!
//! Why: a sub-group is what OpenCL calls a warp. Sub-groups here are the
//! work-group's work-items in runs of 32 by linear local id, the last one
//! partial, as CUDA's warps are; so `get_sub_group_local_id` is `%laneid`,
//! `sub_group_broadcast` a `shfl.sync.idx`, and the rest are built from
//! shuffles and votes. The pass links in a definition for each mangled
//! built-in (`_Z20sub_group_reduce_addi` …), generated below as IR text, and
//! makes them internal; `simt-flatten-calls` then inlines them (they read
//! work-item registers). Run it before `simt-flatten-calls`.
//!
//! Reductions and scans read only lower lanes (a Kogge-Stone scan with
//! `shfl.up`, the reduction being the last lane's inclusive scan, broadcast),
//! so they are right in a partial sub-group too; their order (and so a float
//! result's rounding) is that scan's.
//!
//! Types: `int`, `uint`, `float`, `long`, `ulong` and `double` (64-bit
//! values move as two 32-bit shuffles, as CUDA's `__shfl_sync` moves a
//! `long long`). Limits: no `half` or vector types; no sub-group functions on the GPU path (`simt-to-nvptx`), no
//! `sub_group_reserve_*` pipes, no non-uniform (`cl_khr_subgroup_ballot`,
//! `_non_uniform_*`) functions. The warp-level limits of the host engine
//! (`warp_exchange.rs`) hold: all work-items of a sub-group must call each
//! function together.

use crate::ir::function_name;
use crate::pass::{DeclaredPass, ModulePass, PassContext, PassError, Preserved};
use inkwell::module::Linkage;
use std::fmt::Write;

const NAME: &str = "simt-subgroups";

#[derive(Default)]
pub struct Subgroups;

impl DeclaredPass for Subgroups {
    const NAME: &'static str = NAME;
    const SUMMARY: &'static str = "OpenCL sub-group functions become CUDA warp functions (shuffles, votes), sub-groups of 32 work-items";
}

impl ModulePass for Subgroups {
    fn name(&self) -> String {
        NAME.into()
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        let m = cx.module_mut();
        let library = library();
        let wanted: Vec<String> = m
            .get_functions()
            .filter(|f| f.count_basic_blocks() == 0)
            .map(function_name)
            .filter(|n| library.contains(&format!("@{n}(")))
            .collect();
        if wanted.is_empty() {
            return Ok(Preserved::all());
        }
        let err = |message: String| PassError::Unsupported { pass: NAME.into(), message };
        let lib = crate::ir::link::parse_in(m, "subgroups.ll", library.as_bytes()).map_err(err)?;
        lib.set_target_of(m);
        crate::ir::link::link_into(m, lib).map_err(err)?;
        for f in m.get_functions().filter(|f| f.count_basic_blocks() > 0) {
            let n = function_name(f);
            if n.starts_with("simt.sg.") || (n.starts_with("_Z") && n.contains("sub_group")) {
                f.set_linkage(Linkage::Internal);
            }
        }
        Ok(Preserved::none())
    }
}

/// The element types: mangling, IR type, and the ops' IR for it.
struct Elem {
    mangled: &'static str,
    ty: &'static str,
    min: &'static str,
    max: &'static str,
    /// Identities of add, min, max.
    ids: [&'static str; 3],
}

impl Elem {
    fn wide(&self) -> bool {
        self.ty == "i64" || self.ty == "double"
    }

    fn float(&self) -> bool {
        self.ty == "float" || self.ty == "double"
    }

    /// The intrinsics' type suffix.
    fn suffix(&self) -> &'static str {
        match self.ty {
            "float" => "f32",
            "double" => "f64",
            other => other,
        }
    }

    /// The integer type of the same width, which the shuffles move.
    fn bits(&self) -> &'static str {
        if self.wide() {
            "i64"
        } else {
            "i32"
        }
    }
}

const ELEMS: [Elem; 6] = [
    Elem { mangled: "i", ty: "i32", min: "smin", max: "smax", ids: ["0", "2147483647", "-2147483648"] },
    Elem { mangled: "j", ty: "i32", min: "umin", max: "umax", ids: ["0", "-1", "0"] },
    Elem { mangled: "f", ty: "float", min: "minnum", max: "maxnum", ids: ["0.0", "0x7FF0000000000000", "0xFFF0000000000000"] },
    Elem { mangled: "l", ty: "i64", min: "smin", max: "smax", ids: ["0", "9223372036854775807", "-9223372036854775808"] },
    Elem { mangled: "m", ty: "i64", min: "umin", max: "umax", ids: ["0", "-1", "0"] },
    Elem { mangled: "d", ty: "double", min: "minnum", max: "maxnum", ids: ["0.0", "0x7FF0000000000000", "0xFFF0000000000000"] },
];

fn mangled(base: &str, e: &Elem, rest: &str) -> String {
    format!("_Z{}{base}{}{rest}", base.len(), e.mangled)
}

/// `%out = op %a, %b` for the element type.
fn combine(e: &Elem, op: &str, out: &str, a: &str, b: &str) -> String {
    let ty = e.ty;
    match op {
        "add" if e.float() => format!("  {out} = fadd {ty} {a}, {b}\n"),
        "add" => format!("  {out} = add {ty} {a}, {b}\n"),
        _ => {
            let f = if op == "min" { e.min } else { e.max };
            format!("  {out} = call {ty} @llvm.{f}.{}({ty} {a}, {ty} {b})\n", e.suffix())
        }
    }
}

/// `%out = shfl.sync.KIND(v, lane, clamp)` for the element type: one 32-bit
/// shuffle, or two (the low and high words) for a 64-bit type, as CUDA's
/// `__shfl_sync` moves a `long long` or `double`. `out`'s name prefixes
/// the temporaries.
fn shuffle(e: &Elem, kind: &str, v: &str, lane: &str, clamp: &str, out: &str) -> String {
    let (ty, bits) = (e.ty, e.bits());
    let mut s = String::new();
    let w = if e.float() {
        s += &format!("  {out}.w = bitcast {ty} {v} to {bits}\n");
        format!("{out}.w")
    } else {
        v.to_string()
    };
    let call = |x: &str, r: &str| format!("  {r} = call i32 @llvm.nvvm.shfl.sync.{kind}.i32(i32 -1, i32 {x}, i32 {lane}, i32 {clamp})\n");
    let r = if e.wide() {
        s += &format!("  {out}.lo = trunc i64 {w} to i32\n  {out}.h = lshr i64 {w}, 32\n  {out}.hi = trunc i64 {out}.h to i32\n");
        s += &call(&format!("{out}.lo"), &format!("{out}.rlo"));
        s += &call(&format!("{out}.hi"), &format!("{out}.rhi"));
        s += &format!(
            "  {out}.zlo = zext i32 {out}.rlo to i64\n  {out}.zhi = zext i32 {out}.rhi to i64\n  {out}.up = shl i64 {out}.zhi, 32\n  {out}.r = or i64 {out}.zlo, {out}.up\n"
        );
        format!("{out}.r")
    } else {
        s += &call(&w, &format!("{out}.r"));
        format!("{out}.r")
    };
    if e.float() {
        s += &format!("  {out} = bitcast {bits} {r} to {ty}\n");
    } else {
        s += &format!("  {out} = add {ty} {r}, 0\n");
    }
    s
}

/// The library as IR text: the work-item functions, and for each type the
/// shuffles, broadcast, reductions and scans.
fn library() -> String {
    let mut s = String::from(
        r#"declare i32 @llvm.nvvm.read.ptx.sreg.laneid()
declare i32 @llvm.nvvm.read.ptx.sreg.warpid()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.z()
declare i32 @llvm.nvvm.shfl.sync.idx.i32(i32, i32, i32, i32)
declare i32 @llvm.nvvm.shfl.sync.up.i32(i32, i32, i32, i32)
declare i32 @llvm.nvvm.shfl.sync.down.i32(i32, i32, i32, i32)
declare i32 @llvm.nvvm.shfl.sync.bfly.i32(i32, i32, i32, i32)
declare i1 @llvm.nvvm.vote.any.sync(i32, i1)
declare i1 @llvm.nvvm.vote.all.sync(i32, i1)
declare void @llvm.nvvm.bar.warp.sync(i32)
declare i32 @llvm.smin.i32(i32, i32)
declare i32 @llvm.smax.i32(i32, i32)
declare i32 @llvm.umin.i32(i32, i32)
declare i32 @llvm.umax.i32(i32, i32)
declare float @llvm.minnum.f32(float, float)
declare float @llvm.maxnum.f32(float, float)
declare i64 @llvm.smin.i64(i64, i64)
declare i64 @llvm.smax.i64(i64, i64)
declare i64 @llvm.umin.i64(i64, i64)
declare i64 @llvm.umax.i64(i64, i64)
declare double @llvm.minnum.f64(double, double)
declare double @llvm.maxnum.f64(double, double)

define i32 @simt.sg.items() {
  %x = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %y = call i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
  %z = call i32 @llvm.nvvm.read.ptx.sreg.ntid.z()
  %xy = mul i32 %x, %y
  %n = mul i32 %xy, %z
  ret i32 %n
}
define spir_func i32 @_Z22get_sub_group_local_idv() {
  %l = call i32 @llvm.nvvm.read.ptx.sreg.laneid()
  ret i32 %l
}
define spir_func i32 @_Z16get_sub_group_idv() {
  %w = call i32 @llvm.nvvm.read.ptx.sreg.warpid()
  ret i32 %w
}
define spir_func i32 @_Z22get_max_sub_group_sizev() {
  ret i32 32
}
define spir_func i32 @_Z18get_num_sub_groupsv() {
  %n = call i32 @simt.sg.items()
  %r = add i32 %n, 31
  %g = lshr i32 %r, 5
  ret i32 %g
}
define spir_func i32 @_Z27get_enqueued_num_sub_groupsv() {
  %g = call spir_func i32 @_Z18get_num_sub_groupsv()
  ret i32 %g
}
define spir_func i32 @_Z18get_sub_group_sizev() {
  %n = call i32 @simt.sg.items()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.warpid()
  %base = shl i32 %w, 5
  %left = sub i32 %n, %base
  %s = call i32 @llvm.umin.i32(i32 %left, i32 32)
  ret i32 %s
}
define spir_func i32 @_Z13sub_group_anyi(i32 %p) {
  %b = icmp ne i32 %p, 0
  %r = call i1 @llvm.nvvm.vote.any.sync(i32 -1, i1 %b)
  %z = zext i1 %r to i32
  ret i32 %z
}
define spir_func i32 @_Z13sub_group_alli(i32 %p) {
  %b = icmp ne i32 %p, 0
  %r = call i1 @llvm.nvvm.vote.all.sync(i32 -1, i1 %b)
  %z = zext i1 %r to i32
  ret i32 %z
}
define spir_func void @_Z17sub_group_barrierj(i32 %flags) {
  call void @llvm.nvvm.bar.warp.sync(i32 -1)
  ret void
}
define spir_func void @_Z17sub_group_barrierj12memory_scope(i32 %flags, i32 %scope) {
  call void @llvm.nvvm.bar.warp.sync(i32 -1)
  ret void
}
"#,
    );
    for e in &ELEMS {
        let ty = e.ty;
        // Shuffles: (name, nvvm kind, clamp operand).
        for (base, kind, c) in [
            ("sub_group_broadcast", "idx", "31"),
            ("sub_group_shuffle", "idx", "31"),
            ("sub_group_shuffle_xor", "bfly", "31"),
            ("sub_group_shuffle_up", "up", "0"),
            ("sub_group_shuffle_down", "down", "31"),
        ] {
            let _ = write!(
                s,
                "define spir_func {ty} @{}({ty} %x, i32 %k) {{\n{}  ret {ty} %v\n}}\n",
                mangled(base, e, "j"),
                shuffle(e, kind, "%x", "%k", c, "%v"),
            );
        }
        for (k, op) in ["add", "min", "max"].iter().enumerate() {
            let id = e.ids[k];
            // Inclusive scan: five shfl.up steps, each taken by lanes >= d.
            let mut body = format!(
                "define {ty} @simt.sg.scan.{op}.{m}({ty} %x) {{\n  %lane = call i32 @llvm.nvvm.read.ptx.sreg.laneid()\n",
                m = e.mangled
            );
            let mut cur = "%x".to_string();
            for (step, d) in [1, 2, 4, 8, 16].iter().enumerate() {
                body += &shuffle(e, "up", &cur, &d.to_string(), "0", &format!("%t{step}"));
                body += &combine(e, op, &format!("%c{step}"), &cur, &format!("%t{step}"));
                body += &format!("  %in{step} = icmp uge i32 %lane, {d}\n");
                body += &format!("  %v{step} = select i1 %in{step}, {ty} %c{step}, {ty} {cur}\n");
                cur = format!("%v{step}");
            }
            body += &format!("  ret {ty} {cur}\n}}\n");
            s += &body;
            let _ = write!(
                s,
                "define spir_func {ty} @{inc}({ty} %x) {{\n  %v = call {ty} @simt.sg.scan.{op}.{m}({ty} %x)\n  ret {ty} %v\n}}\n",
                inc = mangled(&format!("sub_group_scan_inclusive_{op}"), e, ""),
                m = e.mangled
            );
            // Exclusive: the inclusive scan of the lane below, the identity in lane 0.
            let _ = write!(
                s,
                "define spir_func {ty} @{exc}({ty} %x) {{\n  %lane = call i32 @llvm.nvvm.read.ptx.sreg.laneid()\n  %v = call {ty} @simt.sg.scan.{op}.{m}({ty} %x)\n{}  %first = icmp eq i32 %lane, 0\n  %r = select i1 %first, {ty} {id}, {ty} %t\n  ret {ty} %r\n}}\n",
                shuffle(e, "up", "%v", "1", "0", "%t"),
                exc = mangled(&format!("sub_group_scan_exclusive_{op}"), e, ""),
                m = e.mangled
            );
            // Reduce: the last lane's inclusive scan, to every lane.
            let _ = write!(
                s,
                "define spir_func {ty} @{red}({ty} %x) {{\n  %v = call {ty} @simt.sg.scan.{op}.{m}({ty} %x)\n  %n = call spir_func i32 @_Z18get_sub_group_sizev()\n  %last = sub i32 %n, 1\n{}  ret {ty} %t\n}}\n",
                shuffle(e, "idx", "%v", "%last", "31", "%t"),
                red = mangled(&format!("sub_group_reduce_{op}"), e, ""),
                m = e.mangled
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_library_names_clangs_mangling() {
        let lib = super::library();
        for name in [
            "_Z20sub_group_reduce_addi",
            "_Z28sub_group_scan_inclusive_addi",
            "_Z19sub_group_broadcastij",
            "_Z20sub_group_reduce_maxf",
            "_Z20sub_group_reduce_addl",
            "_Z19sub_group_broadcastdj",
            "_Z28sub_group_scan_exclusive_minm",
        ] {
            assert!(lib.contains(&format!("@{name}(")), "{name}");
        }
    }
}
