//! Cases from trials by users writing kernels from the contract alone (issue 40's sections
//! 14 to 17 and section 13's spellings, 2026-12-07; firmware kernels in `f32`, 2026-12-07),
//! each once a failure: a valid kernel rejected or failing at run time, a size function
//! that could not be used, a view that was copied.

use fsmooth::{Error, Region, fsmooth};

fsmooth! {
    use std::f64::consts::{TAU, SQRT_2};
    use core::f32::consts::*;

    /// `map2` over arrays of different element types: rows of two widths, floats beside
    /// labels (LANGUAGE.md section 9: `map` and `map2` are generic).
    pub fn row_products(xs: [[f64; ni]; p], ys: [[f64; no]; p], ni: usize) -> [f64; p] {
        map2(xs, ys, |x, y| sum(x) * sum(y))
    }
    pub fn scaled_by_label(x: [f64; n], labels: [usize; n]) -> [f64; n] {
        map2(x, labels, |a, l| a * (l as f64))
    }

    /// An FIR filter over its history and the block: a window of a `concat` is read where
    /// it is read (LANGUAGE.md section 9: reading a view never copies), as the indexed
    /// spelling is.
    pub fn fir_windows(x: [f32; n], hist: [f32; 7], h: [f32; 8]) -> [f32; n] {
        let xp = concat(hist, x);
        build(n, |i| dot(h, reverse(xp[i..i + 8])))
    }
    pub fn fir_indexed(x: [f32; n], hist: [f32; 7], h: [f32; 8]) -> [f32; n] {
        let xp = concat(hist, x);
        build(n, |i| sum(build(8, |k| h[k] * xp[i + 7 - k])))
    }

    /// Conjugate gradients with a nested tuple state, `((x, r, p), rs)`: its leaves updated
    /// in place as the flat tuple's (3n slots, was 11n).
    fn poisson(v: [f64; n]) -> [f64; n] {
        build(n, |i| {
            let left = if i > 0 { v[i - 1] } else { 0.0 };
            let right = if i + 1 < n { v[i + 1] } else { 0.0 };
            2.0 * v[i] - left - right
        })
    }
    pub fn cg_nested(b: [f64; n], steps: usize) -> [f64; n] {
        let ((x, _, _), _) = ifold(steps, ((build(n, |_| 0.0), b, b), dot(b, b)), |((x, r, p), rs), _| {
            let ap = poisson(p);
            let alpha = rs / dot(p, ap);
            let r1 = sub(r, smul(ap, alpha));
            let rs1 = dot(r1, r1);
            ((add(x, smul(p, alpha)), r1, add(r1, smul(p, rs1 / rs))), rs1)
        });
        x
    }
    pub fn cg_flat(b: [f64; n], steps: usize) -> [f64; n] {
        let (x, _, _, _) = ifold(steps, (build(n, |_| 0.0), b, b, dot(b, b)), |(x, r, p, rs), _| {
            let ap = poisson(p);
            let alpha = rs / dot(p, ap);
            let r1 = sub(r, smul(ap, alpha));
            let rs1 = dot(r1, r1);
            (add(x, smul(p, alpha)), r1, add(r1, smul(p, rs1 / rs)), rs1)
        });
        x
    }

    /// A user's chain of two row updates in a fold: in place, nothing stored.
    pub fn two_bins(x: [f64; m], e: [[usize; 2]; p]) -> [f64; m] {
        ifold(p, build(m, |_| 0.0), |s, j| {
            let a = e[j][0];
            let b = e[j][1];
            let s1 = build(m, |q| if q == a { s[q] + x[b] } else { s[q] });
            build(m, |q| if q == b { s1[q] - x[a] } else { s1[q] })
        })
    }

    /// A literal in an `iterate`'s tuple state takes its type from the step (section 16).
    pub fn prefix_until(x: [f32; n], limit: f32) -> f32 {
        let (s, _) = iterate((0.0, 0), |(s, k)| k < n && s < limit, |(s, k)| (s + x[k], k + 1));
        s
    }

    /// A name imported by name wins over a glob's, as in Rust: `TAU` and `SQRT_2` are the
    /// f64 ones, `PI` the f32 one.
    pub fn circle(r: f64) -> f64 {
        TAU * r + SQRT_2
    }
    pub fn half_turn(x: f32) -> f32 {
        PI * x
    }

    /// A gather a branch guards: no entry check rejects the indexes the branch skips.
    pub fn guarded_gather(table: [f64; m], idx: [usize; n]) -> [f64; n] {
        build(n, |i| if idx[i] < m { table[idx[i]] } else { -1.0 })
    }

    /// A sum over rows of differences, three spellings (section 13): the rows never stored,
    /// nor their gradients.
    pub fn rows_inline(xs: [[f64; d]; p], ys: [[f64; d]; p], d: usize) -> f64 {
        sum(build(p, |j| sqnorm(sub(xs[j], ys[j]))))
    }
    pub fn rows_mapped(xs: [[f64; d]; p], ys: [[f64; d]; p], d: usize) -> f64 {
        sum(map(build(p, |j| sub(xs[j], ys[j])), |e| sqnorm(e)))
    }
    pub fn rows_bound(xs: [[f64; d]; p], ys: [[f64; d]; p], d: usize) -> f64 {
        let e = build(p, |j| sub(xs[j], ys[j]));
        sum(build(p, |j| sqnorm(e[j])))
    }
    pub fn rows_mapped_grad(xs: [[f64; d]; p], ys: [[f64; d]; p], d: usize) -> (f64, [[f64; d]; p]) {
        grad(|x| sum(map(build(p, |j| sub(x[j], ys[j])), |e| sqnorm(e))), xs)
    }
    pub fn rows_bound_grad(xs: [[f64; d]; p], ys: [[f64; d]; p], d: usize) -> (f64, [[f64; d]; p]) {
        grad(|x| { let e = build(p, |j| sub(x[j], ys[j])); sum(build(p, |j| sqnorm(e[j]))) }, xs)
    }

    /// A Cholesky factor's rows by a row update, the new row `let`-bound, by a helper, or
    /// written in place: the same scratch (the row's own buffer).
    fn newrow(a: [[f64; n]; n], l: [[f64; n]; n], i: usize) -> [f64; n] {
        ifold(i + 1, build(n, |_| 0.0), |row, j| {
            let s = ifold(j, 0.0, |acc, k| acc + row[k] * (if j == i { row[k] } else { l[j][k] }));
            let v = if j == i { (a[i][i] - s).sqrt() } else { (a[i][j] - s) / l[j][j] };
            build(n, |c| if c == j { v } else { row[c] })
        })
    }
    pub fn chol_let(a: [[f64; n]; n]) -> [[f64; n]; n] {
        ifold(n, build(n, |_| build(n, |_| 0.0)), |l, i| {
            let row = newrow(a, l, i);
            build(n, |r| if r == i { row } else { l[r] })
        })
    }
    pub fn chol_inline(a: [[f64; n]; n]) -> [[f64; n]; n] {
        ifold(n, build(n, |_| build(n, |_| 0.0)), |l, i| {
            build(n, |r| if r == i { newrow(a, l, i) } else { l[r] })
        })
    }

    /// A row update written out four times: in place, as the fold is.
    pub fn doubled_fold(h0: [[f64; m]; 4]) -> [[f64; m]; 4] {
        ifold(4, h0, |h, i| build(4, |j| if j == i { smul(h[j], 2.0) } else { h[j] }))
    }
    pub fn doubled_out(h0: [[f64; m]; 4]) -> [[f64; m]; 4] {
        let h1 = build(4, |j| if j == 0 { smul(h0[j], 2.0) } else { h0[j] });
        let h2 = build(4, |j| if j == 1 { smul(h1[j], 2.0) } else { h1[j] });
        let h3 = build(4, |j| if j == 2 { smul(h2[j], 2.0) } else { h2[j] });
        build(4, |j| if j == 3 { smul(h3[j], 2.0) } else { h3[j] })
    }

    /// A two-state filter and its tangent: the lagged states are never stored (section 8),
    /// in the tangent's scan as in the filter's.
    fn two_state(x: [f64; n], c: f64) -> [f64; n] {
        let (y, _) = scan(n, (0.0, 0.0), |(y1, y2), i| (x[i] + c * y1 - 0.5 * y2, y1));
        y
    }
    pub fn filter(x: [f64; n], c: f64) -> [f64; n] {
        two_state(x, c)
    }
    pub fn filter_tangent(x: [f64; n], c: f64, tc: f64) -> ([f64; n], [f64; n]) {
        jvp(|c2| two_state(x, c2), c, tc)
    }

    /// A sum over a `concat` of maps (section 9): each part summed where it is, nothing
    /// stored, as `sum(concat(a, b))`.
    pub fn sum_of_parts(a: [f64; n], b: [f64; m]) -> f64 {
        sum(concat(map(a, |x| x.exp()), map(b, |x| x.sin())))
    }

    /// Two sums over one array side by side, differentiated: the gradient a map, nothing
    /// kept per term (section 12), as each sum alone.
    pub fn two_sums_grad(w: [f64; b], c: [f64; b]) -> (f64, [f64; b]) {
        grad(|w2| sum(build(b, |k| c[k] * w2[k])) + sum(build(b, |k| c[k] * w2[k] * w2[k])), w)
    }

    /// A size divided by zero: the call is an error, and `out_len` a length one can allocate.
    pub fn by_zero(x: [f64; n]) -> [f64; n / 0] {
        build(n / 0, |i| x[i])
    }
}

