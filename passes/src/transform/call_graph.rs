//! Which functions a kernel needs: the module's direct calls and function
//! references, for passes that must judge a function only when some kernel
//! can run it.
//!
//! A kernel needs every function it calls, and every function whose address
//! it takes (it may be called indirectly), transitively. A helper no kernel
//! needs (an image sampler a library left in, the other kernels' callees) is
//! no reason to reject a module or a launch.
//!
//! Limits: function addresses inside global variable initialisers (tables of
//! function pointers) are not followed, so a function reached only through
//! such a table counts as unneeded; OpenCL C has no function pointers.

use crate::kernel_model::builtin_of;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use std::collections::{HashMap, HashSet};

pub struct CallGraph {
    /// Defined function → defined functions it calls directly.
    calls: HashMap<LLVMValueRef, Vec<LLVMValueRef>>,
    /// Defined function → functions it names anywhere (callee or not).
    refs: HashMap<LLVMValueRef, Vec<LLVMValueRef>>,
    /// Defined functions that call a barrier or work-item builtin themselves.
    direct_builtin_users: HashSet<LLVMValueRef>,
}

impl CallGraph {
    /// # Safety
    /// `m` must be a valid module.
    pub unsafe fn new(m: LLVMModuleRef) -> CallGraph {
        let mut g = CallGraph { calls: HashMap::new(), refs: HashMap::new(), direct_builtin_users: HashSet::new() };
        let mut f = LLVMGetFirstFunction(m);
        while !f.is_null() {
            let mut bb = LLVMGetFirstBasicBlock(f);
            while !bb.is_null() {
                let mut i = LLVMGetFirstInstruction(bb);
                while !i.is_null() {
                    g.scan(f, i);
                    i = LLVMGetNextInstruction(i);
                }
                bb = LLVMGetNextBasicBlock(bb);
            }
            f = LLVMGetNextFunction(f);
        }
        g
    }

    unsafe fn scan(&mut self, f: LLVMValueRef, i: LLVMValueRef) {
        for k in 0..LLVMGetNumOperands(i).max(0) as u32 {
            let op = LLVMGetOperand(i, k);
            if !op.is_null() && !LLVMIsAFunction(op).is_null() {
                self.refs.entry(f).or_default().push(op);
            }
        }
        if LLVMIsACallInst(i).is_null() {
            return;
        }
        if unsafe { crate::ir::Value::from_raw(i) }.as_inst().and_then(builtin_of).is_some() {
            self.direct_builtin_users.insert(f);
            return;
        }
        let callee = LLVMGetCalledValue(i);
        if !callee.is_null() && !LLVMIsAFunction(callee).is_null() && LLVMIsDeclaration(callee) == 0 {
            self.calls.entry(f).or_default().push(callee);
        }
    }

    /// The defined functions `f` calls directly.
    pub fn callees(&self, f: LLVMValueRef) -> &[LLVMValueRef] {
        self.calls.get(&f).map_or(&[], Vec::as_slice)
    }

    /// `roots` and every function they call or name, transitively.
    pub fn needed_by(&self, roots: &[LLVMValueRef]) -> HashSet<LLVMValueRef> {
        let mut seen: HashSet<LLVMValueRef> = HashSet::new();
        let mut work = roots.to_vec();
        while let Some(f) = work.pop() {
            if seen.insert(f) {
                work.extend(self.refs.get(&f).into_iter().flatten().copied());
            }
        }
        seen
    }

    /// Defined functions that call barriers or work-item builtins, directly
    /// or through direct calls to other defined functions.
    pub fn builtin_users(&self) -> HashSet<LLVMValueRef> {
        let mut using = self.direct_builtin_users.clone();
        loop {
            let before = using.len();
            for (f, callees) in &self.calls {
                if !using.contains(f) && callees.iter().any(|c| using.contains(c)) {
                    using.insert(*f);
                }
            }
            if using.len() == before {
                return using;
            }
        }
    }
}

/// The module's defined kernels (both dialects).
///
/// # Safety
/// `m` must be a valid module.
pub unsafe fn kernels(m: LLVMModuleRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    let mut f = LLVMGetFirstFunction(m);
    while !f.is_null() {
        if LLVMIsDeclaration(f) == 0 && crate::kernel_model::is_kernel(inkwell::values::FunctionValue::new(f).expect("a function")) {
            out.push(f);
        }
        f = LLVMGetNextFunction(f);
    }
    out
}
