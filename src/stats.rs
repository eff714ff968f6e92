//! Timings and sizes of a run: one JSON object (`--stats json`) or a short
//! human summary. Compile time and kernel time are kept apart.
//!
//! # `--stats json`, schema version 1
//!
//! One object on one line of stdout, the same layout for every engine; the
//! structs below are its definition ([`StatsJson`] is the object):
//!
//! ```text
//! schema_version          1; raised when a field changes meaning or goes
//! engine, kernel          "host" | "emu" | "gpu"; the kernel's symbol
//! work_dim, global, local 1 to 3; sizes per dimension (work_dim entries)
//! work_groups, threads    work-groups and work-items in the launch
//! repeat                  runs (--repeat); kernel_seconds has one per run
//! compile_seconds         front end + code generation (or decoding)
//! kernel_seconds_best, _median, _mean   over the runs (null if none)
//! kernel_seconds          [seconds of run 1, run 2, …]
//! engine_details          an object per engine: HostDetails, EmuDetails, GpuDetails
//! compare                 with --compare only: CompareJson
//! emu counters            with --engine emu only, at the top level:
//!                         EmuCountersJson (policy, warp_width,
//!                         warp_instructions, simd_efficiency, …)
//! check                   with --check races/uninit only: CheckJson
//! ```
//!
//! Readers find a field in one place: e.g. the host's `interleaved` and
//! `linked` only in `engine_details`, the emulator's counters only at the
//! top level.

use crate::diag::format_seconds;
use crate::engine::buffers::CompareReport;
use crate::engine::emu::EmuStats;
use serde::Serialize;

/// `schema_version` of [`StatsJson`].
/// 2: the emulator's count of barriers completed is `barriers_completed`
/// (in 1 it was `barriers`, the name `engine_details` uses for the barriers
/// in the kernel).
pub const SCHEMA_VERSION: u32 = 2;

/// What every engine reports about a launch.
#[derive(Clone, Debug, PartialEq)]
pub struct RunStats {
    pub engine: String,
    pub kernel: String,
    pub work_dim: u32,
    pub global: [u64; 3],
    pub local: [u64; 3],
    pub work_groups: u64,
    /// Work-items in the launch.
    pub threads: u64,
    pub compile_seconds: f64,
    /// One entry per run (`--repeat`).
    pub kernel_seconds: Vec<f64>,
    pub engine_details: EngineDetails,
}

/// `engine_details`: what the engine made of the kernel and how it ran it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum EngineDetails {
    Host(HostDetails),
    Emu(EmuDetails),
    Gpu(GpuDetails),
}

/// `engine_details` of `--engine host`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HostDetails {
    /// Rayon workers running work-groups.
    pub workers: usize,
    /// `--interleave`.
    pub interleave: u32,
    /// "JIT (ORC LLJIT)" or "ahead of time (system linker, dlopen)" (`--aot`).
    pub linked: String,
    /// Whether the interleaved form ran: "off", "on, ring of N work-groups",
    /// or why not ("not applicable: …", "off: the ring … exceeds …").
    pub interleaved: String,
    /// The work-item loops' form: "regions" (a loop per barrier region) or
    /// "linear" (one copy entered through a resume switch: `--linear`, or
    /// kernels whose region copies would exceed 4x their blocks).
    pub form: String,
    pub scratch_bytes_per_item: u64,
    pub static_local_bytes: u64,
    /// Static plus `__local` arguments, per work-group.
    pub local_mem_bytes: u64,
    /// Barriers in the kernel.
    pub barriers: usize,
    /// The kernel cache (`src/engine/host/kernel_cache.rs`): "hit" (the object
    /// came from the cache: no front end, optimisation or code generation,
    /// which `compile_seconds` shows), "miss" (compiled, and stored),
    /// "rebuilt" (an invalid entry was removed; compiled and stored again)
    /// or "off" (`--no-cache`, or no folder for it).
    pub cache: String,
}

/// `engine_details` of `--engine emu`: the decoded program.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EmuDetails {
    pub policy: String,
    pub warp_width: u32,
    pub warps_per_group: u64,
    pub registers_per_lane: u32,
    pub instructions: usize,
    pub private_bytes_per_item: u64,
    pub static_local_bytes: u64,
    pub local_mem_bytes: u64,
    pub barriers: usize,
    /// `@simt.converge` markers in the IR.
    pub convergence_markers: usize,
    /// Blocks that start with a convergence check.
    pub check_blocks: usize,
}

/// `engine_details` of `--engine gpu`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GpuDetails {
    /// The device's name, as the driver gives it.
    pub device: String,
    /// The architecture the PTX was generated for (`sm_90`).
    pub arch: String,
}

