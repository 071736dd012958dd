//! `equal`: inside `if a == b { e }`, the branch knows its condition (LANGUAGE.md section
//! 13). Where one side is a loop index that the other side does not read, the branch reads
//! the other side in its place: `build(m, |j| if j == r { h[j] + 1 } else { h[j] })` becomes
//! `if j == r { h[r] + 1 } else { h[j] }`, so an update of one row is recognised (and runs in
//! place) whichever index its new row reads. The `else` of `!=` knows the same.
//!
//! One canonical form per meaning: the index replaced is the innermost loop's of the two
//! (a diagonal's `if i == j` reads `i` in its branch), and only `usize` equality counts
//! (float `==` holds between `0.0` and `-0.0`, whose reads differ). The other side is
//! evaluated once more, in the branch: it must bind nothing (no loop, no `let`), and it has
//! already been evaluated without error by the condition.

use crate::front::ast::BinOp;
use crate::front::size::Size;
use crate::middle::ir::{Core, Kind, Type, VarId};
use std::collections::HashSet;

/// Apply the rule everywhere in `e`.
pub fn substitute(e: &mut Core) {
    walk(e, &mut Vec::new());
}

/// `hoist_indexes` alone, everywhere in `e`: after common subexpressions, which bind an
/// index's test read twice (`j != r` and `h[r]`) inside the `build` again.
pub fn hoist_all_indexes(e: &mut Core) {
    hoist_indexes(e);
    for c in e.children_mut() {
        hoist_all_indexes(c);
    }
}

/// `loops`: the indexes of the enclosing loops, outermost first.
fn walk(e: &mut Core, loops: &mut Vec<VarId>) {
    hoist_indexes(e);
    while merge_choices(e) {}
    match &mut e.kind {
        Kind::Build(_, i, body) => {
            loops.push(*i);
            walk(body, loops);
            loops.pop();
        }
        Kind::Ifold(n, init, _, i, body) => {
            walk(n, loops);
            walk(init, loops);
            loops.push(*i);
            walk(body, loops);
            loops.pop();
        }
        Kind::Scan(_, init, _, i, body) => {
            walk(init, loops);
            loops.push(*i);
            walk(body, loops);
            loops.pop();
        }
        Kind::If(c, a, b) => {
            walk(c, loops);
            walk(a, loops);
            walk(b, loops);
            if let Some((eq, x, by)) = known(c, loops) {
                let branch = if eq { a } else { b };
                branch.subst(x, &by);
            }
        }
        _ => {
            for c in e.children_mut() {
                walk(c, loops);
            }
        }
    }
}

/// Two choices on one condition, the second reading the first: `let v = if c { a } else
/// { b }; if c { f } else { g }` ~> `if c { let v = a; f } else { g[v := b] }`, when `g` reads
/// `v` at most once and holds no loop or `let` (`b` is not computed twice). Reverse mode writes this: the adjoint of
/// `x[i] * x[i]` adds into row `i` twice, one choice per factor, and as one choice the update
/// of that row is recognised (and runs in place). Sound because the code is pure: the
/// second condition is the first's value.
fn merge_choices(e: &mut Core) -> bool {
    let Kind::Let(v, a, body) = &e.kind else {
        return false;
    };
    let (Kind::If(c1, _, y), Kind::If(c2, _, g)) = (&a.kind, &body.kind) else {
        return false;
    };
    let v = *v;
    if crate::middle::cse::key(c1) != crate::middle::cse::key(c2)
        || c1.mentions(v)
        || g.count_uses(v) > 1
        || binds(y)
        || binds(g)
    {
        return false;
    }
    let (ty, sym, span) = (e.ty.clone(), e.sym.clone(), e.span);
    let Kind::Let(_, a, body) = e.take().kind else {
        return false;
    };
    let (Kind::If(c, x, y), Kind::If(_, f, mut g)) = (a.kind, body.kind) else {
        return false;
    };
    g.subst(v, &y);
    // Read once in the `then` branch too: written there (`old + a + b`, one row's new value).
    let then = if f.count_uses(v) <= 1 && !binds(&f) && !binds(&x) {
        let mut f = *f;
        f.subst(v, &x);
        f
    } else {
        Core {
            ty: ty.clone(),
            sym: sym.clone(),
            span,
            kind: Kind::Let(v, x, f),
        }
    };
    *e = Core {
        kind: Kind::If(c, Box::new(then), g),
        ty,
        sym,
        span,
    };
    true
}

