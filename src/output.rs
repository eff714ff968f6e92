//! Atomic output: write a temporary file beside the target, then rename it
//! over the target, so a failed or interrupted run never leaves a truncated
//! or half-written output and an old file survives any error.

use crate::diag::ToolError;
use std::io::Write;
use std::path::Path;

pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), ToolError> {
    let io = |e: std::io::Error| ToolError::Io { path: path.display().to_string(), message: e.to_string() };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new().prefix(".simt-").suffix(".tmp").tempfile_in(dir).map_err(io)?;
    tmp.write_all(bytes).map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;
    if let Ok(meta) = std::fs::metadata(path) {
        // Keep the old file's permissions, as editors do.
        let _ = std::fs::set_permissions(tmp.path(), meta.permissions());
    }
    tmp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

/// Writes to `path`, or to stdout when it is `-`.
pub fn write_output(path: &str, bytes: &[u8]) -> Result<(), ToolError> {
    if path == "-" {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes)
            .and_then(|_| out.flush())
            .map_err(|e| ToolError::Io { path: "<stdout>".into(), message: e.to_string() })
    } else {
        write_atomically(Path::new(path), bytes)
    }
}
