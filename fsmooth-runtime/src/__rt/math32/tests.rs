//! math32 against the f64 functions rounded to f32 (std's, on the host), over a sweep of the
//! bit patterns, random inputs and the special values; fma against an exact reference. The
//! sweep is every 2^8-th pattern in release builds and every 2^14-th in debug ones; the
//! `#[ignore]`d tests go through all 2^32 (`cargo test --release -p fsmooth-runtime --
//! --ignored --nocapture math32`).

use super::trig::{MAX_LZ, quarter_turns};
use super::{asin, cbrt, cos, exp2, fma, hypot, sin, tan};
use std::{println, vec::Vec};

/// Representable f32 values between `a` and `b`; 0 for two NaNs or for 0.0 and -0.0, and
/// `u32::MAX` for a NaN against a number.
fn ulps(a: f32, b: f32) -> u32 {
    if a.is_nan() && b.is_nan() || a == b {
        return 0;
    }
    if a.is_nan() || b.is_nan() {
        return u32::MAX;
    }
    let ord = |x: f32| {
        let i = x.to_bits() as i32;
        i64::from(if i < 0 { i32::MIN.wrapping_sub(i) } else { i })
    };
    u32::try_from(ord(a).abs_diff(ord(b))).unwrap_or(u32::MAX)
}

/// xorshift64*, for reproducible random inputs.
struct Rng(u64);
impl Rng {
    fn bits(&mut self) -> u32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) as u32
    }
    /// A finite f32 with a random exponent in `lo..=hi` (unbiased) and sign.
    fn float(&mut self, lo: i32, hi: i32) -> f32 {
        let b = self.bits();
        let span = (hi - lo + 1) as u32;
        let e = lo + (self.bits() % span) as i32;
        f32::from_bits((b & 0x807f_ffff) | (((e + 127) as u32) << 23))
    }
}

const RELEASE: bool = !cfg!(debug_assertions);

/// Every 2^8-th bit pattern (2^14-th in debug builds), the special values and random
/// patterns.
fn inputs() -> Vec<f32> {
    let step = if RELEASE { 1 << 8 } else { 1 << 14 };
    let mut v: Vec<f32> = (0..u32::MAX / step)
        .map(|k| f32::from_bits(k.wrapping_mul(step).wrapping_add(k % 97)))
        .collect();
    v.extend(specials());
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let n = if RELEASE { 1 << 22 } else { 1 << 14 };
    v.extend((0..n).map(|_| f32::from_bits(rng.bits())));
    v
}

/// The special values, boundaries of the methods' cases and the hardest reductions.
fn specials() -> Vec<f32> {
    let mut v = std::vec![
        0.0,
        1.0,
        0.5,
        2.0,
        3.0,
        8.0,
        27.0,
        1e-45,
        1.1754942e-38,
        f32::MIN_POSITIVE,
        f32::MAX,
        f32::INFINITY,
        f32::NAN,
        core::f32::consts::FRAC_PI_4,
        core::f32::consts::FRAC_PI_2,
        core::f32::consts::PI,
        2.0 * core::f32::consts::PI,
        1e4,
        1e10,
        1e20,
        1e30,
        1e38,
        128.0,
        127.99999,
        150.0,
        149.5,
        149.0,
        126.0,
        126.5,
        0.999_999_94,
        f32::from_bits(0x3980_0000),
        f32::from_bits(0x397f_ffff),
        f32::from_bits(0x3f49_0fda),
        f32::from_bits(0x3f49_0fdb),
    ];
    v.extend(HARD_REDUCTIONS.iter().map(|&b| f32::from_bits(b)));
    // Each value's neighbours, and all of them negated.
    let near: Vec<f32> = v
        .iter()
        .flat_map(|&x| {
            let b = x.to_bits();
            [b.wrapping_sub(1), b.wrapping_add(1)].map(f32::from_bits)
        })
        .collect();
    v.extend(near);
    let neg: Vec<f32> = v.iter().map(|&x| -x).collect();
    v.extend(neg);
    v
}

/// The f32 values nearest a multiple of π/2 relative to their size (the most leading zeros
/// in the reduced fraction), found by `reduction_keeps_48_bits`.
const HARD_REDUCTIONS: [u32; 1] = [0x50a3_e87f];

