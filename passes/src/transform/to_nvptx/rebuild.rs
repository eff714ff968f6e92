//! Replacing a module's contents in place: with text (after a rewrite the C
//! API cannot do on values, see `addrspace`) or by linking another module in
//! (libdevice).
//!
//! Passes get `&Module` and cannot swap it for another, so the module is
//! emptied (every use of every global replaced by poison first, so no
//! constant expression is left pointing at a deleted global) and the new
//! contents are linked into it with LLVM's linker, which keeps names as they
//! are when the destination is empty. Limit: named metadata (`!llvm.ident`,
//! `!opencl.ocl.version`) cannot be deleted through the C API and ends up
//! listed twice, which is harmless.

use llvm_sys::core::*;
use llvm_sys::linker::LLVMLinkModules2;
use llvm_sys::prelude::*;
use llvm_sys::LLVMTypeKind;
use std::ffi::CStr;

/// Replaces everything in `m` by the module `text` describes (parsed in `m`'s context).
pub unsafe fn replace_with_text(m: LLVMModuleRef, text: &str) -> Result<(), String> {
    let src = parse(LLVMGetModuleContext(m), text.as_bytes()).map_err(|e| format!("internal error: the rewritten module does not parse: {e}"))?;
    clear(m);
    link_into(m, src)
}

/// Parses IR text or bitcode; the error is the reader's message.
pub unsafe fn parse(ctx: LLVMContextRef, bytes: &[u8]) -> Result<LLVMModuleRef, String> {
    let buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(bytes.as_ptr().cast(), bytes.len(), c"simt-to-nvptx".as_ptr());
    let mut out = std::ptr::null_mut();
    let mut msg = std::ptr::null_mut();
    let failed = llvm_sys::ir_reader::LLVMParseIRInContext2(ctx, buf, &mut out, &mut msg) != 0;
    LLVMDisposeMemoryBuffer(buf);
    if failed {
        let e = CStr::from_ptr(msg).to_string_lossy().into_owned();
        LLVMDisposeMessage(msg);
        return Err(e);
    }
    Ok(out)
}

/// Links `src` into `m` (LLVM's linker, `src` consumed).
pub unsafe fn link_into(m: LLVMModuleRef, src: LLVMModuleRef) -> Result<(), String> {
    if LLVMLinkModules2(m, src) != 0 {
        return Err("linking failed (LLVM's linker reported an error)".into());
    }
    Ok(())
}

/// Deletes every function and global variable of `m`.
unsafe fn clear(m: LLVMModuleRef) {
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

unsafe fn globals_and_functions(m: LLVMModuleRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
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
    out
}

/// Every instruction's uses go first (blocks refer to each other's values),
/// then the instructions, then the blocks.
unsafe fn delete_body(f: LLVMValueRef) {
    let mut insts = Vec::new();
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
