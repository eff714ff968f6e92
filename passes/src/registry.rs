//! Every pass and printer by its pipeline name, in one place.
//!
//! Names follow `opt`: `simt-NAME`, `simt-NAME<opt;key=value>` and
//! `print<simt-ANALYSIS>`. An unknown name is an error that lists the valid ones.

use crate::pass::{ModulePass, PassError};
use crate::printers::{Analysis, Printer};
use crate::transform::check_uniformity::CheckUniformity;
use crate::transform::converge::Converge;
use crate::transform::ocl_builtins::LowerOclBuiltins;
use crate::transform::strip_markers::StripMarkers;
use crate::transform::rpo_layout::RpoLayout;
use crate::transform::testing::BreakModule;
use crate::transform::to_nvptx::ToNvptx;
use crate::transform::wiloops::flatten::FlattenCalls;
use crate::transform::wiloops::WorkItemLoops;

pub struct PassInfo {
    pub name: &'static str,
    pub summary: &'static str,
    /// `(option, meaning)` pairs accepted inside `<…>`.
    pub options: &'static [(&'static str, &'static str)],
    /// Testing hooks are accepted but not listed.
    pub hidden: bool,
    kind: Kind,
}

/// What a registry entry builds.
#[derive(Clone, Copy)]
enum Kind {
    Printer(Analysis),
    WorkItemLoops,
    FlattenCalls,
    LowerOclBuiltins,
    ToNvptx,
    RpoLayout,
    BreakModule,
    Converge,
    StripMarkers,
    CheckUniformity,
}

/// One `key` or `key=value` from inside `<…>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opt {
    pub key: String,
    pub value: Option<String>,
}

fn no_options(name: &str, opts: &[Opt]) -> Result<(), PassError> {
    match opts.first() {
        None => Ok(()),
        Some(o) => Err(PassError::BadOption { pass: name.into(), message: format!("takes no options, got '{}'", o.key) }),
    }
}

