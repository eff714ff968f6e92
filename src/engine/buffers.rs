//! Argument storage for a launch: buffers (64-byte aligned, filled once),
//! scalars, and the layout of `__local` pointer arguments; writing buffers
//! out (`--dump`) and checking them against reference files (`--compare`).
//!
//! Files are raw little-endian elements, `DIR/argN.bin` with N the kernel
//! parameter index from 0.

use crate::diag::ToolError;
use crate::engine::guard::{Guarded, BUFFER_ALIGN};
use crate::launch::{format_element, ArgSpec, Fill, Scalar, ScalarType};
use std::path::{Path, PathBuf};

/// Alignment of local memory and scratch (the ABI promises 64).
pub const ALIGN: usize = 64;

/// A zero-initialised block of bytes in its own guarded reservation
/// ([`crate::engine::guard`]): its end touches an inaccessible guard region, so a
/// kernel running off it faults and the fault is reported as an error
/// naming the block, instead of corrupting the process.
pub struct AlignedBytes {
    mem: Guarded,
}

impl AlignedBytes {
    /// `len` zeroed, `ALIGN`-aligned bytes; `None` if the mapping fails.
    pub fn zeroed(len: usize) -> Option<AlignedBytes> {
        AlignedBytes::zeroed_aligned(len, ALIGN)
    }

    /// `len` zeroed bytes at an `align`-aligned address (a power of two up
    /// to a page), ending `len.next_multiple_of(align) - len` bytes before
    /// the trailing guard. A zero-length block points at the guard: valid,
    /// but any access faults.
    pub fn zeroed_aligned(len: usize, align: usize) -> Option<AlignedBytes> {
        Some(AlignedBytes { mem: Guarded::new(len, align)? })
    }

    pub fn len(&self) -> usize {
        self.mem.len()
    }

    pub fn is_empty(&self) -> bool {
        self.mem.is_empty()
    }

    pub fn as_ptr(&self) -> *mut u8 {
        self.mem.as_ptr()
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `mem` owns `len` mapped, initialised (zeroed at first)
        // bytes at a non-null pointer (a zero-length block's points at the
        // guard, never read); the borrow of `self` keeps them mapped, and
        // writes go through `&mut self` or raw pointers whose users must
        // not overlap this borrow.
        unsafe { std::slice::from_raw_parts(self.as_ptr(), self.len()) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as in `as_slice`, and `&mut self` makes this the only
        // reference to the bytes while it lives.
        unsafe { std::slice::from_raw_parts_mut(self.as_ptr(), self.len()) }
    }

    /// What a fault in the guards says: see [`Guarded::set_label`].
    pub fn set_label(&mut self, kernel: &str, what: &str) {
        self.mem.set_label(kernel, what);
    }
}

impl std::fmt::Debug for AlignedBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AlignedBytes({} bytes at {:p})", self.len(), self.as_ptr())
    }
}

/// A global buffer argument.
#[derive(Debug)]
pub struct Buffer {
    pub ty: ScalarType,
    pub count: u64,
    data: AlignedBytes,
}

impl Buffer {
    /// A zeroed buffer of `count` elements, placed [`BUFFER_ALIGN`]-aligned
    /// against its trailing guard.
    pub fn zeroed(ty: ScalarType, count: u64) -> Option<Buffer> {
        let bytes = usize::try_from(count.checked_mul(ty.size() as u64)?).ok()?;
        Some(Buffer { ty, count, data: AlignedBytes::zeroed_aligned(bytes, BUFFER_ALIGN)? })
    }

    /// Names the buffer in fault messages: `kernel 'K'`, and parameter
    /// `param` with its size, as the emulator words it.
    pub fn set_label(&mut self, kernel: &str, param: usize) {
        let what = format!("argument {param} ({} bytes, buf:{}:{})", self.data.len(), self.ty, self.count);
        let kernel = if kernel.is_empty() { String::new() } else { format!("kernel '{kernel}'") };
        self.data.set_label(&kernel, &what);
    }

    pub fn bytes(&self) -> &[u8] {
        self.data.as_slice()
    }

    pub fn bytes_mut(&mut self) -> &mut [u8] {
        self.data.as_mut_slice()
    }

    /// The buffer's address, as the kernel sees it.
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.data.as_ptr()
    }
}

/// One argument's storage.
#[derive(Debug)]
pub enum ArgValue {
    Buffer(Buffer),
    Scalar(Scalar),
    /// Placed in each work-group's local memory by [`LocalLayout`].
    Local {
        ty: ScalarType,
        count: u64,
    },
    /// A struct passed by value: its bytes, which the kernel reads through a
    /// pointer (the `byval` parameter; `crate::frontend` gives each
    /// work-item a private copy). Neither dumped nor compared.
    Struct(Buffer),
}

/// The bytes of a launch's buffer arguments at one moment (parameter index,
/// bytes), from [`KernelArgs::snapshot`].
#[derive(Debug)]
pub struct BufferSnapshot(pub Vec<(usize, Vec<u8>)>);

