//! The host engine's kernel cache (src/engine/host/kernel_cache.rs), through
//! simt-run: a second launch hits and computes the same; a change in the
//! module, kernel, local size or an option misses; corrupt and truncated
//! entries are rebuilt, never loaded; runs filling one entry at once all
//! succeed; `--no-cache` neither reads nor writes; an unwritable folder and
//! the size limit. Every run points the cache at a temporary folder
//! (`SIMT_CACHE_DIR`, or `XDG_CACHE_HOME`/`HOME` where those are tested),
//! never at the user's. Outputs are checked against values computed here;
//! entries are read with the header layout the module documents.

mod common;

use serde_json::Value;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `vadd`: c[i] = a[i] + b[i]. `rev`: each work-group writes its global ids
/// reversed, through `__local` memory and a barrier, so the output depends
/// on the local size the work-group function was specialised for.
const KERNELS: &str = concat!(
    r#"target triple = "spir64"

@tile = internal addrspace(3) global [256 x i64] undef, align 8
"#,
    common::vadd_ir!(),
    r#"
define spir_kernel void @rev(ptr addrspace(1) %out) {
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %lid = call i64 @_Z12get_local_idj(i32 0)
  %lsz = call i64 @_Z14get_local_sizej(i32 0)
  %slot = getelementptr i64, ptr addrspace(3) @tile, i64 %lid
  store i64 %gid, ptr addrspace(3) %slot
  call void @_Z7barrierj(i32 1)
  %last = sub i64 %lsz, 1
  %mirror = sub i64 %last, %lid
  %from = getelementptr i64, ptr addrspace(3) @tile, i64 %mirror
  %v = load i64, ptr addrspace(3) %from
  %p = getelementptr i64, ptr addrspace(1) %out, i64 %gid
  store i64 %v, ptr addrspace(1) %p
  ret void
}

declare i64 @_Z13get_global_idj(i32)
declare i64 @_Z12get_local_idj(i32)
declare i64 @_Z14get_local_sizej(i32)
declare void @_Z7barrierj(i32)
"#
);

const N: usize = 1024;

/// The header's length, per the module's documentation.
const HEADER: usize = 88;

struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("k.ll"), KERNELS).unwrap();
        Fixture { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The cache folder most tests use.
    fn cache(&self) -> PathBuf {
        self.path("cache")
    }
}

/// simt-run with only the environment given here naming a cache.
fn simt_run(env: &[(&str, &dyn AsRef<OsStr>)], args: &[&str]) -> Command {
    let mut c = common::simt_run();
    for v in ["SIMT_CACHE_DIR", "SIMT_CACHE_MAX_SIZE", "XDG_CACHE_HOME"] {
        c.env_remove(v);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    c.args(args);
    c
}

/// A finished run: its stats, stderr and the dumped buffer it checks.
struct Run {
    stats: Value,
    stderr: String,
    out: Vec<u8>,
}

impl Run {
    fn cache(&self) -> &str {
        self.stats["engine_details"]["cache"].as_str().unwrap_or_else(|| panic!("no engine_details.cache: {}", self.stats))
    }
}

fn finish(out: Output, dump: &Path, arg: usize) -> Run {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "simt-run failed: {stderr}");
    let stats = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    Run { stats, stderr, out: std::fs::read(dump.join(format!("arg{arg}.bin"))).unwrap() }
}

