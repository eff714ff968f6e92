//! Kernel IR → the emulator's [`Program`]: register slots for every SSA
//! value's scalar leaves, vector and aggregate instructions scalarised, phis
//! turned into the copies of each CFG edge, instructions laid out block by
//! block in layout order (the representation is described in `super`).
//! Errors name what the emulator does not support.

use super::*;
use crate::launch::Policy;
use inkwell::basic_block::BasicBlock;
use inkwell::module::Module;
use inkwell::targets::TargetData;
use inkwell::values::FunctionValue;
use simt_passes::analysis::cache::FunctionAnalyses;
use simt_passes::ir::{global_variables, instructions, named_metadata, parameters, Inst as IrInst, MdOperand, SlotNames, Ty, Value};
use simt_passes::ir::{LLVMAtomicRMWBinOp, LLVMIntPredicate, LLVMOpcode, LLVMTypeKind};
use simt_passes::kernel_model::{builtin_of, Builtin, LOCAL_ADDRESS_SPACE};
use std::collections::{HashMap, HashSet};

/// The name of the convergence-marker function inserted by `simt-converge`.
pub const CONVERGE_MARKER: &str = "simt.converge";

/// `!simt.uniformity.checks` (see `simt-check-uniformity`): per id, the
/// kernel, the value and the use, as IR text.
fn check_table(module: &Module<'_>) -> Vec<[String; 3]> {
    use simt_passes::transform::check_uniformity::CHECK_TABLE;
    named_metadata(module, CHECK_TABLE)
        .into_iter()
        .map(|ops| {
            let text = |k: usize| match ops.get(k) {
                Some(MdOperand::String(s)) => s.clone(),
                _ => String::from("?"),
            };
            [text(0), text(1), text(2)]
        })
        .collect()
}

pub type DResult<T> = Result<T, String>;

/// A variable GEP index: (register, scale in bytes, index bits).
type GepTerm = (R, i64, u8);

struct Dec<'ctx> {
    td: TargetData,
    w: u32,
    nslots: u32,
    vals: HashMap<Value<'ctx>, (u32, u32)>,
    consts: Vec<(u32, u64)>,
    const_slots: HashMap<Vec<u64>, (u32, u32)>,
    globals: HashMap<Value<'ctx>, u64>,
    insts: Vec<Inst>,
    inst_text: Vec<u32>,
    inst_block: Vec<u32>,
    texts: Vec<String>,
    text_locs: Vec<Option<String>>,
    cur_text: u32,
    cur_block: u32,
    edges: Vec<Edge>,
    edge_index: HashMap<(u32, u32), u32>,
    block_index: HashMap<BasicBlock<'ctx>, u32>,
    private_bytes: u64,
    allocas: Vec<AllocaInfo>,
    barrier_names: Vec<String>,
    specials: Vec<Special>,
    special_insts: HashSet<IrInst<'ctx>>,
    names: SlotNames,
    /// The phis of each block, for the copies of the edges into it.
    block_phis: Vec<Vec<IrInst<'ctx>>>,
    block_refs: Vec<BasicBlock<'ctx>>,
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn sext(x: u64, bits: u32) -> i64 {
    if bits >= 64 {
        x as i64
    } else {
        ((x << (64 - bits)) as i64) >> (64 - bits)
    }
}

/// What [`decode()`] works on.
pub struct DecodeInput<'m, 'ctx> {
    pub module: &'m Module<'ctx>,
    pub function: FunctionValue<'ctx>,
    /// The cached analyses of `function` as it is (the front end's cache):
    /// its CFG, post-dominators (`ipdom`) and convergence points (`markers`).
    pub analyses: &'m FunctionAnalyses<'ctx>,
    pub width: u32,
    pub policy: Policy,
}

/// Decodes `function` of `module`. Errors name what is unsupported.
pub fn decode(input: DecodeInput<'_, '_>) -> DResult<Program> {
    let DecodeInput { module, function, analyses, width, policy } = input;
    let kernel = simt_passes::ir::function_name(function);
    {
        let layout = module.get_data_layout();
        let td = TargetData::create(layout.as_str().to_str().map_err(|_| "the module's data layout is not UTF-8".to_string())?);
        let fcfg = &analyses.cfg;
        let names = SlotNames::new(function);
        let mut d = Dec {
            td,
            w: width,
            nslots: 0,
            vals: HashMap::new(),
            consts: Vec::new(),
            const_slots: HashMap::new(),
            globals: HashMap::new(),
            insts: Vec::new(),
            inst_text: Vec::new(),
            inst_block: Vec::new(),
            texts: Vec::new(),
            text_locs: Vec::new(),
            cur_text: 0,
            cur_block: 0,
            edges: Vec::new(),
            edge_index: HashMap::new(),
            block_index: HashMap::new(),
            private_bytes: 0,
            allocas: Vec::new(),
            barrier_names: Vec::new(),
            specials: Vec::new(),
            special_insts: HashSet::new(),
            names,
            block_phis: Vec::new(),
            block_refs: Vec::new(),
        };
        let kernel_params = parameters(function);
        let nparams = kernel_params.len() as u32;
        let local_region = 1 + nparams;

        // Module-scope variables: local ones get offsets in local memory,
        // the others a region each.
        let mut static_local: u64 = 0;
        let mut local_vars = Vec::new();
        let mut globals = Vec::new();
        let mut next_region = local_region + 1;
        // Local variables given a region of their own (`objects`), after the globals.
        let mut own_regions = Vec::new();
        for g in global_variables(module) {
            let vty = g.global_value_type();
            let name = g.name();
            let aspace = g.ty().address_space().expect("a global is a pointer");
            if !vty.is_sized() {
                return Err(format!("global @{name} has the unsized type {}", vty.print()));
            }
            let size = vty.alloc_size(&d.td);
            let align = (g.alignment() as u64).max(vty.abi_align(&d.td)).max(1);
            if aspace == LOCAL_ADDRESS_SPACE && name == simt_passes::transform::to_nvptx::DYNAMIC_SHARED_GLOBAL {
                // simt-to-nvptx's dynamic shared memory: `__local` arguments
                // are i32 offsets from it, and the launch passes each one's
                // offset in local memory (LocalLayout, after the static
                // variables), so it starts at local offset 0.
                d.globals.insert(g, addr(local_region, 0));
            } else if aspace == LOCAL_ADDRESS_SPACE {
                static_local = static_local.div_ceil(align) * align;
                d.globals.insert(g, addr(local_region, static_local));
                if size > 0 {
                    own_regions.push((g, local_vars.len()));
                }
                local_vars.push((name.clone(), static_local, size));
                static_local += size;
            } else {
                let mut bytes = vec![0u8; size as usize];
                if let Some(init) = g.initializer().filter(|init| !init.is_null_value() && !init.is_undef_or_poison()) {
                    d.const_bytes(init, vty, &mut bytes, 0).map_err(|e| format!("initializer of @{name}: {e}"))?;
                }
                d.globals.insert(g, addr(next_region, 0));
                globals.push(GlobalData { name, region: next_region, bytes });
                next_region += 1;
            }
        }
        let mut local_var_regions = vec![0u32; local_vars.len()];
        for (g, k) in own_regions {
            local_var_regions[k] = next_region;
            d.globals.insert(g, addr(next_region, 0));
            next_region += 1;
        }
        let first_private_region = next_region;

        // Parameters.
        let mut params = Vec::new();
        for (i, &p) in kernel_params.iter().enumerate() {
            let leaves = d.leaves(p.ty())?;
            if leaves.len() != 1 {
                return Err(format!("parameter {i} has type {}, which the emulator cannot pass", p.ty().print()));
            }
            let slot = d.alloc(1);
            d.vals.insert(p, (slot, 1));
            params.push(ParamSlot { slot, sk: leaves[0].sk });
        }

        // Blocks and result slots.
        let blocks = fcfg.blocks().to_vec();
        for (i, b) in blocks.iter().enumerate() {
            d.block_index.insert(*b, i as u32);
            d.block_refs.push(*b);
        }
        let mut explicit_markers = 0usize;
        for b in &blocks {
            let mut phis = Vec::new();
            for i in instructions(*b) {
                if i.is_phi() {
                    phis.push(i);
                }
                if i.opcode() == LLVMOpcode::LLVMCall && i.called_function_name().as_deref() == Some(CONVERGE_MARKER) {
                    explicit_markers += 1;
                }
                let ty = i.ty();
                if !matches!(
                    ty.kind(),
                    LLVMTypeKind::LLVMVoidTypeKind | LLVMTypeKind::LLVMTokenTypeKind | LLVMTypeKind::LLVMMetadataTypeKind
                ) {
                    if let Some(special) = d.special_of(i)? {
                        let slot = d.alloc(1);
                        d.vals.insert(i.value(), (slot, 1));
                        // `special_of` checked the integer type.
                        d.specials.push(Special { slot, what: special, bits: ty.int_width() as u8 });
                        d.special_insts.insert(i);
                    } else if let Ok(n) = d.nleaves(ty) {
                        let slot = d.alloc(n);
                        d.vals.insert(i.value(), (slot, n));
                    }
                    // Types the emulator cannot hold are reported when the
                    // instruction is decoded.
                }
            }
            d.block_phis.push(phis);
        }

        // Check points of the markers policy without markers in the IR: the
        // convergence analysis's joins, loop exiting blocks and exit targets
        // (`Convergence::check_points`).
        let cfg = &fcfg.cfg;
        let mut check = vec![false; blocks.len()];
        if policy == Policy::Markers && explicit_markers == 0 {
            for b in analyses.convergence().check_points() {
                check[b.index()] = true;
            }
        }

        // Instructions.
        let mut first = Vec::with_capacity(blocks.len());
        for (bi, b) in blocks.iter().enumerate() {
            d.cur_block = bi as u32;
            first.push(d.insts.len() as u32);
            if check[bi] {
                d.cur_text = d.text(format!("convergence check at the start of block {}", d.block_name(bi as u32)));
                d.emit(Inst::Converge);
            }
            for i in instructions(*b) {
                if !i.is_phi() {
                    d.cur_text = d.text(i.value().print());
                    // A warp function is CUDA's header wrapper around the
                    // intrinsic: `--check warp` names the call in the kernel's file.
                    let loc = if i.called_function_name().as_deref().and_then(warp_op).is_some() {
                        simt_passes::ir::metadata::debug_location_in_own_file(i, function)
                    } else {
                        simt_passes::ir::metadata::debug_location(i)
                    };
                    d.text_locs[d.cur_text as usize] = loc.map(|(file, line, _)| format!("{file}:{line}"));
                    d.inst(i, policy).map_err(|e| format!("{e} in '{}'", i.value().print()))?;
                }
            }
        }

        // Edge targets, reconvergence points.
        for e in &mut d.edges {
            e.pc = first[e.to as usize];
        }
        let pdt = analyses.postdom();
        let block_infos: Vec<BlockInfo> = cfg
            .blocks()
            .map(|b| BlockInfo {
                name: d.block_name(b.0),
                first: first[b.index()],
                ipdom_pc: pdt.ipdom(b).map_or(EXIT_PC, |p| first[p.index()]),
                check: check[b.index()],
            })
            .collect();

        // Temporaries for parallel copies.
        let max_copies = d.edges.iter().filter(|e| e.via_temps).map(|e| e.copies.len() as u32).max().unwrap_or(0);
        let temps = d.alloc(max_copies) * width;
        if (d.nslots as u64) * (width as u64) >= u32::MAX as u64 {
            return Err(format!("the kernel needs {} registers per lane, too many for the emulator", d.nslots));
        }

        let program = Program {
            kernel: kernel.clone(),
            policy,
            width,
            insts: d.insts,
            inst_text: d.inst_text,
            texts: d.texts,
            text_locs: d.text_locs,
            inst_block: d.inst_block,
            blocks: block_infos,
            edges: d.edges,
            nslots: d.nslots,
            temps,
            consts: d.consts,
            params,
            specials: d.specials,
            private_bytes: d.private_bytes,
            static_local_bytes: static_local,
            local_vars,
            local_var_regions,
            allocas: d.allocas,
            globals,
            barrier_names: d.barrier_names,
            explicit_markers,
            local_region,
            first_private_region,
            checks: check_table(module),
        };
        program.validate()?;
        Ok(program)
    }
}

