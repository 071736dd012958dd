//! sin, cos and tan in f32: x = q π/2 + r with |r| <= π/4 (r to twice f32's precision), then
//! a polynomial in r chosen by the quadrant q mod 4.

use super::{ABS, INF, PIO2_HI, PIO2_LO, fast_two_sum, horner, pow2, two_prod};

/// The bits of 2/π (the first 224), after 32 zero bits: bit j of the table (from the top of
/// word 0) is the coefficient of 2^-(j - 31) in 2/π. The padding lets the window of
/// [`reduce`] start before the binary point for |x| near 1 without a special case.
const TWO_OVER_PI: [u32; 8] = [
    0,
    0xA2F9_836E,
    0x4E44_1529,
    0xFC27_57D1,
    0xF534_DDC0,
    0xDB62_9599,
    0x3C43_9041,
    0xFE51_63AB,
];

/// |x| at or below this (0.78539813, just under π/4) needs no reduction.
const PIO4_BITS: u32 = 0x3f49_0fda;

/// sin r = r + r^3 S(r^2) on |r| <= π/4, minimax relative error 2^-32.2 with these f32
/// coefficients (tools/math32_coeffs.py, "sin").
const SIN: [f32; 4] = [-1.6666667e-1, 8.333383e-3, -1.9854655e-4, 2.8488064e-6];

/// cos r = 1 - r^2/2 + r^4 C(r^2) on |r| <= π/4, minimax relative error 2^-32.3
/// (tools/math32_coeffs.py, "cos").
const COS: [f32; 3] = [4.1666653e-2, -1.388761e-3, 2.446175e-5];

/// tan r = r + r^3 T(r^2) on |r| <= π/4, minimax relative error 2^-29.3
/// (tools/math32_coeffs.py, "tan").
const TAN: [f32; 7] = [
    3.3333343e-1,
    1.333282e-1,
    5.404625e-2,
    2.1339519e-2,
    1.0710861e-2,
    2.2587633e-4,
    4.3174145e-3,
];

/// For finite |x| > π/4 given as its bits: `(q, rh, rl)` with |x| = q π/2 + rh + rl (q mod
/// 4), |rh + rl| <= π/4 and rh + rl within 2^-40 of the true remainder, relatively (for the
/// f32 nearest a multiple of π/2; within 2^-46 for most).
fn reduce(ix: u32) -> (u32, f32, f32) {
    let (q, frac) = quarter_turns(ix);
    let a = frac.unsigned_abs();
    if a == 0 {
        // Never for an f32 (π is irrational and the fraction is exact to 2^-70).
        return (q, 0.0, 0.0);
    }
    // a 2^-94 = n 2^(-94 - lz), n with its top bit at 127: its leading 24 bits and the next
    // 24 as f32 values (exact), scaled by powers of two. lz <= 63 for every f32 (MAX_LZ), so
    // both scales are normal; the clamp only keeps the second's bits a number otherwise.
    let lz = a.leading_zeros();
    let n = a.wrapping_shl(lz);
    let lz = lz as i32;
    let hi = (n >> 104) as u32 as f32;
    let lo = ((n >> 80) as u32 & 0x00ff_ffff) as f32;
    let fh = hi * pow2(10i32.wrapping_sub(lz));
    let fl = lo * pow2((-14i32).wrapping_sub(lz).max(-126));
    // (fh + fl) π/2 to about 2^-46: the leading product exactly.
    let (ph, pe) = two_prod(fh, PIO2_HI);
    let (rh, rl) = fast_two_sum(ph, pe + (fh * PIO2_LO + fl * PIO2_HI));
    if frac < 0 { (q, -rh, -rl) } else { (q, rh, rl) }
}

/// The most leading zeros of the reduced fraction's magnitude (a 128-bit integer in units of
/// 2^-94 quarter turns) over all f32 above π/4, measured by the exhaustive test
/// `reduction_keeps_48_bits` (at 2.1999385e10): the nearest an f32 comes to a multiple of π/2
/// is 2^(33 - MAX_LZ) = 2^-30 quarter turns, so the fraction has 128 - MAX_LZ = 65
/// significant bits, the first 40 of them exact (the error is under 2^-70).
#[cfg(test)]
pub(super) const MAX_LZ: u32 = 63;

/// The integer part of Payne and Hanek's reduction, for finite |x| > π/4 given as its bits:
/// `(q, f)` with |x| 2/π = q + f 2^-94 (mod 4), q in 0..4 and f in [-2^93, 2^93), short of
/// the true value by under 2^-70.
///
/// |x| = m 2^e (m the 24-bit significand), and x 2/π mod 4 needs only the bits of 2/π from
/// 2^-(e-1) on (earlier ones make multiples of 4). A 96-bit window of them times m, mod 2^96,
/// is x 2/π mod 4 in units of 2^-94, short by less than m 2^(e - e - 94) = 2^-70 (the bits
/// past the window). The integer nearest is q; the rest is the signed fraction.
pub(super) fn quarter_turns(ix: u32) -> (u32, i128) {
    let m = u64::from((ix & 0x007f_ffff) | 0x0080_0000);
    // e = biased exponent - 150, at least -24 here; the window starts at table bit e + 30.
    let start = (ix >> 23).wrapping_sub(120);
    let w = (start >> 5) as usize;
    let s = start & 31;
    let word = |k: usize| u64::from(TWO_OVER_PI.get(w.wrapping_add(k)).copied().unwrap_or(0));
    let (t0, t1, t2, t3) = (word(0), word(1), word(2), word(3));
    // The 32 bits starting s bits into `hi`, continuing into `lo`.
    let bits = |hi: u64, lo: u64| ((hi << 32) | lo).wrapping_shl(s) >> 32;
    let (w0, w1, w2) = (bits(t0, t1), bits(t1, t2), bits(t2, t3));
    // m (24 bits) times the window (96 bits), mod 2^96; each partial product fits in 56 bits.
    let mask96 = (1u128 << 96) - 1;
    let p = (u128::from(m.wrapping_mul(w0)) << 64)
        .wrapping_add(u128::from(m.wrapping_mul(w1)) << 32)
        .wrapping_add(u128::from(m.wrapping_mul(w2)));
    // Round to the nearest quarter turn: q the top two bits, the fraction in [-1/2, 1/2).
    let p = p.wrapping_add(1 << 93) & mask96;
    let q = (p >> 94) as u32;
    let frac = ((p & ((1 << 94) - 1)) as i128).wrapping_sub(1 << 93);
    (q, frac)
}

