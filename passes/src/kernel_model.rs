//! One vocabulary for the SIMT builtins of the two dialects clang emits.
//!
//! OpenCL C on `spir64`: Itanium-mangled calls such as `_Z12get_local_idj(i32 0)`
//! and `_Z7barrierj(i32 1)`, kernels in the `spir_kernel` calling convention.
//! CUDA on `nvptx64`: `llvm.nvvm.read.ptx.sreg.tid.x()` and friends,
//! `llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)` for `__syncthreads`, kernels
//! in the `ptx_kernel` calling convention (or marked in `nvvm.annotations`).
//! Passes ask this module what a call means instead of matching names.

use crate::ir::{Inst, MdOperand, Value};
use inkwell::values::FunctionValue;
use llvm_sys::{LLVMCallConv, LLVMOpcode};

/// The address space of OpenCL `__local` and CUDA `__shared__` memory (3
/// on both SPIR and NVPTX).
pub const LOCAL_ADDRESS_SPACE: u32 = 3;

/// A dimension of the iteration space: 0 = x, 1 = y, 2 = z.
pub type Dim = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// Id of the work-item in its work-group (`get_local_id`, `threadIdx`).
    LocalId(Dim),
    /// Id of the work-item in the whole launch (`get_global_id`).
    GlobalId(Dim),
    /// Work-group id (`get_group_id`, `blockIdx`).
    GroupId(Dim),
    /// Work-group size (`get_local_size`, `blockDim`).
    LocalSize(Dim),
    /// `get_enqueued_local_size`: the size of the full work-groups.
    EnqueuedLocalSize(Dim),
    /// Number of work-groups (`get_num_groups`, `gridDim`).
    NumGroups(Dim),
    GlobalSize(Dim),
    GlobalOffset(Dim),
    WorkDim,
    /// `get_local_linear_id`.
    LocalLinearId,
    /// `get_global_linear_id`.
    GlobalLinearId,
    /// Lane in the warp (`%laneid`) and warp in the block (`%warpid`).
    LaneId,
    WarpId,
    /// A work-group barrier (`barrier`, `work_group_barrier`, `__syncthreads`).
    Barrier,
}

impl Builtin {
    /// Whether the value can differ between work-items of one work-group.
    pub fn is_divergent(self) -> bool {
        matches!(
            self,
            Builtin::LocalId(_)
                | Builtin::GlobalId(_)
                | Builtin::LocalLinearId
                | Builtin::GlobalLinearId
                | Builtin::LaneId
                | Builtin::WarpId
        )
    }
}

/// What a direct call to `callee` with constant first argument `dim_arg` means.
pub fn classify_call(callee: &str, dim_arg: Option<u64>) -> Option<Builtin> {
    if let Some(rest) = callee.strip_prefix("llvm.nvvm.read.ptx.sreg.") {
        let (reg, axis) = match rest.rsplit_once('.') {
            Some((r, a)) => (r, a),
            None => (rest, ""),
        };
        let d = match axis {
            "x" => 0,
            "y" => 1,
            "z" => 2,
            _ => {
                return match rest {
                    "laneid" => Some(Builtin::LaneId),
                    "warpid" => Some(Builtin::WarpId),
                    _ => None,
                }
            }
        };
        return match reg {
            "tid" => Some(Builtin::LocalId(d)),
            "ctaid" => Some(Builtin::GroupId(d)),
            "ntid" => Some(Builtin::LocalSize(d)),
            "nctaid" => Some(Builtin::NumGroups(d)),
            _ => None,
        };
    }
    // `simt-warp-exchange`'s warp-level barrier is one too (for `simt-wiloops`).
    if callee.starts_with("llvm.nvvm.barrier") || callee == "llvm.nvvm.bar.sync" || callee == crate::transform::warp_exchange::WARP_BARRIER
    {
        return Some(Builtin::Barrier);
    }
    let base = demangled_opencl_name(callee)?;
    let d = || dim_arg.map(|v| v as Dim);
    Some(match base {
        "get_local_id" => Builtin::LocalId(d()?),
        "get_global_id" => Builtin::GlobalId(d()?),
        "get_group_id" => Builtin::GroupId(d()?),
        "get_local_size" => Builtin::LocalSize(d()?),
        "get_enqueued_local_size" => Builtin::EnqueuedLocalSize(d()?),
        "get_num_groups" => Builtin::NumGroups(d()?),
        "get_global_size" => Builtin::GlobalSize(d()?),
        "get_global_offset" => Builtin::GlobalOffset(d()?),
        "get_work_dim" => Builtin::WorkDim,
        "get_local_linear_id" => Builtin::LocalLinearId,
        "get_global_linear_id" => Builtin::GlobalLinearId,
        "barrier" | "work_group_barrier" => Builtin::Barrier,
        _ => return None,
    })
}

