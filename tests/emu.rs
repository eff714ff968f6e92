//! The SIMT emulator (`simt-run --engine emu`) against the host engine.
//!
//! Every kernel of the corpus in `test-ir/kernels/` (the launches of
//! `tests/kernels.rs`, smaller) runs on the host engine with `--dump`, then on
//! the emulator under each reconvergence policy with `--compare`: the buffers
//! must be identical, bit for bit, except where the IR lets the two engines
//! round differently (stated at each launch). Hand-written kernels with
//! unstructured control flow (seed 000's loop with an early exit, an early
//! exit from nested loops, a short-circuit condition, a switch state machine)
//! check that `markers` keeps lanes together where a reconvergence stack at
//! the immediate post-dominator cannot, with results still identical; an
//! operations kernel checks instruction semantics against LLVM's compiled
//! code; error tests check that bad kernels fail with a message, not a hang or
//! a panic.

mod common;

use common::{kernels_dir, ok, simt_run, Launch};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const POLICIES: [&str; 3] = ["ipdom", "markers", "none"];

/// The host engine's buffers after `l`, in `dir/host`.
fn host_reference(l: &Launch, dir: &Path) -> PathBuf {
    let reference = dir.join("host");
    ok(l.command(&["--dump", reference.to_str().unwrap()]), &format!("host: {}", l.what()));
    reference
}

/// Runs `l` on the emulator, comparing with `reference` within `tolerance`
/// ULPs; returns the `--stats json` object.
fn emu(l: &Launch, policy: &str, reference: &Path, tolerance: u64, extra: &[&str]) -> Value {
    let mut flags = vec!["--engine", "emu", "--policy", policy, "--stats", "json", "--compare", reference.to_str().unwrap()];
    let tol = tolerance.to_string();
    flags.extend(["--tolerance", tol.as_str()]);
    flags.extend(extra);
    let out = ok(l.command(&flags), &format!("emu --policy {policy} {extra:?}: {}", l.what()));
    let v: Value = serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("--stats json: {e}: {out}"));
    assert_eq!(v["compare"]["ok"], true, "{v}");
    v
}

/// Host, then every policy; returns the stats per policy. Checks what must
/// hold whatever the kernel: identical lane-instruction counts (every policy
/// runs the same instructions on each lane, only grouped differently) and an
/// efficiency in (0, 1].
fn against_host(l: &Launch, tolerance: u64) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let reference = host_reference(l, dir.path());
    let stats: Vec<Value> = POLICIES.iter().map(|p| emu(l, p, &reference, tolerance, &[])).collect();
    for (p, s) in POLICIES.iter().zip(&stats) {
        assert_eq!(s["policy"], *p);
        assert_eq!(s["engine"], "emu");
        let eff = s["simd_efficiency"].as_f64().unwrap();
        assert!(eff > 0.0 && eff <= 1.0, "{p}: efficiency {eff}");
        assert_eq!(s["lane_instructions"], stats[0]["lane_instructions"], "{}: lane-instructions differ between policies", l.what());
    }
    stats
}

fn efficiency(s: &Value) -> f64 {
    s["simd_efficiency"].as_f64().unwrap()
}

// ---------------------------------------------------------------- the corpus

// Float results are compared bit for bit: the emulator and the host run the
// same operations in the same order (reductions sum in the order the kernel's
// code fixes: private loops, then a tree in local memory; no float atomics).
// The exceptions are where the IR itself allows two roundings: `llvm.fmuladd`
// and `fmul contract` + `fadd contract` may be fused into one FMA or not. The
// emulator fuses `fmuladd` (one rounding, as GPUs do) and never contracts
// separate instructions; the host's backend decides per CPU. With the
// non-negative inputs used here, each of K such steps can move a sum by at
// most one ULP of the result, so K ULPs bound the difference.

#[test]
fn vecadd_opencl_and_cuda() {
    for file in ["vecadd.ll", "vecadd.cu.ll"] {
        // 20000 elements, 20480 work-items: the bounds check diverges.
        let l =
            Launch::corpus(file, "vecadd", "20480", "128", &["buf:f32:20000=rand:1", "buf:f32:20000=rand:2", "buf:f32:20000", "i32:20000"]);
        against_host(&l, 0);
    }
}

#[test]
fn saxpy_opencl() {
    // One llvm.fmuladd per element: fused or not, at most 1 ULP apart.
    let l = Launch::corpus("saxpy.ll", "saxpy", "16384", "64", &["i32:16384", "f32:2.5", "buf:f32:16384=rand:3", "buf:f32:16384=rand:4"]);
    against_host(&l, 1);
}

#[test]
fn reduction_opencl_and_cuda() {
    for local in ["64", "128"] {
        let groups = 32;
        let global = (groups * local.parse::<usize>().unwrap()).to_string();
        let n = "u32:40037";
        let l = Launch::corpus(
            "reduction.ll",
            "reduce_sum",
            &global,
            local,
            &["buf:f32:40037=rand:5", "buf:f32:32", &format!("local:f32:{local}"), n],
        );
        let s = against_host(&l, 0);
        // The tree's `if (lid < s)` diverges inside warps once s < 32.
        assert!(s[0]["divergent_branches"].as_u64().unwrap() > 0);
        let l = Launch::corpus("reduction.cu.ll", "reduce_sum", &global, local, &["buf:f32:40037=rand:5", "buf:f32:32", n]);
        against_host(&l, 0);
    }
}

#[test]
fn matmul_opencl_and_cuda() {
    // C (100x72) = A (100x52) B (52x72), ragged tiles: K = 52 multiply-adds
    // per element (see above).
    for file in ["matmul.ll", "matmul.cu.ll"] {
        let l = Launch::corpus(
            file,
            "matmul",
            "80,112",
            "16,16",
            &["buf:f32:5200=rand:6", "buf:f32:3744=rand:7", "buf:f32:7200", "i32:100", "i32:72", "i32:52"],
        );
        against_host(&l, 52);
    }
}

