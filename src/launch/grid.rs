//! The launch's grid, once the kernel is known: the local size the launch
//! gives, checked against what the kernel declares ([`LaunchBounds`]), or,
//! without `--local`, the kernel's `reqd_work_group_size`, else a size
//! chosen by pocl's rule ([`choose_local`]).
//!
//! What OpenCL calls `CL_INVALID_WORK_GROUP_SIZE` is an error here: a
//! `--local` other than the kernel's `reqd_work_group_size`, more threads
//! than a CUDA kernel's `__launch_bounds__`, and a global size that is not
//! a multiple of the local size for a kernel compiled for uniform
//! work-groups (OpenCL 1.x, CUDA). The first two are the kernel's
//! requirements (exit 1); the last is the sizes' own mistake (exit 2, as
//! before non-uniform work-groups existed).

use super::model::{Grid, GridRequest, LaunchBounds, DIM_NAMES};
use crate::diag::ToolError;

/// The device simt's default local size is chosen for: pocl's CPU device
/// limits (4096 work-items per work-group and per dimension) and a
/// preferred multiple of 8, the f32 lanes of an AVX2 vector, along which
/// the work-item loops vectorise.
pub const MAX_GROUP_ITEMS: u64 = 4096;
pub const PREFERRED_MULTIPLE: u64 = 8;

/// Checks what can be checked before the kernel is known: dimensions, zero
/// sizes, overflow. Divisibility waits for the kernel.
pub fn check_request(req: &GridRequest) -> Result<(), String> {
    let ones = vec![1; req.global.len()];
    Grid::checked(&req.global, req.local.as_deref().unwrap_or(&ones), req.global_offset.as_deref(), false).map(drop)
}

/// The grid of `req` for kernel `kernel`, which declares `bounds`; `units`
/// is the number of compute units a chosen local size should keep busy.
pub fn resolve(req: &GridRequest, bounds: &LaunchBounds, kernel: &str, units: u64) -> Result<Grid, ToolError> {
    let n = req.global.len();
    let usage = |e: String| {
        ToolError::Usage(match &req.from {
            Some(p) => format!("{}: error: {e}", p.display()),
            None => format!("error: {e}"),
        })
    };
    let run = |e: String| ToolError::Run(format!("kernel '{kernel}': {e}"));
    let dims = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
    let local = match (&req.local, bounds.reqd_local) {
        (Some(l), Some(reqd)) => {
            let mut padded = [1u64; 3];
            padded[..l.len().min(3)].copy_from_slice(&l[..l.len().min(3)]);
            if padded != reqd {
                return Err(run(format!(
                    "--local {} does not match its reqd_work_group_size({}) (OpenCL's CL_INVALID_WORK_GROUP_SIZE); \
                     launch it with --local {}, or leave --local out",
                    dims(l),
                    dims(&reqd),
                    dims(&reqd[..n.max(last_non_one(&reqd))])
                )));
            }
            l.clone()
        }
        (Some(l), None) => l.clone(),
        (None, Some(reqd)) => {
            if last_non_one(&reqd) > n {
                return Err(run(format!(
                    "its reqd_work_group_size({}) has {} dimensions but --global has {n}",
                    dims(&reqd),
                    last_non_one(&reqd)
                )));
            }
            reqd[..n].to_vec()
        }
        (None, None) => {
            let max = bounds.max_items.map_or(MAX_GROUP_ITEMS, |m| m.min(MAX_GROUP_ITEMS));
            choose_local(&req.global, max, PREFERRED_MULTIPLE, units)
        }
    };
    if let Some(max) = bounds.max_items {
        let items: u64 = local.iter().product();
        if items > max {
            return Err(run(format!(
                "--local {} is {items} threads per block, over its __launch_bounds__ of {max} (maxntid); \
                 the launch would fail on a GPU",
                dims(&local)
            )));
        }
    }
    let grid = Grid::checked(&req.global, &local, req.global_offset.as_deref(), false).map_err(usage)?;
    if bounds.uniform_only {
        if let Some(d) = (0..n).find(|&d| !grid.global[d].is_multiple_of(grid.local[d])) {
            return Err(usage(format!(
                "global size {} is not a multiple of local size {} in dimension {d} ({}); kernel '{kernel}' takes uniform \
                 work-groups only (OpenCL 1.x, -cl-uniform-work-group-size, or CUDA), and this is OpenCL's CL_INVALID_WORK_GROUP_SIZE",
                grid.global[d], grid.local[d], DIM_NAMES[d]
            )));
        }
    }
    Ok(grid)
}

