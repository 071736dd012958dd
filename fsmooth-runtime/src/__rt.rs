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

/// Element `k` of the row `s[off..off + N]`, both proven in bounds: every load of one row
/// makes the same range check, so LLVM keeps only the first.
#[inline(always)]
pub fn ldr<const N: usize>(s: &[f64], off: usize, k: usize) -> f64 {
    // A choice of row, not of value: the same choice for every load of the row, which
    // LLVM computes once.
    let row: &[f64; N] = match s
        .get(off..off.wrapping_add(N))
        .and_then(|r| <&[f64; N]>::try_from(r).ok())
    {
        Some(r) => r,
        None => &[0.0; N],
    };
    match row.get(k) {
        Some(v) => *v,
        None => 0.0,
    }
}

/// The rows of width `w` of `s`, one after the other: a loop's row stream. Each step is one
/// length test (a `get` of row `l` would also compute and test its offset). Rows of width 0
/// never end; the loops that take them have another part of their length.
#[inline(always)]
pub fn rows(s: &[f64], w: usize) -> Rows<'_> {
    Rows { rest: s, w }
}

/// The iterator of [`rows`].
pub struct Rows<'a> {
    rest: &'a [f64],
    w: usize,
}

impl<'a> Iterator for Rows<'a> {
    type Item = &'a [f64];

    #[inline(always)]
    fn next(&mut self) -> Option<&'a [f64]> {
        let (row, rest) = self.rest.split_at_checked(self.w)?;
        self.rest = rest;
        Some(row)
    }
}

/// Store to a proven-in-bounds element.
#[inline(always)]
pub fn st(s: &mut [f64], i: usize, v: f64) {
    if let Some(d) = s.get_mut(i) {
        *d = v;
    }
}

/// Store `v` at `s[off..off + N]`, proven in bounds: one range check for the row (a column
/// tile's sums), where a store per slot would test each.
#[inline(always)]
pub fn st_row<const N: usize>(s: &mut [f64], off: usize, v: [f64; N]) {
    if let Some(d) = s.get_mut(off..off.wrapping_add(N)) {
        d.copy_from_slice(&v);
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
/// `n` with `scale * n + offset == v`, rounded down and at least 0 (a size read from a
/// length such as `2 * h` or `n + 1`; the length check that follows rejects the rest).
pub fn solve_linear(v: usize, scale: usize, offset: i128) -> usize {
    let rest = (v as i128).saturating_sub(offset).max(0);
    usize::try_from(rest / (scale.max(1) as i128)).unwrap_or(usize::MAX)
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
    while pow(r.saturating_add(1)).is_some_and(|p| p <= v) && r < v {
        r += 1;
    }
    r
}
/// See [`add`].
#[inline(always)]
pub fn rem(a: usize, b: usize, expr: &'static str) -> Result<usize, Error> {
    a.checked_rem(b).ok_or(Error::Arithmetic { expr })
}

/// A zeroed heap buffer of `n` slots, for the ablation modes that take storage from the heap
/// (`#![fsmooth(storage = "heap")]` and `"heap_frame"`): the paper's D, DF and DFB. A failed
/// allocation is `Error::Scratch`, not an abort.
#[cfg(feature = "alloc")]
pub fn heap(n: usize) -> Result<alloc::vec::Vec<f64>, Error> {
    let mut v = alloc::vec::Vec::new();
    v.try_reserve_exact(n).map_err(|_| Error::Scratch {
        needed: n,
        available: 0,
    })?;
    v.resize(n, 0.0);
    Ok(v)
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
    #[cfg(feature = "std")]
    {
        x.powi(k)
    }
    #[cfg(not(feature = "std"))]
    {
        nostd::powi(x, k)
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
            { nostd::$name(x) }
        }
    )*};
}
unary!(sqrt, exp, ln, sin, cos, tan, tanh, abs, floor, ceil);

/// `x.powf(y)`.
#[inline(always)]
pub fn powf(x: f64, y: f64) -> f64 {
    #[cfg(feature = "std")]
    {
        x.powf(y)
    }
    #[cfg(not(feature = "std"))]
    {
        nostd::powf(x, y)
    }
}

/// The math of builds without `std`: libm, and `powi` by squaring. Compiled with `std` too, so
/// that the host tests can compare it with std's (`tests::libm_matches_std`).
#[cfg_attr(feature = "std", allow(dead_code, unused_imports))]
mod nostd {
    pub use libm::{
        ceil, cos, exp, fabs as abs, floor, log as ln, pow as powf, sin, sqrt, tan, tanh,
    };

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

#[cfg(test)]
mod tests {
    use super::nostd;
    use std::vec::Vec;

