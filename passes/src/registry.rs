//! Every pass and printer by its pipeline name: one line each.
//!
//! Names follow `opt`: `simt-NAME`, `simt-NAME<opt;key=value>` and
//! `print<simt-ANALYSIS>`. Each pass declares itself in its own file
//! ([`DeclaredPass`](crate::pass::DeclaredPass)); adding a pass is its file and
//! one line below. An unknown name is an error that lists the valid ones.

use crate::pass::{ModulePass, Opt, PassDecl, PassError};
use crate::transform::{
    byval_private, check_uniformity, converge, deaggregate, ifconvert, inline_helpers, internalize, local_atomics, lockstep, memdse,
    memfwd, ocl_builtins, rpo_layout, strip_markers, subgroups, swp, testing, to_nvptx, warp_exchange, widen_indices, wiloops,
    wiloops_version,
};

/// The passes, in the order `-print-passes` lists them (printers first).
const PASSES: &[PassDecl] = &[
    PassDecl::of::<wiloops::WorkItemLoops>(),
    PassDecl::of::<wiloops_version::WiloopsVersion>(),
    PassDecl::of::<wiloops::flatten::FlattenCalls>(),
    PassDecl::of::<warp_exchange::WarpExchange>(),
    PassDecl::of::<subgroups::Subgroups>(),
    PassDecl::of::<deaggregate::DeaggregateAtomics>(),
    PassDecl::of::<local_atomics::LocalAtomics>(),
    PassDecl::of::<lockstep::LockstepLoops>(),
    PassDecl::of::<ocl_builtins::LowerOclBuiltins>(),
    PassDecl::of::<to_nvptx::ToNvptx>(),
    PassDecl::of::<converge::Converge>(),
    PassDecl::of::<ifconvert::IfConvert>(),
    PassDecl::of::<strip_markers::StripMarkers>(),
    PassDecl::of::<rpo_layout::RpoLayout>(),
    PassDecl::of::<memdse::MemDse>(),
    PassDecl::of::<memfwd::MemFwd>(),
    PassDecl::of::<check_uniformity::CheckUniformity>(),
    PassDecl::of::<swp::Swp>(),
    // Hidden: `simt-run`'s front ends (each engine's is one pipeline, in the
    // tool's `frontend.rs`), runnable by name in any pipeline.
    PassDecl::of::<internalize::Internalize>(),
    PassDecl::of::<byval_private::ByvalToPrivate>(),
    PassDecl::of::<inline_helpers::AlwaysInlineHelpers>(),
    PassDecl::of::<widen_indices::WidenIndices>(),
    // Hidden: the driver's own tests.
    PassDecl::of::<testing::BreakModule>(),
    PassDecl::of::<testing::LiePreserved>(),
    PassDecl::of::<testing::Panic>(),
];

/// Every registered pass and printer.
pub fn passes() -> impl Iterator<Item = &'static PassDecl> {
    crate::printers::PRINTERS.iter().chain(PASSES)
}

/// Whether a pipeline element names one of our passes rather than LLVM's.
pub fn is_ours(element: &str) -> bool {
    let e = element.trim();
    e.starts_with("simt-") || e.starts_with("print<simt-")
}

/// Builds the pass an element such as `simt-wiloops<interleave=2>` names.
pub fn build(element: &str) -> Result<Box<dyn ModulePass>, PassError> {
    let element = element.trim();
    let (name, opts) = split_options(element)?;
    let decl = passes().find(|p| p.name == name.as_str()).ok_or_else(|| PassError::UnknownPass { name: element.into() })?;
    (decl.build)(&opts)
}

/// Whether an element names one of our passes, whatever its options (a pass
/// plugin claims it, and running it reports bad options).
pub fn knows(element: &str) -> bool {
    !matches!(build(element), Err(PassError::UnknownPass { .. }))
}

/// Names of the passes a user can list, for error messages and `-print-passes`.
pub fn listed_names() -> Vec<&'static str> {
    passes().filter(|p| !p.hidden).map(|p| p.name).collect()
}

/// `simt-x<a;b=2>` → (`simt-x`, [a, b=2]); `print<simt-y>` stays whole;
/// `print<simt-y<a=1>>` → (`print<simt-y>`, [a=1]).
fn split_options(element: &str) -> Result<(String, Vec<Opt>), PassError> {
    if let Some(inner) = element.strip_prefix("print<").and_then(|r| r.strip_suffix('>')) {
        return match inner.find('<') {
            Some(open) if !inner[..open].contains('>') && inner.ends_with('>') => {
                let (name, opts) = split_options(inner)?;
                Ok((format!("print<{name}>"), opts))
            }
            _ => Ok((element.to_string(), Vec::new())),
        };
    }
    let Some(open) = element.find('<') else { return Ok((element.to_string(), Vec::new())) };
    let name = &element[..open];
    let inner = element[open + 1..]
        .strip_suffix('>')
        .ok_or_else(|| PassError::BadOption { pass: name.into(), message: format!("unbalanced '<' in '{element}'") })?;
    let opts = inner
        .split(';')
        .filter(|s| !s.trim().is_empty())
        .map(|s| match s.split_once('=') {
            Some((k, v)) => Opt { key: k.trim().into(), value: Some(v.trim().into()) },
            None => Opt { key: s.trim().into(), value: None },
        })
        .collect();
    Ok((name.to_string(), opts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_syntax() {
        let (n, o) = split_options("simt-x<interleave=3;fast>").unwrap();
        assert_eq!(n, "simt-x");
        assert_eq!(o, vec![Opt { key: "interleave".into(), value: Some("3".into()) }, Opt { key: "fast".into(), value: None }]);
        assert!(split_options("simt-x<a").is_err());
        let (n, o) = split_options("print<simt-modsched<machine=hexagon>>").unwrap();
        assert_eq!((n.as_str(), o), ("print<simt-modsched>", vec![Opt { key: "machine".into(), value: Some("hexagon".into()) }]));
        assert_eq!(split_options("print<simt-domtree><x>").unwrap().0, "print<simt-domtree><x>");
        assert!(matches!(build("simt-nope"), Err(PassError::UnknownPass { .. })));
        assert!(build("print<simt-domtree>").is_ok());
        assert!(is_ours("print<simt-loops>") && is_ours(" simt-x") && !is_ours("instcombine"));
        assert!(!listed_names().contains(&"simt-testing-break-module"));
        // The front ends' passes are hidden from the list, not from pipelines.
        assert!(!listed_names().contains(&"simt-internalize") && build("simt-internalize<keep=k>").is_ok());
        assert!(knows("simt-wiloops<local-size=abc>") && knows("print<simt-domtree>"));
        assert!(!knows("simt-nope") && !knows("instcombine"));
    }
}
