//! A `scan` or `ifold` whose state is a tuple of tuples (forward mode pairs each state with
//! its tangent: `((y1, y2), (dy1, dy2))`; a user's `((x, r, p), rs)`) runs over the flat
//! tuple of its leaves, the nested state rebuilt where the step reads it and the result
//! rebuilt from the flat one. The lowering then gives each leaf its own place, as for a flat
//! tuple state: a component read only as a state lives in a local, one read after the loop
//! goes to its destination (LANGUAGE.md section 8: "components of a tuple scan that nothing
//! reads are not stored"; a `jvp` of a two-state filter took 5n slots where the filter takes
//! none), and a fold's arrays are updated in place.

use crate::middle::ir::{Core, Kind, Type, new_var};

/// `scan(n, init, |s, i| body)` or `ifold(n, init, |s, i| body)` with a nested tuple state
/// as the loop over its leaves; true when it applied. A fold's leaves each get a place of
/// their own, as a flat tuple state's, so that the lowering updates its arrays in place
/// (conjugate gradients' `((x, r, p), rs)`: 3n slots as `(x, r, p, rs)`, 11n nested).
pub(super) fn rule(e: &mut Core, names: &mut Vec<String>) -> bool {
    let (Kind::Scan(_, init, acc, _, _) | Kind::Ifold(_, init, acc, _, _)) = &e.kind else {
        return false;
    };
    let state_ty = init.ty.clone();
    if !state_ty.parts().iter().any(Type::is_tuple) {
        return false;
    }
    // A fold's start whose inner tuples are not written out (a fold's result as one
    // component) is placed whole where the state lives, as its siblings' spelling places it;
    // taken apart it would be computed elsewhere and copied.
    if matches!(e.kind, Kind::Ifold(..)) && !written_out(init) {
        return false;
    }
    let acc = *acc;
    let span = e.span;
    let result_ty = e.ty.clone();
    let (flat_state, flat_result) = (flat(&state_ty), flat(&result_ty));
    // The start and each step's value, taken apart into their leaves.
    let leaves_of = |value: Core, names: &mut Vec<String>, flat_ty: &Type| {
        let t = new_var(names, acc);
        let whole = Core::new(Kind::Var(t), value.ty.clone(), span);
        let mut parts = Vec::new();
        leaves(&whole, &mut parts);
        let tuple = Core::new(Kind::Tuple(parts), flat_ty.clone(), span);
        Core::new(
            Kind::Let(t, Box::new(value), Box::new(tuple)),
            flat_ty.clone(),
            span,
        )
    };
    let state = new_var(names, acc);
    let nested = rebuilt(
        &state_ty,
        &Core::new(Kind::Var(state), flat_state.clone(), span),
        &mut 0,
    );
    let step_of = |body: Core, names: &mut Vec<String>| {
        let step = leaves_of(body, names, &flat_state);
        Core::new(
            Kind::Let(acc, Box::new(nested.clone()), Box::new(step)),
            flat_state.clone(),
            span,
        )
    };
    let flat_loop = match e.take().kind {
        Kind::Scan(n, init, _, i, body) => {
            let init = leaves_of(*init, names, &flat_state);
            let step = step_of(*body, names);
            Kind::Scan(n, Box::new(init), state, i, Box::new(step))
        }
        Kind::Ifold(n, init, _, i, body) => {
            let init = leaves_of(*init, names, &flat_state);
            let step = step_of(*body, names);
            Kind::Ifold(n, Box::new(init), state, i, Box::new(step))
        }
        _ => return false,
    };
    let flat_loop = Core::new(flat_loop, flat_result.clone(), span);
    let r = new_var(names, acc);
    let whole = rebuilt(
        &result_ty,
        &Core::new(Kind::Var(r), flat_result, span),
        &mut 0,
    );
    *e = Core::new(
        Kind::Let(r, Box::new(flat_loop), Box::new(whole)),
        result_ty,
        span,
    );
    true
}

/// Whether `e` is a tuple literal whose tuple components are tuple literals, at every level.
fn written_out(e: &Core) -> bool {
    match &e.kind {
        Kind::Tuple(items) => items.iter().all(|x| !x.ty.is_tuple() || written_out(x)),
        _ => false,
    }
}

/// The flat tuple of `ty`'s leaves.
fn flat(ty: &Type) -> Type {
    fn go(ty: &Type, out: &mut Vec<Type>) {
        match ty {
            Type::Tuple(ts) => ts.iter().for_each(|t| go(t, out)),
            t => out.push(t.clone()),
        }
    }
    let mut out = Vec::new();
    go(ty, &mut out);
    Type::Tuple(out)
}

/// The leaves of `e`, a tuple of tuples, as projections, in order.
fn leaves(e: &Core, out: &mut Vec<Core>) {
    match &e.ty {
        Type::Tuple(ts) => {
            for (k, t) in ts.iter().enumerate() {
                let part = Core::new(Kind::Proj(Box::new(e.clone()), k), t.clone(), e.span);
                leaves(&part, out);
            }
        }
        _ => out.push(e.clone()),
    }
}

/// `ty`'s nested tuple built from the leaves of `flat` from the `next`th on.
fn rebuilt(ty: &Type, flat: &Core, next: &mut usize) -> Core {
    match ty {
        Type::Tuple(ts) => {
            let parts = ts.iter().map(|t| rebuilt(t, flat, next)).collect();
            Core::new(Kind::Tuple(parts), ty.clone(), flat.span)
        }
        t => {
            let k = *next;
            *next += 1;
            Core::new(Kind::Proj(Box::new(flat.clone()), k), t.clone(), flat.span)
        }
    }
}
