//! simt-opt: an `opt`-compatible driver where simt's passes and LLVM's mix in
//! one pipeline, and an `llc`-like lowering to x86-64 and NVPTX.

use clap::{Parser, ValueEnum};
use inkwell::context::Context;
use inkwell::targets::FileType;
use simt::diag::{self, report, ToolError};
use simt::input::ModuleInput;
use simt::lower::{self, TargetSpec};
use simt::pipeline::{self, RunOptions};
use simt::{argv, llvm_init, output};
use simt_passes::remarks::{PassPattern, RemarkSink, RemarkStreamer};
use std::cell::RefCell;
use std::io::IsTerminal;

const TOOL: &str = "simt-opt";

#[derive(Parser, Debug)]
#[command(name = TOOL, version = simt::version(), about = "Optimise SIMT kernels: simt passes and LLVM's in one pipeline, lowering to x86-64 and NVPTX")]
struct Args {
    /// Input file (.ll or .bc, or a kernel source .cl/.cu compiled with
    /// clang-22); `-` reads standard input.
    #[arg(default_value = "-")]
    input: String,
    /// Kernel sources: define a macro for clang (-D NAME or -D NAME=VALUE).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    defines: Vec<String>,
    /// Kernel sources: add an include folder for clang.
    #[arg(short = 'I', value_name = "DIR")]
    include_dirs: Vec<std::path::PathBuf>,
    /// OpenCL C sources: the language version (default CL2.0).
    #[arg(long = "cl-std", value_name = "CL1.2|CL2.0|CL3.0")]
    cl_std: Option<String>,
    /// Kernel sources: keep the module clang made as DIR/NAME.ll.
    #[arg(long = "keep-ir", value_name = "DIR")]
    keep_ir: Option<std::path::PathBuf>,
    /// Output file; `-` is standard output.
    #[arg(short = 'o', default_value = "-")]
    output: String,
    /// Write textual IR instead of bitcode.
    #[arg(short = 'S')]
    text: bool,
    /// Run the pipeline but write nothing.
    #[arg(long = "disable-output")]
    disable_output: bool,
    /// Pipeline, e.g. `print<simt-uniformity>,instcombine,default<O2>`
    /// (-p PIPELINE, as opt).
    #[arg(long, short = 'p')]
    passes: Option<String>,
    /// -O0..-O3, -Os, -Oz: shorthand for `-passes='default<ON>'` (and the
    /// codegen level; -Os and -Oz generate code as -O2 does, as llc).
    #[arg(long = "opt-level", value_parser = ["0", "1", "2", "3", "s", "z"])]
    opt_level: Option<String>,
    /// Verify the module after every pass (ours are always verified).
    #[arg(long = "verify-each")]
    verify_each: bool,
    /// Recompute every cached analysis after each of simt's passes and
    /// compare with the cached one (also SIMT_VERIFY_ANALYSES=1).
    #[arg(long = "verify-analyses")]
    verify_analyses: bool,
    /// Print the module after every pass.
    #[arg(long = "print-after-all")]
    print_after_all: bool,
    /// Print the module after the named pass (repeatable).
    #[arg(long = "print-after")]
    print_after: Vec<String>,
    /// Report the time each pass takes.
    #[arg(long = "time-passes")]
    time_passes: bool,
    /// Name each pass as it starts (LLVM's also name the analyses they run).
    #[arg(long = "debug-pass-manager")]
    debug_pass_manager: bool,
    /// Print the optimisation remarks of passes (simt's and LLVM's) whose
    /// name matches the regex, as opt does (e.g. `simt-swp`).
    #[arg(long = "pass-remarks", value_name = "REGEX")]
    pass_remarks: Option<String>,
    /// Remarks on missed optimisations of matching passes.
    #[arg(long = "pass-remarks-missed", value_name = "REGEX")]
    pass_remarks_missed: Option<String>,
    /// Analysis remarks of matching passes.
    #[arg(long = "pass-remarks-analysis", value_name = "REGEX")]
    pass_remarks_analysis: Option<String>,
    /// Write every remark of simt's passes to FILE as YAML, in LLVM's
    /// format (LLVM's passes' remarks do not go there).
    #[arg(long = "pass-remarks-output", value_name = "FILE")]
    pass_remarks_output: Option<String>,
    /// Only the remarks of passes matching the regex go to
    /// -pass-remarks-output.
    #[arg(long = "pass-remarks-filter", value_name = "REGEX")]
    pass_remarks_filter: Option<String>,
    /// List simt's passes and their options.
    #[arg(long = "print-passes")]
    print_passes: bool,
    /// Target triple (overrides the module's).
    #[arg(long)]
    mtriple: Option<String>,
    /// Architecture to generate code for, as llc's and opt's -march: x86-64
    /// or nvptx64 (replaces the triple's architecture).
    #[arg(long)]
    march: Option<String>,
    /// LLVM's statistics, as opt's -stats (printed only by LLVM builds with
    /// statistics enabled: Debian's LLVM 22 prints none, nor does opt-22).
    #[arg(long)]
    stats: bool,
    /// Target CPU, e.g. sm_90 or skylake.
    #[arg(long, default_value = "")]
    mcpu: String,
    /// Target features, e.g. +avx2 or +ptx78.
    #[arg(long, default_value = "")]
    mattr: String,
    /// Lower to machine code instead of writing IR.
    #[arg(long, value_enum)]
    filetype: Option<OutputKind>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum OutputKind {
    Asm,
    Obj,
}

const LONG_NAMES: &[&str] = &[
    "passes",
    "disable-output",
    "verify-each",
    "verify-analyses",
    "print-after-all",
    "print-after",
    "time-passes",
    "debug-pass-manager",
    "print-passes",
    "pass-remarks",
    "pass-remarks-missed",
    "pass-remarks-analysis",
    "pass-remarks-output",
    "pass-remarks-filter",
    "mtriple",
    "march",
    "stats",
    "mcpu",
    "mattr",
    "filetype",
    "opt-level",
    "cl-std",
    "keep-ir",
    "help",
    "version",
];

fn main() {
    let args = argv::normalize(std::env::args().skip(1), LONG_NAMES);
    let args = match Args::try_parse_from(std::iter::once(TOOL.to_string()).chain(args)) {
        Ok(a) => a,
        Err(e) => diag::exit_for_clap(TOOL, e),
    };
    llvm_init::init();
    let code = match run(&args) {
        Ok(()) => 0,
        Err(e) => report(TOOL, &e),
    };
    std::process::exit(code);
}

fn run(args: &Args) -> Result<(), ToolError> {
    if args.print_passes {
        return diag::write_stdout(print_passes().as_bytes());
    }
    let pipeline_text = match (&args.passes, args.opt_level.as_deref()) {
        (Some(_), Some(_)) if args.filetype.is_none() => {
            return Err(ToolError::Usage("cannot specify -O# and -passes= together; use -passes='default<O#>'".into()))
        }
        (Some(p), _) => Some(p.clone()),
        (None, Some(l)) if args.filetype.is_none() => Some(format!("default<O{l}>")),
        (None, _) => None,
    };
    if !args.text && args.filetype.is_none() && !args.disable_output && args.output == "-" && std::io::stdout().is_terminal() {
        return Err(ToolError::Usage("refusing to write bitcode to a terminal; use -S for text, -o FILE, or --disable-output".into()));
    }

    let source = simt::source::SourceOptions {
        defines: args.defines.clone(),
        include_dirs: args.include_dirs.clone(),
        cl_std: args.cl_std.clone(),
        keep_ir: args.keep_ir.clone(),
        debug_info: false,
    };
    let input = ModuleInput::read_with(std::path::Path::new(&args.input), &source)?;
    let ctx = Context::create();
    let mut module = input.parse_verified(&ctx)?;

    let triple = match &args.march {
        Some(arch) => Some(with_arch(arch, args.mtriple.as_deref().unwrap_or(module.get_triple().as_str().to_str().unwrap_or("")))?),
        None => args.mtriple.clone(),
    };
    let spec = TargetSpec {
        triple,
        cpu: args.mcpu.clone(),
        features: args.mattr.clone(),
        opt_level: args.opt_level.as_deref().and_then(|l| l.parse().ok()).unwrap_or(2),
    };
    let triple = lower::effective_triple(&spec, &module);
    simt::target_cpu::check(&triple, &spec)?;
    let tm = lower::target_machine(&triple, &spec)?;
    if spec.triple.is_some() {
        // The module moves to the requested target before any pass, so LLVM's
        // passes see this target's attributes, not the old one's (a CUDA
        // module's "target-cpu"="sm_70" on x86).
        match &tm {
            Some(tm) => lower::retarget_for(&module, tm, false),
            None => module.set_triple(&inkwell::targets::TargetTriple::create(&triple)),
        }
    }

    if let Some(text) = &pipeline_text {
        let steps = pipeline::parse(text, tm.as_ref())?;
        let mut llvm_opts = Vec::new();
        if args.print_after_all {
            llvm_opts.push("-print-after-all".to_string());
        }
        for p in args.print_after.iter().filter(|p| !simt_passes::registry::is_ours(p)) {
            llvm_opts.push(format!("-print-after={p}"));
        }
        if args.time_passes {
            llvm_opts.push("-time-passes".to_string());
        }
        if args.stats {
            llvm_opts.push("-stats".to_string());
        }
        for (flag, value) in [
            ("pass-remarks", &args.pass_remarks),
            ("pass-remarks-missed", &args.pass_remarks_missed),
            ("pass-remarks-analysis", &args.pass_remarks_analysis),
        ] {
            if let Some(v) = value {
                llvm_opts.push(format!("-{flag}={v}"));
            }
        }
        llvm_init::set_llvm_options(TOOL, &llvm_opts);
        let opts = RunOptions {
            verify_each: args.verify_each,
            verify_analyses: args.verify_analyses || pipeline::verify_analyses_from_env(),
            print_after_all: args.print_after_all,
            print_after: args.print_after.clone(),
            debug_pass_manager: args.debug_pass_manager,
            remarks: remark_streamer(args)?.map(|s| RefCell::new(Box::new(s) as Box<dyn RemarkSink>)),
        };
        let mut stderr = std::io::stderr();
        let timings = pipeline::run(&mut module, &steps, tm.as_ref(), &opts, &mut stderr)?;
        if let Some(sink) = &opts.remarks {
            let path = args.pass_remarks_output.clone().unwrap_or_else(|| "<stderr>".into());
            sink.borrow_mut().finish().map_err(|e| ToolError::Io { path, message: format!("writing remarks: {e}") })?;
        }
        if args.time_passes {
            diag::eprint(&pipeline::timing_report(TOOL, &timings));
        }
    }

    if args.disable_output {
        return Ok(());
    }
    // A pass may have moved the module to another target (simt-to-nvptx).
    let triple = lower::effective_triple(&spec, &module);
    let bytes = match args.filetype {
        Some(kind) => {
            simt::target_cpu::check(&triple, &spec)?;
            let ft = match kind {
                OutputKind::Asm => FileType::Assembly,
                OutputKind::Obj => FileType::Object,
            };
            lower::emit(&module, &triple, &spec, ft)?
        }
        None if args.text => module.print_to_string().to_bytes().to_vec(),
        None => module.write_bitcode_to_memory().as_slice().to_vec(),
    };
    output::write_output(&args.output, &bytes)
}

/// The remark flags as a sink for simt's passes; `None` when no flag asks
/// for remarks, so the passes build none.
fn remark_streamer(args: &Args) -> Result<Option<RemarkStreamer>, ToolError> {
    let pattern = |flag: &str, value: &Option<String>| {
        value.as_deref().map(PassPattern::new).transpose().map_err(|e| ToolError::Usage(format!("error: -{flag}: {e}")))
    };
    let mut streamer = RemarkStreamer {
        passed: pattern("pass-remarks", &args.pass_remarks)?,
        missed: pattern("pass-remarks-missed", &args.pass_remarks_missed)?,
        analysis: pattern("pass-remarks-analysis", &args.pass_remarks_analysis)?,
        filter: pattern("pass-remarks-filter", &args.pass_remarks_filter)?,
        ..RemarkStreamer::default()
    };
    if let Some(path) = &args.pass_remarks_output {
        let file = std::fs::File::create(path).map_err(|e| ToolError::Io { path: path.clone(), message: e.to_string() })?;
        streamer.yaml = Some(Box::new(std::io::BufWriter::new(file)));
    }
    Ok(streamer.is_on().then_some(streamer))
}

/// `triple` with its architecture replaced by `-march`'s (LLVM's target
/// names: `x86-64` is the `x86_64` architecture); an NVPTX triple gets
/// CUDA's vendor and OS, as clang's.
fn with_arch(march: &str, triple: &str) -> Result<String, ToolError> {
    let arch = match march {
        "x86-64" | "x86_64" => "x86_64",
        "nvptx64" | "nvptx" => march,
        _ => return Err(ToolError::Usage(format!("error: -march={march}: simt-opt generates code for x86-64 and nvptx64 (and nvptx)"))),
    };
    let mut parts: Vec<&str> = triple.split('-').collect();
    if arch.starts_with("nvptx") {
        return Ok(format!("{arch}-nvidia-cuda"));
    }
    // A triple without vendor and OS, or CUDA's, becomes Linux's.
    if parts.len() < 2 || parts[1..].iter().any(|p| p.is_empty()) || parts[1..] == ["nvidia", "cuda"] {
        parts = vec!["", "unknown", "linux", "gnu"];
    }
    parts[0] = arch;
    Ok(parts.join("-"))
}

/// The text of `-print-passes`.
fn print_passes() -> String {
    let mut text = "simt passes (mix freely with LLVM's in -passes=; LLVM's are listed by `opt -print-passes`):\n".to_string();
    for p in simt_passes::registry::passes().filter(|p| !p.hidden) {
        let seed = p.seed.map(|s| format!("[seed {s}] ")).unwrap_or_default();
        text += &format!("  {:<28} {seed}{}\n", p.name, p.summary);
        for (opt, meaning) in p.options {
            text += &format!("  {:<28}   <{opt}>: {meaning}\n", "");
        }
    }
    text
}
