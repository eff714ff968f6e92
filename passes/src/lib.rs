//! simt-passes: the analyses and passes of the simt toolkit.
//!
//! Everything that reads or rewrites LLVM IR lives here, with the pass manager
//! that runs it (`pipeline`, shared by `simt-opt`, the engines and the LLVM
//! pass plugin); nothing here parses a command line or runs a kernel. The graph analyses (`cfg`, `analysis`) are
//! plain data so they can be checked against brute force without LLVM.
//!
//! # Running a pass on an inkwell module
//!
//! Every pass and printer has its pipeline name (`simt-opt -print-passes`
//! lists them); [`pipeline::run_by_name`] runs one on a module as
//! `simt-opt` would (a fresh analysis cache, the verifier afterwards) and
//! says whether the module may have changed; printers write to the given
//! writer. [`pipeline::parse`] and [`pipeline::run`] take a whole
//! `-passes=` text, simt's passes and LLVM's mixed.
//!
//! ```
//! use inkwell::context::Context;
//! use inkwell::memory_buffer::MemoryBuffer;
//!
//! let ir = r#"
//! define spir_kernel void @k(ptr addrspace(1) %out) {
//! entry:
//!   %lid = call i64 @_Z12get_local_idj(i32 0)
//!   %odd = trunc i64 %lid to i1
//!   br i1 %odd, label %then, label %done
//! then:
//!   %x = mul i64 %lid, 3
//!   br label %done
//! done:
//!   %v = phi i64 [ %x, %then ], [ 7, %entry ]
//!   %p = getelementptr i64, ptr addrspace(1) %out, i64 %lid
//!   store i64 %v, ptr addrspace(1) %p
//!   ret void
//! }
//! declare i64 @_Z12get_local_idj(i32)
//! "#;
//! let ctx = Context::create();
//! let buffer = MemoryBuffer::create_from_memory_range_copy(ir.as_bytes(), "k.ll");
//! let mut module = ctx.create_module_from_ir(buffer).expect("valid IR");
//!
//! // A printer: which values and branches differ between work-items.
//! let mut report = Vec::new();
//! simt_passes::pipeline::run_by_name(&mut module, "print<simt-uniformity>", false, &mut report).map_err(|e| e.to_string())?;
//! let report = String::from_utf8(report).unwrap();
//! assert!(report.contains("divergent"), "{report}");
//!
//! // A pipeline: the divergent branch becomes straight-line code, then
//! // LLVM's instcombine tidies it.
//! use simt_passes::pipeline::{parse, run, RunOptions};
//! let steps = parse("simt-ifconvert<cost=split>,instcombine", None).map_err(|e| e.to_string())?;
//! run(&mut module, &steps, None, &RunOptions::default(), &mut std::io::stderr()).map_err(|e| e.to_string())?;
//! let k = module.get_function("k").unwrap();
//! assert_eq!(k.count_basic_blocks(), 1);
//! # Ok::<(), String>(())
//! ```

pub mod analysis;
pub mod cfg;
pub mod function_cfg;
pub mod ir;
pub mod kernel_model;
pub mod pass;
pub mod pipeline;
pub mod printers;
pub mod registry;
pub mod remarks;
pub mod sched;
pub mod transform;
pub mod wg_abi;
