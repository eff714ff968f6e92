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

use crate::ir::{defined_functions, function_name, print_type, print_value};
use crate::pass::{Changed, ModulePass, PassContext, PassError};
use inkwell::values::AsValueRef;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMOpcode, LLVMTypeKind};
use std::collections::HashSet;
use std::ffi::CString;

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

    fn run(&self, cx: &mut PassContext<'_, '_>) -> Result<Changed, PassError> {
        let n = instrument(cx, self.assume_uniform);
        Ok(if n > 0 { Changed::Instructions } else { Changed::Nothing })
    }
}

/// One planned check: the value, where the call goes, and the texts.
struct Plan {
    value: LLVMValueRef,
    /// Insert before this instruction.
    before: LLVMValueRef,
    use_text: String,
}

/// Instruments every defined function; returns the number of checks placed.
fn instrument(cx: &mut PassContext<'_, '_>, assume_uniform: bool) -> usize {
    let module = cx.module;
    let m = module.as_mut_ptr();
    let mut plans: Vec<(String, Vec<Plan>)> = Vec::new();
    for f in defined_functions(module) {
        let fa = cx.analyses.get(f);
        let u = fa.uniformity();
        let uniform = |v: LLVMValueRef| assume_uniform || !u.is_divergent_raw(v);
        let mut list = Vec::new();
        for (bi, bb) in fa.cfg.blocks().iter().enumerate() {
            let block_id = crate::cfg::BlockId(bi as u32);
            let branch_uniform = assume_uniform || !u.is_divergent_branch(block_id);
            let mut checked: HashSet<LLVMValueRef> = HashSet::new();
            let insts: Vec<LLVMValueRef> = bb.get_instructions().map(|i| i.as_value_ref()).collect();
            let first_non_phi = insts.iter().copied().find(|&i| unsafe { LLVMIsAPHINode(i).is_null() });
            for &i in &insts {
                unsafe {
                    if is_check_call(i) {
                        continue;
                    }
                    let is_phi = !LLVMIsAPHINode(i).is_null();
                    let is_term = !LLVMIsATerminatorInst(i).is_null();
                    let claimed = if is_term { branch_uniform } else { uniform(i) };
                    if is_phi {
                        if claimed && checkable(LLVMTypeOf(i)) {
                            if let Some(at) = first_non_phi {
                                list.push(Plan { value: i, before: at, use_text: "its definition".into() });
                                checked.insert(i);
                            }
                        }
                        continue;
                    }
                    // Uses.
                    if claimed {
                        let ops: Vec<LLVMValueRef> = match LLVMGetInstructionOpcode(i) {
                            LLVMOpcode::LLVMBr if LLVMIsConditional(i) != 0 => vec![LLVMGetCondition(i)],
                            LLVMOpcode::LLVMBr => vec![],
                            LLVMOpcode::LLVMSwitch => vec![LLVMGetOperand(i, 0)],
                            _ => {
                                let n = LLVMGetNumOperands(i) as u32;
                                let callee = if LLVMIsACallInst(i).is_null() { None } else { Some(n - 1) };
                                (0..n).filter(|&k| Some(k) != callee).map(|k| LLVMGetOperand(i, k)).collect()
                            }
                        };
                        for op in ops {
                            if op.is_null() || checked.contains(&op) {
                                continue;
                            }
                            if LLVMIsAInstruction(op).is_null() && LLVMIsAArgument(op).is_null() {
                                continue;
                            }
                            if !checkable(LLVMTypeOf(op)) {
                                continue;
                            }
                            list.push(Plan { value: op, before: i, use_text: print_value(i) });
                            checked.insert(op);
                        }
                    }
                    // The result.
                    if !is_term && claimed && checkable(LLVMTypeOf(i)) {
                        let next = LLVMGetNextInstruction(i);
                        if !next.is_null() {
                            list.push(Plan { value: i, before: next, use_text: "its definition".into() });
                            checked.insert(i);
                        }
                    }
                    if !LLVMIsACallInst(i).is_null() && may_regroup(i) {
                        // A barrier or unknown call: lanes may regroup.
                        checked.clear();
                    }
                }
            }
        }
        plans.push((function_name(f), list));
    }

    let mut placed = 0usize;
    unsafe {
        let ctx = LLVMGetModuleContext(m);
        let builder = LLVMCreateBuilderInContext(ctx);
        let i32t = LLVMInt32TypeInContext(ctx);
        let void = LLVMVoidTypeInContext(ctx);
        let table = CString::new(CHECK_TABLE).expect("no NUL");
        let mut id = LLVMGetNamedMetadataNumOperands(m, table.as_ptr());
        let md = |s: &str| LLVMMDStringInContext2(ctx, s.as_ptr().cast(), s.len());
        for (fname, list) in plans {
            for p in list {
                let ty = LLVMTypeOf(p.value);
                let fname_c = format!("{CHECK_PREFIX}{}", type_suffix(ty));
                let cname = CString::new(fname_c).expect("no NUL");
                let mut params = [ty, i32t];
                let fty = LLVMFunctionType(void, params.as_mut_ptr(), 2, 0);
                let mut callee = LLVMGetNamedFunction(m, cname.as_ptr());
                if callee.is_null() {
                    callee = LLVMAddFunction(m, cname.as_ptr(), fty);
                }
                LLVMPositionBuilderBefore(builder, p.before);
                let mut args = [p.value, LLVMConstInt(i32t, id as u64, 0)];
                LLVMBuildCall2(builder, fty, callee, args.as_mut_ptr(), 2, c"".as_ptr());
                let value_text = print_value(p.value);
                let mut ops = [md(&fname), md(&value_text), md(&p.use_text)];
                let node = LLVMMDNodeInContext2(ctx, ops.as_mut_ptr(), 3);
                LLVMAddNamedMetadataOperand(m, table.as_ptr(), LLVMMetadataAsValue(ctx, node));
                id += 1;
                placed += 1;
            }
        }
        LLVMDisposeBuilder(builder);
    }
    placed
}