#[test]
fn transpose_opencl() {
    let l = Launch::corpus("transpose.ll", "transpose", "112,64", "16,16", &["buf:f32:6000=rand:8", "buf:f32:6000", "i32:100", "i32:60"]);
    against_host(&l, 0);
}

#[test]
fn scan_opencl() {
    for local in ["64", "128"] {
        let l = Launch::corpus(
            "scan.ll",
            "scan_inclusive",
            "8192",
            local,
            &[
                "buf:u32:8192=rand:9",
                "buf:u32:8192",
                &format!("buf:u32:{}", 8192 / local.parse::<usize>().unwrap()),
                &format!("local:u32:{}", 2 * local.parse::<usize>().unwrap()),
            ],
        );
        against_host(&l, 0);
    }
}

#[test]
fn histogram_opencl() {
    // Atomics on local and global memory; --repeat 2 adds twice.
    let l = Launch::corpus("histogram.ll", "histogram256", "2048", "128", &["buf:u8:50013=rand:10", "u32:50013", "buf:u32:256=rand:11"]);
    against_host(&l, 0);
    let dir = tempfile::tempdir().unwrap();
    let reference = dir.path().join("host2");
    ok(l.command(&["--repeat", "2", "--dump", reference.to_str().unwrap()]), "host --repeat 2");
    emu(&l, "markers", &reference, 0, &["--repeat", "2"]);
}

#[test]
fn stencils_opencl() {
    let l =
        Launch::corpus("stencil1d.ll", "stencil1d", "8192", "128", &["buf:f32:8192=rand:12", "buf:f32:8192", "local:f32:130", "i32:8192"]);
    against_host(&l, 0);
    for local in ["16,16", "32,8"] {
        let l = Launch::corpus(
            "stencil2d.ll",
            "stencil2d",
            "256,144",
            local,
            &["buf:f32:32500=rand:13", "buf:f32:32500", "i32:250", "i32:130"],
        );
        against_host(&l, 0);
    }
}

#[test]
fn barrier_kernels_opencl() {
    for reverse in ["i32:0", "i32:1"] {
        let l = Launch::corpus(
            "uniform_if_barrier.ll",
            "uniform_if_barrier",
            "2048",
            "64",
            &["buf:i32:2048=rand:14", "buf:i32:2048", "local:i32:64", reverse],
        );
        against_host(&l, 0);
    }
    for (local, max_iter) in [("64", "i32:64"), ("32", "i32:3")] {
        let groups = 2048 / local.parse::<usize>().unwrap();
        let l = Launch::corpus(
            "loop_break_barrier.ll",
            "loop_break_barrier",
            "2048",
            local,
            &["buf:i32:2048=rand:15", "buf:i32:2048", &format!("buf:i32:{groups}"), &format!("local:i32:{local}"), "i32:65536", max_iter],
        );
        against_host(&l, 0);
    }
    let l = Launch::corpus(
        "live_across_barriers.ll",
        "live_across_barriers",
        "2048",
        "64",
        &["buf:i32:16384=rand:16", "buf:i32:16384", "local:i32:64"],
    );
    against_host(&l, 0);
    // A private window that simt-wiloops keeps once per work-group.
    let l = Launch::corpus("region_private.ll", "region_private", "2048", "64", &["buf:i32:2048=rand:18", "buf:i32:2048", "local:i32:64"]);
    against_host(&l, 0);
    // 96 work-items: three warps; the tail loop runs lid % 3 iterations.
    let l = Launch::corpus(
        "varying_trip_barrier.ll",
        "varying_trip_barrier",
        "1920",
        "96",
        &["buf:u32:1920=rand:17", "buf:u32:1920", "buf:u32:1920", "local:u32:96"],
    );
    let s = against_host(&l, 0);
    assert!(s[0]["barriers_completed"].as_u64().unwrap() > 0);
}

