//! The host engine's kernel cache: each compiled kernel object kept on disk,
//! so that a launch seen before skips simt's front end, `default<O3>` and
//! code generation (pocl keeps its kernels the same way). A hit still
//! links: the object goes to the JIT (or, with `--aot`, the system linker)
//! exactly as a freshly compiled one does.
//!
//! # Key
//!
//! BLAKE3 over, each field named and length-prefixed: the module as the host
//! engine receives it (its bitcode, before the front end), the kernel's
//! name, every [`HostOptions`] field that changes the object (`interleave`,
//! `local_size`, `linear`, `ids_fit_i32`; `aot` links the same object, so
//! it shares the entry), the host triple, CPU name and CPU features, and the code that
//! compiles: simt's version with the identity of the running executable,
//! LLVM's version with the identity of the libLLVM it runs (see below).
//!
//! Why the executable's identity and not a git commit: a build from a tree
//! with uncommitted changes carries the commit of code it does not run, and
//! a stale entry would be served to it; hashing the executable's bytes
//! (90 MB in a debug build) costs more per launch than a hit saves. Device,
//! inode, size, modification and change time of the file change with every
//! build cargo links (a new file), and the change time cannot be set back
//! by a user, so another binary never matches; the same binary copied
//! elsewhere misses once, which is only slower. libLLVM is identified the
//! same way (a distribution's patch release keeps LLVM's version number).
//!
//! # Entries
//!
//! `DIR/KEY.kobj` (KEY: the key's 64 hex digits), a header then the object:
//!
//! ```text
//!   0  magic            b"SIMTKOBJ"
//!   8  format version   u32, little-endian (FORMAT_VERSION)
//!  12  reserved         u32, 0
//!  16  key              32 bytes
//!  48  payload length   u64, little-endian
//!  56  payload BLAKE3   32 bytes
//!  88  payload          the relocatable object `host::compile_object` made
//! ```
//!
//! An entry whose magic, version, key, length or checksum is not as
//! expected (a truncated write, a flipped bit on disk) is removed and the
//! kernel compiled again (`"rebuilt"` in `--stats json`); it is never
//! loaded. A new entry is written to a temporary file in DIR, fsynced and
//! renamed into place, so a reader sees nothing or a whole entry, and runs
//! filling the same entry at once each rename a whole one (the same bytes).
//!
//! # Size
//!
//! After each store, while the entries' total size exceeds the limit
//! (`SIMT_CACHE_MAX_SIZE`, default 256 MiB; 0 keeps nothing), the least
//! recently used entry is removed (a hit sets its entry's modification
//! time). Only files named as entries are counted or removed, and temporary
//! files an interrupted writer left over an hour ago: a `SIMT_CACHE_DIR`
//! that names a folder of other files loses none of them.
//!
//! # Failures
//!
//! The cache never fails a launch: a folder that cannot be created, read or
//! written is a warning, and the kernel is compiled as without a cache.
//!
//! Limitations: the key covers what the host engine reads, not LLVM
//! `cl::opt`s set in the same process (simt-run sets none). Runs evicting at
//! once may each remove an entry, leaving the total further below the limit
//! than needed.

use crate::diag::ToolError;
use crate::engine::host::{self, HostOptions};
use inkwell::module::Module;
use inkwell::targets::TargetMachine;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

/// Moves the cache (default `$XDG_CACHE_HOME/simt`, else `~/.cache/simt`).
pub const DIR_ENV: &str = "SIMT_CACHE_DIR";
/// The size limit, a byte count as `--local-mem-limit` takes (`64M`, `1G`).
pub const MAX_SIZE_ENV: &str = "SIMT_CACHE_MAX_SIZE";
pub const DEFAULT_MAX_BYTES: u64 = 256 << 20;

const MAGIC: &[u8; 8] = b"SIMTKOBJ";
/// Raised when the entry layout changes (it is part of the key too).
pub const FORMAT_VERSION: u32 = 1;
pub const HEADER_LEN: usize = 88;
/// Entries are `KEY.kobj`.
pub const EXTENSION: &str = "kobj";
const TEMP_PREFIX: &str = ".tmp-";
/// A temporary file this old belongs to a writer that died.
const STALE_TEMP: Duration = Duration::from_secs(3600);

