//! Unit tests of fusion, and `optimized`, the middle of the pipeline that other passes' tests share.

use crate::middle::ir::Kind;

/// A kernel of `src` through the middle of the pipeline (shared with `unroll`'s tests).
pub(crate) fn optimized(src: &str) -> crate::middle::ir::Kernel {
    let mut d = crate::front::diag::Diags::default();
    let mut block = crate::pipeline::front(src.parse().unwrap(), &mut d).unwrap();
    crate::pipeline::middle(block.kernels.remove(0), block.scope.options).unwrap()
}

/// How many nodes of `e` satisfy `f`.
pub(crate) fn count(e: &crate::middle::ir::Core, f: &dyn Fn(&Kind) -> bool) -> usize {
    usize::from(f(&e.kind)) + e.children().map(|c| count(c, f)).sum::<usize>()
}

#[test]
fn values_read_in_a_scan_are_computed_once() {
    // `exp` calls inside a scan's body (they were, `t` inlined into the body and `v`
    // fused into it: a scan was not taken for a loop).
    fn exps_in_scans(e: &crate::middle::ir::Core, inside: bool) -> usize {
        let here = inside && matches!(e.kind, Kind::Math(crate::front::ast::MathFn::Exp, _));
        let inside = inside || matches!(e.kind, Kind::Scan(..));
        usize::from(here)
            + e.children()
                .map(|c| exps_in_scans(c, inside))
                .sum::<usize>()
    }
    for src in [
        "pub fn k(a: [f64; n]) -> [f64; n] { let t = sum(map(a, |x| x.exp())); scan(n, 0.0, |acc, i| acc + t) }",
        "pub fn k(a: [f64; n]) -> [f64; n] { let v = map(a, |x| x.exp()); scan(n, 0.0, |acc, i| acc + sum(v)) }",
    ] {
        let k = optimized(src);
        assert_eq!(exps_in_scans(&k.body, false), 0, "{src}\n{k}");
    }
}

#[test]
fn add_of_add_is_one_loop() {
    let k = optimized(
        "pub fn k(a: [f64; n], b: [f64; n], c: [f64; n]) -> [f64; n] { add(add(a, b), c) }",
    );
    assert_eq!(count(&k.body, &|k| matches!(k, Kind::Build(..))), 1);
}

#[test]
fn norm_of_add_is_one_fold() {
    let k = optimized("pub fn k(a: [f64; n], b: [f64; n]) -> f64 { norm(add(a, b)) }");
    assert_eq!(count(&k.body, &|k| matches!(k, Kind::Build(..))), 0);
    assert_eq!(count(&k.body, &|k| matches!(k, Kind::Ifold(..))), 1);
}

#[test]
fn stencil_with_several_readers_is_materialised() {
    let k = optimized(
        "pub fn k(a: [f64; n]) -> [f64; n - 2] { let s = smul(a, 2.0); build(n - 2, |i| s[i] + s[i + 1] + s[i + 2]) }",
    );
    assert_eq!(count(&k.body, &|k| matches!(k, Kind::Build(..))), 2);
}

#[test]
fn a_read_at_a_shifted_index_fuses() {
    // `t[i - 1][j]` reads a new element on each (i, j): nothing is computed twice, so
    // `t` is not stored (Kalman's `pn[i - 1]`). `t[0][j]`, read again on every i, is.
    let stored = |src: &str| {
        let k = optimized(src);
        count(
            &k.body,
            &|k| matches!(k, Kind::Let(_, a, _) if matches!(a.kind, Kind::Build(..))),
        )
    };
    assert_eq!(
        stored(
            "pub fn k(a: [[f64; m]; n], b: [[f64; m]; n], m: usize) -> [[f64; m]; n] {
                let t = msub(a, b);
                build(n, |i| build(m, |j| if i == 0 { a[0][j] } else { t[i - 1][j] }))
            }"
        ),
        0
    );
    assert_eq!(
        stored(
            "pub fn k(a: [[f64; m]; n], b: [[f64; m]; n], m: usize) -> [[f64; m]; n] {
                let t = msub(a, b);
                build(n, |i| build(m, |j| if i == 0 { a[0][j] } else { t[0][j] }))
            }"
        ),
        1
    );
}

#[test]
fn transpose_fuses_into_matmul() {
    let k =
        optimized("pub fn k(a: [[f64; 9]; 9], b: [[f64; 9]; 9]) -> [[f64; 9]; 9] { matmul(a, b) }");
    assert_eq!(count(&k.body, &|k| matches!(k, Kind::Build(..))), 2);
}

