//! Forward-mode differentiation of the scalar operations: dual numbers
//! ([`Value::DualF64`], [`Value::DualF32`]), a value and its tangent (its derivative along
//! the one direction being differentiated).
//!
//! Every rule here computes the value exactly as the operation on plain values does (by
//! calling it on the values with their tangents dropped: same code, same rounding, same
//! errors), and then the tangent, in the value's own type (an f32 tangent in f32
//! arithmetic):
//!
//! - a smooth operation's tangent is the sum of its partial derivatives times its operands'
//!   tangents, `d(x * y) = y dx + x dy`; an operand without a tangent (a plain value: a
//!   constant, a literal) or with a zero tangent contributes nothing, not even where its
//!   partial derivative is infinite or NaN (`sqrt(x) + y` at x = 0 has tangent `dy` along a
//!   direction that does not move x), so that a zero tangent and no tangent agree;
//! - `abs`, `min`, `max` and `clamp` (`x.max(lo).min(hi)`) take the tangent of the branch
//!   taken: `abs` is `-x` for x < 0, else `x`; `x.min(y)` takes x's tangent unless y < x
//!   (or x is NaN, whose min is y), so x's on a tie, and `max` alike;
//! - `floor`, `ceil`, `signum`, comparisons and casts to `usize` are piecewise constant:
//!   their results carry no tangent;
//! - a cast between f64 and f32 casts the tangent the same way (rounding counts as the
//!   identity); `%` is `x - y * trunc(x / y)`, so its partials are 1 and `-trunc(x / y)`;
//! - a result whose tangent is zero or absent is a plain value.

use super::scalar;
use super::value::Value;
use fsmooth_core::front::ast::{BinOp, CastTy, MathFn};
use std::ops::{Add, Div, Mul, Neg, Sub};

/// f32 and f64, for the tangent rules.
pub(super) trait Lane:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    /// An operand of this type (or untyped: its half of this type): its value, and its
    /// tangent if it is a dual.
    fn lane(v: &Value) -> (Self, Option<Self>);
    /// A value with this tangent (none: a plain value).
    fn value(x: Self, dx: Option<Self>) -> Value;
    /// The partial derivatives of `f` (receiver first) at `x` and `args`, whose result is
    /// `r`. Not used for the piecewise-constant methods and the selections (`min`, `max`,
    /// `clamp`), nor `powi`.
    fn partials(f: MathFn, x: Self, args: &[Self], r: Self) -> [Self; 3];
    fn from_i32(k: i32) -> Self;
    fn powi(self, k: i32) -> Self;
    fn trunc(self) -> Self;
    fn is_nan(self) -> bool;
}

/// The body of [`Lane::partials`] at one float type (one text for both, as the math
/// methods themselves are one text, [`MathFn::eval`]).
macro_rules! partials {
    ($f:expr, $x:expr, $args:expr, $r:expr, $t:ty) => {{
        let x: $t = $x;
        let y: $t = $args.first().copied().unwrap_or(0.0);
        let r: $t = $r;
        let ln2: $t = (2.0 as $t).ln();
        let ln10: $t = (10.0 as $t).ln();
        match $f {
            MathFn::Sqrt => [0.5 / r, 0.0, 0.0],
            MathFn::Exp => [r, 0.0, 0.0],
            MathFn::Ln => [1.0 / x, 0.0, 0.0],
            MathFn::Sin => [x.cos(), 0.0, 0.0],
            MathFn::Cos => [-x.sin(), 0.0, 0.0],
            MathFn::Tan => [1.0 + r * r, 0.0, 0.0],
            MathFn::Tanh => [1.0 - r * r, 0.0, 0.0],
            MathFn::Abs => [if x < 0.0 { -1.0 } else { 1.0 }, 0.0, 0.0],
            // x^y = exp(y ln x).
            MathFn::Powf => [y * x.powf(y - 1.0), r * x.ln(), 0.0],
            // `x.atan2(y)` is the angle of the point (y, x).
            MathFn::Atan2 => [y / (x * x + y * y), -x / (x * x + y * y), 0.0],
            MathFn::Asin => [1.0 / (1.0 - x * x).sqrt(), 0.0, 0.0],
            MathFn::Acos => [-1.0 / (1.0 - x * x).sqrt(), 0.0, 0.0],
            MathFn::Atan => [1.0 / (1.0 + x * x), 0.0, 0.0],
            MathFn::Sinh => [x.cosh(), 0.0, 0.0],
            MathFn::Cosh => [x.sinh(), 0.0, 0.0],
            MathFn::Hypot => [x / r, y / r, 0.0],
            MathFn::Cbrt => [1.0 / (3.0 * r * r), 0.0, 0.0],
            MathFn::Exp2 => [r * ln2, 0.0, 0.0],
            MathFn::Log2 => [1.0 / (x * ln2), 0.0, 0.0],
            MathFn::Log10 => [1.0 / (x * ln10), 0.0, 0.0],
            MathFn::MulAdd => [y, x, 1.0],
            // Not reached (see `Lane::partials`): piecewise constant, or a selection.
            MathFn::Floor
            | MathFn::Ceil
            | MathFn::Signum
            | MathFn::Powi
            | MathFn::Min
            | MathFn::Max
            | MathFn::Clamp => [0.0, 0.0, 0.0],
        }
    }};
}

