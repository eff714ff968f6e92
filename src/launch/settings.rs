//! Settings as given, before they make a launch: each key's value (or why
//! its text is not one), its text and where it came from — a launch file's
//! line ([`super::launch_file`]) or the command line ([`super::cli`], which
//! overrides the file). [`Settings::resolve`] checks what no single value
//! can (the grid's dimensions agree, `--trace` needs the emulator, required keys are
//! there) and builds the model's [`Launch`] and [`RunOptions`].
//!
//! A value that does not parse is kept as its error and reported only if it
//! is still in effect when the settings are resolved, so a command-line flag
//! overrides a launch file's bad line as it overrides a good one.

use super::model::*;
use super::values::{self, parse_bytes};
use crate::diag::ToolError;
use std::fmt;
use std::path::{Path, PathBuf};

/// Keys of the launch file; the long flag names.
pub const KEYS: &[&str] = &[
    "module",
    "kernel",
    "global",
    "local",
    "global-offset",
    "arg",
    "repeat",
    "refill",
    "engine",
    "interleave",
    "local-mem-limit",
    "shared-bytes",
    "dump",
    "compare",
    "tolerance",
    "timeout",
    "stats",
    "policy",
    "warp-width",
    "aot",
    "linear",
    "no-cache",
    "trace",
    "profile",
    "check-uniformity",
    "check",
];

/// Where a setting came from, for messages and relative paths.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    CommandLine,
    File { path: PathBuf, line: usize },
}

impl Origin {
    /// The folder relative paths are taken from: a launch file's.
    pub fn base_dir(&self) -> Option<PathBuf> {
        match self {
            Origin::CommandLine => None,
            Origin::File { path, .. } => Some(path.parent().map(Path::to_path_buf).unwrap_or_default()),
        }
    }
}

/// One setting: its value, or why its text is not one of its key's type.
#[derive(Clone, Debug, PartialEq)]
pub struct Given<T> {
    pub text: String,
    pub origin: Origin,
    pub value: Result<T, String>,
}

impl<T: Clone> Given<T> {
    /// A value clap has already parsed from the command line.
    pub fn command_line(text: impl Into<String>, value: T) -> Given<T> {
        Given { text: text.into(), origin: Origin::CommandLine, value: Ok(value) }
    }

    /// `--key 'value'` or `FILE:LINE: key 'value'`: the prefix of a message.
    fn describe(&self, key: &str) -> String {
        match &self.origin {
            Origin::CommandLine => format!("error: --{key} '{}'", self.text),
            Origin::File { path, line } => format!("{}:{line}: error: {key} '{}'", path.display(), self.text),
        }
    }

    fn usage(&self, key: &str, why: impl fmt::Display) -> ToolError {
        ToolError::Usage(format!("{}: {why}", self.describe(key)))
    }

    /// The value, or a usage error naming the key, the text and its origin.
    fn get(&self, key: &str) -> Result<T, ToolError> {
        self.value.clone().map_err(|e| self.usage(key, e))
    }
}

/// Every key's setting, if given.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    pub module: Option<Given<PathBuf>>,
    pub kernel: Option<Given<String>>,
    pub global: Option<Given<Vec<u64>>>,
    pub local: Option<Given<Vec<u64>>>,
    pub global_offset: Option<Given<Vec<u64>>>,
    /// In parameter order.
    pub args: Vec<Given<ArgSpec>>,
    pub engine: Option<Given<Engine>>,
    pub repeat: Option<Given<u32>>,
    pub refill: Option<Given<bool>>,
    pub interleave: Option<Given<u32>>,
    pub local_mem_limit: Option<Given<u64>>,
    pub shared_bytes: Option<Given<u64>>,
    pub dump: Option<Given<PathBuf>>,
    pub compare: Option<Given<PathBuf>>,
    pub tolerance: Option<Given<u64>>,
    pub timeout: Option<Given<f64>>,
    pub stats: Option<Given<StatsFormat>>,
    pub policy: Option<Given<Policy>>,
    pub warp_width: Option<Given<u32>>,
    pub aot: Option<Given<bool>>,
    pub linear: Option<Given<bool>>,
    pub no_cache: Option<Given<bool>>,
    pub trace: Option<Given<PathBuf>>,
    pub profile: Option<Given<PathBuf>>,
    pub check_uniformity: Option<Given<bool>>,
    pub check: Option<Given<crate::launch::Checks>>,
}