#[test]
fn a_few_operations_before_a_fold_are_written_in_its_step() {
    // `let d = smul(p, a)` read once in the step: two builds (the start's copy and the
    // step), as when the step computes `smul(p, a)` itself, and no `let` of an array left.
    let before = optimized(
        "pub fn k(x0: [f64; n], p: [f64; n], a: f64, t: usize) -> [f64; n] {
            let d = smul(p, a);
            ifold(t, x0, |x, _| add(x, d))
        }",
    );
    let inside = optimized(
        "pub fn k(x0: [f64; n], p: [f64; n], a: f64, t: usize) -> [f64; n] {
            ifold(t, x0, |x, _| add(x, smul(p, a)))
        }",
    );
    let builds = |k: &crate::middle::ir::Kernel| count(&k.body, &|k| matches!(k, Kind::Build(..)));
    assert_eq!(builds(&before), builds(&inside), "{before}\n{inside}");
    assert_eq!(builds(&before), 1, "{before}");
}

#[test]
fn a_call_before_a_fold_is_computed_once() {
    // `exp` is not a few arithmetic operations: computed once before the fold, not at every
    // step.
    let k = optimized(
        "pub fn k(x0: [f64; n], p: [f64; n], t: usize) -> [f64; n] {
            let d = map(p, |v| v.exp());
            ifold(t, x0, |x, _| add(x, d))
        }",
    );
    assert_eq!(count(&k.body, &|k| matches!(k, Kind::Build(..))), 2, "{k}");
}

#[test]
fn an_array_bound_only_to_start_a_fold_is_its_start() {
    // The hand model's posed relatives bound by a `let`, then the bone chain's start: the
    // same code as the build written as the start (no copy of the relatives into the
    // fold's state, one buffer less live).
    let step =
        "|acc, k| build(b, |j| if j == k { matmul(acc[parents[k]], acc[j]) } else { acc[j] })";
    let bound = format!(
        "pub fn k(rel: [[[f64; 4]; 4]; b], parents: [usize; b]) -> [[[f64; 4]; 4]; b] {{
            let r = build(b, |i| build(4, |row| build(4, |col| rel[i][row][col] * 2.0)));
            ifold(b, r, {step})
        }}"
    );
    let written = format!(
        "pub fn k(rel: [[[f64; 4]; 4]; b], parents: [usize; b]) -> [[[f64; 4]; 4]; b] {{
            ifold(b, build(b, |i| build(4, |row| build(4, |col| rel[i][row][col] * 2.0))), {step})
        }}"
    );
    assert_eq!(
        crate::middle::interchange::tests::code(&bound),
        crate::middle::interchange::tests::code(&written)
    );
}

#[test]
fn a_written_out_argmin_does_not_compare_its_start_with_itself() {
    // Unrolled, the first step tests `row[0] > row[0]`: false for every float, NaN too, so
    // two comparisons are left of three.
    let k = optimized(
        "pub fn k(r: [[f64; 3]; m]) -> [usize; m] {
            map(r, |row| ifold(3, 0, |best, j| if row[j] > row[best] { j } else { best }))
        }",
    );
    let gt = count(&k.body, &|k| {
        matches!(k, Kind::Bin(crate::front::ast::BinOp::Gt, ..))
    });
    assert_eq!(gt, 2, "{k}");
}

#[test]
fn a_value_per_row_bound_first_compiles_as_written_in_the_step() {
    // `means[i]` read inside each row's map: the mean computed once at the head of step `i`.
    let bound = "pub fn k(x: [[f64; d]; n], d: usize) -> [[f64; d]; n] {
        let means = map(x, |row| sum(row) / (d as f64));
        build(n, |i| map(x[i], |t| t - means[i]))
    }";
    let written = "pub fn k(x: [[f64; d]; n], d: usize) -> [[f64; d]; n] {
        build(n, |i| { let m = sum(x[i]) / (d as f64); map(x[i], |t| t - m) })
    }";
    let code = crate::middle::interchange::tests::code;
    assert_eq!(code(bound), code(written), "{}", optimized(bound));
    // A row of sums (a product's) read by rows stays where the products' rules find it.
    let k = optimized(
        "pub fn k(a: [[f64; m]; n], b: [[f64; m]; m], c: [[f64; m]; m]) -> [[f64; m]; n] {
            matmul(matmul(a, b), c)
        }",
    );
    assert!(matches!(k.body.kind, Kind::Let(..)), "{k}");
}
