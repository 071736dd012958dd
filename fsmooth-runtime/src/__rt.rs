//! Helpers called by generated code. Not a stable API.
//!
//! Every access here is panic-free: loads and stores the compiler proved in bounds go through
//! `ld`/`st`, whose out-of-range arm is unreachable and folds away where LLVM can see it;
//! accesses it could not prove go through the `*_checked` forms, which return `Err`.

use crate::Error;

/// Load a proven-in-bounds element.
#[inline(always)]
pub fn ld(s: &[f64], i: usize) -> f64 {
    match s.get(i) {
        Some(v) => *v,
        None => 0.0,
    }
}

/// Store to a proven-in-bounds element.
#[inline(always)]
pub fn st(s: &mut [f64], i: usize, v: f64) {
    if let Some(d) = s.get_mut(i) {
        *d = v;
    }
}

/// An index the compiler could not prove: `i < len`, else `Error::Index`.
#[inline(always)]
pub fn check(i: usize, len: usize) -> Result<usize, Error> {
    if i < len {
        Ok(i)
    } else {
        Err(Error::Index { index: i, len })
    }
}

/// A slice `lo..hi` of an array of `len` elements: `lo <= hi <= len`, else `Error::Index`.
#[inline(always)]
pub fn check_range(lo: usize, hi: usize, len: usize) -> Result<(), Error> {
    if lo <= hi && hi <= len {
        Ok(())
    } else {
        Err(Error::Index { index: hi, len })
    }
}

/// Checked `usize` arithmetic, reporting the kernel expression `expr` on failure.
#[inline(always)]
pub fn add(a: usize, b: usize, expr: &'static str) -> Result<usize, Error> {
    a.checked_add(b).ok_or(Error::Arithmetic { expr })
}
/// See [`add`].
#[inline(always)]
pub fn sub(a: usize, b: usize, expr: &'static str) -> Result<usize, Error> {
    a.checked_sub(b).ok_or(Error::Arithmetic { expr })
}
/// See [`add`].
#[inline(always)]
pub fn mul(a: usize, b: usize, expr: &'static str) -> Result<usize, Error> {
    a.checked_mul(b).ok_or(Error::Arithmetic { expr })
}
/// See [`add`].
#[inline(always)]
pub fn div(a: usize, b: usize, expr: &'static str) -> Result<usize, Error> {
    a.checked_div(b).ok_or(Error::Arithmetic { expr })
}
/// Exact division for sizes (`d * (d + 1) / 2`): a remainder is an error, since shapes are
/// compared as polynomials with exact division.
#[inline(always)]
pub fn div_exact(a: usize, b: usize, expr: &'static str) -> Result<usize, Error> {
    match a.checked_rem(b) {
        Some(0) => Ok(a / b),
        _ => Err(Error::Arithmetic { expr }),
    }
}
/// A size read from an argument's length: `len / others`, or 0 when the other dimensions
/// are empty (the length check that follows then decides).
#[inline(always)]
pub fn from_len(len: usize, others: usize) -> usize {
    len.checked_div(others).unwrap_or(0)
}
/// The integer `k`-th root of `v`, rounded down (a size read from a square or cubic
/// array's length; the length check that follows rejects lengths that are not exact powers).
pub fn root(v: usize, k: u32) -> usize {
    if k <= 1 || v < 2 {
        return v;
    }
    // Start from the float estimate and correct it exactly in integers.
    let mut r = powf(v as f64, 1.0 / f64::from(k)) as usize;
    let pow = |x: usize| (0..k).try_fold(1usize, |acc, _| acc.checked_mul(x));
    while r > 0 && pow(r).is_none_or(|p| p > v) {
        r -= 1;
    }
    while pow(r + 1).is_some_and(|p| p <= v) {
        r += 1;
    }
    r
}
/// See [`add`].
#[inline(always)]
pub fn rem(a: usize, b: usize, expr: &'static str) -> Result<usize, Error> {
    a.checked_rem(b).ok_or(Error::Arithmetic { expr })
}

/// Saturating arithmetic for the `const fn` sizes (`scratch_len`, `out_len`): an overflowing
/// size saturates to `usize::MAX`, which no slab satisfies.
pub const fn sat_sub(a: usize, b: usize) -> usize {
    a.saturating_sub(b)
}
/// Saturating `/` for the `const fn` sizes.
pub const fn sat_div(a: usize, b: usize) -> usize {
    match a.checked_div(b) {
        Some(v) => v,
        None => usize::MAX,
    }
}
/// `usize::max` in a `const fn`.
pub const fn max(a: usize, b: usize) -> usize {
    if a > b { a } else { b }
}

/// Integer power with wrapping-free semantics matching `f64::powi`.
#[inline(always)]
pub fn powi(x: f64, k: i32) -> f64 {
    m::powi(x, k)
}

#[cfg(feature = "std")]
mod m {
    #[inline(always)]
    pub fn powi(x: f64, k: i32) -> f64 {
        x.powi(k)
    }
}

#[cfg(not(feature = "std"))]
mod m {
    #[inline(always)]
    pub fn powi(x: f64, k: i32) -> f64 {
        // Exponentiation by squaring, the algorithm behind LLVM's powi lowering.
        let mut base = x;
        let mut n = k.unsigned_abs();
        let mut acc = 1.0;
        while n > 0 {
            if n & 1 == 1 {
                acc *= base;
            }
            base *= base;
            n >>= 1;
        }
        if k < 0 { 1.0 / acc } else { acc }
    }
}

macro_rules! unary {
    ($($name:ident),*) => {$(
        /// The f64 function of the same name (std's with feature `std`, else libm's).
        #[inline(always)]
        pub fn $name(x: f64) -> f64 {
            #[cfg(feature = "std")]
            { x.$name() }
            #[cfg(not(feature = "std"))]
            { libm_unary::$name(x) }
        }
    )*};
}
unary!(sqrt, exp, ln, sin, cos, tan, tanh, abs, floor, ceil);

#[cfg(not(feature = "std"))]
mod libm_unary {
    pub use libm::{ceil, cos, exp, fabs as abs, floor, log as ln, sin, sqrt, tan, tanh};
}

/// `x.powf(y)`.
#[inline(always)]
pub fn powf(x: f64, y: f64) -> f64 {
    #[cfg(feature = "std")]
    {
        x.powf(y)
    }
    #[cfg(not(feature = "std"))]
    {
        libm::pow(x, y)
    }
}
/// `x.min(y)` (IEEE minNum, as std).
#[inline(always)]
pub fn min(x: f64, y: f64) -> f64 {
    x.min(y)
}
/// `x.max(y)` (IEEE maxNum, as std).
#[inline(always)]
pub fn max_f(x: f64, y: f64) -> f64 {
    x.max(y)
}
