//! A `build` of a few literal elements, each running the same fold over one count, is one
//! fold whose state is the array of those elements' states (loop interchange): one form for
//! `map(c, |ck| power(x, ck))` over a helper with a scalar state and the fold written with
//! an array state, `ifold(n, build(8, ..), |s, i| build(8, |k| .. s[k] ..))`. The signal is
//! then read once, not once per element, and the state lives in locals (LANGUAGE.md section
//! 13), as the array-state spelling's does.

use crate::front::ast::BinOp;
use crate::front::size::Size;
use crate::middle::ir::{Core, Kind, Type, VarId, fresh, new_var, nodes};

/// The most elements a `build` may have for its folds to become one ([`interchange`]):
/// the state is then at most this many elements per component, small enough for locals.
const LANES_MAX: u64 = 16;

/// The most components a fold's tuple state may have.
const PARTS_MAX: usize = 4;

/// The most nodes a `let` before the fold may have: it is computed again in each step.
const PREFIX_NODES_MAX: usize = 8;

/// Every loop in `e` rewritten by [`interchange_loop`] where it applies, innermost first.
pub fn interchange(e: &mut Core, names: &mut Vec<String>) {
    for c in e.children_mut() {
        interchange(c, names);
    }
    interchange_loop(e, names);
    transposed_scans(e, names);
    unflattened(e, names);
}

/// `ifold(a * n, init, |v, t| { let i = t % n; step })`, a fold over the points of `a`
/// rounds of `n` whose step reads `t` only as `t % n`, is the fold of rounds of the fold
/// over the points, `ifold(a, init, |u, _| ifold(n, u, |v, i| step))`: the same steps in
/// the same order, with `i` a loop index (proven below `n`, so its reads need no checks)
/// and no division per step. One form for Gauss-Seidel's sweeps written flat and nested.
/// (The flat count's product is no longer computed: an `a * n` past `usize::MAX`, an error
/// there, runs its steps here, which no run could finish anyway.) True when it applied.
pub fn unflattened(e: &mut Core, names: &mut Vec<String>) -> bool {
    let Kind::Ifold(count, _, _, t, body) = &e.kind else {
        return false;
    };
    // The count as written, `a * n` (its operands, each a value with its size).
    let Kind::Bin(BinOp::Mul, xc, yc, _) = &count.kind else {
        return false;
    };
    let (Some(x), Some(y)) = (&xc.sym, &yc.sym) else {
        return false;
    };
    let Kind::Let(i, value, rest) = &body.kind else {
        return false;
    };
    let Kind::Bin(BinOp::Rem, tv, nv, _) = &value.kind else {
        return false;
    };
    let Some(n) = &nv.sym else {
        return false;
    };
    if !matches!(tv.kind, Kind::Var(v) if v == *t) || n.has_loop() {
        return false;
    }
    let rounds = match (x.same(n), y.same(n)) {
        (_, true) => (**xc).clone(),
        (true, false) => (**yc).clone(),
        _ => return false,
    };
    let (t, i) = (*t, *i);
    let from = value
        .sym
        .clone()
        .unwrap_or_else(|| Size::Rem(Box::new(Size::Loop(t)), Box::new(n.clone())));
    let mut rest = (**rest).clone();
    swap_syms(&mut rest, &from, &Size::Loop(i));
    if rest.mentions(t) {
        return false;
    }
    let (n, nv) = (n.clone(), (**nv).clone());
    let Kind::Ifold(_, init, acc, _, _) = e.take().kind else {
        unreachable!("matched above");
    };
    let span = e.span;
    let ty = init.ty.clone();
    let (u, s) = (new_var(names, acc), new_var(names, t));
    let mut count = nv;
    count.sym = Some(n);
    let inner = Core::new(
        Kind::Ifold(
            Box::new(count),
            Box::new(Core::new(Kind::Var(u), ty.clone(), span)),
            acc,
            i,
            Box::new(rest),
        ),
        ty.clone(),
        span,
    );
    *e = Core::new(
        Kind::Ifold(Box::new(rounds), init, u, s, Box::new(inner)),
        ty,
        span,
    );
    true
}

