//! Unit tests of the reverse sweep, on the core the checker leaves.

use crate::middle::ir::{Core, Kind};

/// The kernel's core as the checker leaves it (derivatives expanded).
fn checked(src: &str) -> Core {
    let mut d = crate::front::diag::Diags::default();
    let mut block = crate::pipeline::front(src.parse().unwrap(), &mut d).unwrap();
    block.kernels.remove(0).body
}

/// The kernel's core printed, as the checker leaves it.
fn printed(src: &str) -> String {
    let mut d = crate::front::diag::Diags::default();
    let mut block = crate::pipeline::front(src.parse().unwrap(), &mut d).unwrap();
    crate::middle::print::kernel(&block.kernels.remove(0))
}

fn count(e: &Core, f: &dyn Fn(&Kind) -> bool) -> usize {
    usize::from(f(&e.kind)) + e.children().map(|c| count(c, f)).sum::<usize>()
}

/// The folds counted by the size `p`.
fn folds_over_p(e: &Core) -> usize {
    count(
        e,
        &|k| matches!(k, Kind::Ifold(n, ..) if matches!(&n.kind, Kind::Size(s) if s.to_string() == "p")),
    )
}

/// The end of `e`'s chain of `let`s.
fn tail(e: &Core) -> &Core {
    match &e.kind {
        Kind::Let(_, _, body) => tail(body),
        _ => e,
    }
}

fn scans(e: &Core) -> usize {
    count(e, &|k| matches!(k, Kind::Scan(..)))
}

#[test]
fn a_sum_fold_is_reversed_without_checkpoints() {
    let e = checked(
        "pub fn k(x: [f64; n], y: [[f64; n]; p]) -> (f64, [f64; n]) {
            grad(|w| ifold(p, 0.0, |acc, i| acc + dot(w, y[i]).exp()), x)
        }",
    );
    assert_eq!(scans(&e), 0);
}

#[test]
fn a_sum_fold_s_value_is_summed_by_its_sweep() {
    // One fold over the p steps gives the value and the adjoints (the value is not computed by
    // a fold of its own); `dot(w, w)` sums one array of contributions, not one per operand.
    let e = checked(
        "pub fn k(x: [f64; n], y: [[f64; n]; p]) -> (f64, [f64; n]) {
            grad(|w| { let s = ifold(p, 0.0, |acc, i| acc + dot(w, y[i]).exp()); s * 2.0 + dot(w, w) }, x)
        }",
    );
    assert_eq!(folds_over_p(&e), 1);
    let contributions = count(
        &e,
        &|k| matches!(k, Kind::Ifold(_, init, ..) if init.ty.is_tuple()),
    );
    assert_eq!(contributions, 1);
}

#[test]
fn a_body_that_is_a_sum_fold_is_summed_by_its_sweep() {
    // `grad` of a sum over a batch, written as the closure's whole body: one fold over the
    // p steps gives the value and the adjoints, as for a `let`-bound sum.
    let e = checked(
        "pub fn k(x: [f64; n], y: [[f64; n]; p]) -> (f64, [f64; n]) {
            grad(|w| ifold(p, 0.0, |acc, i| acc + dot(w, y[i]).exp()), x)
        }",
    );
    assert_eq!(folds_over_p(&e), 1);
}

#[test]
fn a_sum_fold_inside_an_expression_is_summed_by_its_sweep() {
    // A mean loss: the sum is an operand, not the body; it is bound by a `let` of its own
    // before the sweep, which then sums it beside the adjoints.
    let e = checked(
        "pub fn k(x: [f64; n], y: [[f64; n]; p]) -> (f64, [f64; n]) {
            grad(|w| 0.5 * ifold(p, 0.0, |acc, i| acc + dot(w, y[i]).exp()) / (p as f64), x)
        }",
    );
    assert_eq!(folds_over_p(&e), 1);
}