/// Runs `cmd` with a time limit; returns (exit code, stderr).
fn run_with_limit(mut cmd: Command, limit: Duration) -> (Option<i32>, String) {
    let mut child = cmd.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().expect("cannot start simt-run");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            use std::io::Read;
            child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
            return (status.code(), err);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("simt-run did not finish within {limit:?} (a hang?)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn invalid_barrier_is_reported_under_every_policy() {
    // Under a neutral file name, so the kernel's name comes from the emulator.
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("k.ll");
    std::fs::copy(kernels_dir().join("invalid_barrier.ll"), &copy).unwrap();
    let l = Launch::new(&copy, "invalid_barrier", "64", "16", &["buf:i32:64=ramp"]);
    for p in POLICIES {
        for width in ["32", "4"] {
            let (code, err) =
                run_with_limit(l.command(&["--engine", "emu", "--policy", p, "--warp-width", width]), Duration::from_secs(60));
            assert_eq!(code, Some(1), "{p}: {err}");
            assert!(err.contains("kernel 'invalid_barrier'"), "{p}: {err}");
            assert!(err.contains("work-group (0,0,0) reached different barriers"), "{p}: {err}");
            assert!(err.contains("the kernel's exit"), "{p}: {err}");
        }
    }
}

// ---------------------------------------------------------------- unstructured control flow

/// The module header of the hand-written kernels (OpenCL on spir64).
const HEADER: &str = r#"target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spir64"

declare spir_func i64 @_Z13get_global_idj(i32)
"#;

const SEED000: &str = r#"
; Seed 000's figure 3 as a kernel: BB0 -> {BB1, BB5}, BB1 -> {BB2, BB3},
; BB2 -> BB4, BB3 -> {BB4, BB5}, BB4 -> BB0, BB5 -> exit. ipdom(BB1) = BB5,
; so a reconvergence stack reunites BB2's and BB3's lanes only at the exit.
define spir_kernel void @seed000(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %p
  %lo = and i32 %x, 7
  %trips = add i32 %lo, 24
  br label %bb0
bb0:
  %i = phi i32 [ 0, %entry ], [ %i.next, %bb4 ]
  %acc = phi i32 [ %x, %entry ], [ %acc5, %bb4 ]
  %more = icmp ult i32 %i, %trips
  br i1 %more, label %bb1, label %bb5
bb1:
  %t = lshr i32 %acc, 3
  %odd = and i32 %t, 1
  %c1 = icmp eq i32 %odd, 0
  br i1 %c1, label %bb2, label %bb3
bb2:
  %m2 = mul i32 %acc, 3
  %a2 = add i32 %m2, %i
  br label %bb4
bb3:
  %a3 = add i32 %acc, 1013
  %low = and i32 %a3, 127
  %stop = icmp eq i32 %low, 0
  br i1 %stop, label %bb5, label %bb4
bb4:
  %acc4 = phi i32 [ %a2, %bb2 ], [ %a3, %bb3 ]
  %h = lshr i32 %acc4, 7
  %acc5 = xor i32 %acc4, %h
  %i.next = add i32 %i, 1
  br label %bb0
bb5:
  %r = phi i32 [ %acc, %bb0 ], [ %a3, %bb3 ]
  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %r, ptr addrspace(1) %q
  ret void
}
"#;

const NESTED_EXIT: &str = r#"
; Early exit from nested loops: `goto done` from the inner body. The inner
; latch's immediate post-dominator is `done`, not the outer latch, so lanes
; whose inner loops end at different trip counts run the outer loop apart
; under a reconvergence stack.
define spir_kernel void @nested_exit(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %p
  br label %outer
outer:
  %i = phi i32 [ 0, %entry ], [ %i.next, %olatch ]
  %acc = phi i32 [ %x, %entry ], [ %a.next, %olatch ]
  %s = add i32 %acc, %i
  %s7 = and i32 %s, 7
  %m = add i32 %s7, 1
  br label %inner
inner:
  %j = phi i32 [ 0, %outer ], [ %j.next, %ilatch ]
  %a = phi i32 [ %acc, %outer ], [ %a.next, %ilatch ]
  %a5 = mul i32 %a, 5
  %v = add i32 %a5, %j
  %v8 = and i32 %v, 511
  %hit = icmp eq i32 %v8, 17
  br i1 %hit, label %done, label %ilatch
ilatch:
  %sh = lshr i32 %v, 9
  %a.next = xor i32 %v, %sh
  %j.next = add i32 %j, 1
  %more = icmp ult i32 %j.next, %m
  br i1 %more, label %inner, label %olatch
olatch:
  %i.next = add i32 %i, 1
  %omore = icmp ult i32 %i.next, 12
  br i1 %omore, label %outer, label %done
done:
  %r = phi i32 [ %v, %inner ], [ %a.next, %olatch ]
  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %r, ptr addrspace(1) %q
  ret void
}
"#;

const SHORT_CIRCUIT: &str = r#"
; `if (a || b) body;` in a loop: the two ways into `body` (from `loop` when a
; holds, from `test2` when b does) meet at `body`, but ipdom(loop) = join:
; a reconvergence stack runs `body` once for each way.
define spir_kernel void @short_circuit(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %p
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %join ]
  %acc = phi i32 [ %x, %entry ], [ %acc2, %join ]
  %a3 = and i32 %acc, 3
  %ca = icmp eq i32 %a3, 0
  br i1 %ca, label %body, label %test2
test2:
  %b12 = and i32 %acc, 12
  %cb = icmp ne i32 %b12, 4
  br i1 %cb, label %body, label %join
body:
  %t1 = mul i32 %acc, 7
  %t2 = add i32 %t1, %i
  %t3 = lshr i32 %t2, 3
  %t4 = xor i32 %t2, %t3
  %t5 = mul i32 %t4, 13
  %t6 = add i32 %t5, 5
  %t7 = lshr i32 %t6, 5
  %t8 = xor i32 %t6, %t7
  br label %join
join:
  %acc2 = phi i32 [ %t8, %body ], [ %b12, %test2 ]
  %acc3 = add i32 %acc2, %i
  %i.next = add i32 %i, 1
  %more = icmp ult i32 %i.next, 32
  br i1 %more, label %loop, label %exit
exit:
  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %acc3, ptr addrspace(1) %q
  ret void
}
"#;

const STATE_MACHINE: &str = r#"
; A state machine: `switch` on a per-lane state in a loop. State 3 can leave
; the loop directly, so ipdom(head) is the exit, not the latch where the
; states meet again.
define spir_kernel void @state_machine(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %p
  %s0 = and i32 %x, 3
  br label %head
head:
  %s = phi i32 [ %s0, %entry ], [ %sn, %latch ]
  %acc = phi i32 [ %x, %entry ], [ %accn, %latch ]
  %k = phi i32 [ 0, %entry ], [ %k.next, %latch ]
  switch i32 %s, label %st3 [
    i32 0, label %st0
    i32 1, label %st1
    i32 2, label %st2
  ]
st0:
  %m0 = mul i32 %acc, 3
  %a0 = add i32 %m0, 1
  %h0 = lshr i32 %a0, 3
  %n0 = and i32 %h0, 3
  br label %latch
st1:
  %a1 = xor i32 %acc, 23130
  %h1 = lshr i32 %a1, 5
  %n1 = and i32 %h1, 3
  br label %latch
st2:
  %a2 = add i32 %acc, 12345
  %h2 = lshr i32 %a2, 7
  %n2 = and i32 %h2, 3
  br label %latch
st3:
  %a3 = sub i32 %acc, 77
  %l3 = and i32 %a3, 1023
  %fin = icmp ult i32 %l3, 8
  %h3 = lshr i32 %a3, 2
  %n3 = and i32 %h3, 3
  br i1 %fin, label %exit, label %latch
latch:
  %sn = phi i32 [ %n0, %st0 ], [ %n1, %st1 ], [ %n2, %st2 ], [ %n3, %st3 ]
  %accn = phi i32 [ %a0, %st0 ], [ %a1, %st1 ], [ %a2, %st2 ], [ %a3, %st3 ]
  %k.next = add i32 %k, 1
  %more = icmp ult i32 %k.next, 40
  br i1 %more, label %head, label %exit
exit:
  %r = phi i32 [ %a3, %st3 ], [ %accn, %latch ]
  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %r, ptr addrspace(1) %q
  ret void
}
"#;

