//! The scalar math generated code calls, generic over the float types ([`Float`]: `f64` and
//! `f32`, each computed in its own width) and, for `min`, `max` and `clamp`, over `usize` too
//! ([`Ordered`]). With feature `std` each function is std's method of the same name; without
//! it, libm's function of the type (`sqrt` or `sqrtf`, ..) and `powi` by squaring, except
//! for the f32 functions whose libm versions compute in f64: those are `math32`'s.

use super::Elem;

/// `f64` and `f32`: the float types of kernels, with the math each computes in its own
/// width (std's methods with `std`; libm's functions otherwise, and for f32 `math32`'s where
/// libm's would compute in f64).
#[allow(missing_docs)]
pub trait Float: Elem + core::ops::Mul<Output = Self> + core::ops::Div<Output = Self> {
    /// One.
    const ONE: Self;
    #[doc(hidden)]
    fn f_powi(self, k: i32) -> Self;
    #[doc(hidden)]
    fn f_signum(self) -> Self;
    #[doc(hidden)]
    fn f_mul_add(self, a: Self, b: Self) -> Self;
    #[doc(hidden)]
    fn f_sqrt(self) -> Self;
    #[doc(hidden)]
    fn f_exp(self) -> Self;
    #[doc(hidden)]
    fn f_ln(self) -> Self;
    #[doc(hidden)]
    fn f_sin(self) -> Self;
    #[doc(hidden)]
    fn f_cos(self) -> Self;
    #[doc(hidden)]
    fn f_tan(self) -> Self;
    #[doc(hidden)]
    fn f_tanh(self) -> Self;
    #[doc(hidden)]
    fn f_abs(self) -> Self;
    #[doc(hidden)]
    fn f_floor(self) -> Self;
    #[doc(hidden)]
    fn f_ceil(self) -> Self;
    #[doc(hidden)]
    fn f_asin(self) -> Self;
    #[doc(hidden)]
    fn f_acos(self) -> Self;
    #[doc(hidden)]
    fn f_atan(self) -> Self;
    #[doc(hidden)]
    fn f_sinh(self) -> Self;
    #[doc(hidden)]
    fn f_cosh(self) -> Self;
    #[doc(hidden)]
    fn f_cbrt(self) -> Self;
    #[doc(hidden)]
    fn f_exp2(self) -> Self;
    #[doc(hidden)]
    fn f_log2(self) -> Self;
    #[doc(hidden)]
    fn f_log10(self) -> Self;
    #[doc(hidden)]
    fn f_powf(self, y: Self) -> Self;
    #[doc(hidden)]
    fn f_atan2(self, x: Self) -> Self;
    #[doc(hidden)]
    fn f_hypot(self, y: Self) -> Self;
}

/// One float type's [`Float`]: std's method `$m` with `std`, else libm's `$lm`.
macro_rules! float {
    ($t:ty, $one:expr, powi_nostd: $powi:path, copysign: $copysign:path,
     fma: $fma:path,
     unary: [$($f:ident: $m:ident / $lm:path),* $(,)?],
     binary: [$($g:ident: $gm:ident / $glm:path),* $(,)?]) => {
        impl Float for $t {
            const ONE: $t = $one;
            #[inline(always)]
            fn f_powi(self, k: i32) -> $t {
                #[cfg(feature = "std")]
                { <$t>::powi(self, k) }
                #[cfg(not(feature = "std"))]
                { $powi(self, k) }
            }
            #[inline(always)]
            fn f_signum(self) -> $t {
                // std's rule: NaN stays NaN, everything else is 1 with the sign of x.
                if self.is_nan() { self } else { $copysign(1.0, self) }
            }
            #[inline(always)]
            fn f_mul_add(self, a: $t, b: $t) -> $t {
                #[cfg(feature = "std")]
                { <$t>::mul_add(self, a, b) }
                #[cfg(not(feature = "std"))]
                { $fma(self, a, b) }
            }
            $(
                #[inline(always)]
                fn $f(self) -> $t {
                    #[cfg(feature = "std")]
                    { <$t>::$m(self) }
                    #[cfg(not(feature = "std"))]
                    { $lm(self) }
                }
            )*
            $(
                #[inline(always)]
                fn $g(self, y: $t) -> $t {
                    #[cfg(feature = "std")]
                    { <$t>::$gm(self, y) }
                    #[cfg(not(feature = "std"))]
                    { $glm(self, y) }
                }
            )*
        }
    };
}