impl<'ctx> Dec<'ctx> {
    fn alloc(&mut self, n: u32) -> u32 {
        let s = self.nslots;
        self.nslots += n;
        s
    }

    fn r(&self, slot: u32) -> R {
        slot * self.w
    }

    fn text(&mut self, t: String) -> u32 {
        self.texts.push(t);
        self.text_locs.push(None);
        (self.texts.len() - 1) as u32
    }

    fn block_name(&self, b: u32) -> String {
        self.names.of_block(self.block_refs[b as usize]).to_string()
    }

    fn emit(&mut self, i: Inst) {
        self.insts.push(i);
        self.inst_text.push(self.cur_text);
        self.inst_block.push(self.cur_block);
    }

    // ---------------------------------------------------------------- types

    fn leaves(&self, ty: Ty<'ctx>) -> DResult<Vec<Leaf>> {
        let mut out = Vec::new();
        self.leaves_into(ty, 0, &mut out)?;
        Ok(out)
    }

    /// The allocation size of `ty`, an error for unsized types.
    fn size_of(&self, ty: Ty<'ctx>) -> DResult<u64> {
        if !ty.is_sized() {
            return Err(format!("values of type {} are not supported", ty.print()));
        }
        Ok(ty.alloc_size(&self.td))
    }

    fn nleaves(&self, ty: Ty<'ctx>) -> DResult<u32> {
        Ok(match ty.kind() {
            LLVMTypeKind::LLVMStructTypeKind => {
                let mut n = 0;
                for f in ty.struct_fields() {
                    n += self.nleaves(f)?;
                }
                n
            }
            LLVMTypeKind::LLVMArrayTypeKind => {
                let len = ty.array_len();
                let n = self.nleaves(ty.element_type())? as u64 * len;
                if n > 1 << 16 {
                    return Err(format!("a value of type {} is too large to hold in registers", ty.print()));
                }
                n as u32
            }
            LLVMTypeKind::LLVMVectorTypeKind => ty.vector_len() * self.nleaves(ty.element_type())?,
            _ => {
                self.scalar(ty)?;
                1
            }
        })
    }

    fn scalar(&self, ty: Ty<'ctx>) -> DResult<Sk> {
        match ty.kind() {
            LLVMTypeKind::LLVMIntegerTypeKind => {
                let w = ty.int_width();
                if w > 64 {
                    return Err(format!("integers wider than 64 bits ({}) are not supported", ty.print()));
                }
                Ok(Sk::I(w as u8))
            }
            LLVMTypeKind::LLVMFloatTypeKind => Ok(Sk::F32),
            LLVMTypeKind::LLVMDoubleTypeKind => Ok(Sk::F64),
            LLVMTypeKind::LLVMPointerTypeKind => {
                let a = ty.address_space().expect("a pointer type");
                let size = ty.pointer_size(&self.td);
                // 32-bit shared pointers (NVPTX's `p3:32`, as simt-to-nvptx
                // makes them) hold the same tagged address in a register:
                // local memory is one region, so its offsets fit 32 bits and
                // `ptrtoint … to i32` gives the shared address. Storing one
                // to memory is refused in `mem_leaves`.
                if size != 8 && !(size == 4 && a == LOCAL_ADDRESS_SPACE) {
                    return Err(format!("{size}-byte pointers ({}) are not supported (the emulator's addresses are 64-bit)", ty.print()));
                }
                Ok(Sk::P)
            }
            _ => Err(format!("values of type {} are not supported", ty.print())),
        }
    }

    fn leaves_into(&self, ty: Ty<'ctx>, base: u64, out: &mut Vec<Leaf>) -> DResult<()> {
        match ty.kind() {
            LLVMTypeKind::LLVMStructTypeKind => {
                let fields = ty.struct_fields();
                if !fields.is_empty() && !ty.is_sized() {
                    return Err(format!("values of type {} are not supported", ty.print()));
                }
                for (i, f) in fields.into_iter().enumerate() {
                    let off = ty.field_offset(&self.td, i as u32);
                    self.leaves_into(f, base + off, out)?;
                }
            }
            LLVMTypeKind::LLVMArrayTypeKind => {
                let e = ty.element_type();
                let stride = self.size_of(e)?;
                let len = ty.array_len();
                if len.saturating_mul(self.nleaves(e)? as u64) > 1 << 24 {
                    return Err(format!("type {} is too large", ty.print()));
                }
                for k in 0..len {
                    self.leaves_into(e, base + k * stride, out)?;
                }
            }
            LLVMTypeKind::LLVMVectorTypeKind => {
                let e = ty.element_type();
                let sk = self.scalar(e)?;
                let bits = sk.bits() as u64;
                for k in 0..ty.vector_len() as u64 {
                    // Elements are packed; sub-byte ones cannot be addressed
                    // (memory access checks `off` via MemTy).
                    out.push(Leaf { off: base + k * bits / 8, sk });
                }
            }
            _ => out.push(Leaf { off: base, sk: self.scalar(ty)? }),
        }
        Ok(())
    }

    fn memty(sk: Sk) -> DResult<MemTy> {
        Ok(match sk {
            Sk::I(b) => {
                if b == 0 {
                    return Err("zero-width integers are not supported".into());
                }
                MemTy { size: b.div_ceil(8), bits: b }
            }
            Sk::F32 => MemTy { size: 4, bits: 32 },
            Sk::F64 | Sk::P => MemTy { size: 8, bits: 64 },
        })
    }

    fn mem_leaves(&self, ty: Ty<'ctx>) -> DResult<Vec<(Leaf, MemTy)>> {
        let scalar = if ty.is_vector() { ty.element_type() } else { ty };
        if scalar.is_pointer() && scalar.pointer_size(&self.td) != 8 {
            return Err(format!("loads and stores of 32-bit pointers ({}) are not supported", ty.print()));
        }
        if ty.is_vector() {
            let e = ty.element_type();
            if e.is_integer() && !e.int_width().is_multiple_of(8) {
                return Err(format!("memory access to {} (elements smaller than a byte) is not supported", ty.print()));
            }
        }
        self.leaves(ty)?.into_iter().map(|l| Ok((l, Self::memty(l.sk)?))).collect()
    }

    // ---------------------------------------------------------------- values

