//! simt-sched: an llvm-mca-like tool for modulo scheduling and bundling
//! (seed 002). It reads a dependence graph as text (`.ddg`: ops with unit
//! kinds, arcs with omega and latency, optionally II and flat positions),
//! schedules it on a machine model (or takes the given schedule), bundles
//! each kernel row and prints the figures and the kernel cycle by cycle:
//!
//! ```text
//! $ simt-sched test-ir/sched/split-issue.ddg --machine itanium2 --bundler linear
//! ddg split-issue.ddg: res-mii=1 rec-mii=1 ii=1 stages=1 cycles=2 bundles=3 nops=3 split-issues=1 bundler=linear
//!   row 0 cycle 0: MII[adds shr.u add] MMF[lfetch xor nop.f]
//!   row 0 cycle 1: MFB[ld8 nop.f nop.b]
//! ```
//!
//! Every schedule and packing goes through the independent checker: a given
//! schedule that breaks an arc is a warning (the patent's controls are such
//! schedules on purpose); a packing the checker rejects is an error.

use clap::{Parser, ValueEnum};
use simt::diag::{self, report, ToolError};
use simt_passes::sched::automaton::Automaton;
use simt_passes::sched::bundle::Bundler;
use simt_passes::sched::check;
use simt_passes::sched::ddg::Ddg;
use simt_passes::sched::kernel::Kernel;
use simt_passes::sched::machine::Machine;

const TOOL: &str = "simt-sched";

#[derive(Parser, Debug)]
#[command(name = TOOL, version = simt::version(), about = "Modulo-schedule and bundle a dependence graph (.ddg) on a machine model")]
struct Args {
    /// Dependence graph (.ddg); `-` reads standard input.
    input: String,
    /// Machine model: a name in passes/machines (itanium2, hexagon) or a .toml path.
    #[arg(long, default_value = "itanium2")]
    machine: String,
    /// Bundler: the patent's cyclic micro-scheduler, ORC's linear baseline, or both.
    #[arg(long, value_enum, default_value = "cyclic")]
    bundler: Which,
    /// Also print the fewest cycles any legal bundling needs (brute force,
    /// rows of at most 10 ops).
    #[arg(long)]
    optimum: bool,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Which {
    Cyclic,
    Linear,
    Both,
}

fn main() {
    let args = match Args::try_parse() {
        Ok(a) => a,
        Err(e) => diag::exit_for_clap(TOOL, e),
    };
    let code = match run(&args) {
        Ok(()) => 0,
        Err(e) => report(TOOL, &e),
    };
    std::process::exit(code);
}

fn run(args: &Args) -> Result<(), ToolError> {
    let m = Machine::load(&args.machine).map_err(|e| ToolError::Usage(format!("error: --machine: {e}")))?;
    let (text, name) = if args.input == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .map_err(|e| ToolError::Io { path: "<stdin>".into(), message: e.to_string() })?;
        (s, "<stdin>".to_string())
    } else {
        let s = std::fs::read_to_string(&args.input).map_err(|e| ToolError::Io { path: args.input.clone(), message: e.to_string() })?;
        (s, args.input.clone())
    };
    let g = Ddg::parse(&text, &name, &m).map_err(|e| ToolError::Io { path: format!("{}:{}", e.file, e.line), message: e.message })?;
    let a = Automaton::new(&m);
    let bundlers: &[Bundler] = match args.bundler {
        Which::Cyclic => &[Bundler::Cyclic],
        Which::Linear => &[Bundler::Linear],
        Which::Both => &[Bundler::Cyclic, Bundler::Linear],
    };
    let short = std::path::Path::new(&name).file_name().map_or(name.clone(), |f| f.to_string_lossy().into_owned());
    let mut out = String::new();
    for (i, &b) in bundlers.iter().enumerate() {
        let k = Kernel::build(&m, &a, &g, b).map_err(|e| ToolError::Run(format!("{name}: {e}")))?;
        if i == 0 {
            for v in check::check_schedule(&m, &g, &k.schedule) {
                diag::eprint(&format!("{name}: warning: {v}\n"));
            }
        }
        let stage = k.stages();
        for (r, (row, p)) in k.schedule.rows().iter().zip(&k.rows).enumerate() {
            let bad = check::check_packing(&m, &g, &stage, row, p);
            if let Some(v) = bad.first() {
                return Err(ToolError::Run(format!("{name}: internal error: {} bundler, row {r}: {v}", b.name())));
            }
        }
        out += &format!("ddg {short}: {}\n", k.summary(&m));
        out += &k.listing(&m, &g, "  ");
        if args.optimum && i + 1 == bundlers.len() {
            let opt: Option<Vec<usize>> = k.schedule.rows().iter().map(|row| check::optimum_cycles(&m, &g, &stage, row, 10)).collect();
            match opt {
                Some(rows) => {
                    let split = rows.iter().filter(|&&c| c > 1).count();
                    out += &format!("ddg {short}: optimum cycles={} split-issues={split}\n", rows.iter().sum::<usize>());
                }
                None => out += &format!("ddg {short}: optimum unknown (a row has more than 10 ops)\n"),
            }
        }
    }
    diag::write_stdout(out.as_bytes())
}
