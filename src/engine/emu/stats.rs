//! What an emulated launch reports: issued warp-instructions, lanes that ran
//! them, SIMD efficiency, convergence checks, divergence per block.

use super::exec::Counters;
use super::program::Program;
use crate::diag::format_seconds;
use crate::launch::Policy;

/// Blocks listed in the text summary, most divergent first.
const SUMMARY_BLOCKS: usize = 5;

#[derive(Clone, Debug, PartialEq)]
pub struct EmuStats {
    pub policy: Policy,
    pub warp_width: u32,
    pub counters: Counters,
    /// Block names, layout order (index = `counters.block_divergence`).
    pub block_names: Vec<String>,
    /// Seconds of the run the counters come from.
    pub seconds: f64,
    /// `@simt.converge` markers in the IR; 0 with `markers` means the
    /// decoder chose the check points (joins, loop exits).
    pub explicit_markers: usize,
    /// Blocks that start with a convergence check (`markers`, implicit).
    pub check_blocks: usize,
    /// `--check races,uninit`: what the checks found (first run).
    pub check: Option<super::check::Findings>,
}

impl EmuStats {
    pub fn new(p: &Program, counters: Counters, seconds: f64) -> EmuStats {
        EmuStats {
            policy: p.policy(),
            warp_width: p.width(),
            counters,
            block_names: p.blocks().iter().map(|b| b.name.clone()).collect(),
            seconds,
            explicit_markers: p.explicit_markers(),
            check_blocks: p.blocks().iter().filter(|b| b.check).count(),
            check: None,
        }
    }

    /// Active lanes / (issued warp-instructions × width); 1 when nothing ran.
    pub fn simd_efficiency(&self) -> f64 {
        let c = &self.counters;
        if c.warp_instructions == 0 {
            return 1.0;
        }
        c.lane_instructions as f64 / (c.warp_instructions as f64 * self.warp_width as f64)
    }

    pub fn lane_instructions_per_second(&self) -> Option<f64> {
        (self.seconds > 0.0).then(|| self.counters.lane_instructions as f64 / self.seconds)
    }

    /// Divergent branches per block, layout order, blocks with none left out.
    pub fn divergence_by_block(&self) -> Vec<(&str, u64)> {
        self.block_names.iter().zip(&self.counters.block_divergence).filter(|(_, &n)| n > 0).map(|(b, &n)| (b.as_str(), n)).collect()
    }

    /// Lines for stderr.
    pub fn summary(&self) -> String {
        let c = &self.counters;
        let checks = match self.policy {
            Policy::Markers if self.explicit_markers > 0 => {
                format!(", {} convergence checks ({} markers in the IR)", c.convergence_checks, self.explicit_markers)
            }
            Policy::Markers => {
                format!(", {} convergence checks (no markers in the IR: {} join/loop-exit blocks)", c.convergence_checks, self.check_blocks)
            }
            Policy::Ipdom => format!(", {} convergence checks (reconvergence points reached)", c.convergence_checks),
            Policy::None => String::new(),
        };
        let mut s = format!(
            "emu: policy {}, warp width {}: {} warp-instructions, {} lane-instructions, SIMD efficiency {:.1}%\n\
             emu: {} divergent branches, {} merges{checks}, {} barriers",
            self.policy.name(),
            self.warp_width,
            c.warp_instructions,
            c.lane_instructions,
            100.0 * self.simd_efficiency(),
            c.divergent_branches,
            c.merges,
            c.barriers,
        );
        if let Some(rate) = self.lane_instructions_per_second() {
            s.push_str(&format!(
                "\nemu: {:.1}M lane-instructions/s ({} for {} lane-instructions)",
                rate / 1e6,
                format_seconds(self.seconds),
                c.lane_instructions
            ));
        }
        let mut by_block = self.divergence_by_block();
        if !by_block.is_empty() {
            by_block.sort_by_key(|b| std::cmp::Reverse(b.1));
            let shown: Vec<String> = by_block.iter().take(SUMMARY_BLOCKS).map(|(b, n)| format!("{b} {n}")).collect();
            let more = if by_block.len() > SUMMARY_BLOCKS {
                format!(", … {} more blocks", by_block.len() - SUMMARY_BLOCKS)
            } else {
                String::new()
            };
            s.push_str(&format!("\nemu: divergent branches by block: {}{more}", shown.join(", ")));
        }
        s
    }
}