fn vadd_args(f: &Fixture, dump: &str, local: &str, extra: &[&str]) -> Vec<String> {
    let n = N.to_string();
    let mut a: Vec<String> = vec![
        f.path("k.ll").display().to_string(),
        "--kernel".into(),
        "vadd".into(),
        "--global".into(),
        n.clone(),
        "--local".into(),
        local.into(),
        "--arg".into(),
        format!("buf:f32:{n}=ramp"),
        "--arg".into(),
        format!("buf:f32:{n}=const:2"),
        "--arg".into(),
        format!("buf:f32:{n}"),
        "--arg".into(),
        format!("i32:{n}"),
        "--stats".into(),
        "json".into(),
        "--dump".into(),
        f.path(dump).display().to_string(),
    ];
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

/// vadd with the cache in `f.cache()` (and `env`), checked: c[i] = i + 2.
fn vadd(f: &Fixture, dump: &str, local: &str, extra: &[&str]) -> Run {
    vadd_env(f, &[("SIMT_CACHE_DIR", &f.cache())], dump, local, extra)
}

fn vadd_env(f: &Fixture, env: &[(&str, &dyn AsRef<OsStr>)], dump: &str, local: &str, extra: &[&str]) -> Run {
    let args = vadd_args(f, dump, local, extra);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = finish(simt_run(env, &args).output().unwrap(), &f.path(dump), 2);
    check_vadd(&run.out, 2.0);
    run
}

/// c[i] = i + d, as f32.
fn check_vadd(out: &[u8], d: f32) {
    let c: Vec<f32> = out.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect();
    assert_eq!(c.len(), N);
    for (i, v) in c.iter().enumerate() {
        assert_eq!(*v, i as f32 + d, "c[{i}]");
    }
}

/// rev at `local`, checked: out[g] = group start + (local - 1 - local id).
fn rev(f: &Fixture, dump: &str, local: u64, extra: &[&str]) -> Run {
    let (n, l) = (N.to_string(), local.to_string());
    let out = f.path(dump).display().to_string();
    let module = f.path("k.ll").display().to_string();
    let mut args =
        vec![&module[..], "--kernel", "rev", "--global", &n, "--local", &l, "--arg", "buf:i64:1024", "--stats", "json", "--dump", &out];
    args.extend_from_slice(extra);
    let run = finish(simt_run(&[("SIMT_CACHE_DIR", &f.cache())], &args).output().unwrap(), &f.path(dump), 0);
    let got: Vec<u64> = run.out.chunks_exact(8).map(|b| u64::from_le_bytes(b.try_into().unwrap())).collect();
    let want: Vec<u64> = (0..N as u64).map(|g| g / local * local + (local - 1 - g % local)).collect();
    assert_eq!(got, want, "rev at local {local}");
    run
}

/// The cache's entries (`*.kobj`), sorted.
fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => rd.map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "kobj")).collect(),
        Err(_) => Vec::new(),
    };
    v.sort();
    v
}

/// Everything in the folder, entries or not.
fn all_files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// Checks an entry by the documented layout: magic, version 1, the file's
/// name is its key, length and BLAKE3 of an ELF object.
fn assert_valid_entry(path: &Path) {
    let e = std::fs::read(path).unwrap();
    assert!(e.len() > HEADER, "{}: {} bytes", path.display(), e.len());
    assert_eq!(&e[0..8], b"SIMTKOBJ");
    assert_eq!(u32::from_le_bytes(e[8..12].try_into().unwrap()), 1);
    let key: String = e[16..48].iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(path.file_stem().unwrap().to_string_lossy(), key);
    let len = u64::from_le_bytes(e[48..56].try_into().unwrap()) as usize;
    assert_eq!(len, e.len() - HEADER);
    assert_eq!(&e[56..88], blake3::hash(&e[HEADER..]).as_bytes());
    assert_eq!(&e[HEADER..HEADER + 4], b"\x7fELF");
}

/// The only entry of the cache.
fn the_entry(dir: &Path) -> PathBuf {
    let e = entries(dir);
    assert_eq!(e.len(), 1, "{e:?}");
    e[0].clone()
}