/// The arguments of a launch, in parameter order.
#[derive(Debug)]
pub struct KernelArgs {
    pub values: Vec<ArgValue>,
}

impl KernelArgs {
    /// Allocates and fills the buffers. Errors: an allocation that fails, a
    /// `file:` fill that cannot be read or has the wrong size.
    pub fn new(specs: &[ArgSpec]) -> Result<KernelArgs, ToolError> {
        let mut values = Vec::with_capacity(specs.len());
        for (i, spec) in specs.iter().enumerate() {
            values.push(match spec {
                ArgSpec::Buffer { ty, count, fill } => {
                    let mut b = Buffer::zeroed(*ty, *count)
                        .ok_or_else(|| ToolError::Run(format!("cannot allocate {} bytes for argument {i} ({spec})", spec.bytes())))?;
                    b.set_label("", i);
                    fill_buffer(*ty, fill, b.bytes_mut()).map_err(|e| match e {
                        ToolError::Io { path, message } => ToolError::Io { path, message: format!("argument {i} ({spec}): {message}") },
                        other => other,
                    })?;
                    ArgValue::Buffer(b)
                }
                ArgSpec::Scalar(s) => ArgValue::Scalar(*s),
                ArgSpec::Local { ty, count } => ArgValue::Local { ty: *ty, count: *count },
                ArgSpec::Struct(fields) => {
                    let bytes = crate::launch::struct_bytes(fields);
                    let mut b = Buffer::zeroed(ScalarType::U8, bytes.len() as u64)
                        .ok_or_else(|| ToolError::Run(format!("cannot allocate {} bytes for argument {i} ({spec})", bytes.len())))?;
                    b.set_label("", i);
                    b.bytes_mut().copy_from_slice(&bytes);
                    ArgValue::Struct(b)
                }
            });
        }
        Ok(KernelArgs { values })
    }

    /// A copy of every buffer argument's bytes, for `--refill`.
    pub fn snapshot(&self) -> BufferSnapshot {
        BufferSnapshot(self.buffers().map(|(i, b)| (i, b.bytes().to_vec())).collect())
    }

    /// Writes a snapshot of these arguments back into their buffers.
    pub fn restore(&mut self, snapshot: &BufferSnapshot) {
        for (i, bytes) in &snapshot.0 {
            if let Some(ArgValue::Buffer(b)) = self.values.get_mut(*i) {
                b.bytes_mut().copy_from_slice(bytes);
            }
        }
    }

    /// Parameter indices and buffers of the buffer arguments.
    pub fn buffers(&self) -> impl Iterator<Item = (usize, &Buffer)> {
        self.values.iter().enumerate().filter_map(|(i, v)| match v {
            ArgValue::Buffer(b) => Some((i, b)),
            _ => None,
        })
    }

    /// Writes every buffer argument to `dir/argN.bin`, creating `dir`.
    /// Returns the files written.
    pub fn dump(&self, dir: &Path) -> Result<Vec<PathBuf>, ToolError> {
        std::fs::create_dir_all(dir)
            .map_err(|e| ToolError::Io { path: dir.display().to_string(), message: format!("cannot create dump folder: {e}") })?;
        let mut written = Vec::new();
        for (i, b) in self.buffers() {
            let path = arg_file(dir, i);
            crate::output::write_atomically(&path, b.bytes())?;
            written.push(path);
        }
        Ok(written)
    }

    /// Compares every buffer argument with `dir/argN.bin` where that file
    /// exists: integers exactly, floats within `tolerance_ulps`. An error if
    /// `dir` cannot be read or holds no file for any buffer argument.
    pub fn compare(&self, dir: &Path, tolerance_ulps: u64) -> Result<CompareReport, ToolError> {
        Ok(self.compare_with(&self.read_references(dir)?, tolerance_ulps))
    }

    /// Reads `dir/argN.bin` for every buffer argument where that file exists,
    /// so that the comparison does not depend on what happens to `dir` later
    /// (a `--dump` into it, a symbolic link the dump follows). An error if
    /// `dir` is not a folder, a file cannot be read, or no file is there.
    pub fn read_references(&self, dir: &Path) -> Result<References, ToolError> {
        if !dir.is_dir() {
            return Err(ToolError::Io { path: dir.display().to_string(), message: "compare folder does not exist".into() });
        }
        let mut files = Vec::new();
        for (i, _) in self.buffers() {
            let path = arg_file(dir, i);
            if !path.exists() {
                continue;
            }
            let bytes = std::fs::read(&path).map_err(|e| ToolError::Io { path: path.display().to_string(), message: e.to_string() })?;
            files.push((i, path, bytes));
        }
        if files.is_empty() {
            let n = self.buffers().count();
            return Err(ToolError::Io {
                path: dir.display().to_string(),
                message: if n == 0 {
                    "nothing to compare: the kernel has no buffer arguments".into()
                } else {
                    format!("nothing to compare: no argN.bin for any of the {n} buffer argument(s)")
                },
            });
        }
        Ok(References { files })
    }

