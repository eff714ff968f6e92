//! Generated CUDA kernels with warp functions, host engine against the
//! emulator (issue 24). The hand-written corpus (tests/cuda_sources.rs)
//! has the shapes its authors thought of; the host engine's warp machinery
//! (the warp dispatcher's regions and lane loops, warp ids, loop barriers,
//! unswitching) rewrites control flow around every warp function, so this
//! test generates kernels that put shuffles, votes, ballots, `match_any`
//! and `__reduce_add_sync` in loops of constant, block-uniform and
//! per-warp trip counts, under branches uniform per warp or per block, in
//! loops a shuffle's result leaves, and in a `__device__` helper, beside
//! shared-memory exchanges across `__syncthreads`, warp-aggregated atomics
//! into shared counters (`simt-deaggregate-atomics`' shapes) and
//! lane-divergent arithmetic. Each kernel runs on both engines from the same input; the
//! emulator (with `--check all`, which must report nothing: every warp
//! function is reached by all 32 lanes of a full warp) is the oracle, and
//! the host's buffer must equal it bit for bit.
//!
//! Well defined by construction: arithmetic in `unsigned`, shift counts
//! constant and below 32, warp functions only where the whole warp runs
//! (never under a lane-divergent branch, but for the `__activemask()` of an
//! aggregated atomic, which the host runs only once the pass removed it), `__syncthreads` only where the
//! whole block runs, blocks of whole warps, and each thread writes only its
//! own output slot.
//!
//! `cargo test --test warp_fuzz` runs seeds 1..=SIMT_WARP_FUZZ_N (default
//! 12) from SIMT_WARP_FUZZ_FIRST (default 1); SIMT_WARP_FUZZ_PRINT=SEED
//! prints a kernel's source and launch instead.

mod common;

use common::{engine_flags, simt_run_output};
use std::fmt::Write as _;

/// splitmix64: deterministic from the seed, the same on every machine.
struct Gen(u64);

impl Gen {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % n
    }

    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.next(xs.len() as u64) as usize]
    }
}

/// Who runs a statement together: the whole block, the whole warp (but
/// warps may differ), or lanes that may differ within a warp.
#[derive(Clone, Copy, PartialEq)]
enum Scope {
    Block,
    Warp,
    Lanes,
}

/// A generated kernel: its source and launch.
struct Kernel {
    source: String,
    block: u32,
    blocks: u32,
    n: u32,
    m: u32,
}

/// The generator's state: the source so far and a counter for names.
struct Writer<'g> {
    g: &'g mut Gen,
    out: String,
    names: u32,
    helper_used: bool,
}

/// One line of the kernel's body, indented for `depth`.
fn line(out: &mut String, depth: usize, s: &str) {
    let _ = writeln!(out, "{}{s}", "  ".repeat(depth + 1));
}

