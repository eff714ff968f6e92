//! Passes that rewrite IR, one file each.

pub mod byval_private;
pub mod call_graph;
pub mod check_uniformity;
pub mod converge;
pub mod ifconvert;
pub mod inline_helpers;
pub mod internalize;
pub mod lcssa;
pub mod local_atomics;
pub mod lockstep;
pub mod lockstep_uniform;
pub mod loop_copy;
pub mod memdse;
pub mod memfwd;
pub mod ocl_builtins;
mod ocl_builtins_extra;
pub mod rpo_layout;
pub mod select_tree;
pub mod strip_markers;
pub mod subgroups;
pub mod swp;
pub mod testing;
pub mod to_nvptx;
pub mod warp_exchange;
pub mod warp_loops;
pub mod wiloops;
pub mod wiloops_version;
