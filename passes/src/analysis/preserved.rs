//! What a pass kept valid, in the cache's terms: the set of the cache's
//! analyses ([`AnalysisKind`], one per line of the table in
//! [`super::cache`]) a pass returns ([`Preserved`], LLVM's
//! `PreservedAnalyses`). It lives beside the cache, not with the pass types,
//! so that the cache depends on nothing of `pass.rs` (which lends the cache
//! to passes).

/// One kind of cached analysis: generated, with the cache's fields, from
/// the table in [`super::cache`].
pub use super::cache::AnalysisKind;

// A `Preserved` is one bit per kind.
const _: () = assert!(AnalysisKind::ALL.len() <= u16::BITS as usize, "Preserved's bits hold at most 16 analyses");

const fn bit(kind: AnalysisKind) -> u16 {
    1 << kind as u16
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
        Preserved { bits: u16::MAX >> (u16::BITS as usize - AnalysisKind::ALL.len()) }
    }

    /// Anything may have changed, functions included.
    pub const fn none() -> Self {
        Preserved { bits: 0 }
    }

    /// Instructions changed, blocks and edges did not: the CFG analyses
    /// (scope `cfg` in the table) stay; uniformity, liveness and memory
    /// dependences (scope `body`) go.
    pub const fn cfg_analyses() -> Self {
        let mut bits = 0;
        let mut i = 0;
        while i < AnalysisKind::ALL.len() {
            if AnalysisKind::ALL[i].reads_only_cfg() {
                bits |= bit(AnalysisKind::ALL[i]);
            }
            i += 1;
        }
        Preserved { bits }
    }

    /// Exactly the analyses listed.
    pub fn of(kinds: &[AnalysisKind]) -> Self {
        Preserved { bits: kinds.iter().fold(0, |b, k| b | bit(*k)) }
    }

    pub fn preserves(self, kind: AnalysisKind) -> bool {
        self.bits & bit(kind) != 0
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