/// Whether the check call was placed by this pass.
unsafe fn is_check_call(i: LLVMValueRef) -> bool {
    !LLVMIsACallInst(i).is_null() && crate::ir::called_function_name(i).is_some_and(|n| n.starts_with(CHECK_PREFIX))
}

/// Calls after which the lanes running on may not be those that ran before:
/// barriers and calls into unknown code (intrinsics are neither).
unsafe fn may_regroup(call: LLVMValueRef) -> bool {
    if unsafe { crate::ir::Value::from_raw(call) }.as_inst().and_then(crate::kernel_model::builtin_of) == Some(crate::kernel_model::Builtin::Barrier) {
        return true;
    }
    let callee = LLVMGetCalledValue(call);
    callee.is_null() || LLVMIsAFunction(callee).is_null() || LLVMGetIntrinsicID(callee) == 0
}

/// Types the checks handle: integers up to 64 bits, float, double, pointers
/// and vectors of those.
unsafe fn checkable(ty: LLVMTypeRef) -> bool {
    match LLVMGetTypeKind(ty) {
        LLVMTypeKind::LLVMIntegerTypeKind => LLVMGetIntTypeWidth(ty) <= 64,
        LLVMTypeKind::LLVMFloatTypeKind | LLVMTypeKind::LLVMDoubleTypeKind | LLVMTypeKind::LLVMPointerTypeKind => true,
        LLVMTypeKind::LLVMVectorTypeKind => checkable(LLVMGetElementType(ty)) && LLVMGetTypeKind(LLVMGetElementType(ty)) != LLVMTypeKind::LLVMVectorTypeKind,
        _ => false,
    }
}

/// `i32`, `p1`, `v4f32`: the type in a function name.
unsafe fn type_suffix(ty: LLVMTypeRef) -> String {
    match LLVMGetTypeKind(ty) {
        LLVMTypeKind::LLVMPointerTypeKind => format!("p{}", LLVMGetPointerAddressSpace(ty)),
        LLVMTypeKind::LLVMFloatTypeKind => "f32".into(),
        LLVMTypeKind::LLVMDoubleTypeKind => "f64".into(),
        LLVMTypeKind::LLVMVectorTypeKind => format!("v{}{}", LLVMGetVectorSize(ty), type_suffix(LLVMGetElementType(ty))),
        _ => print_type(ty).chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect(),
    }
}

impl crate::pass::DeclaredPass for CheckUniformity {
    const NAME: &'static str = "simt-check-uniformity";
    const SUMMARY: &'static str = "calls @simt.check.uniform.<ty>(v, id) at every value and use the uniformity analysis calls uniform (run-time oracle)";
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
