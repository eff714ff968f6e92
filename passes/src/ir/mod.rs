//! The IR layer: the one place meant to speak the LLVM C API.
//!
//! Everything above it works on inkwell's types and on the typed handles of
//! [`value`] (`Value`, `Inst`), whose methods walk operands, users, phi
//! incomings and call targets without `unsafe`. Every `unsafe` block here says
//! why it is sound. Code that still calls LLVM-C directly (transforms, the
//! emulator's decoder) is being moved onto this layer; the free functions
//! taking a raw `LLVMValueRef` below are its transitional entry points.
//!
//! - `module`: parsing (with `opt`'s `file:line:col` errors), verifying,
//!   cloning, retargeting.
//! - `names`: names and printed forms, with `opt`'s slot numbering.
//! - [`value`]: typed handles and walks.
//! - [`block`]: terminators, successors and what selects each edge.
//! - [`metadata`]: named metadata, a function's attached metadata, debug
//!   locations.
//! - [`calls`]: call sites (callee, attributes, operand bundles) and a
//!   builder for calls inkwell cannot make (returning `token`, with bundles,
//!   rebuilt with other bundles); `bridge`: handles to and from inkwell.
//! - `ty`: [`Ty`], the type handle, with all it answers (kinds, parts,
//!   new types, constants, layout).
//! - `edit`: an instruction builder and in-place edits on the handles.
//! - `build`: arithmetic, comparisons, casts, GEPs, branches and switches on
//!   that builder; `clone`: detached instruction clones; `loop_metadata`:
//!   access groups and parallel loops; `alias_scope`: scoped no-alias
//!   metadata; `function`: functions, pass pipelines.
//!   `build_ops`: more builder operations; `build_float`: float arithmetic
//!   and comparisons, conversions, splats.
//! - [`globals`]: functions, declarations, global variables, linkage.
//! - [`link`]: parsing into a context, linking, emptying a module, LLVM's passes.
//! - `memory`: constant GEP offsets, store sizes, `noalias`, what calls do to memory.
//! - `consts`, `inspect`: reading constants and globals, and what
//!   instructions say beyond their operands.
//! - `process`: LLVM's version, fatal-error handler and `cl::opt` options.
//! - `wrap_flags`: `nsw`/`nuw`/`nneg` on integer instructions.

mod alias_scope;
pub mod block;
mod bridge;
mod build;
mod build_float;
mod build_ops;
pub mod calls;
mod clone;
mod consts;
mod edit;
mod function;
pub mod globals;
mod inspect;
mod like;
pub mod link;
mod loop_metadata;
mod memory;
pub mod metadata;
mod module;
pub(crate) mod names;
mod process;
mod ty;
pub mod value;
mod wrap_flags;

pub use alias_scope::AliasScope;
pub use block::{edge_kinds, successors, terminator, EdgeKind};
pub use build::{FloatOp, IntOp};
pub use build_float::FloatBin;
pub use calls::{byval_size, fn_string_attribute, has_fn_attribute, has_param_attribute, CallBuilder};
pub use clone::Detached;
pub use consts::global_variables;
pub use edit::{branches_to, delete_block, delete_function, insert_block_before, Builder};
pub use function::{run_passes, run_pipeline};
pub use inspect::{is_plain_int_op, negated_predicate, swapped_predicate};
pub use like::const_vector;
/// LLVM-C's enums that the handles' methods answer with (a type's kind, an
/// opcode, a predicate), so callers name them without depending on llvm-sys.
pub use llvm_sys::{LLVMAtomicRMWBinOp, LLVMCallConv, LLVMIntPredicate, LLVMOpcode, LLVMRealPredicate, LLVMTypeKind};
pub use loop_metadata::{renew_loop_ids, AccessGroup};
pub use memory::{data_layout_of, data_layout_string, CallMemory};
pub use metadata::{debug_location, function_metadata, named_metadata, named_metadata_of, MdOperand};
pub use module::*;
pub use names::*;
pub use process::{install_fatal_error_handler, llvm_code_address, llvm_version, parse_command_line_options};
pub use ty::Ty;
pub use value::{instructions, parameters, target_triple, Inst, Value};
