//! `tuples`: a tuple is never stored, so the core IR takes tuples apart where it can
//! (scalar replacement): `(a, b).0 ~> a`, a `let` of a tuple expression becomes one `let` per
//! component, and a projection moves into a `let`'s body and an `if`'s branches. What remains are tuples that an
//! `if`, an `ifold` or a `scan` computes, which the lowering gives a place per component.
//! After this pass, projections of `let`-bound tuples read the component's own variable, so
//! a component that is a `build` fuses into its readers like any array.
//!
//! A fold's array state of a few rows, read only at literal rows and replaced by an array
//! literal, is a tuple of its rows ([`rows_state`]): `[[f64; 16]; 2]` and `([f64; 16],
//! [f64; 16])` are one form.

use crate::front::ast::Sp;
use crate::front::size::Size;
use crate::middle::ir::{Core, Kind, Type, VarId, fresh, new_var};

/// Take tuples apart throughout `e`; `names` gets the components' variables.
pub fn split(e: &mut Core, names: &mut Vec<String>) {
    for c in e.children_mut() {
        split(c, names);
    }
    loop {
        if !rule(e, names) {
            break;
        }
    }
}

/// Apply one rule at `e`'s root (its children already done); true when one applied.
fn rule(e: &mut Core, names: &mut Vec<String>) -> bool {
    if rows_state(e, names) {
        return true;
    }
    match &mut e.kind {
        Kind::Proj(t, k) => match &mut t.kind {
            Kind::Tuple(xs) if *k < xs.len() => {
                let span = e.span;
                let mut part = xs.swap_remove(*k);
                part.span = span;
                *e = part;
                true
            }
            Kind::Let(..) => {
                // `{ let v = a; b }.k ~> { let v = a; b.k }`
                let k = *k;
                let mut inner = t.take();
                let cur = inner.tail_mut();
                let tail = cur.take();
                let ty = tail.ty.parts().get(k).cloned().unwrap_or(Type::Bool);
                let span = tail.span;
                let mut proj = Core::new(Kind::Proj(Box::new(tail), k), ty.clone(), span);
                rule(&mut proj, names);
                *cur = proj;
                retype_lets(&mut inner, &ty);
                *e = inner;
                true
            }
            Kind::If(c, a, b) => {
                // `(if c { a } else { b }).k ~> if c { a.k } else { b.k }`
                let k = *k;
                let ty = e.ty.clone();
                let (c, mut a, mut b) = (c.take(), a.take(), b.take());
                let mut branch = |x: Core| {
                    let span = x.span;
                    let mut proj = Core::new(Kind::Proj(Box::new(x), k), ty.clone(), span);
                    rule(&mut proj, names);
                    proj
                };
                let (a, b) = (branch(a.take()), branch(b.take()));
                let span = e.span;
                *e = Core::new(Kind::If(Box::new(c), Box::new(a), Box::new(b)), ty, span);
                true
            }
            _ => false,
        },
        Kind::Let(v, a, b) if matches!(a.kind, Kind::Tuple(_)) => {
            // `let v = (x0, x1); body ~> let v0 = x0; let v1 = x1; body[v := (v0, v1)]`
            let v = *v;
            let Kind::Tuple(xs) = a.take().kind else {
                return false;
            };
            let mut body = b.take();
            let vars: Vec<(u32, Core)> = xs.into_iter().map(|x| (new_var(names, v), x)).collect();
            let parts: Vec<Core> = vars
                .iter()
                .map(|(id, x)| {
                    let mut r = Core::new(Kind::Var(*id), x.ty.clone(), x.span);
                    r.sym = x.sym.clone();
                    r
                })
                .collect();
            let ty = Type::Tuple(parts.iter().map(|p| p.ty.clone()).collect());
            let whole = Core::new(Kind::Tuple(parts), ty, e.span);
            body.subst(v, &whole);
            split(&mut body, names);
            *e = crate::middle::anf::wrap(vars, body);
            true
        }
        Kind::Let(v, a, b)
            if matches!(a.kind, Kind::Let(..))
                && (a.ty.is_tuple() || matches!(a.tail_ref().kind, Kind::Array(_))) =>
        {
            // `let v = { let w = x; t }; body ~> let w = x; let v = t; body`
            let v = *v;
            let mut inner = a.take();
            let body = b.take();
            let cur = inner.tail_mut();
            let tail = cur.take();
            let (ty, sym, span) = (body.ty.clone(), body.sym.clone(), body.span);
            *cur = Core {
                kind: Kind::Let(v, Box::new(tail), Box::new(body)),
                ty: ty.clone(),
                sym: sym.clone(),
                span,
            };
            retype_lets_with(&mut inner, &ty, &sym);
            *e = inner;
            // The moved `let` of the tuple may now be taken apart.
            split(e, names);
            true
        }
        _ => false,
    }
}

