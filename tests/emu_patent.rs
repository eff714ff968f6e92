//! Seed 000's run side on the SIMT emulator, and the corpus kernels with
//! unstructured control flow.
//!
//! 1. The patent's example (CN106257412A, figures 3A-3C): the four threads
//!    T0-T3 of figure 3C take the paths the description gives them through
//!    BB0..BB5, in one warp of four lanes. From `simt-run --trace` we check
//!    that under `markers` the threads regroup at BB4 — the join that the
//!    immediate post-dominator (BB5) misses — exactly as the description
//!    walks through it, that under `ipdom` they meet again only at BB5, that
//!    the results are the same (and the host engine's), and that markers
//!    issue fewer warp-instructions (a higher SIMD efficiency).
//! 2. `test-ir/kernels/{nested_exit,short_circuit,break_continue,state_machine}`:
//!    compiled OpenCL C and CUDA with unstructured control flow (an early exit
//!    from nested loops, short-circuit conditions, break/continue out of an
//!    if/else, a state machine in a switch). Each runs on the host engine and
//!    under every policy with identical buffers; markers (the decoder's check
//!    points, and the markers `simt-opt -passes=simt-converge` inserts) must
//!    be strictly more efficient than ipdom on each.
//! 3. `--trace` itself: bounded, barriers shown, refused by other engines.

mod common;

use common::{kernels_dir, ok, Launch};
use serde_json::Value;
use simt::engine::emu::trace::{self, Line};
use std::path::{Path, PathBuf};
use std::process::Command;

const POLICIES: [&str; 3] = ["ipdom", "markers", "none"];

/// The runs of a launch this file compares.
impl Launch {
    /// The host engine's buffers, in `dir`.
    fn host(&self, dir: &Path) {
        ok(self.command(&["--dump", dir.to_str().unwrap()]), &format!("host: {}", self.what()));
    }

    /// The emulator under `policy`, compared bit for bit with `reference`;
    /// the `--stats json` object.
    fn emu(&self, policy: &str, reference: &Path, extra: &[&str]) -> Value {
        let mut flags = vec!["--engine", "emu", "--policy", policy, "--stats", "json", "--compare", reference.to_str().unwrap()];
        flags.extend(extra);
        let out = ok(self.command(&flags), &format!("emu --policy {policy} {extra:?}: {}", self.what()));
        let v: Value = serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("--stats json: {e}: {out}"));
        assert_eq!(v["compare"]["ok"], true, "{v}");
        v
    }
}

fn efficiency(s: &Value) -> f64 {
    s["simd_efficiency"].as_f64().unwrap()
}

fn warp_instructions(s: &Value) -> u64 {
    s["warp_instructions"].as_u64().unwrap()
}

/// `simt-opt -passes=simt-converge`: `input` with explicit markers, in `dir`.
fn with_markers(input: &Path, dir: &Path) -> PathBuf {
    let out = dir.join(format!("{}.marked.ll", input.file_stem().unwrap().to_string_lossy()));
    let mut c = Command::new(env!("CARGO_BIN_EXE_simt-opt"));
    c.arg(input).args(["-S", "-passes=simt-converge", "-o"]).arg(&out);
    ok(c, "simt-opt -passes=simt-converge");
    assert!(std::fs::read_to_string(&out).unwrap().contains("call void @simt.converge(i32"));
    out
}

/// Lanes as the trace writes them, lane 0 first.
fn lanes(mask: u64, width: u32) -> String {
    (0..width).map(|l| if mask >> l & 1 != 0 { '#' } else { '.' }).collect()
}

/// What ran, from a one-warp trace: (block, lanes) for every stretch of
/// instructions a lane group issued. A line starts a stretch when the next
/// line comes after more instructions were issued (every line is written at a
/// block entry or a decision of the policy, so a stretch lies in one block).
fn executions(lines: &[Line]) -> Vec<(String, String)> {
    assert!(lines.iter().all(|l| l.warp == 0), "one warp expected");
    lines.windows(2).filter(|w| w[1].issued > w[0].issued).map(|w| (w[0].block.clone(), lanes(w[0].mask, 4))).collect()
}