/// For a condition `x == y` (or `!=`, then `eq` is false) between `usize` values where one
/// side is a loop index the other does not read: that index, and the other side to read in
/// its place. Of two loop indexes, the inner one is replaced.
fn known(c: &Core, loops: &[VarId]) -> Option<(bool, VarId, Core)> {
    let Kind::Bin(op @ (BinOp::Eq | BinOp::Ne), a, b, _) = &c.kind else {
        return None;
    };
    if a.ty != Type::Usize || b.ty != Type::Usize {
        return None;
    }
    let depth = |e: &Core| match e.kind {
        Kind::Var(v) => loops.iter().position(|x| *x == v),
        _ => None,
    };
    let (x, by) = match (depth(a), depth(b)) {
        (Some(da), Some(db)) if da > db => (a, b),
        (Some(_), Some(_)) => (b, a),
        (Some(_), None) => (a, b),
        (None, Some(_)) => (b, a),
        (None, None) => return None,
    };
    let Kind::Var(v) = x.kind else { return None };
    if by.mentions(v) || binds(by) {
        return None;
    }
    Some((*op == BinOp::Eq, v, (**by).clone()))
}

/// The index a `build`'s element tests its own index against (`j == r`, `j != r`), computed
/// from values `j` does not change, moved before the `build` with the `let`s it reads:
/// `build(m, |j| if j == x[i].min(b - 1) { .. } else { .. })` (where `min` is `let`s) is
/// `let a = x[i]; let c = b - 1; build(m, |j| if j == (if c < a { c } else { a }) ..)`, the
/// form whose other side binds nothing, as a `let bin = ..` written before the `build` is.
/// One canonical form for an index written inline or bound first.
///
/// Only `usize` and `bool` values move (indexes and their tests). A value that may fail (a
/// load, `usize` arithmetic) is computed only for a non-empty `build`: `if 0 < m { v } else
/// { 0 }` (nothing reads it otherwise), as the `build` would have.
fn hoist_indexes(e: &mut Core) {
    let Kind::Build(m, j, body) = &mut e.kind else {
        return;
    };
    let j = *j;
    // `if (let a = v in c) ..` and `j != (let a = v in r)`: the condition is evaluated
    // first and whole, so its `let`s go to the head of the element.
    let mut lets: Lets = Vec::new();
    let mut cur = body.take();
    loop {
        float_condition_lets(&mut cur);
        match cur.kind {
            Kind::Let(x, v, rest) => {
                lets.push((x, *v));
                cur = *rest;
            }
            _ => break,
        }
    }
    // What the test's other side reads, through the `let`s (last first): those move.
    let mut needed = HashSet::new();
    if let Some(other) = tested_against(&cur, j) {
        other.occurring(&mut needed);
    }
    let mut wanted = vec![false; lets.len()];
    for (k, (x, v)) in lets.iter().enumerate().rev() {
        if needed.contains(x) {
            wanted[k] = true;
            v.occurring(&mut needed);
        }
    }
    let (mut moved, mut kept): (Lets, Lets) = (vec![], vec![]);
    for ((x, v), wanted) in lets.into_iter().zip(wanted) {
        let blocked = kept.iter().any(|(y, _)| v.mentions(*y));
        let index = matches!(v.ty, Type::Usize | Type::Bool) && !v.mentions(j);
        if wanted && index && !blocked {
            moved.push((x, v));
        } else {
            kept.push((x, v));
        }
    }
    if moved.is_empty() {
        **body = rewrap(kept, cur);
        return;
    }
    let nonempty = m.as_const().is_some_and(|c| c > 0);
    let count = Core::size(m.clone(), e.span);
    **body = rewrap(kept, cur);
    let build = e.take();
    let moved = moved
        .into_iter()
        .map(|(x, v)| {
            if nonempty || cannot_fail(&v) {
                return (x, v);
            }
            let span = v.span;
            let zero = Core::size(Size::Lit(0), span);
            let some = Core::new(
                Kind::Bin(
                    BinOp::Lt,
                    Box::new(zero.clone()),
                    Box::new(count.clone()),
                    String::new(),
                ),
                Type::Bool,
                span,
            );
            // Nothing reads the other value: `0`, or `false` for a test.
            let unread = match v.ty {
                Type::Bool => Core::new(Kind::Bool(false), Type::Bool, span),
                _ => zero,
            };
            // Its symbolic value holds wherever it is read: inside the `build`, non-empty.
            let (sym, ty) = (v.sym.clone(), v.ty.clone());
            let mut guarded = Core::new(
                Kind::If(Box::new(some), Box::new(v), Box::new(unread)),
                ty,
                span,
            );
            guarded.sym = sym;
            (x, guarded)
        })
        .collect();
    *e = rewrap(moved, build);
}

