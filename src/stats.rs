//! Timings and sizes of a run: one JSON object (`--stats json`) or a short
//! human summary. Compile time and kernel time are kept apart.

use serde_json::{json, Map, Value};

#[derive(Clone, Debug, PartialEq)]
pub struct RunStats {
    pub engine: String,
    pub kernel: String,
    pub work_dim: u32,
    pub global: [u64; 3],
    pub local: [u64; 3],
    pub work_groups: u64,
    /// Work-items in the launch.
    pub threads: u64,
    pub compile_seconds: f64,
    /// One entry per run (`--repeat`).
    pub kernel_seconds: Vec<f64>,
    /// Engine-specific extras, e.g. host workers, scratch bytes.
    pub engine_details: Map<String, Value>,
}

impl RunStats {
    pub fn repeat(&self) -> usize {
        self.kernel_seconds.len()
    }

    pub fn best(&self) -> f64 {
        self.kernel_seconds.iter().copied().fold(f64::INFINITY, f64::min)
    }

    pub fn median(&self) -> f64 {
        median(&self.kernel_seconds)
    }

    pub fn mean(&self) -> f64 {
        if self.kernel_seconds.is_empty() {
            return f64::NAN;
        }
        self.kernel_seconds.iter().sum::<f64>() / self.kernel_seconds.len() as f64
    }

    /// The `--stats json` object.
    pub fn to_json(&self) -> Value {
        let d = self.work_dim as usize;
        let finite = |x: f64| if x.is_finite() { json!(x) } else { Value::Null };
        let mut v = json!({
            "engine": self.engine,
            "kernel": self.kernel,
            "work_dim": self.work_dim,
            "global": &self.global[..d],
            "local": &self.local[..d],
            "work_groups": self.work_groups,
            "threads": self.threads,
            "repeat": self.repeat(),
            "compile_seconds": self.compile_seconds,
            "kernel_seconds_best": finite(self.best()),
            "kernel_seconds_median": finite(self.median()),
            "kernel_seconds_mean": finite(self.mean()),
            "kernel_seconds": self.kernel_seconds,
        });
        if !self.engine_details.is_empty() {
            v["engine_details"] = Value::Object(self.engine_details.clone());
        }
        v
    }

    /// Two lines for stderr: the launch, then compile and kernel times.
    pub fn summary(&self) -> String {
        let d = self.work_dim as usize;
        let dims = |v: &[u64; 3]| v[..d].iter().map(u64::to_string).collect::<Vec<_>>().join("x");
        let times = if self.repeat() == 1 {
            format!("kernel {}", format_seconds(self.best()))
        } else {
            format!("kernel best {}, median {} over {} runs", format_seconds(self.best()), format_seconds(self.median()), self.repeat())
        };
        format!(
            "kernel '{}' on {}: global {}, local {}: {} work-groups, {} work-items\ncompile {}; {times}",
            self.kernel,
            self.engine,
            dims(&self.global),
            dims(&self.local),
            self.work_groups,
            self.threads,
            format_seconds(self.compile_seconds),
        )
    }
}

/// The median (mean of the middle two for an even count); NaN when empty.
pub fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// `1.23 s`, `12.3 ms`, `456 µs`, `789 ns`.
pub fn format_seconds(s: f64) -> String {
    if !s.is_finite() {
        return "-".into();
    }
    let a = s.abs();
    if a >= 1.0 {
        format!("{s:.3} s")
    } else if a >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else if a >= 1e-6 {
        format!("{:.3} µs", s * 1e6)
    } else {
        format!("{:.0} ns", s * 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(times: Vec<f64>) -> RunStats {
        RunStats {
            engine: "host".into(),
            kernel: "vadd".into(),
            work_dim: 2,
            global: [1024, 4, 1],
            local: [64, 2, 1],
            work_groups: 32,
            threads: 4096,
            compile_seconds: 0.25,
            kernel_seconds: times,
            engine_details: Map::new(),
        }
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&[5.0]), 5.0);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn json_has_the_promised_keys() {
        let mut s = stats(vec![0.3, 0.1, 0.2, 0.5]);
        s.engine_details.insert("workers".into(), json!(2));
        let v = s.to_json();
        assert_eq!(v["engine"], "host");
        assert_eq!(v["kernel"], "vadd");
        assert_eq!(v["repeat"], 4);
        assert_eq!(v["compile_seconds"], 0.25);
        assert_eq!(v["kernel_seconds_best"], 0.1);
        assert_eq!(v["kernel_seconds_median"], 0.25);
        assert_eq!(v["work_groups"], 32);
        assert_eq!(v["threads"], 4096);
        assert_eq!(v["global"], json!([1024, 4]));
        assert_eq!(v["local"], json!([64, 2]));
        assert_eq!(v["kernel_seconds"], json!([0.3, 0.1, 0.2, 0.5]));
        assert_eq!(v["engine_details"]["workers"], 2);
        // Round-trips through text as one object.
        let text = v.to_string();
        assert!(!text.contains('\n'));
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), v);
    }

    #[test]
    fn summaries() {
        let s = stats(vec![0.002]);
        assert_eq!(
            s.summary(),
            "kernel 'vadd' on host: global 1024x4, local 64x2: 32 work-groups, 4096 work-items\ncompile 250.000 ms; kernel 2.000 ms"
        );
        let s = stats(vec![0.002, 0.001, 0.004]);
        assert!(s.summary().ends_with("compile 250.000 ms; kernel best 1.000 ms, median 2.000 ms over 3 runs"));
        assert_eq!(format_seconds(1.5), "1.500 s");
        assert_eq!(format_seconds(2.5e-5), "25.000 µs");
        assert_eq!(format_seconds(3e-8), "30 ns");
    }
}