    /// The reference files whose size does not fit their argument: known
    /// before the kernel runs (buffers never change size).
    pub fn check_reference_sizes(&self, refs: &References) -> CompareReport {
        self.compare_inner(refs, 0, true)
    }

    /// Compares every buffer argument with its reference file, if read:
    /// integers exactly, floats within `tolerance_ulps`.
    pub fn compare_with(&self, refs: &References, tolerance_ulps: u64) -> CompareReport {
        self.compare_inner(refs, tolerance_ulps, false)
    }

    fn compare_inner(&self, refs: &References, tolerance_ulps: u64, sizes_only: bool) -> CompareReport {
        let mut report = CompareReport { tolerance_ulps, max_ulps: 0, compared: Vec::new(), mismatches: Vec::new() };
        for (i, b) in self.buffers() {
            let Some((_, path, expected)) = refs.files.iter().find(|f| f.0 == i) else {
                continue;
            };
            let path = path.clone();
            report.compared.push((i, path.clone()));
            if expected.len() != b.bytes().len() {
                report.mismatches.push(BufferMismatch {
                    param: i,
                    path,
                    ty: b.ty,
                    count: b.count,
                    wrong: 0,
                    size_problem: Some(format!(
                        "holds {} bytes, but argument {i} has {} {} elements ({} bytes)",
                        expected.len(),
                        b.count,
                        b.ty,
                        b.bytes().len()
                    )),
                    first: Vec::new(),
                });
                continue;
            }
            if sizes_only {
                continue;
            }
            let (wrong, first) = compare_elements(b.ty, b.bytes(), expected, tolerance_ulps, MAX_REPORTED);
            report.max_ulps = report.max_ulps.max(max_ulps(b.ty, b.bytes(), expected));
            if wrong > 0 {
                report.mismatches.push(BufferMismatch { param: i, path, ty: b.ty, count: b.count, wrong, size_problem: None, first });
            }
        }
        report
    }
}

/// The reference files of a `--compare` folder, in memory: (parameter index,
/// path, contents) for each buffer argument that has one.
#[derive(Clone, Debug)]
pub struct References {
    files: Vec<(usize, PathBuf, Vec<u8>)>,
}

/// Whether `a` and `b` name the same folder, however spelt (`out` and
/// `./out/`, a symbolic link, `x/../out`): the same device and inode where
/// both exist, else the same path once the longest existing prefix is
/// resolved (symbolic links followed) and the rest normalised.
pub fn same_folder(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => resolved(a) == resolved(b),
    }
}

/// `p` made absolute: its longest existing prefix canonicalised, the
/// components after it normalised lexically (`.` dropped, `..` pops).
fn resolved(p: &Path) -> PathBuf {
    use std::path::Component;
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut base = abs.as_path();
    let mut rest = Vec::new();
    let mut out = loop {
        if let Ok(c) = base.canonicalize() {
            break c;
        }
        match (base.parent(), base.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(Component::Normal(name));
                base = parent;
            }
            // `..` or `.` last, or the root: resolve lexically from here.
            _ => match base.parent() {
                Some(parent) => {
                    rest.push(base.components().next_back().expect("a last component"));
                    base = parent;
                }
                None => break base.to_path_buf(),
            },
        }
    };
    for c in rest.into_iter().rev() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// `dir/argN.bin`.
pub fn arg_file(dir: &Path, param: usize) -> PathBuf {
    dir.join(format!("arg{param}.bin"))
}

/// Mismatching elements listed per buffer.
pub const MAX_REPORTED: usize = 10;

/// One element that differs.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub index: u64,
    pub got: String,
    pub expected: String,
    /// Floats: the distance in ULPs (`None` when one side is NaN).
    pub ulps: Option<u64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct BufferMismatch {
    pub param: usize,
    pub path: PathBuf,
    pub ty: ScalarType,
    pub count: u64,
    /// Elements that differ.
    pub wrong: u64,
    /// The reference file has the wrong size (nothing was compared).
    pub size_problem: Option<String>,
    /// The first few of them.
    pub first: Vec<Mismatch>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CompareReport {
    pub tolerance_ulps: u64,
    /// The largest distance in ULPs between two float elements of the
    /// buffers compared (0 when equal or not float; NaNs not counted).
    pub max_ulps: u64,
    /// (parameter index, reference file) of each buffer compared.
    pub compared: Vec<(usize, PathBuf)>,
    pub mismatches: Vec<BufferMismatch>,
}

/// Float differences of at most this many ULPs read as rounding (a fused
/// multiply-add, another order of a sum), not as a race or a wrong result.
pub const ROUNDING_ULPS: u64 = 4;

impl CompareReport {
    pub fn ok(&self) -> bool {
        self.mismatches.is_empty()
    }

    /// Whether every difference is a float within [`ROUNDING_ULPS`] of its
    /// reference (no NaN among those listed, no size problem): the
    /// differences rounding makes, which a race seldom does.
    pub fn only_rounding(&self) -> bool {
        !self.ok()
            && self.max_ulps <= ROUNDING_ULPS
            && self.mismatches.iter().all(|m| m.ty.is_float() && m.size_problem.is_none() && m.first.iter().all(|e| e.ulps.is_some()))
    }

    /// The report's text, one line per buffer and per listed element.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for m in &self.mismatches {
            if let Some(p) = &m.size_problem {
                out.push_str(&format!("argument {}: {}: {p}\n", m.param, m.path.display()));
                continue;
            }
            out.push_str(&format!(
                "argument {} differs from {} in {} of {} {} elements (tolerance {} ULPs):\n",
                m.param,
                m.path.display(),
                m.wrong,
                m.count,
                m.ty,
                self.tolerance_ulps
            ));
            for e in &m.first {
                let ulps = match e.ulps {
                    Some(u) => format!(" ({u} ULPs)"),
                    None if m.ty.is_float() => " (NaN)".to_string(),
                    None => String::new(),
                };
                out.push_str(&format!("  [{}] got {}, expected {}{ulps}\n", e.index, e.got, e.expected));
            }
            if m.wrong > m.first.len() as u64 {
                out.push_str(&format!("  … and {} more\n", m.wrong - m.first.len() as u64));
            }
        }
        out
    }
}