/// The emulator's counters of the last run, at the top level of the object.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EmuCountersJson {
    pub policy: String,
    pub warp_width: u32,
    /// Instructions issued, each for one lane group of one warp.
    pub warp_instructions: u64,
    /// Sum over issued instructions of the lanes that ran them.
    pub lane_instructions: u64,
    /// lane_instructions / (warp_instructions × warp_width).
    pub simd_efficiency: f64,
    pub convergence_checks: u64,
    pub uniformity_checks: u64,
    pub merges: u64,
    pub divergent_branches: u64,
    /// Blocks with divergent branches, layout order.
    pub divergence_by_block: Vec<BlockDivergence>,
    /// Barriers completed (`engine_details.barriers` counts those in the
    /// kernel).
    #[serde(rename = "barriers_completed")]
    pub barriers: u64,
    /// The most lane groups one warp had at once.
    pub max_lane_groups: u64,
    pub warps: u64,
    /// null when the run took no measurable time.
    pub lane_instructions_per_second: Option<f64>,
    /// `--check races`/`uninit`: what the checks found (first run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check: Option<CheckJson>,
}

/// `check`: reports of `--check`, each pair of instructions (each
/// instruction, for uninitialised reads) counted once.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CheckJson {
    pub data_races: u64,
    pub uninitialised_reads: u64,
    /// Warp functions whose mask broke a rule (`--check warp`), each
    /// instruction counted once per rule.
    pub warp_mask_violations: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BlockDivergence {
    pub block: String,
    pub divergent_branches: u64,
}

impl From<&EmuStats> for EmuCountersJson {
    fn from(e: &EmuStats) -> EmuCountersJson {
        let c = &e.counters;
        EmuCountersJson {
            policy: e.policy.name().into(),
            warp_width: e.warp_width,
            warp_instructions: c.warp_instructions,
            lane_instructions: c.lane_instructions,
            simd_efficiency: e.simd_efficiency(),
            convergence_checks: c.convergence_checks,
            uniformity_checks: c.uniformity_checks,
            merges: c.merges,
            divergent_branches: c.divergent_branches,
            divergence_by_block: e
                .divergence_by_block()
                .into_iter()
                .map(|(b, n)| BlockDivergence { block: b.into(), divergent_branches: n })
                .collect(),
            barriers: c.barriers,
            max_lane_groups: c.max_groups,
            warps: c.warps,
            lane_instructions_per_second: e.lane_instructions_per_second(),
            check: e.check.as_ref().map(|f| CheckJson { data_races: f.races, uninitialised_reads: f.uninit, warp_mask_violations: f.warp }),
        }
    }
}

/// `compare`: the outcome of `--compare`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CompareJson {
    pub ok: bool,
    /// Buffers that had a reference file.
    pub buffers: usize,
    pub mismatched_buffers: usize,
    pub tolerance_ulps: u64,
    /// The largest distance in ULPs between a float element and its
    /// reference (0 when all are equal, or none is a float).
    pub max_ulps: u64,
}

impl From<&CompareReport> for CompareJson {
    fn from(r: &CompareReport) -> CompareJson {
        CompareJson {
            ok: r.ok(),
            buffers: r.compared.len(),
            mismatched_buffers: r.mismatches.len(),
            tolerance_ulps: r.tolerance_ulps,
            max_ulps: r.max_ulps,
        }
    }
}

/// The `--stats json` object (see the module's documentation).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StatsJson<'a> {
    pub schema_version: u32,
    pub engine: &'a str,
    pub kernel: &'a str,
    pub work_dim: u32,
    pub global: &'a [u64],
    pub local: &'a [u64],
    pub work_groups: u64,
    pub threads: u64,
    pub repeat: usize,
    pub compile_seconds: f64,
    pub kernel_seconds_best: Option<f64>,
    pub kernel_seconds_median: Option<f64>,
    pub kernel_seconds_mean: Option<f64>,
    pub kernel_seconds: &'a [f64],
    pub engine_details: &'a EngineDetails,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compare: Option<CompareJson>,
    #[serde(flatten)]
    pub emu: Option<EmuCountersJson>,
}

/// `--stats text`: each scalar of the JSON object `v` as a `key: value`
/// line, nested keys joined with `.` and array elements as `key[i]`
/// (an array of numbers on one line).
pub fn key_value_lines(v: &serde_json::Value) -> Vec<String> {
    use serde_json::Value;
    fn walk(key: &str, v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    walk(&if key.is_empty() { k.clone() } else { format!("{key}.{k}") }, x, out);
                }
            }
            Value::Array(a) if a.iter().all(|x| !x.is_object() && !x.is_array()) => {
                out.push(format!("{key}: [{}]", a.iter().map(scalar).collect::<Vec<_>>().join(", ")));
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    walk(&format!("{key}[{i}]"), x, out);
                }
            }
            _ => out.push(format!("{key}: {}", scalar(v))),
        }
    }
    fn scalar(v: &Value) -> String {
        match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        }
    }
    let mut out = Vec::new();
    walk("", v, &mut out);
    out
}

impl RunStats {
    pub fn repeat(&self) -> usize {
        self.kernel_seconds.len()
    }

    pub fn best(&self) -> f64 {
        self.kernel_seconds.iter().copied().fold(f64::INFINITY, f64::min)
    }

    pub fn median(&self) -> f64 {
        median(&self.kernel_seconds)
    }

    pub fn mean(&self) -> f64 {
        if self.kernel_seconds.is_empty() {
            return f64::NAN;
        }
        self.kernel_seconds.iter().sum::<f64>() / self.kernel_seconds.len() as f64
    }

