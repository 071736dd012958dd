//! Fusion through layout views (LANGUAGE.md section 9): reading a `concat`, `join` or `split`
//! never copies.
//!
//! - A `let`-bound view of variables is cheap to rebuild: it is substituted where it is read,
//!   so the rules below see it.
//! - A loop over a `concat` whose index only reads the `concat` (`sum(concat(a, b))`,
//!   `map(concat(a, b), f)`) becomes two loops, one per part: a fold folds `a` then `b`, and
//!   a `build` becomes the `concat` of two `build`s, which the lowering writes in place.
//! - Any other element of a `concat` is a choice between its parts; an element or row of a
//!   reshaped `build` is the `build`'s element at the matching place, so the `build` fuses.

use crate::front::ast::{BinOp, Sp};
use crate::front::size::Size;
use crate::middle::ir::{Core, Kind, Scalar, Type, VarId, fresh};

/// The rules applied on the way down, before the children are visited (a loop must see its
/// `concat` reads before they are turned into choices). True when one applied.
pub fn before(e: &mut Core, names: &mut Vec<String>) -> bool {
    inline_view_let(e) || split_loop(e, names)
}

/// The rules applied on the way up. True when one applied.
pub fn after(e: &mut Core, names: &mut Vec<String>) -> bool {
    let Kind::Index(a, k) = &mut e.kind else {
        return false;
    };
    match &a.kind {
        // An element of a window of a `concat` (`concat(hist, x)[i..i + 8][k]`, an FIR's
        // taps over its history and the signal) is an element of the `concat`.
        Kind::Slice(base, _) if matches!(base.kind, Kind::Concat(..)) => {
            let (ty, span) = (e.ty.clone(), e.span);
            let (Kind::Slice(base, lo), k) = (a.take().kind, k.take()) else {
                return false;
            };
            let at = Core::usize_bin(BinOp::Add, *lo, k, "start + index", span);
            *e = Core::new(Kind::Index(base, Box::new(at)), ty, span);
            after(e, names);
            true
        }
        Kind::Concat(..) => {
            let span = e.span;
            let (Kind::Concat(x, y), k) = (a.take().kind, k.take()) else {
                return false;
            };
            let (binding, k) = bind_index(k, names, span);
            *e = with_binding(binding, choose(*x, *y, k, span));
            true
        }
        Kind::Reshape(inner) if matches!(inner.kind, Kind::Build(..)) || row_of_var(inner) => {
            let span = e.span;
            let (from, to) = (inner.ty.dims().to_vec(), a.ty.dims().to_vec());
            // Only a join or a split: checked before anything is taken apart. A row of a
            // split variable is the `build` of its elements too, which its readers fuse:
            // `split(2, img)[r][a]` is `img[2 * r + a]`, as the user could have written
            // it (a join's element of a variable would be a division: left a view).
            let split = to.len() == from.len() + 1;
            if !split && (from.len() != to.len() + 1 || row_of_var(inner)) {
                return false;
            }
            let (Kind::Reshape(inner), k) = (a.take().kind, k.take()) else {
                return false;
            };
            let (binding, k) = bind_index(k, names, span);
            match reshaped_index(*inner, &from, &to, k, span, names) {
                Some(r) => {
                    *e = with_binding(binding, r);
                    true
                }
                None => false,
            }
        }
        _ => false,
    }
}

/// A variable or a row of one at a few operations of index (`img[2 * r]`): read again
/// where it is needed, it costs that index again (never a loop or a `let`).
fn row_of_var(e: &Core) -> bool {
    match &e.kind {
        Kind::Var(_) => true,
        // A tuple's component (the parts of a fold's state, `crate::middle::state_parts`).
        Kind::Proj(t, _) => matches!(t.kind, Kind::Var(_)),
        Kind::Index(a, k) => e.ty.is_arr() && cheap_index(k) && row_of_var(a),
        _ => false,
    }
}

/// An index of at most 8 nodes that binds nothing.
fn cheap_index(k: &Core) -> bool {
    fn binds(e: &Core) -> bool {
        matches!(
            e.kind,
            Kind::Let(..) | Kind::Build(..) | Kind::Ifold(..) | Kind::Scan(..) | Kind::Iterate(..)
        ) || e.children().any(binds)
    }
    crate::middle::ir::nodes(k) <= 8 && !binds(k)
}

/// A view whose arrays are all variables or their rows: rebuilding it where it is read
/// costs nothing.
fn view_of_vars(e: &Core) -> bool {
    match &e.kind {
        Kind::Var(_) | Kind::Index(..) | Kind::Proj(..) => row_of_var(e),
        Kind::Concat(a, b) => view_of_vars(a) && view_of_vars(b),
        Kind::Reshape(a) => view_of_vars(a),
        _ => false,
    }
}

