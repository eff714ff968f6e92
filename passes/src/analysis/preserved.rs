//! What a pass kept valid, in the cache's terms: the kinds of analysis the
//! cache ([`super::cache`]) holds per function, and the set of them a pass
//! returns ([`Preserved`], LLVM's `PreservedAnalyses`). They live beside the
//! cache, not with the pass types, so that the cache depends on nothing of
//! `pass.rs` (which lends the cache to passes).

/// One kind of cached per-function analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AnalysisKind {
    Dominators,
    PostDominators,
    Loops,
    Cycles,
    ControlDeps,
    Convergence,
    Uniformity,
    Liveness,
    /// Seed 003's memory dependences (reads instructions).
    MemDeps,
}

impl AnalysisKind {
    pub const ALL: [AnalysisKind; 9] = [
        AnalysisKind::Dominators,
        AnalysisKind::PostDominators,
        AnalysisKind::Loops,
        AnalysisKind::Cycles,
        AnalysisKind::ControlDeps,
        AnalysisKind::Convergence,
        AnalysisKind::Uniformity,
        AnalysisKind::Liveness,
        AnalysisKind::MemDeps,
    ];

    /// The analyses computed from the blocks and edges alone.
    pub const CFG: [AnalysisKind; 6] = [
        AnalysisKind::Dominators,
        AnalysisKind::PostDominators,
        AnalysisKind::Loops,
        AnalysisKind::Cycles,
        AnalysisKind::ControlDeps,
        AnalysisKind::Convergence,
    ];

    /// What error messages call it.
    pub fn describe(self) -> &'static str {
        match self {
            AnalysisKind::Dominators => "dominator tree",
            AnalysisKind::PostDominators => "post-dominator tree",
            AnalysisKind::Loops => "loop info",
            AnalysisKind::Cycles => "cycle info",
            AnalysisKind::ControlDeps => "control dependences",
            AnalysisKind::Convergence => "convergence points",
            AnalysisKind::Uniformity => "uniformity",
            AnalysisKind::Liveness => "liveness",
            AnalysisKind::MemDeps => "memory dependences",
        }
    }

    fn bit(self) -> u16 {
        1 << self as u16
    }
}

/// What a pass kept valid (LLVM's `PreservedAnalyses`): the driver drops
/// every cached analysis not named here. A pass that deleted or recreated
/// functions returns [`Preserved::none`], which drops the whole cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub struct Preserved {
    bits: u16,
}

impl Preserved {
    /// Nothing changed (printers, passes that found nothing to do).
    pub const fn all() -> Self {
        Preserved { bits: (1 << AnalysisKind::ALL.len()) - 1 }
    }

    /// Anything may have changed, functions included.
    pub const fn none() -> Self {
        Preserved { bits: 0 }
    }

    /// Instructions changed, blocks and edges did not: the CFG analyses stay,
    /// uniformity, liveness and memory dependences go.
    pub fn cfg_analyses() -> Self {
        Self::of(&AnalysisKind::CFG)
    }

    /// Exactly the analyses listed.
    pub fn of(kinds: &[AnalysisKind]) -> Self {
        Preserved { bits: kinds.iter().fold(0, |b, k| b | k.bit()) }
    }

    pub fn preserves(self, kind: AnalysisKind) -> bool {
        self.bits & kind.bit() != 0
    }

    pub fn is_all(self) -> bool {
        self == Self::all()
    }

    pub fn is_none(self) -> bool {
        self == Self::none()
    }

    /// What both keep: the answer of two steps run one after the other.
    pub fn intersect(self, other: Preserved) -> Self {
        Preserved { bits: self.bits & other.bits }
    }
}
