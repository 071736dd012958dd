//! What a step adds to a fold's state, in the forms the sweep reverses without carrying the
//! state: a sum-fold's `acc + term` ([`sum_step`]), a scatter's one-hot term
//! ([`scatter_step`]), and the one-hot array itself ([`placed`]), whose value gathers one
//! element of its adjoint.

use crate::front::ast::BinOp;
use crate::middle::forward::{bin, is_zero, neg, wrap};
use crate::middle::ir::{Core, Kind, Type, VarId};

/// The step of a sum-fold: `term` when `body` is `acc + term` or `term + acc` after `let`s
/// that do not read `acc` (the `let`s kept around `term`), and `acc` is a float.
pub(super) fn sum_step(body: &Core, acc: VarId) -> Option<Core> {
    match &body.kind {
        Kind::Let(x, value, rest) if !value.mentions(acc) => {
            let term = sum_step(rest, acc)?;
            Some(wrap(vec![(*x, (**value).clone())], term))
        }
        Kind::Bin(BinOp::Add, a, b, _) if body.ty.is_float() => {
            let is_acc = |e: &Core| matches!(e.kind, Kind::Var(v) if v == acc);
            if is_acc(a) && !b.mentions(acc) {
                Some((**b).clone())
            } else if is_acc(b) && !a.mentions(acc) {
                Some((**a).clone())
            } else {
                None
            }
        }
        // Sums side by side as one fold of a tuple (`siblings` merges `sum(..) + sum(..)`
        // over one count): `(acc.0 + t0, acc.1 + t1)`, each term its component's.
        Kind::Tuple(xs) if xs.iter().all(|x| x.ty.is_float()) => {
            let mut terms = Vec::new();
            for (k, x) in xs.iter().enumerate() {
                let Kind::Bin(BinOp::Add, a, b, _) = &x.kind else {
                    return None;
                };
                let is_part = |e: &Core| matches!(&e.kind, Kind::Proj(t, j) if *j == k && matches!(t.kind, Kind::Var(v) if v == acc));
                let term = match (is_part(a), is_part(b)) {
                    (true, _) if !b.mentions(acc) => (**b).clone(),
                    (_, true) if !a.mentions(acc) => (**a).clone(),
                    _ => return None,
                };
                terms.push(term);
            }
            Some(Core::new(Kind::Tuple(terms), body.ty.clone(), body.span))
        }
        _ => None,
    }
}

/// The terms a float fold's step adds to its state `acc` written as one chain from it,
/// `acc + t1 + t2 - t3` (Rust's `((acc + t1) + t2) - t3`), after `let`s that do not read
/// `acc`: `t1 + t2 - t3`, with [`sum_step`]'s forms. The step's derivative, each term's
/// adjoint the state's, but not its value to the bit (the additions regrouped): the sweep
/// reverses it as a sum, the fold's value computed as written.
pub(super) fn chain_terms(body: &Core, acc: VarId) -> Option<Core> {
    if let Some(term) = sum_step(body, acc) {
        return Some(term);
    }
    match &body.kind {
        Kind::Let(x, value, rest) if !value.mentions(acc) => {
            let term = chain_terms(rest, acc)?;
            Some(wrap(vec![(*x, (**value).clone())], term))
        }
        _ => chain(body, acc)?,
    }
}

/// `Some(None)` for `acc` itself, `Some(Some(t))` for a chain from it adding `t`.
fn chain(e: &Core, acc: VarId) -> Option<Option<Core>> {
    match &e.kind {
        Kind::Var(v) if *v == acc && e.ty.is_float() => Some(None),
        Kind::Bin(op @ (BinOp::Add | BinOp::Sub), a, b, _)
            if e.ty.is_float() && !b.mentions(acc) =>
        {
            let left = chain(a, acc)?;
            let b = match op {
                BinOp::Sub => neg((**b).clone()),
                _ => (**b).clone(),
            };
            Some(Some(match left {
                None => b,
                Some(l) => bin(BinOp::Add, l, b),
            }))
        }
        _ => None,
    }
}

