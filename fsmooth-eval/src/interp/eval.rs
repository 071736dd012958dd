//! Expressions: each form of the source language has its own method; scalar operations are
//! in `scalar`.

use super::call::Evaluator;
use super::env::{Denotation, Env, Function, bind, lookup};
use super::scalar;
use super::types::unknown_size;
use super::value::{Value, describe, same_shape, unify};
use super::{STACK_BUDGET, stack_address, unwrap_rc};
use fsmooth_core::front::ast::{BinOp, CastTy, Expr, ExprKind, Let, MathFn, Name, UnOp};
use fsmooth_core::front::diag::closest;
use std::rc::Rc;

impl<'a> Evaluator<'a> {
    /// Evaluate `e` to a value (not a function).
    pub(super) fn rc_value(
        &self,
        e: &'a Expr,
        env: &Env<'a>,
        depth: usize,
    ) -> Result<Rc<Value>, String> {
        match self.eval(e, env, depth)? {
            Denotation::Value(v) => Ok(v),
            Denotation::Function(_) => Err("a function is used as a value".into()),
            Denotation::UnknownSize => Err("an unknown size is used as a value".into()),
        }
    }

    pub(super) fn value(&self, e: &'a Expr, env: &Env<'a>, depth: usize) -> Result<Value, String> {
        self.rc_value(e, env, depth).map(unwrap_rc)
    }

    pub(super) fn usize_of(
        &self,
        e: &'a Expr,
        env: &Env<'a>,
        depth: usize,
        what: &str,
    ) -> Result<usize, String> {
        match *self.rc_value(e, env, depth)? {
            Value::Usize(k) => Ok(k),
            ref other => Err(format!(
                "{what} must be a usize, found `{}`",
                describe(other)
            )),
        }
    }

    pub(super) fn bool_of(
        &self,
        e: &'a Expr,
        env: &Env<'a>,
        depth: usize,
        what: &str,
    ) -> Result<bool, String> {
        match *self.rc_value(e, env, depth)? {
            Value::Bool(b) => Ok(b),
            ref other => Err(format!(
                "{what} must be a bool, found `{}`",
                describe(other)
            )),
        }
    }

    /// The error for an unknown name, with the closest known name as a hint.
    pub(super) fn unknown_name(&self, name: &str, env: &Env<'a>) -> String {
        let mut candidates = self.blocks.sorted_names(self.block);
        let mut cur = env.as_ref();
        while let Some(binding) = cur {
            candidates.push(binding.name);
            cur = binding.next.as_ref();
        }
        let hint = closest(name, candidates)
            .map(|c| format!("; did you mean `{c}`?"))
            .unwrap_or_default();
        format!("unknown name `{name}`{hint}")
    }