#[test]
fn a_sum_that_may_not_be_evaluated_is_not_bound() {
    // The right operand of `&&` runs only when the left one holds: its sum is left in place
    // (computing it anyway could report an error the kernel does not have).
    let out = printed(
        "pub fn k(x: [f64; n], y: [[f64; n]; p], s: usize) -> (f64, [f64; n]) {
            grad(|w| if w[0] > 0.0 && ifold(p, 0.0, |acc, i| acc + w[i % n] * y[i][s]) > 1.0 { w[0] } else { 0.0 }, x)
        }",
    );
    assert!(!out.contains("let sum_"), "{out}");
}

#[test]
fn a_carried_fold_keeps_its_states() {
    let e = checked(
        "pub fn k(x: [f64; n]) -> (f64, [f64; n]) { grad(|w| ifold(n, 1.0, |acc, i| acc * w[i]), x) }",
    );
    assert_eq!(scans(&e), 1);
}

#[test]
fn a_map_s_adjoint_is_a_build_of_its_elements_adjoints() {
    // No fold sums the contributions: element i comes from step i alone.
    let e = checked(
        "pub fn k(x: [f64; n], s: [f64; n]) -> ([f64; n], [f64; n]) { vjp(|w| map(w, |a| a.exp()), x, s) }",
    );
    assert_eq!(count(&e, &|k| matches!(k, Kind::Ifold(..))), 0);
}

#[test]
fn a_carried_fold_counted_by_an_enclosing_loop_is_left_to_forward_mode() {
    // The states of `ifold(i + 1, ..)` have no size before the loops run: `gradients`
    // gives up, and the checker's forward mode has no checkpoints either.
    let e = checked(
        "pub fn k(x: [f64; n], s: [f64; n]) -> ([f64; n], [f64; n]) {
            vjp(|w| build(n, |i| ifold(i + 1, 1.0, |acc, j| acc * w[j])), x, s)
        }",
    );
    assert_eq!(scans(&e), 0);
}

/// GMM's sum over points of a `build` over components, each step a triangle of products
/// (`{over}` the components' values).
const TRIANGLES: &str = "
    pub fn k(d: usize, x: [[f64; d]; p], l: [[f64; d * (d - 1) / 2]; m]) -> (f64, [[f64; d * (d - 1) / 2]; m]) {
        grad(|q| {
            let s = ifold(p, 0.0, |acc, i| acc + {over}(build(m, |c| {
                let t = build(d, |j| ifold(j, x[i][j], |a, e| a + q[c][j * (j - 1) / 2 + e] * x[i][e]));
                sqnorm(t)
            })).exp());
            s
        }, l)
    }";

#[test]
fn an_expensive_row_of_a_build_step_is_kept_for_the_sweep() {
    // `t` (a triangle per step) is computed by a `build` of its own, which the step reads:
    // the `build` over components stays one (`logsumexp` reads it twice), and its steps'
    // triangles are kept, whether written as a `build` or, fused, as a sum's terms. The
    // lowering's test `a_reverse_sweep_adds_along_the_packed_triangle_at_running_indexes`
    // counts the triangle loops left after CSE: the sweep computes none again.
    let out = printed(&TRIANGLES.replace("{over}", "logsumexp"));
    assert!(out.contains("let kept_"), "{out}");
    // A sum of independent terms keeps nothing per term (LANGUAGE.md section 13): the
    // `build` summed is a sum-fold in the canonical form, and its steps are recomputed.
    let out = printed(&TRIANGLES.replace("{over}", "sum"));
    assert!(!out.contains("let kept_"), "{out}");
}

