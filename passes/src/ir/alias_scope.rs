//! Scoped no-alias metadata (`!alias.scope`, `!noalias`, LLVM's
//! ScopedNoAliasAA): a memory access in scope S and one that lists S as
//! `noalias` do not touch the same bytes. `simt-wiloops` uses it to tell
//! LLVM that its scratch and uniform slots are memory the kernel's own
//! pointers never reach.
//!
//! Scopes are self-referential nodes (`!1 = !{!1, !0, !"name"}` in a domain
//! `!0 = !{!0, !"name"}`), made unique by the self-reference as clang's are,
//! so two calls never share one.

use super::value::Inst;
use inkwell::module::Module;
use llvm_sys::core::*;
use llvm_sys::debuginfo::{LLVMMetadataReplaceAllUsesWith, LLVMTemporaryMDNode};
use llvm_sys::prelude::*;
use std::marker::PhantomData;

/// One scope of a domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AliasScope<'ctx> {
    raw: LLVMMetadataRef,
    _ctx: PhantomData<&'ctx ()>,
}

/// A node `!{self, rest...}`, unique through its self-reference.
///
/// # Safety
/// `ctx` is a live context and `rest` live nodes of it.
unsafe fn self_referential(ctx: LLVMContextRef, rest: &[LLVMMetadataRef]) -> LLVMMetadataRef {
    // SAFETY: the caller's promise; the temporary node is replaced (and so
    // freed) by the node that refers to itself.
    unsafe {
        let temp = LLVMTemporaryMDNode(ctx, std::ptr::null_mut(), 0);
        let mut ops = vec![temp];
        ops.extend_from_slice(rest);
        let node = LLVMMDNodeInContext2(ctx, ops.as_mut_ptr(), ops.len());
        LLVMMetadataReplaceAllUsesWith(temp, node);
        node
    }
}

impl<'ctx> AliasScope<'ctx> {
    /// A fresh domain named `domain` with one fresh scope per name.
    pub fn domain(module: &Module<'ctx>, domain: &str, names: &[&str]) -> Vec<AliasScope<'ctx>> {
        // SAFETY: `module` is live (inkwell invariant), so is its context;
        // the strings are passed with their lengths.
        unsafe {
            let ctx = LLVMGetModuleContext(module.as_mut_ptr());
            let md_str = |s: &str| LLVMMDStringInContext2(ctx, s.as_ptr().cast(), s.len());
            let d = self_referential(ctx, &[md_str(domain)]);
            names.iter().map(|n| AliasScope { raw: self_referential(ctx, &[d, md_str(n)]), _ctx: PhantomData }).collect()
        }
    }
}

impl<'ctx> Inst<'ctx> {
    /// Puts this load, store or call in `scopes` and declares it not to
    /// alias any access in `noalias`; an empty list sets nothing.
    pub fn set_alias_scopes(self, scopes: &[AliasScope<'ctx>], noalias: &[AliasScope<'ctx>]) {
        // SAFETY: `self` is a live instruction, the scopes live nodes of its
        // context (both carry `'ctx`); lists are built from them.
        unsafe {
            let ctx = LLVMGetTypeContext(LLVMTypeOf(self.raw()));
            for (name, list) in [("alias.scope", scopes), ("noalias", noalias)] {
                if list.is_empty() {
                    continue;
                }
                let mut ops: Vec<LLVMMetadataRef> = list.iter().map(|s| s.raw).collect();
                let node = LLVMMDNodeInContext2(ctx, ops.as_mut_ptr(), ops.len());
                let kind = LLVMGetMDKindIDInContext(ctx, name.as_ptr().cast(), name.len() as u32);
                LLVMSetMetadata(self.raw(), kind, LLVMMetadataAsValue(ctx, node));
            }
        }
    }
}