impl Writer<'_> {
    fn fresh(&mut self, base: &str) -> String {
        self.names += 1;
        format!("{base}{}", self.names)
    }

    /// An expression of the thread's values, no warp function.
    fn plain(&mut self) -> String {
        let c = 1 + self.g.next(97);
        match self.g.next(6) {
            0 => format!("v * {c}u + u"),
            1 => format!("(u << {}) ^ v", 1 + self.g.next(7)),
            2 => format!("min(v, u) + {c}u"),
            3 => format!("(v >> {}) + lane * {c}u", 1 + self.g.next(9)),
            4 => "u - v + warp".to_string(),
            _ => "(v & 0xffu) * (u | 1u)".to_string(),
        }
    }

    /// A warp function's expression (run by a whole warp).
    fn warp_call(&mut self) -> String {
        let k = self.g.next(32);
        let width = self.g.pick(&["", ", 16", ", 8", ", 4"]);
        match self.g.next(11) {
            0 => format!("__shfl_xor_sync(FULL, u, {}{width})", 1 << self.g.next(5)),
            1 => format!("__shfl_down_sync(FULL, v, {}{width})", 1 + self.g.next(16)),
            2 => format!("__shfl_up_sync(FULL, u, {}{width})", 1 + self.g.next(16)),
            3 => format!("__shfl_sync(FULL, v, {k})"),
            4 => format!("__shfl_sync(FULL, u, (lane + {k}u) & 31u)"),
            5 => "__shfl_sync(FULL, v, u & 31u)".to_string(),
            6 => format!("__popc(__ballot_sync(FULL, (v & {}u) != 0u))", 1 + k),
            7 => format!("__any_sync(FULL, v > {}u) + 2u * __all_sync(FULL, (u & 1u) == 0u)", k << 20),
            8 => format!("__match_any_sync(FULL, v & {}u)", [1, 3, 7, 15][self.g.next(4) as usize]),
            9 => "__reduce_add_sync(FULL, u & 255u)".to_string(),
            _ => {
                self.helper_used = true;
                "warp_sum(v & 0xffffu)".to_string()
            }
        }
    }

    /// Counts added to `agg` by one leader per group of lanes: lanes of
    /// equal key (`__match_any_sync`), those whose vote holds
    /// (`__ballot_sync`), or those that took a lane-divergent branch
    /// (`__activemask`, which the host engine runs only once the pass has
    /// removed it). The lowest or highest lane leads; it adds or
    /// subtracts its group's `__popc`.
    fn aggregated_atomic(&mut self, depth: usize) {
        let g = self.fresh("g");
        let key = self.fresh("key");
        let op = self.g.pick(&["atomicAdd", "atomicSub"]);
        let leader = |g: &str, top: bool| if top { format!("lane == 31 - __clz({g})") } else { format!("lane == __ffs({g}) - 1") };
        let top = self.g.next(2) == 0;
        line(&mut self.out, depth, "if (threadIdx.x < 16u) agg[threadIdx.x] = 0u;");
        line(&mut self.out, depth, "__syncthreads();");
        let k = self.g.pick(&["v & 3u", "(u >> 3) & 15u", "lane & 7u", "warp & 15u", "(v ^ u) & 1u"]);
        line(&mut self.out, depth, &format!("unsigned {key} = {k};"));
        match self.g.next(3) {
            0 => {
                line(&mut self.out, depth, &format!("unsigned {g} = __match_any_sync(FULL, {key});"));
                let also = self.g.pick(&["", &format!("{key} != 2u && "), &format!("{key} < 6u && ")]).to_string();
                let lead = leader(&g, top);
                line(&mut self.out, depth, &format!("if ({also}{lead}) {op}(&agg[{key}], __popc({g}));"));
            }
            1 => {
                let c = self.g.next(16);
                line(&mut self.out, depth, &format!("unsigned {g} = __ballot_sync(FULL, {key} > 1u);"));
                let lead = leader(&g, top);
                line(&mut self.out, depth, &format!("if ({lead}) {op}(&agg[{c}], __popc({g}));"));
            }
            _ => {
                let c = self.g.next(16);
                line(&mut self.out, depth, &format!("if ({key} != 1u) {{"));
                line(&mut self.out, depth + 1, &format!("unsigned {g} = __activemask();"));
                let lead = leader(&g, top);
                line(&mut self.out, depth + 1, &format!("if ({lead}) {op}(&agg[{c}], __popc({g}));"));
                line(&mut self.out, depth, "}");
            }
        }
        line(&mut self.out, depth, "__syncthreads();");
        let c = self.g.next(16);
        line(&mut self.out, depth, &format!("u += agg[(threadIdx.x + {c}u) & 15u];"));
        line(&mut self.out, depth, "__syncthreads();");
    }

    /// Statements run by `scope`, nested `depth` deep.
    fn block(&mut self, depth: usize, scope: Scope, count: u64) {
        for _ in 0..count {
            self.statement(depth, scope);
        }
    }

    fn statement(&mut self, depth: usize, scope: Scope) {
        let nest = depth < 3;
        let choice = self.g.next(13);
        match choice {
            // Warp functions where the whole warp runs.
            0..=3 if scope != Scope::Lanes => {
                let call = self.warp_call();
                let op = self.g.pick(&["+=", "^=", "-="]);
                let var = self.g.pick(&["v", "u"]);
                line(&mut self.out, depth, &format!("{var} {op} {call};"));
            }
            // A loop of constant, block-uniform or per-warp trip count.
            4 | 5 if nest && scope != Scope::Lanes => {
                let r = self.fresh("r");
                let (bound, inner) = match self.g.next(4) {
                    0 => (format!("{}", 1 + self.g.next(4)), scope),
                    1 => ("m".to_string(), scope),
                    2 => ("warp % 3u + 1u".to_string(), Scope::Warp),
                    _ => ("(m + warp) % 3u".to_string(), Scope::Warp),
                };
                line(&mut self.out, depth, &format!("for (unsigned {r} = 0; {r} < {bound}; {r}++) {{"));
                let n = 1 + self.g.next(3);
                self.block(depth + 1, inner, n);
                line(&mut self.out, depth, "}");
            }
            // A loop left on a shuffle's result (the same in the warp).
            6 if nest && scope != Scope::Lanes => {
                let s = self.fresh("s");
                let f = self.fresh("f");
                line(&mut self.out, depth, &format!("unsigned {s} = 0;"));
                line(&mut self.out, depth, &format!("while ({s} < {}u) {{", 2 + self.g.next(4)));
                line(&mut self.out, depth + 1, &format!("unsigned {f} = __shfl_sync(FULL, v, {});", self.g.next(32)));
                line(&mut self.out, depth + 1, &format!("if (({f} >> {}) & 1u) break;", self.g.next(8)));
                line(&mut self.out, depth + 1, &format!("v += {f} | 1u;"));
                self.statement(depth + 1, Scope::Warp);
                line(&mut self.out, depth + 1, &format!("{s}++;"));
                line(&mut self.out, depth, "}");
                line(&mut self.out, depth, &format!("u += {s};"));
            }
            // A branch uniform per warp, or per block.
            7 if nest && scope != Scope::Lanes => {
                let (cond, inner) = match self.g.next(3) {
                    0 => (format!("warp % 2u == {}u", self.g.next(2)), Scope::Warp),
                    1 => (format!("__any_sync(FULL, v < {}u)", self.g.next(1 << 16)), Scope::Warp),
                    _ => (format!("m > {}u", self.g.next(3)), scope),
                };
                line(&mut self.out, depth, &format!("if ({cond}) {{"));
                let n = 1 + self.g.next(3);
                self.block(depth + 1, inner, n);
                if self.g.next(2) == 0 {
                    line(&mut self.out, depth, "} else {");
                    let n = 1 + self.g.next(2);
                    self.block(depth + 1, inner, n);
                }
                line(&mut self.out, depth, "}");
            }
            // A branch that divides the warp: plain statements only.
            8 if nest => {
                line(&mut self.out, depth, &format!("if ((v ^ lane) & {}u) {{", 1 << self.g.next(4)));
                let n = 1 + self.g.next(2);
                self.block(depth + 1, Scope::Lanes, n);
                line(&mut self.out, depth, "}");
            }
            // Shared memory across block barriers.
            9 if scope == Scope::Block => {
                let c = 1 + self.g.next(255);
                line(&mut self.out, depth, "sh[threadIdx.x] = v;");
                line(&mut self.out, depth, "__syncthreads();");
                line(&mut self.out, depth, &format!("u += sh[(threadIdx.x + {c}u) % blockDim.x];"));
                line(&mut self.out, depth, "__syncthreads();");
            }
            10 if scope != Scope::Lanes => line(&mut self.out, depth, "__syncwarp();"),
            // A warp-aggregated atomic into the block's shared counters,
            // read after the barrier (simt-deaggregate-atomics' shapes).
            11 if scope == Scope::Block => self.aggregated_atomic(depth),
            _ => {
                let e = self.plain();
                let var = self.g.pick(&["v", "u"]);
                line(&mut self.out, depth, &format!("{var} = {e};"));
            }
        }
    }
}