#[test]
fn a_second_launch_hits_and_computes_the_same() {
    let f = Fixture::new();
    let first = vadd(&f, "d1", "64", &[]);
    assert_eq!(first.cache(), "miss");
    assert_valid_entry(&the_entry(&f.cache()));
    let second = vadd(&f, "d2", "64", &[]);
    assert_eq!(second.cache(), "hit");
    assert_eq!(second.out, first.out);
    assert!(second.stderr.is_empty(), "{}", second.stderr);
    // --aot links the same object: it shares the entry.
    let aot = vadd(&f, "d3", "64", &["--aot"]);
    assert_eq!(aot.cache(), "hit");
    assert_eq!(aot.stats["engine_details"]["linked"], "ahead of time (system linker, dlopen)");
    assert_eq!(aot.out, first.out);
    assert_eq!(entries(&f.cache()).len(), 1);
}

#[test]
fn what_changes_the_code_misses() {
    let f = Fixture::new();
    let count = || entries(&f.cache()).len();
    assert_eq!(rev(&f, "r64", 64, &[]).cache(), "miss");
    assert_eq!(rev(&f, "r64b", 64, &[]).cache(), "hit");
    // Another local size: another specialisation (the check of the output
    // would fail with the other size's code).
    assert_eq!(rev(&f, "r32", 32, &[]).cache(), "miss");
    assert_eq!(count(), 2);
    // Options of the work-item loops: the stats read the form from the
    // object's own symbols, so a wrong hit would show the other form.
    let linear = rev(&f, "rl", 64, &["--linear"]);
    assert_eq!((linear.cache(), linear.stats["engine_details"]["form"].as_str()), ("miss", Some("linear")));
    let inter = rev(&f, "ri", 64, &["--interleave", "2"]);
    assert_eq!(inter.cache(), "miss");
    assert!(inter.stats["engine_details"]["interleaved"].as_str().unwrap().starts_with("on"), "{}", inter.stats);
    assert_eq!(count(), 4);
    // Another kernel of the same module.
    assert_eq!(vadd(&f, "v", "64", &[]).cache(), "miss");
    assert_eq!(count(), 5);
    // The module changed (an add became a subtraction): a miss, and the
    // new code runs.
    std::fs::write(f.path("k.ll"), KERNELS.replace("fadd float", "fsub float")).unwrap();
    let args = vadd_args(&f, "vsub", "64", &[]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let sub = finish(simt_run(&[("SIMT_CACHE_DIR", &f.cache())], &args).output().unwrap(), &f.path("vsub"), 2);
    assert_eq!(sub.cache(), "miss");
    check_vadd(&sub.out, -2.0);
    assert_eq!(count(), 6);
    for e in entries(&f.cache()) {
        assert_valid_entry(&e);
    }
}

#[test]
fn corrupt_and_truncated_entries_are_rebuilt() {
    let f = Fixture::new();
    let good = vadd(&f, "d0", "64", &[]).out;
    let entry = the_entry(&f.cache());
    let whole = std::fs::read(&entry).unwrap();
    let flip_payload = |e: &mut Vec<u8>| {
        let i = HEADER + (e.len() - HEADER) / 2;
        e[i] ^= 0x10;
    };
    type Damage<'a> = &'a dyn Fn(&mut Vec<u8>);
    let damages: [(&str, Damage); 5] = [
        ("a byte of the object flipped", &flip_payload),
        ("cut in the object", &|e: &mut Vec<u8>| e.truncate(HEADER + (e.len() - HEADER) / 2)),
        ("cut in the header", &|e: &mut Vec<u8>| e.truncate(HEADER / 2)),
        ("empty", &|e: &mut Vec<u8>| e.clear()),
        ("a byte of the header's length flipped", &|e: &mut Vec<u8>| e[50] ^= 1),
    ];
    for (i, (what, damage)) in damages.iter().enumerate() {
        let mut bad = whole.clone();
        damage(&mut bad);
        std::fs::write(&entry, &bad).unwrap();
        let run = vadd(&f, &format!("d{}", i + 1), "64", &[]);
        assert_eq!(run.cache(), "rebuilt", "{what}");
        assert_eq!(run.out, good, "{what}");
        assert!(run.stderr.contains("warning: kernel cache:") && run.stderr.contains("is invalid"), "{what}: {}", run.stderr);
        // Rebuilt whole, and the next launch hits it.
        assert_eq!(std::fs::read(&entry).unwrap(), whole, "{what}");
        assert_eq!(vadd(&f, "again", "64", &[]).cache(), "hit", "{what}");
    }
}

#[test]
fn runs_filling_one_entry_at_once_all_succeed() {
    let f = Fixture::new();
    let children: Vec<_> = (0..6)
        .map(|i| {
            let dump = format!("c{i}");
            let args = vadd_args(&f, &dump, "64", &[]);
            let child = simt_run(&[("SIMT_CACHE_DIR", &f.cache())], &args.iter().map(String::as_str).collect::<Vec<_>>())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            (dump, child)
        })
        .collect();
    let runs: Vec<Run> = children.into_iter().map(|(dump, c)| finish(c.wait_with_output().unwrap(), &f.path(&dump), 2)).collect();
    for r in &runs {
        check_vadd(&r.out, 2.0);
        assert!(["miss", "hit"].contains(&r.cache()), "{}", r.stats);
        assert!(r.stderr.is_empty(), "{}", r.stderr);
    }
    // One whole entry, no temporary file left behind.
    assert_valid_entry(&the_entry(&f.cache()));
    assert_eq!(all_files(&f.cache()).len(), 1, "{:?}", all_files(&f.cache()));
    assert_eq!(vadd(&f, "after", "64", &[]).cache(), "hit");
}

#[test]
fn no_cache_neither_reads_nor_writes() {
    let f = Fixture::new();
    let off = vadd(&f, "d0", "64", &["--no-cache"]);
    assert_eq!(off.cache(), "off");
    assert!(!f.cache().exists(), "--no-cache created the cache folder");
    // A damaged entry stays as it is: not read (it would be removed), not rewritten.
    vadd(&f, "d1", "64", &[]);
    let entry = the_entry(&f.cache());
    std::fs::write(&entry, b"damaged").unwrap();
    let off = vadd(&f, "d2", "64", &["--no-cache"]);
    assert_eq!(off.cache(), "off");
    assert!(off.stderr.is_empty(), "{}", off.stderr);
    assert_eq!(std::fs::read(&entry).unwrap(), b"damaged");
    // The launch file's key.
    let launch = f.path("v.launch");
    let args = "arg = buf:f32:1024=ramp\narg = buf:f32:1024=const:2\narg = buf:f32:1024\narg = i32:1024\n";
    std::fs::write(&launch, format!("module = k.ll\nkernel = vadd\nglobal = 1024\nlocal = 64\n{args}no-cache = true\n")).unwrap();
    let l = launch.display().to_string();
    let d = f.path("d3").display().to_string();
    let run = finish(
        simt_run(&[("SIMT_CACHE_DIR", &f.cache())], &["--launch", &l, "--stats", "json", "--dump", &d]).output().unwrap(),
        &f.path("d3"),
        2,
    );
    check_vadd(&run.out, 2.0);
    assert_eq!(run.cache(), "off");
    assert_eq!(std::fs::read(&entry).unwrap(), b"damaged");
}

#[test]
fn an_unwritable_cache_is_a_warning() {
    let f = Fixture::new();
    // Under a plain file no folder can be made, whoever runs the test.
    std::fs::write(f.path("file"), b"").unwrap();
    let nowhere = f.path("file").join("cache");
    let run = vadd_env(&f, &[("SIMT_CACHE_DIR", &nowhere)], "d0", "64", &[]);
    assert_eq!(run.cache(), "miss");
    assert!(run.stderr.contains("simt-run: warning: kernel cache: cannot write to"), "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "one warning: {}", run.stderr);
    // A read-only folder, where permissions bind (not for root).
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        use std::os::unix::fs::PermissionsExt;
        let ro = f.path("ro");
        std::fs::create_dir(&ro).unwrap();
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
        let run = vadd_env(&f, &[("SIMT_CACHE_DIR", &ro)], "d1", "64", &[]);
        assert_eq!(run.cache(), "miss");
        assert!(run.stderr.contains("cannot write to"), "{}", run.stderr);
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

#[test]
fn the_size_limit_evicts_the_least_recently_used() {
    let f = Fixture::new();
    std::fs::create_dir(f.cache()).unwrap();
    std::fs::write(f.cache().join("notes.txt"), vec![b'x'; 4 << 20]).unwrap();
    let size = |p: &Path| std::fs::metadata(p).unwrap().len();
    vadd(&f, "a", "16", &[]);
    let a = the_entry(&f.cache());
    std::thread::sleep(std::time::Duration::from_millis(20));
    vadd(&f, "b", "32", &[]);
    let b = entries(&f.cache()).into_iter().find(|e| *e != a).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    // a is older, but used last.
    assert_eq!(vadd(&f, "a2", "16", &[]).cache(), "hit");
    std::thread::sleep(std::time::Duration::from_millis(20));
    // Room for two of the three: b goes, whatever c's size (within a + c).
    let c_size = {
        let scratch = f.path("scratch");
        vadd_env(&f, &[("SIMT_CACHE_DIR", &scratch)], "s", "64", &[]);
        size(&the_entry(&scratch))
    };
    let limit = (size(&a) + c_size).to_string();
    let run = vadd_env(&f, &[("SIMT_CACHE_DIR", &f.cache()), ("SIMT_CACHE_MAX_SIZE", &limit)], "c", "64", &[]);
    assert_eq!(run.cache(), "miss");
    let left = entries(&f.cache());
    assert_eq!(left.len(), 2, "{left:?}");
    assert!(left.contains(&a) && !left.contains(&b), "{left:?}");
    // Files not named as entries are neither counted nor removed.
    assert_eq!(size(&f.cache().join("notes.txt")), 4 << 20);

    // 0 keeps nothing; a malformed limit is a usage error.
    let empty = f.path("empty");
    let run = vadd_env(&f, &[("SIMT_CACHE_DIR", &empty), ("SIMT_CACHE_MAX_SIZE", &"0")], "z", "64", &[]);
    assert_eq!(run.cache(), "miss");
    assert!(entries(&empty).is_empty());
    let args = vadd_args(&f, "bad", "64", &[]);
    let out =
        simt_run(&[("SIMT_CACHE_DIR", &empty), ("SIMT_CACHE_MAX_SIZE", &"lots")], &args.iter().map(String::as_str).collect::<Vec<_>>())
            .output()
            .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("SIMT_CACHE_MAX_SIZE 'lots'"), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn the_default_folder_follows_xdg_then_home() {
    let f = Fixture::new();
    let xdg = f.path("xdg");
    let home = f.path("home");
    let run = vadd_env(&f, &[("XDG_CACHE_HOME", &xdg), ("HOME", &home)], "d0", "64", &[]);
    assert_eq!(run.cache(), "miss");
    assert_valid_entry(&the_entry(&xdg.join("simt")));
    let run = vadd_env(&f, &[("HOME", &home)], "d1", "64", &[]);
    assert_eq!(run.cache(), "miss");
    assert_valid_entry(&the_entry(&home.join(".cache").join("simt")));
    // No folder named at all: no cache, quietly.
    let args = vadd_args(&f, "d3", "64", &[]);
    let out = simt_run(&[], &args.iter().map(String::as_str).collect::<Vec<_>>()).env_remove("HOME").output().unwrap();
    let run = finish(out, &f.path("d3"), 2);
    check_vadd(&run.out, 2.0);
    assert_eq!(run.cache(), "off");
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    // SIMT_CACHE_DIR wins over both.
    let own = f.path("own");
    let run = vadd_env(&f, &[("SIMT_CACHE_DIR", &own), ("XDG_CACHE_HOME", &xdg), ("HOME", &home)], "d2", "64", &[]);
    assert_eq!(run.cache(), "miss");
    assert_valid_entry(&the_entry(&own));
}
