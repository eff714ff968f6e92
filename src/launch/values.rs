//! The grammar of one setting's value, the same on the command line
//! (clap's `value_parser`s in [`super::cli`]) and in a launch file
//! ([`super::launch_file`]): `--arg` specs and their fills, scalar values,
//! `X[,Y,Z]` sizes, byte counts, engine and policy names. Each parser returns
//! the model's type or a message saying why the text is not one; the caller
//! prefixes where the text came from (`--arg 'buf:f33:8': …`,
//! `run.launch:4: error: arg '…': …`).

use super::model::{ArgSpec, Engine, Fill, Policy, Scalar, ScalarType, StatsFormat, MAX_WARP_WIDTH};
use std::path::{Path, PathBuf};

impl ScalarType {
    pub fn parse(s: &str) -> Option<ScalarType> {
        ScalarType::ALL.into_iter().find(|t| t.name() == s)
    }

    fn list() -> String {
        ScalarType::ALL.map(ScalarType::name).join(" ")
    }
}

impl Scalar {
    /// Parses `text` as a value of `ty`: integers in decimal or `0x` hex (a
    /// leading `-` for signed types), within the type's range; floats as Rust
    /// reads them (`1.5`, `-2e-3`, `inf`, `nan`), but a finite literal
    /// beyond the type's range (or a nonzero one that would round to 0) is
    /// an error, not `inf` (or 0).
    pub fn parse(ty: ScalarType, text: &str) -> Result<Scalar, String> {
        let t = text.trim();
        if t.is_empty() {
            return Err(format!("missing {ty} value"));
        }
        if ty.is_float() {
            let (value, bits, max) = match ty {
                ScalarType::F32 => t.parse::<f32>().map(|v| (f64::from(v), u64::from(v.to_bits()), format!("{:e}", f32::MAX))),
                _ => t.parse::<f64>().map(|v| (v, v.to_bits(), format!("{:e}", f64::MAX))),
            }
            .map_err(|_| format!("'{t}' is not an {ty} number"))?;
            // Rust rounds a literal beyond the type's range to infinity and
            // one below its smallest subnormal to zero; either would run the
            // kernel on a value nobody wrote.
            if value.is_infinite() && !is_infinity_spelling(t) {
                return Err(format!("{t} is out of range for {ty} (largest finite magnitude {max})"));
            }
            if value == 0.0 && has_nonzero_digit(t) {
                return Err(format!("{t} is too small for {ty}: it would be 0"));
            }
            return Ok(Scalar::from_bits(ty, bits));
        }
        let (negative, digits) = match t.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, t.strip_prefix('+').unwrap_or(t)),
        };
        let digits = digits.replace('_', "");
        let magnitude = match digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
            Some(hex) => u128::from_str_radix(hex, 16),
            None => digits.parse::<u128>(),
        }
        .map_err(|_| format!("'{t}' is not an integer"))?;
        let value: i128 = if negative { -(magnitude.min(1 << 100) as i128) } else { magnitude.min(1 << 100) as i128 };
        let (lo, hi): (i128, i128) =
            if ty.is_signed() { (-(1i128 << (ty.bits() - 1)), (1i128 << (ty.bits() - 1)) - 1) } else { (0, (1i128 << ty.bits()) - 1) };
        if value < lo || value > hi {
            return Err(format!("{t} is out of range for {ty} ({lo}..={hi})"));
        }
        Ok(Scalar::from_bits(ty, value as u64))
    }
}

/// `inf`, `-Infinity` and the like: infinity asked for by name.
fn is_infinity_spelling(t: &str) -> bool {
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t).to_ascii_lowercase();
    unsigned == "inf" || unsigned == "infinity"
}

/// Whether a float literal's digits before any exponent are not all zero.
fn has_nonzero_digit(t: &str) -> bool {
    t.split(['e', 'E']).next().unwrap_or("").bytes().any(|b| matches!(b, b'1'..=b'9'))
}