/// Distance in ULPs between two f32s (0 and -0 are 0 apart); `None` if
/// either is NaN.
pub fn ulps_f32(a: f32, b: f32) -> Option<u64> {
    if a.is_nan() || b.is_nan() {
        return None;
    }
    let key = |x: f32| {
        let i = x.to_bits() as i32;
        (if i < 0 { i32::MIN.wrapping_sub(i) } else { i }) as i64
    };
    Some((key(a) - key(b)).unsigned_abs())
}

/// Distance in ULPs between two f64s; `None` if either is NaN.
pub fn ulps_f64(a: f64, b: f64) -> Option<u64> {
    if a.is_nan() || b.is_nan() {
        return None;
    }
    let key = |x: f64| {
        let i = x.to_bits() as i64;
        (if i < 0 { i64::MIN.wrapping_sub(i) } else { i }) as i128
    };
    Some(u64::try_from((key(a) - key(b)).unsigned_abs()).unwrap_or(u64::MAX))
}

/// The largest distance in ULPs between two arrays of little-endian float
/// elements of equal length (0 for other types; pairs with a NaN skipped).
pub fn max_ulps(ty: ScalarType, got: &[u8], expected: &[u8]) -> u64 {
    let pairs = got.chunks_exact(ty.size()).zip(expected.chunks_exact(ty.size()));
    match ty {
        ScalarType::F32 => {
            pairs.filter_map(|(g, e)| ulps_f32(f32::from_le_bytes(g.try_into().unwrap()), f32::from_le_bytes(e.try_into().unwrap()))).max()
        }
        ScalarType::F64 => {
            pairs.filter_map(|(g, e)| ulps_f64(f64::from_le_bytes(g.try_into().unwrap()), f64::from_le_bytes(e.try_into().unwrap()))).max()
        }
        _ => None,
    }
    .unwrap_or(0)
}

/// Compares two arrays of little-endian `ty` elements of equal length.
/// Returns how many differ and the first `max_listed` of them.
pub fn compare_elements(ty: ScalarType, got: &[u8], expected: &[u8], tolerance_ulps: u64, max_listed: usize) -> (u64, Vec<Mismatch>) {
    assert_eq!(got.len(), expected.len());
    let size = ty.size();
    let mut wrong = 0u64;
    let mut listed = Vec::new();
    for (i, (g, e)) in got.chunks_exact(size).zip(expected.chunks_exact(size)).enumerate() {
        let (differs, ulps) = match ty {
            ScalarType::F32 => {
                let (a, b) = (f32::from_le_bytes(g.try_into().unwrap()), f32::from_le_bytes(e.try_into().unwrap()));
                match ulps_f32(a, b) {
                    Some(u) => (u > tolerance_ulps, Some(u)),
                    None => (a.is_nan() != b.is_nan(), None),
                }
            }
            ScalarType::F64 => {
                let (a, b) = (f64::from_le_bytes(g.try_into().unwrap()), f64::from_le_bytes(e.try_into().unwrap()));
                match ulps_f64(a, b) {
                    Some(u) => (u > tolerance_ulps, Some(u)),
                    None => (a.is_nan() != b.is_nan(), None),
                }
            }
            _ => (g != e, None),
        };
        if differs {
            wrong += 1;
            if listed.len() < max_listed {
                listed.push(Mismatch { index: i as u64, got: format_element(ty, g), expected: format_element(ty, e), ulps });
            }
        }
    }
    (wrong, listed)
}

// ---------------------------------------------------------------------------
// Fills

