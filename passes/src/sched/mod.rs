//! Modulo scheduling and bundling of innermost loops (seed 002: the CAS/ICT
//! micro-scheduler for cyclic dependence graphs), independent of LLVM IR.
//!
//! `machine` reads a model, `automaton` generates its template automaton,
//! `ddg` is the dependence graph (and its `.ddg` text form), `modulo` finds
//! II and the flat schedule, `bundle` packs each kernel row into bundles
//! (the patent's cyclic micro-scheduler and ORC's linear baseline), `check`
//! is the independent checker and brute-force oracle, `kernel` ties them
//! together into the per-loop report.

pub mod automaton;
pub mod bundle;
pub mod check;
pub mod ddg;
pub mod kernel;
pub mod machine;
pub mod modulo;