fn kernel(seed: u64) -> Kernel {
    let mut g = Gen(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ 0x3a1f);
    let block = [32u32, 64, 96, 128][g.next(4) as usize];
    let blocks = 1 + g.next(3) as u32;
    let global = block * blocks;
    let n = global - g.next(40).min(global as u64 - 1) as u32;
    let m = g.next(4) as u32;
    let mut w = Writer { g: &mut g, out: String::new(), names: 0, helper_used: false };
    let count = 4 + w.g.next(6);
    w.block(0, Scope::Block, count);
    let body = std::mem::take(&mut w.out);
    let helper = if w.helper_used {
        "__device__ unsigned warp_sum(unsigned x) {\n  for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(FULL, x, o);\n  return x;\n}\n\n"
    } else {
        ""
    };
    let source = format!(
        "// generated by tests/warp_fuzz.rs, seed {seed}\n#define FULL 0xffffffffu\n\n{helper}\
         __global__ void k(const unsigned *in, unsigned *out, unsigned n, unsigned m) {{\n  \
         __shared__ unsigned sh[128], agg[16];\n  \
         unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n  \
         unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;\n  \
         unsigned v = i < n ? in[i] : lane, u = v ^ 0x55u;\n{body}  \
         out[i] = v * 31u + u;\n}}\n"
    );
    Kernel { source, block, blocks, n, m }
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

/// Runs `k` on `engine`; the output buffer's bytes.
fn run(dir: &std::path::Path, k: &Kernel, engine: &str, seed: u64) -> Result<Vec<u8>, String> {
    let src = dir.join(format!("k{seed}.cu"));
    std::fs::write(&src, &k.source).unwrap();
    let dump = dir.join(format!("{engine}{seed}"));
    std::fs::create_dir_all(&dump).unwrap();
    let global = k.block * k.blocks;
    let mut args: Vec<String> = vec![
        src.display().to_string(),
        "--kernel".into(),
        "k".into(),
        "--global".into(),
        global.to_string(),
        "--local".into(),
        k.block.to_string(),
        "--arg".into(),
        format!("buf:u32:{global}=rand:{seed}"),
        "--arg".into(),
        format!("buf:u32:{global}"),
        "--arg".into(),
        format!("u32:{}", k.n),
        "--arg".into(),
        format!("u32:{}", k.m),
    ];
    args.extend(engine_flags(engine, &dump));
    let o = simt_run_output(&args);
    if !o.status.success() {
        return Err(format!("{engine}: {}: {}{}", o.status, String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)));
    }
    Ok(std::fs::read(dump.join("arg1.bin")).unwrap())
}