    /// The slots of value `v` (an argument, instruction or constant).
    fn val(&mut self, v: Value<'ctx>) -> DResult<(R, u32)> {
        if let Some(&(s, n)) = self.vals.get(&v) {
            return Ok((self.r(s), n));
        }
        if !v.is_constant() {
            if v.as_inst().is_some() {
                return Err(format!("operand '{}' has a type the emulator cannot hold", v.print()));
            }
            return Err(format!("unsupported operand '{}'", v.print()));
        }
        let vals = self.const_leaves(v)?;
        let n = vals.len() as u32;
        if let Some(&(s, n)) = self.const_slots.get(&vals) {
            return Ok((self.r(s), n));
        }
        let s = self.alloc(n);
        for (k, x) in vals.iter().enumerate() {
            self.consts.push((s + k as u32, *x));
        }
        self.const_slots.insert(vals, (s, n));
        Ok((self.r(s), n))
    }

    /// A scalar operand's slot.
    fn val1(&mut self, v: Value<'ctx>) -> DResult<R> {
        let (r, n) = self.val(v)?;
        if n != 1 {
            return Err(format!("expected a scalar operand, got '{}'", v.print()));
        }
        Ok(r)
    }

    fn const_slot(&mut self, x: u64) -> R {
        let key = vec![x];
        if let Some(&(s, _)) = self.const_slots.get(&key) {
            return self.r(s);
        }
        let s = self.alloc(1);
        self.consts.push((s, x));
        self.const_slots.insert(key, (s, 1));
        self.r(s)
    }

    /// The leaf values of constant `c`.
    fn const_leaves(&self, c: Value<'ctx>) -> DResult<Vec<u64>> {
        let ty = c.ty();
        let n = self.nleaves(ty)? as usize;
        if c.is_undef_or_poison() || c.is_constant_aggregate_zero() || c.is_constant_pointer_null() {
            return Ok(vec![0; n]);
        }
        if c.is_constant_int() {
            if !ty.is_integer() {
                return Err(format!("constants of type {} are not supported", ty.print()));
            }
            let bits = ty.int_width();
            let Some(x) = c.const_u64().filter(|_| bits <= 64) else {
                return Err("integer constants wider than 64 bits are not supported".into());
            };
            return Ok(vec![x & mask(bits)]);
        }
        if let Some(x) = c.const_f64() {
            return match ty.kind() {
                LLVMTypeKind::LLVMFloatTypeKind => Ok(vec![(x as f32).to_bits() as u64]),
                LLVMTypeKind::LLVMDoubleTypeKind => Ok(vec![x.to_bits()]),
                _ => Err(format!("constants of type {} are not supported", ty.print())),
            };
        }
        if c.is_global() {
            return match self.globals.get(&c) {
                Some(&a) => Ok(vec![a]),
                None if c.is_function() => Err(format!("function pointers (@{}) are not supported", c.name())),
                None => Err(format!("global @{} is not supported", c.name())),
            };
        }
        if c.is_constant_data_sequential() {
            let count = match ty.kind() {
                LLVMTypeKind::LLVMVectorTypeKind => ty.vector_len() as u64,
                _ => ty.array_len(),
            };
            let mut out = Vec::with_capacity(n);
            for i in 0..count {
                let e = c.aggregate_element(i as u32).ok_or_else(|| format!("malformed constant '{}'", c.print()))?;
                out.extend(self.const_leaves(e)?);
            }
            return Ok(out);
        }
        if c.is_constant_aggregate() {
            let mut out = Vec::with_capacity(n);
            for i in 0..c.num_operands() {
                out.extend(self.const_leaves(c.operand(i))?);
            }
            return Ok(out);
        }
        if c.is_constant_expr() {
            let op = c.opcode().expect("a constant expression has an opcode");
            let a = |k: u32| -> DResult<u64> {
                if k >= c.num_operands() {
                    return Err(format!("malformed constant expression '{}'", c.print()));
                }
                let v = self.const_leaves(c.operand(k))?;
                v.first().copied().ok_or_else(|| "empty constant".to_string())
            };
            return match op {
                LLVMOpcode::LLVMAddrSpaceCast | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMIntToPtr if n == 1 => Ok(vec![a(0)?]),
                LLVMOpcode::LLVMPtrToInt | LLVMOpcode::LLVMTrunc if n == 1 => Ok(vec![a(0)? & mask(self.scalar(ty)?.bits())]),
                LLVMOpcode::LLVMGetElementPtr if n == 1 => {
                    let base = a(0)?;
                    let src = c.gep_source_element_type();
                    let idx: Vec<Value<'ctx>> = (1..c.num_operands()).map(|k| c.operand(k)).collect();
                    let mut off = 0i64;
                    let mut ty = src;
                    for (k, &i) in idx.iter().enumerate() {
                        let iv = self.const_leaves(i)?;
                        let Sk::I(bits) = self.scalar(i.ty())? else { return Err("malformed constant getelementptr".into()) };
                        let x = sext(iv[0], bits as u32);
                        if k == 0 {
                            off = off.wrapping_add(x.wrapping_mul(self.size_of(ty)? as i64));
                            continue;
                        }
                        match ty.kind() {
                            LLVMTypeKind::LLVMStructTypeKind => {
                                off = off.wrapping_add(ty.field_offset(&self.td, x as u32) as i64);
                                ty = ty.struct_field(x as u32);
                            }
                            LLVMTypeKind::LLVMArrayTypeKind | LLVMTypeKind::LLVMVectorTypeKind => {
                                ty = ty.element_type();
                                off = off.wrapping_add(x.wrapping_mul(self.size_of(ty)? as i64));
                            }
                            _ => return Err("malformed constant getelementptr".into()),
                        }
                    }
                    Ok(vec![base.wrapping_add(off as u64)])
                }
                LLVMOpcode::LLVMAdd | LLVMOpcode::LLVMSub | LLVMOpcode::LLVMMul | LLVMOpcode::LLVMXor if n == 1 => {
                    let (x, y) = (a(0)?, a(1)?);
                    let r = match op {
                        LLVMOpcode::LLVMAdd => x.wrapping_add(y),
                        LLVMOpcode::LLVMSub => x.wrapping_sub(y),
                        LLVMOpcode::LLVMMul => x.wrapping_mul(y),
                        _ => x ^ y,
                    };
                    Ok(vec![r & mask(self.scalar(ty)?.bits())])
                }
                _ => Err(format!("unsupported constant expression '{}'", c.print())),
            };
        }
        Err(format!("unsupported constant '{}'", c.print()))
    }

    /// Writes constant `c` of type `ty` into `out` at `base`.
    fn const_bytes(&self, c: Value<'ctx>, ty: Ty<'ctx>, out: &mut [u8], base: u64) -> DResult<()> {
        let leaves = self.mem_leaves(ty)?;
        let vals = self.const_leaves(c)?;
        for ((leaf, mt), v) in leaves.iter().zip(vals) {
            let at = (base + leaf.off) as usize;
            let bytes = v.to_le_bytes();
            out[at..at + mt.size as usize].copy_from_slice(&bytes[..mt.size as usize]);
        }
        Ok(())
    }

    // ---------------------------------------------------------------- builtins

    fn special_of(&self, i: IrInst<'ctx>) -> DResult<Option<SpecialKind>> {
        if i.opcode() != LLVMOpcode::LLVMCall {
            return Ok(None);
        }
        let name = i.called_function_name().unwrap_or_default();
        if name == "llvm.nvvm.read.ptx.sreg.warpsize" {
            return Ok(Some(SpecialKind::WarpSize));
        }
        if let Some(k) = name.strip_prefix("llvm.nvvm.read.ptx.sreg.lanemask.") {
            let k = ["eq", "le", "lt", "ge", "gt"].iter().position(|&n| n == k).ok_or_else(|| format!("unknown lane mask '{name}'"))?;
            return Ok(Some(SpecialKind::LaneMask(k as u8)));
        }
        match builtin_of(i) {
            Some(Builtin::Barrier) | None => Ok(None),
            Some(b) => {
                if !i.ty().is_integer() || i.ty().int_width() > 64 {
                    return Err(format!("work-item builtin '{name}' returns a non-integer"));
                }
                Ok(Some(SpecialKind::Builtin(b)))
            }
        }
    }

    // ---------------------------------------------------------------- edges

    fn edge(&mut self, from: u32, to_bb: BasicBlock<'ctx>) -> DResult<u32> {
        let to = *self.block_index.get(&to_bb).ok_or("branch to a block outside the function")?;
        if let Some(&e) = self.edge_index.get(&(from, to)) {
            return Ok(e);
        }
        let from_bb = self.block_refs[from as usize];
        let mut copies = Vec::new();
        let mut dsts = HashSet::new();
        let phis = self.block_phis[to as usize].clone();
        for phi in phis {
            let (d, n) = match self.vals.get(&phi.value()) {
                Some(&(s, n)) => (self.r(s), n),
                None => return Err(format!("phi '{}' has a type the emulator cannot hold", phi.value().print())),
            };
            let src = phi.incoming().into_iter().find(|&(_, b)| b == from_bb).map(|(v, _)| v);
            let src = src.ok_or_else(|| format!("phi '{}' has no value for a predecessor", phi.value().print()))?;
            let (s, sn) = self.val(src).map_err(|e| format!("{e} in '{}'", phi.value().print()))?;
            if sn != n {
                return Err(format!("phi '{}': operand has {sn} leaves, the phi {n}", phi.value().print()));
            }
            for k in 0..n {
                copies.push((d + k * self.w, s + k * self.w));
                dsts.insert(d + k * self.w);
            }
        }
        let via_temps = copies.iter().any(|(_, s)| dsts.contains(s));
        self.edges.push(Edge { from, to, pc: 0, copies: copies.into_boxed_slice(), via_temps });
        let id = (self.edges.len() - 1) as u32;
        self.edge_index.insert((from, to), id);
        Ok(id)
    }

