//! Passes that rewrite IR, one file each.

pub mod testing;
pub mod wiloops;
