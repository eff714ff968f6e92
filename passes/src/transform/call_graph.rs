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

use crate::ir::{instructions, Value};
use crate::kernel_model::{builtin_of, is_kernel};
use inkwell::module::Module;
use inkwell::values::FunctionValue;
use std::collections::{HashMap, HashSet};

pub struct CallGraph<'ctx> {
    /// Defined function → defined functions it calls directly.
    calls: HashMap<FunctionValue<'ctx>, Vec<FunctionValue<'ctx>>>,
    /// Defined function → functions it names anywhere (callee or not).
    refs: HashMap<FunctionValue<'ctx>, Vec<FunctionValue<'ctx>>>,
    /// Defined functions that call a barrier or work-item builtin themselves.
    direct_builtin_users: HashSet<FunctionValue<'ctx>>,
}

impl<'ctx> CallGraph<'ctx> {
    pub fn new(m: &Module<'ctx>) -> CallGraph<'ctx> {
        let mut g = CallGraph { calls: HashMap::new(), refs: HashMap::new(), direct_builtin_users: HashSet::new() };
        for f in m.get_functions() {
            for bb in f.get_basic_block_iter() {
                for i in instructions(bb) {
                    g.scan(f, i);
                }
            }
        }
        g
    }

    fn scan(&mut self, f: FunctionValue<'ctx>, i: crate::ir::Inst<'ctx>) {
        for op in i.operands() {
            if let Some(op) = op.as_function() {
                self.refs.entry(f).or_default().push(op);
            }
        }
        if i.opcode() != llvm_sys::LLVMOpcode::LLVMCall {
            return;
        }
        if builtin_of(i).is_some() {
            self.direct_builtin_users.insert(f);
            return;
        }
        if let Some(callee) = i.callee().as_function() {
            if !Value::from(callee).is_declaration() {
                self.calls.entry(f).or_default().push(callee);
            }
        }
    }

    /// The defined functions `f` calls directly.
    pub fn callees(&self, f: FunctionValue<'ctx>) -> &[FunctionValue<'ctx>] {
        self.calls.get(&f).map_or(&[], Vec::as_slice)
    }

    /// `roots` and every function they call or name, transitively.
    pub fn needed_by(&self, roots: &[FunctionValue<'ctx>]) -> HashSet<FunctionValue<'ctx>> {
        let mut seen: HashSet<FunctionValue<'ctx>> = HashSet::new();
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
    pub fn builtin_users(&self) -> HashSet<FunctionValue<'ctx>> {
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
pub fn kernels<'ctx>(m: &Module<'ctx>) -> Vec<FunctionValue<'ctx>> {
    m.get_functions().filter(|&f| !Value::from(f).is_declaration() && is_kernel(f)).collect()
}
