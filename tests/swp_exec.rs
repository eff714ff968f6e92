//! `simt-swp` proven by running (seed 002): the loops of
//! scripts/bench-sched-loops.c are compiled for the host, software-pipelined
//! on each machine model, and run by tests/swp/harness.c for trip counts
//! 0..17, 31, 100 and 250 (short ones take the fallback loop, the others the
//! prologue/kernel/epilogue); everything each loop writes and returns must
//! be identical to the original build's. Skipped (with a note) where
//! clang-22 is missing.

mod common;

use std::path::Path;
use std::process::Command;

fn clang() -> Option<&'static str> {
    ["clang-22", "/usr/lib/llvm-22/bin/clang"]
        .into_iter()
        .find(|c| Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()))
}

fn run_ok(cmd: &mut Command) -> std::process::Output {
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    out
}

/// `simt-opt -passes=simt-swp<machine=M>` from `ll` to `out`; the pass's
/// notes (`SIMT_SWP_NOTES`), one line per loop.
fn pipeline(ll: &Path, out: &Path, machine: &str) -> String {
    let r = run_ok(
        Command::new(env!("CARGO_BIN_EXE_simt-opt"))
            .env("SIMT_SWP_NOTES", "1")
            .arg(format!("-passes=simt-swp<machine={machine}>"))
            .arg("-S")
            .arg(ll)
            .arg("-o")
            .arg(out),
    );
    String::from_utf8_lossy(&r.stderr).into_owned()
}

/// `src` compiled to IR as the pipeliner gets loops: -O2, neither
/// vectorised nor unrolled.
fn loops_ir(clang: &str, src: &Path, flags: &[String], ll: &Path) {
    run_ok(
        Command::new(clang).args(["-O2", "-fno-vectorize", "-fno-unroll-loops", "-S", "-emit-llvm"]).args(flags).arg("-o").arg(ll).arg(src),
    );
}

/// `ir` linked with the C `driver` (built with `flags`) into `exe`, run:
/// what it prints.
fn build_and_run(clang: &str, driver: Option<&Path>, flags: &[&str], ir: &Path, exe: &Path) -> String {
    run_ok(Command::new(clang).args(["-O1", "-w"]).args(flags).args(driver).arg(ir).arg("-o").arg(exe));
    String::from_utf8(run_ok(&mut Command::new(exe)).stdout).unwrap()
}

#[test]
fn pipelined_loops_compute_what_the_originals_compute() {
    let Some(clang) = clang() else {
        common::missing_tool("clang-22");
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ll = d.join("loops.ll");
    loops_ir(clang, &root.join("scripts/bench-sched-loops.c"), &[], &ll);
    let harness = root.join("tests/swp/harness.c");
    let build_and_run = |ir: &Path, exe: &str| build_and_run(clang, Some(&harness), &[], ir, &d.join(exe));
    let want = build_and_run(&ll, "orig");
    assert!(want.lines().count() > 500, "the harness prints one line per loop and trip count");
    for machine in ["itanium2", "hexagon"] {
        let out = d.join(format!("swp-{machine}.ll"));
        let notes = pipeline(&ll, &out, machine);
        let pipelined = notes.lines().filter(|l| l.contains(": pipelined,")).count();
        assert!(pipelined >= 20, "{machine}: only {pipelined} loops pipelined:\n{notes}");
        let got = build_and_run(&out, &format!("swp-{machine}"));
        for (w, g) in want.lines().zip(got.lines()) {
            assert_eq!(w, g, "{machine}: pipelined loop differs from the original");
        }
        assert_eq!(want.lines().count(), got.lines().count());
    }
}

/// A small deterministic generator (an LCG), so a failing loop can be
/// rebuilt from its number.
struct Gen(u64);

impl Gen {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }

    /// An unsigned expression over the loop's arrays, scalars and `i`.
    fn expr(&mut self, depth: u32) -> String {
        if depth == 0 || self.next(3) == 0 {
            return match self.next(8) {
                0 => format!("b[i + {}]", self.next(3)),
                1 => format!("a[i - {}]", 1 + self.next(2)),
                2 => "c[i]".into(),
                3 => "s".into(),
                4 => "t".into(),
                5 => "(unsigned)i".into(),
                // An indirect read of the array the loop writes.
                6 => format!("a[(c[i] >> 9) & {}]", [7, 31, 63][self.next(3) as usize]),
                _ => format!("{}u", self.next(1000)),
            };
        }
        let (l, r) = (self.expr(depth - 1), self.expr(depth - 1));
        match self.next(6) {
            0 => format!("({l} + {r})"),
            1 => format!("({l} - {r})"),
            2 => format!("({l} * {r})"),
            3 => format!("({l} ^ {r})"),
            4 => format!("({l} >> {})", 1 + self.next(7)),
            _ => format!("({l} << {})", 1 + self.next(7)),
        }
    }
}