/// How many leading dimensions of `reqd` matter (the last one above 1).
fn last_non_one(reqd: &[u64; 3]) -> usize {
    (0..3).rev().find(|&d| reqd[d] > 1).map_or(1, |d| d + 1)
}

/// A local size for `global` when the launch gives none, by the rule of
/// pocl's `pocl_default_local_size_optimizer` (lib/CL/pocl_local_size.c):
///
/// 1. per dimension, the step is gcd(preferred multiple, global size), and
///    the local size is the largest multiple of the step that divides the
///    global size and stays within `max_items`;
/// 2. while the work-group has more than `max_items` work-items, halve z,
///    then y, then x where the half still is a multiple of the step and
///    divides the global size; failing that, set to 1 the dimension with
///    the smallest step (z first on ties), and failing that any dimension
///    above 1 (z, y, x);
/// 3. while there are fewer work-groups than `units` compute units, split
///    (z, then y, then x) a dimension by as large a factor as keeps the
///    rules of 1, as long as the work-groups keep at least 4 × the
///    preferred multiple of work-items; failing a split, set the smallest
///    dimension to 1 if the others still make that minimum.
///
/// The result divides the global size in every dimension.
pub fn choose_local(global: &[u64], max_items: u64, preferred: u64, units: u64) -> Vec<u64> {
    let n = global.len();
    let mut g = [1u64; 3];
    g[..n].copy_from_slice(global);
    let max_items = max_items.max(1);
    let preferred = preferred.max(1);
    let step = g.map(|x| gcd(preferred, x));
    // The largest divisor of `k` that is at most `limit`.
    let divisor_at_most = |k: u64, limit: u64| -> u64 {
        if k <= limit {
            return k;
        }
        let mut d = limit.max(1);
        while !k.is_multiple_of(d) {
            d -= 1;
        }
        d
    };
    let mut l = [0, 1, 2].map(|d| {
        let limit = g[d].min(max_items);
        divisor_at_most(g[d] / step[d], limit / step[d]) * step[d]
    });
    // Whether `a` divides `b` and `b` divides `c`.
    let chain = |a: u64, b: u64, c: u64| b.is_multiple_of(a) && c.is_multiple_of(b);
    let items = |l: &[u64; 3]| l[0] * l[1] * l[2];
    while items(&l) > max_items {
        if let Some(d) = [2, 1, 0].into_iter().find(|&d| l[d].is_multiple_of(2) && chain(step[d], l[d] / 2, g[d])) {
            l[d] /= 2;
            continue;
        }
        let least = [(2, 0, 1), (1, 2, 0), (0, 1, 2)]
            .into_iter()
            .find(|&(a, b, c)| l[a] > 1 && step[a] <= step[b] && step[a] <= step[c])
            .map(|(a, _, _)| a);
        if let Some(d) = least.or_else(|| [2, 1, 0].into_iter().find(|&d| l[d] > 1)) {
            l[d] = 1;
        }
    }
    let min_items = (4 * preferred).min(max_items);
    let mut groups = [0, 1, 2].map(|d| g[d] / l[d]);
    loop {
        let splits = units / (groups[0] * groups[1] * groups[2]).max(1);
        if splits <= 1 || items(&l) < splits * min_items {
            break;
        }
        let mut s = splits;
        let mut split = false;
        while s > 1 && !split {
            if let Some(d) = [2, 1, 0].into_iter().find(|&d| l[d].is_multiple_of(s) && chain(step[d], l[d] / s, g[d])) {
                l[d] /= s;
                groups[d] *= s;
                split = true;
            } else {
                s -= 1;
            }
        }
        if split {
            continue;
        }
        let smallest = [(2, 0, 1), (1, 2, 0), (0, 1, 2)]
            .into_iter()
            .find(|&(a, b, c)| l[a] > 1 && l[a] <= l[b] && l[a] <= l[c] && l[b] * l[c] >= min_items)
            .map(|(a, _, _)| a);
        match smallest {
            Some(d) => {
                l[d] = 1;
                groups[d] = g[d];
            }
            None => break,
        }
    }
    l[..n].to_vec()
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(global: &[u64], local: Option<&[u64]>) -> GridRequest {
        GridRequest { global: global.to_vec(), local: local.map(<[u64]>::to_vec), global_offset: None, from: None }
    }

    fn reqd(x: u64, y: u64, z: u64) -> LaunchBounds {
        LaunchBounds { reqd_local: Some([x, y, z]), ..Default::default() }
    }

    #[test]
    fn reqd_work_group_size_is_used_and_enforced() {
        let g = resolve(&req(&[1024], None), &reqd(64, 1, 1), "k", 4).unwrap();
        assert_eq!(g.local, [64, 1, 1]);
        let g = resolve(&req(&[64, 64], None), &reqd(16, 4, 1), "k", 4).unwrap();
        assert_eq!(g.local, [16, 4, 1]);
        assert!(resolve(&req(&[1024], Some(&[64])), &reqd(64, 1, 1), "k", 4).is_ok());
        let e = resolve(&req(&[1024], Some(&[32])), &reqd(64, 1, 1), "k", 4).unwrap_err();
        assert_eq!(e.exit_code(), 1);
        assert_eq!(
            e.to_string(),
            "error: kernel 'k': --local 32 does not match its reqd_work_group_size(64,1,1) (OpenCL's \
             CL_INVALID_WORK_GROUP_SIZE); launch it with --local 64, or leave --local out"
        );
        let e = resolve(&req(&[1024], None), &reqd(16, 4, 1), "k", 4).unwrap_err();
        assert!(e.to_string().contains("reqd_work_group_size(16,4,1) has 2 dimensions but --global has 1"), "{e}");
    }

    #[test]
    fn launch_bounds_and_uniformity() {
        let lb = LaunchBounds { max_items: Some(128), uniform_only: true, ..Default::default() };
        let e = resolve(&req(&[1024], Some(&[256])), &lb, "k", 4).unwrap_err();
        assert!(e.to_string().contains("--local 256 is 256 threads per block, over its __launch_bounds__ of 128"), "{e}");
        assert_eq!(resolve(&req(&[4096], None), &lb, "k", 1).unwrap().local, [128, 1, 1]);
        let e = resolve(&req(&[100], Some(&[8])), &lb, "k", 4).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("global size 100 is not a multiple of local size 8 in dimension 0 (x); kernel 'k' takes uniform"));
        let g = resolve(&req(&[100], Some(&[8])), &LaunchBounds::default(), "k", 4).unwrap();
        assert_eq!((g.num_groups(), g.is_uniform(), g.group_local([12, 0, 0])), ([13, 1, 1], false, [4, 1, 1]));
    }

    /// pocl's rule, worked out by hand from its description.
    #[test]
    fn choose_local_follows_pocl() {
        // 1-D, one unit: the largest multiple of 8 dividing 1M within 4096.
        assert_eq!(choose_local(&[1 << 20], 4096, 8, 1), vec![4096]);
        // 16 units: 256 groups of 4096 are already more than 16.
        assert_eq!(choose_local(&[1 << 20], 4096, 8, 16), vec![4096]);
        // 4096 items on 8 units: one group of 4096 is split by 8 into 512s.
        assert_eq!(choose_local(&[4096], 4096, 8, 8), vec![512]);
        // A prime size: step gcd(8, 1009) = 1, 1009 <= 4096 fits whole.
        assert_eq!(choose_local(&[1009], 4096, 8, 1), vec![1009]);
        // 24 with preferred 16: step 8, largest multiple of 8 dividing 24 is 24.
        assert_eq!(choose_local(&[24], 4096, 16, 1), vec![24]);
        // 2-D 1024 x 1024: y halves to 8 (not 4: no multiple of the step
        // 8), then x halves to 512: 512 x 8 = 4096.
        assert_eq!(choose_local(&[1024, 1024], 4096, 8, 1), vec![512, 8]);
        // 3-D 64^3: z halves to 8, then y to 8: 64 x 8 x 8 = 4096.
        assert_eq!(choose_local(&[64, 64, 64], 4096, 8, 1), vec![64, 8, 8]);
        // No split below 16 x (4 x 8) items: 64 stays whole on 16 units.
        assert_eq!(choose_local(&[64], 4096, 8, 16), vec![64]);
        // 1024 on 4 units: split by 4 into 256s (256 >= 32).
        assert_eq!(choose_local(&[1024], 4096, 8, 4), vec![256]);
        for (global, units) in [(vec![1000u64, 7], 3u64), (vec![6, 10, 14], 16), (vec![4097], 2)] {
            let l = choose_local(&global, 4096, 8, units);
            assert!(global.iter().zip(&l).all(|(g, l)| g % l == 0), "{global:?} {l:?}");
            assert!(l.iter().product::<u64>() <= 4096);
        }
    }
}