#[test]
fn a_cheap_row_or_a_fold_step_s_array_is_not_kept() {
    // An array with one loop per dimension is recomputed; so is an expensive array computed
    // in a fold's step (keeping it would grow scratch with the fold's count); and one in a
    // branch (keeping it would compute it where the step does not).
    for src in [
        "pub fn k(w: [[f64; n]; m], x: [f64; n]) -> (f64, [[f64; n]; m]) {
            grad(|v| sum(build(m, |c| { let t = sub(v[c], x); sqnorm(t) })), w)
        }",
        "pub fn k(w: [[f64; n]; m], x: [f64; n]) -> (f64, [[f64; n]; m]) {
            grad(|v| ifold(m, 0.0, |acc, c| {
                let t = build(n, |j| ifold(j, 0.0, |a, e| a + v[c][e] * x[j]));
                acc + sqnorm(t)
            }), w)
        }",
        "pub fn k(w: [[f64; n]; m], x: [f64; n]) -> (f64, [[f64; n]; m]) {
            grad(|v| sum(build(m, |c| if c > 0 && sqnorm(build(n, |j| ifold(j, 0.0, |a, e| a + v[c][e] * x[j]))) > 1.0 { 1.0 } else { 0.0 })), w)
        }",
        "pub fn k(w: [[f64; n]; m], x: [f64; n]) -> (f64, [[f64; n]; m]) {
            grad(|v| sum(build(m, |c| if c > 0 {
                let t = build(n, |j| ifold(j, 0.0, |a, e| a + v[c][e] * x[j]));
                sqnorm(t)
            } else { 0.0 })), w)
        }",
    ] {
        let out = printed(src);
        assert!(!out.contains("kept_"), "{out}");
    }
}

#[test]
fn sums_over_steps_written_out_start_from_negative_zero() {
    // A 3-vector's sweep: its sums start from -0.0, so once `unroll` writes the steps out,
    // `simplify` folds every first addition (`-0.0 + x` is `x`; `0.0 + x` is not, for
    // `x = -0.0`). A sum over `n` steps stays a loop and starts from `0.0` (a fill of `0.0`
    // is a `memset`).
    let src = "pub fn k(x: [f64; 3], y: [f64; 3], z: [f64; n], q: [f64; n]) -> ([f64; 3], [f64; 3], [f64; n]) {
        let g = vjp(|v, w| map2(v, w, |a, b| a * b), (x, y), y);
        (g.1, g.2, grad(|u, w| ifold(n, 0.0, |acc, i| acc + u[i] * w[i]), z, q).1)
    }";
    let optimized = crate::middle::fuse::tests::optimized(src);
    let adds_to_zero = count(
        &optimized.body,
        &|k| matches!(k, Kind::Bin(crate::front::ast::BinOp::Add, a, _, _) if matches!(a.kind, Kind::Float(z) if z == 0.0)),
    );
    assert_eq!(
        adds_to_zero,
        0,
        "{}",
        crate::middle::print::kernel(&optimized)
    );
    let starts = printed(src);
    assert!(starts.contains("ifold(3, (build(3, |i_"), "{starts}");
    assert!(starts.contains("| -0.0)"), "{starts}");
    let at = starts
        .find("ifold(n, (build(n, |i_")
        .expect("the fold over n");
    let start = &starts[at..at + 40];
    assert!(
        start.contains("| 0.0)") && !start.contains("-0.0"),
        "{starts}"
    );
}

#[test]
fn a_kept_row_in_a_carried_fold_s_step_reads_the_reversed_step_s_index() {
    // A `build` step inside a carried fold (its state an array) keeps an expensive row that
    // reads the fold's index `i`; the reverse of step `n - 1 - t` recomputes that row, so the
    // row's `i` is that step's too (it was `i` itself, out of scope: found by the
    // derivative differential's program 1791, 1,800 programs in).
    let mut d = crate::front::diag::Diags::default();
    let mut block = crate::pipeline::front(
        "pub fn k(a: [f64; n], b: [f64; m], c: [[f64; m]; n]) -> [f64; n] {
            vjp(|x| ifold(n, x, |acc, i| build(n, |j| acc[j] * 0.5 + sum(map(ifold(m, b, |r, l| {
                build(m, |e| if e == l { c[i][l] * acc[j] } else { r[e] })
            }), |q| q * q)))), a, a).1
        }"
        .parse()
        .unwrap(),
        &mut d,
    )
    .unwrap();
    let kernel = block.kernels.remove(0);
    let out = crate::middle::print::kernel(&kernel);
    assert!(out.contains("let kept_"), "{out}");
    let problems =
        crate::middle::validate::validate(&kernel, crate::middle::validate::Rules { anf: false });
    assert!(problems.is_empty(), "{problems:?}");
}

