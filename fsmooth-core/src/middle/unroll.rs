//! `unroll`: small fixed loops written out, so that small fixed arrays become scalars.
//!
//! A `build` or an `ifold` whose count is a literal of at most [`MAX_TRIPS`] (the
//! 3-vectors of bundle adjustment, a Kalman filter's 4 x 4 matrices), and whose unrolled
//! body stays within [`BUDGET`] nodes, is written out: `build(3, f) ~> [f(0), f(1), f(2)]`,
//! `ifold(2, a, g) ~> let a1 = g(a, 0) in g(a1, 1)`, innermost loops first. An `ifold` of an
//! array state is one form with its steps written out by hand (LANGUAGE.md section 13): its
//! steps fuse across, and the lowering gives each the place of the one before
//! (`lower/overwrite.rs`); not a fold one of whose steps replaces one row (its update in
//! place would become a copy). Each copy of a
//! body gets fresh variables, so every variable is still bound once.
//!
//! This is what lets [`crate::middle::fuse`]'s literal rules finish the job: `[e0, e1, ..][k] ~> ek`,
//! and a `let`-bound literal whose every read is at a constant index becomes one scalar
//! `let` per element. Such an array is then never stored: it takes no frame slots, and LLVM
//! keeps its elements in registers, as it does with a hand-written kernel's local arrays
//! (the frame is memory the caller owns, so stores to it can never be dropped). Each
//! element is computed once, by the same operations in the same order as the loop did, so
//! results are bit-identical.

use crate::front::ast::BinOp;
use crate::front::size::Size;
use crate::middle::ir::{Core, Kind, Type, VarId, fresh, new_var, nodes};
use crate::middle::simplify::is_trivial;

/// Loops of at most this many iterations are candidates (the loop IR's short fixed loops,
/// which LLVM unrolls completely anyway).
pub const MAX_TRIPS: u64 = 8;

/// The most nodes an unrolled loop may grow to: enough for a 4 x 4 matrix product written
/// out in full, not for an 8 x 8 one (whose rows stay a loop, each row written out).
pub const BUDGET: usize = 1024;

/// The most nodes of code that may be copied into both branches of an `if` whose value is a
/// small literal (see [`crate::middle::fuse`]).
pub const COPY_BUDGET: usize = 256;

/// The most nodes that copies into both branches of such `if`s may add to one kernel.
pub const COPY_TOTAL: usize = 2048;

/// True when `e` ends in an array literal on every path (through `let`s and `if`s).
pub fn literal_tail(e: &Core) -> bool {
    match &e.kind {
        Kind::Array(_) => true,
        Kind::Let(_, _, b) => literal_tail(b),
        Kind::If(_, a, b) => literal_tail(a) && literal_tail(b),
        _ => false,
    }
}

/// Whether a `build`'s element (index `i`) chooses one row, itself an array, and keeps the
/// others: `if i == r { new } else { s[i] }` (or `!=` the other way round). Such a `build` is
/// the step of a fold updating one row in place (`lower/row_updates.rs`); written out it would be a
/// new state a step, copied whole (LANGUAGE.md section 13: unrolling never turns an update in
/// place into a copy). Rows of scalars are written out: the state then lives in locals.
fn replaces_one_row(i: VarId, body: &Core) -> bool {
    body.ty.is_arr() && keeps_all_but_one(i, body)
}

/// Whether a `build`'s element (index `i`) chooses one element or row and keeps the others:
/// `if i == r { new } else { s[i] }` (or `!=` the other way round).
fn keeps_all_but_one(i: VarId, body: &Core) -> bool {
    let Kind::If(c, a, b) = &body.kind else {
        return false;
    };
    let is_i = |e: &Core| matches!(e.kind, Kind::Var(v) if v == i);
    let keep = match &c.kind {
        Kind::Bin(BinOp::Eq, x, y, _) if is_i(x) || is_i(y) => b,
        Kind::Bin(BinOp::Ne, x, y, _) if is_i(x) || is_i(y) => a,
        _ => return false,
    };
    matches!(&keep.kind, Kind::Index(_, k) if is_i(k))
}

