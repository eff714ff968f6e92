//! Output files, written the way `opt` writes them, but never replacing what
//! a caller's redirection points at.
//!
//! - A regular file (or a new one) is written atomically: a temporary file
//!   beside the target, then a rename over it, so a failed or interrupted run
//!   never leaves a truncated output and an old file survives any error. The
//!   temporary file is removed on SIGINT/SIGTERM/SIGHUP too ([`crate::interrupt`]).
//! - A name of one of the process's own descriptors — `/dev/stdout`,
//!   `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`, `/proc/<our pid>/fd/N`,
//!   or a link to one — is written through that descriptor, at its position.
//!   Following the name instead would find the caller's file: in
//!   `(simt-opt -o /dev/stdout; echo AFTER) >> log` a rename would replace
//!   `log` and reopening it would write from its start; either way earlier
//!   lines and `AFTER` were lost. (`opt` reopens the name with `O_TRUNC` and
//!   loses the earlier lines too.)
//! - Anything else that is not a regular file (a character device such as
//!   `/dev/null`, a FIFO, a socket) is opened and written in place: renaming
//!   over it would replace the device node with a regular file — as root,
//!   `-o /dev/null` would turn the machine's `/dev/null` into a file.
//! - A symbolic link is followed to its final target, and that target is
//!   replaced atomically, so the link itself survives.
//! - A new file gets the permissions `0666 & !umask`, as `open(2)` gives; an
//!   existing file keeps its own.
//!
//! [`OutputFile`] streams (the emulator's `--trace`); [`write_atomically`]
//! writes bytes at once. `SIMT_TEST_OUTPUT_PAUSE_MS`, for tests only, waits
//! that long before a temporary file is renamed into place, so a test can
//! interrupt the tool while the file exists.

use crate::diag::ToolError;
use std::io::Write;
use std::os::fd::{FromRawFd, RawFd};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Symbolic links are followed at most this many times, as Linux's ELOOP limit.
const MAX_SYMLINK_HOPS: usize = 40;

/// See the module doc: a test hook, read only before a rename.
const PAUSE_ENV: &str = "SIMT_TEST_OUTPUT_PAUSE_MS";

/// An output being written; [`OutputFile::commit`] finishes it. Dropped
/// without a commit, a temporary file is removed and the target untouched.
pub struct OutputFile {
    /// As given, for messages.
    path: String,
    sink: Sink,
}

enum Sink {
    /// One of the process's descriptors, borrowed: never closed here.
    Fd(std::mem::ManuallyDrop<std::fs::File>, RawFd),
    InPlace(std::fs::File),
    Atomic {
        tmp: tempfile::NamedTempFile,
        target: PathBuf,
        mode: u32,
        _registered: crate::interrupt::Registered,
    },
}

