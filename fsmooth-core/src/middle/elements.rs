//! One element of a `let`-bound array of rows read several times in the same loop nest
//! (`sqnorm(e[j])` over `let e = build(p, |j| sub(xs[j], ys[j]))` reads `e[j][q]` twice, as
//! does `sum(map(build(p, ..), |e| sqnorm(e)))` once fused): the element computed once at
//! the top of the innermost loop and read there, so the array is never stored (LANGUAGE.md
//! section 13: a `let` that names an array costs what the expression written where it is
//! read costs). Fusion's rule for one level (`emul(v, v)`) is [`super::fuse`]'s; this is the
//! same for reads through every level of rows.

use crate::front::size::Size;
use crate::middle::ir::{Core, Kind, Type, VarId};
use crate::middle::simplify::subst_index;

/// When every read of `x` in `scope` (at most `reads` of them) is `x[j1]..[jd]` with the
/// same loop indexes `j1 .. jd`, `d >= 2` the rank of `x`, each bound by a loop of `scope`
/// over the whole dimension it indexes: those indexes.
pub(super) fn same_chain(x: VarId, ty: &Type, scope: &Core, reads: u32) -> Option<Vec<VarId>> {
    let dims = ty.dims();
    if dims.len() < 2 {
        return None;
    }
    let mut chains = Vec::new();
    if !chains_of(scope, x, &mut chains, &mut { reads }) || chains.len() < 2 {
        return None;
    }
    let first = chains[0].clone();
    if first.len() != dims.len() || chains.iter().any(|c| *c != first) {
        return None;
    }
    first
        .iter()
        .zip(dims)
        .all(|(j, n)| loop_count(scope, *j).is_some_and(|c| c.same(n)))
        .then_some(first)
}

/// The index chains of the reads of `x` in `e`, each a list of loop variables; false when
/// some read is not such a chain (the whole array, a row passed on, a computed index).
fn chains_of(e: &Core, x: VarId, out: &mut Vec<Vec<VarId>>, left: &mut u32) -> bool {
    if *left == 0 {
        return true;
    }
    let mut idx = Vec::new();
    let mut cur = e;
    while let Kind::Index(a, k) = &cur.kind {
        idx.push(k);
        cur = a;
    }
    if matches!(cur.kind, Kind::Var(v) if v == x) {
        *left -= 1;
        let vars: Option<Vec<VarId>> = idx
            .iter()
            .rev()
            .map(|k| match k.kind {
                Kind::Var(j) => Some(j),
                _ => None,
            })
            .collect();
        return match vars {
            Some(vars) if !vars.is_empty() => {
                out.push(vars);
                true
            }
            _ => false,
        };
    }
    e.children().all(|c| chains_of(c, x, out, left))
}

/// The count of the loop of `e` binding index `j`, if it is a size.
fn loop_count(e: &Core, j: VarId) -> Option<Size> {
    match &e.kind {
        Kind::Build(n, i, _) if *i == j => Some(n.clone()),
        Kind::Ifold(n, _, _, i, _) if *i == j => n.sym.clone(),
        _ => e.children().find_map(|c| loop_count(c, j)),
    }
}

/// The element of `value`, nested `build`s, at indexes `at` (one per level); `None` when a
/// level is not a `build`.
pub(super) fn element_at(value: &Core, at: &[VarId]) -> Option<Core> {
    let mut elem = value.clone();
    for j in at {
        let Kind::Build(_, i, body) = elem.kind else {
            return None;
        };
        elem = subst_index(i, &Core::index_var(*j, elem.span), *body, elem.span);
    }
    Some(elem)
}

/// In the loop binding the last of `at`, bind `t = elem` first and read `t` for every
/// `x[at..]`. False when no loop of `e` binds it.
pub(super) fn bind_chain(e: &mut Core, x: VarId, at: &[VarId], t: VarId, elem: &Core) -> bool {
    let Some(last) = at.last() else {
        return false;
    };
    let body = match &mut e.kind {
        Kind::Build(_, i, body) | Kind::Ifold(_, _, _, i, body) if *i == *last => body,
        _ => return e.children_mut().any(|c| bind_chain(c, x, at, t, elem)),
    };
    let var = Core::new(Kind::Var(t), elem.ty.clone(), elem.span);
    replace_chain(body, x, &var);
    let_at_head(body, t, elem);
    true
}

/// `let t = elem;` put at the head of a loop's `body`.
pub(super) fn let_at_head(body: &mut Core, t: VarId, elem: &Core) {
    let inner = body.take();
    let (ty, sym, span) = (inner.ty.clone(), inner.sym.clone(), inner.span);
    *body = Core {
        kind: Kind::Let(t, Box::new(elem.clone()), Box::new(inner)),
        ty,
        sym,
        span,
    };
}

/// Every index chain rooted at `x` in `e` made `by`.
fn replace_chain(e: &mut Core, x: VarId, by: &Core) {
    let mut cur = &*e;
    while let Kind::Index(a, _) = &cur.kind {
        cur = a;
    }
    if !std::ptr::eq(cur, &*e) && matches!(cur.kind, Kind::Var(v) if v == x) {
        *e = by.clone();
        return;
    }
    for c in e.children_mut() {
        replace_chain(c, x, by);
    }
}
