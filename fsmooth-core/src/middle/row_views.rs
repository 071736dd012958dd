//! `row_views`: a row a loop's step reads at the loop's index, of an array with a row per
//! step, is a row view bound at the head of the step. In `build(k, |c| .. build(d, |j| x[i][j] - means[c][j]) ..)`,
//! the step over `c` starts with `let r = means[c];` and reads `r[j]`: the form a helper's
//! row parameter gives (`sub(x[i], means[c])`). Run on a differentiated function's canonical form
//! ([`crate::middle::normalise`]): reverse mode adds a row view's adjoint into its row of the
//! matrix's adjoint ([`crate::middle::reverse`]'s sums into rows), whichever way the reads
//! were written. The middle's propagation puts the views back in place afterwards.

use crate::front::size::Size;
use crate::middle::ir::{Core, Kind, VarId, bound};
use std::collections::HashSet;

/// Bind, at the head of every loop's step in `e`, the rows it reads at the loop's index
/// (`LoopRow::row_of`).
pub fn bind(e: &mut Core, names: &mut Vec<String>) {
    let mut states = HashSet::new();
    fold_states(e, &mut states);
    bind_in(e, &states, names);
    bind_fixed(e, &states, names);
}

/// Bind before a loop of a literal count of one or more steps the rows it reads at an index
/// fixed during the loop, at the loop's index, in every step (`x[a][i]` in `ifold(3, .., |s,
/// i| .. x[a][i] ..)`: the elements of `sub(x[a], x[b])` written out): `let r = x[a];` and
/// `r[i]`, the form a row bound before the loop has. Reverse mode then adds the row's
/// adjoint to its row of the matrix's once, whole, not element by element. Read in every
/// step, so binding it first reads nothing the loop would not.
fn bind_fixed(e: &mut Core, states: &HashSet<VarId>, names: &mut Vec<String>) {
    for c in e.children_mut() {
        bind_fixed(c, states, names);
    }
    let (i, count, body) = match &e.kind {
        Kind::Build(n, i, body) => (*i, n.as_const(), body),
        Kind::Ifold(n, _, _, i, body) => (*i, n.sym.as_ref().and_then(Size::as_const), body),
        _ => return,
    };
    if count.is_none_or(|c| c < 1) {
        return;
    }
    let mut binders = vec![i];
    bound(body, &mut binders);
    if let Kind::Ifold(_, _, acc, _, _) = &e.kind {
        binders.push(*acc);
    }
    let mut rows: Vec<(String, Core)> = Vec::new();
    fixed_rows(body, i, &binders, states, &mut rows);
    if rows.is_empty() {
        return;
    }
    let mut bound_rows = Vec::new();
    for (key, row) in rows {
        names.push("row".to_string());
        let v = (names.len() - 1) as VarId;
        bound_rows.push((key, v, row));
    }
    let mut cur = e.take();
    replace_fixed(&mut cur, &bound_rows);
    *e = after_rows(bound_rows, cur);
}

/// `body` after a `let` of each row (`v = row`, in order), each `let` keeping the body's
/// type and symbolic value.
fn after_rows<K>(rows: Vec<(K, VarId, Core)>, body: Core) -> Core {
    rows.into_iter().rev().fold(body, |cur, (_, v, row)| {
        let (ty, span, sym) = (cur.ty.clone(), cur.span, cur.sym.clone());
        Core {
            kind: Kind::Let(v, Box::new(row), Box::new(cur)),
            ty,
            sym,
            span,
        }
    })
}

/// The rows `x[a]` that `e` reads at the loop index `i` in every step (`x[a][i]`, not under
/// a branch or an inner loop), `x` and `a` bound outside the loop, `x` no fold's state: each
/// once, by its key.
fn fixed_rows(
    e: &Core,
    i: VarId,
    binders: &[VarId],
    states: &HashSet<VarId>,
    out: &mut Vec<(String, Core)>,
) {
    match &e.kind {
        Kind::Index(row, k) if matches!(k.kind, Kind::Var(v) if v == i) => {
            if let Kind::Index(x, a) = &row.kind
                && let Kind::Var(xv) = x.kind
                && row.ty.is_arr()
                && !states.contains(&xv)
                && !binders.contains(&xv)
                && !binders.iter().any(|b| a.mentions(*b))
            {
                let key = crate::middle::cse::key(row);
                if !out.iter().any(|(k, _)| *k == key) {
                    out.push((key, (**row).clone()));
                }
                return;
            }
            fixed_rows(row, i, binders, states, out);
        }
        Kind::If(c, ..) => fixed_rows(c, i, binders, states, out),
        Kind::Build(..) | Kind::Ifold(..) | Kind::Scan(..) | Kind::Iterate(..) => {}
        _ => {
            for c in e.children() {
                fixed_rows(c, i, binders, states, out);
            }
        }
    }
}