type Unary = (&'static str, fn(f32) -> f32, fn(f32) -> f32, u32);

/// Each function, its f64 reference rounded to f32, and the ulps allowed.
fn unary_cases() -> [Unary; 6] {
    [
        ("sin", sin, |x| f64::from(x).sin() as f32, 1),
        ("cos", cos, |x| f64::from(x).cos() as f32, 1),
        ("tan", tan, |x| f64::from(x).tan() as f32, 1),
        ("asin", asin, |x| f64::from(x).asin() as f32, 1),
        ("cbrt", cbrt, |x| f64::from(x).cbrt() as f32, 1),
        ("exp2", exp2, |x| f64::from(x).exp2() as f32, 1),
    ]
}

/// The largest ulp error of `f` against `g` over `xs`, an input where it occurs, and the
/// number of inputs where the two differ.
fn worst(xs: impl Iterator<Item = f32>, f: fn(f32) -> f32, g: fn(f32) -> f32) -> (u32, f32, u64) {
    let mut w = (0, 0.0, 0);
    for x in xs {
        let u = ulps(f(x), g(x));
        w.2 += u64::from(u != 0);
        if u > w.0 {
            (w.0, w.1) = (u, x);
        }
    }
    w
}

#[test]
fn unary_functions_within_their_ulps() {
    let xs = inputs();
    for (name, f, g, allowed) in unary_cases() {
        let (u, x, n) = worst(xs.iter().copied(), f, g);
        println!(
            "{name}: max {u} ulp over {} inputs (at {x:e}), {n} not the reference's",
            xs.len()
        );
        assert!(
            u <= allowed,
            "{name}({x:e} = {:#x}): {:e}, reference {:e}: {u} ulps (allowed {allowed})",
            x.to_bits(),
            f(x),
            g(x)
        );
    }
}

#[test]
#[ignore = "all 2^32 inputs of each function: about 15 minutes in release"]
fn unary_functions_exhaustive() {
    for (name, f, g, allowed) in unary_cases() {
        let (u, x, n) = worst((0..=u32::MAX).map(f32::from_bits), f, g);
        println!(
            "{name}: max {u} ulp over all 2^32 inputs (at {x:e} = {:#x}), {n} not the \
             reference's",
            x.to_bits()
        );
        assert!(u <= allowed, "{name}({x:e}): {u} ulps (allowed {allowed})");
    }
}

/// The reduction's fraction keeps at least 48 significant bits for every f32 above π/4.
#[test]
#[ignore = "every f32 above π/4: 10 s in release"]
fn reduction_keeps_48_bits() {
    let (mut most, mut at) = (0, 0);
    for ix in 0x3f49_0fdb..0x7f80_0000u32 {
        let lz = quarter_turns(ix).1.unsigned_abs().leading_zeros();
        if lz > most {
            (most, at) = (lz, ix);
        }
    }
    println!(
        "most leading zeros: {most} at {:e} = {at:#x}",
        f32::from_bits(at)
    );
    assert_eq!(most, MAX_LZ);
    assert!(HARD_REDUCTIONS.contains(&at));
}

#[test]
fn hardest_reductions_are_accurate() {
    for &b in &HARD_REDUCTIONS {
        let lz = quarter_turns(b).1.unsigned_abs().leading_zeros();
        assert!(lz <= MAX_LZ && 128 - lz >= 48, "{b:#x}: {lz}");
        let x = f32::from_bits(b);
        for (name, f, g, allowed) in unary_cases().into_iter().take(3) {
            assert!(ulps(f(x), g(x)) <= allowed, "{name}({x:e})");
        }
    }
}

#[test]
fn special_values() {
    let bits = |x: f32| x.to_bits();
    let min_sub = f32::from_bits(1);
    for z in [0.0f32, -0.0] {
        for f in [sin, tan, asin, cbrt] {
            assert_eq!(bits(f(z)), bits(z));
        }
        assert_eq!(cos(z), 1.0);
        assert_eq!(exp2(z), 1.0);
    }
    for x in [f32::INFINITY, f32::NEG_INFINITY, f32::NAN] {
        assert!(sin(x).is_nan() && cos(x).is_nan() && tan(x).is_nan());
    }
    assert!(asin(f32::NAN).is_nan() && asin(1.000_000_1).is_nan() && asin(-2.0).is_nan());
    assert_eq!(asin(1.0), core::f32::consts::FRAC_PI_2);
    assert_eq!(asin(-1.0), -core::f32::consts::FRAC_PI_2);
    // Subnormals pass through the odd functions unchanged.
    for x in [min_sub, -min_sub, f32::from_bits(0x0040_0000)] {
        assert_eq!(sin(x), x);
        assert_eq!(tan(x), x);
        assert_eq!(asin(x), x);
    }
    assert_eq!(cbrt(f32::INFINITY), f32::INFINITY);
    assert_eq!(cbrt(f32::NEG_INFINITY), f32::NEG_INFINITY);
    assert!(cbrt(f32::NAN).is_nan());
    for k in -40i32..=40 {
        let c = k as f32;
        assert_eq!(cbrt(c * c * c), c, "cbrt({k}^3)");
    }
    assert_eq!(cbrt(min_sub), f64::from(min_sub).cbrt() as f32);
    assert_eq!(exp2(f32::INFINITY), f32::INFINITY);
    assert_eq!(bits(exp2(f32::NEG_INFINITY)), 0);
    assert!(exp2(f32::NAN).is_nan());
    assert_eq!(exp2(128.0), f32::INFINITY);
    assert_eq!(exp2(127.999_99), f64::from(127.999_99f32).exp2() as f32);
    assert_eq!(bits(exp2(-150.0)), 0);
    assert_eq!(exp2(-149.999_99), min_sub);
    for k in -149i32..=127 {
        assert_eq!(exp2(k as f32), f64::from(k).exp2() as f32, "exp2({k})");
    }
    assert_eq!(hypot(f32::INFINITY, f32::NAN), f32::INFINITY);
    assert_eq!(hypot(f32::NAN, f32::NEG_INFINITY), f32::INFINITY);
    assert!(hypot(f32::NAN, 1.0).is_nan() && hypot(0.0, f32::NAN).is_nan());
    assert_eq!(hypot(f32::MAX, f32::MAX), f32::INFINITY);
    assert_eq!(hypot(f32::MAX, 1.0), f32::MAX);
    assert_eq!(hypot(2.0e38, 2.0e38), (2.0e38f64 * 2f64.sqrt()) as f32);
    assert_eq!(bits(hypot(-0.0, -0.0)), 0);
    assert_eq!(hypot(-3.0, 4.0), 5.0);
    assert_eq!(hypot(-7.5, 0.0), 7.5);
    assert_eq!(hypot(3.0 * min_sub, -4.0 * min_sub), 5.0 * min_sub);
    assert_eq!(hypot(3e-39, 4e-39), (5e-39f64) as f32);
}

type Binary = fn(f32, f32) -> f32;

#[test]
fn hypot_within_one_ulp() {
    let reference: Binary = |x, y| f64::from(x).hypot(f64::from(y)) as f32;
    let mut rng = Rng(0x0123_4567_89AB_CDEF);
    let n = if RELEASE { 1 << 24 } else { 1 << 16 };
    let mut pairs: Vec<(f32, f32)> = (0..n)
        .map(|k| {
            // Both exponents anywhere; then close exponents (both squares matter) over the
            // whole range, the subnormals and the overflow edge included.
            if k % 2 == 0 {
                (f32::from_bits(rng.bits()), f32::from_bits(rng.bits()))
            } else {
                let e = (rng.bits() % 280) as i32 - 152;
                let d = (rng.bits() % 28) as i32;
                let x = rng.float(e.max(-126), e.clamp(-126, 127));
                let y = rng.float((e - d).max(-126), (e - d).clamp(-126, 127));
                let sub = |v: f32| {
                    if e < -126 {
                        v * 2f32.powi(e + 126 - 3)
                    } else {
                        v
                    }
                };
                (sub(x), sub(y))
            }
        })
        .collect();
    let sp = specials();
    pairs.extend(sp.iter().flat_map(|&x| sp.iter().map(move |&y| (x, y))));
    let (mut most, mut at) = (0, (0.0, 0.0));
    for &(x, y) in &pairs {
        let u = ulps(hypot(x, y), reference(x, y));
        if u > most {
            (most, at) = (u, (x, y));
        }
    }
    println!(
        "hypot: max {most} ulp over {} pairs (at {:e}, {:e})",
        pairs.len(),
        at.0,
        at.1
    );
    assert!(most <= 1, "hypot({:e}, {:e}): {most} ulps", at.0, at.1);
}

/// `x y + z` exactly rounded, from f64: the product is exact in f64; the sum is rounded to
/// odd (Boldo and Melquiond, "When double rounding is odd", 2005: 53 >= 24 + 2 bits, so the
/// rounding to f32 of a rounded-to-odd f64 is the correct one).
fn fma_reference(x: f32, y: f32, z: f32) -> f32 {
    let (p, zz) = (f64::from(x) * f64::from(y), f64::from(z));
    let s = p + zz;
    if !s.is_finite() || !p.is_finite() || !zz.is_finite() {
        return s as f32;
    }
    // Knuth's two-sum: s + err = p + zz exactly.
    let bb = s - p;
    let err = (p - (s - bb)) + (zz - bb);
    let s = if err != 0.0 && s.to_bits() & 1 == 0 {
        let away = (err > 0.0) == (s > 0.0);
        f64::from_bits(if away {
            s.to_bits() + 1
        } else {
            s.to_bits() - 1
        })
    } else {
        s
    };
    s as f32
}

#[test]
fn fma_is_exactly_rounded() {
    let mut rng = Rng(0xDEAD_BEEF_CAFE_F00D);
    let n = if RELEASE { 1 << 24 } else { 1 << 16 };
    let mut cases: Vec<(f32, f32, f32)> = Vec::new();
    for k in 0..n {
        let (x, y) = match k % 4 {
            0 => (f32::from_bits(rng.bits()), f32::from_bits(rng.bits())),
            // Products near the subnormals and near overflow.
            1 => (rng.float(-75, -50), rng.float(-90, -60)),
            2 => (rng.float(60, 70), rng.float(55, 66)),
            _ => (rng.float(-20, 20), rng.float(-20, 20)),
        };
        let p = x * y;
        let z = match k % 5 {
            0 => f32::from_bits(rng.bits()),
            // Cancellation: z near -x y, within a few of its ulps or exactly.
            1 => -p,
            2 => f32::from_bits(
                (-p).to_bits()
                    .wrapping_add(rng.bits() % 64)
                    .wrapping_sub(32),
            ),
            // z's exponent within 30 of the product's: partial overlaps, rounding at each
            // position.
            3 => {
                let e = (p.to_bits() >> 23 & 0xff) as i32 - 127;
                let d = (rng.bits() % 61) as i32 - 30;
                rng.float((e + d).clamp(-126, 127), (e + d).clamp(-126, 127))
            }
            _ => f32::from_bits(rng.bits() & 0x80ff_ffff),
        };
        cases.push((x, y, z));
    }
    // Ties: (1 + 2^-23)(1 + 2^-23) - 1 = 2^-22 + 2^-46, and products of halves plus odds.
    let eps = f32::EPSILON;
    cases.extend([
        (1.0 + eps, 1.0 + eps, -1.0),
        (1.0 + eps, 1.0 - eps, -1.0),
        (f32::MAX, 2.0, -f32::MAX),
        (f32::MAX, -2.0, f32::MAX),
        (1e-30, 1e-30, -0.0),
        (-1e-30, 1e-30, 0.0),
        (1e-30, -1e-30, -0.0),
        (f32::MIN_POSITIVE, 0.5, f32::from_bits(1)),
        (f32::from_bits(3), 0.5, 0.0),
        (f32::from_bits(1), 0.5, -0.0),
        (16_777_215.0, 16_777_215.0, -1.0),
        (4097.0, 4097.0, 0.5),
        (3.0, f32::from_bits(0x3eaa_aaab), -1.0),
    ]);
    let sp = specials();
    for &x in &sp {
        for &y in &sp {
            for z in [
                0.0,
                -0.0,
                1.0,
                -1.0,
                f32::INFINITY,
                f32::NAN,
                f32::MAX,
                1e-45,
            ] {
                cases.push((x, y, z));
            }
        }
    }
    for &(x, y, z) in &cases {
        let (r, e) = (fma(x, y, z), fma_reference(x, y, z));
        let same = r.to_bits() == e.to_bits() || r.is_nan() && e.is_nan();
        assert!(
            same,
            "fma({x:e}, {y:e}, {z:e}) = {r:e}, exactly rounded {e:e}"
        );
        // std's (the C library's or the instruction) agrees.
        let s = x.mul_add(y, z);
        assert!(
            s.to_bits() == e.to_bits() || s.is_nan() && e.is_nan(),
            "reference"
        );
    }
    println!("fma: exact over {} triples", cases.len());
}
