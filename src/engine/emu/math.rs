//! C library math functions Rust's `f32`/`f64` lack, as the emulator runs
//! them (the same results as the host engine's calls to them).
//!
//! Declared in a module of their own, so that the emulator's `unsafe` stays
//! in three small modules (this one, `regfile` and `regions`). Each function takes and returns plain floats, reads no
//! pointer and keeps no state but `errno`, so calling it is sound for every
//! argument; the wrappers below are safe for that reason. `lgamma` is called
//! as `lgamma_r`, which returns the sign through a local instead of the
//! global `signgam` (no data race between threads).

mod c {
    extern "C" {
        pub fn erff(x: f32) -> f32;
        pub fn erf(x: f64) -> f64;
        pub fn erfcf(x: f32) -> f32;
        pub fn erfc(x: f64) -> f64;
        pub fn tgammaf(x: f32) -> f32;
        pub fn tgamma(x: f64) -> f64;
        pub fn lgammaf_r(x: f32, sign: *mut i32) -> f32;
        pub fn lgamma_r(x: f64, sign: *mut i32) -> f64;
        pub fn remainderf(x: f32, y: f32) -> f32;
        pub fn remainder(x: f64, y: f64) -> f64;
        pub fn exp10f(x: f32) -> f32;
        pub fn exp10(x: f64) -> f64;
    }
}

macro_rules! wrap {
    ($($name:ident($($a:ident: $t:ty),*) -> $r:ty;)*) => {$(
        #[inline]
        pub fn $name($($a: $t),*) -> $r {
            // SAFETY: a pure C math function of floats (module documentation).
            unsafe { c::$name($($a),*) }
        }
    )*};
}

wrap! {
    erff(x: f32) -> f32;
    erf(x: f64) -> f64;
    erfcf(x: f32) -> f32;
    erfc(x: f64) -> f64;
    tgammaf(x: f32) -> f32;
    tgamma(x: f64) -> f64;
    remainderf(x: f32, y: f32) -> f32;
    remainder(x: f64, y: f64) -> f64;
    exp10f(x: f32) -> f32;
    exp10(x: f64) -> f64;
}

#[inline]
pub fn lgammaf(x: f32) -> f32 {
    let mut sign = 0i32;
    // SAFETY: a pure C math function; `sign` is a live local it writes.
    unsafe { c::lgammaf_r(x, &mut sign) }
}

#[inline]
pub fn lgamma(x: f64) -> f64 {
    let mut sign = 0i32;
    // SAFETY: as in `lgammaf`.
    unsafe { c::lgamma_r(x, &mut sign) }
}