/// The step of a scatter-add (LANGUAGE.md section 15, as the checker writes it): the
/// one-hot term `build(m, |j| if j == r { v } else { zero })` when `body` is, after `let`s
/// that do not read `acc` and `let`s of `acc[r]`, `build(m, |j| if j == r { acc[r] + v }
/// else { acc[j] })`, or the same with a row `build(d, |e| acc[r][e] + v_e)`, `v` not reading
/// `acc`. The state then is its first value plus one term per step, as a sum-fold's is, and
/// each step's term takes the fold's adjoint: reversed, a step gathers element `r` of it
/// ([`Reverse::back`]'s one-hot rule), with no loop over the `m` elements.
pub(super) fn scatter_step(body: &Core, acc: VarId, names: &mut Vec<String>) -> Option<Core> {
    let mut kept = Vec::new();
    let mut aliases: Vec<(VarId, VarId)> = Vec::new();
    let mut at = body;
    while let Kind::Let(x, value, rest) = &at.kind {
        match &value.kind {
            _ if !value.mentions(acc) => kept.push((*x, (**value).clone())),
            Kind::Index(a, r) if is_var(a, acc) && matches!(r.kind, Kind::Var(_)) => {
                let Kind::Var(r) = r.kind else { return None };
                aliases.push((*x, r));
            }
            _ => return None,
        }
        at = rest;
    }
    let Kind::Build(m, j, step) = &at.kind else {
        return None;
    };
    let Kind::If(cond, hit, other) = &step.kind else {
        return None;
    };
    let Kind::Bin(BinOp::Eq, q, r, _) = &cond.kind else {
        return None;
    };
    let (true, Kind::Var(r)) = (is_var(q, *j), &r.kind) else {
        return None;
    };
    let r = *r;
    // `acc[j]`, the element left as it was.
    let Kind::Index(a, jj) = &other.kind else {
        return None;
    };
    if !is_var(a, acc) || !is_var(jj, *j) {
        return None;
    }
    // `acc[r]`, directly or through a `let`.
    let old = |e: &Core| match &e.kind {
        Kind::Index(a, k) => is_var(a, acc) && is_var(k, r),
        Kind::Var(x) => aliases.contains(&(*x, r)),
        _ => false,
    };
    // The value added, of one element or of a row.
    let added = |e: &Core| match &e.kind {
        Kind::Bin(BinOp::Add, a, b, _) if old(a) => Some((**b).clone()),
        Kind::Bin(BinOp::Add, a, b, _) if old(b) => Some((**a).clone()),
        _ => None,
    };
    let v = match &hit.kind {
        Kind::Build(d, e, row) => {
            let (Kind::Bin(BinOp::Add, a, b, _), span) = (&row.kind, row.span) else {
                return None;
            };
            let elem_of_old =
                |x: &Core| matches!(&x.kind, Kind::Index(o, k) if old(o) && is_var(k, *e));
            let v = if elem_of_old(a) {
                (**b).clone()
            } else if elem_of_old(b) {
                (**a).clone()
            } else {
                return None;
            };
            Core::new(
                Kind::Build(d.clone(), *e, Box::new(v)),
                hit.ty.clone(),
                span,
            )
        }
        _ => added(hit)?,
    };
    let local: Vec<VarId> = aliases.iter().map(|(x, _)| *x).collect();
    if v.mentions(acc) || v.mentions(*j) || local.iter().any(|x| v.mentions(*x)) {
        return None;
    }
    let span = at.span;
    let zero = match &v.ty {
        Type::Arr(_, dims) if dims.len() != 1 || !v.ty.elem().is_float() => return None,
        Type::Arr(..) => {
            let q = crate::middle::ir::new_var(names, *j);
            let z = Core::new(Kind::Float(0.0), v.ty.elem(), span);
            Core::new(
                Kind::Build(v.ty.dims()[0].clone(), q, Box::new(z)),
                v.ty.clone(),
                span,
            )
        }
        t if t.is_float() => Core::new(Kind::Float(0.0), t.clone(), span),
        _ => return None,
    };
    let pick = Core::new(
        Kind::If(cond.clone(), Box::new(v), Box::new(zero)),
        hit.ty.clone(),
        span,
    );
    let term = Core::new(
        Kind::Build(m.clone(), *j, Box::new(pick)),
        at.ty.clone(),
        span,
    );
    Some(wrap(kept, term))
}

/// Whether `e` is the variable `v`.
fn is_var(e: &Core, v: VarId) -> bool {
    matches!(e.kind, Kind::Var(x) if x == v)
}

/// `(e, v)` when `value` is `build(n, |q| if q == e { v } else { zero })`, `e` and `v` free
/// of `q`, `zero` a zero of `v`'s type ([`Reverse::one_hot`]'s form: an element, or a row).
pub(super) fn placed(value: &Core) -> Option<(&Core, &Core)> {
    let Kind::Build(_, q, body) = &value.kind else {
        return None;
    };
    let Kind::If(cond, v, zero) = &body.kind else {
        return None;
    };
    let Kind::Bin(BinOp::Eq, a, e, _) = &cond.kind else {
        return None;
    };
    (matches!(a.kind, Kind::Var(x) if x == *q)
        && is_zero(zero)
        && !e.mentions(*q)
        && !v.mentions(*q))
    .then_some((&**e, &**v))
}
