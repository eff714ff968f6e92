//! The host engine's ahead-of-time path and the GPU engine, through the CLI;
//! `--stats json`'s one layout for every engine.

mod common;

use common::simt_run_output;
use serde::Deserialize;

const SAXPY: [&str; 13] = [
    "test-ir/kernels/saxpy.ll",
    "--kernel",
    "saxpy",
    "--global",
    "4096",
    "--local",
    "128",
    "--arg",
    "i32:4096",
    "--arg",
    "f32:2.5",
    "--arg",
    "buf:f32:4096=rand:1",
];

/// `--aot` links the same object with the system linker and loads it:
/// results identical to the JIT's, bit for bit.
#[test]
fn ahead_of_time_equals_jit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let mut jit: Vec<&str> = SAXPY.to_vec();
    jit.extend(["--arg", "buf:f32:4096=rand:2", "--dump", d]);
    assert!(simt_run_output(&jit).status.success());
    let mut aot: Vec<&str> = SAXPY.to_vec();
    aot.extend(["--arg", "buf:f32:4096=rand:2", "--aot", "--compare", d, "--stats", "json"]);
    let out = simt_run_output(&aot);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(stats["schema_version"], 2, "{stats}");
    assert_eq!(stats["engine_details"]["linked"], "ahead of time (system linker, dlopen)", "{stats}");
}

/// `--linear` emits the work-item loops in the linear form, says so in the
/// stats, and computes what the region form computes, bit for bit; it is a
/// host engine setting, refused with another engine.
#[test]
fn the_linear_form_on_request_equals_the_region_form() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    // scan: 9 barriers, 8 of them in a loop; values live across them.
    let scan = [
        "test-ir/kernels/scan.ll",
        "--global",
        "2048",
        "--local",
        "256",
        "--arg",
        "buf:u32:2048=rand:9",
        "--arg",
        "buf:u32:2048",
        "--arg",
        "buf:u32:8",
        "--arg",
        "local:u32:512",
        "--stats",
        "json",
    ];
    let form = |out: &std::process::Output| -> String {
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        stats["engine_details"]["form"].as_str().unwrap_or_default().to_string()
    };
    assert_eq!(form(&simt_run_output(&[&scan[..], &["--dump", d]].concat())), "regions");
    assert_eq!(form(&simt_run_output(&[&scan[..], &["--linear", "--compare", d]].concat())), "linear");
    let out = simt_run_output(&[&scan[..], &["--linear", "--engine", "emu"]].concat());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("it needs --engine host"), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Without an NVIDIA driver the GPU engine says so in one line and exits 3,
/// so scripts can skip; with one, it must compute what the host computes.
#[test]
fn gpu_engine_runs_or_says_there_is_no_gpu() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let mut host: Vec<&str> = SAXPY.to_vec();
    host.extend(["--arg", "buf:f32:4096=rand:2", "--dump", d]);
    assert!(simt_run_output(&host).status.success());
    let mut gpu: Vec<&str> = SAXPY.to_vec();
    gpu.extend(["--arg", "buf:f32:4096=rand:2", "--engine", "gpu", "--compare", d, "--tolerance", "1"]);
    let out = simt_run_output(&gpu);
    let err = String::from_utf8_lossy(&out.stderr);
    if simt::engine::gpu::driver_present() {
        assert!(out.status.success() || out.status.code() == Some(3), "{err}");
    } else {
        assert_eq!(out.status.code(), Some(3), "{err}");
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        assert!(err.starts_with("simt-run: no NVIDIA GPU available for --engine gpu"), "{err}");
    }
}

