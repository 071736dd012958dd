//! The derivative forms (LANGUAGE.md section 12): `grad(f, a1, .., ak)`,
//! `jvp(f, (a1, .., ak), (t1, .., tk))` and `vjp(f, (a1, .., ak), s)` (with one argument,
//! `jvp(f, a, t)` and `vjp(f, a, s)`). A call reaches them only when no closure or parameter
//! in scope and no block or prelude function has the name, as the views are reached.
//!
//! - `f` is a function of the block or a closure; its parameters are the variables to
//!   differentiate by (what a closure captures is constant). Each argument is float-typed:
//!   an f64 or f32, an array of them (any rank), or a tuple of such values; a `usize` or a
//!   `bool` in an argument is an error. So is a result of `f` that holds one: only float
//!   results are differentiated.
//! - **Forward mode** (`jvp`) evaluates `f` once on dual numbers ([`Value::DualF64`]): each
//!   float of argument i carries the matching float of tangent i, and every scalar
//!   operation propagates tangents (`dual`). The result is `(f(a..), df)`, `df` the
//!   tangents of f's result, shaped like it (zero where a float of the result does not
//!   depend on the arguments). An `if` takes the branch its (plain) condition chooses;
//!   indexes, sizes and bools carry no tangent.
//! - **Reverse mode** (`vjp`, `grad`) is computed from forward mode: one `jvp` per float of
//!   the arguments, along that coordinate's unit tangent, gives a column of the Jacobian
//!   J, and `gi[c] = sum over the result's floats r of s[r] * J[r][c]`, summed in the
//!   result's order, each product computed in the result's float type and added in the
//!   argument's. That is one evaluation of `f` per input float, fine for test-sized inputs,
//!   and correct as soon as `jvp` is: a tape would be faster, but would be a second method
//!   to get right. `grad(f, a..)` is `vjp(f, (a..), 1.0)` for an f returning a float
//!   scalar, an error otherwise. The result is `(f(a..), g1, .., gk)`, each `gi` of
//!   argument i's shape and types.
//! - Untyped literals among the arguments take the type of the parameter of a block
//!   function (or of a `fn(..)` parameter) they are passed to; otherwise, for `jvp`, the
//!   type of their tangent, else f64. A tangent's or seed's untyped literals take the type of
//!   its argument or of f's result. Then a tangent must have its argument's shape and
//!   types exactly, and a seed the shape and types of f's result.
//! - Higher derivatives are not supported: a derivative form evaluated while `f` of another
//!   one is being evaluated is an error (one tangent slot per float cannot tell two
//!   directions apart).

use super::call::Evaluator;
use super::env::{Denotation, Env, Function};
use super::scalar;
use super::types::settle_ty;
use super::unwrap_rc;
use super::value::{Float, Value, describe, same_shape};
use fsmooth_core::front::ast::{BinOp, CastTy, Expr, Name, Ty};

/// The derivative forms' names.
pub(super) const DERIVATIVES: [&str; 3] = ["grad", "jvp", "vjp"];

/// How a form is written, for messages.
fn usage(form: &str) -> &'static str {
    match form {
        "grad" => "grad(f, a1, .., ak)",
        "jvp" => "jvp(f, (a1, .., ak), (t1, .., tk))",
        _ => "vjp(f, (a1, .., ak), s)",
    }
}

/// Why a derivative form failed: its own check (the message is prefixed with the form), or
/// an error of `f`'s evaluation (passed on, with the form named in the chain of calls).
enum Fault {
    Own(String),
    Inner(String),
}

impl From<String> for Fault {
    fn from(e: String) -> Fault {
        Fault::Own(e)
    }
}

