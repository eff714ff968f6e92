//! Whole-module operations: parsing a module into another's context,
//! linking it in, emptying a module, and running LLVM's own passes on it.
//!
//! Passes get `&Module` and cannot swap it for another, so a pass that must
//! rebuild its module (`simt-to-nvptx` rewrites address spaces in the text)
//! empties it with [`clear_module`] and links the new contents in with
//! [`link_into`]; LLVM's linker keeps names as they are when the destination
//! is empty.
//!
//! A [`Detached`] module is owned here until it is linked (the linker
//! consumes it) or dropped (it is disposed of). Clearing a module deletes
//! every function and global: handles to them, and to anything in them,
//! end there, as with [`delete_function`](super::delete_function).

use inkwell::module::Module;
use inkwell::targets::TargetMachine;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMTypeKind;
use std::ffi::{CStr, CString};
use std::marker::PhantomData;

/// A module of the context `'ctx` that belongs to no pass yet.
#[derive(Debug)]
pub struct Detached<'ctx> {
    raw: LLVMModuleRef,
    _ctx: PhantomData<&'ctx ()>,
}

impl Detached<'_> {
    /// Takes `like`'s target triple and data layout (libdevice says
    /// `nvptx64-nvidia-gpulibs` and an older layout; the linker would warn).
    pub fn set_target_of(&self, like: &Module<'_>) {
        // SAFETY: both modules are live; the triple and layout are
        // NUL-terminated strings owned by `like`, which LLVM copies.
        unsafe {
            LLVMSetTarget(self.raw, LLVMGetTarget(like.as_mut_ptr()));
            LLVMSetDataLayout(self.raw, LLVMGetDataLayoutStr(like.as_mut_ptr()));
        }
    }
}

impl Drop for Detached<'_> {
    fn drop(&mut self) {
        // SAFETY: `raw` is owned here (never linked, which would have
        // consumed it through `mem::forget`) and disposed of once.
        unsafe { LLVMDisposeModule(self.raw) }
    }
}

/// Parses IR text or bitcode in `like`'s context; `buffer` names it in the
/// reader's errors, which are returned as LLVM words them.
pub fn parse_in<'ctx>(like: &Module<'ctx>, buffer: &str, bytes: &[u8]) -> Result<Detached<'ctx>, String> {
    let buffer = CString::new(buffer.replace('\0', "")).expect("NULs removed");
    // SAFETY: the buffer is a NUL-terminated copy (the text reader relies
    // on it) that LLVM's reader takes over; `like`'s context is live for
    // `'ctx`; the message is LLVM's, copied and disposed of once.
    unsafe {
        let buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(bytes.as_ptr().cast(), bytes.len(), buffer.as_ptr());
        let mut out = std::ptr::null_mut();
        let mut msg = std::ptr::null_mut();
        let ctx = LLVMGetModuleContext(like.as_mut_ptr());
        let failed = llvm_sys::ir_reader::LLVMParseIRInContext2(ctx, buf, &mut out, &mut msg) != 0;
        LLVMDisposeMemoryBuffer(buf);
        if failed || out.is_null() {
            let e =
                if msg.is_null() { "could not parse the module".to_string() } else { CStr::from_ptr(msg).to_string_lossy().into_owned() };
            if !msg.is_null() {
                LLVMDisposeMessage(msg);
            }
            return Err(e);
        }
        Ok(Detached { raw: out, _ctx: PhantomData })
    }
}

/// Links `src` into `dest` with LLVM's linker (`src` is consumed).
pub fn link_into<'ctx>(dest: &Module<'ctx>, src: Detached<'ctx>) -> Result<(), String> {
    let raw = src.raw;
    std::mem::forget(src);
    // SAFETY: both are live modules of one context; the linker takes `raw`
    // over and destroys it, which is why `src` was forgotten, not dropped.
    if unsafe { llvm_sys::linker::LLVMLinkModules2(dest.as_mut_ptr(), raw) } != 0 {
        return Err("linking failed (LLVM's linker reported an error)".into());
    }
    Ok(())
}