/// Unroll every small fixed loop of `e`; `names` gets the copies' variables.
pub fn unroll(e: &mut Core, names: &mut Vec<String>) {
    for c in e.children_mut() {
        unroll(c, names);
    }
    let span = e.span;
    match &e.kind {
        Kind::Build(n, i, body) if !replaces_one_row(*i, body) => {
            if let Some(n) = trips(n.as_const(), body) {
                let items = (0..n)
                    .map(|k| {
                        let mut b = fresh((**body).clone(), names);
                        b.subst(*i, &Core::size(Size::Lit(k), span));
                        b
                    })
                    .collect();
                e.kind = Kind::Array(items);
                e.sym = None;
                written(e);
            }
        }
        // An array state too, written out as a chain of `let`s whose steps fuse and take
        // each other's places (`lower/overwrite.rs`), unless a step replaces one row of it
        // (kept as the fold's update in place).
        Kind::Ifold(n, init, acc, i, body) if !body.ty.is_arr() || !row_update(body) => {
            let count = n.sym.as_ref().and_then(Size::as_const);
            if let Some(n) = trips(count, body) {
                e.kind = written_out(n, init, *acc, *i, body, names).kind;
                written(e);
            }
        }
        _ => {}
    }
}

/// A loop just written out, its copies' constant tests and index arithmetic folded (`if 1 ==
/// 0`, `(1 + 1) % 3`): the size an enclosing loop's [`trips`] measures is then the code that
/// remains, not the copies' dead branches (a face's `sum(build(3, ..))` reversed inside
/// a fold over 3 corners stayed a loop, its rows' indexes computed and checked at run time).
fn written(e: &mut Core) {
    crate::middle::simplify::fold(e);
}

/// Whether `e` holds a `build` replacing one element or row and keeping the others (a
/// scatter's step, a gradient's row update): an update the lowering makes in place.
pub(crate) fn one_update(e: &Core) -> bool {
    matches!(&e.kind, Kind::Build(_, i, body) if keeps_all_but_one(*i, body))
        || e.children().any(one_update)
}

/// Whether `e` holds a `build` replacing one row and keeping the others.
fn row_update(e: &Core) -> bool {
    matches!(&e.kind, Kind::Build(_, i, body) if replaces_one_row(*i, body))
        || e.children().any(row_update)
}

/// The loop's count when it is to be unrolled.
fn trips(count: Option<u64>, body: &Core) -> Option<u64> {
    let n = count?;
    let size = nodes(body);
    (1..=MAX_TRIPS)
        .contains(&n)
        .then_some(n)
        .filter(|n| size.saturating_mul(*n as usize) <= BUDGET)
}

/// `let a1 = g(init, 0) in let a2 = g(a1, 1) in .. g(a(n-1), n - 1)`.
fn written_out(
    n: u64,
    init: &Core,
    acc: VarId,
    i: VarId,
    body: &Core,
    names: &mut Vec<String>,
) -> Core {
    let span = body.span;
    // The steps, each reading the one before through a variable (the first too, unless it
    // costs nothing to repeat).
    let mut steps: Vec<(VarId, Core)> = Vec::new();
    let mut prev = init.clone();
    if !is_trivial(init) {
        let v = new_var(names, acc);
        prev = var(v, init);
        steps.push((v, init.clone()));
    }
    let step = |k: u64, prev: &Core, names: &mut Vec<String>| {
        let mut b = fresh(body.clone(), names);
        b.subst(i, &Core::size(Size::Lit(k), span));
        b.subst(acc, prev);
        b
    };
    for k in 0..n.saturating_sub(1) {
        let b = step(k, &prev, names);
        let v = new_var(names, acc);
        prev = var(v, &b);
        steps.push((v, b));
    }
    let last = step(n.saturating_sub(1), &prev, names);
    crate::middle::anf::wrap(steps, last)
}

/// Variable `v`, bound to `value`.
fn var(v: VarId, value: &Core) -> Core {
    Core {
        kind: Kind::Var(v),
        ty: value.ty.clone(),
        // A `usize` variable stands for its value in index proofs.
        sym: (value.ty == Type::Usize)
            .then(|| value.sym.clone())
            .flatten(),
        span: value.span,
    }
}

#[cfg(test)]
mod tests {
    use crate::middle::fuse::tests::{count, optimized};
    use crate::middle::ir::Kind;

    fn loops(e: &crate::middle::ir::Core) -> usize {
        count(e, &|k| matches!(k, Kind::Build(..) | Kind::Ifold(..)))
    }

    fn stored(e: &crate::middle::ir::Core) -> usize {
        count(e, &|k| matches!(k, Kind::Let(_, a, _) if a.ty.is_arr()))
    }

