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
use crate::middle::ir::{Core, Kind, Type, VarId};

/// Apply the rule everywhere in `e`.
pub fn substitute(e: &mut Core) {
    walk(e, &mut Vec::new());
}

/// `loops`: the indexes of the enclosing loops, outermost first.
fn walk(e: &mut Core, loops: &mut Vec<VarId>) {
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