impl ArgSpec {
    /// Parses one `--arg` value. Relative `file:` paths are taken relative to
    /// `base_dir` when given (a launch file's folder).
    pub fn parse(text: &str, base_dir: Option<&Path>) -> Result<ArgSpec, String> {
        let t = text.trim();
        if t.is_empty() {
            return Err("empty argument; expected buf:TYPE:COUNT[=FILL], local:TYPE:COUNT or TYPE:VALUE".into());
        }
        let (head, rest) =
            t.split_once(':').ok_or_else(|| "expected buf:TYPE:COUNT[=FILL], local:TYPE:COUNT or TYPE:VALUE, found no ':'".to_string())?;
        match head {
            "buf" => {
                let (shape, fill) = match rest.split_once('=') {
                    Some((s, f)) => (s, Some(f)),
                    None => (rest, None),
                };
                let (ty, count) = parse_type_count(shape, "buf")?;
                let fill = match fill {
                    None => Fill::Zero,
                    Some(f) => parse_fill(ty, f, base_dir)?,
                };
                Ok(ArgSpec::Buffer { ty, count, fill })
            }
            "local" => {
                if rest.contains('=') {
                    return Err("a local argument has no fill (local memory starts uninitialised)".into());
                }
                let (ty, count) = parse_type_count(rest, "local")?;
                Ok(ArgSpec::Local { ty, count })
            }
            "struct" => parse_struct(rest),
            _ => match ScalarType::parse(head) {
                Some(ty) => Ok(ArgSpec::Scalar(Scalar::parse(ty, rest)?)),
                None => {
                    Err(format!("unknown argument kind or type '{head}': expected buf, local or a scalar type ({})", ScalarType::list()))
                }
            },
        }
    }
}

/// `struct:TYPE:VALUE,TYPE:VALUE…`: the fields of a struct passed by value.
fn parse_struct(rest: &str) -> Result<ArgSpec, String> {
    let fields = rest
        .split(',')
        .map(|f| {
            let f = f.trim();
            let (ty, value) = f.split_once(':').ok_or_else(|| format!("struct field '{f}': expected TYPE:VALUE"))?;
            let ty =
                ScalarType::parse(ty).ok_or_else(|| format!("struct field '{f}': unknown type '{ty}' (one of {})", ScalarType::list()))?;
            Scalar::parse(ty, value).map_err(|e| format!("struct field '{f}': {e}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ArgSpec::Struct(fields))
}

/// Largest buffer or local argument accepted (1 TiB): keeps byte sizes far
/// from overflowing and catches typos before an allocation does.
const MAX_ARG_BYTES: u64 = 1 << 40;

fn parse_type_count(text: &str, kind: &str) -> Result<(ScalarType, u64), String> {
    let (ty, count) = text.split_once(':').ok_or_else(|| format!("expected {kind}:TYPE:COUNT, found '{kind}:{text}'"))?;
    let ty = ScalarType::parse(ty).ok_or_else(|| format!("unknown element type '{ty}' (one of {})", ScalarType::list()))?;
    let count: u64 = parse_u64(count).map_err(|_| format!("COUNT '{count}' is not a whole number"))?;
    if count == 0 {
        return Err("COUNT must be at least 1".into());
    }
    if count.checked_mul(ty.size() as u64).is_none_or(|b| b > MAX_ARG_BYTES) {
        return Err(format!("{count} {ty} elements is more than the 1 TiB limit"));
    }
    Ok((ty, count))
}

fn parse_fill(ty: ScalarType, text: &str, base_dir: Option<&Path>) -> Result<Fill, String> {
    let (name, value) = match text.split_once(':') {
        Some((n, v)) => (n, Some(v)),
        None => (text, None),
    };
    match (name, value) {
        ("zero", None) => Ok(Fill::Zero),
        ("ramp", None) => Ok(Fill::Ramp),
        ("const", Some(v)) => Scalar::parse(ty, v).map(Fill::Const).map_err(|e| format!("fill const: {e}")),
        ("rand", Some(v)) => parse_u64(v).map(Fill::Rand).map_err(|_| format!("fill rand: SEED '{v}' is not a whole number (0..=2^64-1)")),
        ("file", Some(p)) if !p.is_empty() => {
            let p = PathBuf::from(p);
            Ok(Fill::File(match base_dir {
                Some(dir) if p.is_relative() => dir.join(p),
                _ => p,
            }))
        }
        ("zero" | "ramp", Some(_)) => Err(format!("fill '{name}' takes no value")),
        ("const" | "rand" | "file", _) => {
            let what = match name {
                "const" => "const:V",
                "rand" => "rand:SEED",
                _ => "file:PATH",
            };
            Err(format!("fill '{name}' needs a value: {what}"))
        }
        _ => Err(format!("unknown fill '{text}' (one of zero, ramp, const:V, rand:SEED, file:PATH)")),
    }
}

fn parse_u64(text: &str) -> Result<u64, std::num::ParseIntError> {
    let t = text.trim().replace('_', "");
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse::<u64>(),
    }
}

/// Parses `X[,Y[,Z]]`.
pub fn parse_dims(text: &str) -> Result<Vec<u64>, String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() > 3 {
        return Err(format!("'{text}' has {} dimensions; 1 to 3 are allowed", parts.len()));
    }
    parts.iter().map(|p| parse_u64(p).map_err(|_| format!("'{p}' in '{text}' is not a whole number"))).collect()
}

/// Parses a byte count: `65536`, `64K`, `64KiB`, `1M`, `1MiB` (K = 1024).
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit() && c != '_').unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n = parse_u64(num).map_err(|_| format!("'{t}' is not a byte count (e.g. 65536, 64K, 1MiB)"))?;
    let mult: u64 = match unit.trim() {
        "" | "B" => 1,
        "K" | "k" | "KiB" | "KB" => 1 << 10,
        "M" | "MiB" | "MB" => 1 << 20,
        "G" | "GiB" | "GB" => 1 << 30,
        u => return Err(format!("unknown unit '{u}' in '{t}' (use K, M or G; K = 1024)")),
    };
    n.checked_mul(mult).ok_or_else(|| format!("'{t}' is too large"))
}