    // ---------------------------------------------------------------- GEP

    /// `(constant offset, [(index slot, scale, index bits)])` of a GEP over
    /// `src` with `indices`.
    fn gep_terms(&mut self, src: Ty<'ctx>, indices: &[Value<'ctx>]) -> DResult<(i64, Vec<GepTerm>)> {
        let mut off = 0i64;
        let mut terms = Vec::new();
        let mut ty = src;
        for (k, &i) in indices.iter().enumerate() {
            let ity = i.ty();
            if !ity.is_integer() {
                return Err("vector getelementptr is not supported".into());
            }
            let bits = ity.int_width();
            if bits > 64 {
                return Err("getelementptr indices wider than 64 bits are not supported".into());
            }
            let scale: i64;
            if k == 0 {
                scale = self.size_of(ty)? as i64;
            } else {
                match ty.kind() {
                    LLVMTypeKind::LLVMStructTypeKind => {
                        let Some(f) = i.const_u64() else {
                            return Err("non-constant struct index".into());
                        };
                        off = off.wrapping_add(ty.field_offset(&self.td, f as u32) as i64);
                        ty = ty.struct_field(f as u32);
                        continue;
                    }
                    LLVMTypeKind::LLVMArrayTypeKind => {
                        ty = ty.element_type();
                        scale = self.size_of(ty)? as i64;
                    }
                    LLVMTypeKind::LLVMVectorTypeKind => {
                        ty = ty.element_type();
                        scale = (self.scalar(ty)?.bits() / 8) as i64;
                    }
                    _ => return Err(format!("getelementptr into {}", ty.print())),
                }
            }
            if let Some(x) = i.const_u64() {
                let x = sext(x, bits);
                off = off.wrapping_add(x.wrapping_mul(scale));
            } else if i.is_undef_or_poison() {
                // poison index: any value; 0
            } else if scale != 0 {
                let r = self.val1(i)?;
                terms.push((r, scale, bits as u8));
            }
        }
        Ok((off, terms))
    }

    // ---------------------------------------------------------------- instructions

    fn ops(&self, i: IrInst<'ctx>) -> Vec<Value<'ctx>> {
        i.operands().collect()
    }

    fn dst(&self, i: IrInst<'ctx>) -> DResult<(R, u32)> {
        match self.vals.get(&i.value()) {
            Some(&(s, n)) => Ok((self.r(s), n)),
            None => Err(self.nleaves(i.ty()).err().unwrap_or_else(|| format!("values of type {} are not supported", i.ty().print()))),
        }
    }

    /// Element leaf kinds of `ty` (a scalar: itself).
    fn elem_sks(&self, ty: Ty<'ctx>) -> DResult<Vec<Sk>> {
        Ok(self.leaves(ty)?.into_iter().map(|l| l.sk).collect())
    }

    fn inst(&mut self, i: IrInst<'ctx>, policy: Policy) -> DResult<()> {
        use LLVMOpcode::*;
        let op = i.opcode();
        let w = self.w;
        match op {
            LLVMAdd | LLVMSub | LLVMMul | LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem | LLVMShl | LLVMLShr | LLVMAShr | LLVMAnd | LLVMOr
            | LLVMXor => {
                let iop = match op {
                    LLVMAdd => IOp::Add,
                    LLVMSub => IOp::Sub,
                    LLVMMul => IOp::Mul,
                    LLVMUDiv => IOp::UDiv,
                    LLVMSDiv => IOp::SDiv,
                    LLVMURem => IOp::URem,
                    LLVMSRem => IOp::SRem,
                    LLVMShl => IOp::Shl,
                    LLVMLShr => IOp::LShr,
                    LLVMAShr => IOp::AShr,
                    LLVMAnd => IOp::And,
                    LLVMOr => IOp::Or,
                    _ => IOp::Xor,
                };
                self.ibin(i, iop)
            }
            LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFDiv | LLVMFRem => {
                let fop = match op {
                    LLVMFAdd => FOp::Add,
                    LLVMFSub => FOp::Sub,
                    LLVMFMul => FOp::Mul,
                    LLVMFDiv => FOp::Div,
                    _ => FOp::Rem,
                };
                self.fbin(i, fop, i.operand(0), i.operand(1))
            }
            LLVMFNeg => self.fun(i, FUOp::Neg, i.operand(0)),
            LLVMICmp => {
                let (a, n) = self.val(i.operand(0))?;
                let (b, _) = self.val(i.operand(1))?;
                let (d, _) = self.dst(i)?;
                let sks = self.elem_sks(i.operand(0).ty())?;
                use LLVMIntPredicate::*;
                let p = match i.icmp_predicate() {
                    LLVMIntEQ => IPred::Eq,
                    LLVMIntNE => IPred::Ne,
                    LLVMIntUGT => IPred::Ugt,
                    LLVMIntUGE => IPred::Uge,
                    LLVMIntULT => IPred::Ult,
                    LLVMIntULE => IPred::Ule,
                    LLVMIntSGT => IPred::Sgt,
                    LLVMIntSGE => IPred::Sge,
                    LLVMIntSLT => IPred::Slt,
                    LLVMIntSLE => IPred::Sle,
                };
                for k in 0..n {
                    self.emit(Inst::ICmp { p, bits: sks[k as usize].bits() as u8, d: d + k * w, a: a + k * w, b: b + k * w });
                }
                Ok(())
            }
            LLVMFCmp => {
                let (a, n) = self.val(i.operand(0))?;
                let (b, _) = self.val(i.operand(1))?;
                let (d, _) = self.dst(i)?;
                let sks = self.elem_sks(i.operand(0).ty())?;
                let p = FPred(i.fcmp_predicate() as u8);
                for k in 0..n {
                    let dbl = match sks[k as usize] {
                        Sk::F32 => false,
                        Sk::F64 => true,
                        _ => return Err("fcmp on a non-float".into()),
                    };
                    self.emit(Inst::FCmp { p, dbl, d: d + k * w, a: a + k * w, b: b + k * w });
                }
                Ok(())
            }
            LLVMTrunc | LLVMZExt | LLVMSExt | LLVMFPToUI | LLVMFPToSI | LLVMUIToFP | LLVMSIToFP | LLVMFPTrunc | LLVMFPExt
            | LLVMPtrToInt | LLVMPtrToAddr | LLVMIntToPtr | LLVMBitCast | LLVMAddrSpaceCast => self.cast(i, op),
            LLVMSelect => {
                let (c, cn) = self.val(i.operand(0))?;
                let (a, n) = self.val(i.operand(1))?;
                let (b, _) = self.val(i.operand(2))?;
                let (d, _) = self.dst(i)?;
                for k in 0..n {
                    let ck = if cn == 1 { c } else { c + k * w };
                    self.emit(Inst::Select { d: d + k * w, c: ck, a: a + k * w, b: b + k * w });
                }
                Ok(())
            }
            LLVMFreeze => {
                let (a, n) = self.val(i.operand(0))?;
                let (d, _) = self.dst(i)?;
                for k in 0..n {
                    self.emit(Inst::Mov { d: d + k * w, a: a + k * w });
                }
                Ok(())
            }
            LLVMGetElementPtr => {
                let ops = self.ops(i);
                if i.ty().kind() != LLVMTypeKind::LLVMPointerTypeKind {
                    return Err("vector getelementptr is not supported".into());
                }
                let base = self.val1(ops[0])?;
                let (off, terms) = self.gep_terms(i.value().gep_source_element_type(), &ops[1..])?;
                let (d, _) = self.dst(i)?;
                self.emit(match terms.len() {
                    0 => Inst::Gep0 { d, base, off },
                    1 => Inst::Gep1 { d, base, off, idx: terms[0].0, scale: terms[0].1, bits: terms[0].2 },
                    _ => Inst::Gep { d, base, off, idx: terms.into_boxed_slice() },
                });
                Ok(())
            }
            LLVMLoad => {
                let p = self.val1(i.operand(0))?;
                let (d, _) = self.dst(i)?;
                let leaves = self.mem_leaves(i.ty())?;
                for (k, (leaf, ty)) in leaves.into_iter().enumerate() {
                    self.emit(Inst::Load { d: d + k as u32 * w, p, off: leaf.off as i64, ty });
                }
                Ok(())
            }
            LLVMStore => {
                let v = i.operand(0);
                let (vr, _) = self.val(v)?;
                let p = self.val1(i.operand(1))?;
                let leaves = self.mem_leaves(v.ty())?;
                for (k, (leaf, ty)) in leaves.into_iter().enumerate() {
                    self.emit(Inst::Store { v: vr + k as u32 * w, p, off: leaf.off as i64, ty });
                }
                Ok(())
            }
            LLVMAlloca => {
                let ty = i.allocated_type();
                let count = i.operand(0);
                if !count.is_constant_int() {
                    return Err("alloca of a run-time size is not supported".into());
                }
                let count = count.const_u64().ok_or("alloca counts wider than 64 bits are not supported")?;
                let size = self.size_of(ty)?.saturating_mul(count);
                let align = (i.value().alignment() as u64).max(1);
                let off = self.private_bytes.div_ceil(align) * align;
                self.private_bytes = off + size.max(1);
                if self.private_bytes > 1 << 30 {
                    return Err("private memory above 1 GiB per work-item".into());
                }
                let (d, _) = self.dst(i)?;
                let obj = self.allocas.len() as u32;
                self.allocas.push(AllocaInfo { name: i.value().name(), ty: ty.print(), off, size });
                self.emit(Inst::Alloca { d, off, obj });
                Ok(())
            }
            LLVMAtomicRMW => {
                let p = self.val1(i.operand(0))?;
                let vv = i.operand(1);
                let v = self.val1(vv)?;
                let sk = self.scalar(vv.ty())?;
                let ty = Self::memty(sk)?;
                let (d, _) = self.dst(i)?;
                use LLVMAtomicRMWBinOp::*;
                let rop = match i.atomic_rmw_op() {
                    LLVMAtomicRMWBinOpXchg => RmwOp::Xchg,
                    LLVMAtomicRMWBinOpAdd => RmwOp::Add,
                    LLVMAtomicRMWBinOpSub => RmwOp::Sub,
                    LLVMAtomicRMWBinOpAnd => RmwOp::And,
                    LLVMAtomicRMWBinOpNand => RmwOp::Nand,
                    LLVMAtomicRMWBinOpOr => RmwOp::Or,
                    LLVMAtomicRMWBinOpXor => RmwOp::Xor,
                    LLVMAtomicRMWBinOpMax => RmwOp::Max,
                    LLVMAtomicRMWBinOpMin => RmwOp::Min,
                    LLVMAtomicRMWBinOpUMax => RmwOp::UMax,
                    LLVMAtomicRMWBinOpUMin => RmwOp::UMin,
                    LLVMAtomicRMWBinOpFAdd => RmwOp::FAdd,
                    LLVMAtomicRMWBinOpFSub => RmwOp::FSub,
                    LLVMAtomicRMWBinOpFMax => RmwOp::FMax,
                    LLVMAtomicRMWBinOpFMin => RmwOp::FMin,
                    LLVMAtomicRMWBinOpFMaximum => RmwOp::FMaximum,
                    LLVMAtomicRMWBinOpFMinimum => RmwOp::FMinimum,
                    LLVMAtomicRMWBinOpUIncWrap => RmwOp::UIncWrap,
                    LLVMAtomicRMWBinOpUDecWrap => RmwOp::UDecWrap,
                    LLVMAtomicRMWBinOpUSubCond => RmwOp::USubCond,
                    LLVMAtomicRMWBinOpUSubSat => RmwOp::USubSat,
                };
                let is_float_op = matches!(rop, RmwOp::FAdd | RmwOp::FSub | RmwOp::FMax | RmwOp::FMin | RmwOp::FMaximum | RmwOp::FMinimum);
                if is_float_op != matches!(sk, Sk::F32 | Sk::F64) {
                    return Err("atomicrmw operation does not fit its type".into());
                }
                self.emit(Inst::Rmw { op: rop, ty, d, p, v });
                Ok(())
            }
            LLVMAtomicCmpXchg => {
                let p = self.val1(i.operand(0))?;
                let cv = i.operand(1);
                let cmp = self.val1(cv)?;
                let new = self.val1(i.operand(2))?;
                let ty = Self::memty(self.scalar(cv.ty())?)?;
                let (d, n) = self.dst(i)?;
                if n != 2 {
                    return Err("cmpxchg result".into());
                }
                self.emit(Inst::CmpXchg { ty, d, ok: d + w, p, cmp, new });
                Ok(())
            }
            LLVMFence => Ok(()),
            LLVMExtractValue | LLVMInsertValue => {
                let agg = i.operand(0);
                let aty = agg.ty();
                let idx = i.value_indices();
                let (start, count) = self.leaf_range(aty, &idx)?;
                let (a, an) = self.val(agg)?;
                let (d, _) = self.dst(i)?;
                if op == LLVMExtractValue {
                    for k in 0..count {
                        self.emit(Inst::Mov { d: d + k * w, a: a + (start + k) * w });
                    }
                } else {
                    let (v, _) = self.val(i.operand(1))?;
                    for k in 0..an {
                        if k < start || k >= start + count {
                            self.emit(Inst::Mov { d: d + k * w, a: a + k * w });
                        }
                    }
                    for k in 0..count {
                        self.emit(Inst::Mov { d: d + (start + k) * w, a: v + k * w });
                    }
                }
                Ok(())
            }
            LLVMExtractElement => {
                let vec = i.operand(0);
                let ix = i.operand(1);
                let (a, n) = self.val(vec)?;
                let (d, _) = self.dst(i)?;
                if ix.is_constant_int() {
                    // Wider than 64 bits: past the end.
                    let k = ix.const_u64().unwrap_or(u64::MAX);
                    if k < n as u64 {
                        self.emit(Inst::Mov { d, a: a + k as u32 * w });
                    } else {
                        let z = self.const_slot(0);
                        self.emit(Inst::Mov { d, a: z });
                    }
                } else {
                    let idx = self.val1(ix)?;
                    let bits = ix.ty().int_width() as u8;
                    self.emit(Inst::ExtractDyn { d, base: a, n, idx, bits });
                }
                Ok(())
            }
            LLVMInsertElement => {
                let (a, n) = self.val(i.operand(0))?;
                let v = self.val1(i.operand(1))?;
                let ix = i.operand(2);
                let (d, _) = self.dst(i)?;
                if ix.is_constant_int() {
                    let at = ix.const_u64().unwrap_or(u64::MAX);
                    for k in 0..n {
                        let src = if k as u64 == at { v } else { a + k * w };
                        self.emit(Inst::Mov { d: d + k * w, a: src });
                    }
                } else {
                    for k in 0..n {
                        self.emit(Inst::Mov { d: d + k * w, a: a + k * w });
                    }
                    let idx = self.val1(ix)?;
                    let bits = ix.ty().int_width() as u8;
                    self.emit(Inst::InsertDyn { d, n, v, idx, bits });
                }
                Ok(())
            }
            LLVMShuffleVector => {
                let (a, n) = self.val(i.operand(0))?;
                let (b, _) = self.val(i.operand(1))?;
                let (d, dn) = self.dst(i)?;
                let z = self.const_slot(0);
                let mask = i.shuffle_mask();
                if mask.len() != dn as usize {
                    return Err("shufflevector of aggregate elements".into());
                }
                for k in 0..dn {
                    let m = mask[k as usize];
                    let src = if m < 0 {
                        z
                    } else if (m as u32) < n {
                        a + m as u32 * w
                    } else {
                        b + (m as u32 - n) * w
                    };
                    self.emit(Inst::Mov { d: d + k * w, a: src });
                }
                Ok(())
            }
            LLVMCall => self.call(i, policy),
            LLVMBr => {
                let b = self.cur_block;
                let succs = i.successors();
                if i.is_conditional_terminator() {
                    let c = self.val1(i.branch_condition())?;
                    let t = self.edge(b, succs[0])?;
                    let f = self.edge(b, succs[1])?;
                    if t == f {
                        self.emit(Inst::Br { e: t });
                    } else {
                        self.emit(Inst::CondBr { c, t, f });
                    }
                } else {
                    let e = self.edge(b, succs[0])?;
                    self.emit(Inst::Br { e });
                }
                Ok(())
            }
            LLVMSwitch => {
                let b = self.cur_block;
                let cond = i.operand(0);
                let v = self.val1(cond)?;
                let bits = cond.ty().int_width();
                let succs = i.successors();
                let default = self.edge(b, succs[0])?;
                let mut cases = Vec::new();
                for (k, cv) in i.switch_case_values().into_iter().enumerate() {
                    let x = cv.const_u64().ok_or("switch cases wider than 64 bits are not supported")?;
                    let e = self.edge(b, succs[k + 1])?;
                    cases.push((x & mask(bits), e));
                }
                self.emit(Inst::Switch { v, cases: cases.into_boxed_slice(), default });
                Ok(())
            }
            LLVMRet => {
                self.emit(Inst::Ret);
                Ok(())
            }
            LLVMUnreachable => {
                self.emit(Inst::Unreachable);
                Ok(())
            }
            LLVMPHI => Ok(()),
            _ => Err(format!("unsupported instruction (opcode {op:?})")),
        }
    }

    /// Leaves `[start, start + count)` of the aggregate path `idx` in `ty`.
    fn leaf_range(&self, ty: Ty<'ctx>, idx: &[u32]) -> DResult<(u32, u32)> {
        let Some((&first, rest)) = idx.split_first() else {
            return Ok((0, self.nleaves(ty)?));
        };
        match ty.kind() {
            LLVMTypeKind::LLVMStructTypeKind => {
                let mut start = 0;
                for k in 0..first {
                    start += self.nleaves(ty.struct_field(k))?;
                }
                let (s, c) = self.leaf_range(ty.struct_field(first), rest)?;
                Ok((start + s, c))
            }
            LLVMTypeKind::LLVMArrayTypeKind => {
                let e = ty.element_type();
                let per = self.nleaves(e)?;
                let (s, c) = self.leaf_range(e, rest)?;
                Ok((first * per + s, c))
            }
            _ => Err("extractvalue/insertvalue path into a non-aggregate".into()),
        }
    }

    fn ibin(&mut self, i: IrInst<'ctx>, op: IOp) -> DResult<()> {
        let w = self.w;
        let (a, n) = self.val(i.operand(0))?;
        let (b, _) = self.val(i.operand(1))?;
        let (d, _) = self.dst(i)?;
        let sks = self.elem_sks(i.ty())?;
        for k in 0..n {
            let bits = match sks[k as usize] {
                Sk::I(b) => b,
                _ => return Err("integer operation on a non-integer".into()),
            };
            self.emit(Inst::IBin { op, bits, d: d + k * w, a: a + k * w, b: b + k * w });
        }
        Ok(())
    }

    /// `llvm.vector.reduce.KIND`: the lanes of the vector operand (after
    /// the start value, for `fadd`/`fmul`) combined one by one, in order,
    /// into the scalar result. In order is what the ordered float forms
    /// require and one of the orders the `reassoc` forms allow.
    fn reduce(&mut self, i: IrInst<'ctx>, kind: &str) -> DResult<()> {
        let w = self.w;
        let ordered_start = matches!(kind, "fadd" | "fmul");
        let v = i.operand(u32::from(ordered_start));
        let (a, n) = self.val(v)?;
        let (d, _) = self.dst(i)?;
        let sks = self.elem_sks(v.ty())?;
        let first = if ordered_start {
            let s = self.val1(i.operand(0))?;
            self.emit(Inst::Mov { d, a: s });
            0
        } else {
            self.emit(Inst::Mov { d, a });
            1
        };
        for k in first..n {
            let b = a + k * w;
            let sk = sks[k as usize];
            let iop = match kind {
                "add" => Some(IOp::Add),
                "mul" => Some(IOp::Mul),
                "and" => Some(IOp::And),
                "or" => Some(IOp::Or),
                "xor" => Some(IOp::Xor),
                "smin" => Some(IOp::SMin),
                "smax" => Some(IOp::SMax),
                "umin" => Some(IOp::UMin),
                "umax" => Some(IOp::UMax),
                _ => None,
            };
            if let Some(op) = iop {
                let Sk::I(bits) = sk else { return Err("integer reduction of a non-integer vector".into()) };
                self.emit(Inst::IBin { op, bits, d, a: d, b });
                continue;
            }
            let op = match kind {
                "fadd" => FOp::Add,
                "fmul" => FOp::Mul,
                "fmin" => FOp::MinNum,
                "fmax" => FOp::MaxNum,
                "fminimum" => FOp::Minimum,
                "fmaximum" => FOp::Maximum,
                _ => return Err(format!("vector reduction '{kind}' is not supported")),
            };
            let dbl = Self::float_kind(sk)?;
            self.emit(Inst::FBin { op, dbl, d, a: d, b });
        }
        Ok(())
    }

    fn float_kind(sk: Sk) -> DResult<bool> {
        match sk {
            Sk::F32 => Ok(false),
            Sk::F64 => Ok(true),
            _ => Err("float operation on a non-float".into()),
        }
    }

    fn fbin(&mut self, i: IrInst<'ctx>, op: FOp, x: Value<'ctx>, y: Value<'ctx>) -> DResult<()> {
        let w = self.w;
        let (a, n) = self.val(x)?;
        let (b, _) = self.val(y)?;
        let (d, _) = self.dst(i)?;
        let sks = self.elem_sks(i.ty())?;
        for k in 0..n {
            let dbl = Self::float_kind(sks[k as usize])?;
            self.emit(Inst::FBin { op, dbl, d: d + k * w, a: a + k * w, b: b + k * w });
        }
        Ok(())
    }

    fn fun(&mut self, i: IrInst<'ctx>, op: FUOp, x: Value<'ctx>) -> DResult<()> {
        let w = self.w;
        let (a, n) = self.val(x)?;
        let (d, _) = self.dst(i)?;
        let sks = self.elem_sks(i.ty())?;
        for k in 0..n {
            let dbl = Self::float_kind(sks[k as usize])?;
            self.emit(Inst::FUn { op, dbl, d: d + k * w, a: a + k * w });
        }
        Ok(())
    }

    fn cast(&mut self, i: IrInst<'ctx>, op: LLVMOpcode) -> DResult<()> {
        use LLVMOpcode::*;
        let w = self.w;
        let src = i.operand(0);
        let (a, n) = self.val(src)?;
        let (d, dn) = self.dst(i)?;
        let ss = self.elem_sks(src.ty())?;
        let ds = self.elem_sks(i.ty())?;
        if n != dn {
            if op == LLVMBitCast {
                let bits = |l: &[Sk]| l.iter().map(|s| s.bits() as usize).sum::<usize>();
                if bits(&ss) != bits(&ds) || bits(&ss) > 1024 {
                    return Err("bitcast between types of different or more than 1024 bits is not supported".into());
                }
                self.emit(Inst::Repack { d, dl: ds.into_boxed_slice(), s: a, sl: ss.into_boxed_slice() });
                return Ok(());
            }
            return Err("cast between different element counts".into());
        }
        for k in 0..n as usize {
            let (f, t) = (ss[k], ds[k]);
            let (dk, ak) = (d + k as u32 * w, a + k as u32 * w);
            let c = match (op, f, t) {
                (LLVMTrunc | LLVMPtrToInt | LLVMPtrToAddr, _, Sk::I(to)) if to < f.bits() as u8 => Some(CastOp::Trunc(to)),
                (LLVMSExt, Sk::I(from), Sk::I(to)) => Some(CastOp::SExt { from, to }),
                (LLVMFPToUI, _, Sk::I(to)) => Some(CastOp::FToU { dbl: f == Sk::F64, to }),
                (LLVMFPToSI, _, Sk::I(to)) => Some(CastOp::FToS { dbl: f == Sk::F64, to }),
                (LLVMUIToFP, Sk::I(_), _) => Some(CastOp::UToF { dbl: t == Sk::F64 }),
                (LLVMSIToFP, Sk::I(from), _) => Some(CastOp::SToF { from, dbl: t == Sk::F64 }),
                (LLVMFPTrunc, Sk::F64, Sk::F32) => Some(CastOp::FTrunc),
                (LLVMFPExt, Sk::F32, Sk::F64) => Some(CastOp::FExt),
                (LLVMFPTrunc | LLVMFPExt, _, _) => return Err("unsupported float conversion".into()),
                // zext, ptrtoint/inttoptr widening or equal, bitcast of equal
                // width, addrspacecast: the bits stay.
                (LLVMZExt | LLVMPtrToInt | LLVMPtrToAddr | LLVMIntToPtr | LLVMAddrSpaceCast, _, _) => None,
                (LLVMBitCast, _, _) if f.bits() == t.bits() => None,
                _ => return Err("unsupported cast".into()),
            };
            self.emit(match c {
                Some(op) => Inst::Cast { op, d: dk, a: ak },
                None => Inst::Mov { d: dk, a: ak },
            });
        }
        Ok(())
    }

    /// `llvm.fpto{s,u}i.sat` element by element.
    fn saturating_to_int(&mut self, i: IrInst<'ctx>, signed: bool) -> DResult<()> {
        let w = self.w;
        let src = i.operand(0);
        let (a, n) = self.val(src)?;
        let (d, _) = self.dst(i)?;
        let (ss, ds) = (self.elem_sks(src.ty())?, self.elem_sks(i.ty())?);
        for k in 0..n as usize {
            let Sk::I(to) = ds[k] else { return Err("a saturating conversion to a non-integer".into()) };
            let dbl = Self::float_kind(ss[k])?;
            let op = if signed { CastOp::FToSSat { dbl, to } } else { CastOp::FToUSat { dbl, to } };
            self.emit(Inst::Cast { op, d: d + k as u32 * w, a: a + k as u32 * w });
        }
        Ok(())
    }

    fn call(&mut self, i: IrInst<'ctx>, policy: Policy) -> DResult<()> {
        let name = match i.called_function_name() {
            Some(n) => n,
            None => return Err("indirect calls are not supported".into()),
        };
        let arg = |k: u32| i.operand(k);
        if self.special_insts.contains(&i) {
            return Ok(()); // a work-item builtin: its slot is filled per work-group
        }
        if name.starts_with(simt_passes::transform::check_uniformity::CHECK_PREFIX) {
            let (a, n) = self.val(arg(0))?;
            let op = arg(0).ty();
            let elem = if op.kind() == LLVMTypeKind::LLVMVectorTypeKind { op.element_type() } else { op };
            let ptr = elem.kind() == LLVMTypeKind::LLVMPointerTypeKind;
            if !arg(1).is_constant_int() {
                return Err("a uniformity check with a non-constant id".into());
            }
            let id = arg(1).const_u64().ok_or("a uniformity check id wider than 64 bits")? as u32;
            self.emit(Inst::CheckUniform { a, n, ptr, id });
            return Ok(());
        }
        if name == CONVERGE_MARKER {
            if policy == Policy::Markers {
                self.emit(Inst::Converge);
            }
            return Ok(());
        }
        if let Some(b) = builtin_of(i) {
            if b == Builtin::Barrier {
                if i.ty().kind() != LLVMTypeKind::LLVMVoidTypeKind {
                    return Err(format!("'{name}' (a barrier that returns a value) is not supported"));
                }
                let id = self.barrier_names.len() as u32;
                let desc = simt_passes::kernel_model::describe_barrier(i, &self.block_name(self.cur_block), id as usize + 1);
                self.barrier_names.push(desc);
                self.emit(Inst::Barrier { id });
                return Ok(());
            }
            return Err(format!("work-item builtin '{name}' with a non-constant dimension is not supported"));
        }
        // Intrinsics without effect on the result.
        let ignored = [
            "llvm.lifetime.",
            "llvm.assume",
            "llvm.dbg.",
            "llvm.experimental.noalias.scope.decl",
            "llvm.invariant.",
            "llvm.var.annotation",
            "llvm.ptr.annotation",
            "llvm.sideeffect",
            "llvm.donothing",
            "llvm.experimental.convergence.",
        ];
        if ignored.iter().any(|p| name.starts_with(p)) {
            if name.starts_with("llvm.ptr.annotation") || name.starts_with("llvm.invariant.start") {
                // returns its pointer / a token: pass the pointer through
                if let Ok((d, 1)) = self.dst(i) {
                    let a = self.val1(arg(0))?;
                    self.emit(Inst::Mov { d, a });
                }
            }
            return Ok(());
        }
        if matches!(name.as_str(), "llvm.trap" | "llvm.debugtrap" | "llvm.ubsantrap" | "__assertfail" | "__assert_fail") {
            self.emit(Inst::Trap);
            return Ok(());
        }
        if let Some(op) = warp_op(&name) {
            // Lane numbers, masks and PTX's clamp/segment operand are those of
            // 32-lane warps.
            if self.w != 32 {
                return Err(format!("'{name}' (a CUDA warp function) needs --warp-width 32 (the emulator runs warps of {} lanes)", self.w));
            }
            let inst = match op {
                WarpOp::SyncWarp => {
                    // `__syncwarp`: the lanes of a warp run in lockstep here, so
                    // in converged code every lane's accesses before it are done
                    // when any lane passes it; in divergent code it does not
                    // wait. Only `--check warp` reads it (its mask).
                    let m = self.val1(arg(0))?;
                    Inst::Warp { op, d: m, a: m, b: m, c: m, m }
                }
                WarpOp::ActiveMask => {
                    let (d, _) = self.dst(i)?;
                    Inst::Warp { op, d, a: d, b: d, c: d, m: d }
                }
                WarpOp::VoteAll | WarpOp::VoteAny | WarpOp::VoteUni | WarpOp::VoteBallot | WarpOp::MatchAny { .. } => {
                    let (d, _) = self.dst(i)?;
                    let (a, b) = (self.val1(arg(0))?, self.val1(arg(1))?);
                    Inst::Warp { op, d, a, b, c: d, m: a }
                }
                WarpOp::Redux(_) => {
                    let (d, _) = self.dst(i)?;
                    let (a, b) = (self.val1(arg(0))?, self.val1(arg(1))?);
                    Inst::Warp { op, d, a, b, c: d, m: b }
                }
                _ => {
                    let (d, _) = self.dst(i)?;
                    let m = self.val1(arg(0))?;
                    Inst::Warp { op, d, a: self.val1(arg(1))?, b: self.val1(arg(2))?, c: self.val1(arg(3))?, m }
                }
            };
            self.emit(inst);
            return Ok(());
        }
        if let Some(kind) = name.strip_prefix("llvm.vector.reduce.") {
            return self.reduce(i, kind.split('.').next().unwrap_or(""));
        }
        let base = intrinsic_base(&name);
        if base == "llvm.fptosi.sat" || base == "llvm.fptoui.sat" {
            return self.saturating_to_int(i, base == "llvm.fptosi.sat");
        }
        let fbin = |op| Some(op);
        let fbin_op: Option<FOp> = match base {
            "llvm.minnum" | "fminf" | "fmin" => fbin(FOp::MinNum),
            "llvm.maxnum" | "fmaxf" | "fmax" => fbin(FOp::MaxNum),
            "llvm.minimum" => fbin(FOp::Minimum),
            "llvm.maximum" => fbin(FOp::Maximum),
            "llvm.copysign" | "copysignf" | "copysign" => fbin(FOp::CopySign),
            "llvm.pow" | "powf" | "pow" => fbin(FOp::Pow),
            "atan2f" | "atan2" | "llvm.atan2" => fbin(FOp::Atan2),
            "hypotf" | "hypot" => fbin(FOp::Hypot),
            "fdimf" | "fdim" => fbin(FOp::Fdim),
            "fmodf" | "fmod" => fbin(FOp::Rem),
            "remainderf" | "remainder" => fbin(FOp::Remainder),
            _ => None,
        };
        if let Some(op) = fbin_op {
            return self.fbin(i, op, arg(0), arg(1));
        }
        let fun_op: Option<FUOp> = match base {
            "llvm.sqrt" | "sqrtf" | "sqrt" => Some(FUOp::Sqrt),
            "llvm.fabs" | "fabsf" | "fabs" => Some(FUOp::Abs),
            "llvm.floor" | "floorf" | "floor" => Some(FUOp::Floor),
            "llvm.ceil" | "ceilf" | "ceil" => Some(FUOp::Ceil),
            "llvm.trunc" | "truncf" | "trunc" => Some(FUOp::Trunc),
            "llvm.round" | "roundf" | "round" => Some(FUOp::Round),
            "llvm.rint" | "llvm.nearbyint" | "llvm.roundeven" | "rintf" | "rint" | "nearbyintf" | "nearbyint" => Some(FUOp::Rint),
            "llvm.exp" | "expf" | "exp" => Some(FUOp::Exp),
            "llvm.exp2" | "exp2f" | "exp2" => Some(FUOp::Exp2),
            "llvm.exp10" | "exp10f" | "exp10" => Some(FUOp::Exp10),
            "llvm.log" | "logf" | "log" => Some(FUOp::Log),
            "llvm.log2" | "log2f" | "log2" => Some(FUOp::Log2),
            "llvm.log10" | "log10f" | "log10" => Some(FUOp::Log10),
            "llvm.sin" | "sinf" | "sin" => Some(FUOp::Sin),
            "llvm.cos" | "cosf" | "cos" => Some(FUOp::Cos),
            "llvm.tan" | "tanf" | "tan" => Some(FUOp::Tan),
            "llvm.asin" | "asinf" | "asin" => Some(FUOp::Asin),
            "llvm.acos" | "acosf" | "acos" => Some(FUOp::Acos),
            "llvm.atan" | "atanf" | "atan" => Some(FUOp::Atan),
            "llvm.sinh" | "sinhf" | "sinh" => Some(FUOp::Sinh),
            "llvm.cosh" | "coshf" | "cosh" => Some(FUOp::Cosh),
            "llvm.tanh" | "tanhf" | "tanh" => Some(FUOp::Tanh),
            "asinhf" | "asinh" => Some(FUOp::Asinh),
            "acoshf" | "acosh" => Some(FUOp::Acosh),
            "atanhf" | "atanh" => Some(FUOp::Atanh),
            "cbrtf" | "cbrt" => Some(FUOp::Cbrt),
            "expm1f" | "expm1" => Some(FUOp::Expm1),
            "log1pf" | "log1p" => Some(FUOp::Log1p),
            "erff" | "erf" => Some(FUOp::Erf),
            "erfcf" | "erfc" => Some(FUOp::Erfc),
            "tgammaf" | "tgamma" => Some(FUOp::Tgamma),
            "lgammaf" | "lgamma" => Some(FUOp::Lgamma),
            _ => None,
        };
        if let Some(op) = fun_op {
            return self.fun(i, op, arg(0));
        }
        let w = self.w;
        match base {
            "llvm.fmuladd" | "llvm.fma" | "fmaf" | "fma" => {
                let (a, n) = self.val(arg(0))?;
                let (b, _) = self.val(arg(1))?;
                let (c, _) = self.val(arg(2))?;
                let (d, _) = self.dst(i)?;
                let sks = self.elem_sks(i.ty())?;
                for k in 0..n {
                    let dbl = Self::float_kind(sks[k as usize])?;
                    self.emit(Inst::Fma { dbl, d: d + k * w, a: a + k * w, b: b + k * w, c: c + k * w });
                }
                Ok(())
            }
            "llvm.powi" => {
                let (a, n) = self.val(arg(0))?;
                let b = self.val1(arg(1))?;
                let (d, _) = self.dst(i)?;
                let sks = self.elem_sks(i.ty())?;
                for k in 0..n {
                    let dbl = Self::float_kind(sks[k as usize])?;
                    self.emit(Inst::Powi { dbl, d: d + k * w, a: a + k * w, b });
                }
                Ok(())
            }
            "llvm.smin" | "llvm.smax" | "llvm.umin" | "llvm.umax" | "llvm.uadd.sat" | "llvm.usub.sat" | "llvm.sadd.sat"
            | "llvm.ssub.sat" => {
                let op = match base {
                    "llvm.smin" => IOp::SMin,
                    "llvm.smax" => IOp::SMax,
                    "llvm.umin" => IOp::UMin,
                    "llvm.umax" => IOp::UMax,
                    "llvm.uadd.sat" => IOp::UAddSat,
                    "llvm.usub.sat" => IOp::USubSat,
                    "llvm.sadd.sat" => IOp::SAddSat,
                    _ => IOp::SSubSat,
                };
                self.ibin(i, op)
            }
            "llvm.uadd.with.overflow"
            | "llvm.sadd.with.overflow"
            | "llvm.usub.with.overflow"
            | "llvm.ssub.with.overflow"
            | "llvm.umul.with.overflow"
            | "llvm.smul.with.overflow" => {
                // `{iN, i1}`: the wrapped result, then whether it overflowed
                // (scalars: clang emits no vector forms for kernels).
                let (op, ov) = match base {
                    "llvm.uadd.with.overflow" => (IOp::Add, IOp::UAddOv),
                    "llvm.sadd.with.overflow" => (IOp::Add, IOp::SAddOv),
                    "llvm.usub.with.overflow" => (IOp::Sub, IOp::USubOv),
                    "llvm.ssub.with.overflow" => (IOp::Sub, IOp::SSubOv),
                    "llvm.umul.with.overflow" => (IOp::Mul, IOp::UMulOv),
                    _ => (IOp::Mul, IOp::SMulOv),
                };
                let Sk::I(bits) = self.scalar(arg(0).ty())? else { return Err("overflow intrinsic on a non-integer".into()) };
                let a = self.val1(arg(0))?;
                let b = self.val1(arg(1))?;
                let (d, n) = self.dst(i)?;
                if n != 2 {
                    return Err(format!("{base} on vectors"));
                }
                self.emit(Inst::IBin { op, bits, d, a, b });
                self.emit(Inst::IBin { op: ov, bits, d: d + w, a, b });
                Ok(())
            }
            "llvm.ctpop" | "llvm.ctlz" | "llvm.cttz" | "llvm.bswap" | "llvm.bitreverse" | "llvm.abs" => {
                let op = match base {
                    "llvm.ctpop" => IUOp::Ctpop,
                    "llvm.ctlz" => IUOp::Ctlz,
                    "llvm.cttz" => IUOp::Cttz,
                    "llvm.bswap" => IUOp::Bswap,
                    "llvm.bitreverse" => IUOp::Bitrev,
                    _ => IUOp::Abs,
                };
                let (a, n) = self.val(arg(0))?;
                let (d, _) = self.dst(i)?;
                let sks = self.elem_sks(i.ty())?;
                for k in 0..n {
                    let Sk::I(bits) = sks[k as usize] else { return Err("integer intrinsic on a non-integer".into()) };
                    if op == IUOp::Bswap && bits % 16 != 0 {
                        return Err("llvm.bswap of an odd number of bytes".into());
                    }
                    self.emit(Inst::IUn { op, bits, d: d + k * w, a: a + k * w });
                }
                Ok(())
            }
            // Three-way compares: (a > b) - (a < b), in the result's width.
            "llvm.scmp" | "llvm.ucmp" => {
                let signed = base == "llvm.scmp";
                let (a, n) = self.val(arg(0))?;
                let (b, _) = self.val(arg(1))?;
                let (d, _) = self.dst(i)?;
                let (ops, res) = (self.elem_sks(arg(0).ty())?, self.elem_sks(i.ty())?);
                let t = self.alloc(2);
                let (gt, lt) = (self.r(t), self.r(t + 1));
                for k in 0..n {
                    let (Sk::I(bits), Sk::I(rbits)) = (ops[k as usize], res[k as usize]) else {
                        return Err("three-way compare of non-integers".into());
                    };
                    let (pg, pl) = if signed { (IPred::Sgt, IPred::Slt) } else { (IPred::Ugt, IPred::Ult) };
                    self.emit(Inst::ICmp { p: pg, bits, d: gt, a: a + k * w, b: b + k * w });
                    self.emit(Inst::ICmp { p: pl, bits, d: lt, a: a + k * w, b: b + k * w });
                    self.emit(Inst::IBin { op: IOp::Sub, bits: rbits, d: d + k * w, a: gt, b: lt });
                }
                Ok(())
            }
            "llvm.fshl" | "llvm.fshr" => {
                let (a, n) = self.val(arg(0))?;
                let (b, _) = self.val(arg(1))?;
                let (c, _) = self.val(arg(2))?;
                let (d, _) = self.dst(i)?;
                let sks = self.elem_sks(i.ty())?;
                for k in 0..n {
                    let Sk::I(bits) = sks[k as usize] else { return Err("funnel shift of a non-integer".into()) };
                    self.emit(Inst::Fsh { left: base == "llvm.fshl", bits, d: d + k * w, a: a + k * w, b: b + k * w, c: c + k * w });
                }
                Ok(())
            }
            "llvm.memcpy" | "llvm.memmove" | "llvm.memcpy.inline" => {
                let dst = self.val1(arg(0))?;
                let src = self.val1(arg(1))?;
                let n = self.val1(arg(2))?;
                self.emit(Inst::Memcpy { dst, src, n });
                Ok(())
            }
            "llvm.memset" | "llvm.memset.inline" => {
                let dst = self.val1(arg(0))?;
                let v = self.val1(arg(1))?;
                let n = self.val1(arg(2))?;
                self.emit(Inst::Memset { dst, v, n });
                Ok(())
            }
            "llvm.expect"
            | "llvm.expect.with.probability"
            | "llvm.ssa.copy"
            | "llvm.launder.invariant.group"
            | "llvm.strip.invariant.group" => {
                let (a, n) = self.val(arg(0))?;
                let (d, _) = self.dst(i)?;
                for k in 0..n {
                    self.emit(Inst::Mov { d: d + k * w, a: a + k * w });
                }
                Ok(())
            }
            _ => {
                if i.callee_has_body() {
                    return Err(format!("call to '{name}' (a function that could not be inlined, e.g. recursive) is not supported"));
                }
                Err(format!("call to '{name}' is not supported"))
            }
        }
    }
}