/// Every symbolic value in `e` with `from` replaced by `to` (the point `t % n` become the
/// inner loop's index).
fn swap_syms(e: &mut Core, from: &Size, to: &Size) {
    fn swap(s: &Size, from: &Size, to: &Size) -> Size {
        if s == from {
            return to.clone();
        }
        let b = |x: &Size| Box::new(swap(x, from, to));
        match s {
            Size::Add(a, c) => Size::Add(b(a), b(c)),
            Size::Sub(a, c) => Size::Sub(b(a), b(c)),
            Size::Mul(a, c) => Size::Mul(b(a), b(c)),
            Size::Div(a, c) => Size::Div(b(a), b(c)),
            Size::Rem(a, c) => Size::Rem(b(a), b(c)),
            other => other.clone(),
        }
    }
    if let Some(s) = &e.sym {
        e.sym = Some(swap(s, from, to));
    }
    for c in e.children_mut() {
        swap_syms(c, from, to);
    }
}

/// `let m = build(d, |j| scan(n, init, |s, i| step)); body`, a scan of one scalar state
/// per element over a count free of the element, read in `body` only element by element
/// as `m[a][b]`, becomes one scan of an array state whose rows are `m`'s columns:
///
/// ```text
/// let r = scan(n, build(d, |j| init), |u, i| build(d, |j| { let s = u[j]; step }));
/// body[m[a][b] := r[b][a]]
/// ```
///
/// One form for `transpose(build(d, |j| scan(n, ..)))` (running sums per feature by
/// column) and the scan of rows, `scan(n, zeros, |s, i| add(s, x[i]))`: the signal is read
/// once, row by row, and the states written as the result's rows, where the columns took
/// `n * d` slots of the frame. Each state sees the same operations in the same order.
/// True when it applied.
pub fn transposed_scans(e: &mut Core, names: &mut Vec<String>) -> bool {
    let Kind::Let(m, value, body) = &e.kind else {
        return false;
    };
    let Kind::Build(d, j, scan) = &value.kind else {
        return false;
    };
    let Kind::Scan(n, _, _, _, _) = &scan.kind else {
        return false;
    };
    let state = match &scan.ty {
        Type::Arr(_, dims) if dims.len() == 1 => scan.ty.elem(),
        _ => return false,
    };
    if !matches!(state, Type::F64 | Type::F32 | Type::Usize)
        || Core::size(n.clone(), scan.span).mentions(*j)
        || !read_transposed(body, *m, &mut Vec::new())
    {
        return false;
    }
    let (m, j, d, n) = (*m, *j, d.clone(), n.clone());
    let Kind::Let(_, value, body) = e.take().kind else {
        unreachable!("matched above");
    };
    let Kind::Build(_, _, scan) = value.kind else {
        unreachable!("matched above");
    };
    let span = scan.span;
    let Kind::Scan(_, init, s, i, step) = scan.kind else {
        unreachable!("matched above");
    };
    let row = Type::array_of(&state, d.clone()).unwrap_or_else(|| unreachable!());
    let rows = Type::array_of(&row, n.clone()).unwrap_or_else(|| unreachable!());
    let u = new_var(names, s);
    let r = new_var(names, m);
    let init = Core::new(Kind::Build(d.clone(), j, init), row.clone(), span);
    let own = Core::read_at(u, &row, j, span);
    let step_ty = step.ty.clone();
    let step = Core::new(Kind::Let(s, Box::new(own), step), step_ty, span);
    let step = fresh(
        Core::new(Kind::Build(d, j, Box::new(step)), row, span),
        names,
    );
    let scan = Core::new(
        Kind::Scan(n, Box::new(init), u, i, Box::new(step)),
        rows.clone(),
        span,
    );
    let mut body = *body;
    swap_reads(&mut body, m, r, &rows);
    let ty = body.ty.clone();
    *e = Core::new(Kind::Let(r, Box::new(scan), Box::new(body)), ty, span);
    true
}

/// Whether every read of `m` in `e` is an element `m[a][b]` read across its rows: `a` the
/// index of a loop inside the one of `b` (`transpose`'s `build(n, |i| build(d, |j|
/// m[j][i]))`), so that the scan of rows is read row by row. (`loops`: the indexes of the
/// loops around `e`, outermost first. Read along its rows, `m[r][c]` inside a loop over
/// `c` within one over `r`, the columns are the right layout already: an integral image's
/// rows of running sums read by the scan down the rows.)
fn read_transposed(e: &Core, m: VarId, loops: &mut Vec<VarId>) -> bool {
    if let Kind::Index(a, b) = &e.kind
        && let Kind::Index(v, inner) = &a.kind
        && matches!(v.kind, Kind::Var(x) if x == m)
    {
        let depth = |k: &Core| match k.kind {
            Kind::Var(x) => loops.iter().position(|l| *l == x),
            _ => None,
        };
        let across = matches!((depth(inner), depth(b)), (Some(r), Some(c)) if c < r);
        return !e.ty.is_arr()
            && across
            && read_transposed(inner, m, loops)
            && read_transposed(b, m, loops);
    }
    let bound = match &e.kind {
        Kind::Var(x) => return *x != m,
        Kind::Build(_, i, _) => Some(*i),
        Kind::Ifold(_, _, _, i, _) | Kind::Scan(_, _, _, i, _) => Some(*i),
        _ => None,
    };
    loops.extend(bound);
    let all = e.children().all(|c| read_transposed(c, m, loops));
    if bound.is_some() {
        loops.pop();
    }
    all
}