/// What the cache did for a launch (`engine_details.cache`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Not used (`--no-cache`, or nowhere to keep it).
    Off,
    /// The object came from the cache.
    Hit,
    /// No entry: compiled (and stored, unless a warning says otherwise).
    Miss,
    /// An invalid entry was removed; compiled and stored again.
    Rebuilt,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Off => "off",
            Outcome::Hit => "hit",
            Outcome::Miss => "miss",
            Outcome::Rebuilt => "rebuilt",
        }
    }
}

/// The outcome, and what went wrong on the way (for `warning:` lines).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub outcome: Outcome,
    pub warnings: Vec<String>,
}

impl Report {
    pub fn off() -> Report {
        Report { outcome: Outcome::Off, warnings: Vec::new() }
    }
}

/// A cache folder and its size limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelCache {
    dir: PathBuf,
    max_bytes: u64,
}

/// An entry's key: BLAKE3 of what changes the object (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key(pub [u8; 32]);

impl KernelCache {
    pub fn new(dir: PathBuf, max_bytes: u64) -> KernelCache {
        KernelCache { dir, max_bytes }
    }

    /// The cache the environment names: `SIMT_CACHE_DIR`, else
    /// `$XDG_CACHE_HOME/simt`, else `$HOME/.cache/simt` (`None` when none
    /// is set), limited to `SIMT_CACHE_MAX_SIZE`, a malformed value of
    /// which is a usage error.
    pub fn from_env() -> Result<Option<KernelCache>, ToolError> {
        let max_bytes = match std::env::var(MAX_SIZE_ENV) {
            Err(std::env::VarError::NotPresent) => DEFAULT_MAX_BYTES,
            Ok(t) if t.trim().is_empty() => DEFAULT_MAX_BYTES,
            Ok(t) => crate::launch::parse_bytes(&t).map_err(|e| ToolError::Usage(format!("error: {MAX_SIZE_ENV} '{t}': {e}")))?,
            Err(e) => return Err(ToolError::Usage(format!("error: {MAX_SIZE_ENV}: {e}"))),
        };
        let var = |name| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        // XDG: a relative XDG_CACHE_HOME is to be ignored.
        let dir = var(DIR_ENV)
            .or_else(|| var("XDG_CACHE_HOME").filter(|p| p.is_absolute()).map(|p| p.join("simt")))
            .or_else(|| var("HOME").map(|h| h.join(".cache").join("simt")));
        Ok(dir.map(|dir| KernelCache { dir, max_bytes }))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the entry of `key` lives.
    pub fn entry_path(&self, key: &Key) -> PathBuf {
        self.dir.join(format!("{}.{EXTENSION}", key.hex()))
    }

    /// The object of `kernel` in `module` for `opts`: the cached one, or
    /// `build`'s (given the module, which it may change), then stored.
    pub fn object<'ctx>(
        &self,
        module: &mut Module<'ctx>,
        kernel: &str,
        opts: &HostOptions,
        build: impl FnOnce(&mut Module<'ctx>) -> Result<Vec<u8>, ToolError>,
    ) -> Result<(Vec<u8>, Report), ToolError> {
        let mut warnings = Vec::new();
        let key = match Key::new(module, kernel, opts) {
            Ok(k) => k,
            Err(why) => {
                warnings.push(format!("kernel cache off: {why}"));
                return Ok((build(module)?, Report { outcome: Outcome::Off, warnings }));
            }
        };
        let path = self.entry_path(&key);
        let outcome = match read_entry(&path, &key) {
            Lookup::Found(payload) => return Ok((payload, Report { outcome: Outcome::Hit, warnings })),
            Lookup::Absent => Outcome::Miss,
            Lookup::Unreadable(e) => {
                warnings.push(format!("kernel cache: cannot read {}: {e}", path.display()));
                Outcome::Miss
            }
            Lookup::Invalid(why) => {
                let removed = match std::fs::remove_file(&path) {
                    Ok(()) => "removed".to_string(),
                    Err(e) => format!("not removed ({e})"),
                };
                warnings.push(format!("kernel cache: {} is invalid ({why}); {removed}, compiling again", path.display()));
                Outcome::Rebuilt
            }
        };
        let object = build(module)?;
        match self.store(&key, &object) {
            Ok(true) => {
                if let Err(e) = self.evict() {
                    warnings.push(format!("kernel cache: cannot keep {} within {} bytes: {e}", self.dir.display(), self.max_bytes));
                }
            }
            Ok(false) => {}
            Err(e) => warnings.push(format!("kernel cache: cannot write to {}: {e}", self.dir.display())),
        }
        Ok((object, Report { outcome, warnings }))
    }

    /// Writes the entry whole or not at all (temporary file, fsync,
    /// rename); `false` when it alone is over the limit.
    fn store(&self, key: &Key, payload: &[u8]) -> std::io::Result<bool> {
        if (HEADER_LEN + payload.len()) as u64 > self.max_bytes {
            return Ok(false);
        }
        std::fs::create_dir_all(&self.dir)?;
        let mut tmp = tempfile::Builder::new().prefix(TEMP_PREFIX).tempfile_in(&self.dir)?;
        tmp.write_all(&header(key, payload))?;
        tmp.write_all(payload)?;
        tmp.as_file().sync_all()?;
        tmp.persist(self.entry_path(key)).map_err(|e| e.error)?;
        Ok(true)
    }

    /// Removes least recently used entries until the rest fit the limit,
    /// and temporary files of writers long gone.
    fn evict(&self) -> std::io::Result<()> {
        let now = SystemTime::now();
        let mut entries = Vec::new();
        let mut total = 0u64;
        for e in std::fs::read_dir(&self.dir)? {
            let e = e?;
            let Ok(meta) = e.metadata() else { continue };
            let name = e.file_name();
            let name = name.to_string_lossy();
            if !meta.is_file() {
                continue;
            }
            let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            if is_entry_name(&name) {
                total += meta.len();
                entries.push((modified, meta.len(), e.path()));
            } else if name.starts_with(TEMP_PREFIX) && now.duration_since(modified).is_ok_and(|age| age > STALE_TEMP) {
                let _ = std::fs::remove_file(e.path());
            }
        }
        entries.sort_by_key(|(modified, _, _)| *modified);
        for (_, len, path) in entries {
            if total <= self.max_bytes {
                break;
            }
            match std::fs::remove_file(&path) {
                Ok(()) => total -= len,
                // Another run removed it first.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => total -= len,
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

/// `KEY.kobj`, KEY 64 lowercase hex digits.
fn is_entry_name(name: &str) -> bool {
    name.strip_suffix(&format!(".{EXTENSION}"))
        .is_some_and(|k| k.len() == 64 && k.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
}

enum Lookup {
    Found(Vec<u8>),
    Absent,
    Unreadable(std::io::Error),
    Invalid(String),
}

/// Reads and checks the entry at `path`; a hit marks it as just used.
fn read_entry(path: &Path, key: &Key) -> Lookup {
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        // No folder (or a file where it should be): nothing cached; the
        // store that follows says why it cannot write either.
        Err(e) if matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory) => return Lookup::Absent,
        Err(e) => return Lookup::Unreadable(e),
    };
    let mut bytes = Vec::new();
    if let Err(e) = file.read_to_end(&mut bytes) {
        return Lookup::Unreadable(e);
    }
    match payload(&bytes, key) {
        Ok(p) => {
            // Least recently used goes first; a read-only cache stays as it is.
            let _ = file.set_modified(SystemTime::now());
            Lookup::Found(p.to_vec())
        }
        Err(why) => Lookup::Invalid(why),
    }
}

/// The header of `payload`'s entry under `key`.
pub fn header(key: &Key, payload: &[u8]) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[0..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    h[16..48].copy_from_slice(&key.0);
    h[48..56].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    h[56..88].copy_from_slice(blake3::hash(payload).as_bytes());
    h
}

/// The payload of an entry, if it is a whole, intact entry for `key`;
/// otherwise what is wrong with it.
pub fn payload<'a>(entry: &'a [u8], key: &Key) -> Result<&'a [u8], String> {
    if entry.len() < HEADER_LEN {
        return Err(format!("truncated: {} bytes, shorter than the {HEADER_LEN}-byte header", entry.len()));
    }
    let (h, payload) = entry.split_at(HEADER_LEN);
    if &h[0..8] != MAGIC {
        return Err("not a simt kernel cache entry (wrong magic)".into());
    }
    let version = u32::from_le_bytes(h[8..12].try_into().expect("4 bytes"));
    if version != FORMAT_VERSION {
        return Err(format!("format version {version}, this simt reads {FORMAT_VERSION}"));
    }
    if h[12..16] != [0; 4] {
        return Err("reserved header bytes are not zero".into());
    }
    if h[16..48] != key.0 {
        return Err("it holds another key".into());
    }
    let len = u64::from_le_bytes(h[48..56].try_into().expect("8 bytes"));
    if len != payload.len() as u64 {
        return Err(format!("truncated or overlong: the header says {len} bytes of object, the file holds {}", payload.len()));
    }
    if h[56..88] != *blake3::hash(payload).as_bytes() {
        return Err("checksum mismatch: the object is corrupt".into());
    }
    Ok(payload)
}

impl Key {
    /// The key of `kernel` of `module` compiled with `opts` on this host by
    /// this build; an error when the build cannot be identified.
    pub fn new(module: &Module<'_>, kernel: &str, opts: &HostOptions) -> Result<Key, String> {
        // Every field is named, so that a new option does not compile until
        // it is put in the key or said not to change the object.
        let HostOptions { interleave, aot: _, local_size, linear, ids_fit_i32 } = opts;
        let build = build_identity().as_ref().map_err(Clone::clone)?;
        let mut h = blake3::Hasher::new();
        let mut field = |name: &str, bytes: &[u8]| {
            h.update(name.as_bytes());
            h.update(&(bytes.len() as u64).to_le_bytes());
            h.update(bytes);
        };
        field("format", &FORMAT_VERSION.to_le_bytes());
        field("build", build);
        field("triple", host::host_triple().as_bytes());
        field("cpu", TargetMachine::get_host_cpu_name().to_bytes());
        field("features", TargetMachine::get_host_cpu_features().to_bytes());
        field("kernel", kernel.as_bytes());
        field("interleave", &interleave.to_le_bytes());
        field("local_size", format!("{local_size:?}").as_bytes());
        field("linear", &[*linear as u8]);
        field("ids_fit_i32", &[*ids_fit_i32 as u8]);
        field("module", module.write_bitcode_to_memory().as_slice());
        Ok(Key(*h.finalize().as_bytes()))
    }

    pub fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// simt's and LLVM's versions and the files they run from, once per process.
fn build_identity() -> &'static Result<Vec<u8>, String> {
    static ID: OnceLock<Result<Vec<u8>, String>> = OnceLock::new();
    ID.get_or_init(|| {
        let mut id = crate::version().as_bytes().to_vec();
        let exe = std::env::current_exe().map_err(|e| format!("cannot find the running executable: {e}"))?;
        id.extend(file_identity(&exe)?);
        id.extend(file_identity(&llvm_library()?)?);
        Ok(id)
    })
}

/// Path, device, inode, size, modification and change times of `path`.
fn file_identity(path: &Path) -> Result<Vec<u8>, String> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).map_err(|e| format!("cannot identify {}: {e}", path.display()))?;
    let mut id = path.as_os_str().as_encoded_bytes().to_vec();
    for n in [m.dev(), m.ino(), m.size(), m.mtime() as u64, m.mtime_nsec() as u64, m.ctime() as u64, m.ctime_nsec() as u64] {
        id.extend(n.to_le_bytes());
    }
    Ok(id)
}