/// `(event, block, lanes, details)` of every line, to look for decisions.
fn decisions(lines: &[Line]) -> Vec<String> {
    lines.iter().map(|l| format!("{} {} {} {}", l.event, l.block, lanes(l.mask, 4), l.details).trim_end().to_string()).collect()
}

// ---------------------------------------------------------------- the patent's example

/// Figure 3B as a kernel. The figure's BB0 is the loop header, so it follows
/// an entry block (IR's entry block cannot be a loop header); the blocks are
/// laid out in the figure's order, which is their PC order. Each thread reads
/// its way through the graph from a table: `path[4 * tid + k]` is step k's
/// choices, bit 0 "BB0 goes on to BB1" (else BB5), bit 1 "BB1 goes to BB2"
/// (else BB3), bit 2 "BB3 goes to BB4" (else BB5). Every block but BB0
/// folds its number into the thread's value (`acc = acc * 31 + n`), so the
/// result spells the path the thread took.
const FIGURE3: &str = r#"target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spir64"

declare spir_func i64 @_Z13get_global_idj(i32)

define spir_kernel void @figure3c(ptr addrspace(1) %path, ptr addrspace(1) %out) {
entry:
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %row = mul i64 %gid, 4
  %acc0 = trunc i64 %gid to i32
  br label %bb0
bb0:
  %k = phi i32 [ 0, %entry ], [ %k.next, %bb4 ]
  %acc = phi i32 [ %acc0, %entry ], [ %acc4, %bb4 ]
  %kw = zext i32 %k to i64
  %idx = add i64 %row, %kw
  %pp = getelementptr inbounds i32, ptr addrspace(1) %path, i64 %idx
  %step = load i32, ptr addrspace(1) %pp
  %b0 = and i32 %step, 1
  %go = icmp ne i32 %b0, 0
  br i1 %go, label %bb1, label %bb5
bb1:
  %m1 = mul i32 %acc, 31
  %acc1 = add i32 %m1, 1
  %b1 = and i32 %step, 2
  %left = icmp ne i32 %b1, 0
  br i1 %left, label %bb2, label %bb3
bb2:
  %m2 = mul i32 %acc1, 31
  %acc2 = add i32 %m2, 2
  br label %bb4
bb3:
  %m3 = mul i32 %acc1, 31
  %acc3 = add i32 %m3, 3
  %b3 = and i32 %step, 4
  %stay = icmp ne i32 %b3, 0
  br i1 %stay, label %bb4, label %bb5
bb4:
  %a4 = phi i32 [ %acc2, %bb2 ], [ %acc3, %bb3 ]
  %m4 = mul i32 %a4, 31
  %acc4 = add i32 %m4, 4
  %k.next = add i32 %k, 1
  br label %bb0
bb5:
  %r = phi i32 [ %acc, %bb0 ], [ %acc3, %bb3 ]
  %m5 = mul i32 %r, 31
  %acc5 = add i32 %m5, 5
  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %acc5, ptr addrspace(1) %q
  ret void
}
"#;

