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