float!(f64, 1.0, powi_nostd: nostd::powi, copysign: libm::copysign, fma: libm::fma,
    unary: [
        f_sqrt: sqrt / libm::sqrt, f_exp: exp / libm::exp, f_ln: ln / libm::log,
        f_sin: sin / libm::sin, f_cos: cos / libm::cos, f_tan: tan / libm::tan,
        f_tanh: tanh / libm::tanh, f_abs: abs / libm::fabs, f_floor: floor / libm::floor,
        f_ceil: ceil / libm::ceil, f_asin: asin / libm::asin, f_acos: acos / libm::acos,
        f_atan: atan / libm::atan, f_sinh: sinh / libm::sinh, f_cosh: cosh / libm::cosh,
        f_cbrt: cbrt / libm::cbrt, f_exp2: exp2 / libm::exp2, f_log2: log2 / libm::log2,
        f_log10: log10 / libm::log10,
    ],
    binary: [f_powf: powf / libm::pow, f_atan2: atan2 / libm::atan2, f_hypot: hypot / libm::hypot]);

// Without `std`, libm's f32 functions where they compute in f32, and math32's (f32 and
// integer arithmetic only) for the eight whose libm versions compute in f64 inside (sin, cos,
// tan, asin, cbrt, exp2, hypot, fma): an f32 kernel must not call soft-float f64 routines on
// a single-precision FPU (LANGUAGE.md section 11; `.ci/f32_math_check.sh`).
float!(f32, 1.0, powi_nostd: nostd::powi, copysign: libm::copysignf, fma: super::math32::fma,
    unary: [
        f_sqrt: sqrt / libm::sqrtf, f_exp: exp / libm::expf, f_ln: ln / libm::logf,
        f_sin: sin / super::math32::sin, f_cos: cos / super::math32::cos,
        f_tan: tan / super::math32::tan, f_tanh: tanh / libm::tanhf, f_abs: abs / libm::fabsf,
        f_floor: floor / libm::floorf, f_ceil: ceil / libm::ceilf,
        f_asin: asin / super::math32::asin, f_acos: acos / libm::acosf,
        f_atan: atan / libm::atanf, f_sinh: sinh / libm::sinhf, f_cosh: cosh / libm::coshf,
        f_cbrt: cbrt / super::math32::cbrt, f_exp2: exp2 / super::math32::exp2,
        f_log2: log2 / libm::log2f, f_log10: log10 / libm::log10f,
    ],
    binary: [f_powf: powf / libm::powf, f_atan2: atan2 / libm::atan2f,
             f_hypot: hypot / super::math32::hypot]);

/// The public functions: `name(x)` is `x.name()` of the float type of `x`.
macro_rules! unary {
    ($($name:ident => $f:ident),* $(,)?) => {$(
        /// The float function of the same name, in the argument's width (std's with feature
        /// `std`, else libm's).
        #[inline(always)]
        pub fn $name<F: Float>(x: F) -> F {
            x.$f()
        }
    )*};
}
unary!(
    sqrt => f_sqrt, exp => f_exp, ln => f_ln, sin => f_sin, cos => f_cos, tan => f_tan,
    tanh => f_tanh, abs => f_abs, floor => f_floor, ceil => f_ceil, asin => f_asin,
    acos => f_acos, atan => f_atan, sinh => f_sinh, cosh => f_cosh, cbrt => f_cbrt,
    exp2 => f_exp2, log2 => f_log2, log10 => f_log10, signum => f_signum,
);

/// `x.powi(k)`.
#[inline(always)]
pub fn powi<F: Float>(x: F, k: i32) -> F {
    x.f_powi(k)
}

