//! One element of a `let`-bound array of rows read several times in the same loop nest
//! (`sqnorm(e[j])` over `let e = build(p, |j| sub(xs[j], ys[j]))` reads `e[j][q]` twice, as
//! does `sum(map(build(p, ..), |e| sqnorm(e)))` once fused): the element computed once at
//! the top of the innermost loop and read there, so the array is never stored (LANGUAGE.md
//! section 13: a `let` that names an array costs what the expression written where it is
//! read costs). One level (`emul(v, v)`: `x[j]` twice) or every level of rows. A rule of
//! [`super::fuse`], which calls `rule`.

use crate::front::size::Size;
use crate::middle::ir::{Core, Kind, Type, VarId};
use crate::middle::simplify::subst_index;

/// `let x = build(..); body` whose every read of `x` in `body` (at most `reads` of them) is
/// one element read several times in the same loop: that element computed once at the top
/// of the loop's body, the array never stored; true when it applied. One level (`emul(v,
/// v)`, `x[j]`) or every level of rows (`e[j][q]` twice).
pub(super) fn rule(e: &mut Core, names: &mut Vec<String>, reads: u32) -> bool {
    let span = e.span;
    // Several reads of the same element in one loop (`emul(v, v)`): compute the element once
    // per iteration, at the top of that loop's body.
    if let Kind::Let(x, a, b) = &mut e.kind
        && let Kind::Build(len, i, body) = &a.kind
        && let Some(j) = same_element(*x, b, reads)
    {
        let t = names.len() as VarId;
        names.push(format!(
            "{}_elem",
            names.get(*x as usize).map(String::as_str).unwrap_or("x")
        ));
        let elem = (**body).clone();
        let elem = subst_index(*i, &Core::index_var(j, span), elem, span);
        // Only when j's loop is inside the `let` (the reads may index with an outer loop's
        // index, `v[i]` inside a loop over another index): otherwise keep the binding. (A
        // scope without that loop is left as it was.)
        if bind_element(b, *x, j, t, &elem, len) {
            *e = b.take();
            return true;
        }
        names.pop();
    }
    // The same through every level of rows (`e[j][q]` twice, `e` rows of a `build`).
    if let Kind::Let(x, a, b) = &mut e.kind
        && let Some(at) = same_chain(*x, &a.ty, b, reads)
        && let Some(elem) = element_at(a, &at)
    {
        let t = crate::middle::ir::new_var(names, *x);
        if bind_chain(b, *x, &at, t, &elem) {
            *e = b.take();
            return true;
        }
    }
    false
}

/// If every read of `x` is `x[j]` for one loop index `j`, directly inside j's loop, that `j`.
fn same_element(x: VarId, scope: &Core, reads: u32) -> Option<VarId> {
    let mut depths = Vec::new();
    let mut other = false;
    super::fuse::reads_in(
        scope,
        x,
        &mut Vec::new(),
        &mut |l, _, _| depths.push(l.len()),
        &mut other,
        &mut { reads },
    );
    if other || depths.len() < 2 || depths.iter().any(|d| *d != 1) {
        return None;
    }
    let mut idx = Vec::new();
    index_vars(scope, x, &mut idx, &mut { reads });
    let j = idx.first().copied().flatten()?;
    idx.iter().all(|k| *k == Some(j)).then_some(j)
}

fn index_vars(e: &Core, x: VarId, out: &mut Vec<Option<VarId>>, left: &mut u32) {
    if *left == 0 {
        return;
    }
    match &e.kind {
        Kind::Var(v) if *v == x => *left -= 1,
        Kind::Index(a, k) if matches!(a.kind, Kind::Var(v) if v == x) => {
            out.push(match k.kind {
                Kind::Var(j) => Some(j),
                _ => None,
            });
        }
        _ => {}
    }
    for c in e.children() {
        index_vars(c, x, out, left);
    }
}

/// In the loop binding `j`, bind `t = elem` first and read `t` for every `x[j]`. False when
/// no loop in `e` binds `j`, or when that loop's count is not `len`, `x`'s: the element is
/// then computed at every `j`, where the reads of `x[j]` may be only some (inside a `concat`'s
/// branch `j < len`), and `elem` may fail beyond `len` (a load of a shorter array).
fn bind_element(e: &mut Core, x: VarId, j: VarId, t: VarId, elem: &Core, len: &Size) -> bool {
    let body = match &mut e.kind {
        Kind::Build(n, i, body) if *i == j => {
            if !n.same(len) {
                return false;
            }
            Some(body)
        }
        Kind::Ifold(n, _, _, i, body) if *i == j => {
            if !n.sym.as_ref().is_some_and(|n| n.same(len)) {
                return false;
            }
            Some(body)
        }
        _ => None,
    };
    if let Some(body) = body {
        let var = Core {
            kind: Kind::Var(t),
            ty: elem.ty.clone(),
            sym: None,
            span: elem.span,
        };
        replace_index(body, x, &var);
        let_at_head(body, t, elem);
        return true;
    }
    e.children_mut()
        .any(|c| bind_element(c, x, j, t, elem, len))
}

fn replace_index(e: &mut Core, x: VarId, by: &Core) {
    if let Kind::Index(a, _) = &e.kind
        && matches!(a.kind, Kind::Var(v) if v == x)
    {
        *e = by.clone();
        return;
    }
    for c in e.children_mut() {
        replace_index(c, x, by);
    }
}

/// When every read of `x` in `scope` (at most `reads` of them) is `x[j1]..[jd]` with the
/// same loop indexes `j1 .. jd`, `d >= 2` the rank of `x`, each bound by a loop of `scope`
/// over the whole dimension it indexes: those indexes.
fn same_chain(x: VarId, ty: &Type, scope: &Core, reads: u32) -> Option<Vec<VarId>> {
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
fn element_at(value: &Core, at: &[VarId]) -> Option<Core> {
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
fn bind_chain(e: &mut Core, x: VarId, at: &[VarId], t: VarId, elem: &Core) -> bool {
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