const OPS: &str = r#"
%struct.pair = type { i32, float }

@table = internal addrspace(2) constant [4 x i32] [i32 3, i32 -5, i32 7, i32 11], align 4
@pairs = internal addrspace(1) global [2 x %struct.pair] [%struct.pair { i32 1, float 2.5 }, %struct.pair { i32 -2, float -0.75 }], align 4
@tile = internal addrspace(3) global [64 x i32] undef, align 4

declare spir_func i64 @_Z12get_local_idj(i32)
declare spir_func void @_Z7barrierj(i32)
declare i32 @llvm.smin.i32(i32, i32)
declare i32 @llvm.umax.i32(i32, i32)
declare i32 @llvm.ctpop.i32(i32)
declare i32 @llvm.fshl.i32(i32, i32, i32)
declare i32 @llvm.fshr.i32(i32, i32, i32)
declare i32 @llvm.abs.i32(i32, i1)
declare i32 @llvm.ctlz.i32(i32, i1)
declare i32 @llvm.cttz.i32(i32, i1)
declare i32 @llvm.bswap.i32(i32)
declare i32 @llvm.usub.sat.i32(i32, i32)
declare i16 @llvm.sadd.sat.i16(i16, i16)
declare float @llvm.sqrt.f32(float)
declare float @llvm.fma.f32(float, float, float)
declare float @llvm.floor.f32(float)
declare float @llvm.minnum.f32(float, float)
declare float @llvm.fabs.f32(float)
declare double @llvm.fmuladd.f64(double, double, double)
declare <4 x i32> @llvm.smax.v4i32(<4 x i32>, <4 x i32>)
declare void @llvm.memcpy.p0.p1.i64(ptr, ptr addrspace(1), i64, i1)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare void @llvm.lifetime.start.p0(ptr)
declare void @llvm.lifetime.end.p0(ptr)
declare void @llvm.assume(i1)