/// Give a `let` chain (whose tail now has type `ty`) that type throughout.
fn retype_lets(e: &mut Core, ty: &Type) {
    let sym = None;
    retype_lets_with(e, ty, &sym);
}

fn retype_lets_with(e: &mut Core, ty: &Type, sym: &Option<crate::front::size::Size>) {
    let mut cur = e;
    while let Kind::Let(_, _, b) = &mut cur.kind {
        cur.ty = ty.clone();
        cur.sym = sym.clone();
        cur = b;
    }
}

/// The most rows a fold's state is taken apart into by [`rows_state`].
const STATE_ROWS_MAX: u64 = 8;

/// `ifold(c, init, |s, i| .. [e0, e1])` whose state `s: [T; L]` (`L` a literal, 2 to
/// [`STATE_ROWS_MAX`]) is read only at literal rows (`s[0][j]`, `s[1]`) and replaced by an
/// array literal (in every branch) is the fold of the tuple of its rows:
/// `{ let t = ifold(c, (init[0], init[1]), |t, i| .. (e0', e1')); [t.0, t.1] }` with `s[r]`
/// read as `t.r`. The tuple-state spelling and this one are then one form, and each row is
/// a state of its own, which the lowering updates in place or keeps in locals (Welford's
/// mean and M2 as one `[[f64; 16]; 2]` was double-buffered through the frame, 2.0x the
/// tuple spelling). True when it applied.
fn rows_state(e: &mut Core, names: &mut Vec<String>) -> bool {
    let Kind::Ifold(_, _, acc, _, body) = &e.kind else {
        return false;
    };
    let Some(rows) =
        e.ty.dims()
            .first()
            .and_then(Size::as_const)
            .filter(|l| (2..=STATE_ROWS_MAX).contains(l))
    else {
        return false;
    };
    let (acc, rows) = (*acc, rows as usize);
    if !literal_rows_only(body, acc, rows) || !rows_tail(body, rows) {
        return false;
    }
    let (ty, span) = (e.ty.clone(), e.span);
    let Kind::Ifold(count, init, _, i, mut body) = e.take().kind else {
        return false;
    };
    let row_ty = ty.elem();
    let tuple_ty = Type::Tuple(vec![row_ty.clone(); rows]);
    let t = new_var(names, acc);
    read_rows(&mut body, acc, t, &tuple_ty);
    tail_to_tuple(&mut body, &tuple_ty);
    let mut binds = Vec::new();
    let inits = init_rows(*init, rows, &row_ty, acc, names, &mut binds);
    let init = Core::new(Kind::Tuple(inits), tuple_ty.clone(), span);
    let fold = Core::new(
        Kind::Ifold(count, Box::new(init), t, i, body),
        tuple_ty.clone(),
        span,
    );
    let whole = new_var(names, acc);
    binds.push((whole, fold));
    let parts = (0..rows)
        .map(|r| {
            let var = Core::new(Kind::Var(whole), tuple_ty.clone(), span);
            Core::new(Kind::Proj(Box::new(var), r), row_ty.clone(), span)
        })
        .collect();
    *e = crate::middle::anf::wrap(binds, Core::new(Kind::Array(parts), ty, span));
    true
}