impl Lane for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    fn lane(v: &Value) -> (f64, Option<f64>) {
        match *v {
            Value::F64(x) | Value::Untyped(x, _) => (x, None),
            Value::DualF64(x, dx) => (x, Some(dx)),
            // Not reached: the operation on the plain values checked the types.
            _ => (f64::NAN, None),
        }
    }
    fn value(x: f64, dx: Option<f64>) -> Value {
        match dx {
            Some(dx) => Value::DualF64(x, dx),
            None => Value::F64(x),
        }
    }
    fn partials(f: MathFn, x: f64, args: &[f64], r: f64) -> [f64; 3] {
        partials!(f, x, args, r, f64)
    }
    fn from_i32(k: i32) -> f64 {
        f64::from(k)
    }
    fn powi(self, k: i32) -> f64 {
        f64::powi(self, k)
    }
    fn trunc(self) -> f64 {
        f64::trunc(self)
    }
    fn is_nan(self) -> bool {
        f64::is_nan(self)
    }
}

impl Lane for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    fn lane(v: &Value) -> (f32, Option<f32>) {
        match *v {
            Value::F32(x) | Value::Untyped(_, x) => (x, None),
            Value::DualF32(x, dx) => (x, Some(dx)),
            // Not reached: the operation on the plain values checked the types.
            _ => (f32::NAN, None),
        }
    }
    fn value(x: f32, dx: Option<f32>) -> Value {
        match dx {
            Some(dx) => Value::DualF32(x, dx),
            None => Value::F32(x),
        }
    }
    fn partials(f: MathFn, x: f32, args: &[f32], r: f32) -> [f32; 3] {
        partials!(f, x, args, r, f32)
    }
    fn from_i32(k: i32) -> f32 {
        k as f32
    }
    fn powi(self, k: i32) -> f32 {
        f32::powi(self, k)
    }
    fn trunc(self) -> f32 {
        f32::trunc(self)
    }
    fn is_nan(self) -> bool {
        f32::is_nan(self)
    }
}

impl Value {
    /// Is it a dual (a scalar carrying a tangent)?
    pub(super) fn is_dual(&self) -> bool {
        matches!(self, Value::DualF64(..) | Value::DualF32(..))
    }

    /// The value with every tangent dropped.
    pub(super) fn primal(&self) -> Value {
        match *self {
            Value::DualF64(x, _) => Value::F64(x),
            Value::DualF32(x, _) => Value::F32(x),
            Value::Array(ref xs) => Value::Array(xs.iter().map(Value::primal).collect()),
            Value::Tuple(ref xs) => Value::Tuple(xs.iter().map(Value::primal).collect()),
            ref other => other.clone(),
        }
    }
}

/// `sum(partial * tangent)` over the operands that have a nonzero tangent; `None` if none
/// has (the result is then a plain value).
fn chain<T: Lane>(terms: &[(T, Option<T>)]) -> Option<T> {
    let mut sum: Option<T> = None;
    for &(partial, tangent) in terms {
        if let Some(t) = tangent
            && t != T::ZERO
        {
            let term = partial * t;
            sum = Some(match sum {
                Some(s) => s + term,
                None => term,
            });
        }
    }
    sum
}

/// `a op b` where a or b is a dual.
pub(super) fn arithmetic(op: BinOp, a: &Value, b: &Value) -> Result<Value, String> {
    match scalar::arithmetic(op, &a.primal(), &b.primal())? {
        Value::F64(r) => Ok(bin_tangent::<f64>(op, a, b, r)),
        Value::F32(r) => Ok(bin_tangent::<f32>(op, a, b, r)),
        // A comparison.
        other => Ok(other),
    }
}

