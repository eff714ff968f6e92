//! `simt-lockstep-loops` checked by execution on generated grid-stride loops.
//!
//! Each kernel is `for (T i = START; i < n; i += STEP) BODY; out[id] = …`
//! with START an affine mix of `get_global_id`, `get_local_id` and
//! `get_group_id` (coefficients 1–3, a second dimension, an offset from an
//! argument), STEP a constant, an argument or `get_global_size`, T `uint` or
//! `int`, and a body that hashes the indices it sees (and reads a buffer).
//! Arguments are drawn so that counters wrap (offsets and bounds near 2^32,
//! steps near 2^32), and only launches where every work-item's loop ends
//! within `MAX_TRIPS` (simulated here, with the original wrap-around
//! semantics) are run. The host engine runs the lockstep form (its front end
//! applies the pass); the emulator runs the original loop; every buffer must
//! agree bit for bit. `SIMT_LOCKSTEP_KERNELS=N` sets the number of kernels
//! (default 48).

use simt::engine::buffers::KernelArgs;
use simt::engine::emu::{self, EmuKernel, EmuOptions, UniformityCheck};
use simt::engine::host::runner::Runner;
use simt::engine::host::{self, HostOptions};
use simt::launch::{ArgSpec, Grid, Policy};
use simt::source::{self, Dialect, SourceOptions};
use simt_passes::analysis::cache::AnalysisCache;
use simt_passes::pass::PassContext;

const MAX_TRIPS: u64 = 300;
const IN_LEN: u64 = 257;

/// A small deterministic generator (xorshift*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}

/// One generated kernel and how to evaluate its start in Rust.
struct Kernel {
    name: String,
    source: String,
    signed: bool,
    /// start = gx * a_g + lx * a_l + group_x * a_grp + ly * a_y + off
    coef: (u64, u64, u64, u64),
    /// Step: `Some(c)` a constant, `None` the argument `st` (or the global size).
    step: Step,
    local: (u64, u64),
    groups: u64,
}

#[derive(Clone, Copy)]
enum Step {
    Const(u64),
    Arg,
    GlobalSize,
}

fn generate(k: usize, rng: &mut Rng) -> Kernel {
    let name = format!("ls{k}");
    let signed = rng.below(3) == 0;
    let t = if signed { "int" } else { "uint" };
    let coef = (rng.pick(&[0, 1, 1, 2, 3]), rng.pick(&[0, 0, 1, 2]), rng.pick(&[0, 0, 16, 40]), rng.pick(&[0, 0, 8, 32]));
    // At least one local-id term, or the loop is uniform (not taken).
    let coef = if coef.0 + coef.1 == 0 { (1, coef.1, coef.2, coef.3) } else { coef };
    let two_d = coef.3 != 0;
    let step = match rng.below(3) {
        0 => Step::Const(rng.pick(&[1, 7, 64, 1000])),
        1 => Step::Arg,
        _ => Step::GlobalSize,
    };
    let step_src = match step {
        Step::Const(c) => format!("{c}"),
        Step::Arg => "st".into(),
        Step::GlobalSize => format!("({t})get_global_size(0)"),
    };
    let start = format!(
        "({t})(get_global_id(0) * {}u + get_local_id(0) * {}u + get_group_id(0) * {}u + get_local_id(1) * {}u) + off",
        coef.0, coef.1, coef.2, coef.3
    );
    let body = match rng.below(3) {
        0 => "acc = acc * 31u + (uint)i;".to_string(),
        1 => format!("acc ^= in[(uint)i % {IN_LEN}u] + (uint)i * 2654435761u;"),
        _ => "if ((uint)i % 3u == 0u) acc += (uint)i; else acc ^= 5u;".to_string(),
    };
    let keep_i = rng.below(2) == 0;
    let (decl, init, after) =
        if keep_i { (format!("{t} i;"), "i = ".to_string(), " + (uint)i") } else { (String::new(), format!("{t} i = "), "") };
    let source = format!(
        "__kernel void {name}(__global const uint *in, __global uint *out, {t} n, {t} st, {t} off) {{\n\
           uint acc = 0, cnt = 0;\n  {decl}\n\
           for ({init}{start}; i < n; i += {step_src}) {{ {body} cnt++; }}\n\
           out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = acc * 7u + cnt{after};\n}}\n"
    );
    let local = if two_d { (rng.pick(&[4, 8]), 2) } else { (rng.pick(&[8, 16]), 1) };
    Kernel { name, source, signed, coef, step, local, groups: rng.pick(&[2, 3]) }
}

/// Trip count of every work-item under the original semantics (32-bit
/// wrap-around), or `None` if one exceeds `MAX_TRIPS`.
fn trips(k: &Kernel, n: u32, st: u32, off: u32) -> Option<Vec<u64>> {
    let gx_size = k.local.0 * k.groups;
    let step = match k.step {
        Step::Const(c) => c as u32,
        Step::Arg => st,
        Step::GlobalSize => gx_size as u32,
    };
    let less = |i: u32| if k.signed { (i as i32) < (n as i32) } else { i < n };
    let mut out = Vec::new();
    for ly in 0..k.local.1 {
        for g in 0..k.groups {
            for lx in 0..k.local.0 {
                let gx = g * k.local.0 + lx;
                let s = gx * k.coef.0 + lx * k.coef.1 + g * k.coef.2 + ly * k.coef.3;
                // Signed overflow is undefined in OpenCL C: such launches
                // are not drawn.
                let mut i = if k.signed { (s as u32 as i32).checked_add(off as i32)? as u32 } else { (s as u32).wrapping_add(off) };
                let mut c = 0;
                while less(i) {
                    c += 1;
                    if c > MAX_TRIPS {
                        return None;
                    }
                    i = if k.signed { (i as i32).checked_add(step as i32)? as u32 } else { i.wrapping_add(step) };
                }
                out.push(c);
            }
        }
    }
    Some(out)
}

