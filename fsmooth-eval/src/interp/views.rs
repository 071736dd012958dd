//! The layout views (LANGUAGE.md section 9) as built-in functions: `concat`, `join`,
//! `split`, `reverse`, `interleave`, `slide` and `pad`. A call reaches them only when no
//! closure in scope and no block or prelude function has the name (a user function shadows
//! a view). Each builds its result array outright: the interpreter has no views, only
//! values, which is what makes it a plain statement of their meaning.
//!
//! They work on arrays of any element (scalars of any type or rows of any rank), never on
//! tuples; where they put two arrays' elements (or `pad`'s v) together, untyped floats take
//! the type of the typed ones, as in any array.

use super::call::Evaluator;
use super::env::{Denotation, Env};
use super::value::{Value, describe, same_shape, unify};
use fsmooth_core::front::ast::{Expr, Name};

// The views' names and how each is called are the language's (the checker's table): the
// interpreter's semantics of them below are its own.
pub(super) use fsmooth_core::front::check::{VIEWS, usage};

impl<'a> Evaluator<'a> {
    /// A call of view `name` (one of [`VIEWS`]): the arguments left to right, then the view.
    pub(super) fn view(
        &self,
        name: &'a Name,
        args: &'a [Expr],
        env: &Env<'a>,
        depth: usize,
    ) -> Result<Denotation<'a>, String> {
        let view = name.text.as_str();
        let want = match view {
            "join" | "reverse" => 1,
            "pad" => 4,
            _ => 2,
        };
        if args.len() != want {
            return Err(format!(
                "`{}` takes {want} argument{}, found {}",
                usage(view),
                if want == 1 { "" } else { "s" },
                args.len()
            ));
        }
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(self.value(a, env, depth)?);
        }
        apply(view, &vals)
            .map(Denotation::from)
            .map_err(|e| format!("`{}`: {e}", usage(view)))
    }
}

/// View `view` applied to its argument values (as many as it takes).
fn apply(view: &str, args: &[Value]) -> Result<Value, String> {
    match (view, args) {
        ("concat", [a, b]) => concat(array("a", a)?, array("b", b)?),
        ("join", [a]) => join(array("a", a)?),
        ("split", [m, a]) => split(size("m", m)?, array("a", a)?),
        ("reverse", [a]) => Ok(Value::Array(array("a", a)?.iter().rev().cloned().collect())),
        ("interleave", [a, b]) => interleave(array("a", a)?, array("b", b)?),
        ("slide", [w, a]) => slide(size("w", w)?, array("a", a)?),
        ("pad", [a, l, r, v]) => pad(array("a", a)?, size("l", l)?, size("r", r)?, v),
        _ => Err(format!("`{view}` is given {} arguments", args.len())),
    }
}

/// The elements of argument `what`, which must be an array.
fn array<'v>(what: &str, v: &'v Value) -> Result<&'v [Value], String> {
    match v {
        Value::Array(xs) => Ok(xs),
        other => Err(format!(
            "`{what}` must be an array, found `{}`",
            describe(other)
        )),
    }
}

/// Argument `what`, which must be a usize (a size).
fn size(what: &str, v: &Value) -> Result<usize, String> {
    match v {
        Value::Usize(k) => Ok(*k),
        other => Err(format!(
            "`{what}` must be a usize, found `{}`",
            describe(other)
        )),
    }
}

/// Whether two arrays have rows of one shape (vacuously so when either is empty: an empty
/// array does not show its rows' shape).
fn same_rows(a: &[Value], b: &[Value]) -> bool {
    match (a.first(), b.first()) {
        (Some(x), Some(y)) => same_shape(x, y),
        _ => true,
    }
}

/// `concat(a, b)`: a's rows, then b's.
fn concat(a: &[Value], b: &[Value]) -> Result<Value, String> {
    if !same_rows(a, b) {
        return Err(format!(
            "the rows differ in shape: `{}` and `{}`",
            describe(&a[0]),
            describe(&b[0])
        ));
    }
    Ok(Value::Array(unify(a.iter().chain(b).cloned().collect())))
}

/// `join(a)`: the rows of `a` one after the other (row-major flattening of one level).
fn join(a: &[Value]) -> Result<Value, String> {
    let mut out = Vec::new();
    for (k, row) in a.iter().enumerate() {
        match row {
            Value::Array(xs) => out.extend(xs.iter().cloned()),
            other => {
                return Err(format!(
                    "`a` must be an array of rows, but element {k} is `{}`",
                    describe(other)
                ));
            }
        }
    }
    Ok(Value::Array(out))
}

/// `split(m, a)`: `a` cut into rows of m elements.
fn split(m: usize, a: &[Value]) -> Result<Value, String> {
    if m == 0 {
        return Err("`m` is 0: rows of no elements".to_string());
    }
    if !a.len().is_multiple_of(m) {
        return Err(format!(
            "the length {} is not a multiple of m = {m}",
            a.len()
        ));
    }
    Ok(Value::Array(
        a.chunks(m).map(|row| Value::Array(row.to_vec())).collect(),
    ))
}

/// `interleave(a, b)`: a0, b0, a1, b1, ...
fn interleave(a: &[Value], b: &[Value]) -> Result<Value, String> {
    if a.len() != b.len() {
        return Err(format!(
            "the arrays differ in length: {} and {}",
            a.len(),
            b.len()
        ));
    }
    if !same_rows(a, b) {
        return Err(format!(
            "the elements differ in shape: `{}` and `{}`",
            describe(&a[0]),
            describe(&b[0])
        ));
    }
    let mut out = Vec::with_capacity(2 * a.len());
    for (x, y) in a.iter().zip(b) {
        out.push(x.clone());
        out.push(y.clone());
    }
    Ok(Value::Array(unify(out)))
}

/// `slide(w, a)`: the n - w + 1 windows `a[i..i + w]`. A window of no elements or wider
/// than n + 1 is an error (the compiled code's `Error::Arithmetic` at entry).
fn slide(w: usize, a: &[Value]) -> Result<Value, String> {
    let n = a.len();
    if w == 0 || n + 1 < w {
        return Err(format!(
            "the window must be between 1 and the length + 1 = {}, but w = {w} \
             (the count n - w + 1 is an arithmetic error)",
            n + 1
        ));
    }
    Ok(Value::Array(
        a.windows(w).map(|win| Value::Array(win.to_vec())).collect(),
    ))
}

/// `pad(a, l, r, v)`: l copies of v, a's elements, r copies of v; v is one element of `a`.
fn pad(a: &[Value], l: usize, r: usize, v: &Value) -> Result<Value, String> {
    if let Value::Tuple(_) = v {
        return Err(format!(
            "`v` must be an element of `a`, found `{}`",
            describe(v)
        ));
    }
    if let Some(x0) = a.first()
        && !same_shape(x0, v)
    {
        return Err(format!(
            "`v` must be an element of `a`, `{}`, found `{}`",
            describe(x0),
            describe(v)
        ));
    }
    let len = l.checked_add(a.len()).and_then(|k| k.checked_add(r));
    let Some(len) = len else {
        return Err(format!(
            "the length l + n + r = {l} + {} + {r} overflows",
            a.len()
        ));
    };
    let mut out = Vec::with_capacity(len);
    out.extend(std::iter::repeat_n(v, l).cloned());
    out.extend(a.iter().cloned());
    out.extend(std::iter::repeat_n(v, r).cloned());
    Ok(Value::Array(unify(out)))
}