/// Every `m[a][b]` in `e` read as `r[b][a]` (`r` of type `rows`).
fn swap_reads(e: &mut Core, m: VarId, r: VarId, rows: &Type) {
    if let Kind::Index(a, b) = &mut e.kind
        && let Kind::Index(v, inner) = &mut a.kind
        && matches!(v.kind, Kind::Var(x) if x == m)
    {
        let span = v.span;
        let (outer, inner) = (b.take(), inner.take());
        let row = rows.elem();
        let read = Core::new(
            Kind::Index(
                Box::new(Core::new(Kind::Var(r), rows.clone(), span)),
                Box::new(outer),
            ),
            row,
            span,
        );
        **a = read;
        **b = inner;
    }
    for c in e.children_mut() {
        swap_reads(c, m, r, rows);
    }
}

/// `build(m, |k| { lets; let s = ifold(n, init, |acc, i| step); rest })`, with `m` a
/// literal of at most 16 (`LANES_MAX`), `n` free of `k` and of the `lets` (each small and
/// loop-free), a state of scalars (one, or a tuple of at most 4 (`PARTS_MAX`)), and a step
/// reading some array at an index of `i` that every element reads alike (the signal `x[i]`)
/// (and not a sum, `acc + t`; for a tuple state, a step running no loop of its own, which
/// each component's `build` would run again) becomes
///
/// ```text
/// let t = ifold(n, (build(m, |k| { lets; init.0 }), ..),
///               |u, i| (build(m, |k| { lets; let acc = (u.0[k], ..); step.0 }), ..));
/// build(m, |k| { lets; let s = (t.0[k], ..); rest })
/// ```
///
/// and so does the sum of those elements, `ifold(m, z, |a, k| a + { lets; .. })` (fusion's
/// form of `sum(map(c, ..))`), its term rewritten as the `build`'s element is. Each
/// element's state sees the same operations in the same order: the values are the same
/// bits. True when it applied.
pub fn interchange_loop(e: &mut Core, names: &mut Vec<String>) -> bool {
    let (m, k, sum) = match &e.kind {
        Kind::Build(m, k, _) => (m.clone(), *k, None),
        Kind::Ifold(count, _, acc, k, body) => match (&count.sym, &body.kind) {
            (Some(m), Kind::Bin(BinOp::Add, a, t, _))
                if matches!(a.kind, Kind::Var(v) if v == *acc) && !t.mentions(*acc) =>
            {
                (m.clone(), *k, Some(*acc))
            }
            _ => return false,
        },
        _ => return false,
    };
    // A count known only at run time: both forms, the interchanged one under `m <= 16`.
    // (Not a count of an enclosing loop's index: the test reads sizes known at entry.)
    let original = match m.as_const() {
        Some(l) if (2..=LANES_MAX).contains(&l) => None,
        None if !m.has_loop() => Some(e.clone()),
        _ => return false,
    };
    let elem = match &mut e.kind {
        Kind::Build(_, _, body) => &mut **body,
        Kind::Ifold(_, _, _, _, body) => match &mut body.kind {
            Kind::Bin(_, _, t, _) if sum.is_some() => &mut **t,
            _ => return false,
        },
        _ => return false,
    };
    let Some((t, fold)) = lift(elem, &m, k, original.is_some(), names) else {
        return false;
    };
    let (ty, span) = (e.ty.clone(), e.span);
    *e = Core::new(
        Kind::Let(t, Box::new(fold), Box::new(e.take())),
        ty.clone(),
        span,
    );
    if let Some(original) = original {
        let fits = Core::new(
            Kind::Bin(
                BinOp::Le,
                Box::new(Core::size(m, span)),
                Box::new(Core::size(Size::Lit(LANES_MAX), span)),
                String::new(),
            ),
            Type::Bool,
            span,
        );
        let original = fresh(original, names);
        *e = Core::new(
            Kind::If(Box::new(fits), Box::new(e.take()), Box::new(original)),
            ty,
            span,
        );
    }
    true
}

