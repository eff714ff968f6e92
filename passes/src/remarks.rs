//! Optimisation remarks: what a pass did, and why it left the rest, in
//! LLVM's forms.
//!
//! A pass says it through its context:
//!
//! ```text
//! cx.remark(RemarkKind::Missed, "NotPipelined", f, || vec![
//!     Arg::text("loop "), Arg::new("Loop", header), Arg::text(" not pipelined: "), Arg::new("Reason", why)]);
//! ```
//!
//! The closure runs only when someone listens for that kind from that pass,
//! so a remark costs one check when remarks are off. The pass name is the
//! pipeline name without options (`simt-swp`), which LLVM's
//! `-pass-remarks=REGEX` matches as it matches a `DEBUG_TYPE`.
//!
//! Where remarks go is a [`RemarkSink`], chosen by the tool: in `simt-opt` a
//! [`RemarkStreamer`] that prints the matching ones as `opt` does
//! (`remark: <unknown>:0:0: MESSAGE`, the location LLVM prints for a remark
//! without debug information) and writes every remark, or those
//! `-pass-remarks-filter` keeps, to a YAML file in the layout of LLVM's
//! `-pass-remarks-output` (`--- !Passed` documents with `Pass`, `Name`,
//! `Function`, `Args`), which `llvm-remarkutil` reads. In the pass plugin the
//! sink hands each remark to LLVM's own diagnostics, so `opt`'s flags and
//! streamer apply unchanged.
//!
//! Limits: no `DebugLoc` (simt's passes name blocks and functions, not source
//! lines) and no hotness.

use std::io::Write;

/// LLVM's three remark kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RemarkKind {
    /// An optimisation was done (`-pass-remarks`).
    Passed,
    /// An optimisation was not done, and why (`-pass-remarks-missed`).
    Missed,
    /// A fact found on the way (`-pass-remarks-analysis`).
    Analysis,
}

impl RemarkKind {
    /// The YAML document tag LLVM writes.
    pub fn yaml_tag(self) -> &'static str {
        match self {
            RemarkKind::Passed => "!Passed",
            RemarkKind::Missed => "!Missed",
            RemarkKind::Analysis => "!Analysis",
        }
    }
}

/// One argument: a key and its value. The message is the values in order;
/// LLVM's `String` key marks plain text between the named values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arg {
    pub key: String,
    pub value: String,
}

impl Arg {
    pub fn new(key: &str, value: impl ToString) -> Arg {
        Arg { key: key.to_string(), value: value.to_string() }
    }

    /// Plain text of the message.
    pub fn text(value: impl ToString) -> Arg {
        Arg::new("String", value)
    }
}

/// A remark as a pass made it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Remark {
    pub kind: RemarkKind,
    /// The pass's pipeline name without options (`simt-swp`).
    pub pass: String,
    /// A CamelCase identifier of what happened (`Pipelined`).
    pub name: String,
    pub function: String,
    pub args: Vec<Arg>,
}

impl Remark {
    /// The message LLVM prints: the arguments' values in order.
    pub fn message(&self) -> String {
        self.args.iter().map(|a| a.value.as_str()).collect()
    }
}

