//! Scalar operations: arithmetic and comparisons, negation, casts and the math methods, on
//! f64 (Rust's f64 operations), f32 (Rust's f32 operations: an f32 value never passes
//! through f64), untyped float literals (both at once, see [`Value::Untyped`]) and usize
//! (checked: underflow, overflow and division by zero are errors, never wrapped values).
//! An operand carrying a tangent (a dual, [`Value::DualF64`]) goes to `dual`, which computes
//! the value here and then the tangent.

use super::dual;
use super::value::{Float, Value, describe};
use fsmooth_core::front::ast::{BinOp, CastTy, MathFn};
use std::ops::{Add, Div, Mul, Rem, Sub};

/// f32 and f64, for the operators they share.
trait Flt:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Rem<Output = Self>
{
}

impl Flt for f32 {}
impl Flt for f64 {}

/// What a binary operator on floats gives: a float or, for a comparison, a bool.
enum Out<T> {
    Num(T),
    Truth(bool),
}

fn float_bin<T: Flt>(op: BinOp, x: T, y: T) -> Result<Out<T>, String> {
    Ok(match op {
        BinOp::Add => Out::Num(x + y),
        BinOp::Sub => Out::Num(x - y),
        BinOp::Mul => Out::Num(x * y),
        BinOp::Div => Out::Num(x / y),
        BinOp::Rem => Out::Num(x % y),
        BinOp::Lt => Out::Truth(x < y),
        BinOp::Le => Out::Truth(x <= y),
        BinOp::Gt => Out::Truth(x > y),
        BinOp::Ge => Out::Truth(x >= y),
        BinOp::Eq => Out::Truth(x == y),
        BinOp::Ne => Out::Truth(x != y),
        BinOp::And | BinOp::Or => return Err(not_bool(op)),
    })
}

fn not_bool(op: BinOp) -> String {
    format!("`{}` needs bool operands", op.symbol())
}

/// Floats of one type, as that type: a typed float and an untyped one take the typed
/// one's type; two untyped ones stay untyped (both halves).
enum Floats {
    F64(Vec<f64>),
    F32(Vec<f32>),
    Untyped(Vec<f64>, Vec<f32>),
}

/// `vs` as floats of one type; `Err` names the first value that is no float, or the two
/// float types that meet.
fn floats(vs: &[&Value]) -> Result<Floats, FloatsErr> {
    let mut ty: Option<Float> = None;
    for v in vs {
        let t = match v {
            Value::F64(_) => Float::F64,
            Value::F32(_) => Float::F32,
            Value::Untyped(..) => continue,
            other => return Err(FloatsErr::NotFloat(describe(other))),
        };
        match ty {
            Some(u) if u != t => return Err(FloatsErr::Mixed(u, t)),
            _ => ty = Some(t),
        }
    }
    let half64 = |v: &&Value| match v {
        Value::F64(x) | Value::Untyped(x, _) => *x,
        _ => f64::NAN, // not reached: checked above
    };
    let half32 = |v: &&Value| match v {
        Value::F32(x) | Value::Untyped(_, x) => *x,
        _ => f32::NAN, // not reached: checked above
    };
    Ok(match ty {
        Some(Float::F64) => Floats::F64(vs.iter().map(half64).collect()),
        Some(Float::F32) => Floats::F32(vs.iter().map(half32).collect()),
        None => Floats::Untyped(
            vs.iter().map(half64).collect(),
            vs.iter().map(half32).collect(),
        ),
    })
}

enum FloatsErr {
    NotFloat(String),
    Mixed(Float, Float),
}

/// `a op b` for the arithmetic and comparison operators: two floats of one type (an
/// untyped float takes the other's type; two untyped ones compute both halves, and
/// compare as f64, the type they default to), or two usize (checked).
pub(super) fn arithmetic(op: BinOp, a: &Value, b: &Value) -> Result<Value, String> {
    if a.is_dual() || b.is_dual() {
        return dual::arithmetic(op, a, b);
    }
    if let (Value::Usize(x), Value::Usize(y)) = (a, b) {
        return usize_arithmetic(op, *x, *y);
    }
    let mixed = || {
        format!(
            "`{}` needs two floats of one type or two usize operands, found `{}` and `{}`",
            op.symbol(),
            describe(a),
            describe(b)
        )
    };
    match floats(&[a, b]).map_err(|_| mixed())? {
        Floats::F64(v) => Ok(match float_bin(op, v[0], v[1])? {
            Out::Num(x) => Value::F64(x),
            Out::Truth(t) => Value::Bool(t),
        }),
        Floats::F32(v) => Ok(match float_bin(op, v[0], v[1])? {
            Out::Num(x) => Value::F32(x),
            Out::Truth(t) => Value::Bool(t),
        }),
        Floats::Untyped(w, v) => Ok(
            match (float_bin(op, w[0], w[1])?, float_bin(op, v[0], v[1])?) {
                (Out::Num(x), Out::Num(y)) => Value::Untyped(x, y),
                (Out::Truth(t), _) | (_, Out::Truth(t)) => Value::Bool(t),
            },
        ),
    }
}

fn usize_arithmetic(op: BinOp, x: usize, y: usize) -> Result<Value, String> {
    let checked = |r: Option<usize>, fault: &str| {
        r.map(Value::Usize)
            .ok_or_else(|| format!("usize `{x} {} {y}` {fault}", op.symbol()))
    };
    match op {
        BinOp::Add => checked(x.checked_add(y), "overflows"),
        BinOp::Sub => checked(x.checked_sub(y), "underflows"),
        BinOp::Mul => checked(x.checked_mul(y), "overflows"),
        BinOp::Div => checked(x.checked_div(y), "divides by zero"),
        BinOp::Rem => checked(x.checked_rem(y), "divides by zero"),
        BinOp::Lt => Ok(Value::Bool(x < y)),
        BinOp::Le => Ok(Value::Bool(x <= y)),
        BinOp::Gt => Ok(Value::Bool(x > y)),
        BinOp::Ge => Ok(Value::Bool(x >= y)),
        BinOp::Eq => Ok(Value::Bool(x == y)),
        BinOp::Ne => Ok(Value::Bool(x != y)),
        BinOp::And | BinOp::Or => Err(not_bool(op)),
    }
}

