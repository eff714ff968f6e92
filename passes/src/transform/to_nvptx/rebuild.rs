//! Replacing a module's contents in place: with text (after a rewrite the C
//! API cannot do on values, see `addrspace`) or by linking another module in
//! (libdevice).
//!
//! Passes get `&Module` and cannot swap it for another, so the module is
//! emptied (`ir::link::clear_module`: every use of every global replaced by
//! poison first, so no constant expression is left pointing at a deleted
//! global) and the new contents are linked into it with LLVM's linker, which
//! keeps names as they are when the destination is empty. Limit: named
//! metadata (`!llvm.ident`, `!opencl.ocl.version`) cannot be deleted through
//! the C API and ends up listed twice, which is harmless.

use crate::ir::link::{clear_module, link_into, parse_in, Detached};
use inkwell::module::Module;

/// Replaces everything in `m` by the module `text` describes (parsed in
/// `m`'s context). Handles into `m` end here.
pub fn replace_with_text(m: &Module<'_>, text: &str) -> Result<(), String> {
    let src = parse(m, text.as_bytes()).map_err(|e| format!("internal error: the rewritten module does not parse: {e}"))?;
    clear_module(m);
    link_into(m, src)
}

/// Parses IR text or bitcode in `like`'s context; the error is the reader's message.
pub fn parse<'ctx>(like: &Module<'ctx>, bytes: &[u8]) -> Result<Detached<'ctx>, String> {
    parse_in(like, "simt-to-nvptx", bytes)
}
