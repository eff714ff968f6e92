//! The launch model: what `simt-run` runs and how, as types. Nothing here
//! reads text: the grammar that builds these values from the command line
//! and from launch files is [`super::values`], [`super::cli`] and
//! [`super::launch_file`], checked and combined by [`super::settings`].
//!
//! A [`Launch`] is engine-independent (module, kernel, grid, arguments);
//! [`RunOptions`] say how to run it (engine and engine options, repeat,
//! dump, compare, stats). The invariants a value promises (a [`Grid`]'s
//! sizes are in range, an argument's byte size is bounded) are checked where it is
//! built: [`Grid::new`] here, the argument grammar in `values`.

use std::fmt;
use std::path::PathBuf;

// ---------------------------------------------------------------------------
// Element types and scalar values

/// An element or scalar type of an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarType {
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F32,
    F64,
}

impl ScalarType {
    pub const ALL: [ScalarType; 10] = [
        ScalarType::I8,
        ScalarType::I16,
        ScalarType::I32,
        ScalarType::I64,
        ScalarType::U8,
        ScalarType::U16,
        ScalarType::U32,
        ScalarType::U64,
        ScalarType::F32,
        ScalarType::F64,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ScalarType::I8 => "i8",
            ScalarType::I16 => "i16",
            ScalarType::I32 => "i32",
            ScalarType::I64 => "i64",
            ScalarType::U8 => "u8",
            ScalarType::U16 => "u16",
            ScalarType::U32 => "u32",
            ScalarType::U64 => "u64",
            ScalarType::F32 => "f32",
            ScalarType::F64 => "f64",
        }
    }

    /// Size in bytes.
    pub fn size(self) -> usize {
        self.bits() as usize / 8
    }

    pub fn bits(self) -> u32 {
        match self {
            ScalarType::I8 | ScalarType::U8 => 8,
            ScalarType::I16 | ScalarType::U16 => 16,
            ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => 32,
            ScalarType::I64 | ScalarType::U64 | ScalarType::F64 => 64,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, ScalarType::F32 | ScalarType::F64)
    }

    pub fn is_signed(self) -> bool {
        matches!(self, ScalarType::I8 | ScalarType::I16 | ScalarType::I32 | ScalarType::I64)
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A value of a [`ScalarType`], held as its little-endian bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scalar {
    pub ty: ScalarType,
    bytes: [u8; 8],
}

impl Scalar {
    /// The value whose little-endian encoding is the low `ty.size()` bytes of `bits`.
    pub fn from_bits(ty: ScalarType, bits: u64) -> Scalar {
        let mut bytes = bits.to_le_bytes();
        bytes[ty.size()..].fill(0);
        Scalar { ty, bytes }
    }

    pub fn from_le_bytes(ty: ScalarType, le: &[u8]) -> Scalar {
        let mut bytes = [0u8; 8];
        bytes[..ty.size()].copy_from_slice(&le[..ty.size()]);
        Scalar { ty, bytes }
    }

    /// The value's `ty.size()` little-endian bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.ty.size()]
    }

    pub fn bits(&self) -> u64 {
        u64::from_le_bytes(self.bytes)
    }
}

/// Formats one little-endian element of `ty` (`bytes` holds at least `ty.size()`).
pub fn format_element(ty: ScalarType, bytes: &[u8]) -> String {
    let mut b = [0u8; 8];
    b[..ty.size()].copy_from_slice(&bytes[..ty.size()]);
    let bits = u64::from_le_bytes(b);
    match ty {
        ScalarType::I8 => (bits as u8 as i8).to_string(),
        ScalarType::I16 => (bits as u16 as i16).to_string(),
        ScalarType::I32 => (bits as u32 as i32).to_string(),
        ScalarType::I64 => (bits as i64).to_string(),
        ScalarType::U8 | ScalarType::U16 | ScalarType::U32 | ScalarType::U64 => bits.to_string(),
        ScalarType::F32 => format!("{:?}", f32::from_bits(bits as u32)),
        ScalarType::F64 => format!("{:?}", f64::from_bits(bits)),
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.ty, format_element(self.ty, &self.bytes))
    }
}