/// Deletes every function body, initializer, function and global variable
/// of `module` (named metadata, which the C API cannot delete, stays).
/// Every use of each is replaced by poison first, so no constant expression
/// is left pointing at a deleted global. Handles into the module end here.
pub fn clear_module(module: &Module<'_>) {
    let m = module.as_mut_ptr();
    // SAFETY: `m` is a live module; the walks use LLVM's own links and each
    // value is deleted only after nothing refers to it any more: bodies
    // first (their instructions' uses replaced by poison, then erased),
    // then initializers, then the remaining uses of globals and functions
    // (constants, metadata) replaced by poison.
    unsafe {
        let mut f = LLVMGetFirstFunction(m);
        while !f.is_null() {
            delete_body(f);
            f = LLVMGetNextFunction(f);
        }
        let mut g = LLVMGetFirstGlobal(m);
        while !g.is_null() {
            LLVMSetInitializer(g, std::ptr::null_mut());
            g = LLVMGetNextGlobal(g);
        }
        for v in globals_and_functions(m) {
            LLVMReplaceAllUsesWith(v, LLVMGetPoison(LLVMTypeOf(v)));
        }
        for v in globals_and_functions(m) {
            if LLVMIsAFunction(v).is_null() {
                LLVMDeleteGlobal(v);
            } else {
                LLVMDeleteFunction(v);
            }
        }
    }
}

/// # Safety
/// `m` must be a live module.
unsafe fn globals_and_functions(m: LLVMModuleRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    // SAFETY: the caller promises `m` is live; the walks follow LLVM's own
    // function and global lists, stopping at the null that ends each, and
    // nothing is changed while they run.
    unsafe {
        let mut f = LLVMGetFirstFunction(m);
        while !f.is_null() {
            out.push(f);
            f = LLVMGetNextFunction(f);
        }
        let mut g = LLVMGetFirstGlobal(m);
        while !g.is_null() {
            out.push(g);
            g = LLVMGetNextGlobal(g);
        }
    }
    out
}

/// Every instruction's uses go first (blocks refer to each other's values),
/// then the instructions, then the blocks.
///
/// # Safety
/// `f` must be a live function.
unsafe fn delete_body(f: LLVMValueRef) {
    let mut insts = Vec::new();
    // SAFETY: the caller promises `f` is live. The instructions are all
    // collected before any is touched, so the walk never follows a link out
    // of an erased instruction; every use of a non-void instruction is
    // replaced by poison of its own type before any is erased, so no erased
    // instruction is still used; once its instructions are gone a block has
    // no users left but branches already erased, and blocks are deleted one
    // at a time from the front until the function has none.
    unsafe {
        let mut bb = LLVMGetFirstBasicBlock(f);
        while !bb.is_null() {
            let mut i = LLVMGetFirstInstruction(bb);
            while !i.is_null() {
                insts.push(i);
                i = LLVMGetNextInstruction(i);
            }
            bb = LLVMGetNextBasicBlock(bb);
        }
        for &i in &insts {
            let ty = LLVMTypeOf(i);
            if LLVMGetTypeKind(ty) != LLVMTypeKind::LLVMVoidTypeKind {
                LLVMReplaceAllUsesWith(i, LLVMGetPoison(ty));
            }
        }
        for &i in &insts {
            LLVMInstructionEraseFromParent(i);
        }
        while !LLVMGetFirstBasicBlock(f).is_null() {
            LLVMDeleteBasicBlock(LLVMGetFirstBasicBlock(f));
        }
    }
}

/// Runs an LLVM pass pipeline (`opt -passes=` syntax) on `module` with
/// `tm`'s target information; the error is LLVM's message.
pub fn run_passes(module: &Module<'_>, pipeline: &str, tm: &TargetMachine) -> Result<(), String> {
    crate::ir::function::run_pipeline(module, &pipeline.replace('\0', ""), Some(tm), false, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_ir;
    use inkwell::context::Context;

    const IR: &str = "define i32 @f(i32 %x) {\n  ret i32 %x\n}\n";

    #[test]
    fn modules_are_emptied_and_relinked() {
        let ctx = Context::create();
        let m = parse_ir(&ctx, "t.ll", IR.as_bytes()).expect("parses");
        let other =
            parse_in(&m, "other", b"@g = global i32 7\ndefine i32 @h() {\n  %v = load i32, ptr @g\n  ret i32 %v\n}\n").expect("parses");
        clear_module(&m);
        assert!(m.get_first_function().is_none());
        link_into(&m, other).expect("links");
        let text = m.print_to_string().to_string();
        assert!(text.contains("@g = global i32 7") && text.contains("define i32 @h()"), "{text}");
        assert!(parse_in(&m, "bad", b"define").unwrap_err().starts_with("bad:"));
    }
}