impl<'a> Evaluator<'a> {
    /// A call of derivative form `name` (one of [`DERIVATIVES`]): its arguments left to
    /// right, then the derivative.
    pub(super) fn derivative(
        &self,
        name: &'a Name,
        args: &'a [Expr],
        env: &Env<'a>,
        depth: usize,
    ) -> Result<Denotation<'a>, String> {
        let form = name.text.as_str();
        match self.derivative_inner(form, args, env, depth) {
            Ok(v) => Ok(Denotation::from(v)),
            Err(Fault::Own(e)) => Err(format!("`{}`: {e}", usage(form))),
            Err(Fault::Inner(e)) => Err(format!("{e}\n  in `{form}`")),
        }
    }

    fn derivative_inner(
        &self,
        form: &str,
        args: &'a [Expr],
        env: &Env<'a>,
        depth: usize,
    ) -> Result<Value, Fault> {
        if self.differentiating {
            return Err(Fault::Own(
                "inside a function being differentiated: higher derivatives are not \
                 supported by the interpreter"
                    .into(),
            ));
        }
        let enough = if form == "grad" {
            args.len() >= 2
        } else {
            args.len() == 3
        };
        if !enough {
            return Err(Fault::Own(format!(
                "takes {}, found {} argument{}",
                if form == "grad" {
                    "a function and its arguments"
                } else {
                    "three arguments"
                },
                args.len(),
                if args.len() == 1 { "" } else { "s" }
            )));
        }
        let f = match self.eval(&args[0], env, depth)? {
            Denotation::Function(f) => f,
            Denotation::Value(v) => {
                return Err(Fault::Own(format!(
                    "`f` must be a function, found `{}`",
                    describe(&v)
                )));
            }
            Denotation::UnknownSize => return Err(Fault::Own("`f` must be a function".into())),
        };
        let k = arity(&f);
        if k == 0 {
            return Err(Fault::Own(
                "`f` has no parameters to differentiate by".into(),
            ));
        }
        let xs = if form == "grad" {
            let mut xs = Vec::with_capacity(args.len() - 1);
            for a in &args[1..] {
                xs.push(self.value(a, env, depth)?);
            }
            if xs.len() != k {
                return Err(Fault::Own(format!(
                    "`f` takes {k} argument{}, given {}",
                    if k == 1 { "" } else { "s" },
                    xs.len()
                )));
            }
            xs
        } else {
            spread(self.value(&args[1], env, depth)?, k, "arguments", "a")?
        };
        let xs: Vec<Value> = xs
            .into_iter()
            .enumerate()
            .map(|(i, x)| match declared(&f, i) {
                Some(ty) => settle_ty(ty, x),
                None => x,
            })
            .collect();
        match form {
            "jvp" => {
                let ts = spread(self.value(&args[2], env, depth)?, k, "tangents", "t")?;
                self.jvp(&f, xs, ts, depth)
            }
            "vjp" => {
                let s = self.value(&args[2], env, depth)?;
                self.vjp(&f, xs, Some(s), depth)
            }
            _ => self.vjp(&f, xs, None, depth),
        }
    }

    /// `jvp(f, xs, ts)`: `(f(xs), df)`.
    fn jvp(
        &self,
        f: &Function<'a>,
        xs: Vec<Value>,
        ts: Vec<Value>,
        depth: usize,
    ) -> Result<Value, Fault> {
        let mut duals = Vec::with_capacity(xs.len());
        for (i, (x, t)) in xs.into_iter().zip(ts).enumerate() {
            let x = match x.float_type().or(t.float_type()) {
                Some(ty) => x.settle(ty),
                None => x.settle(Float::F64),
            };
            float_only(&x, &format!("argument {}", i + 1))?;
            let t = t.settle(x.float_type().unwrap_or(Float::F64));
            if !same_shape(&x, &t) || t.has_untyped() {
                return Err(Fault::Own(format!(
                    "tangent {} must have the shape of argument {}, `{}`, found `{}`",
                    i + 1,
                    i + 1,
                    describe(&x),
                    describe(&t)
                )));
            }
            duals.push(dual(&x, &t));
        }
        let r = self.apply(f, duals, depth)?;
        let (primal, tangent) = split(&r)?;
        Ok(Value::Tuple(vec![primal, tangent]))
    }

    /// `vjp(f, xs, s)`, or with no seed `grad(f, xs..)`: `(f(xs), g1, .., gk)`, from one
    /// `jvp` per float of the arguments.
    fn vjp(
        &self,
        f: &Function<'a>,
        xs: Vec<Value>,
        seed: Option<Value>,
        depth: usize,
    ) -> Result<Value, Fault> {
        let xs: Vec<Value> = xs.into_iter().map(|x| x.settle(Float::F64)).collect();
        for (i, x) in xs.iter().enumerate() {
            float_only(x, &format!("argument {}", i + 1))?;
        }
        let primal = self.apply(f, xs.clone(), depth)?;
        result_only(&primal)?;
        let s = match seed {
            Some(s) => {
                let s = match primal.float_type() {
                    Some(ty) => s.settle(ty),
                    None => s,
                };
                if !same_shape(&primal, &s) {
                    return Err(Fault::Own(format!(
                        "the seed `s` must have the shape of the result of `f`, `{}`, found `{}`",
                        describe(&primal),
                        describe(&s)
                    )));
                }
                s
            }
            None => match primal {
                Value::F64(_) => Value::F64(1.0),
                Value::F32(_) => Value::F32(1.0),
                Value::Untyped(..) => Value::Untyped(1.0, 1.0),
                ref other => {
                    return Err(Fault::Own(format!(
                        "`f` must return a float scalar, found `{}` (for other results, \
                         `vjp` takes a seed)",
                        describe(other)
                    )));
                }
            },
        };
        let zeros: Vec<Value> = xs.iter().map(|x| unit(x, usize::MAX)).collect();
        let mut out = vec![primal];
        for (i, x) in xs.iter().enumerate() {
            let mut c = 0;
            let g = map_leaves(x, &mut |leaf| {
                let mut ts = zeros.clone();
                ts[i] = unit(x, c);
                c += 1;
                let duals = xs.iter().zip(&ts).map(|(x, t)| dual(x, t)).collect();
                let (_, column) = split(&self.apply(f, duals, depth)?)?;
                Ok::<Value, Fault>(dot(&s, &column, leaf.float_type().unwrap_or(Float::F64))?)
            })?;
            out.push(g);
        }
        Ok(Value::Tuple(out))
    }

    /// `f(args)`, evaluated as a function being differentiated (a derivative form inside
    /// it is an error).
    fn apply(&self, f: &Function<'a>, args: Vec<Value>, depth: usize) -> Result<Value, Fault> {
        let inner = Evaluator {
            differentiating: true,
            ..*self
        };
        let args = args.into_iter().map(Denotation::from).collect();
        match inner.invoke(f, args, depth + 1).map_err(Fault::Inner)? {
            Denotation::Value(v) => Ok(unwrap_rc(v)),
            _ => Err(Fault::Own("`f` returned a function, not a value".into())),
        }
    }
}

