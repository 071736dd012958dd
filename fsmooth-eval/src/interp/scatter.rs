//! The forms of LANGUAGE.md sections 14 and 15, as written: `iterate` steps while its
//! condition holds; `scatter_add` and `reduce_by_index` combine each step's value into the
//! element its index names, in step order.

use super::call::Evaluator;
use super::env::{Denotation, Env, bind};
use super::scalar::arithmetic;
use super::value::{Value, describe, same_shape};
use fsmooth_core::front::ast::{BinOp, Expr, ExprKind, Name, Scatter};

impl<'a> Evaluator<'a> {
    /// `iterate(init, |s| cond, |t| next)`: the first state from `init` on whose condition
    /// is false.
    pub(super) fn iterate(
        &self,
        init: &'a Expr,
        (s, cond): (&'a Name, &'a Expr),
        (t, next): (&'a Name, &'a Expr),
        env: &Env<'a>,
        depth: usize,
    ) -> Result<Denotation<'a>, String> {
        let mut state = self.rc_value(init, env, depth)?;
        loop {
            let cenv = bind(env, &s.text, Denotation::Value(state.clone()));
            if !self.bool_of(cond, &cenv, depth, "an `iterate` condition")? {
                return Ok(Denotation::Value(state));
            }
            let nenv = bind(env, &t.text, Denotation::Value(state.clone()));
            let new = self.rc_value(next, &nenv, depth)?;
            if !same_shape(&state, &new) {
                return Err(format!(
                    "the `iterate` step changes the state's shape from `{}` to `{}`",
                    describe(&state),
                    describe(&new)
                ));
            }
            state = new;
        }
    }

    /// `scatter_add(m, n, |i| (k, v))` or `reduce_by_index(m, ne, |a, b| op, n, |i| (k, v))`.
    pub(super) fn scatter(
        &self,
        sc: &'a Scatter,
        env: &Env<'a>,
        depth: usize,
    ) -> Result<Denotation<'a>, String> {
        let m = self.usize_of(&sc.m, env, depth, "the length of a scatter")?;
        let ne = match &sc.ne {
            Some(ne) => Some(self.value(ne, env, depth)?),
            None => None,
        };
        let n = self.usize_of(&sc.n, env, depth, "the step count of a scatter")?;
        let mut out: Option<Vec<Value>> = ne.map(|z| vec![z; m]);
        for step in 0..n {
            let senv = bind(env, &sc.i.text, Denotation::from(Value::Usize(step)));
            let (k, v) = match self.value(&sc.body, &senv, depth)? {
                Value::Tuple(kv) if kv.len() == 2 => match &kv[0] {
                    Value::Usize(k) => (*k, kv[1].clone()),
                    other => {
                        return Err(format!(
                            "a scatter's index must be a usize, found `{}`",
                            describe(other)
                        ));
                    }
                },
                other => {
                    return Err(format!(
                        "a scatter's step gives a pair `(k, v)`, found `{}`",
                        describe(&other)
                    ));
                }
            };
            let elems = out.get_or_insert_with(|| vec![zero_like(&v); m]);
            let Some(old) = elems.get(k) else {
                return Err(format!(
                    "index {k} out of range for an array of {m} elements"
                ));
            };
            let new = match &sc.op {
                Some((a, b, op)) => {
                    let oenv = bind(env, &a.text, Denotation::from(old.clone()));
                    let oenv = bind(&oenv, &b.text, Denotation::from(v));
                    self.value(op, &oenv, depth)?
                }
                None => added(old, &v)?,
            };
            elems[k] = new;
        }
        // No step: zeros of the values' type, which no step gave. The interpreter is untyped:
        // the type is the value step 0 would give, where it can be computed (`(k, 1)`);
        // else a float zero (a row read from an empty array has no known length).
        let elems = match out {
            Some(elems) => elems,
            None => vec![self.zero_of_step(sc, env, depth); m],
        };
        Ok(Denotation::from(Value::Array(elems)))
    }
}

impl<'a> Evaluator<'a> {
    /// The zero of the value step 0 of `sc` would give, or a float zero.
    fn zero_of_step(&self, sc: &'a Scatter, env: &Env<'a>, depth: usize) -> Value {
        let senv = bind(env, &sc.i.text, Denotation::from(Value::Usize(0)));
        let value = match &sc.body.kind {
            ExprKind::Tuple(parts) if parts.len() == 2 => self.value(&parts[1], &senv, depth),
            _ => match self.value(&sc.body, &senv, depth) {
                Ok(Value::Tuple(kv)) if kv.len() == 2 => Ok(kv[1].clone()),
                _ => Err(String::new()),
            },
        };
        value.map_or(Value::Untyped(0.0, 0.0), |v| zero_like(&v))
    }
}

/// The zero of `v`'s type and shape.
fn zero_like(v: &Value) -> Value {
    match v {
        Value::Usize(_) => Value::Usize(0),
        Value::F32(_) => Value::F32(0.0),
        Value::Array(xs) => Value::Array(xs.iter().map(zero_like).collect()),
        Value::F64(_) => Value::F64(0.0),
        _ => Value::Untyped(0.0, 0.0),
    }
}

/// `a + b`, rows element by element.
fn added(a: &Value, b: &Value) -> Result<Value, String> {
    match (a, b) {
        (Value::Array(xs), Value::Array(ys)) if xs.len() == ys.len() => Ok(Value::Array(
            xs.iter()
                .zip(ys)
                .map(|(x, y)| added(x, y))
                .collect::<Result<_, _>>()?,
        )),
        _ => arithmetic(BinOp::Add, a, b),
    }
}