#[test]
fn map2_takes_arrays_of_different_element_types() {
    let mut r = Region::new();
    let mut out = [0.0; 2];
    let xs = [[1.0, 2.0], [3.0, 4.0]];
    let ys = [[1.0, 1.0, 1.0], [0.5, 0.5, 0.5]];
    row_products(&mut out, &xs, &ys, 2, &mut r).unwrap();
    assert_eq!(out, [9.0, 10.5]);
    let mut out = [0.0; 3];
    scaled_by_label(&mut out, &[1.5, 2.0, 4.0], &[2, 0, 3], &mut r).unwrap();
    assert_eq!(out, [3.0, 0.0, 12.0]);
}

#[test]
fn an_iterate_tuple_state_literal_takes_f32() {
    let x = [1.0f32, 2.0, 3.0, 4.0];
    let got = prefix_until(&x, 3.5, &mut Region::new()).unwrap();
    assert_eq!(got, 6.0);
}

#[test]
fn explicit_imports_win_over_globs() {
    let mut r = Region::new();
    assert_eq!(
        circle(2.0, &mut r).unwrap(),
        std::f64::consts::TAU * 2.0 + std::f64::consts::SQRT_2
    );
    assert_eq!(half_turn(2.0, &mut r).unwrap(), std::f32::consts::PI * 2.0);
}