pub(super) fn canonical_key(key: &str) -> Option<&'static str> {
    let k = key.trim().replace('_', "-");
    KEYS.iter().copied().find(|&known| known == k)
}

/// Replaces `a` with `b` when `b` is given.
fn over<T>(a: &mut Option<T>, b: Option<T>) {
    if b.is_some() {
        *a = b;
    }
}

impl Settings {
    pub fn new() -> Settings {
        Settings::default()
    }

    /// Sets `key` from its text (`arg` appends); `key` may use `_` for `-`.
    /// The text is parsed with the key's grammar ([`values`]), relative
    /// paths taken from a launch file's folder; an unknown key is an error
    /// now, a value that does not parse one when resolved.
    pub fn set(&mut self, key: &str, text: &str, origin: Origin) -> Result<(), String> {
        let k = canonical_key(key).ok_or_else(|| format!("unknown key '{key}' (keys: {})", KEYS.join(", ")))?;
        let text = text.trim().to_string();
        let base = origin.base_dir();
        fn given<T>(text: &str, origin: Origin, value: Result<T, String>) -> Option<Given<T>> {
            Some(Given { text: text.to_string(), origin, value })
        }
        let path = |t: &str| Ok(values::path_in(t, base.as_deref()));
        match k {
            // `-` (standard input) is no path, in a launch file either.
            "module" => self.module = given(&text, origin, if text == "-" { Ok(PathBuf::from("-")) } else { path(&text) }),
            "kernel" => self.kernel = given(&text, origin, Ok(text.clone())),
            "global" => self.global = given(&text, origin, values::dims(&text)),
            "local" => self.local = given(&text, origin, values::dims(&text)),
            "global-offset" => self.global_offset = given(&text, origin, values::dims(&text)),
            "arg" => {
                let value = ArgSpec::parse(&text, base.as_deref());
                self.args.push(Given { text, origin, value });
            }
            "repeat" => self.repeat = given(&text, origin, values::positive(&text)),
            "refill" => self.refill = given(&text, origin, values::switch(&text)),
            "engine" => self.engine = given(&text, origin, values::engine(&text)),
            "interleave" => self.interleave = given(&text, origin, values::positive(&text)),
            "local-mem-limit" => self.local_mem_limit = given(&text, origin, parse_bytes(&text)),
            "shared-bytes" => self.shared_bytes = given(&text, origin, parse_bytes(&text)),
            "dump" => self.dump = given(&text, origin, path(&text)),
            "compare" => self.compare = given(&text, origin, path(&text)),
            "tolerance" => self.tolerance = given(&text, origin, values::ulps(&text)),
            "timeout" => self.timeout = given(&text, origin, values::seconds(&text)),
            "stats" => self.stats = given(&text, origin, values::stats_format(&text)),
            "policy" => self.policy = given(&text, origin, values::policy(&text)),
            "warp-width" => self.warp_width = given(&text, origin, values::warp_width(&text)),
            "aot" => self.aot = given(&text, origin, values::switch(&text)),
            "linear" => self.linear = given(&text, origin, values::switch(&text)),
            "no-cache" => self.no_cache = given(&text, origin, values::switch(&text)),
            "trace" => self.trace = given(&text, origin, path(&text)),
            "profile" => self.profile = given(&text, origin, path(&text)),
            "check-uniformity" => self.check_uniformity = given(&text, origin, values::switch(&text)),
            "check" => self.check = given(&text, origin, values::checks(&text)),
            _ => unreachable!("every key in KEYS has a grammar: {k}"),
        }
        Ok(())
    }

    /// Applies `over` on top of `self`: its keys replace ours, and its `arg`s,
    /// if it has any, replace all of ours.
    pub fn override_with(&mut self, o: Settings) {
        over(&mut self.module, o.module);
        over(&mut self.kernel, o.kernel);
        over(&mut self.global, o.global);
        over(&mut self.local, o.local);
        over(&mut self.global_offset, o.global_offset);
        if !o.args.is_empty() {
            self.args = o.args;
        }
        over(&mut self.engine, o.engine);
        over(&mut self.repeat, o.repeat);
        over(&mut self.refill, o.refill);
        over(&mut self.interleave, o.interleave);
        over(&mut self.local_mem_limit, o.local_mem_limit);
        over(&mut self.shared_bytes, o.shared_bytes);
        over(&mut self.dump, o.dump);
        over(&mut self.compare, o.compare);
        over(&mut self.tolerance, o.tolerance);
        over(&mut self.timeout, o.timeout);
        over(&mut self.stats, o.stats);
        over(&mut self.policy, o.policy);
        over(&mut self.warp_width, o.warp_width);
        over(&mut self.aot, o.aot);
        over(&mut self.linear, o.linear);
        over(&mut self.no_cache, o.no_cache);
        over(&mut self.trace, o.trace);
        over(&mut self.profile, o.profile);
        over(&mut self.check_uniformity, o.check_uniformity);
        over(&mut self.check, o.check);
    }

