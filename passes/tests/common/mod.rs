//! Generators and brute-force helpers shared by the property tests of the
//! graph analyses (`graph_properties.rs`), the convergence walk
//! (`convergence_props.rs`) and the passes that take generated CFGs.
//!
//! Every helper works on raw successor lists (`Vec<Vec<u32>>`, block 0 the
//! entry), never on the code under test, so each test file's oracle stays
//! independent of the analyses it checks.

// Each test binary uses its own subset.
#![allow(dead_code)]

pub mod brute;
pub mod programs;

use proptest::prelude::ProptestConfig;

/// `cases` cases per property unless `PROPTEST_CASES` says otherwise (for
/// longer runs by hand).
pub fn config_with(cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(cases);
    ProptestConfig { cases, ..ProptestConfig::default() }
}
