//! `row_views`: a row a loop's step reads at an index fixed in the step is a row view bound
//! at the head of the step. In `build(k, |c| .. build(d, |j| x[i][j] - means[c][j]) ..)`,
//! the step over `c` starts with `let r = means[c];` and reads `r[j]`: the form a helper's
//! row parameter gives (`sub(x[i], means[c])`). Run on a differentiated function's canonical form
//! ([`crate::middle::normalise`]): reverse mode adds a row view's adjoint into its row of the
//! matrix's adjoint ([`crate::middle::reverse`]'s sums into rows), whichever way the reads
//! were written. The middle's propagation puts the views back in place afterwards.

use crate::middle::cse;
use crate::middle::ir::{Core, Kind, VarId};
use std::collections::HashSet;

/// Bind, at the head of every loop's step in `e`, the rows it reads at indexes fixed in the
/// step: reading the loop's own variables, nothing the step binds.
pub fn bind(e: &mut Core, names: &mut Vec<String>) {
    let mut states = HashSet::new();
    fold_states(e, &mut states);
    bind_in(e, &states, names);
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
    let own: Vec<VarId> = match &e.kind {
        Kind::Build(_, i, _) => vec![*i],
        Kind::Ifold(_, _, acc, i, _) | Kind::Scan(_, _, acc, i, _) => vec![*acc, *i],
        _ => Vec::new(),
    };
    let body = match &mut e.kind {
        Kind::Build(_, _, body) | Kind::Ifold(.., body) | Kind::Scan(.., body) => Some(body),
        _ => None,
    };
    if let Some(body) = body {
        let mut inside = HashSet::new();
        binders(body, &mut inside);
        let mut rows: Vec<(String, VarId, Core)> = Vec::new();
        replace(body, &own, &inside, states, &mut rows, names);
        // An array read at two rows in one step (`v[i]` and `v[n - 1 - i]`) keeps its reads
        // as they were: reverse mode's sums into rows take one row of an array per step.
        let root = |row: &Core| {
            let mut cur = row;
            while let Kind::Index(a, _) = &cur.kind {
                cur = a;
            }
            match cur.kind {
                Kind::Var(v) => Some(v),
                _ => None,
            }
        };
        let shared: Vec<bool> = rows
            .iter()
            .map(|(_, _, r)| rows.iter().filter(|(_, _, q)| root(q) == root(r)).count() > 1)
            .collect();
        let mut k = 0;
        rows.retain(|(_, v, row)| {
            k += 1;
            if shared[k - 1] {
                body.subst(*v, row);
            }
            !shared[k - 1]
        });
        let mut cur = body.take();
        for (_, v, row) in rows.into_iter().rev() {
            let (ty, span, sym) = (cur.ty.clone(), cur.span, cur.sym.clone());
            cur = Core {
                kind: Kind::Let(v, Box::new(row), Box::new(cur)),
                ty,
                sym,
                span,
            };
        }
        **body = cur;
    }
    for c in e.children_mut() {
        bind_in(c, states, names);
    }
}

/// Every variable bound in `e`.
fn binders(e: &Core, out: &mut HashSet<VarId>) {
    match &e.kind {
        Kind::Let(x, ..) | Kind::Build(_, x, _) => {
            out.insert(*x);
        }
        Kind::Ifold(_, _, acc, i, _) | Kind::Scan(_, _, acc, i, _) => {
            out.extend([*acc, *i]);
        }
        _ => {}
    }
    for c in e.children() {
        binders(c, out);
    }
}

/// A row of an array variable (not a fold's state, nor bound in the step) at indexes that
/// read nothing of `inside` (what the step binds) and some of `own` (the loop's variables).
fn is_row(e: &Core, own: &[VarId], inside: &HashSet<VarId>, states: &HashSet<VarId>) -> bool {
    let mut read = HashSet::new();
    let mut cur = e;
    while let Kind::Index(a, k) = &cur.kind {
        k.occurring(&mut read);
        cur = a;
    }
    e.ty.is_arr()
        && matches!(e.kind, Kind::Index(..))
        && matches!(cur.kind, Kind::Var(v) if !states.contains(&v) && !inside.contains(&v))
        && read.is_disjoint(inside)
        && own.iter().any(|v| read.contains(v))
}

/// Replace each largest row of `e` that [`is_row`] by a variable bound to it, one per row
/// (by its [`cse::key`]), added to `rows`.
fn replace(
    e: &mut Core,
    own: &[VarId],
    inside: &HashSet<VarId>,
    states: &HashSet<VarId>,
    rows: &mut Vec<(String, VarId, Core)>,
    names: &mut Vec<String>,
) {
    if is_row(e, own, inside, states) {
        let key = cse::key(e);
        let v = match rows.iter().find(|(k, _, _)| *k == key) {
            Some((_, v, _)) => *v,
            None => {
                names.push("row".to_string());
                let v = (names.len() - 1) as VarId;
                rows.push((key, v, e.clone()));
                v
            }
        };
        let (ty, span) = (e.ty.clone(), e.span);
        *e = Core::new(Kind::Var(v), ty, span);
        return;
    }
    for c in e.children_mut() {
        replace(c, own, inside, states, rows, names);
    }
}