/// `(q, rh, rl)` for |x| (bits `ix`, finite): no reduction up to π/4.
#[inline(always)]
fn reduced(ix: u32) -> (u32, f32, f32) {
    if ix <= PIO4_BITS {
        (0, f32::from_bits(ix), 0.0)
    } else {
        reduce(ix)
    }
}

/// sin(rh + rl) for |rh + rl| <= π/4: sin rh + rl cos rh, cos rh taken as 1 - rh^2/2.
#[inline(always)]
fn sin_k(rh: f32, rl: f32) -> f32 {
    let z = rh * rh;
    rh + (rh * z * horner(z, &SIN) + (rl - rl * 0.5 * z))
}

/// cos(rh + rl) for |rh + rl| <= π/4: cos rh - rl sin rh, with 1 - rh^2/2 (its rounding
/// errors and that of rh^2 kept) the leading term.
#[inline(always)]
fn cos_k(rh: f32, rl: f32) -> f32 {
    let (z, ze) = two_prod(rh, rh);
    let hz = 0.5 * z;
    let w = 1.0 - hz;
    // The error of w, exactly: 1 - w is exact (w in [1/2, 1]), and so is its difference
    // from hz.
    let werr = (1.0 - w) - hz;
    w + (werr + (z * z * horner(z, &COS) - (0.5 * ze + rh * rl)))
}

/// `x.sin()` in f32.
pub fn sin(x: f32) -> f32 {
    let bits = x.to_bits();
    let ix = bits & ABS;
    if ix < 0x3980_0000 {
        // |x| < 2^-12: sin x = x (1 - x^2/6 + ..), and x^2/6 is under a quarter ulp.
        // Keeps ±0 and subnormals exact.
        return x;
    }
    if ix >= INF {
        return f32::NAN;
    }
    let (q, rh, rl) = reduced(ix);
    let s = match q & 3 {
        0 => sin_k(rh, rl),
        1 => cos_k(rh, rl),
        2 => -sin_k(rh, rl),
        _ => -cos_k(rh, rl),
    };
    // sin is odd.
    with_sign_of(s, bits)
}

/// `x.cos()` in f32.
pub fn cos(x: f32) -> f32 {
    let ix = x.to_bits() & ABS;
    if ix < 0x3980_0000 {
        // |x| < 2^-12: cos x = 1 - x^2/2 + .., and x^2/2 < 2^-25 is at most half an ulp
        // below 1 (a tie, rounding to 1).
        return 1.0;
    }
    if ix >= INF {
        return f32::NAN;
    }
    // cos is even: the reduction of |x|.
    let (q, rh, rl) = reduced(ix);
    match q & 3 {
        0 => cos_k(rh, rl),
        1 => -sin_k(rh, rl),
        2 => -cos_k(rh, rl),
        _ => sin_k(rh, rl),
    }
}

/// `x.tan()` in f32: tan r, or -1/tan r in the odd quadrants, with tan r to twice f32's
/// precision for the division.
pub fn tan(x: f32) -> f32 {
    let bits = x.to_bits();
    let ix = bits & ABS;
    if ix < 0x3980_0000 {
        // |x| < 2^-12: tan x = x (1 + x^2/3 + ..), x^2/3 under a quarter ulp.
        return x;
    }
    if ix >= INF {
        return f32::NAN;
    }
    let (q, rh, rl) = reduced(ix);
    let z = rh * rh;
    // tan(rh + rl) = tan rh + rl (1 + tan^2 rh): rl (1 + rh^2) is enough of the second term.
    let (th, tl) = fast_two_sum(rh, rh * z * horner(z, &TAN) + (rl + rl * z));
    let t = if q & 1 == 0 {
        th
    } else {
        // -1/(th + tl): the quotient of th, then one Newton correction with 1 - d th
        // computed exactly (d th is within an ulp of 1).
        let d = 1.0 / th;
        let (p, pe) = two_prod(d, th);
        let e = ((1.0 - p) - pe) - d * tl;
        -(d + d * e)
    };
    // tan is odd (the sign of a zero result included: tan(±0) took the early return).
    with_sign_of(t, bits)
}

/// `t` negated when the sign bit of `bits` is set.
#[inline(always)]
fn with_sign_of(t: f32, bits: u32) -> f32 {
    if bits & !ABS == 0 { t } else { -t }
}
