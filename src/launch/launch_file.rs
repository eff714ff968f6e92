//! The launch file (`--launch FILE`): one `key = value` per line, `#` starts
//! a comment, keys are the long flag names, each at most once (`arg` once
//! per argument, in order). Each value is read with the same
//! grammar as its flag ([`super::values`]); relative paths are taken from the
//! file's folder ([`super::settings::Origin::base_dir`]).

use super::settings::{Origin, Settings};
use crate::diag::ToolError;
use std::path::Path;

impl Settings {
    /// Reads a launch file: an I/O error if it cannot be read, a usage error
    /// naming the line if it is malformed.
    pub fn from_launch_file(path: &Path) -> Result<Settings, ToolError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ToolError::Io { path: path.display().to_string(), message: format!("cannot read launch file: {e}") })?;
        Settings::from_launch_text(&text, path)
    }

    /// Parses launch-file text; `path` names it in messages and anchors relative paths.
    pub fn from_launch_text(text: &str, path: &Path) -> Result<Settings, ToolError> {
        let mut s = Settings::new();
        let mut first_line = std::collections::HashMap::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let content = strip_comment(raw).trim();
            if content.is_empty() {
                continue;
            }
            let err = |why: String| ToolError::Usage(format!("{}:{line}: error: {why}", path.display()));
            let (key, value) = content.split_once('=').ok_or_else(|| err(format!("expected 'key = value', found '{content}'")))?;
            let (key, value) = (key.trim(), value.trim());
            if key.is_empty() {
                return Err(err(format!("missing key before '=' in '{content}'")));
            }
            if value.is_empty() {
                return Err(err(format!("missing value for '{key}'")));
            }
            s.set(key, value, Origin::File { path: path.to_path_buf(), line }).map_err(err)?;
            // A key given twice would keep the later value without a word
            // (a repeated command-line flag is an error); `arg` appends.
            let key = super::settings::canonical_key(key).expect("set accepted the key");
            if key != "arg" {
                if let Some(first) = first_line.insert(key, line) {
                    return Err(err(format!("'{key}' is given twice, on lines {first} and {line}")));
                }
            }
        }
        Ok(s)
    }
}

/// Drops a `#` comment: one at the start of the line or after whitespace,
/// so `file:a#b` keeps its `#`.
fn strip_comment(line: &str) -> &str {
    let bytes = line.as_bytes();
    for (i, &c) in bytes.iter().enumerate() {
        if c == b'#' && (i == 0 || bytes[i - 1].is_ascii_whitespace()) {
            return &line[..i];
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_given_twice_is_an_error() {
        let p = Path::new("r.launch");
        let e = Settings::from_launch_text("global = 8\nlocal = 4\n# again\nglobal = 16\n", p).unwrap_err().to_string();
        assert_eq!(e, "r.launch:4: error: 'global' is given twice, on lines 1 and 4");
        // `_` spells `-` too.
        let e = Settings::from_launch_text("local_mem_limit = 1K\nlocal-mem-limit = 2K\n", p).unwrap_err().to_string();
        assert_eq!(e, "r.launch:2: error: 'local-mem-limit' is given twice, on lines 1 and 2");
        let s = Settings::from_launch_text("arg = i32:1\narg = i32:2\n", p).unwrap();
        assert_eq!(s.args.len(), 2);
    }

    #[test]
    fn comments() {
        assert_eq!(strip_comment("# all"), "");
        assert_eq!(strip_comment("a = 1 # c"), "a = 1 ");
        assert_eq!(strip_comment("arg = buf:u8:1=file:a#b"), "arg = buf:u8:1=file:a#b");
    }
}