    /// Checks everything and builds the launch and the run options.
    pub fn resolve(&self) -> Result<(Launch, RunOptions), ToolError> {
        fn or<T: Clone>(s: &Option<Given<T>>, key: &str, default: T) -> Result<T, ToolError> {
            s.as_ref().map_or(Ok(default), |g| g.get(key))
        }
        let module = self
            .module
            .as_ref()
            .map(|g| g.get("module"))
            .transpose()?
            .ok_or_else(|| ToolError::Usage("error: no input module (give KERNEL.ll, or `module = …` in a --launch file)".into()))?;
        let kernel = self.kernel.as_ref().map(|g| g.get("kernel")).transpose()?;
        let required = |key: &str| ToolError::Usage(format!("error: --{key} is required (or `{key} = …` in a --launch file)"));
        let global = self.global.as_ref().map(|g| g.get("global")).transpose()?.ok_or_else(|| required("global"))?;
        // Without --local, the kernel's reqd_work_group_size or a chosen size.
        let local = self.local.as_ref().map(|g| g.get("local")).transpose()?;
        let offset = self.global_offset.as_ref().map(|g| g.get("global-offset")).transpose()?;
        // Name where the sizes came from when it was a launch file.
        let from = [&self.global, &self.local, &self.global_offset].into_iter().flatten().find_map(|g| match &g.origin {
            Origin::File { path, .. } => Some(path.clone()),
            Origin::CommandLine => None,
        });
        let grid = GridRequest { global, local, global_offset: offset, from };
        super::grid::check_request(&grid).map_err(|e| {
            ToolError::Usage(match &grid.from {
                Some(p) => format!("{}: error: {e}", p.display()),
                None => format!("error: {e}"),
            })
        })?;
        let args = self
            .args
            .iter()
            .enumerate()
            .map(|(i, g)| g.value.clone().map_err(|e| g.usage("arg", format!("argument {i}: {e}"))))
            .collect::<Result<Vec<_>, _>>()?;

        // A checker runs on the emulator: `--check` alone picks it.
        let engine = or(&self.engine, "engine", if self.check.is_some() { Engine::Emu } else { Engine::Host })?;
        let repeat = or(&self.repeat, "repeat", 1)?;
        let refill = or(&self.refill, "refill", false)?;
        let interleave = or(&self.interleave, "interleave", 1)?;
        let local_mem_limit = or(&self.local_mem_limit, "local-mem-limit", DEFAULT_LOCAL_MEM_LIMIT)?;
        let tolerance = or(&self.tolerance, "tolerance", 0)?;
        let stats = or(&self.stats, "stats", StatsFormat::Summary)?;
        let policy = or(&self.policy, "policy", Policy::Ipdom)?;
        let warp_width = or(&self.warp_width, "warp-width", DEFAULT_WARP_WIDTH)?;
        let aot = or(&self.aot, "aot", false)?;
        let linear = or(&self.linear, "linear", false)?;
        let no_cache = or(&self.no_cache, "no-cache", false)?;
        engine_only(
            &self.linear,
            linear,
            "linear",
            Engine::Host,
            engine,
            "the linear form is one of the host engine's work-item loop forms: it needs",
        )?;
        let check = or(&self.check, "check", Default::default())?;
        engine_only(&self.check, true, "check", Engine::Emu, engine, "the checks watch the emulator's work-items: they need")?;
        let check_uniformity = or(&self.check_uniformity, "check-uniformity", check.uniformity)?;
        engine_only(
            &self.check_uniformity,
            check_uniformity,
            "check-uniformity",
            Engine::Emu,
            engine,
            "the uniformity check compares the lanes of the emulator's warps: it needs",
        )?;
        let trace = self.trace.as_ref().map(|g| g.get("trace")).transpose()?;
        engine_only(&self.trace, true, "trace", Engine::Emu, engine, "a trace shows the lanes of the emulator's warps: it needs")?;
        let profile = self.profile.as_ref().map(|g| g.get("profile")).transpose()?;
        engine_only(&self.profile, true, "profile", Engine::Emu, engine, "a divergence profile counts the emulator's warps: it needs")?;
        Ok((
            Launch { module, kernel, grid, args, shared_bytes: self.shared_bytes.as_ref().map(|g| g.get("shared-bytes")).transpose()? },
            RunOptions {
                aot,
                linear,
                no_cache,
                engine,
                repeat,
                refill,
                interleave,
                local_mem_limit,
                dump: self.dump.as_ref().map(|g| g.get("dump")).transpose()?,
                compare: self.compare.as_ref().map(|g| g.get("compare")).transpose()?,
                tolerance,
                timeout: self.timeout.as_ref().map(|g| g.get("timeout")).transpose()?.map(std::time::Duration::from_secs_f64),
                stats,
                policy,
                warp_width,
                trace,
                profile,
                check_uniformity,
                check,
            },
        ))
    }
}