    #[test]
    fn small_fixed_loops_are_written_out_and_their_arrays_are_not_stored() {
        // `w` is read at every element of the cross product and by the dot product: stored,
        // were it a loop. Written out, every read is at a constant index.
        let k = optimized(
            "pub fn k(a: [f64; 3], b: [f64; 3]) -> f64 {
                let w = add(a, b);
                dot(cross(w, a), w)
            }",
        );
        assert_eq!(loops(&k.body), 0);
        assert_eq!(stored(&k.body), 0);
    }

    #[test]
    fn a_kalman_step_is_written_out_in_full() {
        // The Kalman step of the benchmarks: its 4 x 4 products stay within the budget only
        // if the sums' `-0.0` is measured as the literal it folds to.
        let k = optimized(
            "pub fn k(x: [f64; 4], p: [[f64; 4]; 4], f: [[f64; 4]; 4], q: [[f64; 4]; 4],
                      h: [f64; 4], r: f64, z: f64) -> [[f64; 4]; 5] {
                let xp = matvec(f, x);
                let pp = madd(matmul(matmul(f, p), transpose(f)), q);
                let ph = matvec(pp, h);
                let s = dot(h, ph) + r;
                let xn = add(xp, smul(ph, (z - dot(h, xp)) / s));
                let pn = msub(pp, msmul(outer(ph, ph), 1.0 / s));
                build(5, |i| if i == 0 { xn } else { pn[i - 1] })
            }",
        );
        assert_eq!(loops(&k.body), 0);
        assert_eq!(stored(&k.body), 0);
    }

    #[test]
    fn unroll_false_keeps_the_loops() {
        let src = "#![fsmooth(unroll = false)]
            pub fn k(a: [f64; 3], b: [f64; 3]) -> f64 { let w = add(a, b); dot(cross(w, a), w) }";
        let k = crate::middle::fuse::tests::optimized(src);
        assert!(loops(&k.body) > 0);
        assert!(stored(&k.body) > 0);
    }

    #[test]
    fn sized_and_long_loops_stay_loops() {
        let k = optimized("pub fn k(a: [f64; n]) -> f64 { sum(a) }");
        assert_eq!(loops(&k.body), 1);
        let k = optimized("pub fn k(a: [f64; 9]) -> f64 { sum(a) }");
        assert_eq!(loops(&k.body), 1);
        // 8 x 8 x 8: the rows' loop stays, each row written out.
        let k = optimized(
            "pub fn k(a: [[f64; 8]; 8], b: [[f64; 8]; 8]) -> [[f64; 8]; 8] { matmul(a, b) }",
        );
        assert_eq!(loops(&k.body), 1);
    }

    #[test]
    fn an_if_of_small_literals_takes_the_rest_into_both_branches() {
        // `project`'s rotation: a 3-vector chosen by an `if`, then read element by element.
        let k = optimized(
            "pub fn k(a: [f64; 3], s: f64) -> f64 {
                let v = if s > 0.0 { smul(a, s) } else { add(a, a) };
                v[0] / v[2] + v[1]
            }",
        );
        assert_eq!(stored(&k.body), 0);
        assert!(matches!(k.body.kind, Kind::If(..)), "{:?}", k.body.kind);
    }

    #[test]
    fn a_chain_of_such_ifs_stays_small() {
        // Each `if` would double the code after it: 2^12 copies of the last line, unbounded.
        let lets: String = (0..12)
            .map(|k| format!("let v{k} = if s > {k}.0 {{ smul(a, s) }} else {{ add(a, a) }};"))
            .collect();
        let sum: Vec<String> = (0..12).map(|k| format!("v{k}[0]")).collect();
        let k = optimized(&format!(
            "pub fn k(a: [f64; 3], s: f64) -> f64 {{ {lets} {} }}",
            sum.join(" + ")
        ));
        let size = crate::middle::ir::nodes(&k.body);
        assert!(size < 4 * super::COPY_TOTAL, "{size} nodes");
    }

    #[test]
    fn a_literal_read_at_a_run_time_index_is_stored() {
        let k = optimized(
            "pub fn k(a: [f64; 3], b: [f64; 3], i: usize) -> f64 {
                let w = add(a, b);
                w[i] * w[0] + w[1]
            }",
        );
        assert_eq!(stored(&k.body), 1);
    }

    #[test]
    fn every_binder_of_a_copy_is_new() {
        let k = optimized(
            "pub fn k(a: [[f64; 3]; 3]) -> [f64; 3] {
                build(3, |i| { let s = a[i][0] * 2.0; s * s + sum(a[i]) })
            }",
        );
        let mut seen = Vec::new();
        fn binders(e: &crate::middle::ir::Core, seen: &mut Vec<u32>) {
            match &e.kind {
                Kind::Let(x, ..) | Kind::Build(_, x, _) => {
                    assert!(!seen.contains(x), "{x} bound twice");
                    seen.push(*x);
                }
                Kind::Ifold(_, _, a, i, _) => {
                    for v in [a, i] {
                        assert!(!seen.contains(v), "{v} bound twice");
                        seen.push(*v);
                    }
                }
                _ => {}
            }
            for c in e.children() {
                binders(c, seen);
            }
        }
        binders(&k.body, &mut seen);
        assert_eq!(loops(&k.body), 0);
    }
}