/// For an element `if j == r { .. } else { .. }` (or `r == j`, or `!=`): `r`.
fn tested_against(e: &Core, j: VarId) -> Option<&Core> {
    let Kind::If(c, ..) = &e.kind else {
        return None;
    };
    let Kind::Bin(BinOp::Eq | BinOp::Ne, a, b, _) = &c.kind else {
        return None;
    };
    let is_j = |x: &Core| matches!(x.kind, Kind::Var(v) if v == j);
    match (is_j(a), is_j(b)) {
        (true, false) => Some(b),
        (false, true) => Some(a),
        _ => None,
    }
}

/// `let`s, in order: each variable and its value.
type Lets = Vec<(VarId, Core)>;

/// `let`s around `body`, the first outermost.
fn rewrap(lets: Lets, body: Core) -> Core {
    lets.into_iter().rev().fold(body, |b, (x, v)| {
        let (ty, sym, span) = (b.ty.clone(), b.sym.clone(), b.span);
        Core {
            kind: Kind::Let(x, Box::new(v), Box::new(b)),
            ty,
            sym,
            span,
        }
    })
}

/// `if (let a = v in c) t else f ~> let a = v in if c t else f`, and the same for a `let`
/// in either operand of a comparison whose other operand is a variable (it cannot fail, so
/// the order of evaluation is unchanged). Variables are unique: nothing is captured.
fn float_condition_lets(mut e: &mut Core) {
    loop {
        let Kind::If(c, ..) = &mut e.kind else {
            return;
        };
        let Some(slot) = condition_let(c) else {
            return;
        };
        let Kind::Let(x, v, rest) = slot.take().kind else {
            unreachable!("condition_let finds a let")
        };
        *slot = *rest;
        let inner = e.take();
        *e = rewrap(vec![(x, *v)], inner);
        let Kind::Let(_, _, rest) = &mut e.kind else {
            unreachable!("made above")
        };
        e = rest;
    }
}

/// The `let` a condition starts with: the condition itself, or an operand of a comparison
/// whose other operand is a variable.
fn condition_let(c: &mut Core) -> Option<&mut Core> {
    if matches!(c.kind, Kind::Let(..)) {
        return Some(c);
    }
    let Kind::Bin(_, a, b, _) = &mut c.kind else {
        return None;
    };
    let is_let = |x: &Core| matches!(x.kind, Kind::Let(..));
    let is_var = |x: &Core| matches!(x.kind, Kind::Var(_));
    if is_let(a) && is_var(b) {
        Some(a)
    } else if is_let(b) && is_var(a) {
        Some(b)
    } else {
        None
    }
}

/// Whether evaluating `e` can fail: loads and `usize` arithmetic can, comparisons, choices
/// and values cannot.
fn cannot_fail(e: &Core) -> bool {
    let own = match &e.kind {
        Kind::Var(_) | Kind::Size(_) | Kind::Float(_) | Kind::Bool(_) | Kind::If(..) => true,
        Kind::Not(_) => true,
        Kind::Bin(op, ..) => matches!(
            op,
            BinOp::Lt
                | BinOp::Le
                | BinOp::Gt
                | BinOp::Ge
                | BinOp::Eq
                | BinOp::Ne
                | BinOp::And
                | BinOp::Or
        ),
        _ => false,
    };
    own && e.children().all(cannot_fail)
}