// The threads' paths, from the description of figure 3C: all four run BB0
// and BB1 together; at BB1 "T0 and T1 separate from T2 and T3" — T0, T1 go to
// BB2, T2, T3 to BB3; from BB3 "T2 follows the path from BB3 to BB4, T3 the
// path from BB3 to BB5"; BB2 leads only to BB4. The figure stops there; we
// let T0-T2 leave the loop at their next visit of BB0 (BB4 leads only back to
// BB0, and BB0 either re-enters BB1 or goes to BB5), so every thread ends in
// BB5:
//   T0, T1: BB0 BB1 BB2 BB4 BB0 BB5   steps: 0b011 (BB1, BB2), then 0 (BB5)
//   T2:     BB0 BB1 BB3 BB4 BB0 BB5   steps: 0b101 (BB1, BB3, BB4), then 0
//   T3:     BB0 BB1 BB3 BB5           steps: 0b001 (BB1, BB3, BB5)
const STEPS: [[i32; 4]; 4] = [[0b011, 0, 0, 0], [0b011, 0, 0, 0], [0b101, 0, 0, 0], [0b001, 0, 0, 0]];
const PATHS: [&[u32]; 4] = [&[0, 1, 2, 4, 0, 5], &[0, 1, 2, 4, 0, 5], &[0, 1, 3, 4, 0, 5], &[0, 1, 3, 5]];

// What each policy must do with them, worked out by hand.
//
// `markers` (claims 14-15, checks at the blocks the queue walk of figure 4B
// marks: BB0 and BB3 as loop exits, BB4 and BB5 as joins; the decoder picks
// the same blocks when the IR has no markers). A check at a block runs when a
// group arrives there; then the group whose next instruction is earliest in
// PC order runs, and groups at the same PC merge.
//   1. T0-T3 run entry, BB0, BB1 together (one group: the checks at BB0
//      merge nothing).
//   2. BB1 diverges: {T0,T1} -> BB2, {T2,T3} -> BB3. BB2 comes first in PC
//      order, so {T0,T1} run BB2 while {T2,T3} wait (the description: "select
//      T0, T1 to run further, put T2, T3 in a waiting state").
//   3. {T0,T1} arrive at BB4 and pass its check: nothing to merge, and BB3 is
//      earlier than BB4, so {T0,T1} wait and {T2,T3} run ("T2, T3 are then
//      selected ... while T0, T1 wait, because BB3 precedes BB4 in PC order").
//   4. BB3 diverges: T2 -> BB4, T3 -> BB5 ("T2 follows BB3 -> BB4, T3
//      BB3 -> BB5"). T2 at BB4 is the earliest; its check at BB4 merges the
//      waiting {T0,T1}: {T0,T1,T2} run BB4 together while T3 waits ("the
//      device can select T0, T1 and T2 ... to run BB4; meanwhile T3 waits").
//   5. {T0,T1,T2} run BB0 (back edge) and branch uniformly to BB5, whose
//      check merges T3: all four run BB5.
//   Executed: entry, BB0, BB1 (all), BB2 (T0,T1), BB3 (T2,T3), BB4 (T0-T2),
//   BB0 (T0-T2), BB5 (all): 8 block executions.
//
// `ipdom` (a reconvergence stack; ipdom(BB1) = ipdom(BB3) = BB5, since BB3
// can leave the loop, so BB4 post-dominates neither):
//   1. As above up to BB1's divergence; the stack gets BB5 as the
//      reconvergence point and the BB2 path on top.
//   2. {T0,T1} run BB2, BB4, BB0 and reach BB5: they wait there.
//   3. {T2,T3} run BB3, which diverges with the same reconvergence point:
//      T3 goes straight to BB5 (waits), T2 runs BB4 and BB0 alone and
//      reaches BB5.
//   4. All four run BB5.
//   Executed: entry, BB0, BB1 (all), BB2, BB4, BB0 (T0,T1), BB3 (T2,T3),
//   BB4, BB0 (T2), BB5 (all): 10 block executions; BB4 and BB0 twice.
//   The threads never run together between BB1 and BB5.
const MARKERS_RAN: [(&str, &str); 8] = [
    ("entry", "####"),
    ("bb0", "####"),
    ("bb1", "####"),
    ("bb2", "##.."),
    ("bb3", "..##"),
    ("bb4", "###."),
    ("bb0", "###."),
    ("bb5", "####"),
];
const IPDOM_RAN: [(&str, &str); 10] = [
    ("entry", "####"),
    ("bb0", "####"),
    ("bb1", "####"),
    ("bb2", "##.."),
    ("bb4", "##.."),
    ("bb0", "##.."),
    ("bb3", "..##"),
    ("bb4", "..#."),
    ("bb0", "..#."),
    ("bb5", "####"),
];

