//! OpenCL (`spir64`) address spaces → NVPTX's, on the module's text.
//!
//! | OpenCL     | spir64 | NVPTX                                   |
//! |------------|--------|-----------------------------------------|
//! | private    | 0      | 0 (allocas; NVPTX moves them to local)  |
//! | global     | 1      | 1                                       |
//! | constant   | 2      | 1: device memory the kernel only reads  |
//! | local      | 3      | 3 (shared)                              |
//! | generic    | 4      | 0 (generic)                             |
//!
//! Why: NVPTX reads addrspace 4 as its *constant* space, so a helper taking
//! a generic pointer got `ld.const`/`st.const`. `__constant` becomes global
//! rather than NVPTX's constant bank because a `__constant` kernel argument
//! is a buffer the launcher allocates like any other (CUDA has no pointer
//! parameters into the 64 KiB constant bank), and one space for both
//! arguments and program-scope `__constant` variables keeps helpers that
//! take either one function.
//!
//! Why text: a pointer's address space is part of its type, and the C API
//! cannot change the type of a value in place (LLVM's own tools do this with
//! `ValueMapper`'s type remapping, which the C API does not expose). So the
//! module is printed, the types rewritten here, and the text parsed again
//! (see `rebuild`); the parser re-mangles intrinsic names (`llvm.memcpy.p4…`).
//! Limits: the rewrite is lexical on `addrspace(N)`, which in printed IR only
//! appears in types, global definitions and `addrspacecast`; a string
//! constant spelling `addrspace(4)` would be rewritten too (clang prints
//! string constants as `c"…"` with escapes, but a literal could still say it).

/// The module text with spir64's address spaces replaced by NVPTX's.
pub fn remap(text: &str) -> String {
    let text = text.replace(" addrspace(4)", "").replace("addrspace(2)", "addrspace(1)");
    same_space_casts_to_bitcasts(&text)
}

/// `addrspacecast ptr %p to ptr` (private → generic, both 0 now) is invalid
/// IR; a bitcast is the same no-op cast.
fn same_space_casts_to_bitcasts(text: &str) -> String {
    const CAST: &str = "addrspacecast ";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(CAST) {
        out.push_str(&rest[..at]);
        let after = &rest[at + CAST.len()..];
        let operand = after.strip_prefix('(').unwrap_or(after);
        let from_generic = operand.starts_with("ptr ") && !operand.starts_with("ptr addrspace(");
        let line_end = operand.find('\n').unwrap_or(operand.len());
        let to_generic = operand[..line_end].find(" to ptr").is_some_and(|k| !operand[k + " to ptr".len()..].starts_with(" addrspace("));
        out.push_str(if from_generic && to_generic { "bitcast " } else { CAST });
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::remap;

    #[test]
    fn generic_becomes_0_and_constant_global() {
        let t = "define void @f(ptr addrspace(4) %p, ptr addrspace(2) %c) {\n  %g = addrspacecast ptr addrspace(1) %q to ptr addrspace(4)\n  %a = addrspacecast ptr %x to ptr addrspace(4)\n  %b = addrspacecast ptr addrspace(3) %s to ptr addrspace(4)\n";
        assert_eq!(
            remap(t),
            "define void @f(ptr %p, ptr addrspace(1) %c) {\n  %g = addrspacecast ptr addrspace(1) %q to ptr\n  %a = bitcast ptr %x to ptr\n  %b = addrspacecast ptr addrspace(3) %s to ptr\n"
        );
    }

    #[test]
    fn constant_expression_casts() {
        assert_eq!(
            remap("store i32 0, ptr addrspace(4) addrspacecast (ptr @x to ptr addrspace(4))"),
            "store i32 0, ptr bitcast (ptr @x to ptr)"
        );
        assert_eq!(remap("addrspacecast (ptr addrspace(3) @l to ptr addrspace(4))"), "addrspacecast (ptr addrspace(3) @l to ptr)");
    }
}