#[test]
fn a_guarded_gather_runs() {
    let mut out = [0.0; 3];
    guarded_gather(&mut out, &[10.0, 20.0], &[1, 5, 0], &mut Region::new()).unwrap();
    assert_eq!(out, [20.0, -1.0, 10.0]);
}

#[test]
fn a_size_divided_by_zero_is_an_error_and_out_len_can_be_allocated() {
    assert_eq!(by_zero::out_len(4), 0);
    let mut out = vec![7.0; by_zero::out_len(4)];
    let r = by_zero(&mut out, &[1.0; 4], &mut Region::new());
    assert!(matches!(r, Err(Error::Arithmetic { .. })), "{r:?}");
}

#[test]
fn rows_summed_in_any_spelling_are_never_stored() {
    for (d, p) in [(3, 10), (3, 1000)] {
        assert_eq!(rows_inline::scratch_len(d, p), 0);
        assert_eq!(rows_mapped::scratch_len(d, p), 0);
        assert_eq!(rows_bound::scratch_len(d, p), 0);
        assert_eq!(rows_mapped_grad::scratch_len(d, p), 0);
        assert_eq!(rows_bound_grad::scratch_len(d, p), 0);
    }
    let xs = [[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]];
    let ys = [[0.0, 2.5, 1.0], [1.5, 1.0, 0.0]];
    let mut r = Region::new();
    let want = 1.0 + 0.25 + 4.0 + 1.0 + 4.0 + 4.0;
    for k in [rows_inline, rows_mapped, rows_bound] {
        assert_eq!(k(&xs, &ys, 3, &mut r).unwrap(), want);
    }
    for k in [rows_mapped_grad, rows_bound_grad] {
        let mut g = [[0.0; 3]; 2];
        assert_eq!(k(&mut g, &xs, &ys, 3, &mut r).unwrap(), want);
        assert_eq!(g, [[2.0, -1.0, 4.0], [-2.0, -4.0, 4.0]]);
    }
}