/// `let x = view in body` ~> `body[x := view]`, for a view of variables.
fn inline_view_let(e: &mut Core) -> bool {
    let Kind::Let(x, a, b) = &mut e.kind else {
        return false;
    };
    let slice_of_view = matches!(&a.kind, Kind::Slice(base, lo)
        if matches!(base.kind, Kind::Concat(..)) && view_of_vars(base) && cheap_index(lo));
    if !slice_of_view
        && (!matches!(a.kind, Kind::Concat(..) | Kind::Reshape(_)) || !view_of_vars(a))
    {
        return false;
    }
    let (x, value, mut body) = (*x, a.take(), b.take());
    body.subst(x, &value);
    *e = body;
    true
}

/// The `concat(a, b)` of variables every use of `i` in `body` reads, `body` reading
/// nothing else of `i`.
fn only_concat_reads(body: &Core, i: VarId) -> Option<(VarId, VarId)> {
    fn walk(e: &Core, i: VarId, found: &mut Option<(VarId, VarId)>, sites: &mut usize) -> bool {
        if let Kind::Index(c, k) = &e.kind
            && matches!(k.kind, Kind::Var(v) if v == i)
            && let Kind::Concat(x, y) = &c.kind
            && let (Kind::Var(x), Kind::Var(y)) = (&x.kind, &y.kind)
        {
            if found.is_some_and(|f| f != (*x, *y)) {
                return false;
            }
            *found = Some((*x, *y));
            *sites += 1;
            return true;
        }
        e.children().all(|c| walk(c, i, found, sites))
    }
    let mut found = None;
    let mut sites = 0;
    if !walk(body, i, &mut found, &mut sites) || sites != body.count_uses(i) {
        return None;
    }
    found
}

/// `body` with every `concat(x, y)[i]` read as `part[i]`.
fn read_part(body: &mut Core, i: VarId, part: &Core) {
    if let Kind::Index(c, k) = &mut body.kind
        && matches!(k.kind, Kind::Var(v) if v == i)
        && matches!(c.kind, Kind::Concat(..))
    {
        let span = c.span;
        **c = part.clone();
        c.span = span;
        return;
    }
    for c in body.children_mut() {
        read_part(c, i, part);
    }
}

/// The variable `v` of type `ty`.
fn var(v: VarId, ty: &Type, span: Sp) -> Core {
    Core::new(Kind::Var(v), ty.clone(), span)
}

/// Split a `build` or `ifold` over `concat(a, b)` into one loop per part.
fn split_loop(e: &mut Core, names: &mut Vec<String>) -> bool {
    let span = e.span;
    let (count, i, body) = match &e.kind {
        Kind::Build(n, i, body) => (Some(n.clone()), *i, &**body),
        Kind::Ifold(n, _, _, i, body) => (n.sym.clone(), *i, &**body),
        _ => return false,
    };
    let Some(count) = count else { return false };
    let Some((x, y)) = only_concat_reads(body, i) else {
        return false;
    };
    let Some((tx, ty)) = find_types(body, x, y) else {
        return false;
    };
    let (nx, ny) = (tx.dims()[0].clone(), ty.dims()[0].clone());
    if !count.same(&Size::plus(nx.clone(), ny.clone())) {
        return false;
    }
    let (px, py) = (var(x, &tx, span), var(y, &ty, span));
    let second = fresh(e.clone(), names);
    match (
        std::mem::replace(&mut e.kind, Kind::Bool(false)),
        second.kind,
    ) {
        (Kind::Build(_, i, mut bx), Kind::Build(_, j, mut by)) => {
            read_part(&mut bx, i, &px);
            read_part(&mut by, j, &py);
            let row = bx.ty.clone();
            let part = |n: Size, v: VarId, b: Box<Core>| {
                let t = Type::Arr(
                    row.scalar().unwrap_or(Scalar::F64),
                    std::iter::once(n.clone())
                        .chain(row.dims().iter().cloned())
                        .collect(),
                );
                Core::new(Kind::Build(n, v, b), t, span)
            };
            e.kind = Kind::Concat(Box::new(part(nx, i, bx)), Box::new(part(ny, j, by)));
        }
        (Kind::Ifold(_, init, acc, i, mut bx), Kind::Ifold(_, _, acc2, j, mut by)) => {
            read_part(&mut bx, i, &px);
            read_part(&mut by, j, &py);
            let t = e.ty.clone();
            let first = Core::new(
                Kind::Ifold(Box::new(Core::size(nx, span)), init, acc, i, bx),
                t,
                span,
            );
            e.kind = Kind::Ifold(Box::new(Core::size(ny, span)), Box::new(first), acc2, j, by);
        }
        (kind, _) => {
            e.kind = kind;
            return false;
        }
    }
    true
}