/// `llvm.sqrt.f32` → `llvm.sqrt`, `llvm.memcpy.p0.p1.i64` → `llvm.memcpy`,
/// `__nv_sinf` → `sinf`; other names unchanged.
fn intrinsic_base(name: &str) -> &str {
    if let Some(rest) = name.strip_prefix("__nv_") {
        return rest;
    }
    if !name.starts_with("llvm.") {
        return name;
    }
    // Known multi-part names first.
    for known in [
        "llvm.memcpy.inline",
        "llvm.memset.inline",
        "llvm.uadd.sat",
        "llvm.usub.sat",
        "llvm.sadd.sat",
        "llvm.ssub.sat",
        "llvm.fptosi.sat",
        "llvm.fptoui.sat",
        "llvm.uadd.with.overflow",
        "llvm.sadd.with.overflow",
        "llvm.usub.with.overflow",
        "llvm.ssub.with.overflow",
        "llvm.umul.with.overflow",
        "llvm.smul.with.overflow",
        "llvm.expect.with.probability",
        "llvm.ssa.copy",
        "llvm.launder.invariant.group",
        "llvm.strip.invariant.group",
    ] {
        if name == known || name.starts_with(&format!("{known}.")) {
            return known;
        }
    }
    // llvm.NAME.suffix…: the second dotted part.
    let rest = &name[5..];
    let end = rest.find('.').map_or(name.len(), |p| 5 + p);
    &name[..end]
}