/// Whether a call to the intrinsic `name` gives each work-item its own
/// result whatever its operands are: a source of divergence.
///
/// Audited against LLVM 22's `IntrinsicsNVVM.td`. Of NVPTX's special
/// registers only those fixed for a whole CTA are uniform; the thread and lane
/// ids, the lane masks, clocks, timers and performance counters are not, and
/// neither is a register this list does not know. Warp-level operations
/// (shuffles, votes, matches, reductions, `elect`, matrix fragments) and
/// atomics give per-lane results. AMDGPU intrinsics are all taken as
/// divergent. Everything else (`llvm.fma`, `llvm.nvvm.sqrt…`, …) is a function
/// of its operands, and the data dependence rule covers it.
pub fn is_divergent_intrinsic(name: &str) -> bool {
    if let Some(reg) = name.strip_prefix("llvm.nvvm.read.ptx.sreg.") {
        const UNIFORM: &[&str] = &[
            "ntid.",
            "ctaid.",
            "nctaid.",
            "nwarpid",
            "warpsize",
            "smid",
            "nsmid",
            "gridid",
            "envreg",
            "clusterid.",
            "nclusterid.",
            "cluster.ctaid.",
            "cluster.nctaid.",
            "cluster.ctarank",
            "cluster.nctarank",
            "is_explicit_cluster",
            "dynamic_smem_size",
            "total_smem_size",
            "aggr_smem_size",
            "reserved_smem",
        ];
        return !UNIFORM.iter().any(|u| reg.starts_with(u));
    }
    if let Some(op) = name.strip_prefix("llvm.nvvm.") {
        const PER_LANE: &[&str] = &[
            "shfl",
            "vote",
            "match",
            "activemask",
            "redux",
            "elect",
            "atomic",
            "atom.",
            "wmma",
            "mma",
            "wgmma",
            "ldmatrix",
            "mbarrier",
            "cp.async",
            "getctarank",
            "read.ptx.sreg",
        ];
        return PER_LANE.iter().any(|p| op.starts_with(p));
    }
    const PER_CALL: &[&str] = &[
        "llvm.amdgcn.",
        "llvm.r600.",
        "llvm.readcyclecounter",
        "llvm.readsteadycounter",
        "llvm.read_register",
        "llvm.read_volatile_register",
        "llvm.stacksave",
    ];
    PER_CALL.iter().any(|p| name.starts_with(p))
}

/// `_Z12get_local_idj` → `get_local_id`: the Itanium `_Z<len><name>` prefix.
fn demangled_opencl_name(callee: &str) -> Option<&str> {
    let rest = callee.strip_prefix("_Z")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let len: usize = rest[..digits].parse().ok()?;
    rest.get(digits..digits + len)
}

/// The builtin called by instruction `inst`, if it is a call to one.
pub fn builtin_of(inst: Inst<'_>) -> Option<Builtin> {
    if inst.opcode() != LLVMOpcode::LLVMCall {
        return None;
    }
    let name = inst.called_function_name()?;
    let dim = if inst.num_call_args() > 0 { inst.operand(0).const_u64() } else { None };
    classify_call(&name, dim)
}

/// How errors name barrier number `ordinal` (from 1, in layout order):
/// `file:line:col` when the call has a debug location, else its block. The
/// host engine and the emulator both use it, so their messages agree.
pub fn describe_barrier(call: Inst<'_>, block_name: &str, ordinal: usize) -> String {
    let warp = call.called_function().is_some_and(|f| crate::ir::function_name(f) == crate::transform::warp_exchange::WARP_BARRIER);
    let what = if warp { "warp function (a warp barrier)" } else { "barrier" };
    match crate::ir::debug_location(call) {
        Some((file, line, col)) => format!("{what} #{ordinal} at {file}:{line}:{col}"),
        None => format!("{what} #{ordinal} in block {block_name}"),
    }
}

/// Whether a calling convention is one of OpenCL's SPIR conventions
/// (`spir_func`, `spir_kernel`), which CPU backends do not know.
pub fn is_spir_calling_convention(cc: u32) -> bool {
    cc == LLVMCallConv::LLVMSPIRFUNCCallConv as u32 || cc == LLVMCallConv::LLVMSPIRKERNELCallConv as u32
}

