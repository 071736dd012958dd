//! Reads of a `let`-bound array pulled to the head of a step: `means[i]` read inside the
//! inner loop of `build(n, |i| map(x[i], |t| t - means[i]))` is read once where step `i`
//! starts, so that fusion computes the element there, once per step, as if written there
//! (LANGUAGE.md section 14, a `let` or the expression where it is read). Fusion's rule in
//! `middle/fuse.rs` decides when; these are its walks.

use crate::front::size::Size;
use crate::middle::ir::{Core, Kind, Type, VarId};

/// Whether `row`, a `build`'s element that is an array, computes each of its elements with
/// no loop of its own after the `let`s that head it (`let m = sum(x[i]); map(x[i], |t| t -
/// m)`): pulled to the head of a step, it is that row once. A row of sums (a product's)
/// stays where the products' own rules find it.
pub(super) fn cheap_elements(row: &Core) -> bool {
    match &row.kind {
        Kind::Let(_, _, b) => cheap_elements(b),
        Kind::Build(_, _, elem) => !elem.runs_loop(),
        // A row of running sums (an integral image's), computed once a step as written
        // there.
        Kind::Scan(..) => true,
        _ => false,
    }
}

/// Whether [`pull_reads`] would bind a read in `e` (without changing it).
pub(super) fn would_pull(e: &Core, x: VarId, n: &Size, in_loop: bool) -> bool {
    if !in_loop && site(e, x, n).is_some() {
        return true;
    }
    let in_loop = in_loop || e.is_loop();
    e.children().any(|c| would_pull(c, x, n, in_loop))
}

/// The index of `e` when it is a loop of `n` steps, a `build(n, |j| body)` or the step of an
/// `ifold` or `scan` over `n` (an integral image's scan down the rows reading `rows[r]`),
/// whose body reads `x[j]` inside a loop: each step reads its own element once.
fn site(e: &Core, x: VarId, n: &Size) -> Option<VarId> {
    let (m, j, body) = match &e.kind {
        Kind::Build(m, j, body) | Kind::Scan(m, _, _, j, body) => (m, j, body),
        Kind::Ifold(count, _, _, j, body) => (count.sym.as_ref()?, j, body),
        _ => return None,
    };
    (m.same(n) && read_inside(body, x, *j, false)).then_some(*j)
}

/// Whether `e` reads `x[j]` inside a loop (`inner`: already inside one).
fn read_inside(e: &Core, x: VarId, j: VarId, inner: bool) -> bool {
    if is_read_at(e, x, j) {
        return inner;
    }
    let inner = inner || e.is_loop();
    e.children().any(|c| read_inside(c, x, j, inner))
}

/// Whether `e` is `x[j]`.
fn is_read_at(e: &Core, x: VarId, j: VarId) -> bool {
    matches!(&e.kind, Kind::Index(a, k)
        if matches!(a.kind, Kind::Var(v) if v == x) && matches!(k.kind, Kind::Var(v) if v == j))
}

/// In `e` (the scope of `let x = build(n, ..)`), outside any loop, each `build(n, |j|
/// body)` whose body reads `x[j]` inside a loop of its own: `let xj = x[j]` bound at the
/// head of `body`, every `x[j]` there read as `xj`. True when one was bound. Each step reads
/// its own element, which exists (`j < n`), and the stored array computes every element
/// anyway, so reading it once per step at the head changes no value and raises no error.
pub(super) fn pull_reads(
    e: &mut Core,
    (x, ty): (VarId, &Type),
    n: &Size,
    in_loop: bool,
    names: &mut Vec<String>,
) -> bool {
    fn replace(e: &mut Core, x: VarId, j: VarId, by: VarId) {
        if is_read_at(e, x, j) {
            e.kind = Kind::Var(by);
            return;
        }
        for c in e.children_mut() {
            replace(c, x, j, by);
        }
    }
    if !in_loop
        && let Some(j) = site(e, x, n)
        && let Kind::Build(_, _, body)
        | Kind::Scan(_, _, _, _, body)
        | Kind::Ifold(_, _, _, _, body) = &mut e.kind
    {
        let xj = names.len() as VarId;
        let base = names.get(x as usize).cloned().unwrap_or_else(|| "x".into());
        names.push(base);
        let span = body.span;
        let elem = body.ty.clone();
        replace(body, x, j, xj);
        let read = Core::read_at(x, ty, j, span);
        let inner = body.take();
        **body = Core::new(Kind::Let(xj, Box::new(read), Box::new(inner)), elem, span);
        return true;
    }
    let in_loop = in_loop || e.is_loop();
    let mut any = false;
    for c in e.children_mut() {
        any |= pull_reads(c, (x, ty), n, in_loop, names);
    }
    any
}