fn bin_tangent<T: Lane>(op: BinOp, a: &Value, b: &Value, r: T) -> Value {
    let (x, dx) = T::lane(a);
    let (y, dy) = T::lane(b);
    let dr = match op {
        BinOp::Add => chain(&[(T::ONE, dx), (T::ONE, dy)]),
        BinOp::Sub => chain(&[(T::ONE, dx), (-T::ONE, dy)]),
        BinOp::Mul => chain(&[(y, dx), (x, dy)]),
        BinOp::Div => chain(&[(T::ONE / y, dx), (-r / y, dy)]),
        BinOp::Rem => chain(&[(T::ONE, dx), (-(x / y).trunc(), dy)]),
        // Comparisons and logic give no float (the caller returns their bool).
        _ => None,
    };
    T::value(r, dr)
}

/// `-x` for a dual.
pub(super) fn negate(x: &Value) -> Option<Value> {
    match *x {
        Value::DualF64(x, dx) => Some(Value::DualF64(-x, -dx)),
        Value::DualF32(x, dx) => Some(Value::DualF32(-x, -dx)),
        _ => None,
    }
}

/// `x as to` for a dual `x`: the tangent is cast the same way; a `usize` has none.
pub(super) fn cast(x: &Value, to: CastTy) -> Result<Value, String> {
    let r = scalar::cast(&x.primal(), to)?;
    let dx = match *x {
        Value::DualF64(_, dx) => Value::F64(dx),
        Value::DualF32(_, dx) => Value::F32(dx),
        _ => return Ok(r),
    };
    Ok(match (r, scalar::cast(&dx, to)?) {
        (Value::F64(r), Value::F64(dr)) => Value::DualF64(r, dr),
        (Value::F32(r), Value::F32(dr)) => Value::DualF32(r, dr),
        (r, _) => r,
    })
}

/// `x.powi(k)` for a dual `x`: `k x^(k-1) dx` (nothing for k = 0).
pub(super) fn powi(x: &Value, k: i32) -> Result<Value, String> {
    let r = scalar::powi(&x.primal(), k)?;
    match r {
        Value::F64(r) => powi_tangent::<f64>(x, k, r),
        Value::F32(r) => powi_tangent::<f32>(x, k, r),
        other => Ok(other),
    }
}

fn powi_tangent<T: Lane>(x: &Value, k: i32, r: T) -> Result<Value, String> {
    let (x, dx) = T::lane(x);
    if k == 0 {
        return Ok(T::value(r, None));
    }
    let km1 = k
        .checked_sub(1)
        .ok_or_else(|| format!("`powi` exponent {k} is too small to differentiate"))?;
    let partial = T::from_i32(k) * x.powi(km1);
    Ok(T::value(r, chain(&[(partial, dx)])))
}

/// `x.f(args)` where x or an argument is a dual (never `powi`, [`powi`]).
pub(super) fn math(f: MathFn, x: &Value, args: &[Value]) -> Result<Value, String> {
    let plain: Vec<Value> = args.iter().map(Value::primal).collect();
    match scalar::math(f, &x.primal(), &plain)? {
        Value::F64(r) => Ok(math_tangent::<f64>(f, x, args, r)),
        Value::F32(r) => Ok(math_tangent::<f32>(f, x, args, r)),
        other => Ok(other),
    }
}

fn math_tangent<T: Lane>(f: MathFn, x: &Value, args: &[Value], r: T) -> Value {
    let x = T::lane(x);
    let args: Vec<(T, Option<T>)> = args.iter().map(T::lane).collect();
    let dr = match (f, args.as_slice()) {
        (MathFn::Floor | MathFn::Ceil | MathFn::Signum, _) => None,
        (MathFn::Min, [y]) => min(x, *y).1,
        (MathFn::Max, [y]) => max(x, *y).1,
        (MathFn::Clamp, [lo, hi]) => min(max(x, *lo), *hi).1,
        _ => {
            let values: Vec<T> = args.iter().map(|a| a.0).collect();
            let p = T::partials(f, x.0, &values, r);
            let mut terms = vec![(p[0], x.1)];
            terms.extend(args.iter().zip(&p[1..]).map(|(a, &p)| (p, a.1)));
            chain(&terms)
        }
    };
    T::value(r, dr)
}

/// `x.min(y)` as the branch taken: x (value and tangent) unless y < x or x is NaN (Rust's
/// `min` of a NaN and a number is the number), so x on a tie.
fn min<T: Lane>(x: (T, Option<T>), y: (T, Option<T>)) -> (T, Option<T>) {
    if x.0.is_nan() || y.0 < x.0 { y } else { x }
}

/// `x.max(y)` as the branch taken: x unless y > x or x is NaN, so x on a tie.
fn max<T: Lane>(x: (T, Option<T>), y: (T, Option<T>)) -> (T, Option<T>) {
    if x.0.is_nan() || y.0 > x.0 { y } else { x }
}