/// The types of variables `x` and `y` where `body` reads them in a `concat`.
fn find_types(body: &Core, x: VarId, y: VarId) -> Option<(Type, Type)> {
    if let Kind::Concat(a, b) = &body.kind
        && matches!(a.kind, Kind::Var(v) if v == x)
        && matches!(b.kind, Kind::Var(v) if v == y)
    {
        return Some((a.ty.clone(), b.ty.clone()));
    }
    body.children().find_map(|c| find_types(c, x, y))
}

/// `concat(a, b)[k]` ~> `if k < len(a) { a[k] } else { b[k - len(a)] }`.
/// An index that the rules below read more than once: a `k` that binds variables of its own
/// (a `let`, a loop) is bound to a fresh variable, so that its binders are not duplicated
/// (each is bound once in a kernel) and it is computed once; simple arithmetic is copied.
/// The binding, and what to read.
fn bind_index(k: Core, names: &mut Vec<String>, span: Sp) -> (Option<(VarId, Core)>, Core) {
    fn binds(e: &Core) -> bool {
        matches!(
            e.kind,
            Kind::Let(..) | Kind::Build(..) | Kind::Ifold(..) | Kind::Scan(..)
        ) || e.children().any(binds)
    }
    if !binds(&k) {
        return (None, k);
    }
    let t = names.len() as VarId;
    names.push("k".into());
    let mut var = Core::new(Kind::Var(t), k.ty.clone(), span);
    var.sym = k.sym.clone();
    (Some((t, k)), var)
}

/// `body` under the binding [`bind_index`] made, if any.
fn with_binding(binding: Option<(VarId, Core)>, body: Core) -> Core {
    match binding {
        None => body,
        Some((t, k)) => {
            let (ty, span) = (body.ty.clone(), body.span);
            Core::new(Kind::Let(t, Box::new(k), Box::new(body)), ty, span)
        }
    }
}

fn choose(a: Core, b: Core, k: Core, span: Sp) -> Core {
    let n = a.ty.dims()[0].clone();
    let len = Core::size(n.clone(), span);
    let elem = a.ty.elem();
    let before = Core::new(
        Kind::Bin(
            BinOp::Lt,
            Box::new(k.clone()),
            Box::new(len.clone()),
            String::new(),
        ),
        Type::Bool,
        span,
    );
    let rest = Core::usize_bin(BinOp::Sub, k.clone(), len, "concat index", span);
    let at =
        |arr: Core, i: Core| Core::new(Kind::Index(Box::new(arr), Box::new(i)), elem.clone(), span);
    Core::new(
        Kind::If(Box::new(before), Box::new(at(a, k)), Box::new(at(b, rest))),
        elem.clone(),
        span,
    )
}

/// Element or row `k` of `build` seen with dimensions `to` (it has `from`): for a `join`,
/// `build[k / m][k % m]`; for a `split` into rows of m, the row `k` as a `build` over the m
/// elements `build[k * m + l]`. `None` for other reshapes.
fn reshaped_index(
    inner: Core,
    from: &[Size],
    to: &[Size],
    k: Core,
    span: Sp,
    names: &mut Vec<String>,
) -> Option<Core> {
    let usize_op = |op: BinOp, x: &Core, y: &Core, text: &str| {
        Core::usize_bin(op, x.clone(), y.clone(), text, span)
    };
    if from.len() == to.len() + 1 {
        // join: [n, m, rest] seen as [n * m, rest].
        let m = Core::size(from[1].clone(), span);
        let row_ty = inner.ty.elem();
        let row = Core::new(
            Kind::Index(
                Box::new(inner),
                Box::new(usize_op(BinOp::Div, &k, &m, "join row")),
            ),
            row_ty.clone(),
            span,
        );
        return Some(Core::new(
            Kind::Index(
                Box::new(row),
                Box::new(usize_op(BinOp::Rem, &k, &m, "join column")),
            ),
            row_ty.elem(),
            span,
        ));
    }
    if to.len() == from.len() + 1 {
        // split: [n * m, rest] seen as [n, m, rest]; row k is a build over its m elements.
        let m = Core::size(to[1].clone(), span);
        let l = names.len() as VarId;
        names.push("l".into());
        let mut lv = Core::new(Kind::Var(l), Type::Usize, span);
        lv.sym = Some(Size::Loop(l));
        let at = usize_op(
            BinOp::Add,
            &usize_op(BinOp::Mul, &k, &m, "split row"),
            &lv,
            "split element",
        );
        let elem_ty = inner.ty.elem();
        let elem = elem_ty.scalar().unwrap_or(Scalar::F64);
        let body = Core::new(Kind::Index(Box::new(inner), Box::new(at)), elem_ty, span);
        let row_ty = Type::Arr(elem, to[1..].to_vec());
        return Some(Core::new(
            Kind::Build(to[1].clone(), l, Box::new(body)),
            row_ty,
            span,
        ));
    }
    None
}
