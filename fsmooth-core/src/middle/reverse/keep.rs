//! Rows kept for the sweep: before the reverse sweep, an expensive array computed in each
//! step of a `build` is computed by a `build` of its own, and the step reads its row.
//!
//! The sweep of `build(n, |c| body)` recomputes `body`'s values where its reverse reads
//! them (see [`super::loops`]). Most are cheap to recompute, but an array whose elements
//! are themselves sums (GMM's `Q (x - mu)`, a triangle of products per component) costs
//! as much again as the primal: the primal `build` computed it once and the sweep computes
//! it a second time. Keeping such arrays trades scratch for time: `let t = e` inside the
//! step becomes `let t = kept[c]`, `kept = build(n, |c| e)` computed before the `build`,
//! `n` times the array's size in the frame. The sweep of step `c` then goes through `e`
//! with `t`'s adjoint (`Reverse::kept_row`), recomputing `e`'s cheap values (GMM's `x -
//! mu`) but not `t`; the kept array itself gets no adjoint. Only `build`s keep rows: a
//! fold's steps are not kept, so scratch does not grow with a sum-fold's count (GMM's
//! points).

use super::{Lets, at, named, var};
use crate::front::ast::BinOp;
use crate::middle::forward::wrap;
use crate::middle::ir::{Core, Kind, Type, VarId, fresh};
use std::collections::{HashMap, HashSet};

/// The deepest nesting of loops in `e`.
fn loop_depth(e: &Core) -> usize {
    let own = usize::from(matches!(
        e.kind,
        Kind::Build(..) | Kind::Ifold(..) | Kind::Scan(..)
    ));
    own + e.children().map(loop_depth).max().unwrap_or(0)
}

/// Whether `value`, bound by a `let` in a step of the `build` over `index`, is worth keeping:
/// an array computed with more nested loops than it has dimensions (so each element is
/// itself a loop), reading a variable the sweep differentiates by, of a shape that does not
/// depend on the step.
fn worth_keeping(value: &Core, index: VarId, active: &HashSet<VarId>) -> bool {
    let mut read = HashSet::new();
    value.occurring(&mut read);
    value.ty.is_arr()
        && loop_depth(value) > value.ty.dims().len()
        && !value.ty.dims().iter().any(|d| d.mentions_loop(index))
        && read.iter().any(|v| active.contains(v))
}

/// A `let` of a step worth keeping.
struct Keep {
    /// The variable it binds.
    var: VarId,
    /// Its value.
    value: Core,
    /// The step's `let`s in scope that the value reads (outermost first).
    needed: Lets,
}

/// The step's `let`s in scope where [`find`] looks, outermost first.
type Scope<'a> = Vec<(VarId, &'a Core)>;

/// A `let` of a step worth keeping. Only what every step evaluates is looked at: not the
/// bodies of loops, nor the branches of an `if` or the right operand of `&&` and `||`
/// (keeping such a value would compute it, and report its errors, where the step does not).
fn find<'a>(
    e: &'a Core,
    index: VarId,
    active: &HashSet<VarId>,
    scope: &mut Scope<'a>,
) -> Option<Keep> {
    match &e.kind {
        Kind::Let(x, value, body) => {
            if worth_keeping(value, index, active) {
                let mut read = HashSet::new();
                value.occurring(&mut read);
                let mut needed = Vec::new();
                for (y, v) in scope.iter().rev() {
                    if read.contains(y) {
                        v.occurring(&mut read);
                        needed.push((*y, (*v).clone()));
                    }
                }
                needed.reverse();
                return Some(Keep {
                    var: *x,
                    value: (**value).clone(),
                    needed,
                });
            }
            if let Some(found) = find(value, index, active, scope) {
                return Some(found);
            }
            scope.push((*x, &**value));
            let found = find(body, index, active, scope);
            scope.pop();
            found
        }
        Kind::Build(..) | Kind::Scan(..) => None,
        Kind::Ifold(n, init, ..) => {
            find(n, index, active, scope).or_else(|| find(init, index, active, scope))
        }
        Kind::If(c, ..) | Kind::Bin(BinOp::And | BinOp::Or, c, ..) => find(c, index, active, scope),
        _ => e.children().find_map(|c| find(c, index, active, scope)),
    }
}

