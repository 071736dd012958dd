//! Sizes and types as written: evaluated with the sizes of an environment, printed for
//! messages, and values checked against them.

use super::env::{Denotation, Env, lookup};
use super::value::{Float, Value, describe};
use fsmooth_core::front::ast::{SizeAst, SizeOp, Ty};

/// The error for a size name that no argument determined.
pub(super) fn unknown_size(name: &str) -> String {
    format!(
        "size `{name}` is not known: no argument determines it \
         (an empty array does not show its inner sizes)"
    )
}

/// The value of size name `name` in `env`.
fn size_of(env: &Env<'_>, name: &str) -> Result<usize, String> {
    match lookup(env, name) {
        Some(Denotation::Value(v)) => match **v {
            Value::Usize(k) => Ok(k),
            ref other => Err(format!(
                "size `{name}` is `{}`, not a usize",
                describe(other)
            )),
        },
        Some(Denotation::UnknownSize) => Err(unknown_size(name)),
        Some(Denotation::Function(_)) => Err(format!("size `{name}` is a function")),
        None => Err(format!("unknown size name `{name}`")),
    }
}

/// Evaluate a size written in a type, with checked arithmetic.
fn eval_size(s: &SizeAst, env: &Env<'_>) -> Result<usize, String> {
    match s {
        SizeAst::Lit(k, _) => {
            usize::try_from(*k).map_err(|_| format!("size {k} does not fit in usize"))
        }
        SizeAst::Name(n) => size_of(env, &n.text),
        SizeAst::Bin(op, a, b, _) => {
            let x = eval_size(a, env)?;
            let y = eval_size(b, env)?;
            let r = match op {
                SizeOp::Add => x.checked_add(y),
                SizeOp::Sub => x.checked_sub(y),
                SizeOp::Mul => x.checked_mul(y),
                SizeOp::Div => x.checked_div(y),
            };
            r.ok_or_else(|| {
                format!(
                    "size `{}` is {x} {} {y}, which {}",
                    fmt_size(s),
                    size_op_symbol(*op),
                    size_fault(*op)
                )
            })
        }
    }
}

fn size_op_symbol(op: SizeOp) -> &'static str {
    match op {
        SizeOp::Add => "+",
        SizeOp::Sub => "-",
        SizeOp::Mul => "*",
        SizeOp::Div => "/",
    }
}

fn size_fault(op: SizeOp) -> &'static str {
    match op {
        SizeOp::Sub => "underflows",
        SizeOp::Div => "divides by zero",
        SizeOp::Add | SizeOp::Mul => "overflows",
    }
}

/// A size as written, with the parentheses it needs.
fn fmt_size(s: &SizeAst) -> String {
    fn prec(s: &SizeAst) -> u8 {
        match s {
            SizeAst::Bin(SizeOp::Add | SizeOp::Sub, ..) => 1,
            SizeAst::Bin(SizeOp::Mul | SizeOp::Div, ..) => 2,
            _ => 3,
        }
    }
    match s {
        SizeAst::Lit(k, _) => k.to_string(),
        SizeAst::Name(n) => n.text.clone(),
        SizeAst::Bin(op, a, b, _) => {
            let p = prec(s);
            let l = if prec(a) < p {
                format!("({})", fmt_size(a))
            } else {
                fmt_size(a)
            };
            let r = if prec(b) <= p {
                format!("({})", fmt_size(b))
            } else {
                fmt_size(b)
            };
            format!("{l} {} {r}", size_op_symbol(*op))
        }
    }
}

/// A type as written.
pub(super) fn fmt_ty(t: &Ty) -> String {
    match t {
        Ty::F64(_) => "f64".into(),
        Ty::F32(_) => "f32".into(),
        Ty::Usize(_) => "usize".into(),
        Ty::Bool(_) => "bool".into(),
        Ty::Array(e, s, _) => format!("[{}; {}]", fmt_ty(e), fmt_size(s)),
        Ty::Fn(ps, r, _) => {
            let ps: Vec<String> = ps.iter().map(fmt_ty).collect();
            format!("fn({}) -> {}", ps.join(", "), fmt_ty(r))
        }
        Ty::Tuple(ps, _) => {
            let ps: Vec<String> = ps.iter().map(fmt_ty).collect();
            format!("({})", ps.join(", "))
        }
        Ty::Elem(n) => n.text.clone(),
    }
}