    #[test]
    fn row_loads_read_their_row_or_nothing() {
        let s = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(super::ldr::<2>(&s, 2, 1), 4.0);
        // A row past the end, or an element past the row: 0.0, never a panic (the
        // compiler proves neither happens; the executor flags it if one did).
        assert_eq!(super::ldr::<2>(&s, 4, 0), 0.0);
        assert_eq!(super::ldr::<2>(&s, usize::MAX, 0), 0.0);
        assert_eq!(super::ldr::<2>(&s, 0, 2), 0.0);
    }

    #[test]
    fn rows_come_in_turn_and_rows_of_width_0_never_end() {
        let s = [1.0, 2.0, 3.0, 4.0, 5.0];
        let r: Vec<&[f64]> = super::rows(&s, 2).collect();
        assert_eq!(r, [&[1.0, 2.0][..], &[3.0, 4.0][..]]);
        assert!(super::rows(&s, 0).take(7).all(|r| r.is_empty()));
        assert_eq!(super::rows(&s, 0).take(7).count(), 7);
    }

    /// Distance in ulps (representable values between); 0 for two NaNs or for 0.0 and -0.0.
    fn ulps(a: f64, b: f64) -> u64 {
        if a.is_nan() && b.is_nan() || a == b {
            return 0;
        }
        if a.is_nan() || b.is_nan() {
            return u64::MAX;
        }
        let ord = |x: f64| {
            let i = x.to_bits() as i64;
            if i < 0 { i64::MIN.wrapping_sub(i) } else { i }
        };
        ord(a).wrapping_sub(ord(b)).unsigned_abs()
    }

    /// Special values, then a deterministic sweep (xorshift64*) over many magnitudes.
    fn inputs() -> Vec<f64> {
        let mut v = std::vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            2.0,
            10.0,
            1e-300,
            5e-324,
            1e300,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            core::f64::consts::PI,
            core::f64::consts::FRAC_PI_2,
            -core::f64::consts::FRAC_PI_4,
            710.0,
            -745.0,
            1e22,
        ];
        let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
        for k in 0..20_000 {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            let u = (s.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64;
            // Uniform in [-1, 1), scaled by 10^(k % 13 - 4): small angles to 1e8.
            let scale = 10f64.powi((k % 13) - 4);
            v.push((u * 2.0 - 1.0) * scale);
        }
        v
    }

    /// The largest ulp distance between `f` and `g` over `xs`, with the worst input.
    fn worst(xs: &[f64], f: impl Fn(f64) -> f64, g: impl Fn(f64) -> f64) -> (u64, f64) {
        xs.iter()
            .map(|&x| (ulps(f(x), g(x)), x))
            .fold((0, 0.0), |a, b| if b.0 > a.0 { b } else { a })
    }

    #[test]
    #[cfg_attr(miri, ignore = "libm uses inline assembly, which Miri cannot run")]
    fn libm_matches_std() {
        let xs = inputs();
        // (name, libm, std, allowed ulps): sqrt, abs, floor and ceil are exact in both;
        // glibc's and libm's transcendental functions are each within an ulp of the true value.
        type F = fn(f64) -> f64;
        let cases: [(&str, F, F, u64); 10] = [
            ("sqrt", nostd::sqrt, f64::sqrt, 0),
            ("abs", nostd::abs, f64::abs, 0),
            ("floor", nostd::floor, f64::floor, 0),
            ("ceil", nostd::ceil, f64::ceil, 0),
            ("exp", nostd::exp, f64::exp, 1),
            ("ln", nostd::ln, f64::ln, 1),
            ("sin", nostd::sin, f64::sin, 1),
            ("cos", nostd::cos, f64::cos, 1),
            ("tan", nostd::tan, f64::tan, 2),
            ("tanh", nostd::tanh, f64::tanh, 2),
        ];
        for (name, f, g, allowed) in cases {
            let (u, x) = worst(&xs, f, g);
            assert!(
                u <= allowed,
                "{name}({x:e}): libm {:e}, std {:e}: {u} ulps (allowed {allowed})",
                f(x),
                g(x)
            );
        }
        let ys = [-3.5, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 7.25];
        let mut worst_pow = (0, 0.0, 0.0);
        for &x in &xs {
            for &y in &ys {
                let u = ulps(nostd::powf(x, y), x.powf(y));
                if u > worst_pow.0 {
                    worst_pow = (u, x, y);
                }
            }
        }
        assert!(worst_pow.0 <= 1, "powf: {worst_pow:?}");
        for &x in &xs {
            for k in -12..=12 {
                let u = ulps(nostd::powi(x, k), x.powi(k));
                assert!(u <= 2, "powi({x:e}, {k}): {u} ulps");
            }
        }
    }
}