/// The fold of [`interchange_loop`] taken out of `elem`, the element of a loop of `m` steps
/// at index `k`: `elem` rewritten to read its state from the new fold, which is returned
/// with the variable to bind it to. `None`, `elem` untouched, where the rule does not apply.
fn lift(
    elem: &mut Core,
    m: &Size,
    k: VarId,
    run_time: bool,
    names: &mut Vec<String>,
) -> Option<(VarId, Core)> {
    // The `let`s before the fold, and the fold, bound by a `let` or the element itself.
    let mut prefix: Vec<(VarId, &Core)> = Vec::new();
    let mut at = &*elem;
    let fold = loop {
        match &at.kind {
            Kind::Ifold(..) => break at,
            Kind::Let(_, v, _) if matches!(v.kind, Kind::Ifold(..)) => break &**v,
            Kind::Let(x, v, b) if cheap_prefix(v, run_time) => {
                prefix.push((*x, &**v));
                at = b;
            }
            _ => return None,
        }
    };
    let Kind::Ifold(n, _, acc, i, step) = &fold.kind else {
        return None;
    };
    // A sum's folds are the lowering's to interchange (a product's rows accumulated in
    // place, in tiles and groups of rows), with every order of its loops weighed.
    if adds_to(step, *acc) {
        return None;
    }
    let parts: Vec<Type> = match &fold.ty {
        Type::Tuple(ts) if ts.len() <= PARTS_MAX => ts.clone(),
        Type::Tuple(_) => return None,
        t => vec![t.clone()],
    };
    // Each component's new value is computed in a `build` of its own: a step running a loop
    // (k-means' distance to each centre) would run it once per component.
    if parts.iter().any(|t| t.is_arr() || t.is_tuple()) || parts.len() > 1 && step.runs_loop() {
        return None;
    }
    let mut local: Vec<VarId> = prefix.iter().map(|(x, _)| *x).collect();
    local.push(k);
    if local.iter().any(|v| n.mentions(*v)) || !shared_read(step, *i, &local) {
        return None;
    }
    let arrays: Vec<Type> = parts
        .iter()
        .filter_map(|t| Type::array_of(t, m.clone()))
        .collect();
    if arrays.len() != parts.len() {
        return None;
    }
    let prefix: Vec<(VarId, Core)> = prefix.into_iter().map(|(x, v)| (x, v.clone())).collect();
    let tuple = fold.ty.is_tuple();
    let (span, elem_ty) = (elem.span, elem.ty.clone());
    // Take the fold out of the element: `rest` keeps the `let`s after it.
    let mut slot = &mut *elem;
    for _ in 0..prefix.len() {
        let Kind::Let(_, _, b) = &mut slot.kind else {
            unreachable!("the prefix was read from this chain");
        };
        slot = b;
    }
    let (s, fold, rest) = match slot.take() {
        Core {
            kind: Kind::Let(s, fold, rest),
            ..
        } => (s, *fold, rest),
        fold => {
            let s = new_var(names, k);
            let rest = Core::new(Kind::Var(s), fold.ty.clone(), span);
            (s, fold, Box::new(rest))
        }
    };
    // The new fold and its states are the user's fold: remarks about them point there.
    let span = fold.span;
    let Kind::Ifold(count, init, acc, i, step) = fold.kind else {
        unreachable!("checked above");
    };
    let state_ty = match tuple {
        true => Type::Tuple(arrays.clone()),
        false => arrays[0].clone(),
    };
    // The fold's state and the element `k` of each of its arrays.
    let u = new_var(names, acc);
    let elems = |state: VarId, k: VarId| -> Core {
        let var = Core::new(Kind::Var(state), state_ty.clone(), span);
        let items: Vec<Core> = (0..parts.len())
            .map(|p| {
                let array = match tuple {
                    true => Core::new(
                        Kind::Proj(Box::new(var.clone()), p),
                        arrays[p].clone(),
                        span,
                    ),
                    false => var.clone(),
                };
                let index = Box::new(Core::index_var(k, span));
                Core::new(Kind::Index(Box::new(array), index), parts[p].clone(), span)
            })
            .collect();
        match tuple {
            true => Core::new(Kind::Tuple(items), Type::Tuple(parts.clone()), span),
            false => items.into_iter().next().unwrap_or_else(|| unreachable!()),
        }
    };
    // One component of a value per element: `build(m, |k| { lets; binds; part p of v })`,
    // its binders fresh (each copy binds its own).
    let per_lane = |v: &Core, binds: Vec<(VarId, Core)>, p: usize, names: &mut Vec<String>| {
        let mut inner = component(v.clone(), p, tuple, &parts[p]);
        for (x, b) in binds.into_iter().rev().chain(prefix.iter().rev().cloned()) {
            let ty = inner.ty.clone();
            inner = Core::new(Kind::Let(x, Box::new(b), Box::new(inner)), ty, span);
        }
        let b = Core::new(
            Kind::Build(m.clone(), k, Box::new(inner)),
            arrays[p].clone(),
            span,
        );
        fresh(b, names)
    };
    let gather = |items: Vec<Core>| match tuple {
        true => Core::new(Kind::Tuple(items), state_ty.clone(), span),
        false => items.into_iter().next().unwrap_or_else(|| unreachable!()),
    };
    let inits: Vec<Core> = (0..parts.len())
        .map(|p| per_lane(&init, Vec::new(), p, names))
        .collect();
    let steps: Vec<Core> = (0..parts.len())
        .map(|p| per_lane(&step, vec![(acc, elems(u, k))], p, names))
        .collect();
    let new_fold = Core::new(
        Kind::Ifold(
            count,
            Box::new(gather(inits)),
            u,
            i,
            Box::new(gather(steps)),
        ),
        state_ty.clone(),
        span,
    );
    let t = new_var(names, s);
    // The element's own state, read where the fold was.
    let mut inner = Core::new(Kind::Let(s, Box::new(elems(t, k)), rest), elem_ty, span);
    for (x, v) in prefix.into_iter().rev() {
        let ty = inner.ty.clone();
        inner = Core::new(Kind::Let(x, Box::new(v), Box::new(inner)), ty, span);
    }
    *elem = inner;
    Some((t, new_fold))
}