/// Whether `e` binds a variable (a `let` or a loop): a copy of it would bind it twice, and a
/// loop is no value to compute again.
fn binds(e: &Core) -> bool {
    matches!(
        e.kind,
        Kind::Let(..) | Kind::Build(..) | Kind::Ifold(..) | Kind::Scan(..)
    ) || e.children().any(binds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::ast::Sp;
    use crate::front::size::Size;

    fn sp() -> Sp {
        Sp::from(proc_macro2::Span::call_site())
    }

    fn var(v: VarId) -> Core {
        let mut c = Core::new(Kind::Var(v), Type::Usize, sp());
        c.sym = Some(Size::Loop(v));
        c
    }

    fn eq(op: BinOp, a: Core, b: Core) -> Core {
        Core::new(
            Kind::Bin(op, Box::new(a), Box::new(b), String::new()),
            Type::Bool,
            sp(),
        )
    }

    fn build(i: VarId, body: Core) -> Core {
        let ty = Type::Arr(crate::middle::ir::Scalar::Usize, vec![Size::Lit(4)]);
        Core::new(Kind::Build(Size::Lit(4), i, Box::new(body)), ty, sp())
    }

    fn iff(c: Core, a: Core, b: Core) -> Core {
        Core::new(
            Kind::If(Box::new(c), Box::new(a), Box::new(b)),
            Type::Usize,
            sp(),
        )
    }

    /// The branch `if` of a build's body.
    fn branches(e: &Core) -> (&Core, &Core) {
        let Kind::Build(_, _, body) = &e.kind else {
            panic!()
        };
        let Kind::If(_, a, b) = &body.kind else {
            panic!()
        };
        (a, b)
    }

    #[test]
    fn two_choices_on_one_condition_are_one() {
        // A second choice on the same test reading the first: one `if`, whose `else` reads
        // `a[p]` as written. Read twice in the `else`, or a loop there: left as written.
        let ifs = |src: &str| {
            let k = crate::middle::fuse::tests::optimized(src);
            crate::middle::fuse::tests::count(&k.body, &|k| matches!(k, Kind::If(..)))
        };
        let one = "pub fn k(a: [f64; n], r: usize) -> [f64; n] {
            build(n, |p| { let v = if p == r { a[r] + 1.0 } else { a[p] }; if p == r { v + 2.0 } else { v } })
        }";
        assert_eq!(ifs(one), 1);
        let twice = "pub fn k(a: [f64; n], r: usize) -> [f64; n] {
            build(n, |p| { let v = if p == r { a[r] + 1.0 } else { a[p].exp() }; if p == r { v + 2.0 } else { v * v } })
        }";
        assert_eq!(ifs(twice), 2);
        let other = "pub fn k(a: [f64; n], r: usize, q: usize) -> [f64; n] {
            build(n, |p| { let v = if p == r { a[r] + 1.0 } else { a[p] }; if p == q { v + 2.0 } else { v } })
        }";
        assert_eq!(ifs(other), 2);
    }

    #[test]
    fn the_branch_reads_the_other_side_for_the_loop_index() {
        // build(4, |j| if j == r { j } else { j }), r (id 0) free: the then-branch reads r.
        let mut e = build(1, iff(eq(BinOp::Eq, var(1), var(0)), var(1), var(1)));
        substitute(&mut e);
        let (a, b) = branches(&e);
        assert!(matches!(a.kind, Kind::Var(0)));
        assert!(
            matches!(b.kind, Kind::Var(1)),
            "the else branch knows nothing"
        );
        // `r == j` and `!=` (the else branch) alike.
        let mut e = build(1, iff(eq(BinOp::Ne, var(0), var(1)), var(1), var(1)));
        substitute(&mut e);
        let (a, b) = branches(&e);
        assert!(matches!(a.kind, Kind::Var(1)));
        assert!(matches!(b.kind, Kind::Var(0)));
    }

    #[test]
    fn of_two_loop_indexes_the_inner_one_is_replaced() {
        // build(4, |i| build(4, |j| if i == j { j } else { i })).
        let inner = build(1, iff(eq(BinOp::Eq, var(0), var(1)), var(1), var(0)));
        let mut e = build(0, inner);
        substitute(&mut e);
        let Kind::Build(_, _, inner) = &e.kind else {
            panic!()
        };
        let (a, _) = branches(inner);
        assert!(matches!(a.kind, Kind::Var(0)));
    }

    #[test]
    fn nothing_known_without_a_loop_index_or_with_floats() {
        // Two free variables: no loop index to replace.
        let mut e = iff(eq(BinOp::Eq, var(0), var(1)), var(1), var(0));
        substitute(&mut e);
        let Kind::If(_, a, _) = &e.kind else { panic!() };
        assert!(matches!(a.kind, Kind::Var(1)));
        // A float comparison: `0.0 == -0.0` holds between different values.
        let mut x = var(1);
        x.ty = Type::F64;
        let mut y = var(0);
        y.ty = Type::F64;
        let mut e = build(1, iff(eq(BinOp::Eq, x.clone(), y), var(1), var(1)));
        substitute(&mut e);
        let (a, _) = branches(&e);
        assert!(matches!(a.kind, Kind::Var(1)));
    }
}