/// The warp function an `llvm.nvvm.*` intrinsic name is, if it is one.
pub fn warp_op(name: &str) -> Option<WarpOp> {
    let rest = name.strip_prefix("llvm.nvvm.")?;
    Some(match rest {
        "activemask" => WarpOp::ActiveMask,
        "bar.warp.sync" => WarpOp::SyncWarp,
        "vote.all.sync" => WarpOp::VoteAll,
        "vote.any.sync" => WarpOp::VoteAny,
        "vote.uni.sync" => WarpOp::VoteUni,
        "vote.ballot.sync" => WarpOp::VoteBallot,
        "match.any.sync.i32" => WarpOp::MatchAny { wide: false },
        "match.any.sync.i64" => WarpOp::MatchAny { wide: true },
        "redux.sync.add" => WarpOp::Redux(ReduxOp::Add),
        "redux.sync.min" => WarpOp::Redux(ReduxOp::Min),
        "redux.sync.max" => WarpOp::Redux(ReduxOp::Max),
        "redux.sync.umin" => WarpOp::Redux(ReduxOp::UMin),
        "redux.sync.umax" => WarpOp::Redux(ReduxOp::UMax),
        "redux.sync.and" => WarpOp::Redux(ReduxOp::And),
        "redux.sync.or" => WarpOp::Redux(ReduxOp::Or),
        "redux.sync.xor" => WarpOp::Redux(ReduxOp::Xor),
        _ => {
            match rest.strip_prefix("shfl.sync.")?.strip_suffix(".i32").or_else(|| rest.strip_prefix("shfl.sync.")?.strip_suffix(".f32"))? {
                "idx" => WarpOp::ShflIdx,
                "up" => WarpOp::ShflUp,
                "down" => WarpOp::ShflDown,
                "bfly" => WarpOp::ShflBfly,
                _ => return None,
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intrinsic_names() {
        assert_eq!(intrinsic_base("llvm.sqrt.f32"), "llvm.sqrt");
        assert_eq!(intrinsic_base("llvm.memcpy.p0.p1.i64"), "llvm.memcpy");
        assert_eq!(intrinsic_base("llvm.memcpy.inline.p0.p0.i64"), "llvm.memcpy.inline");
        assert_eq!(intrinsic_base("llvm.uadd.sat.i32"), "llvm.uadd.sat");
        assert_eq!(intrinsic_base("llvm.fmuladd.v4f32"), "llvm.fmuladd");
        assert_eq!(intrinsic_base("atan2f"), "atan2f");
        assert_eq!(intrinsic_base("__nv_sinf"), "sinf");
        assert_eq!(intrinsic_base("llvm.trap"), "llvm.trap");
    }

    #[test]
    fn sign_extension() {
        assert_eq!(sext(0xff, 8), -1);
        assert_eq!(sext(0x7f, 8), 127);
        assert_eq!(sext(u64::MAX, 64), -1);
        assert_eq!(mask(1), 1);
        assert_eq!(mask(64), u64::MAX);
    }
}
