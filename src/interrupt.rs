//! Temporary output files are removed when the tool is interrupted, or
//! stopped by `--timeout` ([`stop_after`]).
//!
//! [`crate::output`] writes a regular file as a temporary file beside it and
//! renames it over the target at the end. A Ctrl-C (SIGINT), SIGTERM or
//! SIGHUP half-way through a large `--dump` used to leave the temporary file
//! (hundreds of MB named `.simt-*.tmp`) behind: the default action of those
//! signals kills the process without running destructors.
//!
//! Each temporary file is registered while it exists ([`register`]). The
//! first registration installs handlers for the three signals (signal-hook:
//! the handler itself only writes to a pipe; a thread of ours reads it, so
//! the clean-up may take a lock and call `unlink`). On a signal that thread
//! removes every registered file, then lets the signal take its default
//! action, so the process still dies *of the signal* (a shell sees 130 for
//! SIGINT and stops its loop), as it would have without the handler.
//!
//! A signal whose disposition was "ignore" when the first file was
//! registered (`nohup`, SIGINT of a script's background job) is left alone.
//!
//! Limits: a signal between the temporary file's creation and its
//! registration (a few instructions) still leaves it; SIGKILL cannot be
//! caught. A process that never writes an output file never installs the
//! handlers, so its signals behave exactly as before.

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, Once};

/// The temporary files that exist now.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn pending() -> MutexGuard<'static, Vec<PathBuf>> {
    // A panic while holding the lock leaves a usable list: recover it.
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

/// A registered temporary file; dropping it unregisters it (after the file
/// was renamed into place or removed).
#[must_use]
pub struct Registered(PathBuf);

impl Drop for Registered {
    fn drop(&mut self) {
        let mut list = pending();
        if let Some(i) = list.iter().position(|p| *p == self.0) {
            list.swap_remove(i);
        }
    }
}

/// Registers `path` for removal if the process is interrupted.
pub fn register(path: &Path) -> Registered {
    install();
    pending().push(path.to_path_buf());
    Registered(path.to_path_buf())
}

fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Without the handlers the files stay behind on a signal, as
        // before; nothing else changes. Should the thread not start, the
        // closure (and with it `signals`, whose drop unregisters them) is
        // dropped.
        // A signal the parent set to be ignored (`nohup`, SIGINT of a
        // background job in a script) stays ignored.
        let caught: Vec<i32> = [SIGINT, SIGTERM, SIGHUP].into_iter().filter(|&s| !ignored(s)).collect();
        if caught.is_empty() {
            return;
        }
        let Ok(mut signals) = signal_hook::iterator::Signals::new(caught) else { return };
        let spawned = std::thread::Builder::new().name("simt-interrupt".into()).spawn(move || {
            if let Some(sig) = signals.forever().next() {
                remove_pending();
                // Dies of the signal (default action); should that fail,
                // exits with the shell's code for it.
                let _ = signal_hook::low_level::emulate_default_handler(sig);
                std::process::exit(128 + sig);
            }
        });
        drop(spawned);
    });
}

/// Removes every registered temporary file (before the process ends
/// without running destructors).
fn remove_pending() {
    for path in pending().iter() {
        let _ = std::fs::remove_file(path);
    }
}

/// `--timeout`: after `limit`, `tool` stops with an error (exit 1), removing
/// its temporary output files as an interrupt does. The outputs already in
/// place stay as they are: each is written whole or not at all.
pub fn stop_after(tool: &'static str, limit: std::time::Duration) {
    let watchdog = std::thread::Builder::new().name("simt-timeout".into()).spawn(move || {
        std::thread::sleep(limit);
        remove_pending();
        eprintln!("\n{tool}: error: the launch did not finish within {} s (--timeout); stopped", limit.as_secs_f64());
        std::process::exit(1);
    });
    // Without the thread there is no time limit: say so rather than run on
    // as if there were one.
    if let Err(e) = watchdog {
        eprintln!("{tool}: warning: --timeout is not enforced: cannot start its thread: {e}");
    }
}

/// Whether `sig`'s disposition is "ignore".
fn ignored(sig: i32) -> bool {
    // SAFETY: sigaction with a null new action only reads the current one into `old`, a zeroed sigaction it may fill.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(sig, std::ptr::null(), &mut old) == 0 && old.sa_sigaction == libc::SIG_IGN
    }
}