/// The number of parameters of a function value.
fn arity(f: &Function<'_>) -> usize {
    match f {
        Function::Closure { params, .. } => params.len(),
        Function::Named(def, _) => def.params.len(),
        Function::Typed { params, .. } => params.len(),
    }
}

/// The declared type of parameter `i` of a function value, if it has one.
fn declared<'f>(f: &'f Function<'_>, i: usize) -> Option<&'f Ty> {
    match f {
        Function::Closure { .. } => None,
        Function::Named(def, _) => def.params.get(i).map(|p| &p.ty),
        Function::Typed { params, .. } => params.get(i),
    }
}

/// The k values of a form's argument tuple (`what`: "arguments" or "tangents", written
/// `letter1, ..`): with k = 1 the value itself, else a tuple of k components.
fn spread(v: Value, k: usize, what: &str, letter: &str) -> Result<Vec<Value>, String> {
    if k == 1 {
        return Ok(vec![v]);
    }
    match v {
        Value::Tuple(xs) if xs.len() == k => Ok(xs),
        other => Err(format!(
            "`f` takes {k} arguments: write the {what} as a tuple `({letter}1, .., {letter}{k})`, \
             found `{}`",
            describe(&other)
        )),
    }
}

/// Check that argument `what` holds floats only (in arrays and tuples): no `usize`, no
/// `bool`.
fn float_only(v: &Value, what: &str) -> Result<(), String> {
    not_float(v, what).map_err(|e| {
        format!(
            "{e}: `f` is differentiated by floats only (f64, f32, arrays and tuples of them); \
             to hold a value constant, capture it in a closure"
        )
    })
}

/// Check that the result of `f` holds floats only.
fn result_only(v: &Value) -> Result<(), String> {
    not_float(v, "the result of `f`")
        .map_err(|e| format!("{e}: only float results are differentiated"))
}

/// What is not a float in `v` (`what`), if anything.
fn not_float(v: &Value, what: &str) -> Result<(), String> {
    match (v, first_not_float(v)) {
        (_, None) => Ok(()),
        (Value::Usize(_) | Value::Bool(_), Some(ty)) => Err(format!("{what} is a `{ty}`")),
        (_, Some(ty)) => Err(format!("{what}, `{}`, holds a `{ty}`", describe(v))),
    }
}

