//! `simt-run --engine emu --profile FILE`: the divergence profile of a
//! launch, in the format of `simt_passes::analysis::branch_profile` (what
//! `simt-ifconvert<profile=FILE>` reads).
//!
//! The interpreter counts, per decoded block, the lane groups that started
//! running it and those that ran its conditional branch ([`BlockCounts`]);
//! its existing per-block divergence counter gives the splits. Those blocks
//! are the kernel's after the front end inlined its helpers, which splits a
//! block at each call: so before the front end, [`tag`] marks each block's
//! terminator with its index (metadata `!simt.profile.block`, which a
//! terminator keeps when its block is split and which inlined copies of
//! helpers lack), and [`profile`] maps the decoded blocks back through it.
//! A block split by inlining is counted at its last part, the one holding
//! the branch.
//!
//! Limits: counts are exact under `--policy ipdom`; under `markers` a group
//! that stops at a block's convergence check and is merged into a later one
//! counts as two entries.

use super::exec::Counters;
use super::program::Program;
use crate::diag::ToolError;
use inkwell::module::Module;
use inkwell::values::{BasicMetadataValueEnum, FunctionValue};
use simt_passes::analysis::branch_profile::{ir_hash, BlockProfile, BranchProfile, FunctionProfile, FORMAT};
use simt_passes::ir::SlotNames;
use std::path::Path;

const TAG: &str = "simt.profile.block";

/// Per decoded block: lane groups that entered it, and that ran its
/// conditional branch or switch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockCounts {
    pub entries: Vec<u64>,
    pub runs: Vec<u64>,
}

impl BlockCounts {
    pub fn new(blocks: usize) -> BlockCounts {
        BlockCounts { entries: vec![0; blocks], runs: vec![0; blocks] }
    }

    /// A lane group starts running at `pc`: an entry if that begins a block
    /// (not when it resumes after a barrier or a convergence check).
    #[inline]
    pub fn start(&mut self, p: &Program, pc: u32) {
        if let Some(&b) = p.inst_block().get(pc as usize) {
            if p.blocks()[b as usize].first == pc {
                self.entries[b as usize] += 1;
            }
        }
    }

    /// A lane group took a branch to the block starting at `pc`.
    #[inline]
    pub fn enter(&mut self, p: &Program, pc: u32) {
        if let Some(&b) = p.inst_block().get(pc as usize) {
            self.entries[b as usize] += 1;
        }
    }

    /// A lane group runs the conditional branch or switch at `pc`.
    #[inline]
    pub fn branch(&mut self, p: &Program, pc: u32) {
        self.runs[p.inst_block()[pc as usize] as usize] += 1;
    }
}

/// The kernel as the profile names it, taken before the front end changes it.
pub struct Tagged {
    name: String,
    ir_hash: String,
    block_names: Vec<String>,
}

fn kernel<'ctx>(module: &Module<'ctx>, name: &str) -> Result<FunctionValue<'ctx>, ToolError> {
    crate::frontend::find_kernel(module, name)
}

/// Hashes the kernel's IR and tags its blocks' terminators with their
/// indices; call before [`super::compile_module`].
pub fn tag(module: &Module<'_>, name: &str) -> Result<Tagged, ToolError> {
    let f = kernel(module, name)?;
    let ir_hash = ir_hash(f);
    let ctx = module.get_context();
    let kind = ctx.get_kind_id(TAG);
    let slots = SlotNames::new(f);
    let mut block_names = Vec::new();
    for (i, bb) in f.get_basic_block_iter().enumerate() {
        block_names.push(slots.of_block(bb).to_string());
        if let Some(t) = bb.get_terminator() {
            let md = ctx.metadata_node(&[BasicMetadataValueEnum::IntValue(ctx.i32_type().const_int(i as u64, false))]);
            t.set_metadata(md, kind).map_err(|e| ToolError::Run(format!("cannot tag block {i} for the profile: {e}")))?;
        }
    }
    Ok(Tagged { name: name.to_string(), ir_hash, block_names })
}

/// The original block index of each decoded block (the decoder's blocks are
/// the prepared kernel's, in layout order); `None` for blocks the front end
/// made (inlined helpers).
pub fn block_map(module: &Module<'_>, t: &Tagged, p: &Program) -> Result<Vec<Option<u32>>, ToolError> {
    let f = kernel(module, &t.name)?;
    let kind = module.get_context().get_kind_id(TAG);
    let map: Vec<Option<u32>> = f
        .get_basic_block_iter()
        .map(|bb| {
            let md = bb.get_terminator()?.get_metadata(kind)?;
            let v = md.get_node_values()?.first().copied()?;
            let i = v.into_int_value().get_zero_extended_constant()? as u32;
            ((i as usize) < t.block_names.len()).then_some(i)
        })
        .collect();
    if map.len() != p.blocks().len() {
        return Err(ToolError::Run(format!(
            "the profile cannot map the kernel's blocks: {} decoded, {} in the prepared function (emulator error)",
            p.blocks().len(),
            map.len()
        )));
    }
    Ok(map)
}

/// The function's profile from a launch's counters.
pub fn profile(t: &Tagged, map: &[Option<u32>], c: &Counters) -> FunctionProfile {
    let mut blocks: Vec<BlockProfile> = t
        .block_names
        .iter()
        .enumerate()
        .map(|(i, n)| BlockProfile { index: i as u32, name: n.clone(), ..BlockProfile::default() })
        .collect();
    for (d, orig) in map.iter().enumerate() {
        let Some(o) = orig else { continue };
        let b = &mut blocks[*o as usize];
        b.entries += c.blocks.entries[d];
        b.runs += c.blocks.runs[d];
        b.splits += c.block_divergence[d];
    }
    FunctionProfile { name: t.name.clone(), ir_hash: t.ir_hash.clone(), blocks }
}

/// Writes `f` to `path` (atomically), merged into the profile already there:
/// other functions are kept, and the counts of this function added when its
/// IR is the same, replaced when not. A file there that is not a profile,
/// or one of another policy or warp width, is an error (never overwritten).
pub fn write(path: &Path, f: FunctionProfile, policy: &str, warp_width: u32) -> Result<(), ToolError> {
    let mut p = if path.exists() {
        let p = BranchProfile::read(path)
            .map_err(|e| ToolError::Run(format!("{e}; --profile adds to a profile file, and will not overwrite anything else")))?;
        if p.policy != policy || p.warp_width != warp_width {
            return Err(ToolError::Run(format!(
                "{} holds a profile taken under --policy {} --warp-width {}, not {policy} and {warp_width}: use another file",
                path.display(),
                p.policy,
                p.warp_width
            )));
        }
        p
    } else {
        BranchProfile { format: FORMAT.into(), policy: policy.into(), warp_width, functions: Vec::new() }
    };
    p.merge(f);
    let mut text = serde_json::to_string_pretty(&p).map_err(|e| ToolError::Run(format!("cannot encode the profile: {e}")))?;
    text.push('\n');
    crate::output::write_atomically(path, text.as_bytes())
}
