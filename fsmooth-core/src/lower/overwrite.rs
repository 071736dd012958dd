//! Arrays written over the one they replace (LANGUAGE.md section 13: "a loop with a literal
//! count, unrolled or not: unrolling never turns an update in place into a copy"). In a
//! chain of `let`s, a `build` whose elements read an earlier `let`-bound array `x` only at
//! their own index, after which nothing reads `x`, takes `x`'s place: the steps of
//! `let x1 = step(x0); let x2 = step(x1); step(x2)` written out need the one buffer (or the
//! destination, for a result) that `ifold(3, x0, |x, _| step(x))` updates in place, not one
//! per step.
//!
//! Sound because element `k` of the new array is computed from element `k` of the old one
//! (and from other values) before it is stored over it, whatever order the elements are
//! computed in, and nothing reads the old array afterwards, under its name or through a
//! view of it.

use crate::lower::folds::lets_of;
use crate::lower::in_place::only_own;
use crate::middle::ir::{Core, Kind, VarId};
use std::collections::HashMap;

/// For every `let y = build(..)` of `body` that may be written over an earlier `let x`:
/// `y -> x`.
pub(super) fn plan(body: &Core) -> HashMap<VarId, VarId> {
    let mut out = HashMap::new();
    walk(body, &mut out);
    out
}

fn walk(e: &Core, out: &mut HashMap<VarId, VarId>) {
    if let Kind::Let(..) = e.kind {
        let (lets, last) = lets_of(e);
        for k in 0..lets.len() {
            if let Some(x) = overwritten(&lets, k, lets[k].1, Some(last)) {
                out.insert(lets[k].0, x);
            }
        }
        for (_, a) in &lets {
            walk(a, out);
        }
        walk(last, out);
        return;
    }
    for c in e.children() {
        walk(c, out);
    }
}

/// The variable of `lets[..at]` that `y` (the value of `lets[at]` followed by the chain's
/// `last` expression, or `last` itself when `at == lets.len()` and `last` is `None`) may be
/// written over: `y` is a `build` (of `build`s,
/// down to its elements) reading the array only at its own index, the array owns its buffer
/// (a computed value, not a view of another), and neither it nor a view of it is read after
/// `y`.
pub(super) fn overwritten(
    lets: &[(VarId, &Core)],
    at: usize,
    y: &Core,
    last: Option<&Core>,
) -> Option<VarId> {
    let (index, elem) = element(y)?;
    if index.len() != y.ty.dims().len() {
        return None;
    }
    lets[..at].iter().find_map(|&(x, a)| {
        let owns = matches!(
            a.kind,
            Kind::Build(..) | Kind::Ifold(..) | Kind::Scan(..) | Kind::Iterate(..)
        );
        if !owns || a.ty != y.ty {
            return None;
        }
        let mut names = vec![x];
        for &(v, b) in lets {
            if view_of(b, &names) {
                names.push(v);
            }
        }
        let is_ref = |e: &Core| matches!(e.kind, Kind::Var(v) if names.contains(&v));
        let own = |e: &Core| at_index(e, x, &index);
        if !elem.mentions(x) || !only_own(elem, &own, &is_ref) {
            return None;
        }
        let later = lets
            .get(at + 1..)
            .unwrap_or_default()
            .iter()
            .map(|(_, b)| *b);
        let read_later = later
            .chain(last)
            .any(|b| names.iter().any(|&v| b.mentions(v)));
        (!read_later).then_some(x)
    })
}

/// The indexes of `y`'s nested `build`s, outermost first, and its element.
fn element(y: &Core) -> Option<(Vec<VarId>, &Core)> {
    let mut index = Vec::new();
    let mut cur = y;
    while let Kind::Build(_, i, body) = &cur.kind {
        index.push(*i);
        cur = body;
    }
    (!index.is_empty()).then_some((index, cur))
}

/// Whether `e` is `x[i1]..[ik]` with exactly `index`.
fn at_index(e: &Core, x: VarId, index: &[VarId]) -> bool {
    let mut cur = e;
    for i in index.iter().rev() {
        match &cur.kind {
            Kind::Index(a, k) if matches!(k.kind, Kind::Var(v) if v == *i) => cur = a,
            _ => return false,
        }
    }
    matches!(cur.kind, Kind::Var(v) if v == x)
}

/// Whether `e` is a view of one of `names` (the variable, a row, a slice, a reshape).
fn view_of(e: &Core, names: &[VarId]) -> bool {
    match &e.kind {
        Kind::Var(v) => names.contains(v),
        Kind::Index(a, _) | Kind::Slice(a, _) | Kind::Reshape(a) => {
            e.ty.is_arr() && view_of(a, names)
        }
        _ => false,
    }
}