    /// The `--stats json` object, with the emulator's counters and the
    /// `--compare` outcome when there are any.
    pub fn json(&self, emu: Option<&EmuStats>, compare: Option<&CompareReport>) -> StatsJson<'_> {
        let d = self.work_dim as usize;
        let finite = |x: f64| x.is_finite().then_some(x);
        StatsJson {
            schema_version: SCHEMA_VERSION,
            engine: &self.engine,
            kernel: &self.kernel,
            work_dim: self.work_dim,
            global: &self.global[..d],
            local: &self.local[..d],
            work_groups: self.work_groups,
            threads: self.threads,
            repeat: self.repeat(),
            compile_seconds: self.compile_seconds,
            kernel_seconds_best: finite(self.best()),
            kernel_seconds_median: finite(self.median()),
            kernel_seconds_mean: finite(self.mean()),
            kernel_seconds: &self.kernel_seconds,
            engine_details: &self.engine_details,
            compare: compare.map(CompareJson::from),
            emu: emu.map(EmuCountersJson::from),
        }
    }

    /// Two lines for stderr: the launch, then compile and kernel times.
    pub fn summary(&self) -> String {
        let d = self.work_dim as usize;
        let dims = |v: &[u64; 3]| v[..d].iter().map(u64::to_string).collect::<Vec<_>>().join("x");
        let times = if self.repeat() == 1 {
            format!("kernel {}", format_seconds(self.best()))
        } else {
            format!("kernel best {}, median {} over {} runs", format_seconds(self.best()), format_seconds(self.median()), self.repeat())
        };
        format!(
            "kernel '{}' on {}: global {}, local {}: {} work-groups, {} work-items\ncompile {}; {times}",
            self.kernel,
            self.engine,
            dims(&self.global),
            dims(&self.local),
            self.work_groups,
            self.threads,
            format_seconds(self.compile_seconds),
        )
    }
}

/// The median (mean of the middle two for an even count); NaN when empty.
pub fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn stats(times: Vec<f64>) -> RunStats {
        RunStats {
            engine: "host".into(),
            kernel: "vadd".into(),
            work_dim: 2,
            global: [1024, 4, 1],
            local: [64, 2, 1],
            work_groups: 32,
            threads: 4096,
            compile_seconds: 0.25,
            kernel_seconds: times,
            engine_details: EngineDetails::Gpu(GpuDetails { device: "a GPU".into(), arch: "sm_90".into() }),
        }
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&[5.0]), 5.0);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn json_has_the_promised_keys() {
        let s = stats(vec![0.3, 0.1, 0.2, 0.5]);
        let text = serde_json::to_string(&s.json(None, None)).unwrap();
        assert!(!text.contains('\n'));
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["schema_version"], SCHEMA_VERSION);
        assert_eq!(v["engine"], "host");
        assert_eq!(v["kernel"], "vadd");
        assert_eq!(v["repeat"], 4);
        assert_eq!(v["compile_seconds"], 0.25);
        assert_eq!(v["kernel_seconds_best"], 0.1);
        assert_eq!(v["kernel_seconds_median"], 0.25);
        assert_eq!(v["work_groups"], 32);
        assert_eq!(v["threads"], 4096);
        assert_eq!(v["global"], json!([1024, 4]));
        assert_eq!(v["local"], json!([64, 2]));
        assert_eq!(v["kernel_seconds"], json!([0.3, 0.1, 0.2, 0.5]));
        assert_eq!(v["engine_details"], json!({"device": "a GPU", "arch": "sm_90"}));
        // Only what was given: no compare, no emulator counters.
        assert!(v.get("compare").is_none() && v.get("warp_instructions").is_none(), "{v}");
        // No runs: the summaries are null, not NaN (which JSON lacks).
        let v = serde_json::to_value(stats(vec![]).json(None, None)).unwrap();
        assert_eq!((v["kernel_seconds_best"].clone(), v["kernel_seconds_mean"].clone()), (Value::Null, Value::Null));
    }

    #[test]
    fn key_value_lines_name_every_scalar() {
        let v = json!({"engine": "emu", "global": [1024, 4], "engine_details": {"workers": 2, "cache": "hit"},
                       "divergence_by_block": [{"block": "if.then", "divergent_branches": 3}], "best": null});
        assert_eq!(
            key_value_lines(&v),
            [
                "best: null",
                "divergence_by_block[0].block: if.then",
                "divergence_by_block[0].divergent_branches: 3",
                "engine: emu",
                "engine_details.cache: hit",
                "engine_details.workers: 2",
                "global: [1024, 4]",
            ]
        );
    }

    #[test]
    fn summaries() {
        let s = stats(vec![0.002]);
        assert_eq!(
            s.summary(),
            "kernel 'vadd' on host: global 1024x4, local 64x2: 32 work-groups, 4096 work-items\ncompile 250.000 ms; kernel 2.000 ms"
        );
        let s = stats(vec![0.002, 0.001, 0.004]);
        assert!(s.summary().ends_with("compile 250.000 ms; kernel best 1.000 ms, median 2.000 ms over 3 runs"));
    }
}