/// The value a thread's path spells (see FIGURE3).
fn spelled(tid: u32, path: &[u32]) -> i32 {
    path.iter().filter(|&&b| b != 0).fold(tid, |acc, &b| acc.wrapping_mul(31).wrapping_add(b)) as i32
}

fn read_i32s(path: &Path) -> Vec<i32> {
    std::fs::read(path).unwrap().chunks(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect()
}

struct Figure {
    dir: tempfile::TempDir,
    plain: PathBuf,
    marked: PathBuf,
    table: PathBuf,
    reference: PathBuf,
}

fn figure() -> Figure {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("figure3c.ll");
    std::fs::write(&plain, FIGURE3).unwrap();
    let marked = with_markers(&plain, dir.path());
    let table = dir.path().join("steps.bin");
    let bytes: Vec<u8> = STEPS.iter().flatten().flat_map(|s| s.to_le_bytes()).collect();
    std::fs::write(&table, bytes).unwrap();
    let reference = dir.path().join("host");
    let f = Figure { plain, marked, table, reference, dir };
    f.launch(&f.plain).host(&f.reference);
    f
}

impl Figure {
    fn launch(&self, module: &Path) -> Launch {
        let table = format!("buf:i32:16=file:{}", self.table.display());
        Launch::new(module, "figure3c", "4", "4", &[&table, "buf:i32:4"])
    }

    /// Runs `module` under `policy` with one warp of four lanes and a trace;
    /// the stats and the trace's lines.
    fn traced(&self, module: &Path, policy: &str) -> (Value, Vec<Line>, String) {
        let t = self.dir.path().join(format!("{policy}-{}.trace", module.file_stem().unwrap().to_string_lossy()));
        let s = self.launch(module).emu(policy, &self.reference, &["--warp-width", "4", "--trace", t.to_str().unwrap()]);
        let text = std::fs::read_to_string(&t).unwrap();
        (s, trace::parse(&text), text)
    }
}

#[test]
fn patent_figure3c_threads_take_the_described_paths() {
    let f = figure();
    // The host engine ran every thread along its path (so will every policy:
    // they are compared with this bit for bit).
    let out = read_i32s(&f.reference.join("arg1.bin"));
    let expected: Vec<i32> = PATHS.iter().enumerate().map(|(t, p)| spelled(t as u32, p)).collect();
    assert_eq!(out, expected);
}

#[test]
fn patent_figure3c_markers_regroup_at_bb4() {
    let f = figure();
    // The decoder's check points (no markers in the IR), and the markers
    // simt-converge puts at BB0, BB3, BB4, BB5: the same schedule.
    for module in [&f.plain, &f.marked] {
        let (s, lines, text) = f.traced(module, "markers");
        let ran: Vec<(String, String)> = MARKERS_RAN.iter().map(|(b, l)| (b.to_string(), l.to_string())).collect();
        assert_eq!(executions(&lines), ran, "{}:\n{text}", module.display());
        let d = decisions(&lines);
        let at = |want: &str| d.iter().position(|x| x == want).unwrap_or_else(|| panic!("no '{want}' in the trace:\n{text}"));
        // Step 2: BB1 splits T0,T1 from T2,T3; BB2's group runs first.
        let split1 = at("split bb1 #### -> bb2 ##.. bb3 ..##");
        assert!(d[split1 + 1].starts_with("run bb2 ##.."), "{text}");
        // Step 3: T0,T1 wait at BB4's check; T2,T3 (BB3, earlier) run.
        let wait = at("check bb4 ##.. merged=0");
        assert!(d[wait + 1].starts_with("run bb3 ..##"), "{text}");
        // Step 4: T2 joins T0,T1 at BB4; T3 waits at BB5.
        let split3 = at("split bb3 ..## -> bb4 ..#. bb5 ...#");
        let regroup = at("check bb4 ###. merged=1");
        assert!(wait < split3 && split3 < regroup, "{text}");
        // Step 5: all four at BB5.
        let end = at("check bb5 #### merged=1");
        assert!(regroup < end);
        assert_eq!(d.last().unwrap(), "exit bb5 ####");
        assert_eq!(s["divergent_branches"], 2);
        assert_eq!(s["merges"], 2, "T0,T1 into T2 at BB4, T3 into T0-T2 at BB5");
    }
}

#[test]
fn patent_figure3c_ipdom_reunites_only_at_bb5() {
    let f = figure();
    let (s, lines, text) = f.traced(&f.plain, "ipdom");
    let ran: Vec<(String, String)> = IPDOM_RAN.iter().map(|(b, l)| (b.to_string(), l.to_string())).collect();
    assert_eq!(executions(&lines), ran, "{text}");
    let d = decisions(&lines);
    assert!(d.contains(&"split bb1 #### -> bb2 ##.. bb3 ..## reconverge=bb5".to_string()), "{text}");
    assert!(d.contains(&"split bb3 ..## -> bb4 ..#. bb5 ...# reconverge=bb5".to_string()), "{text}");
    assert!(d.contains(&"reconverge bb5 ##..".to_string()) && d.contains(&"reconverge bb5 ..#.".to_string()), "{text}");
    // Between BB1's split and BB5, no group holds threads of both sides.
    let ex = executions(&lines);
    let split = ex.iter().position(|e| e.0 == "bb1").unwrap();
    let join = ex.iter().position(|e| e.0 == "bb5").unwrap();
    for (b, l) in &ex[split + 1..join] {
        let left = l.starts_with('#') || l[1..].starts_with('#');
        let right = l[2..].contains('#');
        assert!(left != right, "{b} ran {l}: T0/T1 and T2/T3 together before BB5\n{text}");
    }
    assert_eq!(s["merges"], 2, "two paths arrived at BB5");
}

#[test]
fn patent_figure3c_same_results_and_markers_more_efficient() {
    let f = figure();
    let (ipdom, _, _) = f.traced(&f.plain, "ipdom");
    let (markers, _, _) = f.traced(&f.plain, "markers");
    let (explicit, _, _) = f.traced(&f.marked, "markers");
    let (none, _, _) = f.traced(&f.plain, "none");
    // The same lane-instructions (each thread runs the same code whatever the
    // grouping) and the same results (every run was compared with the host's).
    for s in [&markers, &explicit, &none] {
        assert_eq!(s["lane_instructions"], ipdom["lane_instructions"]);
    }
    assert_eq!(explicit["engine_details"]["convergence_markers"], 4, "BB0, BB3, BB4, BB5");
    assert_eq!(markers["engine_details"]["check_blocks"], 4);
    // Markers run BB4 and BB0 once for T0-T2 where ipdom runs each twice.
    assert!(warp_instructions(&markers) < warp_instructions(&ipdom), "{markers}\n{ipdom}");
    assert_eq!(warp_instructions(&markers), warp_instructions(&explicit));
    assert!(efficiency(&markers) > efficiency(&ipdom));
    assert!(efficiency(&ipdom) > efficiency(&none));
    eprintln!(
        "figure 3C, 4 lanes: SIMD efficiency markers {:.3} ({} warp-instructions), ipdom {:.3} ({}), none {:.3} ({})",
        efficiency(&markers),
        warp_instructions(&markers),
        efficiency(&ipdom),
        warp_instructions(&ipdom),
        efficiency(&none),
        warp_instructions(&none)
    );
}

// ---------------------------------------------------------------- the unstructured corpus kernels

/// The launches of the unstructured kernels in test-ir/kernels (as in
/// scripts/bench-emu): 16 warps of 32 lanes; the CUDA ones with n = 2000 of
/// 2048 threads, so their bounds check diverges in the last block.
fn unstructured() -> Vec<Launch> {
    let k = kernels_dir();
    vec![
        Launch::new(
            k.join("nested_exit.ll"),
            "nested_exit",
            "2048",
            "128",
            &["buf:i32:2048=rand:31", "buf:i32:2048", "i32:2048", "i32:16", "i32:5"],
        ),
        Launch::new(
            k.join("short_circuit.ll"),
            "short_circuit",
            "2048",
            "128",
            &["buf:i32:2048=rand:32", "buf:i32:2048=rand:33", "buf:i32:2048", "i32:2048", "i32:24"],
        ),
        Launch::new(
            k.join("break_continue.cu.ll"),
            "break_continue",
            "2048",
            "128",
            &["buf:i32:2000=rand:34", "buf:i32:2000", "i32:2000", "i32:32"],
        ),
        Launch::new(
            k.join("state_machine.cu.ll"),
            "state_machine",
            "2048",
            "128",
            &["buf:i32:2000=rand:35", "buf:i32:2000", "i32:2000", "i32:32"],
        ),
    ]
}

#[test]
fn unstructured_kernels_agree_and_markers_beat_ipdom() {
    for l in unstructured() {
        let dir = tempfile::tempdir().unwrap();
        let reference = dir.path().join("host");
        l.host(&reference);
        let s: Vec<Value> = POLICIES.iter().map(|p| l.emu(p, &reference, &[])).collect();
        let (ipdom, markers, none) = (&s[0], &s[1], &s[2]);
        for (p, v) in POLICIES.iter().zip(&s) {
            assert_eq!(v["policy"], *p);
            assert_eq!(v["lane_instructions"], ipdom["lane_instructions"], "{}: {p}", l.what());
        }
        // The same kernel with simt-converge's explicit markers.
        let marked = with_markers(&l.module, dir.path());
        let ml =
            Launch { module: marked, kernel: l.kernel.clone(), global: l.global.clone(), local: l.local.clone(), args: l.args.clone() };
        let explicit = ml.emu("markers", &reference, &[]);
        assert!(explicit["engine_details"]["convergence_markers"].as_u64().unwrap() > 0);
        assert_eq!(explicit["lane_instructions"], ipdom["lane_instructions"]);
        let (e_ip, e_mk, e_ex, e_no) = (efficiency(ipdom), efficiency(markers), efficiency(&explicit), efficiency(none));
        eprintln!(
            "{}: SIMD efficiency ipdom {e_ip:.3}, markers {e_mk:.3} (simt-converge markers {e_ex:.3}), none {e_no:.3}; warp-instructions ipdom {}, markers {}",
            l.kernel,
            warp_instructions(ipdom),
            warp_instructions(markers)
        );
        // Where ipdom's reconvergence point is past the join, it loses lanes
        // that markers keep: strictly better, and by a wide margin here (each
        // kernel's divergent branch has the kernel's end or the loop's exit
        // as its immediate post-dominator).
        assert!(warp_instructions(markers) < warp_instructions(ipdom), "{}: markers {markers}\nipdom {ipdom}", l.what());
        assert!(e_mk > 1.5 * e_ip, "{}: markers {e_mk} not well above ipdom {e_ip}", l.what());
        assert!(e_ex > 1.5 * e_ip, "{}: simt-converge markers {e_ex} not well above ipdom {e_ip}", l.what());
        assert!(e_ip >= e_no, "{}: ipdom {e_ip} below none {e_no}", l.what());
        assert!(markers["merges"].as_u64().unwrap() > 0);
        assert_eq!(none["merges"], 0);
    }
}

#[test]
fn unstructured_kernels_at_other_warp_widths() {
    // Results do not depend on the width; one lane per warp never diverges.
    let l = &unstructured()[3];
    let dir = tempfile::tempdir().unwrap();
    let reference = dir.path().join("host");
    l.host(&reference);
    for width in ["1", "8", "64"] {
        for p in POLICIES {
            let s = l.emu(p, &reference, &["--warp-width", width]);
            if width == "1" {
                assert_eq!(efficiency(&s), 1.0);
            }
        }
    }
}

// ---------------------------------------------------------------- --trace

#[test]
fn trace_is_bounded_and_shows_barriers() {
    let dir = tempfile::tempdir().unwrap();
    // Barriers in a loop whose trip count varies between work-items: three
    // warps per group, groups waiting at barriers and released.
    let l = Launch::new(
        kernels_dir().join("varying_trip_barrier.ll"),
        "varying_trip_barrier",
        "192",
        "96",
        &["buf:u32:192=rand:17", "buf:u32:192", "buf:u32:192", "local:u32:96"],
    );
    let reference = dir.path().join("host");
    l.host(&reference);
    for p in POLICIES {
        let t = dir.path().join(format!("{p}.trace"));
        l.emu(p, &reference, &["--trace", t.to_str().unwrap(), "--repeat", "2"]);
        let text = std::fs::read_to_string(&t).unwrap();
        assert!(text.starts_with("# simt-run trace: kernel 'varying_trip_barrier', policy "), "{text}");
        assert!(text.contains("repeat 2 (this is the first run)"));
        assert_eq!(text.matches("# work-group (").count(), 2, "two work-groups");
        let lines = trace::parse(&text);
        assert!(lines.iter().any(|x| x.event == "barrier"), "{p}");
        assert!(text.lines().any(|x| x.split(' ').nth(1) == Some("release")), "{p}");
        assert_eq!(lines.iter().map(|x| x.warp).max(), Some(2), "{p}: three warps");
        assert!(lines.iter().all(|x| x.mask != 0 && x.mask >> 32 == 0), "{p}");
        let exits: u32 = lines.iter().filter(|x| x.event == "exit").map(|x| x.mask.count_ones()).sum();
        assert_eq!(exits, 192, "{p}: every work-item returns once");
        // The issued count never goes back.
        assert!(lines.windows(2).all(|w| w[0].issued <= w[1].issued));
    }
    // A long launch (about 700000 lines): the trace stops at its limit, the
    // launch does not.
    let l = Launch::new(
        kernels_dir().join("nested_exit.ll"),
        "nested_exit",
        "8192",
        "128",
        &["buf:i32:8192=rand:31", "buf:i32:8192", "i32:8192", "i32:16", "i32:5"],
    );
    let reference = dir.path().join("host2");
    l.host(&reference);
    let t = dir.path().join("long.trace");
    l.emu("ipdom", &reference, &["--trace", t.to_str().unwrap()]);
    let text = std::fs::read_to_string(&t).unwrap();
    let n = text.lines().count() as u64;
    assert_eq!(n, trace::TRACE_LINE_LIMIT + 1, "limit lines and the note");
    assert!(text.ends_with("the launch ran to its end\n"));
}

#[test]
fn trace_needs_the_emulator() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.trace");
    let l = Launch::new(kernels_dir().join("vecadd.ll"), "vecadd", "64", "32", &["buf:f32:64", "buf:f32:64", "buf:f32:64", "i32:64"]);
    for engine in [None, Some("host"), Some("gpu")] {
        let mut extra = vec!["--trace", t.to_str().unwrap()];
        if let Some(e) = engine {
            extra.extend(["--engine", e]);
        }
        let out = l.command(&extra).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("it needs --engine emu"), "{err}");
        assert!(!t.exists(), "no trace written");
    }
    // An unwritable trace is an error naming the file.
    let bad = dir.path().join("no-such-dir").join("t.trace");
    let out = l.command(&["--engine", "emu", "--trace", bad.to_str().unwrap()]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("t.trace") && err.contains("cannot write the trace"), "{err}");
}
