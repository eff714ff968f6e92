//! RELIABILITY.md's "Bad input: the catalogue", true by construction: every
//! row of its table is run here (the command under `bash` in the repository
//! root, the tools on `PATH`, `$T` a fresh folder), and its exit code and
//! message checked, so the document cannot drift from the tools.

use std::path::Path;
use std::process::{Command, Stdio};

const SECTION: &str = "## Bad input: the catalogue";

#[derive(Debug)]
struct Row {
    input: String,
    command: String,
    exit: i32,
    /// `None`: stderr must be empty.
    message: Option<String>,
    /// Marked † in the table: documented, not run.
    skipped: bool,
}

/// Cells of a table line, split at `|` but not at `\|` (which becomes `|`).
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    let mut out = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                chars.next();
                out.last_mut().unwrap().push('|');
            }
            '|' => out.push(String::new()),
            c => out.last_mut().unwrap().push(c),
        }
    }
    out.into_iter().map(|c| c.trim().to_string()).collect()
}

/// The text between the outer backticks of a cell.
fn code(cell: &str) -> Option<&str> {
    cell.strip_prefix('`')?.strip_suffix('`')
}

fn catalogue() -> Vec<Row> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("RELIABILITY.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text.find(SECTION).unwrap_or_else(|| panic!("no '{SECTION}' in {}", path.display()));
    let body = &text[start + SECTION.len()..];
    let body = &body[..body.find("\n## ").unwrap_or(body.len())];
    let mut rows = Vec::new();
    for line in body.lines().filter(|l| l.trim_start().starts_with('|')) {
        let c = cells(line);
        assert_eq!(c.len(), 4, "a catalogue row has 4 cells (input, command, exit, message): {line}");
        if c[0] == "input" || c[0].starts_with("---") {
            continue;
        }
        let command = code(&c[1]).unwrap_or_else(|| panic!("the command is not in backticks: {line}")).to_string();
        let message = code(&c[3]).unwrap_or_else(|| panic!("the message is not in backticks: {line}"));
        rows.push(Row {
            input: c[0].trim_end_matches('†').trim().to_string(),
            skipped: c[0].ends_with('†'),
            command,
            exit: c[2].parse().unwrap_or_else(|_| panic!("the exit code is not a number: {line}")),
            message: (message != "(empty)").then(|| message.to_string()),
        });
    }
    rows
}

#[test]
fn table_parses() {
    assert_eq!(cells(r"| a | `x \| y` | 1 | `m` |"), vec!["a", "`x | y`", "1", "`m`"]);
    let rows = catalogue();
    assert!(rows.len() >= 30, "{} rows", rows.len());
    assert!(rows.iter().filter(|r| r.skipped).count() <= 2, "rows marked † are the exception");
}

#[test]
fn every_row_holds() {
    let bin = Path::new(env!("CARGO_BIN_EXE_simt-opt")).parent().unwrap().to_path_buf();
    assert_eq!(bin, Path::new(env!("CARGO_BIN_EXE_simt-run")).parent().unwrap());
    let path =
        std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()))).unwrap();
    let mut failures = Vec::new();
    for row in catalogue() {
        if row.skipped {
            eprintln!("not run (†): {}", row.input);
            continue;
        }
        let t = tempfile::tempdir().unwrap();
        let out = Command::new("timeout")
            .args(["120", "bash", "-c", &row.command])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("PATH", &path)
            .env("T", t.path())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let code = out.status.code();
        let mut wrong = Vec::new();
        if code != Some(row.exit) {
            wrong.push(format!("exit {code:?}, documented {}", row.exit));
        }
        match &row.message {
            Some(m) if !err.contains(m.as_str()) => wrong.push(format!("stderr lacks `{m}`")),
            None if !err.is_empty() => wrong.push("stderr is not empty".to_string()),
            _ => {}
        }
        if err.contains("panicked") {
            wrong.push("panicked".to_string());
        }
        if !wrong.is_empty() {
            failures.push(format!(
                "{}: `{}`: {}\n  stderr: {}",
                row.input,
                row.command,
                wrong.join("; "),
                err.trim_end().replace('\n', "\n          ")
            ));
        }
    }
    // A regression of `-o /dev/null` (as root) would turn it into a file.
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device(), "/dev/null is no longer a device");
    assert!(failures.is_empty(), "RELIABILITY.md's catalogue is wrong in {} row(s):\n{}", failures.len(), failures.join("\n"));
}