#[test]
fn a_scalar_operation_s_constant_operand_is_renamed_in_each_operand_s_tangent() {
    // `mul_add` with two active operands: each one's contribution is the operation's tangent,
    // a copy of it; the constant operand left in it (a sum over a `build`) binds variables,
    // which were bound twice (the derivative differential's program 19885 by rows: the
    // validator's error, and a stack overflow after `hoist` in release).
    let mut d = crate::front::diag::Diags::default();
    let mut block = crate::pipeline::front(
        "pub fn k(x: f64, n: usize) -> (f64, f64) {
            grad(|v| v.mul_add(sum(build(n + 2, |i| (i as f64) * 0.5)), v * v), x)
        }"
        .parse()
        .unwrap(),
        &mut d,
    )
    .unwrap();
    let kernel = block.kernels.remove(0);
    let problems =
        crate::middle::validate::validate(&kernel, crate::middle::validate::Rules { anf: false });
    assert!(problems.is_empty(), "{problems:?}");
}

/// A gradient whose step reads rows `w[c]` and `mu[c]` and sums each one's adjoint over an
/// inner loop (a triangle's, as GMM's `Q (x - mu)`), `mu[c]`'s through `x - mu[c]`.
const ROW_SUMS: &str = "
    fn lower(w: [f64; d], v: [f64; d]) -> [f64; d] {
        build(d, |j| ifold(j, w[j] * v[j], |acc, c| acc + w[c] * v[c]))
    }
    pub fn g(a: [f64; k], w: [[f64; d]; k], mu: [[f64; d]; k], x: [f64; d]) -> (f64, [[f64; d]; k], [[f64; d]; k]) {
        grad(|w, mu| sum(build(k, |c| a[c] * sqnorm(lower(w[c], sub(x, mu[c]))))), w, mu)
    }";

#[test]
fn sums_into_rows_of_adjoints_continue_from_those_rows() {
    // The inner loop's sums of `w[c]`'s and `mu[c]`'s adjoints add to rows `c` of the
    // gradient's sums themselves: no zero-started fold over the inner loop, no row placed in
    // a zero matrix (`if p == c { row } else { 0 }`), no negated copy of `x - mu[c]`'s
    // adjoint (its terms are negated instead).
    let e = checked(ROW_SUMS);
    let zero_row = |k: &Kind| matches!(k, Kind::If(_, _, z) if z.ty.is_arr() && crate::middle::forward::is_zero(z));
    assert_eq!(count(&e, &zero_row), 0, "{}", printed(ROW_SUMS));
    let negated_row =
        |k: &Kind| matches!(k, Kind::Build(_, _, b) if matches!(tail(b).kind, Kind::Neg(_)));
    assert_eq!(count(&e, &negated_row), 0, "{}", printed(ROW_SUMS));
    let zero_start = |k: &Kind| matches!(k, Kind::Ifold(_, init, ..) if init.ty.is_tuple() && crate::middle::forward::is_zero(init));
    // The sweep over the points' components (one; the inner ones continue it).
    assert_eq!(count(&e, &zero_start), 1, "{}", printed(ROW_SUMS));
}

/// Loops counted by the size `inner` inside a loop counted by the size `outer`.
fn nested(e: &Core, outer: &str, inner: &str, inside: bool) -> usize {
    let counted = |n: &str| match &e.kind {
        Kind::Build(s, ..) => s.to_string() == n,
        Kind::Ifold(c, ..) => matches!(&c.kind, Kind::Size(s) if s.to_string() == n),
        _ => false,
    };
    let here = usize::from(inside && counted(inner));
    // A fold's first state is computed before its loop.
    if let Kind::Ifold(c, init, _, _, step) = &e.kind {
        return here
            + nested(c, outer, inner, inside)
            + nested(init, outer, inner, inside)
            + nested(step, outer, inner, inside || counted(outer));
    }
    let inside = inside || counted(outer);
    here + e
        .children()
        .map(|c| nested(c, outer, inner, inside))
        .sum::<usize>()
}