/// Whether `f` has CUDA's `ptx_kernel` calling convention (a CUDA kernel,
/// which takes uniform work-groups whatever it says).
pub fn is_ptx_kernel(f: FunctionValue<'_>) -> bool {
    f.get_call_conventions() == LLVMCallConv::LLVMPTXKernelCallConv as u32
}

/// Whether `f` is a kernel entry point in either dialect: LLVM's
/// `spir_kernel` or `ptx_kernel` calling convention, or older CUDA IR's
/// `!nvvm.annotations = !{!{ptr @f, !"kernel", i32 1}}`.
pub fn is_kernel(f: FunctionValue<'_>) -> bool {
    let cc = f.get_call_conventions();
    if cc == LLVMCallConv::LLVMSPIRKERNELCallConv as u32 || cc == LLVMCallConv::LLVMPTXKernelCallConv as u32 {
        return true;
    }
    let me = MdOperand::Value(Value::from(f));
    crate::ir::named_metadata_of(f, "nvvm.annotations")
        .iter()
        .any(|t| t.len() >= 2 && t[0] == me && t[1] == MdOperand::String("kernel".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_dialects() {
        assert_eq!(classify_call("_Z12get_local_idj", Some(1)), Some(Builtin::LocalId(1)));
        assert_eq!(classify_call("_Z12get_group_idj", Some(0)), Some(Builtin::GroupId(0)));
        assert_eq!(classify_call("_Z7barrierj", Some(1)), Some(Builtin::Barrier));
        assert_eq!(classify_call("_Z18work_group_barrierj12memory_scope", Some(1)), Some(Builtin::Barrier));
        assert_eq!(classify_call("llvm.nvvm.read.ptx.sreg.tid.z", None), Some(Builtin::LocalId(2)));
        assert_eq!(classify_call("llvm.nvvm.read.ptx.sreg.nctaid.y", None), Some(Builtin::NumGroups(1)));
        assert_eq!(classify_call("llvm.nvvm.read.ptx.sreg.laneid", None), Some(Builtin::LaneId));
        assert_eq!(classify_call("llvm.nvvm.barrier.cta.sync.aligned.all", Some(0)), Some(Builtin::Barrier));
        assert_eq!(classify_call("_Z12get_local_idj", None), None, "dimension must be constant");
        assert_eq!(classify_call("_Z3fooj", Some(0)), None);
        assert!(Builtin::GlobalId(0).is_divergent() && !Builtin::GroupId(0).is_divergent());
    }

    #[test]
    fn divergent_intrinsics() {
        for d in [
            "llvm.nvvm.read.ptx.sreg.lanemask.lt",
            "llvm.nvvm.read.ptx.sreg.lanemask.le",
            "llvm.nvvm.read.ptx.sreg.lanemask.eq",
            "llvm.nvvm.read.ptx.sreg.lanemask.ge",
            "llvm.nvvm.read.ptx.sreg.lanemask.gt",
            "llvm.nvvm.read.ptx.sreg.tid.x",
            "llvm.nvvm.read.ptx.sreg.laneid",
            "llvm.nvvm.read.ptx.sreg.warpid",
            "llvm.nvvm.read.ptx.sreg.clock64",
            "llvm.nvvm.read.ptx.sreg.globaltimer",
            "llvm.nvvm.read.ptx.sreg.pm0",
            "llvm.nvvm.read.ptx.sreg.some.future.register",
            "llvm.nvvm.shfl.sync.idx.i32",
            "llvm.nvvm.vote.ballot.sync",
            "llvm.nvvm.activemask",
            "llvm.amdgcn.workitem.id.x",
            "llvm.readcyclecounter",
        ] {
            assert!(is_divergent_intrinsic(d), "{d}");
        }
        for u in [
            "llvm.nvvm.read.ptx.sreg.ctaid.x",
            "llvm.nvvm.read.ptx.sreg.ntid.y",
            "llvm.nvvm.read.ptx.sreg.nctaid.z",
            "llvm.nvvm.read.ptx.sreg.warpsize",
            "llvm.nvvm.sqrt.rn.f",
            "llvm.nvvm.fma.rn.d",
            "llvm.fma.f32",
            "llvm.umax.i32",
        ] {
            assert!(!is_divergent_intrinsic(u), "{u}");
        }
    }
}