/// A usage error when setting `key` was given (and, for a switch, is on)
/// though only engine `needed` does what it asks: "{why} --engine NEEDED
/// (the engine is ENGINE)".
fn engine_only<T: Clone>(
    given: &Option<Given<T>>,
    on: bool,
    key: &str,
    needed: Engine,
    engine: Engine,
    why: &str,
) -> Result<(), ToolError> {
    match given {
        Some(g) if on && engine != needed => {
            Err(g.usage(key, format!("{why} --engine {} (the engine is {})", needed.name(), engine.name())))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cli(pairs: &[(&str, &str)]) -> Settings {
        let mut s = Settings::new();
        for (k, v) in pairs {
            s.set(k, v, Origin::CommandLine).unwrap();
        }
        s
    }

    #[test]
    fn resolve_defaults_and_values() {
        let (l, o) =
            cli(&[("module", "k.ll"), ("global", "1024"), ("local", "64"), ("arg", "buf:f32:1024"), ("arg", "i32:5")]).resolve().unwrap();
        assert_eq!(l.module, PathBuf::from("k.ll"));
        assert_eq!(l.kernel, None);
        assert_eq!(l.grid.global, vec![1024]);
        assert_eq!(l.grid.local, Some(vec![64]));
        assert_eq!(l.args.len(), 2);
        assert_eq!(
            o,
            RunOptions {
                engine: Engine::Host,
                repeat: 1,
                refill: false,
                interleave: 1,
                local_mem_limit: DEFAULT_LOCAL_MEM_LIMIT,
                dump: None,
                compare: None,
                tolerance: 0,
                timeout: None,
                stats: StatsFormat::Summary,
                policy: Policy::Ipdom,
                warp_width: DEFAULT_WARP_WIDTH,
                aot: false,
                linear: false,
                no_cache: false,
                trace: None,
                profile: None,
                check_uniformity: false,
                check: Default::default(),
            }
        );
        let (_, o) = cli(&[
            ("module", "k.ll"),
            ("global", "8"),
            ("local", "8"),
            ("repeat", "5"),
            ("interleave", "4"),
            ("local-mem-limit", "32K"),
            ("dump", "out"),
            ("compare", "ref"),
            ("tolerance", "2"),
            ("stats", "json"),
            ("engine", "emu"),
            ("policy", "markers"),
            ("warp-width", "16"),
            ("trace", "t.txt"),
            ("profile", "p.json"),
        ])
        .resolve()
        .unwrap();
        assert_eq!(o.trace, Some(PathBuf::from("t.txt")));
        assert_eq!(o.profile, Some(PathBuf::from("p.json")));
        assert_eq!(o.engine, Engine::Emu);
        assert_eq!(o.policy, Policy::Markers);
        assert_eq!(o.warp_width, 16);
        assert_eq!(o.repeat, 5);
        assert_eq!(o.interleave, 4);
        assert_eq!(o.local_mem_limit, 32768);
        assert_eq!(o.dump, Some(PathBuf::from("out")));
        assert_eq!(o.compare, Some(PathBuf::from("ref")));
        assert_eq!(o.tolerance, 2);
        assert_eq!(o.stats, StatsFormat::Json);
        let (_, o) =
            cli(&[("module", "k.ll"), ("global", "8"), ("local", "8"), ("linear", "true"), ("no-cache", "true")]).resolve().unwrap();
        assert!(o.linear && o.no_cache);
    }

    fn usage_of(r: Result<(Launch, RunOptions), ToolError>) -> String {
        match r {
            Err(ToolError::Usage(m)) => m,
            Err(other) => panic!("not a usage error: {other}"),
            Ok(_) => panic!("accepted"),
        }
    }

    #[test]
    fn resolve_errors_are_usage_errors() {
        let base = [("module", "k.ll"), ("global", "8"), ("local", "4")];
        let with = |extra: &[(&str, &str)]| {
            let mut v = base.to_vec();
            v.extend_from_slice(extra);
            cli(&v).resolve()
        };
        assert!(usage_of(cli(&[("global", "8"), ("local", "4")]).resolve()).contains("no input module"));
        assert!(usage_of(cli(&[("module", "k.ll"), ("local", "4")]).resolve()).contains("--global is required"));
        // Without --local the kernel decides (`grid::resolve`).
        let (l, _) = cli(&[("module", "k.ll"), ("global", "4")]).resolve().unwrap();
        assert_eq!(l.grid.local, None);
        // Divisibility is the kernel's to decide (uniform work-groups or not).
        assert!(with(&[("local", "3")]).is_ok());
        assert!(usage_of(with(&[("local", "0")])).contains("local size is 0 in dimension 0 (x)"));
        assert!(usage_of(with(&[("arg", "i32:1"), ("arg", "buf:q:1")])).contains("--arg 'buf:q:1': argument 1: unknown element type 'q'"));
        assert!(usage_of(with(&[("repeat", "0")])).contains("--repeat '0'"));
        assert!(usage_of(with(&[("interleave", "x")])).contains("--interleave 'x'"));
        assert!(usage_of(with(&[("linear", "true"), ("engine", "emu")])).contains("it needs --engine host"));
        assert!(usage_of(with(&[("engine", "fpga")])).contains("unknown engine (available: host, emu, gpu)"));
        assert!(usage_of(with(&[("policy", "simd")])).contains("--policy 'simd': unknown policy (available: ipdom, markers, none)"));
        assert!(usage_of(with(&[("warp-width", "65")])).contains("--warp-width '65': expected a whole number from 1 to 64"));
        assert!(usage_of(with(&[("warp-width", "0")])).contains("--warp-width '0'"));
        assert!(usage_of(with(&[("stats", "yaml")])).contains("expected 'json' or 'text'"));
        assert!(usage_of(with(&[("trace", "t.txt")]))
            .contains("--trace 't.txt': a trace shows the lanes of the emulator's warps: it needs --engine emu (the engine is host)"));
        assert!(usage_of(with(&[("trace", "t.txt"), ("engine", "gpu")])).contains("(the engine is gpu)"));
        assert!(usage_of(with(&[("profile", "p.json")]))
            .contains("--profile 'p.json': a divergence profile counts the emulator's warps: it needs --engine emu (the engine is host)"));
        assert!(usage_of(with(&[("tolerance", "-1")])).contains("--tolerance"));
        assert!(usage_of(with(&[("local-mem-limit", "lots")])).contains("--local-mem-limit"));
        assert!(usage_of(with(&[("global", "8,8")])).contains("--global has 2 dimensions but --local has 1"));
        assert!(Settings::new().set("colour", "red", Origin::CommandLine).unwrap_err().contains("unknown key 'colour'"));
    }

    #[test]
    fn launch_file_parsing() {
        let text = "\
# a launch file
module = vadd.ll
kernel=vadd   # trailing comment
global = 1024, 2
local = 64,2
global_offset = 0,0
arg = buf:f32:2048=rand:1
arg = buf:f32:2048=file:data/b.bin
arg = u32:2048

repeat = 3
dump = out
";
        let s = Settings::from_launch_text(text, Path::new("/runs/v.launch")).unwrap();
        assert_eq!(s.kernel.as_ref().unwrap().text, "vadd");
        assert_eq!(s.kernel.as_ref().unwrap().origin, Origin::File { path: "/runs/v.launch".into(), line: 3 });
        assert_eq!(s.args.len(), 3);
        let (l, o) = s.resolve().unwrap();
        assert_eq!(l.module, PathBuf::from("/runs/vadd.ll"));
        assert_eq!(l.kernel.as_deref(), Some("vadd"));
        assert_eq!(l.grid.global, vec![1024, 2]);
        assert_eq!(l.grid.local, Some(vec![64, 2]));
        assert_eq!(l.args[1], ArgSpec::Buffer { ty: ScalarType::F32, count: 2048, fill: Fill::File("/runs/data/b.bin".into()) });
        assert_eq!(o.repeat, 3);
        assert_eq!(o.dump, Some(PathBuf::from("/runs/out")));
    }

    #[test]
    fn launch_file_errors_name_the_line() {
        let p = Path::new("bad.launch");
        let msg = |text: &str| match Settings::from_launch_text(text, p) {
            Err(ToolError::Usage(m)) => m,
            other => panic!("{other:?}"),
        };
        assert_eq!(msg("kernel = k\nglobal 64\n"), "bad.launch:2: error: expected 'key = value', found 'global 64'");
        assert!(msg("colour = red").starts_with("bad.launch:1: error: unknown key 'colour'"));
        assert_eq!(msg("\n\nkernel =\n"), "bad.launch:3: error: missing value for 'kernel'");
        assert_eq!(msg("= 3"), "bad.launch:1: error: missing key before '=' in '= 3'");
        // Values are checked when resolved, still naming the line.
        let s = Settings::from_launch_text("module = k.ll\nglobal = 8\nlocal = 8\narg = buf:f32:x\n", p).unwrap();
        assert!(usage_of(s.resolve()).starts_with("bad.launch:4: error: arg 'buf:f32:x': argument 0: COUNT 'x'"));
        let s = Settings::from_launch_text("module = k.ll\nglobal = 8\nlocal = 0\n", p).unwrap();
        assert!(usage_of(s.resolve()).starts_with("bad.launch: error: local size is 0"));
        let s = Settings::from_launch_text("module = k.ll\nglobal = 8\nlocal = 3\n", p).unwrap();
        let e =
            crate::launch::grid::resolve(&s.resolve().unwrap().0.grid, &LaunchBounds { uniform_only: true, ..Default::default() }, "k", 1)
                .unwrap_err();
        assert!(e.to_string().starts_with("bad.launch: error: global size 8 is not a multiple"), "{e}");
        match Settings::from_launch_file(Path::new("/nonexistent/x.launch")) {
            Err(ToolError::Io { path, message }) => {
                assert_eq!(path, "/nonexistent/x.launch");
                assert!(message.contains("cannot read launch file"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn command_line_overrides_the_file() {
        let mut s = Settings::from_launch_text(
            "module = k.ll\nkernel = a\nglobal = 64\nlocal = 8\nrepeat = 2\narg = buf:f32:64\narg = i32:1\n",
            Path::new("d/k.launch"),
        )
        .unwrap();
        // No --arg on the command line: the file's args stay.
        let mut s2 = s.clone();
        s2.override_with(cli(&[("kernel", "b"), ("local", "16")]));
        let (l, o) = s2.resolve().unwrap();
        assert_eq!(l.kernel.as_deref(), Some("b"));
        assert_eq!(l.grid.local, Some(vec![16]));
        assert_eq!(l.grid.global, vec![64]);
        assert_eq!(o.repeat, 2);
        assert_eq!(l.args.len(), 2);
        assert_eq!(l.module, PathBuf::from("d/k.ll"));
        // Any --arg replaces all of the file's.
        s.override_with(cli(&[("arg", "u8:7"), ("module", "other.ll")]));
        let (l, _) = s.resolve().unwrap();
        assert_eq!(l.args, vec![ArgSpec::Scalar(Scalar::from_bits(ScalarType::U8, 7))]);
        assert_eq!(l.module, PathBuf::from("other.ll"));
    }

    #[test]
    fn a_flag_overrides_a_bad_line() {
        let p = Path::new("bad.launch");
        let mut s = Settings::from_launch_text("module = k.ll\nglobal = 8\nlocal = 8\nengine = fpga\narg = buf:f32:x\n", p).unwrap();
        assert!(usage_of(s.resolve()).starts_with("bad.launch:5: error: arg 'buf:f32:x': argument 0: COUNT 'x'"));
        s.override_with(cli(&[("arg", "i32:1")]));
        assert!(usage_of(s.resolve()).starts_with("bad.launch:4: error: engine 'fpga': unknown engine"));
        s.override_with(cli(&[("engine", "emu")]));
        let (l, o) = s.resolve().unwrap();
        assert_eq!((l.args.len(), o.engine), (1, Engine::Emu));
    }
}
