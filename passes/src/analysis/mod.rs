//! Analyses over one function's CFG, each computed once and handed to the
//! passes that need them (see `cache.rs`).

pub mod affine_guard;
pub mod branch_profile;
pub mod cache;
pub mod control_deps;
pub mod convergence;
pub mod cycles;
pub mod dominators;
pub mod likely_uniform;
pub mod liveness;
pub mod loop_ddg;
pub mod loops;
pub mod memdeps;
pub mod post_dominators;
pub mod predicates;
pub mod preserved;
pub mod private_memory;
pub mod scc;
mod table;
pub mod uniformity;
