//! CUDA's dynamic shared memory (`extern __shared__ T buf[];`, sized by the
//! third `<<<…>>>` argument) for `simt-run --shared-bytes N`.
//!
//! clang emits each such array as an external addrspace(3) declaration of
//! `[0 x T]`; in CUDA they all start at the same address, the start of the
//! launch's dynamic shared memory. Before any engine's front end, the
//! declarations become one defined `[N x i8]` variable (16-aligned, or more
//! where a declaration asks), so that every engine lays it out as static
//! shared memory of that size: the host's work-item loops, the emulator's
//! bounds (`--check bounds` sees exactly N bytes), and the GPU's PTX. The
//! module changes before the host's kernel cache hashes it, so N is part of
//! the key.
//!
//! Without `--shared-bytes` nothing changes: the host engine refuses the
//! declaration (naming the option), the emulator gives it no bytes.

use crate::diag::ToolError;
use inkwell::module::{Linkage, Module};
use inkwell::AddressSpace;

const SHARED: u16 = 3;

/// Gives the module's `extern __shared__` declarations `bytes` bytes, all at
/// one address; the number of declarations replaced.
pub fn size(module: &Module<'_>, bytes: u64) -> Result<usize, ToolError> {
    let decls: Vec<_> = module
        .get_globals()
        .filter(|g| g.is_declaration() && g.as_pointer_value().get_type().get_address_space() == AddressSpace::from(SHARED))
        .collect();
    if decls.is_empty() {
        return Ok(0);
    }
    let count = u32::try_from(bytes)
        .map_err(|_| ToolError::Usage(format!("error: --shared-bytes {bytes} is over 4G, more shared memory than any launch has")))?;
    let ctx = module.get_context();
    let ty = ctx.i8_type().array_type(count);
    let block = module.add_global(ty, Some(AddressSpace::from(SHARED)), "simt.dynamic_shared");
    block.set_linkage(Linkage::Internal);
    block.set_initializer(&ty.get_undef());
    block.set_alignment(decls.iter().map(|d| d.get_alignment()).max().unwrap_or(0).max(16));
    for d in &decls {
        d.as_pointer_value().replace_all_uses_with(block.as_pointer_value());
        // SAFETY: `d` has no uses left (just replaced) and is not used
        // again: `decls` is dropped below.
        unsafe { d.delete() };
    }
    Ok(decls.len())
}