    /// Evaluate `e` in `env`; `depth` is the number of calls in progress. Each form has its
    /// own method, which keeps this frame (and so the stack used per nested call) small.
    pub(super) fn eval(
        &self,
        e: &'a Expr,
        env: &Env<'a>,
        depth: usize,
    ) -> Result<Denotation<'a>, String> {
        if stack_address().abs_diff(self.stack_base) > STACK_BUDGET {
            return Err(format!(
                "the evaluation nests too deeply (over {} KiB of interpreter stack, \
                 at {depth} nested calls): recursion is not allowed",
                STACK_BUDGET >> 10
            ));
        }
        match &e.kind {
            ExprKind::Error => Err("this expression did not parse".to_string()),
            ExprKind::Float(x, suffix) => Ok(Denotation::from(float_lit(*x, *suffix))),
            ExprKind::Int(k) => int_lit(*k),
            ExprKind::Bool(b) => Ok(Denotation::from(Value::Bool(*b))),
            ExprKind::Var(n) => self.var(n, env),
            ExprKind::Block(lets, tail) => self.block(lets, tail, env, depth),
            ExprKind::Index(a, i) => self.index(a, i, env, depth),
            ExprKind::Slice(a, lo, hi) => self.slice(a, lo.as_deref(), hi.as_deref(), env, depth),
            ExprKind::Len(a) => self.len(a, env, depth),
            ExprKind::Build(n, i, body) => self.build(n, i, body, env, depth),
            ExprKind::Ifold(n, init, acc, i, body) => self.ifold(n, init, acc, i, body, env, depth),
            ExprKind::Scan(n, init, acc, i, body) => self.scan(n, init, acc, i, body, env, depth),
            ExprKind::Iterate(init, s, cond, t, next) => {
                self.iterate(init, (s, cond), (t, next), env, depth)
            }
            ExprKind::Scatter(sc) => self.scatter(sc, env, depth),
            ExprKind::Tuple(es) => self.tuple(es, env, depth),
            ExprKind::Proj(t, k, _) => self.proj(t, *k, env, depth),
            ExprKind::Array(es) => self.array(es, env, depth),
            ExprKind::If(c, t, f) => {
                if self.bool_of(c, env, depth, "an `if` condition")? {
                    self.eval(t, env, depth)
                } else {
                    self.eval(f, env, depth)
                }
            }
            ExprKind::Bin(op, l, r) => self.binary(*op, l, r, env, depth).map(Denotation::from),
            ExprKind::Un(op, x) => self.unary(*op, x, env, depth),
            ExprKind::Cast(x, to) => self.cast(x, *to, env, depth),
            ExprKind::Math(f, x, args) => self.math(*f, x, args, env, depth),
            ExprKind::Call(name, args) => self.call(name, args, env, depth),
            ExprKind::Closure(params, body) => {
                Ok(Denotation::Function(Rc::new(Function::Closure {
                    params,
                    body,
                    env: env.clone(),
                    block: self.block,
                })))
            }
        }
    }

    fn var(&self, n: &'a Name, env: &Env<'a>) -> Result<Denotation<'a>, String> {
        match lookup(env, &n.text) {
            Some(Denotation::UnknownSize) => Err(unknown_size(&n.text)),
            Some(v) => Ok(v.clone()),
            None => match self.blocks.find(self.block, &n.text) {
                Some((def, block)) => {
                    Ok(Denotation::Function(Rc::new(Function::Named(def, block))))
                }
                None => Err(self.unknown_name(&n.text, env)),
            },
        }
    }

    fn block(
        &self,
        lets: &'a [Let],
        tail: &'a Expr,
        env: &Env<'a>,
        depth: usize,
    ) -> Result<Denotation<'a>, String> {
        let mut env = env.clone();
        for l in lets {
            let v = self.eval(&l.value, &env, depth)?;
            let v = match &l.ty {
                Some(ty) => self.conform(ty, v, &env, || format!("`let {}`", l.name.text))?,
                None => v,
            };
            env = bind(&env, &l.name.text, v);
        }
        self.eval(tail, &env, depth)
    }

    fn index(
        &self,
        a: &'a Expr,
        i: &'a Expr,
        env: &Env<'a>,
        depth: usize,
    ) -> Result<Denotation<'a>, String> {
        let a = self.rc_value(a, env, depth)?;
        let i = self.usize_of(i, env, depth, "an index")?;
        match &*a {
            Value::Array(xs) => match xs.get(i) {
                Some(x) => Ok(Denotation::from(x.clone())),
                None => Err(format!(
                    "index {i} out of range for an array of {} elements",
                    xs.len()
                )),
            },
            other => Err(format!("cannot index `{}`", describe(other))),
        }
    }

    fn slice(
        &self,
        a: &'a Expr,
        lo: Option<&'a Expr>,
        hi: Option<&'a Expr>,
        env: &Env<'a>,
        depth: usize,
    ) -> Result<Denotation<'a>, String> {
        let a = self.rc_value(a, env, depth)?;
        let lo = match lo {
            Some(lo) => Some(self.usize_of(lo, env, depth, "a slice bound")?),
            None => None,
        };
        let hi = match hi {
            Some(hi) => Some(self.usize_of(hi, env, depth, "a slice bound")?),
            None => None,
        };
        let Value::Array(xs) = &*a else {
            return Err(format!("cannot slice `{}`", describe(&a)));
        };
        let lo = lo.unwrap_or(0);
        let hi = hi.unwrap_or(xs.len());
        match xs.get(lo..hi) {
            Some(part) if lo <= hi => Ok(Denotation::from(Value::Array(part.to_vec()))),
            _ => Err(format!(
                "slice {lo}..{hi} out of range for an array of {} elements",
                xs.len()
            )),
        }
    }

    fn len(&self, a: &'a Expr, env: &Env<'a>, depth: usize) -> Result<Denotation<'a>, String> {
        match &*self.rc_value(a, env, depth)? {
            Value::Array(xs) => Ok(Denotation::from(Value::Usize(xs.len()))),
            other => Err(format!("`{}` has no length", describe(other))),
        }
    }

    fn build(
        &self,
        n: &'a Expr,
        i: &'a Name,
        body: &'a Expr,
        env: &Env<'a>,
        depth: usize,
    ) -> Result<Denotation<'a>, String> {
        let n = self.usize_of(n, env, depth, "the count of `build`")?;
        let mut xs: Vec<Value> = Vec::new();
        for k in 0..n {
            let env = bind(env, &i.text, Denotation::from(Value::Usize(k)));
            let x = self.value(body, &env, depth)?;
            no_tuple(&x, || format!("`build` element {k}"))?;
            if let Some(x0) = xs.first()
                && !same_shape(x0, &x)
            {
                return Err(format!(
                    "`build` elements differ in shape: element 0 is `{}`, element {k} is `{}`",
                    describe(x0),
                    describe(&x)
                ));
            }
            xs.push(x);
        }
        Ok(Denotation::from(Value::Array(unify(xs))))
    }

    fn array(&self, es: &'a [Expr], env: &Env<'a>, depth: usize) -> Result<Denotation<'a>, String> {
        let mut xs: Vec<Value> = Vec::with_capacity(es.len());
        for (k, e) in es.iter().enumerate() {
            let x = self.value(e, env, depth)?;
            no_tuple(&x, || format!("array literal element {k}"))?;
            if let Some(x0) = xs.first()
                && !same_shape(x0, &x)
            {
                return Err(format!(
                    "array literal elements differ in shape: element 0 is `{}`, element {k} is `{}`",
                    describe(x0),
                    describe(&x)
                ));
            }
            xs.push(x);
        }
        Ok(Denotation::from(Value::Array(unify(xs))))
    }

    fn unary(
        &self,
        op: UnOp,
        x: &'a Expr,
        env: &Env<'a>,
        depth: usize,
    ) -> Result<Denotation<'a>, String> {
        match op {
            UnOp::Neg => scalar::negate(&*self.rc_value(x, env, depth)?).map(Denotation::from),
            UnOp::Not => Ok(Denotation::from(Value::Bool(!self.bool_of(
                x,
                env,
                depth,
                "the operand of `!`",
            )?))),
        }
    }

    fn cast(
        &self,
        x: &'a Expr,
        to: CastTy,
        env: &Env<'a>,
        depth: usize,
    ) -> Result<Denotation<'a>, String> {
        scalar::cast(&*self.rc_value(x, env, depth)?, to).map(Denotation::from)
    }

    fn math(
        &self,
        f: MathFn,
        x: &'a Expr,
        args: &'a [Expr],
        env: &Env<'a>,
        depth: usize,
    ) -> Result<Denotation<'a>, String> {
        if args.len() != f.arity() {
            return Err(format!(
                "`{}` takes {} argument(s), found {}",
                f.name(),
                f.arity(),
                args.len()
            ));
        }
        let x = self.rc_value(x, env, depth)?;
        if f == MathFn::Powi {
            let k = self.powi_exponent(&args[0], env, depth)?;
            return scalar::powi(&x, k).map(Denotation::from);
        }
        let mut ys = Vec::with_capacity(args.len());
        for y in args {
            ys.push(self.value(y, env, depth)?);
        }
        scalar::math(f, &x, &ys).map(Denotation::from)
    }

    /// The exponent of `powi`: a usize expression or a negated integer literal, as i32.
    fn powi_exponent(&self, k: &'a Expr, env: &Env<'a>, depth: usize) -> Result<i32, String> {
        let too_big =
            |k: &dyn std::fmt::Display| format!("`powi` exponent {k} does not fit in i32");
        if let ExprKind::Un(UnOp::Neg, inner) = &k.kind
            && let ExprKind::Int(lit) = inner.kind
        {
            return i64::try_from(lit)
                .ok()
                .and_then(|v| i32::try_from(-v).ok())
                .ok_or_else(|| too_big(&format!("-{lit}")));
        }
        let k = self.usize_of(k, env, depth, "the exponent of `powi`")?;
        i32::try_from(k).map_err(|_| too_big(&k))
    }

    /// `l op r` on scalars.
    fn binary(
        &self,
        op: BinOp,
        l: &'a Expr,
        r: &'a Expr,
        env: &Env<'a>,
        depth: usize,
    ) -> Result<Value, String> {
        if matches!(op, BinOp::And | BinOp::Or) {
            return self.logic(op, l, r, env, depth);
        }
        let a = self.rc_value(l, env, depth)?;
        let b = self.rc_value(r, env, depth)?;
        scalar::arithmetic(op, &a, &b)
    }

    /// `l && r`, `l || r`: `false && r` and `true || r` do not evaluate r.
    fn logic(
        &self,
        op: BinOp,
        l: &'a Expr,
        r: &'a Expr,
        env: &Env<'a>,
        depth: usize,
    ) -> Result<Value, String> {
        let what = format!("an operand of `{}`", op.symbol());
        let a = self.bool_of(l, env, depth, &what)?;
        match (op, a) {
            (BinOp::And, false) => Ok(Value::Bool(false)),
            (BinOp::Or, true) => Ok(Value::Bool(true)),
            _ => Ok(Value::Bool(self.bool_of(r, env, depth, &what)?)),
        }
    }
}

/// Arrays hold scalars or arrays, never tuples (LANGUAGE.md section 8: a tuple is never
/// materialised, and a `build` of tuples does not exist).
pub(super) fn no_tuple(x: &Value, what: impl FnOnce() -> String) -> Result<(), String> {
    match x {
        Value::Tuple(_) => Err(format!(
            "{} is the tuple `{}`, but arrays do not hold tuples",
            what(),
            describe(x)
        )),
        _ => Ok(()),
    }
}

/// A float literal: `2.0f64` is an f64, `2.0f32` an f32 (the f32 nearest the written
/// value), and `2.0` is untyped until it meets a typed float ([`Value::Untyped`]).
fn float_lit(x: f64, suffix: Option<CastTy>) -> Value {
    match suffix {
        Some(CastTy::F64) => Value::F64(x),
        Some(CastTy::F32) => Value::F32(x as f32),
        // The parser gives float literals no other suffix.
        Some(CastTy::Usize) | None => Value::Untyped(x, x as f32),
    }
}

fn int_lit<'a>(k: u64) -> Result<Denotation<'a>, String> {
    usize::try_from(k)
        .map(|k| Denotation::from(Value::Usize(k)))
        .map_err(|_| format!("literal {k} does not fit in usize"))
}