/// Unfuse the expensive terms of the sum-folds a step evaluates, so that [`find`] meets
/// them as arrays: the canonical form ([`crate::middle::normalise`]) fuses `sqnorm(t)` with
/// `t = build(d, |j| e_j)` into `ifold(d, -0.0, |acc, j| { let v = e_j; acc + v * v })`,
/// where `e_j` is a loop (a triangle's row); that becomes `let t = build(d, |j| e_j);
/// ifold(d, -0.0, |acc, j| { let v = t[j]; acc + v * v })`, whichever way the sum was
/// written. Only a `let` at the head of the fold's step whose value is a loop reading an
/// active variable and the fold's index, and no other `let` of the step nor its state, over
/// a count known before the loops run. Looked for where [`find`] looks.
fn unfuse_sums(e: &mut Core, active: &HashSet<VarId>, names: &mut Vec<String>) {
    match &mut e.kind {
        Kind::Build(..) | Kind::Scan(..) => {}
        Kind::Ifold(n, init, acc, j, _) => {
            unfuse_sums(n, active, names);
            unfuse_sums(init, active, names);
            let Some(count) = n.sym.clone().filter(|s| !s.has_loop()) else {
                return;
            };
            let (acc, j, span) = (*acc, *j, e.span);
            let Kind::Ifold(_, _, _, _, body) = &mut e.kind else {
                return;
            };
            let mut lets = Vec::new();
            let mut cur: &mut Core = body;
            while let Kind::Let(x, value, rest) = &mut cur.kind {
                let mut read = HashSet::new();
                value.occurring(&mut read);
                if value.ty.is_float()
                    && !value.ty.is_arr()
                    && loop_depth(value) > 0
                    && read.contains(&j)
                    && !read.contains(&acc)
                    && !lets.iter().any(|y| read.contains(y))
                    && read.iter().any(|v| active.contains(v))
                {
                    let (row, ty) = (named(names, "j"), value.ty.clone());
                    let mut element = (**value).clone();
                    element.subst(j, &super::index(row, span));
                    let Some(rows_ty) = Type::array_of(&ty, count.clone()) else {
                        return;
                    };
                    let terms = named(names, "terms");
                    let rows = Core::new(
                        Kind::Build(count.clone(), row, Box::new(element)),
                        rows_ty.clone(),
                        span,
                    );
                    **value = at(var(terms, &rows_ty, span), super::index(j, span));
                    let fold = e.take();
                    *e = wrap(vec![(terms, rows)], fold);
                    return;
                }
                lets.push(*x);
                cur = rest;
            }
        }
        Kind::If(c, ..) | Kind::Bin(BinOp::And | BinOp::Or, c, ..) => unfuse_sums(c, active, names),
        _ => {
            for c in e.children_mut() {
                unfuse_sums(c, active, names);
            }
        }
    }
}

/// Replace the value of the `let` binding `x` in `e` by `by`.
fn rebind(e: &mut Core, x: VarId, by: &Core) -> bool {
    if let Kind::Let(y, value, _) = &mut e.kind
        && *y == x
    {
        **value = by.clone();
        return true;
    }
    e.children_mut().any(|c| rebind(c, x, by))
}

/// The variables of `e` that depend on `active` ones: `let`s and fold states whose values
/// read one (in binding order, so one pass finds them).
fn spread(e: &Core, active: &mut HashSet<VarId>) {
    match &e.kind {
        Kind::Let(x, value, body) => {
            spread(value, active);
            if active.iter().any(|v| value.mentions(*v)) {
                active.insert(*x);
            }
            spread(body, active);
        }
        Kind::Ifold(_, init, acc, _, body) | Kind::Scan(_, init, acc, _, body) => {
            spread(init, active);
            spread(body, active);
            if active
                .iter()
                .any(|v| init.mentions(*v) || body.mentions(*v))
            {
                active.insert(*acc);
            }
        }
        _ => e.children().for_each(|c| spread(c, active)),
    }
}

/// Keep the expensive arrays of every `build`'s steps in `e` (innermost `build`s first),
/// `args` being the variables differentiated by: each kept array's variable, with the
/// `build` computing it.
pub(super) fn keep_rows(
    e: &mut Core,
    args: &[VarId],
    names: &mut Vec<String>,
) -> HashMap<VarId, Core> {
    let mut active: HashSet<VarId> = args.iter().copied().collect();
    spread(e, &mut active);
    let mut kept = HashMap::new();
    keep_in(e, &active, names, &mut kept);
    kept
}

fn keep_in(
    e: &mut Core,
    active: &HashSet<VarId>,
    names: &mut Vec<String>,
    kept_rows: &mut HashMap<VarId, Core>,
) {
    for c in e.children_mut() {
        keep_in(c, active, names, kept_rows);
    }
    let Kind::Build(dim, index, _) = &e.kind else {
        return;
    };
    let (dim, index, span) = (dim.clone(), *index, e.span);
    if let Kind::Build(_, _, body) = &mut e.kind {
        unfuse_sums(body, active, names);
    }
    let mut kept_lets = Vec::new();
    while let Kind::Build(_, _, body) = &e.kind
        && let Some(keep) = find(body, index, active, &mut Vec::new())
        && let Some(rows_ty) = Type::array_of(&keep.value.ty, dim.clone())
    {
        let value = wrap(keep.needed, keep.value);
        let rows = Core::new(
            Kind::Build(dim.clone(), index, Box::new(value)),
            rows_ty.clone(),
            span,
        );
        let rows = fresh(rows, names);
        let kept = named(names, "kept");
        let row = at(var(kept, &rows_ty, span), super::index(index, span));
        let Kind::Build(_, _, body) = &mut e.kind else {
            break;
        };
        if !rebind(body, keep.var, &row) {
            break;
        }
        kept_rows.insert(kept, rows.clone());
        kept_lets.push((kept, rows));
    }
    if !kept_lets.is_empty() {
        let build = e.take();
        *e = wrap(kept_lets, build);
    }
}