/// `x.powf(y)`.
#[inline(always)]
pub fn powf<F: Float>(x: F, y: F) -> F {
    x.f_powf(y)
}

/// `y.atan2(x)`: the angle of the point (x, y).
#[inline(always)]
pub fn atan2<F: Float>(y: F, x: F) -> F {
    y.f_atan2(x)
}

/// `x.hypot(y)`.
#[inline(always)]
pub fn hypot<F: Float>(x: F, y: F) -> F {
    x.f_hypot(y)
}

/// `x.mul_add(a, b)`: `x * a + b` with one rounding.
#[inline(always)]
pub fn mul_add<F: Float>(x: F, a: F, b: F) -> F {
    x.f_mul_add(a, b)
}

/// `x * a + b` in a reassociated sum (`#![fsmooth(reassociate = true)]`): one fused
/// multiply-add, rounded once, where the target has FMA (`-C target-cpu=native` on a
/// recent x86); a multiply and an add, as written, otherwise (where a fused multiply-add
/// would be a slow software routine).
#[inline(always)]
pub fn fused<F: Float + core::ops::Add<Output = F>>(x: F, a: F, b: F) -> F {
    #[cfg(target_feature = "fma")]
    {
        x.f_mul_add(a, b)
    }
    #[cfg(not(target_feature = "fma"))]
    {
        x * a + b
    }
}

/// `min`, `max` and `clamp`: the floats (as Rust's: a NaN argument is ignored) and `usize`.
pub trait Ordered: Elem {
    #[doc(hidden)]
    fn o_min(self, y: Self) -> Self;
    #[doc(hidden)]
    fn o_max(self, y: Self) -> Self;
}
impl Ordered for f64 {
    #[inline(always)]
    fn o_min(self, y: f64) -> f64 {
        f64::min(self, y)
    }
    #[inline(always)]
    fn o_max(self, y: f64) -> f64 {
        f64::max(self, y)
    }
}
impl Ordered for f32 {
    #[inline(always)]
    fn o_min(self, y: f32) -> f32 {
        f32::min(self, y)
    }
    #[inline(always)]
    fn o_max(self, y: f32) -> f32 {
        f32::max(self, y)
    }
}
impl Ordered for usize {
    #[inline(always)]
    fn o_min(self, y: usize) -> usize {
        Ord::min(self, y)
    }
    #[inline(always)]
    fn o_max(self, y: usize) -> usize {
        Ord::max(self, y)
    }
}

/// `x.min(y)` (IEEE minNum for floats, as std: a NaN argument is ignored).
#[inline(always)]
pub fn min<T: Ordered>(x: T, y: T) -> T {
    x.o_min(y)
}
/// `x.max(y)` (IEEE maxNum for floats, as std). (`max` is the `const fn` of sizes.)
#[inline(always)]
pub fn max_f<T: Ordered>(x: T, y: T) -> T {
    x.o_max(y)
}
/// `x.clamp(lo, hi)`: `x.max(lo).min(hi)`, which never panics (std's `clamp` panics when
/// `lo > hi`; here the result is then `hi`).
#[inline(always)]
pub fn clamp<T: Ordered>(x: T, lo: T, hi: T) -> T {
    x.o_max(lo).o_min(hi)
}

/// `powi` without `std`: by squaring, the algorithm behind LLVM's powi lowering. Compiled
/// with `std` too, so that the host tests can compare it with std's.
#[cfg_attr(feature = "std", allow(dead_code))]
mod nostd {
    use super::Float;

    #[inline(always)]
    pub fn powi<F: Float>(x: F, k: i32) -> F {
        let mut base = x;
        let mut n = k.unsigned_abs();
        let mut acc = F::ONE;
        while n > 0 {
            if n & 1 == 1 {
                acc = acc * base;
            }
            base = base * base;
            n >>= 1;
        }
        if k < 0 { F::ONE / acc } else { acc }
    }
}

#[cfg(test)]
#[path = "math_tests.rs"]
mod tests;