#[test]
fn a_let_bound_new_row_costs_what_the_row_written_in_place_costs() {
    for n in [4, 40] {
        assert_eq!(chol_let::scratch_len(n), n);
        assert_eq!(chol_inline::scratch_len(n), n);
    }
    let a = [[4.0, 2.0, 0.4], [2.0, 5.0, 1.0], [0.4, 1.0, 3.0]];
    let (mut l1, mut l2) = ([[0.0; 3]; 3], [[0.0; 3]; 3]);
    let mut r = Region::new();
    chol_let(&mut l1, &a, &mut r).unwrap();
    chol_inline(&mut l2, &a, &mut r).unwrap();
    assert_eq!(l1, l2);
    // L L^T = A.
    for i in 0..3 {
        for j in 0..3 {
            let v: f64 = (0..3).map(|k| l1[i][k] * l1[j][k]).sum();
            assert!((v - a[i][j]).abs() < 1e-12, "{i} {j}: {v}");
        }
    }
}

#[test]
fn a_row_update_written_out_stays_in_place() {
    for m in [10, 1000] {
        assert_eq!(doubled_fold::scratch_len(m), 0);
        assert_eq!(doubled_out::scratch_len(m), 0);
    }
    let h0 = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]];
    let (mut a, mut b) = ([[0.0; 2]; 4], [[0.0; 2]; 4]);
    let mut r = Region::new();
    doubled_fold(&mut a, &h0, &mut r).unwrap();
    doubled_out(&mut b, &h0, &mut r).unwrap();
    assert_eq!(a, [[2.0, 4.0], [6.0, 8.0], [10.0, 12.0], [14.0, 16.0]]);
    assert_eq!(a, b);
}

#[test]
fn a_tuple_scan_s_tangent_stores_no_lagged_state() {
    for n in [10, 1000] {
        assert_eq!(filter::scratch_len(n), 0);
        assert_eq!(filter_tangent::scratch_len(n), 0);
    }
    let x = [1.0, -0.5, 2.0, 0.25, 1.5];
    let c = 0.7;
    let mut r = Region::new();
    let (mut y, mut dy) = ([0.0; 5], [0.0; 5]);
    filter_tangent(&mut y, &mut dy, &x, c, 1.0, &mut r).unwrap();
    // By hand: y_i = x_i + c y_{i-1} - 0.5 y_{i-2}, and its derivative by c.
    let (mut y1, mut y2, mut d1, mut d2) = (0.0, 0.0, 0.0, 0.0);
    for i in 0..5 {
        let (yi, di) = (x[i] + c * y1 - 0.5 * y2, y1 + c * d1 - 0.5 * d2);
        assert_eq!((y[i], dy[i]), (yi, di), "{i}");
        (y2, y1, d2, d1) = (y1, yi, d1, di);
    }
    let mut plain = [0.0; 5];
    filter(&mut plain, &x, c, &mut r).unwrap();
    assert_eq!(plain, y);
}