// ---------------------------------------------------------------------------
// Arguments

/// The initial contents of a buffer.
#[derive(Clone, Debug, PartialEq)]
pub enum Fill {
    Zero,
    /// Element i = i.
    Ramp,
    Const(Scalar),
    /// splitmix64 with this seed.
    Rand(u64),
    /// Raw little-endian elements, exactly COUNT of them.
    File(PathBuf),
}

impl fmt::Display for Fill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fill::Zero => f.write_str("zero"),
            Fill::Ramp => f.write_str("ramp"),
            Fill::Const(v) => write!(f, "const:{}", format_element(v.ty, v.as_bytes())),
            Fill::Rand(seed) => write!(f, "rand:{seed}"),
            Fill::File(p) => write!(f, "file:{}", p.display()),
        }
    }
}

/// One kernel argument, as `--arg` describes it.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgSpec {
    /// `buf:TYPE:COUNT[=FILL]`: a global buffer.
    Buffer { ty: ScalarType, count: u64, fill: Fill },
    /// `TYPE:VALUE`.
    Scalar(Scalar),
    /// `local:TYPE:COUNT`: a __local pointer argument.
    Local { ty: ScalarType, count: u64 },
    /// `struct:TYPE:VALUE,TYPE:VALUE…`: a struct passed by value (`byval`),
    /// its fields in order, laid out as C does ([`struct_bytes`]).
    Struct(Vec<Scalar>),
}

/// The bytes of a struct whose fields are `fields`, in order, each at the
/// next multiple of its size (C's natural alignment for scalars), the whole
/// padded to a multiple of the largest field.
pub fn struct_bytes(fields: &[Scalar]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut align = 1;
    for f in fields {
        let size = f.ty.size();
        align = align.max(size);
        out.resize(out.len().next_multiple_of(size), 0);
        out.extend_from_slice(f.as_bytes());
    }
    out.resize(out.len().next_multiple_of(align), 0);
    out
}

impl ArgSpec {
    /// "global buffer", "scalar" or "__local buffer", for messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            ArgSpec::Buffer { .. } => "global buffer",
            ArgSpec::Scalar(_) => "scalar",
            ArgSpec::Local { .. } => "__local buffer",
            ArgSpec::Struct(_) => "struct",
        }
    }

    /// Bytes of a buffer or local argument; 0 for a scalar.
    pub fn bytes(&self) -> u64 {
        match self {
            ArgSpec::Buffer { ty, count, .. } | ArgSpec::Local { ty, count } => count * ty.size() as u64,
            ArgSpec::Scalar(_) | ArgSpec::Struct(_) => 0,
        }
    }
}

impl fmt::Display for ArgSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgSpec::Buffer { ty, count, fill: Fill::Zero } => write!(f, "buf:{ty}:{count}"),
            ArgSpec::Buffer { ty, count, fill } => write!(f, "buf:{ty}:{count}={fill}"),
            ArgSpec::Scalar(v) => write!(f, "{v}"),
            ArgSpec::Local { ty, count } => write!(f, "local:{ty}:{count}"),
            ArgSpec::Struct(fields) => {
                write!(f, "struct:{}", fields.iter().map(Scalar::to_string).collect::<Vec<_>>().join(","))
            }
        }
    }
}

// ---------------------------------------------------------------------------
// The grid

/// Global and local sizes of a launch, in 1 to 3 dimensions. Unused
/// dimensions hold size 1 and offset 0. `local` is the enqueued local size
/// (OpenCL's `get_enqueued_local_size`); where a global size is not a
/// multiple of it (OpenCL 2.0's non-uniform work-groups), the last
/// work-group in that dimension is smaller ([`Grid::group_local`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    pub work_dim: u32,
    pub global: [u64; 3],
    pub local: [u64; 3],
    pub global_offset: [u64; 3],
}

pub const DIM_NAMES: [char; 3] = ['x', 'y', 'z'];