fn kernel_args(args: &[String]) -> KernelArgs {
    let specs: Vec<ArgSpec> = args.iter().map(|a| ArgSpec::parse(a, None).expect("valid arg")).collect();
    KernelArgs::new(&specs).expect("arguments")
}

fn buffers(args: &KernelArgs) -> Vec<Vec<u8>> {
    args.buffers().map(|(_, b)| b.bytes().to_vec()).collect()
}

/// Argument values that exercise wrapping: small, near 2^31 and near 2^32.
fn value(rng: &mut Rng) -> u32 {
    match rng.below(4) {
        0 => rng.below(600) as u32,
        1 => (1u32 << 31).wrapping_sub(rng.below(300) as u32),
        2 => u32::MAX - rng.below(300) as u32,
        _ => rng.next() as u32,
    }
}

#[test]
fn generated_grid_stride_loops_agree_in_lockstep() {
    let count: usize = std::env::var("SIMT_LOCKSTEP_KERNELS").ok().and_then(|v| v.parse().ok()).unwrap_or(48);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let kernels: Vec<Kernel> = (0..count).map(|k| generate(k, &mut rng)).collect();
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("lockstep_gen.cl");
    let all: String = kernels.iter().map(|k| k.source.as_str()).collect();
    std::fs::write(&path, &all).expect("write the kernels");
    let input = source::compile(Dialect::OpenCl, &path, &SourceOptions::default()).expect("clang compiles the generated kernels");
    let text = String::from_utf8(input.bytes.clone()).expect("IR text");

    let (mut transformed, mut launches, mut wrapping) = (0, 0, 0);
    let mut failures = Vec::new();
    for k in &kernels {
        // Did the pass take this loop? (It must take most: all are of its form.)
        let ctx = inkwell::context::Context::create();
        let mut module = simt_passes::ir::parse_ir(&ctx, "k", text.as_bytes()).expect("parses");
        let lockstep = format!("simt-lockstep-loops<local-size={},{},1>", k.local.0, k.local.1);
        let mut cache = AnalysisCache::new();
        simt_passes::ir::run_passes(&module, "always-inline").expect("always-inline");
        for p in ["simt-lower-ocl-builtins", &lockstep] {
            let pass = simt_passes::registry::build(p).expect("our pass");
            let _preserved = pass.run(&mut PassContext::new(&mut module, &mut cache, &mut Vec::new())).expect("runs");
        }
        simt_passes::ir::verify(&module).expect("the lockstep form verifies");
        let f = module.get_function(&k.name).expect("the kernel");
        let printed = simt_passes::ir::Value::from(f).print();
        transformed += usize::from(printed.contains("%lockstep.m"));

        for _ in 0..3 {
            let (n, st, off) = (value(&mut rng), value(&mut rng), value(&mut rng));
            let Some(t) = trips(k, n, st, off) else { continue };
            launches += 1;
            // A wrapped counter that stayed in the loop.
            let step = match k.step {
                Step::Const(c) => c as u32,
                Step::Arg => st,
                Step::GlobalSize => (k.local.0 * k.groups) as u32,
            };
            wrapping += usize::from(t.iter().any(|&c| c > 0) && u64::from(n) + u64::from(step) > 1 << 32);
            let global = (k.local.0 * k.groups, k.local.1);
            let items = global.0 * global.1;
            let args = vec![
                format!("buf:u32:{IN_LEN}=rand:{}", k.name.len()),
                format!("buf:u32:{items}"),
                format!("u32:{n}"),
                format!("u32:{st}"),
                format!("u32:{off}"),
            ];
            let grid = Grid::new(&[global.0, global.1], &[k.local.0, k.local.1], None).expect("grid");
            // The emulator: the original loop.
            let ctx = inkwell::context::Context::create();
            let mut m = simt_passes::ir::parse_ir(&ctx, "k", text.as_bytes()).expect("parses");
            let opts = EmuOptions { policy: Policy::Ipdom, warp_width: 32, check_uniformity: UniformityCheck::Off };
            let program = emu::compile_module(&mut m, &k.name, &opts).expect("emulator compiles");
            let mut a = kernel_args(&args);
            emu::run(&EmuKernel { program, compile_seconds: 0.0 }, grid, &mut a, None).expect("emulator runs");
            let want = buffers(&a);
            // The host: lockstep.
            let hk = host::compile(&input, &k.name, &HostOptions { local_size: Some([k.local.0, k.local.1, 1]), ..HostOptions::default() })
                .expect("host compiles");
            let mut b = kernel_args(&args);
            Runner::new(hk.wg_kernel(&k.name), grid, &mut b, 1 << 18).expect("runner").run(None).expect("host runs");
            if buffers(&b) != want {
                failures.push(format!("{} with n={n} st={st} off={off}:\n{}", k.name, k.source));
            }
        }
    }
    eprintln!("lockstep_exec: {count} kernels, {transformed} in lockstep form, {launches} launches ({wrapping} with wrapping counters)");
    assert!(failures.is_empty(), "{} launches differ:\n{}", failures.len(), failures.join("\n"));
    assert!(transformed * 10 >= count * 8, "only {transformed} of {count} grid-stride loops were taken");
    assert!(launches >= count, "too few launches ran ({launches}): the argument draw ends too few loops");
}