/// Component `p` of `v` (`v` itself for a state of one scalar): taken from the tuple
/// literal at the end of its `let` chain and branches where it has one, else projected.
fn component(v: Core, p: usize, tuple: bool, ty: &Type) -> Core {
    if !tuple {
        return v;
    }
    let span = v.span;
    match v.kind {
        Kind::Tuple(mut items) if p < items.len() => items.swap_remove(p),
        Kind::Let(x, a, b) => {
            let b = component(*b, p, tuple, ty);
            Core::new(Kind::Let(x, a, Box::new(b)), ty.clone(), span)
        }
        Kind::If(c, a, b) => {
            let (a, b) = (component(*a, p, tuple, ty), component(*b, p, tuple, ty));
            Core::new(Kind::If(c, Box::new(a), Box::new(b)), ty.clone(), span)
        }
        kind => {
            let whole = Core { kind, ..v };
            Core::new(Kind::Proj(Box::new(whole), p), ty.clone(), span)
        }
    }
}

/// True when `step` is `acc + t` after its `let`s, none of which reads `acc`: a sum.
fn adds_to(step: &Core, acc: VarId) -> bool {
    match &step.kind {
        Kind::Let(_, v, b) => !v.mentions(acc) && adds_to(b, acc),
        Kind::Bin(BinOp::Add, a, t, _) => {
            matches!(a.kind, Kind::Var(v) if v == acc) && !t.mentions(acc)
        }
        _ => false,
    }
}

/// True when a `let` before the fold may be computed again in each step of the new fold:
/// small and loop-free at a literal count; at a run-time count, where the lanes may be many
/// and the loop over them is the inner one, only an element read or a value read as is
/// (`let ck = c[k]`), which costs what reading the `let` would.
fn cheap_prefix(v: &Core, run_time: bool) -> bool {
    if !run_time {
        return nodes(v) <= PREFIX_NODES_MAX && !v.runs_loop();
    }
    match &v.kind {
        Kind::Var(_) | Kind::Float(_) | Kind::Bool(_) | Kind::Size(_) => true,
        Kind::Index(a, i) => {
            matches!(a.kind, Kind::Var(_)) && matches!(i.kind, Kind::Var(_) | Kind::Size(_))
        }
        _ => false,
    }
}

/// True when `step` reads an array free of every variable of `local` at an index of `i`
/// free of them too: a read every element's fold makes alike, which one fold makes once.
fn shared_read(step: &Core, i: VarId, local: &[VarId]) -> bool {
    if let Kind::Index(a, idx) = &step.kind
        && idx.mentions(i)
        && local.iter().all(|v| !a.mentions(*v) && !idx.mentions(*v))
    {
        return true;
    }
    step.children().any(|c| shared_read(c, i, local))
}

#[cfg(test)]
#[path = "interchange_tests.rs"]
pub(crate) mod tests;
