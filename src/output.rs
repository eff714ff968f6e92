//! Output files, written the way `opt` writes them.
//!
//! - A regular file (or a new one) is written atomically: a temporary file
//!   beside the target, then a rename over it, so a failed or interrupted run
//!   never leaves a truncated output and an old file survives any error.
//! - Anything else (a character device such as `/dev/null`, a FIFO, a socket,
//!   `/dev/stdout` naming a pipe or terminal) is opened and written in place:
//!   renaming over it would replace the device node with a regular file — as
//!   root, `-o /dev/null` would turn the machine's `/dev/null` into a file.
//! - A symbolic link is followed to its final target, and that target is
//!   replaced atomically, so the link itself survives.
//! - A new file gets the permissions `0666 & !umask`, as `open(2)` gives; an
//!   existing file keeps its own.

use crate::diag::ToolError;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Symbolic links are followed at most this many times, as Linux's ELOOP limit.
const MAX_SYMLINK_HOPS: usize = 40;

pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), ToolError> {
    let io = |e: std::io::Error| ToolError::Io { path: path.display().to_string(), message: e.to_string() };
    // stat follows links, /proc's magic ones too (`/dev/stdout` → a pipe).
    let existing = std::fs::metadata(path).ok();
    if let Some(meta) = &existing {
        if meta.is_dir() {
            return Err(io(std::io::Error::other("is a directory")));
        }
        if !meta.is_file() {
            return write_in_place(path, bytes).map_err(io);
        }
    }
    let target = follow_symlinks(path).map_err(io)?;
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new().prefix(".simt-").suffix(".tmp").tempfile_in(dir).map_err(io)?;
    tmp.write_all(bytes).map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;
    let mode = match &existing {
        Some(meta) => meta.permissions().mode() & 0o7777,
        None => 0o666 & !current_umask(),
    };
    tmp.as_file().set_permissions(std::fs::Permissions::from_mode(mode)).map_err(io)?;
    tmp.persist(&target).map_err(|e| io(e.error))?;
    Ok(())
}

/// Writes to `path`, or to stdout when it is `-`.
pub fn write_output(path: &str, bytes: &[u8]) -> Result<(), ToolError> {
    if path == "-" {
        crate::diag::write_stdout(bytes)
    } else {
        write_atomically(Path::new(path), bytes)
    }
}

/// Devices, FIFOs and sockets are written directly (no truncation: a device
/// has no length, and `O_TRUNC` on a FIFO is ignored anyway).
fn write_in_place(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new().write(true).open(path)?;
    f.write_all(bytes)?;
    f.flush()
}

/// The path a chain of symbolic links ends at (which need not exist yet: a
/// dangling link names the file to create).
fn follow_symlinks(path: &Path) -> std::io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_SYMLINK_HOPS {
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = std::fs::read_link(&current)?;
                current = match current.parent() {
                    Some(parent) if link.is_relative() => parent.join(link),
                    _ => link,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(std::io::Error::other("too many levels of symbolic links"))
}

/// The process's umask. `umask(2)` can only be read by setting it, so it is
/// set and restored at once; nothing else in these tools creates files
/// concurrently with output.
fn current_umask() -> u32 {
    // SAFETY: umask has no memory-safety preconditions; the old mask is restored immediately.
    let old = unsafe { libc::umask(0o022) };
    // SAFETY: as above.
    unsafe { libc::umask(old) };
    old as u32
}