; Integer, float, vector, aggregate, private/local/constant memory and atomic
; operations, each result stored: the emulator must agree bit for bit with
; the host's compiled code.
define spir_kernel void @ops(ptr addrspace(1) %in, ptr addrspace(1) %out, ptr addrspace(1) %cnt) {
entry:
  %arr = alloca [8 x i32], align 4
  %vec = alloca <4 x float>, align 16
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %lid = call spir_func i64 @_Z12get_local_idj(i32 0)
  %p = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %p
  %y = xor i32 %x, -1640531527
  %o = mul i64 %gid, 48
  %ob = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %o
  ; integers
  %r0 = sdiv i32 %y, 7
  %r1 = srem i32 %y, -13
  %r2 = udiv i32 %y, 11
  %r3 = ashr i32 %y, 5
  %r4 = call i32 @llvm.smin.i32(i32 %x, i32 %y)
  %r5 = call i32 @llvm.umax.i32(i32 %x, i32 %y)
  %r6 = call i32 @llvm.ctpop.i32(i32 %y)
  %r7 = call i32 @llvm.fshl.i32(i32 %x, i32 %y, i32 %x)
  %r8 = call i32 @llvm.abs.i32(i32 %y, i1 false)
  %r9 = call i32 @llvm.ctlz.i32(i32 %x, i1 false)
  %b8 = trunc i32 %y to i8
  %r10 = sext i8 %b8 to i32
  %h16 = trunc i32 %y to i16
  %h16m = mul i16 %h16, %h16
  %h16s = call i16 @llvm.sadd.sat.i16(i16 %h16m, i16 30000)
  %r11 = sext i16 %h16s to i32
  %r12 = call i32 @llvm.bswap.i32(i32 %y)
  %r13 = call i32 @llvm.usub.sat.i32(i32 %x, i32 %y)
  %r14 = call i32 @llvm.fshr.i32(i32 %y, i32 %x, i32 7)
  %r15 = call i32 @llvm.cttz.i32(i32 %y, i1 false)
  %lt = icmp slt i32 %y, %x
  %r16 = select i1 %lt, i32 %r0, i32 %r1
  %wide = sext i32 %y to i64
  %wm = mul i64 %wide, 1000003
  %wsh = lshr i64 %wm, 17
  %r17 = trunc i64 %wsh to i32
  %i1x = icmp ugt i32 %x, 500
  %r18 = zext i1 %i1x to i32
  %fr = freeze i32 %r17
  %r19 = urem i32 %fr, 97
  ; floats
  %f = sitofp i32 %y to float
  %g0 = uitofp i32 %x to float
  %g = fadd float %g0, 1.0
  %f1 = fdiv float %f, %g
  %f2 = call float @llvm.sqrt.f32(float %g)
  %f3 = call float @llvm.fma.f32(float %f, float %g, float %f1)
  %f4 = fneg float %f3
  %f5 = call float @llvm.floor.f32(float %f1)
  %f6 = call float @llvm.minnum.f32(float %f, float %g)
  %f7 = frem float %f, 3.5
  %f8 = call float @llvm.fabs.f32(float %f4)
  %d = fpext float %f1 to double
  %d2 = call double @llvm.fmuladd.f64(double %d, double 3.0e-3, double 1.0)
  %f9 = fptrunc double %d2 to float
  %fi = fptosi float %f5 to i32
  %fu = fptoui float %f2 to i32
  %c1 = fcmp olt float %f, %g
  %c2 = fcmp uge float %f1, 0.0
  %c1z = zext i1 %c1 to i32
  %c2z = zext i1 %c2 to i32
  %cc = shl i32 %c2z, 1
  %r20 = or i32 %c1z, %cc
  ; vectors
  %v0 = insertelement <4 x i32> poison, i32 %x, i64 0
  %v1 = insertelement <4 x i32> %v0, i32 %y, i64 1
  %v2 = insertelement <4 x i32> %v1, i32 %r3, i64 2
  %v3 = insertelement <4 x i32> %v2, i32 %r7, i64 3
  %vs = shufflevector <4 x i32> %v3, <4 x i32> <i32 1, i32 2, i32 3, i32 4>, <4 x i32> <i32 3, i32 5, i32 0, i32 6>
  %va = add <4 x i32> %v3, %vs
  %vm = call <4 x i32> @llvm.smax.v4i32(<4 x i32> %va, <4 x i32> %v3)
  %l3 = and i64 %lid, 3
  %r21 = extractelement <4 x i32> %vm, i64 %l3
  %vi = insertelement <4 x i32> %vm, i32 99, i64 %l3
  %r22 = extractelement <4 x i32> %vi, i32 2
  %lo2 = shufflevector <4 x i32> %vi, <4 x i32> poison, <2 x i32> <i32 0, i32 1>
  %as64 = bitcast <2 x i32> %lo2 to i64
  %hi64 = lshr i64 %as64, 20
  %r23 = trunc i64 %hi64 to i32
  %vf = sitofp <4 x i32> %vi to <4 x float>
  %vc = fcmp ogt <4 x float> %vf, <float 0.0, float 1.0e3, float -1.0e3, float 1.0e6>
  %vsel = select <4 x i1> %vc, <4 x float> %vf, <4 x float> zeroinitializer
  store <4 x float> %vsel, ptr %vec, align 16
  %ve = getelementptr inbounds <4 x float>, ptr %vec, i64 0, i64 2
  %f10 = load float, ptr %ve, align 8
  ; aggregates
  %agg0 = insertvalue %struct.pair poison, i32 %x, 0
  %agg1 = insertvalue %struct.pair %agg0, float %f, 1
  %r24 = extractvalue %struct.pair %agg1, 0
  %f11 = extractvalue %struct.pair %agg1, 1
  %pi = and i64 %gid, 1
  %pp = getelementptr inbounds [2 x %struct.pair], ptr addrspace(1) @pairs, i64 0, i64 %pi, i32 1
  %f12 = load float, ptr addrspace(1) %pp, align 4
  %ti = and i64 %gid, 3
  %tp = getelementptr inbounds [4 x i32], ptr addrspace(2) @table, i64 0, i64 %ti
  %r25 = load i32, ptr addrspace(2) %tp, align 4
  ; private memory
  call void @llvm.lifetime.start.p0(ptr %arr)
  call void @llvm.memset.p0.i64(ptr %arr, i8 0, i64 32, i1 false)
  %src = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %gid
  call void @llvm.memcpy.p0.p1.i64(ptr %arr, ptr addrspace(1) %src, i64 8, i1 false)
  %k1 = and i32 %x, 7
  %k1w = zext i32 %k1 to i64
  %ap = getelementptr inbounds [8 x i32], ptr %arr, i64 0, i64 %k1w
  store i32 %y, ptr %ap, align 4
  %k2 = lshr i32 %x, 3
  %k2m = and i32 %k2, 7
  %k2w = zext i32 %k2m to i64
  %aq = getelementptr inbounds [8 x i32], ptr %arr, i64 0, i64 %k2w
  %r26 = load i32, ptr %aq, align 4
  %a1p = getelementptr inbounds i32, ptr %arr, i64 1
  %r27 = load i32, ptr %a1p, align 4
  call void @llvm.lifetime.end.p0(ptr %arr)
  ; local memory through a barrier
  %tl = getelementptr inbounds [64 x i32], ptr addrspace(3) @tile, i64 0, i64 %lid
  store i32 %r7, ptr addrspace(3) %tl, align 4
  call spir_func void @_Z7barrierj(i32 1)
  %nl = add i64 %lid, 1
  %nm = and i64 %nl, 63
  %tn = getelementptr inbounds [64 x i32], ptr addrspace(3) @tile, i64 0, i64 %nm
  %r28 = load i32, ptr addrspace(3) %tn, align 4
  ; atomics (only order-independent outcomes are stored)
  %ad = atomicrmw add ptr addrspace(1) %cnt, i32 %x seq_cst, align 4
  %c1p = getelementptr inbounds i32, ptr addrspace(1) %cnt, i64 1
  %mx = atomicrmw umax ptr addrspace(1) %c1p, i32 %y seq_cst, align 4
  %c2p = getelementptr inbounds i32, ptr addrspace(1) %cnt, i64 2
  %xo = atomicrmw xor ptr addrspace(1) %c2p, i32 %r7 seq_cst, align 4
  %c3p = getelementptr inbounds i32, ptr addrspace(1) %cnt, i64 3
  %cx = cmpxchg ptr addrspace(1) %c3p, i32 0, i32 1 seq_cst seq_cst, align 4
  %c4p = getelementptr inbounds i32, ptr addrspace(1) %cnt, i64 4
  %mn = atomicrmw min ptr addrspace(1) %c4p, i32 %y seq_cst, align 4
  %ok = extractvalue { i32, i1 } %cx, 1
  call void @llvm.assume(i1 true)
  ; results
  %results = insertvalue [29 x i32] poison, i32 %r0, 0
  br label %store

store:
  %s = phi [29 x i32] [ %results, %entry ]
  %e0 = extractvalue [29 x i32] %s, 0
  store i32 %e0, ptr addrspace(1) %ob, align 4
  %q = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 1
  store i32 %r1, ptr addrspace(1) %q, align 4
  %q2 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 2
  store i32 %r2, ptr addrspace(1) %q2, align 4
  %q3 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 3
  store i32 %r3, ptr addrspace(1) %q3, align 4
  %q4 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 4
  store i32 %r4, ptr addrspace(1) %q4, align 4
  %q5 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 5
  store i32 %r5, ptr addrspace(1) %q5, align 4
  %q6 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 6
  store i32 %r6, ptr addrspace(1) %q6, align 4
  %q7 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 7
  store i32 %r7, ptr addrspace(1) %q7, align 4
  %q8 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 8
  store i32 %r8, ptr addrspace(1) %q8, align 4
  %q9 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 9
  store i32 %r9, ptr addrspace(1) %q9, align 4
  %q10 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 10
  store i32 %r10, ptr addrspace(1) %q10, align 4
  %q11 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 11
  store i32 %r11, ptr addrspace(1) %q11, align 4
  %q12 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 12
  store i32 %r12, ptr addrspace(1) %q12, align 4
  %q13 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 13
  store i32 %r13, ptr addrspace(1) %q13, align 4
  %q14 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 14
  store i32 %r14, ptr addrspace(1) %q14, align 4
  %q15 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 15
  store i32 %r15, ptr addrspace(1) %q15, align 4
  %q16 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 16
  store i32 %r16, ptr addrspace(1) %q16, align 4
  %q17 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 17
  store i32 %r17, ptr addrspace(1) %q17, align 4
  %q18 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 18
  store i32 %r18, ptr addrspace(1) %q18, align 4
  %q19 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 19
  store i32 %r19, ptr addrspace(1) %q19, align 4
  %q20 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 20
  store i32 %r20, ptr addrspace(1) %q20, align 4
  %q21 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 21
  store i32 %r21, ptr addrspace(1) %q21, align 4
  %q22 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 22
  store i32 %r22, ptr addrspace(1) %q22, align 4
  %q23 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 23
  store i32 %r23, ptr addrspace(1) %q23, align 4
  %q24 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 24
  store i32 %r24, ptr addrspace(1) %q24, align 4
  %q25 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 25
  store i32 %r25, ptr addrspace(1) %q25, align 4
  %q26 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 26
  store i32 %r26, ptr addrspace(1) %q26, align 4
  %q27 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 27
  store i32 %r27, ptr addrspace(1) %q27, align 4
  %q28 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 28
  store i32 %r28, ptr addrspace(1) %q28, align 4
  %q29 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 29
  store i32 %fi, ptr addrspace(1) %q29, align 4
  %q30 = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 30
  store i32 %fu, ptr addrspace(1) %q30, align 4
  %fb = getelementptr inbounds i32, ptr addrspace(1) %ob, i64 32
  store float %f1, ptr addrspace(1) %fb, align 4
  %fb1 = getelementptr inbounds float, ptr addrspace(1) %fb, i64 1
  store float %f2, ptr addrspace(1) %fb1, align 4
  %fb2 = getelementptr inbounds float, ptr addrspace(1) %fb, i64 2
  store float %f3, ptr addrspace(1) %fb2, align 4
  %fb3 = getelementptr inbounds float, ptr addrspace(1) %fb, i64 3
  store float %f4, ptr addrspace(1) %fb3, align 4
  %fb4 = getelementptr inbounds float, ptr addrspace(1) %fb, i64 4
  store float %f5, ptr addrspace(1) %fb4, align 4
  %fb5 = getelementptr inbounds float, ptr addrspace(1) %fb, i64 5
  store float %f6, ptr addrspace(1) %fb5, align 4
  %fb6 = getelementptr inbounds float, ptr addrspace(1) %fb, i64 6
  store float %f7, ptr addrspace(1) %fb6, align 4
  %fb7 = getelementptr inbounds float, ptr addrspace(1) %fb, i64 7
  store float %f8, ptr addrspace(1) %fb7, align 4
  %fb8 = getelementptr inbounds float, ptr addrspace(1) %fb, i64 8
  store float %f9, ptr addrspace(1) %fb8, align 4
  %fb9 = getelementptr inbounds float, ptr addrspace(1) %fb, i64 9
  store float %f10, ptr addrspace(1) %fb9, align 4
  %fb10 = getelementptr inbounds float, ptr addrspace(1) %fb, i64 10
  store float %f11, ptr addrspace(1) %fb10, align 4
  %fb11 = getelementptr inbounds float, ptr addrspace(1) %fb, i64 11
  store float %f12, ptr addrspace(1) %fb11, align 4
  %fb12 = getelementptr inbounds float, ptr addrspace(1) %fb, i64 12
  %vst = shufflevector <4 x float> %vsel, <4 x float> poison, <2 x i32> <i32 3, i32 0>
  store <2 x float> %vst, ptr addrspace(1) %fb12, align 4
  ret void
}
"#;

