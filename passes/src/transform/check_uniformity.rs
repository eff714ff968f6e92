//! `simt-check-uniformity`: instruments a module so that an executor can
//! check, at run time, every verdict "uniform" of the uniformity analysis
//! (the dynamic oracle of issue 8 §1).
//!
//! The analysis is computed on each defined function as it is, then:
//!
//! - **Results**: after every instruction called uniform whose result is an
//!   integer, float, pointer or a vector of those, a call
//!   `void @simt.check.uniform.<ty>(<ty> %v, i32 id)`. A phi's check goes to
//!   its block's first insertion point (after the phis).
//! - **Uses**: before every instruction called uniform (phis excepted), the
//!   same call on each of its operands that is an instruction or argument.
//!   This is what covers temporal divergence: a value uniform inside a loop
//!   is checked again where a uniform instruction reads it after the loop,
//!   where the lanes that left in different iterations run together again.
//!   A conditional branch or switch whose direction is called uniform has
//!   its condition checked. An operand already checked in the same block
//!   (its definition there, or an earlier use) since the last call is not
//!   checked again: the lanes running a block run all of it together.
//!
//! ```text
//!   loop:  %i = phi [0, %entry], [%i1, %loop]      ; uniform in the loop
//!          call @simt.check.uniform.i32(i32 %i, i32 0)
//!          ...
//!          br i1 %div, label %loop, label %exit     ; divergent exit
//!   exit:  call @simt.check.uniform.i32(i32 %i, i32 1)   ; use after the loop
//!          store i32 %i, ptr addrspace(1) %p              ; if called uniform
//! ```
//!
//! Ids index the named metadata `!simt.uniformity.checks`: one node per id,
//! `!{!"function", !"value", !"use"}` (IR text), so an executor can name a
//! violation. The executor compares the value across the lanes that run the
//! call together (the emulator's `CheckUniform`; pointers into private memory
//! are compared relative to each lane's own private memory).
//!
//! Option `assume-uniform` claims every value and branch uniform: tests use
//! it to show that the oracle sees a wrong claim.
//!
//! Limitations: values of other types (aggregates, i128) are not checked;
//! `invoke`/`callbr` results are not checked (no insertion point after a
//! terminator in the same block). The instrumented module is for executing,
//! not for optimising: the calls are opaque to LLVM.

use crate::ir::{defined_functions, function_name, instructions, Inst, Ty, Value};
use crate::pass::{ModulePass, PassContext, PassError, Preserved};
use inkwell::builder::Builder;
use inkwell::types::BasicTypeEnum;
use inkwell::values::BasicMetadataValueEnum;
use llvm_sys::LLVMOpcode;
use std::collections::HashSet;

/// Prefix of the check functions' names.
pub const CHECK_PREFIX: &str = "simt.check.uniform.";
/// The named metadata holding the table of checks.
pub const CHECK_TABLE: &str = "simt.uniformity.checks";

#[derive(Default)]
pub struct CheckUniformity {
    pub assume_uniform: bool,
}

const NAME: &str = "simt-check-uniformity";

impl ModulePass for CheckUniformity {
    fn name(&self) -> String {
        if self.assume_uniform {
            format!("{NAME}<assume-uniform>")
        } else {
            NAME.into()
        }
    }

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Preserved, PassError> {
        let n = instrument(cx, self.assume_uniform);
        // Calls inserted before existing instructions: no block or edge changes.
        Ok(if n > 0 { Preserved::cfg_analyses() } else { Preserved::all() })
    }
}

/// One planned check: the value, where the call goes, and the texts.
struct Plan<'ctx> {
    value: Value<'ctx>,
    /// Insert before this instruction.
    before: Inst<'ctx>,
    use_text: String,
}