#[test]
fn the_reverse_of_a_scatter_is_a_gather() {
    // LANGUAGE.md section 15: each step of the sweep reads the adjoint at its own index; no
    // loop over the m elements runs for each of the n steps (it did: O(nm), the sweep a
    // fold over the steps carrying the adjoint of all m). The one left is the primal's row
    // update, which the lowering makes in place.
    for src in [
        "fn loss(x: [f64; n], idx: [usize; n], w: [f64; m]) -> f64 {
            dot(scatter_add(m, n, |i| (idx[i], x[i] * x[i])), w)
        }
        pub fn k(x: [f64; n], idx: [usize; n], w: [f64; m]) -> (f64, [f64; n]) {
            grad(|x| loss(x, idx, w), x)
        }",
        "pub fn k(x: [f64; n], idx: [usize; n], s: [f64; m]) -> ([f64; m], [f64; n]) {
            vjp(|x| scatter_add(m, n, |i| (idx[i], 3.0 * x[i])), x, s)
        }",
        // The same scatter as `reduce_by_index` adding from zero (section 15's other spelling).
        "fn loss(x: [f64; n], idx: [usize; n], w: [f64; m]) -> f64 {
            dot(reduce_by_index(m, 0.0, |a, b| a + b, n, |i| (idx[i], x[i] * x[i])), w)
        }
        pub fn k(x: [f64; n], idx: [usize; n], w: [f64; m]) -> (f64, [f64; n]) {
            grad(|x| loss(x, idx, w), x)
        }",
        // Rows as values.
        "fn loss(x: [[f64; d]; n], idx: [usize; n], w: [[f64; d]; m]) -> f64 {
            let s = scatter_add(m, n, |i| (idx[i], x[i]));
            sum(build(m, |r| dot(s[r], w[r])))
        }
        pub fn k(x: [[f64; d]; n], idx: [usize; n], w: [[f64; d]; m]) -> (f64, [[f64; d]; n]) {
            grad(|x| loss(x, idx, w), x)
        }",
    ] {
        let k = crate::middle::fuse::tests::optimized(src);
        assert_eq!(nested(&k.body, "n", "m", false), 1, "{src}\n{k}");
        assert_eq!(scans(&k.body), 0, "{src}\n{k}");
    }
}

/// The `scratch_len` body of kernel `k` in the expansion of `src`.
fn scratch_of(src: &str) -> String {
    let out = crate::expand(src.parse().unwrap()).to_string();
    let from = out.find("fn scratch_len").expect("a scratch_len");
    let body = &out[from..];
    let (open, close) = (
        body.find('{').expect("a body"),
        body.find('}').expect("a body"),
    );
    body[open + 1..close].trim().to_string()
}

#[test]
fn a_gradient_through_a_scatter_keeps_only_the_scatter() {
    // docs/language.md, section 16: `grad` by the scattered values keeps 2m slots at any n
    // (the scatter's value and its adjoint), the `vjp` of the scatter none.
    let grad = scratch_of(
        "fn loss(x: [f64; n], idx: [usize; n], w: [f64; m]) -> f64 {
            dot(scatter_add(m, n, |i| (idx[i], x[i] * x[i])), w)
        }
        pub fn k(x: [f64; n], idx: [usize; n], w: [f64; m]) -> (f64, [f64; n], [f64; m]) {
            grad(|x, w| loss(x, idx, w), x, w)
        }",
    );
    assert_eq!(grad, "usize :: saturating_add (m , m)", "{grad}");
    let vjp = scratch_of(
        "pub fn k(x: [f64; n], idx: [usize; n], s: [f64; m]) -> ([f64; m], [f64; n]) {
            vjp(|x| scatter_add(m, n, |i| (idx[i], 3.0 * x[i])), x, s)
        }",
    );
    assert_eq!(vjp, "0usize", "{vjp}");
}