/// splitmix64 (Steele, Lea, Flood 2014): the generator of `rand:SEED`.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Range of `rand:` integers: [0, bound).
fn rand_int_bound(ty: ScalarType) -> u64 {
    match ty {
        ScalarType::I8 => 128,
        ScalarType::U8 => 256,
        _ => 1000,
    }
}

/// Writes `fill` into `out`, a buffer of `out.len() / ty.size()` elements.
pub fn fill_buffer(ty: ScalarType, fill: &Fill, out: &mut [u8]) -> Result<(), ToolError> {
    let size = ty.size();
    match fill {
        Fill::Zero => out.fill(0),
        Fill::Ramp => {
            for (i, e) in out.chunks_exact_mut(size).enumerate() {
                let bits = match ty {
                    ScalarType::F32 => (i as f32).to_bits() as u64,
                    ScalarType::F64 => (i as f64).to_bits(),
                    _ => i as u64,
                };
                e.copy_from_slice(&bits.to_le_bytes()[..size]);
            }
        }
        Fill::Const(v) => {
            for e in out.chunks_exact_mut(size) {
                e.copy_from_slice(v.as_bytes());
            }
        }
        Fill::Rand(seed) => {
            let mut rng = SplitMix64(*seed);
            let bound = rand_int_bound(ty);
            for e in out.chunks_exact_mut(size) {
                let r = rng.next_u64();
                let bits = match ty {
                    ScalarType::F32 => ((r >> 40) as f32 * (1.0 / (1u64 << 24) as f32)).to_bits() as u64,
                    ScalarType::F64 => ((r >> 11) as f64 * (1.0 / (1u64 << 53) as f64)).to_bits(),
                    _ => r % bound,
                };
                e.copy_from_slice(&bits.to_le_bytes()[..size]);
            }
        }
        Fill::File(path) => {
            let io = |message: String| ToolError::Io { path: path.display().to_string(), message };
            let data = std::fs::read(path).map_err(|e| io(format!("cannot read fill file: {e}")))?;
            if data.len() != out.len() {
                let whole = if data.len() % size == 0 {
                    format!("{} {ty} elements", data.len() / size)
                } else {
                    format!("not a whole number of {size}-byte {ty} elements")
                };
                return Err(io(format!(
                    "fill file holds {} bytes ({whole}), but the buffer needs exactly {} {ty} elements ({} bytes)",
                    data.len(),
                    out.len() / size,
                    out.len()
                )));
            }
            out.copy_from_slice(&data);
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Local memory

/// Where a work-group's local memory holds what: the kernel's static
/// `__local`/`__shared__` bytes first, then each `__local` pointer argument,
/// 64-byte aligned, in parameter order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalLayout {
    pub static_bytes: u64,
    /// Per parameter: the offset of a local argument, `None` for the others.
    pub offsets: Vec<Option<u64>>,
    /// Bytes per work-group.
    pub total: u64,
}

impl LocalLayout {
    /// The layout for these argument specs.
    pub fn new(static_bytes: u64, specs: &[ArgSpec]) -> LocalLayout {
        LocalLayout::from_sizes(static_bytes, specs.iter().map(|s| matches!(s, ArgSpec::Local { .. }).then(|| s.bytes())))
    }

    /// The layout for these allocated arguments.
    pub fn for_args(static_bytes: u64, args: &KernelArgs) -> LocalLayout {
        LocalLayout::from_sizes(
            static_bytes,
            args.values.iter().map(|v| match v {
                ArgValue::Local { ty, count } => Some(count * ty.size() as u64),
                _ => None,
            }),
        )
    }

    /// `local_sizes`: per parameter, the bytes of a local argument or `None`.
    pub fn from_sizes(static_bytes: u64, local_sizes: impl IntoIterator<Item = Option<u64>>) -> LocalLayout {
        let mut cur = static_bytes;
        let offsets = local_sizes
            .into_iter()
            .map(|size| {
                size.map(|bytes| {
                    cur = align_up(cur, ALIGN as u64);
                    let at = cur;
                    cur += bytes;
                    at
                })
            })
            .collect();
        LocalLayout { static_bytes, offsets, total: cur }
    }

    /// Bytes of the `__local` pointer arguments, padding included.
    pub fn argument_bytes(&self) -> u64 {
        self.total - self.static_bytes
    }

    /// An error if the work-group needs more than `limit` bytes.
    pub fn check_limit(&self, kernel: &str, limit: u64) -> Result<(), ToolError> {
        if self.total <= limit {
            return Ok(());
        }
        Err(ToolError::Run(format!(
            "kernel '{kernel}': needs {} bytes of local memory per work-group ({} static + {} for __local arguments), over the limit of {limit} bytes (--local-mem-limit)",
            self.total,
            self.static_bytes,
            self.argument_bytes()
        )))
    }
}

pub fn align_up(x: u64, a: u64) -> u64 {
    x.div_ceil(a) * a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch::Scalar;

    fn filled(ty: ScalarType, count: u64, fill: Fill) -> Vec<u8> {
        let mut b = Buffer::zeroed(ty, count).unwrap();
        fill_buffer(ty, &fill, b.bytes_mut()).unwrap();
        b.bytes().to_vec()
    }

    fn as_f32(b: &[u8]) -> Vec<f32> {
        b.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
    }

    #[test]
    fn alignment_and_zeroing() {
        for n in [0usize, 1, 63, 64, 1000] {
            let a = AlignedBytes::zeroed(n).unwrap();
            assert_eq!(a.as_ptr() as usize % ALIGN, 0);
            assert_eq!(a.len(), n);
            assert!(a.as_slice().iter().all(|&b| b == 0));
        }
        assert!(AlignedBytes::zeroed(usize::MAX - 10).is_none());
        // Buffers end at their guard when the size is a multiple of 16.
        for (ty, count) in [(ScalarType::F32, 1000u64), (ScalarType::U8, 4096), (ScalarType::F64, 3), (ScalarType::I16, 5)] {
            let mut b = Buffer::zeroed(ty, count).unwrap();
            let (p, len) = (b.as_mut_ptr() as usize, b.bytes().len());
            assert_eq!(p % BUFFER_ALIGN, 0);
            assert_eq!((p + len.next_multiple_of(BUFFER_ALIGN)) % 4096, 0, "{ty}:{count}");
            assert!(b.bytes().iter().all(|&x| x == 0));
            b.set_label("vecadd", 2);
            let hit = crate::engine::guard::lookup(p + len.next_multiple_of(BUFFER_ALIGN)).unwrap();
            let what = format!("argument 2 ({len} bytes, buf:{ty}:{count})");
            // SAFETY: `b` (whose reservation was hit) is alive and was
            // labelled before the lookup.
            assert_eq!(unsafe { hit.label() }, (&b"kernel 'vecadd'"[..], what.as_bytes()));
        }
    }

    #[test]
    fn ramp_fills() {
        assert_eq!(as_f32(&filled(ScalarType::F32, 4, Fill::Ramp)), vec![0.0, 1.0, 2.0, 3.0]);
        let i16s: Vec<i16> = filled(ScalarType::I16, 3, Fill::Ramp).chunks_exact(2).map(|c| i16::from_le_bytes([c[0], c[1]])).collect();
        assert_eq!(i16s, vec![0, 1, 2]);
        // u8 wraps.
        let u8s = filled(ScalarType::U8, 300, Fill::Ramp);
        assert_eq!((u8s[255], u8s[256], u8s[299]), (255, 0, 43));
        let f64s: Vec<f64> =
            filled(ScalarType::F64, 3, Fill::Ramp).chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect();
        assert_eq!(f64s, vec![0.0, 1.0, 2.0]);
    }

    #[test]
    fn const_fills() {
        let v = Scalar::parse(ScalarType::I32, "-7").unwrap();
        let b = filled(ScalarType::I32, 5, Fill::Const(v));
        assert!(b.chunks_exact(4).all(|c| i32::from_le_bytes(c.try_into().unwrap()) == -7));
        let v = Scalar::parse(ScalarType::F32, "2.5").unwrap();
        assert_eq!(as_f32(&filled(ScalarType::F32, 3, Fill::Const(v))), vec![2.5; 3]);
    }

    #[test]
    fn splitmix64_reference_values() {
        // Reference output of splitmix64 seeded with 0 (Vigna's splitmix64.c).
        let mut r = SplitMix64(0);
        assert_eq!(r.next_u64(), 0xE220A8397B1DCDAF);
        assert_eq!(r.next_u64(), 0x6E789E6AA1B965F4);
        assert_eq!(r.next_u64(), 0x06C45D188009454F);
    }

    #[test]
    fn rand_fills_are_deterministic_and_in_range() {
        let a = filled(ScalarType::F32, 1000, Fill::Rand(7));
        assert_eq!(a, filled(ScalarType::F32, 1000, Fill::Rand(7)));
        assert_ne!(a, filled(ScalarType::F32, 1000, Fill::Rand(8)));
        let f = as_f32(&a);
        assert!(f.iter().all(|&x| (0.0..1.0).contains(&x)));
        let mean = f.iter().sum::<f32>() / f.len() as f32;
        assert!((0.4..0.6).contains(&mean), "mean {mean}");
        // The documented generator: element i is draw i.
        let mut r = SplitMix64(7);
        let first = (r.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        assert_eq!(f[0], first);

        let ints: Vec<i32> =
            filled(ScalarType::I32, 5000, Fill::Rand(1)).chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect();
        assert!(ints.iter().all(|&x| (0..1000).contains(&x)));
        assert!(ints.iter().any(|&x| x > 900) && ints.iter().any(|&x| x < 100));
        let mut r = SplitMix64(1);
        assert_eq!(ints[0] as u64, r.next_u64() % 1000);

        let i8s = filled(ScalarType::I8, 2000, Fill::Rand(3));
        assert!(i8s.iter().all(|&b| (b as i8) >= 0));
        let f64s: Vec<f64> =
            filled(ScalarType::F64, 1000, Fill::Rand(9)).chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect();
        assert!(f64s.iter().all(|&x| (0.0..1.0).contains(&x)));
    }

    #[test]
    fn file_fills() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("in.bin");
        let vals: Vec<u8> = [1.5f32, -2.0, 3.25].iter().flat_map(|v| v.to_le_bytes()).collect();
        std::fs::write(&p, &vals).unwrap();
        assert_eq!(as_f32(&filled(ScalarType::F32, 3, Fill::File(p.clone()))), vec![1.5, -2.0, 3.25]);

        let mut b = Buffer::zeroed(ScalarType::F32, 4).unwrap();
        match fill_buffer(ScalarType::F32, &Fill::File(p.clone()), b.bytes_mut()) {
            Err(ToolError::Io { path, message }) => {
                assert_eq!(path, p.display().to_string());
                assert_eq!(message, "fill file holds 12 bytes (3 f32 elements), but the buffer needs exactly 4 f32 elements (16 bytes)");
            }
            other => panic!("{other:?}"),
        }
        std::fs::write(&p, [0u8; 7]).unwrap();
        let mut b = Buffer::zeroed(ScalarType::F32, 2).unwrap();
        let e = fill_buffer(ScalarType::F32, &Fill::File(p.clone()), b.bytes_mut()).unwrap_err().to_string();
        assert!(e.contains("not a whole number of 4-byte f32 elements"), "{e}");

        let missing = dir.path().join("missing.bin");
        let e = KernelArgs::new(&[ArgSpec::Buffer { ty: ScalarType::U8, count: 1, fill: Fill::File(missing.clone()) }])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with(&format!("{}: error: argument 0 (buf:u8:1=file:", missing.display())), "{e}");
        assert!(e.contains("cannot read fill file"), "{e}");
    }

    fn specs(texts: &[&str]) -> Vec<ArgSpec> {
        texts.iter().map(|t| ArgSpec::parse(t, None).unwrap()).collect()
    }

    #[test]
    fn dump_writes_raw_little_endian_per_parameter() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("nested/out");
        let args = KernelArgs::new(&specs(&["buf:u16:3=ramp", "i32:5", "local:f32:4", "buf:f64:2=const:0.5"])).unwrap();
        let written = args.dump(&out).unwrap();
        assert_eq!(written, vec![out.join("arg0.bin"), out.join("arg3.bin")]);
        assert_eq!(std::fs::read(out.join("arg0.bin")).unwrap(), vec![0, 0, 1, 0, 2, 0]);
        let mut want = 0.5f64.to_le_bytes().to_vec();
        want.extend(0.5f64.to_le_bytes());
        assert_eq!(std::fs::read(out.join("arg3.bin")).unwrap(), want);
        assert!(!out.join("arg1.bin").exists() && !out.join("arg2.bin").exists());
    }

    #[test]
    fn ulp_distances() {
        assert_eq!(ulps_f32(1.0, 1.0), Some(0));
        assert_eq!(ulps_f32(1.0, f32::from_bits(1.0f32.to_bits() + 3)), Some(3));
        assert_eq!(ulps_f32(0.0, -0.0), Some(0));
        assert_eq!(ulps_f32(f32::from_bits(1), -f32::from_bits(1)), Some(2));
        assert_eq!(ulps_f32(f32::NAN, 1.0), None);
        assert_eq!(ulps_f64(2.0, f64::from_bits(2.0f64.to_bits() - 5)), Some(5));
        assert_eq!(ulps_f64(-1.0, -1.0), Some(0));
        assert_eq!(ulps_f64(f64::MAX, -f64::MAX), Some(2 * f64::MAX.to_bits()));
        assert_eq!(ulps_f64(f64::INFINITY, f64::NEG_INFINITY), Some(2 * f64::INFINITY.to_bits()));
    }

    #[test]
    fn element_comparison() {
        let enc = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let one_up = f32::from_bits(1.0f32.to_bits() + 1);
        let two_up = f32::from_bits(1.0f32.to_bits() + 2);
        let got = enc(&[1.0, one_up, two_up, f32::NAN, 5.0]);
        let exp = enc(&[1.0, 1.0, 1.0, f32::NAN, f32::NAN]);
        let (wrong, first) = compare_elements(ScalarType::F32, &got, &exp, 0, 10);
        assert_eq!(wrong, 3);
        assert_eq!(first.iter().map(|m| m.index).collect::<Vec<_>>(), vec![1, 2, 4]);
        assert_eq!(first[0].ulps, Some(1));
        assert_eq!(first[2].ulps, None);
        let (wrong, _) = compare_elements(ScalarType::F32, &got, &exp, 1, 10);
        assert_eq!(wrong, 2);
        let (wrong, _) = compare_elements(ScalarType::F32, &got, &exp, 2, 10);
        assert_eq!(max_ulps(ScalarType::F32, &got, &exp), 2);
        assert_eq!(max_ulps(ScalarType::F32, &exp, &exp), 0);
        assert_eq!(max_ulps(ScalarType::I32, &got, &exp), 0);
        assert_eq!(wrong, 1);
        // Integers compare exactly, whatever the tolerance.
        let (wrong, first) = compare_elements(ScalarType::I32, &enc(&[1.0]), &enc(&[0.0]), 1000, 10);
        assert_eq!(wrong, 1);
        assert_eq!(first[0].got, 1065353216.to_string());
        assert_eq!(first[0].expected, "0");
        // The listing is capped, the count is not.
        let (wrong, first) = compare_elements(ScalarType::U8, &[1; 50], &[2; 50], 0, 3);
        assert_eq!((wrong, first.len()), (50, 3));
    }

    #[test]
    fn compare_against_a_folder() {
        let dir = tempfile::tempdir().unwrap();
        let reference = dir.path().join("ref");
        let args = KernelArgs::new(&specs(&["buf:f32:4=ramp", "buf:i32:3=ramp", "f32:1"])).unwrap();
        args.dump(&reference).unwrap();
        let r = args.compare(&reference, 0).unwrap();
        assert!(r.ok());
        assert_eq!(r.compared.iter().map(|c| c.0).collect::<Vec<_>>(), vec![0, 1]);

        // Element 2 of arg0 one ULP off; arg1 element 1 off by one.
        let mut f: Vec<u8> = std::fs::read(reference.join("arg0.bin")).unwrap();
        f[8..12].copy_from_slice(&f32::from_bits(2.0f32.to_bits() + 1).to_le_bytes());
        std::fs::write(reference.join("arg0.bin"), &f).unwrap();
        std::fs::write(reference.join("arg1.bin"), [0, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0]).unwrap();
        let r = args.compare(&reference, 0).unwrap();
        assert!(!r.ok());
        assert_eq!(r.mismatches.len(), 2);
        assert_eq!(r.mismatches[0].first[0], Mismatch { index: 2, got: "2.0".into(), expected: "2.0000002".into(), ulps: Some(1) });
        assert_eq!(r.mismatches[1].first[0], Mismatch { index: 1, got: "1".into(), expected: "2".into(), ulps: None });
        let text = r.render();
        assert!(
            text.contains(&format!(
                "argument 0 differs from {} in 1 of 4 f32 elements (tolerance 0 ULPs):",
                reference.join("arg0.bin").display()
            )),
            "{text}"
        );
        assert!(text.contains("  [2] got 2.0, expected 2.0000002 (1 ULPs)"), "{text}");
        assert!(text.contains("  [1] got 1, expected 2\n"), "{text}");
        // A tolerance of 1 ULP forgives the float, never the integer.
        let r = args.compare(&reference, 1).unwrap();
        assert_eq!(r.mismatches.iter().map(|m| m.param).collect::<Vec<_>>(), vec![1]);

        // Wrong size, missing files, missing folder.
        std::fs::write(reference.join("arg1.bin"), [0u8; 5]).unwrap();
        let r = args.compare(&reference, 1).unwrap();
        assert!(r.render().contains("holds 5 bytes, but argument 1 has 3 i32 elements (12 bytes)"), "{}", r.render());
        std::fs::remove_file(reference.join("arg1.bin")).unwrap();
        let r = args.compare(&reference, 1).unwrap();
        assert!(r.ok());
        assert_eq!(r.compared.len(), 1);
        std::fs::remove_file(reference.join("arg0.bin")).unwrap();
        assert!(args.compare(&reference, 0).unwrap_err().to_string().contains("nothing to compare"));
        assert!(args.compare(&dir.path().join("nope"), 0).unwrap_err().to_string().contains("compare folder does not exist"));
    }

    #[test]
    fn local_layout() {
        let l = LocalLayout::new(100, &specs(&["buf:f32:4", "local:f32:10", "i32:1", "local:u8:1", "local:f64:8"]));
        assert_eq!(l.offsets, vec![None, Some(128), None, Some(192), Some(256)]);
        assert_eq!(l.total, 320);
        assert_eq!(l.argument_bytes(), 220);
        assert!(l.check_limit("k", 320).is_ok());
        let e = l.check_limit("k", 319).unwrap_err().to_string();
        assert_eq!(
            e,
            "error: kernel 'k': needs 320 bytes of local memory per work-group (100 static + 220 for __local arguments), over the limit of 319 bytes (--local-mem-limit)"
        );
        let l = LocalLayout::new(0, &specs(&["local:u8:1"]));
        assert_eq!((l.offsets[0], l.total), (Some(0), 1));
        assert_eq!(LocalLayout::new(40, &[]).total, 40);
        let args = KernelArgs::new(&specs(&["buf:f32:4", "local:f32:10", "i32:1", "local:u8:1", "local:f64:8"])).unwrap();
        assert_eq!(
            LocalLayout::for_args(100, &args),
            LocalLayout::new(100, &specs(&["buf:f32:4", "local:f32:10", "i32:1", "local:u8:1", "local:f64:8"]))
        );
    }
}