impl Engine {
    pub fn parse(s: &str) -> Option<Engine> {
        Engine::ALL.into_iter().find(|e| e.name() == s)
    }
}

impl Policy {
    pub fn parse(s: &str) -> Option<Policy> {
        Policy::ALL.into_iter().find(|p| p.name() == s)
    }
}

// ---------------------------------------------------------------------------
// One parser per flag value, `fn(&str) -> Result<T, String>`: what clap's
// `value_parser` calls and what a launch file's key is read with.

/// `--engine`.
pub fn engine(text: &str) -> Result<Engine, String> {
    Engine::parse(text.trim()).ok_or_else(|| format!("unknown engine (available: {})", Engine::ALL.map(Engine::name).join(", ")))
}

/// `--policy`.
pub fn policy(text: &str) -> Result<Policy, String> {
    Policy::parse(text.trim()).ok_or_else(|| format!("unknown policy (available: {})", Policy::ALL.map(Policy::name).join(", ")))
}

/// `--check`: a comma-separated list of the emulator's checks.
pub fn checks(text: &str) -> Result<crate::launch::Checks, String> {
    crate::launch::Checks::parse(text.trim())
}

/// `--repeat`, `--interleave`: 1 to `u32::MAX`.
pub fn positive(text: &str) -> Result<u32, String> {
    match parse_u64(text) {
        Ok(v) if v >= 1 && v <= u32::MAX as u64 => Ok(v as u32),
        _ => Err("expected a whole number from 1 to 4294967295".into()),
    }
}

/// `--warp-width`: 1 to [`MAX_WARP_WIDTH`].
pub fn warp_width(text: &str) -> Result<u32, String> {
    match parse_u64(text) {
        Ok(v) if (1..=MAX_WARP_WIDTH as u64).contains(&v) => Ok(v as u32),
        _ => Err(format!("expected a whole number from 1 to {MAX_WARP_WIDTH}")),
    }
}

/// `--tolerance`, in ULPs.
pub fn ulps(text: &str) -> Result<u64, String> {
    parse_u64(text).map_err(|_| "expected a whole number of ULPs".to_string())
}