#[test]
fn a_dense_layer_s_gradient_adds_into_its_sums_in_place() {
    // The reverse of `dot(w[c], a)` for each output `c` gives the adjoint of `a` (whole) and
    // of row `c` of `w`: the fold over the row's terms continues from the outer sums of
    // both, so no zeroed array of h per output is summed into them afterwards (the MLP's
    // gradient kept two, and added each to its sum: docs/BENCHMARKS.md).
    let src = "pub fn k(w: [[f64; h]; o], a: [f64; h]) -> (f64, [[f64; h]; o], [f64; h]) {
        grad(|w, a| sum(build(o, |c| dot(w[c], a).tanh())), w, a)
    }";
    let k = crate::middle::fuse::tests::optimized(src);
    let zero_start = |k: &Kind| matches!(k, Kind::Ifold(_, init, ..) if init.ty.is_tuple() && crate::middle::forward::is_zero(init));
    assert_eq!(count(&k.body, &zero_start), 1, "{k}");
    assert_eq!(scratch_of(src), "0usize", "{k}");
}

#[test]
fn corners_named_by_a_step_of_literal_count_share_their_row_updates() {
    // A face's energy as `sum(build(3, |k| ..))` over its corners, `f[j][k]` and
    // `f[j][(k + 1) % 3]`, reversed written out: the three terms' code written by hand,
    // one update of each corner's row a face (it was a loop of three, two row
    // updates a step, each corner's index computed and checked at run time).
    let looped = "pub fn k(v: [[f64; 3]; m], f: [[usize; 3]; p]) -> (f64, [[f64; 3]; m]) {
        grad(|x| ifold(p, 0.0, |acc, j| {
            acc + sum(build(3, |k| sqnorm(sub(x[f[j][k]], x[f[j][(k + 1) % 3]]))))
        }), v)
    }";
    let written = "pub fn k(v: [[f64; 3]; m], f: [[usize; 3]; p]) -> (f64, [[f64; 3]; m]) {
        grad(|x| ifold(p, 0.0, |acc, j| {
            acc + (sqnorm(sub(x[f[j][0]], x[f[j][1]])) + sqnorm(sub(x[f[j][1]], x[f[j][2]]))
                + sqnorm(sub(x[f[j][2]], x[f[j][0]])))
        }), v)
    }";
    // The same code but for the order the corners' adjoints are computed in: three rows
    // a face (at indexes read from `f`, so as rows of the buffer), the zeroing of the
    // gradient, no check, one loop over the faces.
    for src in [looped, written] {
        let out = crate::expand(src.parse().unwrap()).to_string();
        assert_eq!(out.matches("st_row_at (out1").count(), 3, "{out}");
        assert_eq!(out.matches("st_row (out1").count(), 1, "{out}");
        assert_eq!(out.matches("ldr_row :: < 3usize > (v").count(), 9, "{out}");
        assert_eq!(out.matches(" in 0 .. ").count(), 2, "{out}");
        assert!(!out.contains("check ("), "{out}");
        assert_eq!(scratch_of(src), "0usize");
    }
}

#[test]
fn a_coordinate_loop_keeps_its_row_adjoint() {
    // Steps that read the differentiated rows at their own index only (`a[k] - b[k]`) are
    // not written out by the sweep: their adjoint stays one row of values.
    let src = "pub fn k(v: [[f64; 3]; m], e: [[usize; 2]; p]) -> (f64, [[f64; 3]; m]) {
        grad(|x| sum(build(p, |j| sqnorm(sub(x[e[j][0]], x[e[j][1]])))), v)
    }";
    let out = crate::expand(src.parse().unwrap()).to_string();
    assert!(!out.contains("0f64 + "), "{out}");
    assert_eq!(out.matches("st_row_at (out1").count(), 2, "{out}");
}
