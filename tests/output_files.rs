//! simt-opt's `-o` onto things that are not plain files: devices and FIFOs are
//! written in place (never replaced by a regular file), symbolic links are
//! followed to their target, and new files follow the umask.

use std::ffi::CString;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

fn simt_opt() -> Command {
    Command::new(env!("CARGO_BIN_EXE_simt-opt"))
}

fn example() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/test-ir/examples/saxpy.ll").to_string()
}

fn write_ir_to(out: &Path) -> std::process::Output {
    simt_opt().args(["-S", &example(), "-o"]).arg(out).output().unwrap()
}

#[test]
fn a_character_device_stays_a_device() {
    // A private null device, so a regression cannot damage the machine's /dev/null.
    // mknod needs root (CI runs as root, where the bug bit); as another user,
    // /dev/null itself is safe to use because /dev is not writable.
    let dir = tempfile::tempdir().unwrap();
    let dev = dir.path().join("null");
    let c = CString::new(dev.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path; mknod has no other preconditions.
    let made = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) } == 0;
    let dev = if made { dev } else { Path::new("/dev/null").to_path_buf() };
    let out = write_ir_to(&dev);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let meta = std::fs::symlink_metadata(&dev).unwrap();
    assert!(meta.file_type().is_char_device(), "{} is no longer a character device", dev.display());
}

#[test]
fn a_fifo_is_written_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let c = CString::new(fifo.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let reader_path = fifo.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        std::fs::File::open(&reader_path).unwrap().read_to_string(&mut text).unwrap();
        tx.send(text).unwrap();
    });
    let out = write_ir_to(&fifo);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = rx.recv_timeout(Duration::from_secs(30)).expect("nothing arrived through the FIFO");
    assert!(text.contains("define"), "the IR did not arrive: {text:?}");
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
}

#[test]
fn a_symlink_is_followed_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("real.ll");
    let link = dir.path().join("link.ll");
    std::os::unix::fs::symlink("real.ll", &link).unwrap();
    // Dangling at first: the target is created; then replaced atomically.
    for _ in 0..2 {
        let out = write_ir_to(&link);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert!(std::fs::read_to_string(&target).unwrap().contains("define"));
    }
}

#[test]
fn new_files_follow_the_umask_and_old_ones_keep_their_mode() {
    let dir = tempfile::tempdir().unwrap();
    let new = dir.path().join("new.ll");
    let out = simt_opt().args(["-S", &example(), "-o"]).arg(&new).output().unwrap();
    assert!(out.status.success());
    // SAFETY: reading the umask by setting and restoring it; tests share the mask, so restore at once.
    let mask = unsafe {
        let m = libc::umask(0o022);
        libc::umask(m);
        m
    } as u32;
    assert_eq!(std::fs::metadata(&new).unwrap().permissions().mode() & 0o777, 0o666 & !mask);
    let old = dir.path().join("old.ll");
    std::fs::write(&old, "x").unwrap();
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o640)).unwrap();
    assert!(write_ir_to(&old).status.success());
    assert_eq!(std::fs::metadata(&old).unwrap().permissions().mode() & 0o777, 0o640);
}

/// Runs `script` under bash with `$OPT`, `$RUN` and `$IR` set, in `dir`.
fn bash_in(dir: &Path, script: &str) -> std::process::Output {
    Command::new("bash")
        .args(["-c", script])
        .current_dir(dir)
        .env("OPT", env!("CARGO_BIN_EXE_simt-opt"))
        .env("RUN", env!("CARGO_BIN_EXE_simt-run"))
        .env("IR", example())
        .output()
        .unwrap()
}

#[test]
fn the_callers_redirection_is_written_through_not_replaced() {
    // `-o /dev/stdout` (and the other names of descriptor 1) inside `>> log`
    // used to replace `log` by a rename: BEFORE and AFTER were lost.
    for name in ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", "link", "/dev/../dev/stdout"] {
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("/dev/stdout", dir.path().join("link")).unwrap();
        for redirect in [">>", ">"] {
            let script = format!("echo BEFORE > log; (echo FIRST; \"$OPT\" -S \"$IR\" -o {name}; echo AFTER) {redirect} log");
            let out = bash_in(dir.path(), &script);
            assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
            let log = std::fs::read_to_string(dir.path().join("log")).unwrap();
            let lines: Vec<&str> = log.lines().collect();
            let want_first = if redirect == ">>" { vec!["BEFORE", "FIRST"] } else { vec!["FIRST"] };
            assert_eq!(lines[..want_first.len()], want_first[..], "{name} {redirect}: {log}");
            assert_eq!(lines[want_first.len()], "; ModuleID = '".to_string() + &example() + "'", "{name} {redirect}");
            assert_eq!(lines.last(), Some(&"AFTER"), "{name} {redirect}: {log}");
            assert!(std::fs::symlink_metadata(dir.path().join("link")).unwrap().file_type().is_symlink());
            assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2, "{name}: a file other than log and link appeared");
        }
    }
}

#[test]
fn a_descriptor_that_is_not_open_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = bash_in(dir.path(), "\"$OPT\" -S \"$IR\" -o /dev/fd/9");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("simt-opt: /dev/fd/9: error: names file descriptor 9, which is not open"));
}

#[test]
fn the_trace_is_written_through_the_callers_redirection() {
    let dir = tempfile::tempdir().unwrap();
    let script = "echo BEFORE > log; (\"$RUN\" \"$IR\" --engine emu --global 8 --local 4 --arg i32:8 --arg f32:2 \
                  --arg buf:f32:8 --arg buf:f32:8 --trace /dev/stdout 2>/dev/null; echo AFTER) >> log";
    let out = bash_in(dir.path(), script);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let log = std::fs::read_to_string(dir.path().join("log")).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines[0], "BEFORE", "{log}");
    assert!(lines[1].starts_with("# simt-run trace: kernel"), "{log}");
    assert_eq!(lines.last(), Some(&"AFTER"), "{log}");
}

#[test]
fn an_interrupted_dump_leaves_no_temporary_file() {
    // The test hook holds each finished temporary file for 30 s before its
    // rename; the tool is interrupted while the first one exists.
    for signal in [libc::SIGINT, libc::SIGTERM] {
        let dir = tempfile::tempdir().unwrap();
        let dump = dir.path().join("d");
        let mut child = Command::new(env!("CARGO_BIN_EXE_simt-run"))
            .args([&example(), "--global", "8", "--local", "4", "--arg", "i32:8", "--arg", "f32:2", "--arg", "buf:f32:8"])
            .args(["--arg", "buf:f32:1048576", "--dump"])
            .arg(&dump)
            .env("SIMT_TEST_OUTPUT_PAUSE_MS", "30000")
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let tmp = |d: &Path| {
            std::fs::read_dir(d).map_or(Vec::new(), |r| {
                r.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).filter(|n| n.ends_with(".tmp")).collect::<Vec<_>>()
            })
        };
        let start = std::time::Instant::now();
        while tmp(&dump).is_empty() {
            assert!(child.try_wait().unwrap().is_none(), "the tool ended before a temporary file appeared");
            assert!(start.elapsed() < Duration::from_secs(120), "no temporary file appeared");
            std::thread::sleep(Duration::from_millis(20));
        }
        // SAFETY: kill(2) on our own child's pid.
        assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
        let status = child.wait().unwrap();
        assert!(start.elapsed() < Duration::from_secs(25), "the tool went on after the signal");
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(signal), "it should die of the signal: {status:?}");
        assert_eq!(tmp(&dump), Vec::<String>::new(), "temporary files left in the dump folder");
    }
}
