//! f32 math in f32 and integer arithmetic only, for the runtime without `std`.
//!
//! libm's `sinf`, `cosf`, `tanf`, `asinf`, `cbrtf`, `exp2f`, `hypotf` and `fmaf` compute in
//! f64 inside: on a single-precision FPU (thumbv7em-none-eabihf) every one of them calls the
//! soft-float `__aeabi_d*` routines, which LANGUAGE.md section 11 rules out for an f32
//! kernel. These replace them (the other libm f32 functions the runtime calls stay f32-only;
//! `.ci/f32_math_check.sh` checks both on the target).
//!
//! The methods are the textbook ones, written here:
//! - extra precision by error-free transformations: Dekker's product with a split of the
//!   significand into two 12-bit halves, and Knuth's/Dekker's sums (T. J. Dekker, "A
//!   floating-point technique for extending the available precision", Numer. Math. 18, 1971);
//! - argument reduction for sin/cos/tan by Payne and Hanek's method ("Radian reduction for
//!   trigonometric functions", SIGNUM Newsletter 18, 1983): x times the bits of 2/π that
//!   matter, in integer arithmetic, exact to 2^-70 for every f32;
//! - polynomials fitted by the Remez exchange (minimax relative error) and rounded to f32,
//!   by `fsmooth-runtime/tools/math32_coeffs.py` (the domains and the error of each are
//!   written where it is used);
//! - asin's identity asin x = π/2 - 2 asin √((1-x)/2) for x > 1/2 (W. J. Cody and W. Waite,
//!   "Software Manual for the Elementary Functions", 1980, ch. 10);
//! - cube root by one Newton step from a polynomial, with the residual computed exactly;
//! - fma exactly, on the integer significands.
//!
//! Each function is within 1 ulp of the f64 function rounded to f32 (the unary ones for
//! all 2^32 inputs, hypot over 16.8 million pairs: see the tests), and fma is exactly
//! rounded, all with IEEE's special values. No panic path: integer arithmetic wraps or is in
//! range by construction, and the one table is read with `get`.
//!
//! Compiled with `std` too (then unused), so that the host tests can measure it.
#![cfg_attr(feature = "std", allow(dead_code, unused_imports))]

mod fma;
mod trig;

pub use fma::fma;
pub use trig::{cos, sin, tan};

/// The sign bit of an f32.
const SIGN: u32 = 0x8000_0000;
/// All bits but the sign.
const ABS: u32 = 0x7fff_ffff;
/// The bits of +infinity: `abs bits >= INF` is "infinite or NaN".
const INF: u32 = 0x7f80_0000;

/// π/2 as the f32 nearest it plus the f32 nearest the rest.
const PIO2_HI: f32 = 1.570_796_4;
const PIO2_LO: f32 = -4.371_139e-8;

/// `|x|`, by the bits.
#[inline(always)]
fn abs(x: f32) -> f32 {
    f32::from_bits(x.to_bits() & ABS)
}

/// `|x|` with the sign bit of `s` (the sign bit alone, `s` as bits).
#[inline(always)]
fn with_sign(x: f32, s: u32) -> f32 {
    f32::from_bits((x.to_bits() & ABS) | (s & SIGN))
}

/// 2^k, exactly, for k in [-126, 127].
#[inline(always)]
fn pow2(k: i32) -> f32 {
    f32::from_bits((k.wrapping_add(127) as u32) << 23)
}

/// `x` as `hi + lo`, `hi` its leading 12 significant bits and `lo` the other 12 (both exact).
/// Masking the bits does Veltkamp's split with no overflow for any finite `x`.
#[inline(always)]
fn split(x: f32) -> (f32, f32) {
    let hi = f32::from_bits(x.to_bits() & 0xffff_f000);
    (hi, x - hi)
}

