//! The generator behind the analysis table in [`super::cache`]: one line per
//! cached analysis, from which this macro writes everything that must agree
//! about it, as rustc writes its MIR visitors from one definition.
//!
//! A line reads
//!
//! ```text
//! /// doc                    kind          accessor  type       in messages       scope  how it is computed
//! Dominators                 => dom:       DomTree,   "dominator tree",  cfg   = |fa| DomTree::dominators(&fa.cfg.cfg);
//! ```
//!
//! and yields, in table order:
//! - the [`AnalysisKind`](super::preserved::AnalysisKind) variant, its place
//!   in `AnalysisKind::ALL`, its name in messages (`describe`) and whether it
//!   reads the blocks and edges alone (scope `cfg`) or instructions too
//!   (`body`), which is what [`Preserved::cfg_analyses`](super::preserved::Preserved::cfg_analyses)
//!   keeps;
//! - the field of `FunctionAnalyses` (a `OnceCell`) and its lazy accessor,
//!   where `fa` is the `FunctionAnalyses` itself, so one analysis may ask for
//!   another;
//! - dropping it by kind (the driver's invalidation by `Preserved`), whether
//!   it is cached, and the `-verify-analyses` comparison of the cached value
//!   with one computed afresh (every analysis type is `PartialEq`).

/// `cfg` or `body`, as a constant: whether an analysis reads only the CFG.
macro_rules! analysis_reads_only_cfg {
    (cfg) => {
        true
    };
    (body) => {
        false
    };
}

/// Writes `AnalysisKind` and `FunctionAnalyses<'ctx>` from the table (see
/// the module's documentation). The `'ctx` of the table's types is the
/// lifetime named at the head of the invocation.
macro_rules! analyses {
    (
        <$ctx:lifetime>
        $(
            $(#[$doc:meta])*
            $kind:ident => $name:ident : $ty:ty, $describe:literal, $scope:ident = |$fa:ident| $compute:expr;
        )+
    ) => {
        /// One kind of cached per-function analysis (one line of the table
        /// in [`crate::analysis::cache`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum AnalysisKind {
            $( $(#[$doc])* $kind, )+
        }

        impl AnalysisKind {
            /// Every kind, in table order.
            pub const ALL: [AnalysisKind; [$(AnalysisKind::$kind),+].len()] = [$(AnalysisKind::$kind),+];

            /// What error messages call it.
            pub const fn describe(self) -> &'static str {
                match self {
                    $( AnalysisKind::$kind => $describe, )+
                }
            }

            /// Whether it is computed from the blocks and edges alone, so
            /// that a pass that changes instructions only keeps it.
            pub const fn reads_only_cfg(self) -> bool {
                match self {
                    $( AnalysisKind::$kind => $crate::analysis::table::analysis_reads_only_cfg!($scope), )+
                }
            }
        }

        /// The analyses of one function, each computed on first use.
        pub struct FunctionAnalyses<$ctx> {
            pub cfg: FunctionCfg<$ctx>,
            $( $name: OnceCell<$ty>, )+
        }

        impl<$ctx> FunctionAnalyses<$ctx> {
            pub fn new(function: FunctionValue<$ctx>) -> Self {
                FunctionAnalyses { cfg: FunctionCfg::new(function), $( $name: OnceCell::new(), )+ }
            }

            $(
                $(#[$doc])*
                pub fn $name(&self) -> &$ty {
                    self.$name.get_or_init(|| {
                        let $fa = self;
                        $compute
                    })
                }
            )+

            /// Forgets `kind`; the next ask computes it again.
            fn drop_analysis(&mut self, kind: AnalysisKind) {
                match kind {
                    $( AnalysisKind::$kind => self.$name = OnceCell::new(), )+
                }
            }

            /// Whether `kind` has been computed and is held.
            pub fn is_cached(&self, kind: AnalysisKind) -> bool {
                match kind {
                    $( AnalysisKind::$kind => self.$name.get().is_some(), )+
                }
            }

            /// The first (in table order) cached analysis that differs from
            /// the one `fresh` computes: `fresh` is the same function, its
            /// CFG unchanged since `self` was built.
            fn first_stale(&self, fresh: &Self) -> Option<AnalysisKind> {
                $(
                    if let Some(cached) = self.$name.get() {
                        if cached != fresh.$name() {
                            return Some(AnalysisKind::$kind);
                        }
                    }
                )+
                None
            }

            /// Computes `kind` (the tests' way to ask for one by kind).
            #[cfg(test)]
            fn compute(&self, kind: AnalysisKind) {
                match kind {
                    $( AnalysisKind::$kind => { self.$name(); } )+
                }
            }

            /// Moves the cached `kind` of `other` into `self` (the tests' way
            /// to plant a wrong analysis where no pass could).
            #[cfg(test)]
            fn swap_analysis(&mut self, other: &mut Self, kind: AnalysisKind) {
                match kind {
                    $( AnalysisKind::$kind => std::mem::swap(&mut self.$name, &mut other.$name), )+
                }
            }
        }
    };
}

pub(crate) use analyses;
pub(crate) use analysis_reads_only_cfg;