/// Writes `HEADER + body` to `dir/name.ll`.
fn module(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(format!("{name}.ll"));
    std::fs::write(&path, format!("{HEADER}\n{body}")).unwrap();
    path
}

/// One lane's input each; every kernel writes one i32 per work-item.
fn hand_launch(path: &Path, kernel: &str) -> Launch {
    Launch::new(path, kernel, "1024", "128", &["buf:i32:1024=rand:21", "buf:i32:1024"])
}

#[test]
fn markers_keep_lanes_together_where_ipdom_cannot() {
    let dir = tempfile::tempdir().unwrap();
    for (name, kernel, body) in [
        ("seed000", "seed000", SEED000),
        ("nested", "nested_exit", NESTED_EXIT),
        ("short", "short_circuit", SHORT_CIRCUIT),
        ("switch", "state_machine", STATE_MACHINE),
    ] {
        let l = hand_launch(&module(dir.path(), name, body), kernel);
        let s = against_host(&l, 0);
        let (ipdom, markers, none) = (efficiency(&s[0]), efficiency(&s[1]), efficiency(&s[2]));
        eprintln!("{kernel}: SIMD efficiency ipdom {ipdom:.3}, markers {markers:.3}, none {none:.3}");
        assert!(markers >= ipdom, "{kernel}: markers {markers} < ipdom {ipdom}");
        assert!(ipdom >= none, "{kernel}: ipdom {ipdom} < none {none}");
        // Each was written so that the lanes meet again at a join the
        // immediate post-dominator misses: markers must gain a lot there.
        assert!(markers > 1.3 * ipdom, "{kernel}: markers {markers} not clearly above ipdom {ipdom}");
        assert!(s[1]["convergence_checks"].as_u64().unwrap() > 0);
        assert!(s[1]["merges"].as_u64().unwrap() > 0);
        assert_eq!(s[2]["merges"], 0, "none never merges");
        assert!(!s[0]["divergence_by_block"].as_array().unwrap().is_empty());
    }
}