/// `a * b` as `p + e` exactly (Dekker's product): `p` the rounded product, `e` its error.
/// Exact when no partial product underflows: the callers keep `|a b|` well above 2^-100.
#[inline(always)]
fn two_prod(a: f32, b: f32) -> (f32, f32) {
    let p = a * b;
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    (p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
}

/// `a + b` as `s + e` exactly, for `|a| >= |b|` (or `a` zero): Dekker's fast two-sum.
#[inline(always)]
fn fast_two_sum(a: f32, b: f32) -> (f32, f32) {
    let s = a + b;
    (s, b - (s - a))
}

/// libm's `sqrtf`, correctly rounded and f32-only (checked on the target by
/// `.ci/f32_math_check.sh`).
#[inline(always)]
fn sqrt(x: f32) -> f32 {
    libm::sqrtf(x)
}

/// `p[0] + z p[1] + z^2 p[2] + ..` by Horner's rule.
#[inline(always)]
fn horner<const N: usize>(z: f32, p: &[f32; N]) -> f32 {
    p.iter()
        .rev()
        .copied()
        .reduce(|acc, c| acc * z + c)
        .unwrap_or(0.0)
}

/// asin: the odd series `x + x^3 A(x^2)` on |x| <= 1/2, minimax relative error 2^-35.8
/// with these f32 coefficients (tools/math32_coeffs.py, "asin").
const ASIN: [f32; 7] = [
    1.6666667e-1,
    7.49995e-2,
    4.465987e-2,
    3.0112956e-2,
    2.4605773e-2,
    7.497195e-3,
    3.4669884e-2,
];

/// `x.asin()` in f32: the series on |x| <= 1/2, else π/2 - 2 asin(s) with s = √((1-|x|)/2),
/// s carried to twice f32's precision (one exact Newton correction of the square root).
pub fn asin(x: f32) -> f32 {
    let bits = x.to_bits();
    let ix = bits & ABS;
    if ix >= 0x3f80_0000 {
        // |x| >= 1: ±π/2 at ±1, NaN beyond (and for NaN).
        return if ix == 0x3f80_0000 {
            with_sign(PIO2_HI, bits)
        } else {
            f32::NAN
        };
    }
    if ix < 0x3980_0000 {
        // |x| < 2^-12: asin x = x (1 + x^2/6 + ..), and x^2/6 is under a quarter ulp. Keeps
        // ±0 and subnormals exact.
        return x;
    }
    let a = abs(x);
    let r = if ix < 0x3f00_0000 {
        let z = a * a;
        a + a * z * horner(z, &ASIN)
    } else {
        // 1 - a is exact (a in [1/2, 1)), and so is the halving: t is exactly s^2.
        let t = (1.0 - a) * 0.5;
        let s = sqrt(t);
        let (p, pe) = two_prod(s, s);
        // √t = s + sl to about 2^-46: t - p is exact (p is within an ulp of t).
        let sl = ((t - p) - pe) / (s + s);
        // π/2 - 2 (s + sl + s t A(t)), the big terms summed exactly.
        let (h, he) = fast_two_sum(PIO2_HI, -2.0 * s);
        h + (he + (PIO2_LO - 2.0 * (sl + s * t * horner(t, &ASIN))))
    };
    with_sign(r, bits)
}

/// 2^f - 1 = f E(f) on |f| <= 1/2, minimax relative error 2^-30.0 with these f32
/// coefficients (tools/math32_coeffs.py, "exp2").
const EXP2: [f32; 7] = [
    6.931472e-1,
    2.402265e-1,
    5.5504005e-2,
    9.618057e-3,
    1.3341951e-3,
    1.5461368e-4,
    1.3359831e-5,
];

/// `x.exp2()` in f32: 2^x = 2^k 2^f with k = round(x), f = x - k (exact) in [-1/2, 1/2].
pub fn exp2(x: f32) -> f32 {
    let ix = x.to_bits() & ABS;
    if ix >= 0x4300_0000 {
        // |x| >= 128, inf or NaN.
        if x.is_nan() {
            return x + x;
        }
        if x > 0.0 {
            return f32::INFINITY;
        }
    }
    if x <= -150.0 {
        // 2^-150 is halfway to the least subnormal and rounds to even: +0.
        return 0.0;
    }
    // Round to an integer by adding 1.5 * 2^23 (|x| < 150: exact after the subtraction).
    let kf = (x + 12_582_912.0) - 12_582_912.0;
    let f = x - kf;
    let p = 1.0 + f * horner(f, &EXP2);
    // k in [-150, 128]: two steps of 2^k (each a normal power of two); the first product is
    // exact, so a subnormal result is rounded once, by the second.
    let k = kf as i32;
    let k1 = k >> 1;
    p * pow2(k1) * pow2(k.wrapping_sub(k1))
}

/// The first guess at ∛f on [1, 2], minimax relative error 2^-16.7 (tools/math32_coeffs.py,
/// "cbrt").
const CBRT: [f32; 5] = [
    5.069794e-1,
    7.1815395e-1,
    -3.0061156e-1,
    8.609135e-2,
    -1.0603896e-2,
];

/// ∛(2^r) for r = 0, 1, 2, rounded to f32 (only the first guess uses them).
const CBRT_2R: [f32; 3] = [1.0, 1.259_921_1, 1.587_401];

/// `x.cbrt()` in f32: |x| = m 2^(3q) with m in [1, 8); a polynomial guess y at ∛m corrected
/// by one Newton step y + (m - y^3) / (3 y^2), m - y^3 computed exactly, then scaled by 2^q.
pub fn cbrt(x: f32) -> f32 {
    let bits = x.to_bits();
    let mut ix = bits & ABS;
    if ix == 0 || ix >= INF {
        // ±0, ±inf, NaN.
        return x + x;
    }
    // A subnormal is scaled by 2^24 first (its root then by 2^-8).
    let mut down: i32 = 0;
    if ix < 0x0080_0000 {
        ix = (f32::from_bits(ix) * pow2(24)).to_bits();
        down = 8;
    }
    // |x| = f 2^e with f in [1, 2), and e + 150 = 3 q' + r with q' = q + 50 (e >= -126).
    let eb = (ix >> 23).wrapping_add(23); // e + 150
    let qb = eb / 3;
    let r = eb.wrapping_sub(qb.wrapping_mul(3));
    let f = f32::from_bits((ix & 0x007f_ffff) | 0x3f80_0000);
    let m = f * pow2(r as i32);
    let y = horner(f, &CBRT) * CBRT_2R.get(r as usize).copied().unwrap_or(1.0);
    // y^3 = b + be + ae y, to about 2^-48: m - b is exact (b is within 2^-15 of m).
    let (a, ae) = two_prod(y, y);
    let (b, be) = two_prod(a, y);
    let res = (m - b) - (be + ae * y);
    let y = y + res / (3.0 * a);
    let q = (qb as i32).wrapping_sub(50).wrapping_sub(down);
    with_sign(y * pow2(q), bits)
}

/// `x.hypot(y)` in f32: √(a^2 + b^2) with the squares and their sum to twice f32's
/// precision, and one Newton correction of the square root; scaled by a power of two where
/// the squares could overflow or lose bits to underflow.
pub fn hypot(x: f32, y: f32) -> f32 {
    let (mut ia, mut ib) = (x.to_bits() & ABS, y.to_bits() & ABS);
    if ia < ib {
        core::mem::swap(&mut ia, &mut ib);
    }
    if ia >= INF {
        // An infinity wins over a NaN (IEEE 754 hypot); else NaN.
        return if ia == INF || ib == INF {
            f32::INFINITY
        } else {
            x + y
        };
    }
    if ib == 0 || ia.wrapping_sub(ib) >= 26 << 23 {
        // b < 2^-24 a: √(a^2 + b^2) = a (1 + b^2/(2 a^2) + ..) rounds to a.
        return f32::from_bits(ia);
    }
    let (mut a, mut b) = (f32::from_bits(ia), f32::from_bits(ib));
    // The squares and their errors stay normal and finite for a in [2^-10, 2^50] (b >= a
    // 2^-25 here); outside, a is brought to [1, 2) (exactly: b only grows, or stays far above
    // the subnormals).
    let mut k: i32 = 0;
    if !(0x3a80_0000..=0x5880_0000).contains(&ia) {
        if ia < 0x0080_0000 {
            a *= pow2(32);
            b *= pow2(32);
            k = -32;
        }
        let e = ((a.to_bits() >> 23) as i32).wrapping_sub(127);
        let e1 = e >> 1;
        let (s1, s2) = (pow2(-e1), pow2(e1.wrapping_sub(e)));
        a = a * s1 * s2;
        b = b * s1 * s2;
        k = k.wrapping_add(e);
    }
    let (aa, aae) = two_prod(a, a);
    let (bb, bbe) = two_prod(b, b);
    let (sh, s0) = fast_two_sum(aa, bb);
    let sl = s0 + (aae + bbe);
    let r = sqrt(sh);
    let (p, pe) = two_prod(r, r);
    // sh - p is exact (p within an ulp of sh).
    let r = r + (((sh - p) - pe) + sl) / (r + r);
    // Undo the scaling in two steps of normal powers of two (|k| <= 159): the first is exact
    // unless the result overflows; the second rounds once.
    let k1 = k >> 1;
    r * pow2(k1) * pow2(k.wrapping_sub(k1))
}

#[cfg(test)]
mod tests;