impl Grid {
    /// Whether every work-item id, group id and size of the launch is below
    /// 2^31, so that an `int` holds it exactly: in each dimension, global
    /// offset + global size and the local size are at most `i32::MAX`
    /// (global ids are below offset + size; group counts and ids, at most
    /// the global size). The host engine compiles `int` index arithmetic
    /// in 64 bits on that fact (`simt-widen-indices<ids-fit-i32>`).
    pub fn ids_fit_i32(&self) -> bool {
        let max = i32::MAX as u64;
        (0..3).all(|d| self.global_offset[d].checked_add(self.global[d]).is_some_and(|end| end <= max) && self.local[d] <= max)
    }

    /// Checks the sizes: 1 to 3 dimensions, the same number in each list,
    /// none 0, every global size a multiple of the local size.
    pub fn new(global: &[u64], local: &[u64], global_offset: Option<&[u64]>) -> Result<Grid, String> {
        Grid::checked(global, local, global_offset, true)
    }

    /// As [`Grid::new`]; with `uniform` false, a global size need not be a
    /// multiple of the local size.
    pub fn checked(global: &[u64], local: &[u64], global_offset: Option<&[u64]>, uniform: bool) -> Result<Grid, String> {
        let work_dim = global.len();
        if !(1..=3).contains(&work_dim) {
            return Err(format!("--global has {work_dim} dimensions; 1 to 3 are allowed"));
        }
        if local.len() != work_dim {
            return Err(format!(
                "--global has {work_dim} dimension{} but --local has {}",
                if work_dim == 1 { "" } else { "s" },
                local.len()
            ));
        }
        if let Some(o) = global_offset {
            if o.len() != work_dim {
                return Err(format!("--global has {work_dim} dimension(s) but --global-offset has {}", o.len()));
            }
        }
        let mut g = Grid { work_dim: work_dim as u32, global: [1; 3], local: [1; 3], global_offset: [0; 3] };
        for (d, axis) in DIM_NAMES.into_iter().enumerate().take(work_dim) {
            if global[d] == 0 {
                return Err(format!("global size is 0 in dimension {d} ({axis})"));
            }
            if local[d] == 0 {
                return Err(format!("local size is 0 in dimension {d} ({axis})"));
            }
            if uniform && !global[d].is_multiple_of(local[d]) {
                return Err(format!("global size {} is not a multiple of local size {} in dimension {d} ({axis})", global[d], local[d]));
            }
            g.global[d] = global[d];
            g.local[d] = local[d];
            if let Some(o) = global_offset {
                g.global_offset[d] = o[d];
            }
        }
        let items = g.local.iter().try_fold(1u64, |a, &b| a.checked_mul(b));
        let total = g.global.iter().try_fold(1u64, |a, &b| a.checked_mul(b));
        if items.is_none() || total.is_none() {
            return Err("the launch has more than 2^64 work-items".into());
        }
        for (d, axis) in DIM_NAMES.into_iter().enumerate() {
            if g.global_offset[d].checked_add(g.global[d]).is_none() {
                return Err(format!("global offset + global size overflows in dimension {d} ({axis})"));
            }
        }
        Ok(g)
    }

    /// Work-groups per dimension (the last one smaller where the sizes do
    /// not divide).
    pub fn num_groups(&self) -> [u64; 3] {
        [0, 1, 2].map(|d| self.global[d].div_ceil(self.local[d]))
    }

    /// Whether every work-group has the enqueued local size.
    pub fn is_uniform(&self) -> bool {
        (0..3).all(|d| self.global[d].is_multiple_of(self.local[d]))
    }

    /// The local size of work-group `group_id`: the enqueued size, or what is
    /// left of the global size in the last work-group of a dimension.
    pub fn group_local(&self, group_id: [u64; 3]) -> [u64; 3] {
        [0, 1, 2].map(|d| self.local[d].min(self.global[d] - group_id[d] * self.local[d]))
    }

    pub fn total_groups(&self) -> u64 {
        self.num_groups().iter().product()
    }

    /// Work-items in a full work-group.
    pub fn items_per_group(&self) -> u64 {
        self.local.iter().product()
    }

    /// Work-items in the launch.
    pub fn total_items(&self) -> u64 {
        self.global.iter().product()
    }

    /// The id of the work-group with linear index `linear` (x varies fastest).
    pub fn group_id(&self, linear: u64) -> [u64; 3] {
        let n = self.num_groups();
        [linear % n[0], (linear / n[0]) % n[1], linear / (n[0] * n[1])]
    }
}