/// Generated loops: random bodies of stores, temporaries and scalar
/// recurrences (restrict or not), with indirect (`a[c[i] & 15] += ..`),
/// loop-invariant (`a[1] += ..`) and aliasing (`b` is `a` two ahead)
/// addresses, pipelined and run against the originals.
#[test]
fn generated_loops_pipeline_correctly() {
    let Some(clang) = clang() else {
        common::missing_tool("clang-22");
        return;
    };
    let count = 80;
    let mut g = Gen(0x5eed_0012);
    let mut src = String::from("/* generated by tests/swp_exec.rs */\n");
    let mut calls = String::new();
    for k in 0..count {
        let restrict = if g.next(2) == 0 { "restrict " } else { "" };
        // The loop's shape: signed or unsigned counters, `for` or `do while`
        // (a do-while runs once when n is too small: the guard's case).
        let (head, tail) = match g.next(4) {
            0 => ("  for (int i = 2; i < n; i++) {\n", "  }\n"),
            1 => ("  for (unsigned i = 2; i < (unsigned)n; i++) {\n", "  }\n"),
            2 => ("  int i = 2;\n  do {\n", "  } while (++i < n);\n"),
            _ => ("  unsigned i = 2;\n  do {\n", "  } while (++i < (unsigned)n);\n"),
        };
        src += &format!(
            "unsigned g{k}(int n, unsigned *{restrict}a, const unsigned *{restrict}b, const unsigned *{restrict}c) {{\n  unsigned s = 1, t = 2;\n{head}"
        );
        for _ in 0..1 + g.next(4) {
            src += &match g.next(6) {
                0 => format!("    a[i] = {};\n", g.expr(3)),
                1 => format!("    s = {};\n", g.expr(3)),
                // Read-modify-writes through an address computed or loaded in
                // the body (a histogram), through a loop-invariant address,
                // and an indirect store.
                2 => format!("    a[(c[i] >> 7) & {}] += {};\n", [1, 3, 15, 63][g.next(4) as usize], g.expr(2)),
                3 => format!("    a[{}] += {};\n", g.next(3), g.expr(2)),
                4 => format!("    a[b[i] % {}] = {};\n", 5 + g.next(60), g.expr(2)),
                _ => format!("    t = {};\n", g.expr(2)),
            };
        }
        src += tail;
        src += "  return s ^ t;\n}\n";
        // Without restrict, b may be the array a writes (read two ahead).
        let b = if restrict.is_empty() && g.next(2) == 0 { "A" } else { "B" };
        calls += &format!("    init(); r = g{k}(n, A + 2, {b}, C); printf(\"g{k} %d %u %lx\\n\", n, r, sum(A));\n");
    }
    src += r#"
#include <stdio.h>
#define N 600
static unsigned A[N], B[N], C[N];
/* Not inlined: main's copies of their loops (160, of 600 trips each) cost
   simt-swp a simulation of their fills at every loop it pipelined in main,
   nearly all of this test's time (300 s of a debug build; 9 s without).
   The inlined copies of gK stay: 66 of main's loops are pipelined, with the
   arrays' offsets known. */
__attribute__((noinline)) static void init(void) {
  unsigned x = 7;
  for (int i = 0; i < N; i++) { x = x * 1103515245u + 12345u; A[i] = x >> 7; B[i] = x >> 3; C[i] = x ^ 0x5a5a; }
}
__attribute__((noinline)) static unsigned long sum(const unsigned *p) { unsigned long h = 0; for (int i = 0; i < N; i++) h = h * 31 + p[i]; return h; }
int main(void) {
  int ns[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 33, 200};
  unsigned r;
  for (unsigned k = 0; k < sizeof ns / sizeof ns[0]; k++) {
    int n = ns[k];
"#;
    src += &calls;
    src += "  }\n  return 0;\n}\n";
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("gen.c"), &src).unwrap();
    let ll = d.join("gen.ll");
    loops_ir(clang, &d.join("gen.c"), &[], &ll);
    let build_and_run = |ir: &Path, exe: &str| build_and_run(clang, None, &[], ir, &d.join(exe));
    let want = build_and_run(&ll, "orig");
    for machine in ["itanium2", "hexagon"] {
        let out = d.join(format!("gen-{machine}.ll"));
        let notes = pipeline(&ll, &out, machine);
        let pipelined = notes.lines().filter(|l| l.starts_with("simt-swp: g") && l.contains(": pipelined,")).count();
        eprintln!("{machine}: {pipelined} of {count} generated loops pipelined");
        assert!(pipelined >= count / 4, "{machine}: only {pipelined} generated loops pipelined:\n{notes}");
        let got = build_and_run(&out, &format!("gen-{machine}"));
        for (w, gl) in want.lines().zip(got.lines()) {
            assert_eq!(w, gl, "{machine}: a pipelined generated loop differs (source in {}):\n{src}", d.display());
        }
        assert_eq!(want.lines().count(), got.lines().count());
    }
}

/// Loops whose memory dependences no affine distance describes: histograms
/// (`h[idx[i]] += 1`, integer and float), a read-modify-write through a
/// loop-invariant pointer, two indirect addresses into one array, and
/// in-place recurrences through pointers that alias at distances 1-3. Each
/// is run restrict and not, pipelined on both machines, against the
/// original (tests/swp/indirect.c). The same address value in two
/// iterations is the same location: before the loop-carried arc was kept,
/// the histograms lost counts (`simt-swp` overlapped the next iteration's
/// load with this one's store).
#[test]
fn indirect_and_aliasing_loops_pipeline_correctly() {
    let Some(clang) = clang() else {
        common::missing_tool("clang-22");
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = root.join("tests/swp/indirect.c");
    let build_and_run = |ir: &Path, exe: &str| build_and_run(clang, Some(&src), &["-DHARNESS"], ir, &d.join(exe));
    for restrict in ["", "restrict"] {
        let ll = d.join(format!("indirect-{restrict}.ll"));
        loops_ir(clang, &src, &[format!("-DRESTRICT={restrict}")], &ll);
        let want = build_and_run(&ll, "orig");
        assert!(want.lines().count() >= 8 * 6, "one line per loop and trip count:\n{want}");
        for machine in ["itanium2", "hexagon"] {
            let out = d.join(format!("indirect-{restrict}-{machine}.ll"));
            let notes = pipeline(&ll, &out, machine);
            let pipelined = notes.lines().filter(|l| l.contains(": pipelined,")).count();
            // Without restrict every access may alias every other, so fewer
            // loops have several stages; with it the histograms must pipeline.
            let least = if restrict.is_empty() { 1 } else { 5 };
            assert!(pipelined >= least, "{machine} {restrict}: only {pipelined} loops pipelined:\n{notes}");
            let got = build_and_run(&out, &format!("swp-{machine}"));
            for (w, g) in want.lines().zip(got.lines()) {
                assert_eq!(w, g, "{machine} {restrict}: a pipelined loop differs from the original\n{notes}");
            }
            assert_eq!(want.lines().count(), got.lines().count());
        }
    }
}
