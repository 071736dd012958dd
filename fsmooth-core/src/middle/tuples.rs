//! `tuples`: a tuple is never stored, so the core IR takes tuples apart where it can
//! (scalar replacement): `(a, b).0 ~> a`, a `let` of a tuple expression becomes one `let` per
//! component, and a projection moves into a `let`'s body and an `if`'s branches. What remains are tuples that an
//! `if`, an `ifold` or a `scan` computes, which the lowering gives a place per component.
//! After this pass, projections of `let`-bound tuples read the component's own variable, so
//! a component that is a `build` fuses into its readers like any array.
//!
//! A fold's array state made of a few parts, each read apart, is a tuple of its parts
//! ([`crate::middle::state_parts`]).

use crate::middle::ir::{Core, Kind, Type, new_var};
use crate::middle::{dead_states, flat_states, state_parts};

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
    if state_parts::rows(e, names)
        || state_parts::pieces(e, names)
        || dead_states::rule(e, names)
        || flat_states::rule(e, names)
    {
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
                && (a.ty.is_tuple()
                    || matches!(a.tail_ref().kind, Kind::Array(_) | Kind::Concat(..))) =>
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