/// Every read of one of `rows` in `e` (the loop) as its variable.
fn replace_fixed(e: &mut Core, rows: &[(String, VarId, Core)]) {
    if e.ty.is_arr()
        && let Kind::Index(x, _) = &e.kind
        && matches!(x.kind, Kind::Var(_))
    {
        let key = crate::middle::cse::key(e);
        if let Some((_, v, _)) = rows.iter().find(|(k, ..)| *k == key) {
            let (ty, span) = (e.ty.clone(), e.span);
            *e = Core::new(Kind::Var(*v), ty, span);
            return;
        }
    }
    for c in e.children_mut() {
        replace_fixed(c, rows);
    }
}

/// The states of the folds and scans in `e`: their rows are not bound (a state's row is read
/// once per step where it is replaced, and the reverse of a carried state's row is the
/// state's own sweep).
fn fold_states(e: &Core, out: &mut HashSet<VarId>) {
    if let Kind::Ifold(_, _, acc, _, _) | Kind::Scan(_, _, acc, _, _) = &e.kind {
        out.insert(*acc);
    }
    for c in e.children() {
        fold_states(c, out);
    }
}

fn bind_in(e: &mut Core, states: &HashSet<VarId>, names: &mut Vec<String>) {
    let (index, count) = match &e.kind {
        Kind::Build(n, i, _) | Kind::Scan(n, _, _, i, _) => (Some(*i), Some(n.clone())),
        Kind::Ifold(n, _, _, i, _) => (Some(*i), n.sym.clone()),
        _ => (None, None),
    };
    let body = match &mut e.kind {
        Kind::Build(_, _, body) | Kind::Ifold(.., body) | Kind::Scan(.., body) => Some(body),
        _ => None,
    };
    if let (Some(body), Some(i), Some(count)) = (body, index, count) {
        let mut binders = Vec::new();
        bound(body, &mut binders);
        let inside: HashSet<VarId> = binders.into_iter().collect();
        let loop_row = LoopRow {
            index: i,
            count: &count,
            inside: &inside,
            states,
        };
        let mut rows: Vec<(VarId, VarId, Core)> = Vec::new();
        replace(body, &loop_row, &mut rows, names);
        let cur = body.take();
        **body = after_rows(rows, cur);
    }
    for c in e.children_mut() {
        bind_in(c, states, names);
    }
}

/// A loop whose step's rows are bound: its index and count, what its step binds, and the
/// folds' states.
struct LoopRow<'a> {
    index: VarId,
    count: &'a Size,
    inside: &'a HashSet<VarId>,
    states: &'a HashSet<VarId>,
}

impl LoopRow<'_> {
    /// The array variable `x` when `e` is its row `x[i]` at the loop's index, `x` having as
    /// many rows as the loop has steps: in bounds at every step, so binding it at the head
    /// of the step reads nothing the step would not (a row read only in a branch, or in a
    /// loop of no steps, cannot fail either). Not a fold's state, nor bound in the step.
    fn row_of(&self, e: &Core) -> Option<VarId> {
        let Kind::Index(a, k) = &e.kind else {
            return None;
        };
        let (Kind::Var(x), Kind::Var(j)) = (&a.kind, &k.kind) else {
            return None;
        };
        let rows = a.ty.dims().first()?;
        (e.ty.is_arr()
            && *j == self.index
            && rows.same(self.count)
            && !self.states.contains(x)
            && !self.inside.contains(x))
        .then_some(*x)
    }
}

/// Replace each row of `e` that [`LoopRow::row_of`] finds by a variable bound to it, one per
/// array, added to `rows` as (array, variable, row).
fn replace(
    e: &mut Core,
    l: &LoopRow,
    rows: &mut Vec<(VarId, VarId, Core)>,
    names: &mut Vec<String>,
) {
    if let Some(x) = l.row_of(e) {
        let v = match rows.iter().find(|(y, _, _)| *y == x) {
            Some((_, v, _)) => *v,
            None => {
                names.push("row".to_string());
                let v = (names.len() - 1) as VarId;
                rows.push((x, v, e.clone()));
                v
            }
        };
        let (ty, span) = (e.ty.clone(), e.span);
        *e = Core::new(Kind::Var(v), ty, span);
        return;
    }
    for c in e.children_mut() {
        replace(c, l, rows, names);
    }
}