/// `-x` for a float.
pub(super) fn negate(x: &Value) -> Result<Value, String> {
    if let Some(r) = dual::negate(x) {
        return Ok(r);
    }
    match *x {
        Value::F64(x) => Ok(Value::F64(-x)),
        Value::F32(x) => Ok(Value::F32(-x)),
        Value::Untyped(x, y) => Ok(Value::Untyped(-x, -y)),
        ref other => Err(format!(
            "unary `-` applies to floats, not `{}`",
            describe(other)
        )),
    }
}

/// `x as to`, Rust's `as`: float to usize truncates toward zero and saturates (NaN is 0),
/// f64 to f32 rounds to nearest, usize to a float rounds to nearest. An untyped float is
/// cast from its f64 value (with nothing to give it a type, it is an f64).
pub(super) fn cast(x: &Value, to: CastTy) -> Result<Value, String> {
    if x.is_dual() {
        return dual::cast(x, to);
    }
    Ok(match (x, to) {
        (Value::F64(x) | Value::Untyped(x, _), CastTy::F64) => Value::F64(*x),
        (Value::F64(x) | Value::Untyped(x, _), CastTy::F32) => Value::F32(*x as f32),
        (Value::F64(x) | Value::Untyped(x, _), CastTy::Usize) => Value::Usize(*x as usize),
        (Value::F32(x), CastTy::F64) => Value::F64(f64::from(*x)),
        (Value::F32(x), CastTy::F32) => Value::F32(*x),
        (Value::F32(x), CastTy::Usize) => Value::Usize(*x as usize),
        (Value::Usize(k), CastTy::F64) => Value::F64(*k as f64),
        (Value::Usize(k), CastTy::F32) => Value::F32(*k as f32),
        (Value::Usize(k), CastTy::Usize) => Value::Usize(*k),
        (other, _) => {
            return Err(format!(
                "cannot cast `{}` with `as {}`",
                describe(other),
                to.name()
            ));
        }
    })
}

/// `x.f(args)` for every method but `powi` ([`powi`]): on floats of one type, in that
/// type's arithmetic ([`MathFn::eval`], [`MathFn::eval_f32`]); `min`, `max` and `clamp`
/// also on usize (`x.clamp(lo, hi)` is `x.max(lo).min(hi)`, which never panics).
pub(super) fn math(f: MathFn, x: &Value, args: &[Value]) -> Result<Value, String> {
    if let Value::Usize(k) = x {
        return usize_math(f, *k, args);
    }
    if x.is_dual() || args.iter().any(Value::is_dual) {
        return dual::math(f, x, args);
    }
    let mut vs: Vec<&Value> = Vec::with_capacity(1 + args.len());
    vs.push(x);
    vs.extend(args);
    match floats(&vs) {
        Ok(Floats::F64(v)) => Ok(Value::F64(f.eval(v[0], &v[1..]))),
        Ok(Floats::F32(v)) => Ok(Value::F32(f.eval_f32(v[0], &v[1..]))),
        Ok(Floats::Untyped(w, v)) => Ok(Value::Untyped(
            f.eval(w[0], &w[1..]),
            f.eval_f32(v[0], &v[1..]),
        )),
        Err(FloatsErr::NotFloat(found)) => Err(format!(
            "`{}` applies to floats{}, found `{found}`",
            f.name(),
            if matches!(f, MathFn::Min | MathFn::Max | MathFn::Clamp) {
                " or usize"
            } else {
                ""
            }
        )),
        Err(FloatsErr::Mixed(a, b)) => Err(format!(
            "`{}` mixes `{}` and `{}`: its receiver and arguments must be of one type",
            f.name(),
            a.name(),
            b.name()
        )),
    }
}

fn usize_math(f: MathFn, x: usize, args: &[Value]) -> Result<Value, String> {
    let mut ks = Vec::with_capacity(args.len());
    for a in args {
        match a {
            Value::Usize(k) => ks.push(*k),
            other => {
                return Err(format!(
                    "`{}` of a usize takes usize arguments, found `{}`",
                    f.name(),
                    describe(other)
                ));
            }
        }
    }
    match (f, ks.as_slice()) {
        (MathFn::Min, [y]) => Ok(Value::Usize(x.min(*y))),
        (MathFn::Max, [y]) => Ok(Value::Usize(x.max(*y))),
        // Not `Ord::clamp`, which panics when lo > hi.
        (MathFn::Clamp, [lo, hi]) => Ok(Value::Usize(x.max(*lo).min(*hi))),
        _ => Err(format!(
            "`{}` does not apply to usize (only `min`, `max` and `clamp` do)",
            f.name()
        )),
    }
}

/// `x.powi(k)` for a float `x` (in its own type).
pub(super) fn powi(x: &Value, k: i32) -> Result<Value, String> {
    if x.is_dual() {
        return dual::powi(x, k);
    }
    match *x {
        Value::F64(x) => Ok(Value::F64(x.powi(k))),
        Value::F32(x) => Ok(Value::F32(x.powi(k))),
        Value::Untyped(x, y) => Ok(Value::Untyped(x.powi(k), y.powi(k))),
        ref other => Err(format!(
            "`powi` applies to floats, found `{}`",
            describe(other)
        )),
    }
}