/// Where remarks go.
pub trait RemarkSink {
    /// Whether a remark of `kind` from `pass` would go anywhere.
    fn wants(&self, kind: RemarkKind, pass: &str) -> bool;
    fn emit(&mut self, remark: &Remark);
    /// Called once after the run: flushes, and reports a failed write.
    fn finish(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A pass-name pattern, as LLVM's `-pass-remarks=REGEX`: it matches when it
/// is found anywhere in the name (LLVM's `Regex::match` searches).
#[derive(Clone, Debug)]
pub struct PassPattern(regex_lite::Regex);

impl PassPattern {
    pub fn new(pattern: &str) -> Result<PassPattern, String> {
        regex_lite::Regex::new(pattern).map(PassPattern).map_err(|e| format!("invalid regex '{pattern}': {e}"))
    }

    pub fn matches(&self, pass: &str) -> bool {
        self.0.is_match(pass)
    }
}

/// `opt`'s remark flags: which remarks to print, and the YAML file.
#[derive(Default)]
pub struct RemarkStreamer {
    pub passed: Option<PassPattern>,
    pub missed: Option<PassPattern>,
    pub analysis: Option<PassPattern>,
    /// The `-pass-remarks-output` stream: every remark unless `filter` is set.
    pub yaml: Option<Box<dyn Write>>,
    /// `-pass-remarks-filter`: the passes whose remarks go to `yaml`.
    pub filter: Option<PassPattern>,
    /// Where the printed remarks go (stderr in `simt-opt`); `None` is stderr.
    pub text: Option<Box<dyn Write>>,
    /// The first write error, for the tool to report after the run.
    pub error: Option<std::io::Error>,
}

impl RemarkStreamer {
    fn printed(&self, kind: RemarkKind, pass: &str) -> bool {
        let pattern = match kind {
            RemarkKind::Passed => &self.passed,
            RemarkKind::Missed => &self.missed,
            RemarkKind::Analysis => &self.analysis,
        };
        pattern.as_ref().is_some_and(|p| p.matches(pass))
    }

    fn streamed(&self, pass: &str) -> bool {
        self.yaml.is_some() && self.filter.as_ref().is_none_or(|p| p.matches(pass))
    }

    /// Whether any remark can go anywhere (the pipeline installs no sink
    /// otherwise).
    pub fn is_on(&self) -> bool {
        self.passed.is_some() || self.missed.is_some() || self.analysis.is_some() || self.yaml.is_some()
    }
}

impl RemarkSink for RemarkStreamer {
    fn wants(&self, kind: RemarkKind, pass: &str) -> bool {
        self.printed(kind, pass) || self.streamed(pass)
    }

    fn emit(&mut self, remark: &Remark) {
        let mut result = Ok(());
        if self.printed(remark.kind, &remark.pass) {
            let line = format!("remark: <unknown>:0:0: {}\n", remark.message());
            result = match &mut self.text {
                Some(w) => w.write_all(line.as_bytes()),
                None => std::io::stderr().write_all(line.as_bytes()),
            };
        }
        if self.streamed(&remark.pass) {
            if let Some(w) = &mut self.yaml {
                result = result.and(w.write_all(to_yaml(remark).as_bytes()));
            }
        }
        if let Err(e) = result {
            self.error.get_or_insert(e);
        }
    }

    fn finish(&mut self) -> std::io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        match &mut self.yaml {
            Some(w) => w.flush(),
            None => Ok(()),
        }
    }
}

/// One YAML document in the layout of LLVM's remark serializer.
pub fn to_yaml(r: &Remark) -> String {
    // LLVM's YAML writer pads a mapping key to 16 columns after its colon.
    let field = |key: &str, value: &str| format!("{:<17}{}\n", format!("{key}:"), yaml_scalar(value));
    let mut s = format!("--- {}\n", r.kind.yaml_tag());
    s += &field("Pass", &r.pass);
    s += &field("Name", &r.name);
    s += &field("Function", &r.function);
    if !r.args.is_empty() {
        s += "Args:\n";
        for a in &r.args {
            s += "  - ";
            s += &field(&a.key, &a.value);
        }
    }
    s + "...\n"
}

/// A scalar quoted as LLVM's YAML writer quotes it (`yaml::needsQuotes`,
/// strings kept strings): plain when safe, single quotes (a quote doubled)
/// around a number, a bool, `null`, edge spaces, a leading indicator or an
/// unsafe character, double quotes around control characters and UTF-8.
fn yaml_scalar(value: &str) -> String {
    #[derive(PartialEq, PartialOrd)]
    enum Quote {
        None,
        Single,
        Double,
    }
    impl Quote {
        fn max_with(self, other: Quote) -> Quote {
            if other > self {
                other
            } else {
                self
            }
        }
    }
    let bytes = value.as_bytes();
    let mut need = Quote::None;
    if value.is_empty()
        || bytes[0].is_ascii_whitespace()
        || bytes[bytes.len() - 1].is_ascii_whitespace()
        || ["null", "Null", "NULL", "~", "true", "True", "TRUE", "false", "False", "FALSE"].contains(&value)
        || yaml_numeric(value)
        || "-?:\\,[]{}#&*!|>'\"%@`".as_bytes().contains(&bytes[0])
    {
        need = Quote::Single;
    }
    for &c in bytes {
        if c.is_ascii_alphanumeric() || b"_-^., \t".contains(&c) {
            continue;
        }
        if c <= 0x1f || c == 0x7f || c >= 0x80 {
            need = Quote::Double;
            break;
        }
        need = need.max_with(Quote::Single);
    }
    match need {
        Quote::None => value.to_string(),
        Quote::Single => format!("'{}'", value.replace('\'', "''")),
        Quote::Double => {
            let mut s = String::from("\"");
            for c in value.chars() {
                match c {
                    '"' => s += "\\\"",
                    '\\' => s += "\\\\",
                    '\n' => s += "\\n",
                    '\r' => s += "\\r",
                    '\t' => s += "\\t",
                    c if (c as u32) < 0x20 || c == '\u{7f}' => s += &format!("\\x{:02X}", c as u32),
                    c => s.push(c),
                }
            }
            s + "\""
        }
    }
}

/// YAML's number forms, as LLVM's `yaml::isNumeric`: `.nan`, `[-+].inf`,
/// `0o` octal, `0x` hex and `[-+]? (\. [0-9]+ | [0-9]+ (\. [0-9]*)?) ([eE] [-+]? [0-9]+)?`.
fn yaml_numeric(s: &str) -> bool {
    if [".nan", ".NaN", ".NAN"].contains(&s) {
        return true;
    }
    let tail = s.strip_prefix(['-', '+']).unwrap_or(s);
    if [".inf", ".Inf", ".INF"].contains(&tail) {
        return true;
    }
    let all = |t: &str, ok: fn(char) -> bool| !t.is_empty() && t.chars().all(ok);
    if let Some(oct) = s.strip_prefix("0o") {
        return all(oct, |c| ('0'..='7').contains(&c));
    }
    if let Some(hex) = s.strip_prefix("0x") {
        return all(hex, |c| c.is_ascii_hexdigit());
    }
    let digits = |t: &str| t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let mut rest = tail;
    let int = digits(rest);
    rest = &rest[int..];
    if let Some(after) = rest.strip_prefix('.') {
        let frac = digits(after);
        if int == 0 && frac == 0 {
            return false;
        }
        rest = &after[frac..];
    } else if int == 0 {
        return false;
    }
    if let Some(exp) = rest.strip_prefix(['e', 'E']) {
        let exp = exp.strip_prefix(['-', '+']).unwrap_or(exp);
        let n = digits(exp);
        return n > 0 && n == exp.len();
    }
    rest.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn remark() -> Remark {
        Remark {
            kind: RemarkKind::Missed,
            pass: "simt-swp".into(),
            name: "NotPipelined".into(),
            function: "k".into(),
            args: vec![Arg::text("loop "), Arg::new("Loop", "%5"), Arg::text(" not pipelined: "), Arg::new("Reason", "it's 1 stage")],
        }
    }

    #[test]
    fn yaml_is_llvms_layout() {
        assert_eq!(
            to_yaml(&remark()),
            "--- !Missed\nPass:            simt-swp\nName:            NotPipelined\nFunction:        k\nArgs:\n  - String:          'loop '\n  - Loop:            '%5'\n  - String:          ' not pipelined: '\n  - Reason:          'it''s 1 stage'\n...\n"
        );
        assert_eq!(remark().message(), "loop %5 not pipelined: it's 1 stage");
    }

    #[test]
    fn scalars_are_quoted_as_llvm_quotes_them() {
        for (value, written) in [
            ("bound varies in the loop", "bound varies in the loop"),
            ("simt-swp", "simt-swp"),
            ("11", "'11'"),
            ("-3.5e2", "'-3.5e2'"),
            ("0x1F", "'0x1F'"),
            ("1a", "1a"),
            ("true", "'true'"),
            ("", "''"),
            (" in ", "' in '"),
            ("%loop", "'%loop'"),
            ("a/b", "'a/b'"),
            ("a:b", "'a:b'"),
            ("two\nlines", "\"two\\nlines\""),
        ] {
            assert_eq!(yaml_scalar(value), written, "{value:?}");
        }
    }

    #[test]
    fn patterns_pick_kinds_and_passes() {
        let s = RemarkStreamer { missed: Some(PassPattern::new("swp").unwrap()), ..Default::default() };
        assert!(s.wants(RemarkKind::Missed, "simt-swp"));
        assert!(!s.wants(RemarkKind::Passed, "simt-swp"));
        assert!(!s.wants(RemarkKind::Missed, "simt-memfwd"));
        // The YAML stream takes every pass unless filtered.
        let y =
            RemarkStreamer { yaml: Some(Box::new(Vec::new())), filter: Some(PassPattern::new("^simt-mem").unwrap()), ..Default::default() };
        assert!(y.wants(RemarkKind::Analysis, "simt-memdse") && !y.wants(RemarkKind::Passed, "simt-swp"));
        assert!(PassPattern::new("(").is_err());
    }
}