/// `--timeout`: a positive number of seconds (`30`, `2.5`).
pub fn seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 1e9 => Ok(s),
        _ => Err("expected a positive number of seconds, e.g. 30 or 2.5".into()),
    }
}

/// `--stats`.
pub fn stats_format(text: &str) -> Result<StatsFormat, String> {
    match text.trim() {
        "text" => Ok(StatsFormat::Text),
        "json" => Ok(StatsFormat::Json),
        _ => Err("expected 'json' or 'text'".into()),
    }
}

/// A launch file's `aot = …`, `check-uniformity = …` (on the command line,
/// these are flags without a value).
pub fn switch(text: &str) -> Result<bool, String> {
    match text.trim() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err("expected 'true' or 'false'".into()),
    }
}

/// `--global`, `--local`, `--global-offset`: `X[,Y[,Z]]`.
pub fn dims(text: &str) -> Result<Vec<u64>, String> {
    parse_dims(text.trim())
}

/// A path, relative to `base_dir` (a launch file's folder) when given.
pub fn path_in(text: &str, base_dir: Option<&Path>) -> PathBuf {
    let p = PathBuf::from(text.trim());
    match base_dir {
        Some(dir) if p.is_relative() => dir.join(p),
        _ => p,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch::model::Grid;

    fn arg(t: &str) -> Result<ArgSpec, String> {
        ArgSpec::parse(t, None)
    }

    #[test]
    fn scalar_types() {
        for t in ScalarType::ALL {
            assert_eq!(ScalarType::parse(t.name()), Some(t));
            assert_eq!(t.size() * 8, t.bits() as usize);
        }
        assert_eq!(ScalarType::parse("f16"), None);
        assert!(ScalarType::F64.is_float() && !ScalarType::U8.is_float());
        assert!(ScalarType::I16.is_signed() && !ScalarType::U16.is_signed());
    }

    #[test]
    fn buffer_forms() {
        assert_eq!(arg("buf:f32:16").unwrap(), ArgSpec::Buffer { ty: ScalarType::F32, count: 16, fill: Fill::Zero });
        assert_eq!(arg("buf:u8:3=zero").unwrap(), ArgSpec::Buffer { ty: ScalarType::U8, count: 3, fill: Fill::Zero });
        assert_eq!(arg("buf:i64:8=ramp").unwrap(), ArgSpec::Buffer { ty: ScalarType::I64, count: 8, fill: Fill::Ramp });
        assert_eq!(
            arg("buf:f64:2=const:-1.5").unwrap(),
            ArgSpec::Buffer { ty: ScalarType::F64, count: 2, fill: Fill::Const(Scalar::parse(ScalarType::F64, "-1.5").unwrap()) }
        );
        assert_eq!(arg("buf:i16:4=rand:42").unwrap(), ArgSpec::Buffer { ty: ScalarType::I16, count: 4, fill: Fill::Rand(42) });
        assert_eq!(
            arg("buf:u32:4=file:in/a.bin").unwrap(),
            ArgSpec::Buffer { ty: ScalarType::U32, count: 4, fill: Fill::File("in/a.bin".into()) }
        );
        // Relative file paths follow the base folder; absolute ones do not.
        assert_eq!(
            ArgSpec::parse("buf:u32:4=file:a.bin", Some(Path::new("/x/y"))).unwrap(),
            ArgSpec::Buffer { ty: ScalarType::U32, count: 4, fill: Fill::File("/x/y/a.bin".into()) }
        );
        assert_eq!(
            ArgSpec::parse("buf:u32:4=file:/abs.bin", Some(Path::new("/x/y"))).unwrap(),
            ArgSpec::Buffer { ty: ScalarType::U32, count: 4, fill: Fill::File("/abs.bin".into()) }
        );
        assert_eq!(arg("buf:u32:0x10").unwrap().bytes(), 64);
    }

    #[test]
    fn scalar_and_local_forms() {
        assert_eq!(arg("i32:-3").unwrap(), ArgSpec::Scalar(Scalar::from_bits(ScalarType::I32, (-3i32) as u32 as u64)));
        assert_eq!(arg("u32:0xff").unwrap(), ArgSpec::Scalar(Scalar::from_bits(ScalarType::U32, 255)));
        assert_eq!(arg("f32:0.5").unwrap(), ArgSpec::Scalar(Scalar::from_bits(ScalarType::F32, 0.5f32.to_bits() as u64)));
        assert_eq!(arg("f64:1e-3").unwrap(), ArgSpec::Scalar(Scalar::from_bits(ScalarType::F64, 1e-3f64.to_bits())));
        assert_eq!(arg("local:f32:256").unwrap(), ArgSpec::Local { ty: ScalarType::F32, count: 256 });
        assert_eq!(arg("local:f32:256").unwrap().bytes(), 1024);
        match arg("i8:-128").unwrap() {
            ArgSpec::Scalar(s) => assert_eq!(s.as_bytes(), &[0x80]),
            other => panic!("{other:?}"),
        }
        match arg("i64:-1").unwrap() {
            ArgSpec::Scalar(s) => assert_eq!(s.as_bytes(), &[0xff; 8]),
            other => panic!("{other:?}"),
        }
        match arg("u16:65535").unwrap() {
            ArgSpec::Scalar(s) => assert_eq!(s.as_bytes(), &[0xff, 0xff]),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn display_round_trips() {
        for t in [
            "buf:f32:16",
            "buf:i64:8=ramp",
            "buf:u32:4=rand:7",
            "buf:f64:2=const:-1.5",
            "i32:-3",
            "f32:0.5",
            "local:u8:9",
            "buf:u8:1=file:x.bin",
        ] {
            let a = arg(t).unwrap();
            assert_eq!(a.to_string(), t);
            assert_eq!(arg(&a.to_string()).unwrap(), a);
        }
    }

    #[test]
    fn malformed_arguments_say_why() {
        let cases: &[(&str, &str)] = &[
            ("", "empty argument"),
            ("buf", "no ':'"),
            ("buf:f32", "expected buf:TYPE:COUNT"),
            ("buf:f33:4", "unknown element type 'f33'"),
            ("buf:f32:abc", "COUNT 'abc' is not a whole number"),
            ("buf:f32:-1", "COUNT '-1' is not a whole number"),
            ("buf:f32:0", "COUNT must be at least 1"),
            ("buf:f32:4=sine", "unknown fill 'sine'"),
            ("buf:f32:4=const", "fill 'const' needs a value"),
            ("buf:f32:4=const:x", "fill const: 'x' is not an f32 number"),
            ("buf:u8:4=const:256", "out of range for u8"),
            ("buf:f32:4=rand:-1", "SEED '-1' is not a whole number"),
            ("buf:f32:4=rand", "fill 'rand' needs a value"),
            ("buf:f32:4=file:", "fill 'file' needs a value"),
            ("buf:f32:4=ramp:3", "fill 'ramp' takes no value"),
            ("buf:u64:99999999999999999", "more than the 1 TiB limit"),
            ("local:f32:4=zero", "a local argument has no fill"),
            ("local:f32", "expected local:TYPE:COUNT"),
            ("local:bool:3", "unknown element type 'bool'"),
            ("i32:", "missing i32 value"),
            ("i32:1.5", "'1.5' is not an integer"),
            ("i32:2147483648", "out of range for i32"),
            ("u32:-1", "out of range for u32"),
            ("i8:128", "out of range for i8"),
            ("f32:one", "'one' is not an f32 number"),
            ("f32:1e40", "1e40 is out of range for f32 (largest finite magnitude 3.4028235e38)"),
            ("f32:-3.5e38", "-3.5e38 is out of range for f32"),
            ("f64:1e400", "1e400 is out of range for f64"),
            ("buf:f32:4=const:1e39", "1e39 is out of range for f32"),
            ("f32:1e-50", "1e-50 is too small for f32: it would be 0"),
            ("f64:-2.5e-400", "-2.5e-400 is too small for f64"),
            ("int:3", "unknown argument kind or type 'int'"),
        ];
        for (text, want) in cases {
            let e = arg(text).expect_err(text);
            assert!(e.contains(want), "{text}: '{e}' lacks '{want}'");
        }
    }

    #[test]
    fn floats_at_the_edges_of_their_range() {
        let f32_of = |t: &str| match arg(&format!("f32:{t}")).unwrap() {
            ArgSpec::Scalar(s) => f32::from_bits(s.bits() as u32),
            other => panic!("{other:?}"),
        };
        assert_eq!(f32_of("3.4028235e38"), f32::MAX);
        assert_eq!(f32_of("-inf"), f32::NEG_INFINITY);
        assert_eq!(f32_of("Infinity"), f32::INFINITY);
        assert!(f32_of("nan").is_nan());
        assert_eq!(f32_of("1.4e-45"), f32::from_bits(1));
        assert_eq!(f32_of("0e-99"), 0.0);
        assert_eq!(f32_of("-0.000"), 0.0);
        assert!(arg("f64:1e300").is_ok() && arg("f64:inf").is_ok());
    }

    #[test]
    fn grids() {
        let g = Grid::new(&[64, 8], &[16, 4], None).unwrap();
        assert_eq!(g.work_dim, 2);
        assert_eq!(g.num_groups(), [4, 2, 1]);
        assert_eq!(g.total_groups(), 8);
        assert_eq!(g.items_per_group(), 64);
        assert_eq!(g.total_items(), 512);
        assert_eq!(g.group_id(0), [0, 0, 0]);
        assert_eq!(g.group_id(5), [1, 1, 0]);
        let g3 = Grid::new(&[4, 6, 10], &[2, 3, 5], Some(&[1, 2, 3])).unwrap();
        assert_eq!(g3.num_groups(), [2, 2, 2]);
        assert_eq!(g3.group_id(7), [1, 1, 1]);
        assert_eq!(g3.global_offset, [1, 2, 3]);
        // Every linear index maps to a distinct id inside the grid.
        let mut seen = std::collections::HashSet::new();
        for i in 0..g3.total_groups() {
            let id = g3.group_id(i);
            assert!((0..3).all(|d| id[d] < g3.num_groups()[d]));
            assert!(seen.insert(id));
        }
    }

    #[test]
    fn grid_errors_name_the_dimension() {
        let e = Grid::new(&[64, 10], &[16, 4], None).unwrap_err();
        assert!(e.contains("global size 10 is not a multiple of local size 4 in dimension 1 (y)"), "{e}");
        let e = Grid::new(&[64, 8], &[16], None).unwrap_err();
        assert!(e.contains("--global has 2 dimensions but --local has 1"), "{e}");
        let e = Grid::new(&[64, 0], &[16, 1], None).unwrap_err();
        assert!(e.contains("global size is 0 in dimension 1 (y)"), "{e}");
        let e = Grid::new(&[64], &[0], None).unwrap_err();
        assert!(e.contains("local size is 0 in dimension 0 (x)"), "{e}");
        let e = Grid::new(&[64], &[16], Some(&[1, 2])).unwrap_err();
        assert!(e.contains("--global-offset has 2"), "{e}");
        assert!(parse_dims("1,2,3,4").unwrap_err().contains("4 dimensions"));
        assert!(parse_dims("1,x").unwrap_err().contains("'x'"));
        assert!(parse_dims("").is_err());
        assert_eq!(parse_dims(" 8, 4 ").unwrap(), vec![8, 4]);
        let e = Grid::new(&[1 << 32, 1 << 32, 1 << 32], &[1, 1, 1], None).unwrap_err();
        assert!(e.contains("2^64"), "{e}");
    }

    #[test]
    fn byte_counts() {
        assert_eq!(parse_bytes("65536").unwrap(), 65536);
        assert_eq!(parse_bytes("64K").unwrap(), 65536);
        assert_eq!(parse_bytes("64KiB").unwrap(), 65536);
        assert_eq!(parse_bytes("1M").unwrap(), 1 << 20);
        assert!(parse_bytes("12Q").unwrap_err().contains("unknown unit"));
        assert!(parse_bytes("K").is_err());
    }
}
