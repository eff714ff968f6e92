//! Divergence profiles: how often each block of a kernel ran and how often
//! its conditional branch split a warp, as `simt-run --engine emu --profile
//! FILE` measures them and `simt-ifconvert<profile=FILE>` reads them.
//!
//! The file is JSON (format `simt-divergence-profile/1`):
//!
//! ```text
//! { "format": "simt-divergence-profile/1", "policy": "ipdom", "warp_width": 32,
//!   "functions": [ { "name": "k", "ir_hash": "fnv1a64:<16 hex digits>",
//!     "blocks": [ { "index": 0, "name": "entry", "entries": 128, "runs": 128, "splits": 16 }, ... ] } ] }
//! ```
//!
//! A block is named by its index in the function's layout order (`name` is
//! for people; unnamed blocks have their slot number); `entries` counts the
//! lane groups (a warp, or part of one after a split) that started running
//! the block, `runs` the lane groups that ran its terminator when that is a
//! conditional branch or a switch, `splits` the runs whose active lanes went
//! to more than one target. `ir_hash` is FNV-1a over the function's printed
//! IR as the profiled module held it, so a profile taken from another
//! version of the function is detected rather than misapplied.
//!
//! Limits: only the kernel that ran is profiled (its helpers run inlined,
//! as copies that are not the helper's blocks); the counts depend on the
//! policy and warp width, which the file records but the reader does not
//! check.

use inkwell::values::{AnyValue, FunctionValue};
use serde::{Deserialize, Serialize};
use std::path::Path;

pub const FORMAT: &str = "simt-divergence-profile/1";

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BranchProfile {
    pub format: String,
    pub policy: String,
    pub warp_width: u32,
    pub functions: Vec<FunctionProfile>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionProfile {
    pub name: String,
    pub ir_hash: String,
    pub blocks: Vec<BlockProfile>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockProfile {
    pub index: u32,
    pub name: String,
    pub entries: u64,
    pub runs: u64,
    pub splits: u64,
}

impl BranchProfile {
    /// Reads and checks a profile file.
    pub fn read(path: &Path) -> Result<BranchProfile, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read the profile {}: {e}", path.display()))?;
        let p: BranchProfile = serde_json::from_str(&text).map_err(|e| format!("{} is not a divergence profile: {e}", path.display()))?;
        if p.format != FORMAT {
            return Err(format!("{}: profile format '{}', expected '{FORMAT}'", path.display(), p.format));
        }
        for f in &p.functions {
            for (i, b) in f.blocks.iter().enumerate() {
                if b.index as usize != i || b.splits > b.runs {
                    return Err(format!(
                        "{}: function '{}': block entry {i} is inconsistent (index {}, {} splits of {} runs)",
                        path.display(),
                        f.name,
                        b.index,
                        b.splits,
                        b.runs
                    ));
                }
            }
        }
        Ok(p)
    }

    pub fn function(&self, name: &str) -> Option<&FunctionProfile> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// Adds `f`'s counts: to the function's if the hash is the same
    /// (several launches of one kernel), else in its place.
    pub fn merge(&mut self, f: FunctionProfile) {
        match self.functions.iter_mut().find(|g| g.name == f.name) {
            Some(g) if g.ir_hash == f.ir_hash && g.blocks.len() == f.blocks.len() => {
                for (a, b) in g.blocks.iter_mut().zip(&f.blocks) {
                    a.entries += b.entries;
                    a.runs += b.runs;
                    a.splits += b.splits;
                }
            }
            Some(g) => *g = f,
            None => self.functions.push(f),
        }
    }
}

/// The profile's identity of a function's IR: FNV-1a (64 bits) over its
/// printed text. Stable across runs and builds (unlike `DefaultHasher`).
pub fn ir_hash(f: FunctionValue<'_>) -> String {
    let text = f.print_to_string().to_string();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("fnv1a64:{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(index: u32, runs: u64, splits: u64) -> BlockProfile {
        BlockProfile { index, name: format!("b{index}"), entries: runs, runs, splits }
    }

    #[test]
    fn merge_adds_same_hash_and_replaces_another() {
        let f = |h: &str, r| FunctionProfile { name: "k".into(), ir_hash: h.into(), blocks: vec![block(0, r, 1)] };
        let mut p = BranchProfile::default();
        p.merge(f("a", 4));
        p.merge(f("a", 6));
        assert_eq!(p.functions[0].blocks[0].runs, 10);
        assert_eq!(p.functions[0].blocks[0].splits, 2);
        p.merge(f("b", 3));
        assert_eq!(p.functions.len(), 1);
        assert_eq!(p.functions[0].blocks[0].runs, 3);
    }

    #[test]
    fn read_rejects_other_formats_and_inconsistent_counts() {
        let dir = std::env::temp_dir().join(format!("simt-branch-profile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("p.json");
        let mut p = BranchProfile { format: FORMAT.into(), policy: "ipdom".into(), warp_width: 32, functions: vec![] };
        p.functions.push(FunctionProfile { name: "k".into(), ir_hash: "h".into(), blocks: vec![block(0, 2, 1)] });
        std::fs::write(&path, serde_json::to_string(&p).unwrap()).unwrap();
        assert_eq!(BranchProfile::read(&path).unwrap(), p);
        p.functions[0].blocks[0].splits = 3;
        std::fs::write(&path, serde_json::to_string(&p).unwrap()).unwrap();
        assert!(BranchProfile::read(&path).unwrap_err().contains("inconsistent"));
        p.format = "other/1".into();
        std::fs::write(&path, serde_json::to_string(&p).unwrap()).unwrap();
        assert!(BranchProfile::read(&path).unwrap_err().contains("profile format"));
        std::fs::write(&path, "{").unwrap();
        assert!(BranchProfile::read(&path).unwrap_err().contains("not a divergence profile"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
