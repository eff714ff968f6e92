//! What the integration tests share: where the corpus kernels are, `simt-run`
//! as a command, one launch of it ([`Launch`]), and IR that more than one
//! test writes ([`vadd_ir`]). Each test crate that declares `mod common;`
//! uses a part of it, hence the allowances for what it leaves unused.

#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `test-ir/kernels`: the corpus.
pub fn kernels_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("test-ir").join("kernels")
}

/// `simt-run`, to add arguments to.
pub fn simt_run() -> Command {
    Command::new(env!("CARGO_BIN_EXE_simt-run"))
}

/// `simt-run ARGS…`, run to its end.
pub fn simt_run_output<S: AsRef<OsStr>>(args: &[S]) -> Output {
    simt_run().args(args).output().expect("simt-run runs")
}

/// Runs `cmd`, which must succeed; returns stdout.
pub fn ok(mut cmd: Command, what: &str) -> String {
    let out = cmd.output().expect("cannot start the tool");
    assert!(out.status.success(), "{what}: exit {:?}\nstderr:\n{}", out.status.code(), String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// One launch: module, kernel, sizes and `--arg` specs.
#[derive(Clone)]
pub struct Launch {
    pub module: PathBuf,
    pub kernel: String,
    pub global: String,
    pub local: String,
    pub args: Vec<String>,
}

impl Launch {
    pub fn new(module: impl Into<PathBuf>, kernel: &str, global: &str, local: &str, args: &[&str]) -> Launch {
        Launch {
            module: module.into(),
            kernel: kernel.into(),
            global: global.into(),
            local: local.into(),
            args: args.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// A launch of `file` of the corpus ([`kernels_dir`]).
    pub fn corpus(file: &str, kernel: &str, global: &str, local: &str, args: &[&str]) -> Launch {
        Launch::new(kernels_dir().join(file), kernel, global, local, args)
    }

    /// `simt-run MODULE --kernel K --global G --local L --arg A… EXTRA…`.
    pub fn command(&self, extra: &[&str]) -> Command {
        let mut c = simt_run();
        c.arg(&self.module).args(["--kernel", &self.kernel, "--global", &self.global, "--local", &self.local]);
        for a in &self.args {
            c.args(["--arg", a]);
        }
        c.args(extra);
        c
    }

    /// The launch in a failure message.
    pub fn what(&self) -> String {
        format!("{} {} global {} local {}", self.module.display(), self.kernel, self.global, self.local)
    }
}

/// `vadd` in IR, as clang emits it for spir64: `c[i] = a[i] + b[i]` for
/// `i < n`. It calls `@_Z13get_global_idj`, which the module declares. A
/// macro, so that a test's module text stays one `concat!` constant.
#[allow(unused_macros)]
macro_rules! vadd_ir {
    () => {
        r#"
define spir_kernel void @vadd(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c, i32 %n) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %n64 = sext i32 %n to i64
  %in = icmp slt i64 %gid, %n64
  br i1 %in, label %body, label %done
body:
  %pa = getelementptr float, ptr addrspace(1) %a, i64 %gid
  %pb = getelementptr float, ptr addrspace(1) %b, i64 %gid
  %pc = getelementptr float, ptr addrspace(1) %c, i64 %gid
  %va = load float, ptr addrspace(1) %pa
  %vb = load float, ptr addrspace(1) %pb
  %s = fadd float %va, %vb
  store float %s, ptr addrspace(1) %pc
  br label %done
done:
  ret void
}
"#
    };
}
#[allow(unused_imports)]
pub(crate) use vadd_ir;

/// A test that needs `tool` (clang-22, LLVM's opt, pocl) and did not find
/// it. Under `scripts/test` (which installs every tool and sets
/// `SIMT_REQUIRE_TOOLS=1`) a missing tool is a broken set-up, and the test
/// fails rather than pass having checked nothing; elsewhere it says so and
/// the caller returns.
pub fn missing_tool(tool: &str) {
    if std::env::var_os("SIMT_REQUIRE_TOOLS").is_some_and(|v| v == "1") {
        panic!("{tool} is missing, and SIMT_REQUIRE_TOOLS=1 (scripts/test) requires it: run scripts/setup");
    }
    eprintln!("note: {tool} not found: this test checks nothing here (under scripts/test it would fail)");
}

/// `simt-run` flags for a run whose buffers a test compares: `--engine
/// ENGINE`, no kernel cache, each buffer dumped to `dump`; on the emulator
/// with every check (`--check all`: races, uninitialised reads, bounds,
/// barriers, warp masks), which must then report nothing.
pub fn engine_flags(engine: &str, dump: &Path) -> Vec<String> {
    let mut a: Vec<String> = vec!["--engine".into(), engine.into(), "--no-cache".into(), "--dump".into(), dump.display().to_string()];
    if engine == "emu" {
        a.extend(["--check".into(), "all".into()]);
    }
    a
}

/// Deterministic inputs (a 64-bit LCG's top bits), independent of simt's
/// `rand:` fills, for tests that compute their expected results themselves.
pub fn lcg(seed: u64, n: usize) -> Vec<u32> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 32) as u32
        })
        .collect()
}