/// True when every read of `acc` in `e` is of a literal row below `rows`.
fn literal_rows_only(e: &Core, acc: VarId, rows: usize) -> bool {
    match &e.kind {
        Kind::Index(a, k) if matches!(a.kind, Kind::Var(v) if v == acc) => k
            .sym
            .as_ref()
            .and_then(Size::as_const)
            .is_some_and(|r| r < rows as u64),
        Kind::Var(v) => *v != acc,
        _ => e.children().all(|c| literal_rows_only(c, acc, rows)),
    }
}

/// True when `e`'s value is an array literal of `rows` items at the end of every `let`
/// chain and branch.
fn rows_tail(e: &Core, rows: usize) -> bool {
    match &e.kind {
        Kind::Let(_, _, b) => rows_tail(b, rows),
        Kind::If(_, a, b) => rows_tail(a, rows) && rows_tail(b, rows),
        Kind::Array(xs) => xs.len() == rows,
        _ => false,
    }
}

/// Every `acc[r]` in `e` read as `t.r`.
fn read_rows(e: &mut Core, acc: VarId, t: VarId, tuple_ty: &Type) {
    if let Kind::Index(a, k) = &e.kind
        && matches!(a.kind, Kind::Var(v) if v == acc)
        && let Some(r) = k.sym.as_ref().and_then(Size::as_const)
    {
        let var = Core::new(Kind::Var(t), tuple_ty.clone(), a.span);
        e.kind = Kind::Proj(Box::new(var), r as usize);
        return;
    }
    for c in e.children_mut() {
        read_rows(c, acc, t, tuple_ty);
    }
}

/// The array literals [`rows_tail`] found made tuples, the `let`s and `if`s around them
/// retyped.
fn tail_to_tuple(e: &mut Core, ty: &Type) {
    e.ty = ty.clone();
    e.sym = None;
    match &mut e.kind {
        Kind::Let(_, _, b) => tail_to_tuple(b, ty),
        Kind::If(_, a, b) => {
            tail_to_tuple(a, ty);
            tail_to_tuple(b, ty);
        }
        Kind::Array(xs) => e.kind = Kind::Tuple(std::mem::take(xs)),
        _ => {}
    }
}

/// The rows of a fold's initial state: an array literal's items, a `build`'s body at each
/// row (a copy with its own binders), a variable's rows, or the rows of a `let`-bound value
/// (`binds` gets the `let`).
fn init_rows(
    init: Core,
    rows: usize,
    row_ty: &Type,
    like: VarId,
    names: &mut Vec<String>,
    binds: &mut Vec<(VarId, Core)>,
) -> Vec<Core> {
    let span = init.span;
    match init.kind {
        Kind::Array(xs) if xs.len() == rows => xs,
        Kind::Build(_, v, body) => (0..rows)
            .map(|r| {
                let mut row = fresh((*body).clone(), names);
                row.subst(v, &Core::size(Size::Lit(r as u64), span));
                row
            })
            .collect(),
        Kind::Var(v) => row_reads(v, &init.ty, rows, row_ty, span),
        _ => {
            let v = new_var(names, like);
            let ty = init.ty.clone();
            binds.push((v, init));
            row_reads(v, &ty, rows, row_ty, span)
        }
    }
}

/// `v[0], .., v[rows - 1]`.
fn row_reads(v: VarId, ty: &Type, rows: usize, row_ty: &Type, span: Sp) -> Vec<Core> {
    (0..rows)
        .map(|r| {
            let var = Core::new(Kind::Var(v), ty.clone(), span);
            let at = Core::size(Size::Lit(r as u64), span);
            Core::new(
                Kind::Index(Box::new(var), Box::new(at)),
                row_ty.clone(),
                span,
            )
        })
        .collect()
}