/// Markers placed by `simt-converge` (and the convergence-control form of
/// `simt-converge<intrinsics>`) are what the markers policy checks at.
#[test]
fn markers_from_the_simt_converge_pass() {
    let dir = tempfile::tempdir().unwrap();
    let plain = module(dir.path(), "seed000", SEED000);
    let implicit = {
        let l = hand_launch(&plain, "seed000");
        let reference = host_reference(&l, dir.path());
        (emu(&l, "markers", &reference, 0, &[]), emu(&l, "ipdom", &reference, 0, &[]), reference)
    };
    assert_eq!(implicit.0["engine_details"]["convergence_markers"], 0);
    for pipeline in ["simt-converge", "simt-converge<intrinsics>"] {
        let marked = dir.path().join(format!("marked-{}.ll", pipeline.len()));
        ok(
            {
                let mut c = Command::new(env!("CARGO_BIN_EXE_simt-opt"));
                c.arg(&plain).arg("-S").arg(format!("-passes={pipeline}")).arg("-o").arg(&marked);
                c
            },
            pipeline,
        );
        let text = std::fs::read_to_string(&marked).unwrap();
        assert!(text.contains("call void @simt.converge(i32"), "{pipeline}:\n{text}");
        let l = hand_launch(&marked, "seed000");
        for p in POLICIES {
            let s = emu(&l, p, &implicit.2, 0, &[]);
            if p == "markers" {
                assert!(s["engine_details"]["convergence_markers"].as_u64().unwrap() >= 3, "{s}");
                assert_eq!(s["engine_details"]["check_blocks"], 0);
                assert!(efficiency(&s) >= efficiency(&implicit.1), "{pipeline}: markers below ipdom: {s}");
                assert_eq!(s["lane_instructions"], implicit.0["lane_instructions"]);
            }
        }
    }
}

#[test]
fn operations_agree_with_compiled_code() {
    let dir = tempfile::tempdir().unwrap();
    let path = module(dir.path(), "ops", OPS);
    // 48 words per work-item; cnt: the atomics' counters, starting from 0.
    let l = Launch::new(&path, "ops", "256", "64", &["buf:i32:264=rand:22", "buf:i32:12288", "buf:i32:5"]);
    against_host(&l, 0);
    let l = Launch::new(&path, "ops", "256", "64", &["buf:i32:264=rand:23", "buf:i32:12288", "buf:i32:5"]);
    let reference = host_reference(&l, dir.path());
    for width in ["1", "7", "64"] {
        emu(&l, "ipdom", &reference, 0, &["--warp-width", width]);
    }
}

#[test]
fn warp_widths_give_the_same_results() {
    let dir = tempfile::tempdir().unwrap();
    let launches = [
        hand_launch(&module(dir.path(), "switch", STATE_MACHINE), "state_machine"),
        Launch::corpus("scan.ll", "scan_inclusive", "2048", "128", &["buf:u32:2048=rand:9", "buf:u32:2048", "buf:u32:16", "local:u32:256"]),
        Launch::corpus(
            "varying_trip_barrier.ll",
            "varying_trip_barrier",
            "960",
            "96",
            &["buf:u32:960=rand:17", "buf:u32:960", "buf:u32:960", "local:u32:96"],
        ),
    ];
    for l in &launches {
        let sub = tempfile::tempdir().unwrap();
        let reference = host_reference(l, sub.path());
        for width in ["1", "5", "16", "64"] {
            for p in POLICIES {
                let s = emu(l, p, &reference, 0, &["--warp-width", width]);
                assert_eq!(s["warp_width"], width.parse::<u64>().unwrap());
                if width == "1" {
                    assert_eq!(efficiency(&s), 1.0, "one lane per warp never diverges");
                    assert_eq!(s["divergent_branches"], 0);
                }
            }
        }
    }
}

#[test]
fn stats_json_and_summary() {
    let l = Launch::corpus("reduction.ll", "reduce_sum", "2048", "64", &["buf:f32:5000=rand:5", "buf:f32:32", "local:f32:64", "u32:5000"]);
    let out = ok(l.command(&["--engine", "emu", "--policy", "markers", "--warp-width", "16", "--stats", "json", "--repeat", "2"]), "json");
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    for key in [
        "warp_instructions",
        "simd_efficiency",
        "convergence_checks",
        "lane_instructions",
        "policy",
        "warp_width",
        "divergent_branches",
        "divergence_by_block",
        "lane_instructions_per_second",
        // RunStats' own fields
        "engine",
        "kernel",
        "global",
        "local",
        "work_groups",
        "threads",
        "repeat",
        "compile_seconds",
        "kernel_seconds",
        "kernel_seconds_best",
        "engine_details",
    ] {
        assert!(v.get(key).is_some(), "--stats json lacks '{key}': {v}");
    }
    assert_eq!(v["policy"], "markers");
    assert_eq!(v["warp_width"], 16);
    assert_eq!(v["repeat"], 2);
    assert_eq!(v["work_groups"], 32);
    let (wi, li) = (v["warp_instructions"].as_f64().unwrap(), v["lane_instructions"].as_f64().unwrap());
    assert!((v["simd_efficiency"].as_f64().unwrap() - li / (wi * 16.0)).abs() < 1e-12);

    let out = l.command(&["--engine", "emu", "--policy", "ipdom"]).output().unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("kernel 'reduce_sum' on emu"), "{err}");
    assert!(err.contains("emu: policy ipdom, warp width 32:"), "{err}");
    assert!(err.contains("SIMD efficiency"), "{err}");
    assert!(err.contains("lane-instructions/s"), "{err}");
    assert!(err.contains("divergent branches by block:"), "{err}");
}

