//! A `let`-bound array read once, as the element of a `build` at one index (`let row = ..;
//! build(n, |r| if r == i { row } else { l[r] })`, a row update): written where it is read,
//! as if the user had written it there. That branch runs once, so nothing is computed more
//! often, and the row update then computes the row into its place in the state, as the
//! spelling without the `let` does (LANGUAGE.md section 13: a `let` that names an array costs
//! what the expression written where it is read costs).

use crate::front::ast::BinOp;
use crate::middle::ir::{Core, Kind, VarId};

/// Whether the one read of `x` in `e` is at most once per evaluation of `e`: outside every
/// loop of `e` but the branch `if r == k { .. }` of a `build` over `r` (`k` not reading `r`),
/// which runs for one element.
pub(super) fn read_once_placed(e: &Core, x: VarId) -> bool {
    let mut found = 0;
    walk(e, x, false, &mut found) && found == 1
}

/// [`read_once_placed`] below `e`; `in_loop` when some loop around `e` repeats it. False as
/// soon as a read is repeated or not the whole array read at one place.
fn walk(e: &Core, x: VarId, in_loop: bool, found: &mut u32) -> bool {
    if let Kind::Var(v) = e.kind
        && v == x
    {
        *found += 1;
        return !in_loop;
    }
    match &e.kind {
        Kind::Build(_, r, body) => match &body.kind {
            Kind::If(c, then, other) if one_index(c, *r) => {
                walk(c, x, true, found)
                    && walk(then, x, in_loop, found)
                    && walk(other, x, true, found)
            }
            _ => walk(body, x, true, found),
        },
        Kind::Ifold(n, init, _, _, body) => {
            walk(n, x, in_loop, found)
                && walk(init, x, in_loop, found)
                && walk(body, x, true, found)
        }
        Kind::Scan(_, init, _, _, body) => {
            walk(init, x, in_loop, found) && walk(body, x, true, found)
        }
        Kind::Iterate(init, _, cond, _, next) => {
            walk(init, x, in_loop, found)
                && walk(cond, x, true, found)
                && walk(next, x, true, found)
        }
        _ => e.children().all(|c| walk(c, x, in_loop, found)),
    }
}

/// `r == k` or `k == r`, `k` not reading `r`.
fn one_index(c: &Core, r: VarId) -> bool {
    let Kind::Bin(BinOp::Eq, a, b, _) = &c.kind else {
        return false;
    };
    let is_r = |e: &Core| matches!(e.kind, Kind::Var(v) if v == r);
    (is_r(a) && !b.mentions(r)) || (is_r(b) && !a.mentions(r))
}