impl OutputFile {
    /// Opens `path` for writing as the module doc says: a descriptor's
    /// name, a device, FIFO or socket in place, anything else through a
    /// temporary file.
    pub fn create(path: &Path) -> Result<OutputFile, ToolError> {
        let shown = path.display().to_string();
        let io = |e: std::io::Error| ToolError::Io { path: shown.clone(), message: e.to_string() };
        let (target, fd) = follow_symlinks(path).map_err(io)?;
        if let Some(fd) = fd {
            // SAFETY: fcntl(F_GETFD) only reads the descriptor's flags; it fails with EBADF if `fd` is not open.
            if unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1 {
                return Err(io(std::io::Error::other(format!("names file descriptor {fd}, which is not open"))));
            }
            if fd == 1 {
                // Anything Rust buffered for stdout goes first.
                std::io::Write::flush(&mut std::io::stdout()).map_err(crate::diag::stdout_error)?;
            }
            // SAFETY: `fd` is open (checked above) and stays open: the File is never dropped (ManuallyDrop), so it is only borrowed.
            let file = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(fd) });
            return Ok(OutputFile { path: shown, sink: Sink::Fd(file, fd) });
        }
        // stat follows links: what the target is now.
        let existing = std::fs::metadata(&target).ok();
        if let Some(meta) = &existing {
            if meta.is_dir() {
                return Err(io(std::io::Error::other("is a directory")));
            }
            if !meta.is_file() {
                // Devices, FIFOs and sockets are written directly (no
                // truncation: a device has no length, and `O_TRUNC` on a
                // FIFO is ignored anyway).
                let f = std::fs::OpenOptions::new().write(true).open(&target).map_err(io)?;
                return Ok(OutputFile { path: shown, sink: Sink::InPlace(f) });
            }
        }
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        // tempfile's error names the temporary path, which the user never
        // gave: the OS error alone is reported against the output's name.
        // The name is registered for removal on a signal before the file is
        // made: registered after, a signal in between left the file behind
        // (seen once in `output_files`' interrupted-dump test under load).
        let mut registered = None;
        let tmp = tempfile::Builder::new()
            .prefix(".simt-")
            .suffix(".tmp")
            .make_in(dir, |p| {
                registered = Some(crate::interrupt::register(p));
                std::fs::OpenOptions::new().read(true).write(true).create_new(true).mode(0o600).open(p)
            })
            .map_err(|e| io(without_temporary_path(e)))?;
        let registered = registered.expect("make_in calls the closure before it returns a file");
        let mode = match &existing {
            Some(meta) => meta.permissions().mode() & 0o7777,
            None => 0o666 & !current_umask(),
        };
        Ok(OutputFile { path: shown, sink: Sink::Atomic { tmp, target, mode, _registered: registered } })
    }

    /// The error for a failed write: EPIPE on standard output is
    /// [`ToolError::BrokenPipe`] (quiet, as for `-o -`).
    pub fn error(&self, e: std::io::Error) -> ToolError {
        match (&self.sink, e.kind()) {
            (Sink::Fd(_, 1), std::io::ErrorKind::BrokenPipe) => ToolError::BrokenPipe,
            _ => ToolError::Io { path: self.path.clone(), message: e.to_string() },
        }
    }

    /// Flushes, and moves a temporary file into place.
    pub fn commit(self) -> Result<(), ToolError> {
        let io = |e: std::io::Error| self.error(e);
        match &self.sink {
            Sink::Fd(f, _) => (&**f).flush().map_err(io)?,
            Sink::InPlace(f) => (&*f).flush().map_err(io)?,
            Sink::Atomic { tmp, mode, .. } => {
                tmp.as_file().sync_all().map_err(io)?;
                tmp.as_file().set_permissions(std::fs::Permissions::from_mode(*mode)).map_err(io)?;
                if let Some(ms) = std::env::var(PAUSE_ENV).ok().and_then(|v| v.parse().ok()) {
                    std::thread::sleep(std::time::Duration::from_millis(ms));
                }
            }
        }
        let path = self.path;
        if let Sink::Atomic { tmp, target, _registered, .. } = self.sink {
            tmp.persist(&target).map_err(|e| ToolError::Io { path, message: e.error.to_string() })?;
            drop(_registered);
        }
        Ok(())
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.sink {
            Sink::Fd(f, _) => (&**f).write(buf),
            Sink::InPlace(f) => f.write(buf),
            Sink::Atomic { tmp, .. } => tmp.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.sink {
            Sink::Fd(f, _) => (&**f).flush(),
            Sink::InPlace(f) => f.flush(),
            Sink::Atomic { tmp, .. } => tmp.flush(),
        }
    }
}

/// Writes `bytes` to `path` as [`OutputFile`] does: atomically where `path`
/// is (or will be) a regular file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), ToolError> {
    let mut out = OutputFile::create(path)?;
    if let Err(e) = out.write_all(bytes) {
        return Err(out.error(e));
    }
    out.commit()
}

/// Writes to `path`, or to stdout when it is `-`.
pub fn write_output(path: &str, bytes: &[u8]) -> Result<(), ToolError> {
    if path == "-" {
        crate::diag::write_stdout(bytes)
    } else {
        write_atomically(Path::new(path), bytes)
    }
}

/// tempfile's error without the temporary path it appends (`… at path
/// "dir/.simt-XXXX.tmp"`; the inner error is private to tempfile).
fn without_temporary_path(e: std::io::Error) -> std::io::Error {
    let text = e.to_string();
    match text.rfind(" at path \"") {
        Some(i) => std::io::Error::new(e.kind(), &text[..i]),
        None => e,
    }
}

/// The descriptor `path` names, if it is one of the names Linux gives the
/// process's own descriptors; also with its folder canonicalised
/// (`/dev/fd/1` is `/proc/<pid>/fd/1` then, `/dev/../dev/stdout` is
/// `/dev/stdout`).
fn descriptor_name(path: &Path) -> Option<RawFd> {
    let canonical = match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) if !dir.as_os_str().is_empty() => std::fs::canonicalize(dir).ok().map(|d| d.join(name)),
        _ => None,
    };
    let own = format!("/proc/{}/fd/", std::process::id());
    [Some(path.to_path_buf()), canonical].into_iter().flatten().find_map(|p| {
        let s = p.to_str()?;
        match s {
            "/dev/stdin" => return Some(0),
            "/dev/stdout" => return Some(1),
            "/dev/stderr" => return Some(2),
            _ => {}
        }
        let n = ["/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/", own.as_str()].iter().find_map(|pre| s.strip_prefix(pre))?;
        (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then(|| n.parse().ok()).flatten()
    })
}

/// The path a chain of symbolic links ends at (which need not exist yet: a
/// dangling link names the file to create), or the descriptor the chain
/// reaches first, if it names one.
fn follow_symlinks(path: &Path) -> std::io::Result<(PathBuf, Option<RawFd>)> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_SYMLINK_HOPS {
        if let Some(fd) = descriptor_name(&current) {
            return Ok((current, Some(fd)));
        }
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = std::fs::read_link(&current)?;
                current = match current.parent() {
                    Some(parent) if link.is_relative() => parent.join(link),
                    _ => link,
                };
            }
            _ => return Ok((current, None)),
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