fn first_not_float(v: &Value) -> Option<&'static str> {
    match v {
        Value::Usize(_) => Some("usize"),
        Value::Bool(_) => Some("bool"),
        Value::Array(xs) | Value::Tuple(xs) => xs.iter().find_map(first_not_float),
        _ => None,
    }
}

/// `v` with each float (depth first, in order) replaced by `leaf` of it.
fn map_leaves<E>(v: &Value, leaf: &mut impl FnMut(&Value) -> Result<Value, E>) -> Result<Value, E> {
    match v {
        Value::Array(xs) => Ok(Value::Array(
            xs.iter()
                .map(|x| map_leaves(x, leaf))
                .collect::<Result<_, _>>()?,
        )),
        Value::Tuple(xs) => Ok(Value::Tuple(
            xs.iter()
                .map(|x| map_leaves(x, leaf))
                .collect::<Result<_, _>>()?,
        )),
        other => leaf(other),
    }
}

/// The scalars of `v` (depth first, in order).
fn leaves<'v>(v: &'v Value, out: &mut Vec<&'v Value>) {
    match v {
        Value::Array(xs) | Value::Tuple(xs) => xs.iter().for_each(|x| leaves(x, out)),
        other => out.push(other),
    }
}

/// The float of type `ty` with value `x` (exact for 0 and 1).
fn float(ty: Option<Float>, x: f64) -> Value {
    match ty {
        Some(Float::F64) => Value::F64(x),
        Some(Float::F32) => Value::F32(x as f32),
        None => Value::Untyped(x, x as f32),
    }
}

/// A tangent of `x`'s shape and types: 1 at its float number `at` (depth first), 0
/// elsewhere (all 0 if `at` is past the last).
fn unit(x: &Value, at: usize) -> Value {
    let mut c = 0;
    let one = map_leaves(x, &mut |leaf| {
        let v = float(leaf.float_type(), if c == at { 1.0 } else { 0.0 });
        c += 1;
        Ok::<Value, ()>(v)
    });
    // The closure never fails.
    one.unwrap_or_else(|()| x.clone())
}

/// The arguments of `f` for a `jvp`: each float of `x` a dual carrying the matching float
/// of `t` (of the same shape and types, checked by the caller).
fn dual(x: &Value, t: &Value) -> Value {
    match (x, t) {
        (Value::F64(x), Value::F64(t)) => Value::DualF64(*x, *t),
        (Value::F32(x), Value::F32(t)) => Value::DualF32(*x, *t),
        (Value::Array(xs), Value::Array(ts)) => {
            Value::Array(xs.iter().zip(ts).map(|(x, t)| dual(x, t)).collect())
        }
        (Value::Tuple(xs), Value::Tuple(ts)) => {
            Value::Tuple(xs.iter().zip(ts).map(|(x, t)| dual(x, t)).collect())
        }
        (x, _) => x.clone(),
    }
}

/// The value and the tangent of f's result (a float without a tangent has tangent 0, an
/// untyped one an untyped 0).
fn split(r: &Value) -> Result<(Value, Value), String> {
    result_only(r)?;
    let tangent = map_leaves(r, &mut |leaf| {
        Ok::<Value, String>(match *leaf {
            Value::DualF64(_, t) => Value::F64(t),
            Value::DualF32(_, t) => Value::F32(t),
            ref plain => float(plain.float_type(), 0.0),
        })
    })?;
    Ok((r.primal(), tangent))
}

/// `sum(s[r] * d[r])` over the floats of `s` and `d` (of one shape), in order: each
/// product in the floats' type, added as an `to`.
fn dot(s: &Value, d: &Value, to: Float) -> Result<Value, String> {
    let (mut ss, mut ds) = (Vec::new(), Vec::new());
    leaves(s, &mut ss);
    leaves(d, &mut ds);
    let cast_to = match to {
        Float::F64 => CastTy::F64,
        Float::F32 => CastTy::F32,
    };
    let mut acc = float(Some(to), 0.0);
    for (x, y) in ss.into_iter().zip(ds) {
        let term = scalar::arithmetic(BinOp::Mul, x, y)?;
        let term = match term.float_type() {
            Some(ty) if ty != to => scalar::cast(&term, cast_to)?,
            _ => term.settle(to),
        };
        acc = scalar::arithmetic(BinOp::Add, &acc, &term)?;
    }
    Ok(acc)
}
