//! libm (the math without `std`) against std, in each width, and the rules of `min`, `max`,
//! `clamp` and `signum`.

use super::nostd;
use std::vec::Vec;

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

/// [`ulps`] for f32.
fn ulps32(a: f32, b: f32) -> u64 {
    if a.is_nan() && b.is_nan() || a == b {
        return 0;
    }
    if a.is_nan() || b.is_nan() {
        return u64::MAX;
    }
    let ord = |x: f32| {
        let i = x.to_bits() as i32;
        i64::from(if i < 0 { i32::MIN.wrapping_sub(i) } else { i })
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
        88.0,
        -103.0,
        1e-40,
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

/// [`worst`] in f32, over the inputs rounded to f32.
fn worst32(xs: &[f64], f: impl Fn(f32) -> f32, g: impl Fn(f32) -> f32) -> (u64, f32) {
    xs.iter()
        .map(|&x| x as f32)
        .map(|x| (ulps32(f(x), g(x)), x))
        .fold((0, 0.0), |a, b| if b.0 > a.0 { b } else { a })
}

#[test]
#[cfg_attr(miri, ignore = "libm uses inline assembly, which Miri cannot run")]
fn libm_matches_std() {
    let xs = inputs();
    // (name, libm, std, allowed ulps): sqrt, abs, floor and ceil are exact in both;
    // glibc's and libm's transcendental functions are each within an ulp or two of the true
    // value.
    type F = fn(f64) -> f64;
    let cases: [(&str, F, F, u64); 19] = [
        ("sqrt", libm::sqrt, f64::sqrt, 0),
        ("abs", libm::fabs, f64::abs, 0),
        ("floor", libm::floor, f64::floor, 0),
        ("ceil", libm::ceil, f64::ceil, 0),
        ("exp", libm::exp, f64::exp, 1),
        ("ln", libm::log, f64::ln, 1),
        ("sin", libm::sin, f64::sin, 1),
        ("cos", libm::cos, f64::cos, 1),
        ("tan", libm::tan, f64::tan, 2),
        ("tanh", libm::tanh, f64::tanh, 2),
        ("asin", libm::asin, f64::asin, 1),
        ("acos", libm::acos, f64::acos, 1),
        ("atan", libm::atan, f64::atan, 1),
        ("sinh", libm::sinh, f64::sinh, 2),
        ("cosh", libm::cosh, f64::cosh, 2),
        ("cbrt", libm::cbrt, f64::cbrt, 1),
        ("exp2", libm::exp2, f64::exp2, 1),
        ("log2", libm::log2, f64::log2, 1),
        ("log10", libm::log10, f64::log10, 1),
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
    type G = fn(f64, f64) -> f64;
    let binary: [(&str, G, G, u64); 4] = [
        ("powf", libm::pow, f64::powf, 1),
        ("atan2", libm::atan2, f64::atan2, 2),
        ("hypot", libm::hypot, f64::hypot, 1),
        (
            "mul_add",
            |x, y| libm::fma(x, y, 0.25),
            |x, y| x.mul_add(y, 0.25),
            0,
        ),
    ];
    for (name, f, g, allowed) in binary {
        for &x in &xs {
            for &y in &ys {
                let u = ulps(f(x, y), g(x, y));
                assert!(u <= allowed, "{name}({x:e}, {y:e}): {u} ulps");
            }
        }
    }
    for &x in &xs {
        for k in -12..=12 {
            let u = ulps(nostd::powi(x, k), x.powi(k));
            assert!(u <= 2, "powi({x:e}, {k}): {u} ulps");
        }
    }
}

#[test]
#[cfg_attr(miri, ignore = "libm uses inline assembly, which Miri cannot run")]
fn libm_matches_std_in_f32() {
    let xs = inputs();
    type F = fn(f32) -> f32;
    let cases: [(&str, F, F, u64); 19] = [
        ("sqrt", libm::sqrtf, f32::sqrt, 0),
        ("abs", libm::fabsf, f32::abs, 0),
        ("floor", libm::floorf, f32::floor, 0),
        ("ceil", libm::ceilf, f32::ceil, 0),
        ("exp", libm::expf, f32::exp, 1),
        ("ln", libm::logf, f32::ln, 1),
        ("sin", libm::sinf, f32::sin, 1),
        ("cos", libm::cosf, f32::cos, 1),
        ("tan", libm::tanf, f32::tan, 1),
        ("tanh", libm::tanhf, f32::tanh, 2),
        ("asin", libm::asinf, f32::asin, 1),
        ("acos", libm::acosf, f32::acos, 1),
        ("atan", libm::atanf, f32::atan, 1),
        ("sinh", libm::sinhf, f32::sinh, 2),
        ("cosh", libm::coshf, f32::cosh, 2),
        ("cbrt", libm::cbrtf, f32::cbrt, 0),
        ("exp2", libm::exp2f, f32::exp2, 1),
        ("log2", libm::log2f, f32::log2, 1),
        ("log10", libm::log10f, f32::log10, 2),
    ];
    for (name, f, g, allowed) in cases {
        let (u, x) = worst32(&xs, f, g);
        assert!(
            u <= allowed,
            "{name}f({x:e}): libm {:e}, std {:e}: {u} ulps (allowed {allowed})",
            f(x),
            g(x)
        );
    }
    let ys = [
        -3.5f32, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 7.25,
    ];
    type G = fn(f32, f32) -> f32;
    let binary: [(&str, G, G, u64); 4] = [
        ("powf", libm::powf, f32::powf, 1),
        ("atan2", libm::atan2f, f32::atan2, 2),
        ("hypot", libm::hypotf, f32::hypot, 1),
        (
            "mul_add",
            |x, y| libm::fmaf(x, y, 0.25),
            |x, y| x.mul_add(y, 0.25),
            0,
        ),
    ];
    for (name, f, g, allowed) in binary {
        for &x in &xs {
            let x = x as f32;
            for &y in &ys {
                let u = ulps32(f(x, y), g(x, y));
                assert!(u <= allowed, "{name}f({x:e}, {y:e}): {u} ulps");
            }
        }
    }
    for &x in &xs {
        let x = x as f32;
        for k in -12..=12 {
            let u = ulps32(nostd::powi(x, k), x.powi(k));
            assert!(u <= 2, "powi({x:e}, {k}) in f32: {u} ulps");
        }
    }
}

#[test]
fn generic_functions_are_std_methods_in_each_width() {
    use super::{atan2, clamp, hypot, max_f, min, mul_add, signum, sqrt};
    assert_eq!(sqrt(2.0f32), 2.0f32.sqrt());
    assert_eq!(sqrt(2.0f64), 2.0f64.sqrt());
    assert_eq!(atan2(1.0f32, -2.0), 1.0f32.atan2(-2.0));
    assert_eq!(hypot(3.0f32, 4.0), 5.0);
    assert_eq!(mul_add(0.1f32, 10.0, -1.0), 0.1f32.mul_add(10.0, -1.0));
    // signum as std: NaN stays NaN, zeros keep their sign.
    assert!(signum(f32::NAN).is_nan());
    assert_eq!(signum(-0.0f64).to_bits(), (-1.0f64).to_bits());
    assert_eq!(signum(0.0f32), 1.0);
    // min and max ignore a NaN argument, as Rust's.
    assert_eq!(min(f64::NAN, 1.0), 1.0);
    assert_eq!(max_f(2.0f32, f32::NAN), 2.0);
    // clamp is max(lo).min(hi): no panic when lo > hi (the result is hi).
    assert_eq!(clamp(5usize, 7, 3), 3);
    assert_eq!(clamp(5usize, 1, 9), 5);
    assert_eq!(clamp(0usize, 1, 9), 1);
    assert_eq!(clamp(2.5f32, 3.0, 1.0), 1.0);
    assert_eq!(clamp(f32::NAN, 0.0, 1.0), 0.0);
    assert_eq!(min(3usize, 2), 2);
    assert_eq!(max_f(3usize, 2), 3);
}

/// The f32 functions whose libm versions compute in f64 are math32's without `std` and std's
/// methods with it: checked where libm and math32 differ (found by a sweep, so that the
/// check tells the two apart), and on a few ordinary inputs.
#[test]
#[cfg_attr(miri, ignore = "libm uses inline assembly, which Miri cannot run")]
fn f32_functions_without_std_are_math32s() {
    use super::super::math32;
    type F = fn(f32) -> f32;
    let hypot_06: F = |x| super::hypot(x, 0.6);
    let cases: [(&str, F, F, F, F); 7] = [
        ("sin", super::sin, math32::sin, libm::sinf, f32::sin),
        ("cos", super::cos, math32::cos, libm::cosf, f32::cos),
        ("tan", super::tan, math32::tan, libm::tanf, f32::tan),
        ("asin", super::asin, math32::asin, libm::asinf, f32::asin),
        ("cbrt", super::cbrt, math32::cbrt, libm::cbrtf, f32::cbrt),
        ("exp2", super::exp2, math32::exp2, libm::exp2f, f32::exp2),
        (
            "hypot",
            hypot_06,
            |x| math32::hypot(x, 0.6),
            |x| libm::hypotf(x, 0.6),
            |x| x.hypot(0.6),
        ),
    ];
    for (name, generic, ours, libm, std) in cases {
        // Inputs where libm and math32 differ (both within an ulp or two of the truth).
        let mut xs: Vec<f32> = (0..1u32 << 20)
            .map(|k| f32::from_bits(k.wrapping_mul(0x0000_1001) ^ 0x3c00_0000))
            .filter(|&x| ours(x).to_bits() != libm(x).to_bits() && !ours(x).is_nan())
            .take(8)
            .collect();
        assert!(
            !xs.is_empty(),
            "{name}: no input where libm and math32 differ"
        );
        xs.extend([0.3f32, -0.75, 0.5, 1.0e3, -2.5]);
        for x in xs {
            let want = if cfg!(feature = "std") {
                std(x)
            } else {
                ours(x)
            };
            let got = generic(x);
            assert!(
                got.to_bits() == want.to_bits() || got.is_nan() && want.is_nan(),
                "{name}({x:e}) = {got:e}, expected {want:e}"
            );
        }
    }
    // fma: libm's is exactly rounded too, so only the value can be checked.
    let (x, y, z) = (1.0f32 + f32::EPSILON, 1.0 - f32::EPSILON, -1.0);
    assert_eq!(super::mul_add(x, y, z), -f32::EPSILON * f32::EPSILON);
    assert_eq!(math32::fma(x, y, z), -f32::EPSILON * f32::EPSILON);
}
