//! Tuples and folds (LANGUAGE.md section 8): tuple expressions, projections, `ifold` and
//! `scan`. Patterns need nothing here: the parser turns `let (a, b) = e;` and `|(s, q), i|`
//! into a binding of the whole value and `let`s of its projections.

use super::call::Evaluator;
use super::env::{Denotation, Env, bind};
use super::value::{Value, describe, same_shape, unify};
use fsmooth_core::front::ast::{Expr, Name};
use std::rc::Rc;

impl<'a> Evaluator<'a> {
    /// `(e0, e1, ..)`: the components left to right; each must be a value (a tuple holds
    /// no functions).
    pub(super) fn tuple(
        &self,
        es: &'a [Expr],
        env: &Env<'a>,
        depth: usize,
    ) -> Result<Denotation<'a>, String> {
        let mut xs = Vec::with_capacity(es.len());
        for e in es {
            xs.push(self.value(e, env, depth)?);
        }
        Ok(Denotation::from(Value::Tuple(xs)))
    }

    /// `t.k`: component k of a tuple.
    pub(super) fn proj(
        &self,
        t: &'a Expr,
        k: usize,
        env: &Env<'a>,
        depth: usize,
    ) -> Result<Denotation<'a>, String> {
        match &*self.rc_value(t, env, depth)? {
            Value::Tuple(xs) => match xs.get(k) {
                Some(x) => Ok(Denotation::from(x.clone())),
                None => Err(format!(
                    "no component `.{k}`: the tuple `{}` has {} components",
                    describe(&Value::Tuple(xs.clone())),
                    xs.len()
                )),
            },
            other => Err(format!(
                "`.{k}` takes a component of a tuple, but this is `{}`",
                describe(other)
            )),
        }
    }

    /// `ifold(n, init, |acc, i| body)`: the state after n steps.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn ifold(
        &self,
        n: &'a Expr,
        init: &'a Expr,
        acc: &'a Name,
        i: &'a Name,
        body: &'a Expr,
        env: &Env<'a>,
        depth: usize,
    ) -> Result<Denotation<'a>, String> {
        let fold = Fold {
            form: "ifold",
            acc,
            i,
            body,
        };
        let n = self.usize_of(n, env, depth, "the count of `ifold`")?;
        let init = self.rc_value(init, env, depth)?;
        let last = self.steps(&fold, n, init, env, depth, |_| {})?;
        Ok(Denotation::Value(last))
    }

    /// `scan(n, init, |acc, i| body)`: the n states after each step (state k after step
    /// k), as an array, or for a tuple state as a tuple of arrays, component by component.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn scan(
        &self,
        n: &'a Expr,
        init: &'a Expr,
        acc: &'a Name,
        i: &'a Name,
        body: &'a Expr,
        env: &Env<'a>,
        depth: usize,
    ) -> Result<Denotation<'a>, String> {
        let fold = Fold {
            form: "scan",
            acc,
            i,
            body,
        };
        let n = self.usize_of(n, env, depth, "the count of `scan`")?;
        let init = self.rc_value(init, env, depth)?;
        let mut states: Vec<Value> = Vec::with_capacity(n);
        self.steps(&fold, n, init.clone(), env, depth, |s| {
            states.push((**s).clone())
        })?;
        // The initial state gives the structure, so that a scan of no steps is still a tuple.
        Ok(Denotation::from(stack(states, &init)?))
    }

    /// Run the n steps of a fold from `init`, handing each new state to `keep`; the last
    /// state. Every state must have the initial state's shape (each tuple component keeps
    /// its own).
    fn steps(
        &self,
        fold: &Fold<'a>,
        n: usize,
        init: Rc<Value>,
        env: &Env<'a>,
        depth: usize,
        mut keep: impl FnMut(&Rc<Value>),
    ) -> Result<Rc<Value>, String> {
        let mut acc = init;
        for k in 0..n {
            let env = bind(env, &fold.acc.text, Denotation::Value(acc.clone()));
            let env = bind(&env, &fold.i.text, Denotation::from(Value::Usize(k)));
            let next = self.rc_value(fold.body, &env, depth)?;
            if !same_shape(&acc, &next) {
                return Err(format!(
                    "the `{}` body changes the accumulator's shape from `{}` to `{}` (step {k})",
                    fold.form,
                    describe(&acc),
                    describe(&next)
                ));
            }
            keep(&next);
            acc = next;
        }
        Ok(acc)
    }
}

/// The parts of an `ifold` or `scan` besides its count and initial state.
struct Fold<'a> {
    form: &'static str,
    acc: &'a Name,
    i: &'a Name,
    body: &'a Expr,
}

/// The states of a scan as its result, shaped by `like` (the initial state): the array of
/// the states, or for a tuple, the tuple of each component's stack.
fn stack(states: Vec<Value>, like: &Value) -> Result<Value, String> {
    let Value::Tuple(parts) = like else {
        return Ok(Value::Array(unify(states)));
    };
    let mut columns: Vec<Vec<Value>> = parts
        .iter()
        .map(|_| Vec::with_capacity(states.len()))
        .collect();
    for s in states {
        // Every state has the initial state's shape (checked at each step).
        let Value::Tuple(xs) = s else {
            return Err(format!("a `scan` state `{}` is not a tuple", describe(&s)));
        };
        for (column, x) in columns.iter_mut().zip(xs) {
            column.push(x);
        }
    }
    let stacked = columns
        .into_iter()
        .zip(parts)
        .map(|(column, part)| stack(column, part))
        .collect::<Result<_, _>>()?;
    Ok(Value::Tuple(stacked))
}