// `--stats json` as src/stats.rs documents it (schema version 1), written
// out again here and read strictly: a field missing, renamed, moved into or
// out of `engine_details`, or added without documenting it fails.

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct HostStats {
    schema_version: u32,
    engine: String,
    kernel: String,
    work_dim: u32,
    global: Vec<u64>,
    local: Vec<u64>,
    work_groups: u64,
    threads: u64,
    repeat: usize,
    compile_seconds: f64,
    kernel_seconds_best: Option<f64>,
    kernel_seconds_median: Option<f64>,
    kernel_seconds_mean: Option<f64>,
    kernel_seconds: Vec<f64>,
    engine_details: HostDetails,
    compare: Option<Compare>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct HostDetails {
    workers: usize,
    interleave: u32,
    linked: String,
    interleaved: String,
    form: String,
    scratch_bytes_per_item: u64,
    static_local_bytes: u64,
    local_mem_bytes: u64,
    barriers: usize,
    cache: String,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Compare {
    ok: bool,
    buffers: usize,
    mismatched_buffers: usize,
    tolerance_ulps: u64,
    max_ulps: u64,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct EmuStats {
    schema_version: u32,
    engine: String,
    kernel: String,
    work_dim: u32,
    global: Vec<u64>,
    local: Vec<u64>,
    work_groups: u64,
    threads: u64,
    repeat: usize,
    compile_seconds: f64,
    kernel_seconds_best: Option<f64>,
    kernel_seconds_median: Option<f64>,
    kernel_seconds_mean: Option<f64>,
    kernel_seconds: Vec<f64>,
    engine_details: EmuDetails,
    compare: Option<Compare>,
    // The emulator's counters, at the top level.
    policy: String,
    warp_width: u32,
    warp_instructions: u64,
    lane_instructions: u64,
    simd_efficiency: f64,
    convergence_checks: u64,
    uniformity_checks: u64,
    merges: u64,
    divergent_branches: u64,
    divergence_by_block: Vec<BlockDivergence>,
    barriers_completed: u64,
    max_lane_groups: u64,
    warps: u64,
    lane_instructions_per_second: Option<f64>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct EmuDetails {
    policy: String,
    warp_width: u32,
    warps_per_group: u64,
    registers_per_lane: u32,
    instructions: usize,
    private_bytes_per_item: u64,
    static_local_bytes: u64,
    local_mem_bytes: u64,
    barriers: usize,
    convergence_markers: usize,
    check_blocks: usize,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct BlockDivergence {
    block: String,
    divergent_branches: u64,
}

#[test]
fn stats_json_is_the_documented_layout() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    // reduce.ll: a barrier, a __local argument, divergence in the tree.
    let reduce = [
        "test-ir/examples/reduce.ll",
        "--global",
        "1024",
        "--local",
        "64",
        "--arg",
        "buf:f32:1024=rand:3",
        "--arg",
        "buf:f32:16",
        "--arg",
        "local:f32:64",
        "--repeat",
        "3",
        "--stats",
        "json",
    ];
    let out = simt_run_output(&[&reduce[..], &["--interleave", "2", "--dump", d]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let host: HostStats = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    assert_eq!((host.schema_version, host.engine.as_str(), host.kernel.as_str()), (2, "host", "reduce_sum"));
    assert_eq!((host.work_dim, &host.global[..], &host.local[..]), (1, &[1024][..], &[64][..]));
    assert_eq!((host.work_groups, host.threads, host.repeat, host.kernel_seconds.len()), (16, 1024, 3, 3));
    let best = host.kernel_seconds.iter().copied().fold(f64::INFINITY, f64::min);
    assert_eq!(host.kernel_seconds_best, Some(best));
    assert!(host.kernel_seconds_median.is_some() && host.kernel_seconds_mean.is_some() && host.compile_seconds > 0.0);
    assert!(host.compare.is_none(), "no --compare, no compare object");
    let h = &host.engine_details;
    // The `__local` argument starts at the next 64-byte boundary after the
    // static local memory (which holds the per-work-group slots).
    let padded_static = h.static_local_bytes.div_ceil(64) * 64;
    assert_eq!((h.interleave, h.linked.as_str(), h.barriers, h.local_mem_bytes), (2, "JIT (ORC LLJIT)", 2, padded_static + 64 * 4));
    assert!(h.workers >= 1 && !h.interleaved.is_empty(), "{h:?}");
    assert_eq!(h.form, "regions", "a small kernel keeps the region form");
    let _ = h.scratch_bytes_per_item;
    assert!(["hit", "miss", "rebuilt"].contains(&h.cache.as_str()), "the kernel cache is on by default: {h:?}");

    let out = simt_run_output(&[&reduce[..], &["--engine", "emu", "--warp-width", "16", "--compare", d]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let emu: EmuStats = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    assert_eq!((emu.schema_version, emu.engine.as_str(), emu.kernel.as_str(), emu.work_dim), (2, "emu", "reduce_sum", 1));
    assert_eq!((&emu.global[..], &emu.local[..], emu.work_groups, emu.threads, emu.repeat), (&[1024][..], &[64][..], 16, 1024, 3));
    assert_eq!(emu.kernel_seconds.len(), 3);
    assert!(emu.kernel_seconds_best.is_some() && emu.kernel_seconds_median.is_some() && emu.kernel_seconds_mean.is_some());
    assert!(emu.compile_seconds > 0.0);
    let c = emu.compare.expect("--compare gives a compare object");
    assert!(c.ok && c.mismatched_buffers == 0 && c.tolerance_ulps == 0 && c.buffers == 2 && c.max_ulps == 0, "{c:?}");
    let e = &emu.engine_details;
    assert_eq!((e.policy.as_str(), e.warp_width, e.warps_per_group), ("ipdom", 16, 4));
    assert_eq!((emu.policy.as_str(), emu.warp_width), ("ipdom", 16));
    assert!(e.registers_per_lane > 0 && e.instructions > 0 && e.barriers > 0, "{e:?}");
    assert_eq!(e.local_mem_bytes, e.static_local_bytes + 64 * 4);
    let _ = (e.private_bytes_per_item, e.convergence_markers, e.check_blocks);
    // 16 work-groups of 4 warps: every warp ran, each barrier once per group.
    assert_eq!(emu.warps, 16 * 4);
    assert!(emu.lane_instructions <= emu.warp_instructions * 16);
    assert!((emu.simd_efficiency - emu.lane_instructions as f64 / (emu.warp_instructions as f64 * 16.0)).abs() < 1e-12);
    let by_block: u64 = emu.divergence_by_block.iter().map(|b| b.divergent_branches).sum();
    assert!(emu.divergence_by_block.iter().all(|b| !b.block.is_empty() && b.divergent_branches > 0));
    assert_eq!(by_block, emu.divergent_branches);
    assert!(emu.barriers_completed > 0 && emu.max_lane_groups >= 1);
    let _ = (emu.convergence_checks, emu.uniformity_checks, emu.merges, emu.lane_instructions_per_second);
}