#[test]
fn generated_warp_kernels_run_alike_on_host_and_emulator() {
    if let Ok(seed) = std::env::var("SIMT_WARP_FUZZ_PRINT") {
        let seed: u64 = seed.parse().expect("SIMT_WARP_FUZZ_PRINT=SEED");
        let k = kernel(seed);
        println!("{}", k.source);
        println!("launch: --global {} --local {} n={} m={}", k.block * k.blocks, k.block, k.n, k.m);
        return;
    }
    let first = env_u64("SIMT_WARP_FUZZ_FIRST", 1);
    let count = env_u64("SIMT_WARP_FUZZ_N", 12);
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for seed in first..first + count {
        let k = kernel(seed);
        let result = run(dir.path(), &k, "emu", seed).and_then(|want| {
            let got = run(dir.path(), &k, "host", seed)?;
            match want.iter().zip(&got).position(|(a, b)| a != b) {
                None if want.len() == got.len() => Ok(()),
                None => Err(format!("host wrote {} bytes, the emulator {}", got.len(), want.len())),
                Some(at) => Err(format!("host differs from the emulator at out[{}]", at / 4)),
            }
        });
        if let Err(why) = result {
            failures.push(format!("seed {seed}: {why}\n{}", k.source));
        }
    }
    assert!(failures.is_empty(), "{} of {count} generated warp kernels failed:\n{}", failures.len(), failures.join("\n"));
}

/// The generator makes what the test claims: over the default seeds, every
/// kind of warp function, each kind of loop and branch, block barriers and
/// the helper appear.
#[test]
fn the_generator_covers_its_shapes() {
    let all: String = (1..=12).map(|s| kernel(s).source).collect();
    for shape in [
        "__shfl_xor_sync",
        "__shfl_down_sync",
        "__shfl_up_sync",
        "__shfl_sync(FULL, v, u & 31u)",
        "__ballot_sync",
        "__any_sync",
        "__all_sync",
        "__match_any_sync",
        "__reduce_add_sync",
        "warp_sum(",
        "< warp % 3u + 1u",
        "< m;",
        "while (",
        "if (warp % 2u",
        "if ((v ^ lane)",
        "__syncthreads();",
        "__syncwarp();",
    ] {
        assert!(all.contains(shape), "no generated kernel of seeds 1..=12 has `{shape}`");
    }
}