pub fn passes() -> Vec<PassInfo> {
    let p = |name, summary, a| PassInfo { name, summary, options: &[], hidden: false, kind: Kind::Printer(a) };
    vec![
        p("print<simt-cfg>", "blocks in layout order with successors and reverse post-order", Analysis::Cfg),
        p("print<simt-domtree>", "immediate dominators (Semi-NCA)", Analysis::DomTree),
        p("print<simt-postdomtree>", "immediate post-dominators (virtual exit, infinite loops rooted)", Analysis::PostDomTree),
        p("print<simt-loops>", "natural loops: nesting, latches, exiting and exit blocks; irreducible cycles", Analysis::Loops),
        p("print<simt-ctrldeps>", "control dependences with edge labels", Analysis::ControlDeps),
        p("print<simt-uniformity>", "divergent values, branches, join blocks and loops of SIMT kernels", Analysis::Uniformity),
        p("print<simt-convergence>", "convergence markers of seed 000's queue walk, with reasons; all vs divergent-only counts", Analysis::Convergence),
        PassInfo {
            name: "simt-wiloops",
            summary: "kernels with barriers become CPU functions running one work-group (work-item loops, seed 001)",
            options: &[
                ("interleave=N", "also emit simt_wgi_K, interleaving N work-groups in balanced loop groups"),
                ("local-size=X,Y,Z", "specialise for this work-group size (constant trip counts, as pocl does)"),
            ],
            hidden: false,
            kind: Kind::WorkItemLoops,
        },
        PassInfo {
            name: "simt-flatten-calls",
            summary: "inlines into kernels every call to a function that uses barriers or work-item builtins (pocl's Flatten)",
            options: &[],
            hidden: false,
            kind: Kind::FlattenCalls,
        },
        PassInfo {
            name: "simt-lower-ocl-builtins",
            summary: "OpenCL C built-in calls (atomics, math, integer) become LLVM IR for CPUs",
            options: &[],
            hidden: false,
            kind: Kind::LowerOclBuiltins,
        },
        PassInfo {
            name: "simt-to-nvptx",
            summary: "OpenCL C kernels (spir64) become CUDA-dialect IR for nvptx64: builtins, barriers, local arguments",
            options: &[],
            hidden: false,
            kind: Kind::ToNvptx,
        },
        PassInfo {
            name: "simt-converge",
            summary: "calls to @simt.converge(i32 block) where threads should reconverge (joins, loop exits; seed 000)",
            options: &[
                ("divergent-only", "only where divergent branches' paths meet and at exits of loops with divergent exits"),
                ("intrinsics", "give markers llvm.experimental.convergence entry/loop/anchor tokens"),
            ],
            hidden: false,
            kind: Kind::Converge,
        },
        PassInfo {
            name: "simt-strip-markers",
            summary: "removes @simt.converge calls and convergence control tokens and bundles, for lowering",
            options: &[],
            hidden: false,
            kind: Kind::StripMarkers,
        },
        PassInfo {
            name: "simt-rpo-layout",
            summary: "lays blocks out in reverse post-order (loop bodies before exits) so PC order is a good reconvergence priority",
            options: &[],
            hidden: false,
            kind: Kind::RpoLayout,
        },
        PassInfo {
            name: "simt-check-uniformity",
            summary: "calls @simt.check.uniform.<ty>(v, id) at every value and use the uniformity analysis calls uniform (run-time oracle)",
            options: &[("assume-uniform", "claim every value and branch uniform (to show the oracle sees a wrong claim)")],
            hidden: false,
            kind: Kind::CheckUniformity,
        },
        PassInfo {
            name: "simt-testing-break-module",
            summary: "testing hook: removes the first function's entry terminator",
            options: &[],
            hidden: true,
            kind: Kind::BreakModule,
        },
    ]
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
    let all = passes();
    let info = all.iter().find(|p| p.name == name).ok_or_else(|| PassError::UnknownPass { name: element.into() })?;
    match info.kind {
        Kind::Printer(a) => no_options(name, &opts).map(|_| Box::new(Printer(a)) as Box<dyn ModulePass>),
        Kind::WorkItemLoops => {
            let mut pass = WorkItemLoops::default();
            for o in &opts {
                match (o.key.as_str(), o.value.as_deref().map(str::parse::<u32>)) {
                    ("interleave", Some(Ok(n))) if (1..=64).contains(&n) => pass.interleave = n,
                    ("local-size", _) => {
                        let dims: Vec<u64> = o.value.as_deref().unwrap_or("").split(',').filter_map(|d| d.trim().parse().ok()).collect();
                        if dims.is_empty() || dims.len() > 3 || dims.contains(&0) {
                            return Err(PassError::BadOption {
                                pass: name.into(),
                                message: format!("local-size takes 1 to 3 positive sizes, got '{}'", o.value.as_deref().unwrap_or("")),
                            });
                        }
                        let mut size = [1u64; 3];
                        size[..dims.len()].copy_from_slice(&dims);
                        pass.local_size = Some(size);
                    }
                    _ => {
                        return Err(PassError::BadOption {
                            pass: name.into(),
                            message: format!("unknown or invalid option '{}' (expected interleave=N, N in 1..=64, or local-size=X,Y,Z)", o.key),
                        })
                    }
                }
            }
            Ok(Box::new(pass) as Box<dyn ModulePass>)
        }
        Kind::RpoLayout => no_options(name, &opts).map(|_| Box::new(RpoLayout) as Box<dyn ModulePass>),
        Kind::ToNvptx => no_options(name, &opts).map(|_| Box::new(ToNvptx) as Box<dyn ModulePass>),
        Kind::FlattenCalls => no_options(name, &opts).map(|_| Box::new(FlattenCalls) as Box<dyn ModulePass>),
        Kind::LowerOclBuiltins => no_options(name, &opts).map(|_| Box::new(LowerOclBuiltins) as Box<dyn ModulePass>),
        Kind::BreakModule => no_options(name, &opts).map(|_| Box::new(BreakModule) as Box<dyn ModulePass>),
        Kind::Converge => {
            let mut pass = Converge::default();
            for o in &opts {
                match (o.key.as_str(), &o.value) {
                    ("divergent-only", None) => pass.divergent_only = true,
                    ("intrinsics", None) => pass.intrinsics = true,
                    _ => {
                        return Err(PassError::BadOption {
                            pass: name.into(),
                            message: format!("unknown or invalid option '{}' (expected divergent-only, intrinsics)", o.key),
                        })
                    }
                }
            }
            Ok(Box::new(pass) as Box<dyn ModulePass>)
        }
        Kind::StripMarkers => no_options(name, &opts).map(|_| Box::new(StripMarkers) as Box<dyn ModulePass>),
        Kind::CheckUniformity => {
            let mut pass = CheckUniformity::default();
            for o in &opts {
                match (o.key.as_str(), &o.value) {
                    ("assume-uniform", None) => pass.assume_uniform = true,
                    _ => {
                        return Err(PassError::BadOption {
                            pass: name.into(),
                            message: format!("unknown or invalid option '{}' (expected assume-uniform)", o.key),
                        })
                    }
                }
            }
            Ok(Box::new(pass) as Box<dyn ModulePass>)
        }
    }
}

/// Names of the passes a user can list, for error messages and `-print-passes`.
pub fn listed_names() -> Vec<&'static str> {
    passes().iter().filter(|p| !p.hidden).map(|p| p.name).collect()
}

/// `simt-x<a;b=2>` → (`simt-x`, [a, b=2]); `print<simt-y>` stays whole.
fn split_options(element: &str) -> Result<(&str, Vec<Opt>), PassError> {
    if element.starts_with("print<") {
        return Ok((element, Vec::new()));
    }
    let Some(open) = element.find('<') else { return Ok((element, Vec::new())) };
    let name = &element[..open];
    let inner = element[open + 1..].strip_suffix('>').ok_or_else(|| PassError::BadOption {
        pass: name.into(),
        message: format!("unbalanced '<' in '{element}'"),
    })?;
    let opts = inner
        .split(';')
        .filter(|s| !s.trim().is_empty())
        .map(|s| match s.split_once('=') {
            Some((k, v)) => Opt { key: k.trim().into(), value: Some(v.trim().into()) },
            None => Opt { key: s.trim().into(), value: None },
        })
        .collect();
    Ok((name, opts))
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
        assert!(matches!(build("simt-nope"), Err(PassError::UnknownPass { .. })));
        assert!(matches!(build("print<simt-domtree>"), Ok(_)));
        assert!(is_ours("print<simt-loops>") && is_ours(" simt-x") && !is_ours("instcombine"));
        assert!(!listed_names().contains(&"simt-testing-break-module"));
    }
}
