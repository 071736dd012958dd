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