/// The sizes as the launch gives them, before the kernel is known: without
/// `--local`, the kernel's `reqd_work_group_size` or a chosen size
/// (`super::grid`) fills it in.
#[derive(Clone, Debug, PartialEq)]
pub struct GridRequest {
    pub global: Vec<u64>,
    pub local: Option<Vec<u64>>,
    pub global_offset: Option<Vec<u64>>,
    /// The launch file the sizes came from, for messages.
    pub from: Option<PathBuf>,
}

/// What a kernel declares about the launches it accepts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LaunchBounds {
    /// OpenCL `__attribute__((reqd_work_group_size(X,Y,Z)))` (clang's
    /// `!reqd_work_group_size`): the only local size it may run with.
    pub reqd_local: Option<[u64; 3]>,
    /// CUDA `__launch_bounds__(N)` (clang's `"nvvm.maxntid"`): at most this
    /// many threads per block.
    pub max_items: Option<u64>,
    /// Compiled for uniform work-groups only (clang's
    /// `"uniform-work-group-size"="true"`: OpenCL 1.x, `-cl-uniform-work-group-size`,
    /// CUDA), so a global size must be a multiple of the local size.
    pub uniform_only: bool,
}

// ---------------------------------------------------------------------------
// Launch and run options

/// What to run: engine-independent.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    pub module: PathBuf,
    /// `None`: the module's only kernel.
    pub kernel: Option<String>,
    /// The sizes as given; `super::grid::resolve` makes the [`Grid`] once
    /// the kernel is known.
    pub grid: GridRequest,
    /// In kernel-parameter order.
    pub args: Vec<ArgSpec>,
    /// CUDA dynamic shared memory (`extern __shared__`) per work-group, in
    /// bytes: `<<<…>>>`'s third argument (`--shared-bytes`).
    pub shared_bytes: Option<u64>,
}

/// Which engine runs the launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The host CPU: the kernel compiled to work-group functions (wg_abi).
    Host,
    /// The SIMT emulator: warps in lockstep, a reconvergence policy.
    Emu,
    /// An NVIDIA GPU through the CUDA driver (PTX), where one is present.
    Gpu,
}

impl Engine {
    pub const ALL: [Engine; 3] = [Engine::Host, Engine::Emu, Engine::Gpu];

    pub fn name(self) -> &'static str {
        match self {
            Engine::Host => "host",
            Engine::Emu => "emu",
            Engine::Gpu => "gpu",
        }
    }
}

/// Which checks `--check` asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checks {
    pub races: bool,
    pub uninit: bool,
    /// Always on in the emulator; accepted so that `--check bounds` says so.
    pub bounds: bool,
    /// Always on in the emulator, as `bounds`.
    pub barriers: bool,
    /// The member masks of CUDA warp functions.
    pub warp: bool,
    /// `--check-uniformity`: the uniformity analysis, checked at run time
    /// (a check of this project's analysis, not of the kernel: not in `all`).
    pub uniformity: bool,
}

impl Checks {
    /// The names `--check` takes.
    pub const NAMES: [&'static str; 7] = ["races", "uninit", "bounds", "barriers", "warp", "uniformity", "all"];

    /// `races,uninit`, `all`, …: a comma-separated list of [`Checks::NAMES`].
    pub fn parse(list: &str) -> Result<Checks, String> {
        let mut c = Checks::default();
        for name in list.split(',').map(str::trim) {
            match name {
                "races" => c.races = true,
                "uninit" => c.uninit = true,
                "bounds" => c.bounds = true,
                "barriers" => c.barriers = true,
                "warp" => c.warp = true,
                "uniformity" => c.uniformity = true,
                "all" => {
                    c.races = true;
                    c.uninit = true;
                    c.bounds = true;
                    c.barriers = true;
                    c.warp = true;
                }
                "" => return Err(format!("empty check name (available: {})", Checks::NAMES.join(", "))),
                other => return Err(format!("unknown check '{other}' (available: {})", Checks::NAMES.join(", "))),
            }
        }
        Ok(c)
    }

    /// Whether the interpreter must call a
    /// [`Checker`](crate::engine::emu::check::Checker).
    pub fn runs_checker(&self) -> bool {
        self.races || self.uninit || self.warp
    }
}

/// `races,uninit`: the names of the checks on, as `--check` takes them.
impl std::fmt::Display for Checks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let on = [self.races, self.uninit, self.bounds, self.barriers, self.warp, self.uniformity];
        let names: Vec<&str> = Checks::NAMES.iter().zip(on).filter(|(_, on)| *on).map(|(n, _)| *n).collect();
        f.write_str(&names.join(","))
    }
}