/// Instruments every defined function; returns the number of checks placed.
fn instrument(cx: &mut PassContext<'_, '_>, assume_uniform: bool) -> usize {
    let mut plans: Vec<(String, Vec<Plan<'_>>)> = Vec::new();
    for f in defined_functions(cx.module()) {
        let fa = cx.analyses(f);
        let u = fa.uniformity();
        let uniform = |v: Value<'_>| assume_uniform || !u.is_divergent(v);
        // One print of the function, not one per use site (quadratic).
        let text = crate::ir::InstructionText::new(f);
        let mut list = Vec::new();
        for (bi, &bb) in fa.cfg.blocks().iter().enumerate() {
            let block_id = crate::cfg::BlockId(bi as u32);
            let branch_uniform = assume_uniform || !u.is_divergent_branch(block_id);
            let mut checked: HashSet<Value<'_>> = HashSet::new();
            let insts: Vec<Inst<'_>> = instructions(bb).collect();
            let first_non_phi = insts.iter().copied().find(|i| !i.is_phi());
            for &i in &insts {
                if is_check_call(i) {
                    continue;
                }
                let is_term = i.is_terminator();
                let claimed = if is_term { branch_uniform } else { uniform(i.value()) };
                if i.is_phi() {
                    if claimed && checkable(i.value()) {
                        if let Some(at) = first_non_phi {
                            list.push(Plan { value: i.value(), before: at, use_text: "its definition".into() });
                            checked.insert(i.value());
                        }
                    }
                    continue;
                }
                // Uses.
                if claimed {
                    let ops: Vec<Value<'_>> = match i.opcode() {
                        LLVMOpcode::LLVMBr if i.is_conditional_terminator() => vec![i.operand(0)],
                        LLVMOpcode::LLVMBr => vec![],
                        LLVMOpcode::LLVMSwitch => vec![i.operand(0)],
                        _ => {
                            let n = i.num_operands();
                            let callee = if i.is_call() { Some(n - 1) } else { None };
                            (0..n).filter(|&k| Some(k) != callee).map(|k| i.operand(k)).collect()
                        }
                    };
                    for op in ops {
                        if op.raw().is_null() || checked.contains(&op) {
                            continue;
                        }
                        if op.as_inst().is_none() && !op.is_argument() {
                            continue;
                        }
                        if !checkable(op) {
                            continue;
                        }
                        list.push(Plan { value: op, before: i, use_text: text.of(i) });
                        checked.insert(op);
                    }
                }
                // The result.
                if !is_term && claimed && checkable(i.value()) {
                    if let Some(next) = i.next() {
                        list.push(Plan { value: i.value(), before: next, use_text: "its definition".into() });
                        checked.insert(i.value());
                    }
                }
                if i.is_call() && may_regroup(i) {
                    // A barrier or unknown call: lanes may regroup.
                    checked.clear();
                }
            }
        }
        plans.push((function_name(f), list));
    }

    // The plans are made and the analyses dropped: now the module changes.
    let module = cx.module_mut();
    let ctx = module.get_context();
    let builder: Builder<'_> = ctx.create_builder();
    let i32t = ctx.i32_type();
    let mut id = module.get_global_metadata_size(CHECK_TABLE);
    let mut placed = 0usize;
    for (fname, list) in plans {
        for p in list {
            let ty = p.value.as_basic().expect("checkable values are of basic types").get_type();
            let fty = ctx.void_type().fn_type(&[ty.into(), i32t.into()], false);
            let cname = format!("{CHECK_PREFIX}{}", type_suffix(ty));
            let callee = module.get_function(&cname).unwrap_or_else(|| module.add_function(&cname, fty, None));
            builder.position_before(&p.before.as_instruction_value());
            let args: [BasicMetadataValueEnum<'_>; 2] =
                [p.value.as_basic().expect("checked").into(), i32t.const_int(id as u64, false).into()];
            builder.build_indirect_call(fty, callee.as_global_value().as_pointer_value(), &args, "").expect("a positioned builder");
            let value_text = p.value.print();
            let node = ctx.metadata_node(&[
                ctx.metadata_string(&fname).into(),
                ctx.metadata_string(&value_text).into(),
                ctx.metadata_string(&p.use_text).into(),
            ]);
            module.add_global_metadata(CHECK_TABLE, &node).expect("a metadata node");
            id += 1;
            placed += 1;
        }
    }
    placed
}

/// Whether the check call was placed by this pass.
fn is_check_call(i: Inst<'_>) -> bool {
    i.is_call() && i.called_function_name().is_some_and(|n| n.starts_with(CHECK_PREFIX))
}

/// Calls after which the lanes running on may not be those that ran before:
/// barriers and calls into unknown code (intrinsics are neither).
fn may_regroup(call: Inst<'_>) -> bool {
    if crate::kernel_model::builtin_of(call) == Some(crate::kernel_model::Builtin::Barrier) {
        return true;
    }
    call.called_function().is_none_or(|f| f.get_intrinsic_id() == 0)
}

/// Whether the value's type is one the checks handle: integers up to 64
/// bits, float, double, pointers and vectors of those.
fn checkable(v: Value<'_>) -> bool {
    v.as_basic().is_some_and(|b| checkable_type(b.get_type()))
}

fn checkable_type(ty: BasicTypeEnum<'_>) -> bool {
    match ty {
        BasicTypeEnum::IntType(t) => t.get_bit_width() <= 64,
        BasicTypeEnum::FloatType(t) => is_f32(t) || is_f64(t),
        BasicTypeEnum::PointerType(_) => true,
        BasicTypeEnum::VectorType(t) => {
            let e = t.get_element_type();
            checkable_type(e) && !e.is_vector_type()
        }
        _ => false,
    }
}

fn is_f32(t: inkwell::types::FloatType<'_>) -> bool {
    t == t.get_context().f32_type()
}

fn is_f64(t: inkwell::types::FloatType<'_>) -> bool {
    t == t.get_context().f64_type()
}

/// `i32`, `p1`, `v4f32`: the type in a function name.
fn type_suffix(ty: BasicTypeEnum<'_>) -> String {
    match ty {
        BasicTypeEnum::PointerType(t) => format!("p{}", Ty::of(t).address_space().expect("a pointer type")),
        BasicTypeEnum::FloatType(t) if is_f32(t) => "f32".into(),
        BasicTypeEnum::FloatType(t) if is_f64(t) => "f64".into(),
        BasicTypeEnum::VectorType(t) => format!("v{}{}", t.get_size(), type_suffix(t.get_element_type())),
        _ => ty.print_to_string().to_string().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect(),
    }
}

impl crate::pass::DeclaredPass for CheckUniformity {
    const NAME: &'static str = "simt-check-uniformity";
    const SUMMARY: &'static str =
        "calls @simt.check.uniform.<ty>(v, id) at every value and use the uniformity analysis calls uniform (run-time oracle)";
    const OPTIONS: &'static [(&'static str, &'static str)] =
        &[("assume-uniform", "claim every value and branch uniform (to show the oracle sees a wrong claim)")];

    fn set_option(&mut self, key: &str, value: Option<&str>) -> Result<(), String> {
        match (key, value) {
            ("assume-uniform", None) => self.assume_uniform = true,
            _ => return Err(crate::pass::unknown_option::<Self>(key)),
        }
        Ok(())
    }
}