/// The file LLVM's code is loaded from (libLLVM, or the executable when
/// LLVM is linked statically).
fn llvm_library() -> Result<PathBuf, String> {
    let symbol = simt_passes::ir::llvm_code_address();
    // SAFETY: `info` is plain data dladdr fills in; `symbol` is a function of
    // this process. dli_fname, when set, is a NUL-terminated path that lives
    // as long as the object is loaded (libLLVM is never unloaded).
    unsafe {
        let mut info: libc::Dl_info = std::mem::zeroed();
        if libc::dladdr(symbol, &mut info) == 0 || info.dli_fname.is_null() {
            return Err("cannot find the file LLVM is loaded from".into());
        }
        let name = std::ffi::CStr::from_ptr(info.dli_fname);
        Ok(PathBuf::from(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(name.to_bytes())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(b: u8) -> Key {
        Key([b; 32])
    }

    fn entry(key: &Key, payload: &[u8]) -> Vec<u8> {
        let mut e = header(key, payload).to_vec();
        e.extend_from_slice(payload);
        e
    }

    #[test]
    fn an_entry_reads_back_and_every_damage_is_caught() {
        let object = b"\x7fELF and some code".to_vec();
        let e = entry(&key(1), &object);
        assert_eq!(payload(&e, &key(1)), Ok(&object[..]));
        assert!(payload(&e, &key(2)).unwrap_err().contains("another key"));
        // Every truncation, and every single flipped bit.
        for len in 0..e.len() {
            assert!(payload(&e[..len], &key(1)).is_err(), "truncated to {len}");
        }
        for i in 0..e.len() {
            for bit in 0..8 {
                let mut bad = e.clone();
                bad[i] ^= 1 << bit;
                assert!(payload(&bad, &key(1)).is_err(), "byte {i} bit {bit}");
            }
        }
        let mut long = e.clone();
        long.push(0);
        assert!(payload(&long, &key(1)).unwrap_err().contains("overlong"));
        assert!(payload(&e[..40], &key(1)).unwrap_err().contains("shorter than the 88-byte header"));
    }

    /// A reader racing a writer that keeps replacing the entry sees the
    /// old entry or the new one, whole, never part of one.
    #[test]
    fn readers_never_see_a_partial_entry() {
        let dir = tempfile::tempdir().unwrap();
        let cache = KernelCache::new(dir.path().to_path_buf(), u64::MAX);
        let (a, b) = (vec![1u8; 4 << 20], vec![2u8; 4 << 20]);
        cache.store(&key(7), &a).unwrap();
        let path = cache.entry_path(&key(7));
        let done = std::sync::atomic::AtomicBool::new(false);
        let reads = std::thread::scope(|s| {
            s.spawn(|| {
                for i in 0..16 {
                    cache.store(&key(7), if i % 2 == 0 { &b } else { &a }).unwrap();
                }
                done.store(true, std::sync::atomic::Ordering::Release);
            });
            let mut reads = 0;
            while !done.load(std::sync::atomic::Ordering::Acquire) {
                match read_entry(&path, &key(7)) {
                    Lookup::Found(p) => assert!(p == a || p == b),
                    Lookup::Invalid(why) => panic!("read {reads}: a partial entry: {why}"),
                    Lookup::Absent | Lookup::Unreadable(_) => panic!("read {reads}: the entry vanished"),
                }
                reads += 1;
            }
            reads
        });
        assert!(reads > 0);
    }

    #[test]
    fn only_entry_names_are_entries() {
        let k = key(0xab).hex();
        assert!(is_entry_name(&format!("{k}.kobj")));
        assert!(!is_entry_name(&format!("{k}.o")));
        assert!(!is_entry_name(&format!("{}.kobj", k.to_uppercase())));
        assert!(!is_entry_name(&format!("{}.kobj", &k[1..])));
        assert!(!is_entry_name("notes.txt"));
    }

    #[test]
    fn eviction_keeps_the_most_recently_used_and_foreign_files() {
        let dir = tempfile::tempdir().unwrap();
        let one_entry = (HEADER_LEN + 100) as u64;
        let cache = KernelCache::new(dir.path().to_path_buf(), 2 * one_entry);
        std::fs::write(dir.path().join("mine.txt"), vec![0u8; 10_000]).unwrap();
        let t0 = SystemTime::now() - Duration::from_secs(100);
        for b in 1..=3u8 {
            assert!(cache.store(&key(b), &[b; 100]).unwrap());
            let f = std::fs::File::options().write(true).open(cache.entry_path(&key(b))).unwrap();
            f.set_modified(t0 + Duration::from_secs(b as u64)).unwrap();
        }
        // key(1) is the oldest but was just read: key(2) goes.
        assert!(matches!(read_entry(&cache.entry_path(&key(1)), &key(1)), Lookup::Found(_)));
        cache.evict().unwrap();
        let exists = |b: u8| cache.entry_path(&key(b)).exists();
        assert_eq!((exists(1), exists(2), exists(3)), (true, false, true));
        assert!(dir.path().join("mine.txt").exists());
        // An entry larger than the limit is not written at all.
        let small = KernelCache::new(dir.path().to_path_buf(), one_entry - 1);
        assert!(!small.store(&key(4), &[4; 100]).unwrap());
        assert!(!exists(4));
    }
}