/// How the SIMT emulator (`--engine emu`) reconverges the lanes of a warp
/// after a divergent branch (`--policy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// A reconvergence stack: the paths of a divergent branch run one after
    /// the other and meet again at the branch's immediate post-dominator.
    Ipdom,
    /// Seed 000's run side: at convergence checks (`@simt.converge` markers,
    /// or joins and loop exits when there are none) the group of lanes whose
    /// next instruction is earliest in PC order runs; lanes at one PC merge.
    Markers,
    /// No reconvergence: each path runs to the end (or a barrier) alone.
    None,
}

impl Policy {
    pub const ALL: [Policy; 3] = [Policy::Ipdom, Policy::Markers, Policy::None];

    pub fn name(self) -> &'static str {
        match self {
            Policy::Ipdom => "ipdom",
            Policy::Markers => "markers",
            Policy::None => "none",
        }
    }
}

pub const DEFAULT_WARP_WIDTH: u32 = 32;
/// Lane masks are 64-bit words.
pub const MAX_WARP_WIDTH: u32 = 64;

/// `--stats`: without it a two-line summary on stderr; `text`, every field
/// of the JSON object as a `key: value` line on stderr; `json`, one JSON
/// object on stdout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatsFormat {
    Summary,
    Text,
    Json,
}

impl fmt::Display for StatsFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StatsFormat::Summary => "summary",
            StatsFormat::Text => "text",
            StatsFormat::Json => "json",
        })
    }
}

/// How to run it.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOptions {
    pub engine: Engine,
    /// Runs of the launch (buffers are filled once).
    pub repeat: u32,
    /// `--refill`: every run after the first starts from the first one's
    /// buffer contents (copied back untimed).
    pub refill: bool,
    /// Host engine: work-groups interleaved in balanced loop groups (seed 001; 1 = off).
    pub interleave: u32,
    /// Bytes of local memory (static + __local arguments) allowed per work-group.
    pub local_mem_limit: u64,
    pub dump: Option<PathBuf>,
    pub compare: Option<PathBuf>,
    /// Float comparison tolerance in ULPs.
    pub tolerance: u64,
    /// `--timeout`: the launch (compilation included) is stopped, exit 1,
    /// when it has run this long.
    pub timeout: Option<std::time::Duration>,
    pub stats: StatsFormat,
    /// Emulator: reconvergence policy.
    pub policy: Policy,
    /// Emulator: lanes per warp (1 to 64).
    pub warp_width: u32,
    /// Emulator: write what each warp's lane groups do to this file
    /// (`--trace`; the first run of the launch).
    pub trace: Option<PathBuf>,
    /// Emulator: write the divergence profile of the last run to this file
    /// (`--profile`; `simt-ifconvert<profile=FILE>` reads it).
    pub profile: Option<PathBuf>,
    /// Host engine: link the kernel object with the system linker and load
    /// it (ahead of time) instead of using the JIT.
    pub aot: bool,
    /// Host engine: the linear form of the work-item loops
    /// (`simt-wiloops<linear>`), whatever the kernel's size.
    pub linear: bool,
    /// Host engine: neither read nor write the kernel cache (`--no-cache`).
    pub no_cache: bool,
    /// Emulator: check the uniformity analysis at run time
    /// (`--check-uniformity`, `simt-check-uniformity`).
    pub check_uniformity: bool,
    /// Emulator: `--check LIST` (races, uninit, bounds, barriers, warp, uniformity, all).
    pub check: Checks,
}

pub const DEFAULT_LOCAL_MEM_LIMIT: u64 = 256 * 1024;