#[test]
fn a_sum_over_a_concat_of_maps_stores_nothing() {
    assert_eq!(sum_of_parts::scratch_len(10, 20), 0);
    assert_eq!(sum_of_parts::scratch_len(1000, 2000), 0);
    let (a, b) = ([0.5, -1.0], [0.25, 2.0, 3.0]);
    let got = sum_of_parts(&a, &b, &mut Region::new()).unwrap();
    let want = a
        .iter()
        .map(|x: &f64| x.exp())
        .chain(b.iter().map(|x: &f64| x.sin()))
        .fold(-0.0, |s, t| s + t);
    assert_eq!(got, want);
}

#[test]
fn two_sums_side_by_side_keep_nothing_in_reverse() {
    assert_eq!(two_sums_grad::scratch_len(10), 0);
    assert_eq!(two_sums_grad::scratch_len(1000), 0);
    let (w, c) = ([1.0, -2.0, 0.5], [3.0, 0.25, -1.0]);
    let mut g = [0.0; 3];
    let v = two_sums_grad(&mut g, &w, &c, &mut Region::new()).unwrap();
    let want: f64 =
        (0..3).map(|k| c[k] * w[k]).sum::<f64>() + (0..3).map(|k| c[k] * w[k] * w[k]).sum::<f64>();
    assert!((v - want).abs() < 1e-12);
    for k in 0..3 {
        assert!(
            (g[k] - (c[k] + 2.0 * c[k] * w[k])).abs() < 1e-12,
            "{k}: {}",
            g[k]
        );
    }
}

#[test]
fn a_window_of_a_concat_is_not_copied() {
    assert_eq!(fir_windows::scratch_len(20), 0);
    assert_eq!(fir_windows::scratch_len(20), fir_indexed::scratch_len(20));
    let x: Vec<f32> = (0..20).map(|k| (k as f32 * 0.37).sin()).collect();
    let hist = [0.5f32, -0.25, 0.125, 1.0, -1.0, 0.75, 0.3];
    let h = [0.1f32, 0.2, 0.3, 0.4, -0.1, -0.2, 0.05, 0.6];
    let (mut a, mut b) = ([0.0f32; 20], [0.0f32; 20]);
    fir_windows(&mut a, &x, &hist, &h, &mut Region::new()).unwrap();
    fir_indexed(&mut b, &x, &hist, &h, &mut Region::new()).unwrap();
    let xp: Vec<f32> = hist.iter().chain(&x).copied().collect();
    for i in 0..20 {
        let want: f32 = (0..8).map(|k| h[k] * xp[i + 7 - k]).sum();
        assert!(
            (a[i] - want).abs() <= 1e-6 && (b[i] - want).abs() <= 1e-6,
            "{i}"
        );
    }
}

#[test]
fn a_nested_fold_state_and_a_chain_of_row_updates_are_in_place() {
    assert_eq!(cg_nested::scratch_len(100), 300);
    assert_eq!(cg_nested::scratch_len(100), cg_flat::scratch_len(100));
    let b: Vec<f64> = (0..8).map(|k| 1.0 + k as f64 * 0.25).collect();
    let (mut x1, mut x2) = ([0.0; 8], [0.0; 8]);
    cg_nested(&mut x1, &b, 5, &mut Region::new()).unwrap();
    cg_flat(&mut x2, &b, 5, &mut Region::new()).unwrap();
    assert_eq!(x1, x2);
    assert_eq!(two_bins::scratch_len(3, 2), 0);
    assert_eq!(two_bins::scratch_len(1000, 3000), 0);
    let x = [1.0, 2.0, 4.0];
    let e = [[0usize, 1], [2, 2], [1, 0]];
    let mut want = [0.0; 3];
    for [a, b] in e {
        want[a] += x[b];
        want[b] -= x[a];
    }
    let mut got = [9.0; 3];
    two_bins(&mut got, &x, &e, &mut Region::new()).unwrap();
    assert_eq!(got, want);
    let mut kept = [9.0; 3];
    assert!(two_bins(&mut kept, &x, &[[0, 3]], &mut Region::new()).is_err());
    assert_eq!(kept, [9.0; 3]);
}
