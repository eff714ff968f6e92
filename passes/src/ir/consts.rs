//! Reading constants and globals: undef/poison/null tests, floating-point
//! values, the elements of constant aggregates, the source element type of
//! a `getelementptr`, global initializers, and the module's global
//! variables in order.
//!
//! LLVM-C casts the value to the class it expects (`ConstantFP`,
//! `GEPOperator`, `GlobalVariable`) without checking; every method here
//! checks the kind first and panics with a message (or answers `None`)
//! instead.

use super::value::Value;
use inkwell::module::Module;
use inkwell::values::AsValueRef;
use llvm_sys::core::*;

impl<'ctx> Value<'ctx> {
    /// `undef` or `poison` (of any type).
    pub fn is_undef_or_poison(self) -> bool {
        // SAFETY: `raw` is a live value (type invariant); both tests take any value.
        unsafe { LLVMIsUndef(self.raw()) != 0 || LLVMIsPoison(self.raw()) != 0 }
    }

    /// A constant that is its type's null value (`0`, `0.0`, `null`,
    /// `zeroinitializer`); false for non-constants.
    pub fn is_null_value(self) -> bool {
        // SAFETY: `raw` is a live value; LLVMIsNull answers false for non-constants.
        unsafe { LLVMIsNull(self.raw()) != 0 }
    }

    pub fn is_constant_aggregate_zero(self) -> bool {
        // SAFETY: `raw` is a live value.
        unsafe { !LLVMIsAConstantAggregateZero(self.raw()).is_null() }
    }

    pub fn is_constant_pointer_null(self) -> bool {
        // SAFETY: `raw` is a live value.
        unsafe { !LLVMIsAConstantPointerNull(self.raw()).is_null() }
    }

    pub fn is_function(self) -> bool {
        // SAFETY: `raw` is a live value.
        unsafe { !LLVMIsAFunction(self.raw()).is_null() }
    }

    /// The value of a floating-point constant as a `double` (`None` for
    /// anything else).
    pub fn const_f64(self) -> Option<f64> {
        // SAFETY: `raw` is a live value; the value is read from a ConstantFP only.
        unsafe {
            if LLVMIsAConstantFP(self.raw()).is_null() {
                return None;
            }
            let mut loses = 0;
            Some(LLVMConstRealGetDouble(self.raw(), &mut loses))
        }
    }

    /// A packed constant array or vector (`c"abc"`, `<i32 1, i32 2>`).
    pub fn is_constant_data_sequential(self) -> bool {
        // SAFETY: `raw` is a live value.
        unsafe { !LLVMIsAConstantDataSequential(self.raw()).is_null() }
    }

    /// A constant array, struct or vector given element by element (its
    /// operands are the elements).
    pub fn is_constant_aggregate(self) -> bool {
        // SAFETY: `raw` is a live value.
        unsafe {
            !LLVMIsAConstantArray(self.raw()).is_null()
                || !LLVMIsAConstantStruct(self.raw()).is_null()
                || !LLVMIsAConstantVector(self.raw()).is_null()
        }
    }

    /// Element `i` of a constant aggregate or vector (`None` past its end).
    pub fn aggregate_element(self, i: u32) -> Option<Value<'ctx>> {
        assert!(self.is_constant(), "aggregate element of a non-constant");
        // SAFETY: `raw` is a live constant; LLVM answers null for indices
        // past the end, and otherwise a live constant of the same context.
        let e = unsafe { LLVMGetAggregateElement(self.raw(), i) };
        // SAFETY: `e` is a live constant (non-null checked).
        (!e.is_null()).then(|| unsafe { Value::from_raw(e) })
    }

    /// A global variable's initializer (`None` for declarations).
    pub fn initializer(self) -> Option<Value<'ctx>> {
        assert!(self.is_global_variable(), "initializer of a non-global-variable");
        // SAFETY: `raw` is a live global variable; LLVM answers null when it
        // has no initializer.
        let init = unsafe { LLVMGetInitializer(self.raw()) };
        // SAFETY: a non-null initializer is a live constant.
        (!init.is_null()).then(|| unsafe { Value::from_raw(init) })
    }
}

/// The module's global variables, in order.
pub fn global_variables<'ctx>(module: &Module<'ctx>) -> Vec<Value<'ctx>> {
    // SAFETY: inkwell's globals are live global variables of `module`,
    // whose context lives for `'ctx`.
    module.get_globals().map(|g| unsafe { Value::from_raw(g.as_value_ref()) }).collect()
}