#[test]
fn launch_file_keys() {
    let dir = tempfile::tempdir().unwrap();
    let launch = dir.path().join("r.launch");
    std::fs::write(
        &launch,
        format!(
            "module = {}\nkernel = vecadd\nglobal = 256\nlocal = 64\narg = buf:f32:200=ramp\narg = buf:f32:200=ramp\narg = buf:f32:200\narg = i32:200\nengine = emu\npolicy = none\nwarp-width = 8\n",
            kernels_dir().join("vecadd.ll").display()
        ),
    )
    .unwrap();
    let mut c = simt_run();
    c.args(["--launch", launch.to_str().unwrap(), "--stats", "json"]);
    let v: Value = serde_json::from_str(ok(c, "launch file").trim()).unwrap();
    assert_eq!(v["engine"], "emu");
    assert_eq!(v["policy"], "none");
    assert_eq!(v["warp_width"], 8);
}

// ---------------------------------------------------------------- errors

fn emu_error(dir: &Path, name: &str, body: &str, kernel: &str, args: &[&str]) -> String {
    let path = module(dir, name, body);
    let l = Launch::new(&path, kernel, "64", "32", args);
    let (code, err) = run_with_limit(l.command(&["--engine", "emu"]), Duration::from_secs(60));
    assert_eq!(code, Some(1), "{name}: {err}");
    assert!(!err.contains("panicked"), "{name}: {err}");
    err
}

#[test]
fn out_of_bounds_and_division_by_zero_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let err = emu_error(
        dir.path(),
        "oob",
        r#"
define spir_kernel void @oob(ptr addrspace(1) %out) {
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %i = add i64 %gid, 1
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %i
  store i32 1, ptr addrspace(1) %p, align 4
  ret void
}
"#,
        "oob",
        &["buf:i32:64"],
    );
    assert!(err.contains("kernel 'oob': work-item (31,0,0) of work-group (1,0,0): store of 4 bytes at offset 256 of argument 0 (256 bytes) is out of bounds in 'store i32 1"), "{err}");
    let err = emu_error(
        dir.path(),
        "div",
        r#"
define spir_kernel void @div(ptr addrspace(1) %out) {
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %g = trunc i64 %gid to i32
  %d = sub i32 40, %g
  %q = udiv i32 1000, %d
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %q, ptr addrspace(1) %p, align 4
  ret void
}
"#,
        "div",
        &["buf:i32:64"],
    );
    assert!(err.contains("work-item (8,0,0) of work-group (1,0,0): integer division by zero in '%q = udiv i32 1000, %d'"), "{err}");
    let err = emu_error(
        dir.path(),
        "null",
        r#"
define spir_kernel void @null(ptr addrspace(1) %out) {
  %v = load i32, ptr addrspace(1) null, align 4
  store i32 %v, ptr addrspace(1) %out, align 4
  ret void
}
"#,
        "null",
        &["buf:i32:64"],
    );
    assert!(err.contains("load of 4 bytes at the null pointer is out of bounds"), "{err}");
}

#[test]
fn unsupported_ir_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &str, &str); 4] = [
        (
            "wide",
            r#"
define spir_kernel void @wide(ptr addrspace(1) %out) {
  %v = load i128, ptr addrspace(1) %out, align 16
  %w = add i128 %v, 1
  store i128 %w, ptr addrspace(1) %out, align 16
  ret void
}
"#,
            "integers wider than 64 bits (i128) are not supported in '%v = load i128",
        ),
        (
            "printf",
            r#"
declare spir_func i32 @printf(ptr addrspace(2), ...)
@fmt = internal addrspace(2) constant [3 x i8] c"%d\00"
define spir_kernel void @printf_kernel(ptr addrspace(1) %out) {
  %r = call spir_func i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) @fmt, i32 1)
  ret void
}
"#,
            "call to 'printf' is not supported in '%r = call spir_func i32 (ptr addrspace(2), ...) @printf",
        ),
        (
            "indirect",
            r#"
define spir_kernel void @indirect(ptr addrspace(1) %out, ptr %f) {
  call void %f()
  ret void
}
"#,
            "indirect calls are not supported in 'call void %f()'",
        ),
        (
            "half",
            r#"
define spir_kernel void @half(ptr addrspace(1) %out) {
  %h = load half, ptr addrspace(1) %out, align 2
  %s = fadd half %h, %h
  store half %s, ptr addrspace(1) %out, align 2
  ret void
}
"#,
            "values of type half are not supported in '%h = load half",
        ),
    ];
    for (name, body, want) in cases {
        let kernel = if name == "printf" { "printf_kernel" } else { name };
        let args: &[&str] = if name == "indirect" { &["buf:i32:64", "buf:u8:8"] } else { &["buf:i32:64"] };
        let err = emu_error(dir.path(), name, body, kernel, args);
        assert!(err.contains(&format!("kernel '{kernel}': the emulator cannot run it: ")), "{name}: {err}");
        assert!(err.contains(want), "{name}: {err}");
    }
}