/// Bind the bare size names of `ty` that are not bound yet from the shape of `v`, dimension
/// by dimension (inner dimensions from the first element), through tuples component by
/// component (left to right). Mismatches are left for [`check_shape`] to report.
pub(super) fn bind_sizes<'a>(ty: &'a Ty, v: &Value, sizes: &mut Vec<(&'a str, usize)>) {
    match (ty, v) {
        (Ty::Array(elem, size, _), Value::Array(xs)) => {
            if let SizeAst::Name(n) = size
                && !sizes.iter().any(|(s, _)| *s == n.text)
            {
                sizes.push((&n.text, xs.len()));
            }
            if let Some(x0) = xs.first() {
                bind_sizes(elem, x0, sizes);
            }
        }
        (Ty::Tuple(ts, _), Value::Tuple(xs)) => {
            for (t, x) in ts.iter().zip(xs) {
                bind_sizes(t, x, sizes);
            }
        }
        _ => {}
    }
}

/// Every size name in `ty`, in order of first appearance, without repeats.
pub(super) fn ty_size_names<'a>(ty: &'a Ty, out: &mut Vec<&'a str>) {
    match ty {
        Ty::F64(_) | Ty::F32(_) | Ty::Usize(_) | Ty::Bool(_) | Ty::Elem(_) => {}
        Ty::Array(elem, size, _) => {
            let mut names = Vec::new();
            size.names(&mut names);
            for n in names {
                if !out.contains(&n.text.as_str()) {
                    out.push(&n.text);
                }
            }
            ty_size_names(elem, out);
        }
        Ty::Fn(ps, r, _) => {
            for p in ps {
                ty_size_names(p, out);
            }
            ty_size_names(r, out);
        }
        Ty::Tuple(ps, _) => {
            for p in ps {
                ty_size_names(p, out);
            }
        }
    }
}

/// Check that `v` has type `ty`, with the sizes of `env`. The error says what differs. An
/// untyped float has either float type (see [`settle_ty`]).
pub(super) fn check_shape(ty: &Ty, v: &Value, env: &Env<'_>) -> Result<(), String> {
    match (ty, v) {
        (Ty::F64(_), Value::F64(_) | Value::DualF64(..) | Value::Untyped(..))
        | (Ty::F32(_), Value::F32(_) | Value::DualF32(..) | Value::Untyped(..))
        | (Ty::Usize(_), Value::Usize(_))
        | (Ty::Bool(_), Value::Bool(_)) => Ok(()),
        // An element-type parameter stands for any element (the compiler checks that its
        // uses agree).
        (Ty::Elem(_), _) => Ok(()),
        (Ty::Array(elem, size, _), Value::Array(xs)) => {
            let n = eval_size(size, env)?;
            if xs.len() != n {
                return Err(format!(
                    "size `{}` is {n}, but the array has {} elements",
                    fmt_size(size),
                    xs.len()
                ));
            }
            xs.iter().try_for_each(|x| check_shape(elem, x, env))
        }
        (Ty::Tuple(ts, _), Value::Tuple(xs)) => {
            if ts.len() != xs.len() {
                return Err(format!(
                    "a tuple of {} components is not one of {}",
                    xs.len(),
                    ts.len()
                ));
            }
            for (k, (t, x)) in ts.iter().zip(xs).enumerate() {
                check_shape(t, x, env).map_err(|e| format!("component `.{k}`: {e}"))?;
            }
            Ok(())
        }
        _ => Err(format!("`{}` is not a `{}`", describe(v), fmt_ty(ty))),
    }
}

/// `v` (which has type `ty`, [`check_shape`]) with its untyped floats given the float types
/// `ty` declares for them: a literal takes its declared type (`let x: f32 = 0.1`, an
/// argument for an `f32` parameter, a result). Under an element-type parameter `T` they
/// stay untyped.
pub(super) fn settle_ty(ty: &Ty, v: Value) -> Value {
    match (ty, v) {
        (Ty::F64(_), v @ Value::Untyped(..)) => v.settle(Float::F64),
        (Ty::F32(_), v @ Value::Untyped(..)) => v.settle(Float::F32),
        (Ty::Array(elem, _, _), Value::Array(xs)) => {
            Value::Array(xs.into_iter().map(|x| settle_ty(elem, x)).collect())
        }
        (Ty::Tuple(ts, _), Value::Tuple(xs)) => {
            Value::Tuple(ts.iter().zip(xs).map(|(t, x)| settle_ty(t, x)).collect())
        }
        (_, v) => v,
    }
}
