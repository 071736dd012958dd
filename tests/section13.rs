//! LANGUAGE.md section 13 end to end: spellings that mean the same need the same scratch
//! (called at two data sizes, as the contract's users do), results read again are read where
//! they live (no scratch), and every spelling gives plain Rust's values.

use fsmooth::{Error, Region, fsmooth};

fsmooth! {
    fn half(img: [[f64; w]; h]) -> [[f64; w / 2]; h / 2] {
        build(h / 2, |r| build(w / 2, |c| {
            0.25 * (img[2 * r][2 * c] + img[2 * r][2 * c + 1]
                + img[2 * r + 1][2 * c] + img[2 * r + 1][2 * c + 1])
        }))
    }

    /// A 3-level pyramid: each level a result, and read again by the next.
    pub fn pyramid(img: [[f64; w]; h], w: usize)
        -> ([[f64; w / 2]; h / 2], [[f64; w / 4]; h / 4], [[f64; w / 8]; h / 8]) {
        let l1 = half(img);
        let l2 = half(l1);
        (l1, l2, half(l2))
    }

    /// Residuals and their squared norm, three ways.
    pub fn resid_sqnorm(a: [f64; p], b: [f64; p]) -> ([f64; p], f64) {
        let r = build(p, |i| a[i] - b[i]);
        (r, sqnorm(r))
    }
    pub fn resid_dot(a: [f64; p], b: [f64; p]) -> ([f64; p], f64) {
        let r = sub(a, b);
        (r, dot(r, r))
    }
    pub fn resid_fold(a: [f64; p], b: [f64; p]) -> (f64, [f64; p]) {
        let r = map2(a, b, |x, y| x - y);
        let s = ifold(p, 0.0, |acc, i| acc + r[i] * r[i]);
        (s, r)
    }

    /// k-means' labels, a result read again by the cost.
    pub fn labels_cost(x: [f64; n], c: [f64; k]) -> ([usize; n], f64) {
        let labels = build(n, |i| ifold(k, 0, |best, j| {
            if (x[i] - c[j]).abs() < (x[i] - c[best]).abs() { j } else { best }
        }));
        (labels, sum(build(n, |i| (x[i] - c[labels[i]]).abs())))
    }

    /// The same labels and cost as one fold over the points, its state the labels and the
    /// running cost: the labels updated in place in the output, the cost in a local.
    pub fn labels_cost_fold(x: [f64; n], c: [f64; k]) -> ([usize; n], f64) {
        ifold(n, (build(n, |_| 0), 0.0), |(labels, cost), i| {
            let best = ifold(k, 0, |best, j| {
                if (x[i] - c[j]).abs() < (x[i] - c[best]).abs() { j } else { best }
            });
            (build(n, |r| if r == i { best } else { labels[r] }), cost + (x[i] - c[best]).abs())
        })
    }

    /// One row of a matrix state replaced a step, with a literal count and with a size:
    /// unrolling the literal one writes nothing out that would copy the state.
    pub fn rows_literal(a: [[f64; 6]; 6]) -> [[f64; 6]; 6] {
        ifold(6, a, |acc, k| build(6, |j| if j == k { smul(acc[k], 1.0 / acc[k][k]) } else { acc[j] }))
    }
    pub fn rows_sized(a: [[f64; n]; n]) -> [[f64; n]; n] {
        ifold(n, a, |acc, k| build(n, |j| if j == k { smul(acc[k], 1.0 / acc[k][k]) } else { acc[j] }))
    }

    /// A histogram by the in-place row update, reading the new count at the bin or at the
    /// loop's index (the branch knows `j == bin`).
    pub fn hist_at_bin(x: [usize; n], b: usize) -> [usize; b] {
        ifold(n, build(b, |_| 0), |h, i| {
            let bin = x[i].min(b - 1);
            build(b, |j| if j == bin { h[bin] + 1 } else { h[j] })
        })
    }
    pub fn hist_at_j(x: [usize; n], b: usize) -> [usize; b] {
        ifold(n, build(b, |_| 0), |h, i| {
            let bin = x[i].min(b - 1);
            build(b, |j| if bin == j { h[j] + 1 } else { h[j] })
        })
    }
    pub fn hist_ne(x: [usize; n], b: usize) -> [usize; b] {
        ifold(n, build(b, |_| 0), |h, i| {
            let bin = x[i].min(b - 1);
            build(b, |j| if j != bin { h[j] } else { 1 + h[j] })
        })
    }

    /// The bin written inline in the test (its `min` is `let`s): moved before the `build`.
    pub fn hist_inline(x: [usize; n], b: usize) -> [usize; b] {
        ifold(n, build(b, |_| 0), |h, i| build(b, |j| if j != x[i].min(b - 1) { h[j] } else { h[j] + 1 }))
    }

    /// The tested index reads a `bool` that may fail (`% b` by a zero `b`): both move
    /// before the `build`, computed only when it has elements.
    pub fn hist_flagged(x: [usize; n], b: usize) -> [usize; b] {
        ifold(n, build(b, |_| 0), |h, i| {
            build(b, |j| {
                let low = x[i] % b < 2;
                if j == (if low { 0 } else { x[i] % b }) { h[j] + 1 } else { h[j] }
            })
        })
    }

    /// A row index that may fail (`% b` by a zero `b`) read in the branch: computed once a
    /// step, and only when the `build` has elements, as the `build` itself would.
    pub fn hist_rem(x: [usize; n], b: usize) -> [usize; b] {
        ifold(n, build(b, |_| 0), |h, i| build(b, |j| if j == x[i] % b { h[j] + 1 } else { h[j] }))
    }

    fn lse_build(mu: [[f64; d]; k], x: [[f64; d]; n]) -> f64 {
        sum(build(n, |i| logsumexp(build(k, |c| -sqnorm(sub(x[i], mu[c]))))))
    }
    fn lse_map(mu: [[f64; d]; k], x: [[f64; d]; n]) -> f64 {
        sum(map(x, |xi| logsumexp(build(k, |c| -sqnorm(sub(xi, mu[c]))))))
    }
    fn lse_fold(mu: [[f64; d]; k], x: [[f64; d]; n]) -> f64 {
        ifold(n, 0.0, |acc, i| acc + logsumexp(build(k, |c| -sqnorm(sub(x[i], mu[c])))))
    }
    /// A mixture-like objective's gradient, its sum over points spelled three ways.
    pub fn grad_build(mu: [[f64; d]; k], x: [[f64; d]; n], d: usize) -> (f64, [[f64; d]; k]) {
        grad(|m| lse_build(m, x), mu)
    }
    pub fn grad_map(mu: [[f64; d]; k], x: [[f64; d]; n], d: usize) -> (f64, [[f64; d]; k]) {
        grad(|m| lse_map(m, x), mu)
    }
    pub fn grad_fold(mu: [[f64; d]; k], x: [[f64; d]; n], d: usize) -> (f64, [[f64; d]; k]) {
        grad(|m| lse_fold(m, x), mu)
    }
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{a} vs {b}");
}

#[test]
fn a_pyramid_s_levels_live_in_their_outputs() {
    for (w, h) in [(16, 8), (64, 32)] {
        assert_eq!(pyramid::scratch_len(w, h), 0, "w = {w}, h = {h}");
    }
    let (w, h) = (16, 24);
    let img: Vec<f64> = (0..w * h).map(|k| ((k * 37) % 11) as f64 - 3.5).collect();
    let half = |src: &[f64], w: usize, h: usize| -> Vec<f64> {
        let mut out = Vec::new();
        for r in 0..h / 2 {
            for c in 0..w / 2 {
                let at = |y: usize, x: usize| src[y * w + x];
                out.push(
                    0.25 * (at(2 * r, 2 * c)
                        + at(2 * r, 2 * c + 1)
                        + at(2 * r + 1, 2 * c)
                        + at(2 * r + 1, 2 * c + 1)),
                );
            }
        }
        out
    };
    let l1 = half(&img, w, h);
    let l2 = half(&l1, w / 2, h / 2);
    let l3 = half(&l2, w / 4, h / 4);
    let (mut o0, mut o1, mut o2) = (
        vec![0.0; l1.len()],
        vec![0.0; l2.len()],
        vec![0.0; l3.len()],
    );
    pyramid(
        &mut o0,
        &mut o1,
        &mut o2,
        &img,
        w,
        &mut Region::from_slab(&mut []),
    )
    .unwrap();
    assert_eq!((o0, o1, o2), (l1, l2, l3));
}

#[test]
fn residuals_read_again_need_no_scratch_however_the_norm_is_written() {
    for p in [3, 1000] {
        assert_eq!(resid_sqnorm::scratch_len(p), 0);
        assert_eq!(resid_dot::scratch_len(p), 0);
        assert_eq!(resid_fold::scratch_len(p), 0);
    }
    let a = [1.0, -2.0, 0.5, 4.0];
    let b = [0.25, 1.0, -1.5, 2.0];
    let r: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x - y).collect();
    let want: f64 = r.iter().map(|v| v * v).sum();
    let mut slab: [f64; 0] = [];
    let mut out = [0.0; 4];
    close(
        resid_sqnorm(&mut out, &a, &b, &mut Region::from_slab(&mut slab)).unwrap(),
        want,
    );
    assert_eq!(out.to_vec(), r);
    let mut out = [0.0; 4];
    close(
        resid_dot(&mut out, &a, &b, &mut Region::from_slab(&mut slab)).unwrap(),
        want,
    );
    assert_eq!(out.to_vec(), r);
    let mut out = [0.0; 4];
    close(
        resid_fold(&mut out, &a, &b, &mut Region::from_slab(&mut slab)).unwrap(),
        want,
    );
    assert_eq!(out.to_vec(), r);
}

#[test]
fn labels_read_again_by_the_cost_live_in_their_output() {
    for (n, k) in [(10, 3), (10_000, 3)] {
        assert_eq!(labels_cost::scratch_len(n, k), 0);
        assert_eq!(labels_cost_fold::scratch_len(n, k), 0);
    }
    let x = [0.1, 2.9, 1.2, -4.0, 5.5, 3.1];
    let c = [0.0, 3.0, -3.5];
    type Labels = fn(&mut [usize], &[f64], &[f64], &mut Region<'_>) -> Result<f64, Error>;
    for f in [labels_cost as Labels, labels_cost_fold] {
        let mut labels = [9usize; 6];
        let cost = f(&mut labels, &x, &c, &mut Region::from_slab(&mut [])).unwrap();
        let mut want_cost = 0.0;
        for (i, xi) in x.iter().enumerate() {
            let mut best = 0;
            for j in 0..3 {
                if (xi - c[j]).abs() < (xi - c[best]).abs() {
                    best = j;
                }
            }
            assert_eq!(labels[i], best);
            want_cost += (xi - c[best]).abs();
        }
        close(cost, want_cost);
    }
}

#[test]
fn a_histogram_updates_its_output_in_place_whichever_index_it_reads() {
    for (n, b) in [(10, 4), (100_000, 64)] {
        assert_eq!(hist_at_bin::scratch_len(n, b), 0);
        assert_eq!(hist_at_j::scratch_len(n, b), 0);
        assert_eq!(hist_ne::scratch_len(n, b), 0);
        assert_eq!(hist_inline::scratch_len(n, b), 0);
    }
    let x: Vec<usize> = (0..200).map(|k| (k * 7919) % 23).collect();
    let mut want = [0usize; 16];
    for &v in &x {
        want[v.min(15)] += 1;
    }
    type Hist = fn(&mut [usize], &[usize], usize, &mut Region<'_>) -> Result<(), Error>;
    for f in [hist_at_bin as Hist, hist_at_j, hist_ne, hist_inline] {
        let mut h = [7usize; 16];
        f(&mut h, &x, 16, &mut Region::from_slab(&mut [])).unwrap();
        assert_eq!(h, want);
    }
    // No bins: nothing is read or computed (`b - 1` would underflow), as plain Rust's loop
    // over no bins.
    let mut none: [usize; 0] = [];
    hist_inline(&mut none, &x, 0, &mut Region::from_slab(&mut [])).unwrap();
}

#[test]
fn a_sum_s_gradient_keeps_nothing_per_point_however_the_sum_is_written() {
    let fold = grad_fold::scratch_len(3, 5, 10);
    for n in [10, 100_000] {
        assert_eq!(grad_build::scratch_len(3, 5, n), fold, "n = {n}");
        assert_eq!(grad_map::scratch_len(3, 5, n), fold, "n = {n}");
        assert_eq!(grad_fold::scratch_len(3, 5, n), fold, "n = {n}");
    }
    let (d, k, n) = (3, 4, 7);
    let mu: Vec<f64> = (0..k * d).map(|t| 0.3 * t as f64 - 1.0).collect();
    let x: Vec<f64> = (0..n * d)
        .map(|t| ((t * 13) % 7) as f64 * 0.4 - 1.2)
        .collect();
    // The objective and its gradient by hand: d/dmu_c = sum_i softmax_c(i) * 2 (x_i - mu_c).
    let (mut value, mut g) = (0.0, vec![0.0; k * d]);
    for i in 0..n {
        let v: Vec<f64> = (0..k)
            .map(|c| {
                -(0..d)
                    .map(|e| (x[i * d + e] - mu[c * d + e]).powi(2))
                    .sum::<f64>()
            })
            .collect();
        let m = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let z: f64 = v.iter().map(|t| (t - m).exp()).sum();
        value += z.ln() + m;
        for c in 0..k {
            let p = (v[c] - m).exp() / z;
            for e in 0..d {
                g[c * d + e] += p * 2.0 * (x[i * d + e] - mu[c * d + e]);
            }
        }
    }
    type Grad = fn(&mut [f64], &[f64], &[f64], usize, &mut Region<'_>) -> Result<f64, Error>;
    for f in [grad_build as Grad, grad_map, grad_fold] {
        let mut out = vec![0.0; k * d];
        close(f(&mut out, &mu, &x, d, &mut Region::new()).unwrap(), value);
        for (a, b) in out.iter().zip(&g) {
            close(*a, *b);
        }
    }
}

#[test]
fn a_row_index_that_may_fail_is_computed_only_for_a_non_empty_build() {
    assert_eq!(hist_rem::scratch_len(10, 4), 0);
    assert_eq!(hist_rem::scratch_len(100_000, 64), 0);
    let x = [5usize, 2, 9, 4, 4];
    let mut h = [0usize; 4];
    hist_rem(&mut h, &x, 4, &mut Region::from_slab(&mut [])).unwrap();
    assert_eq!(h, [2, 2, 1, 0]); // 5, 2, 9, 4, 4 modulo 4
    // b = 0: `x[i] % 0` is never computed by the empty `build`s, so no error.
    let mut none: [usize; 0] = [];
    hist_rem(&mut none, &x, 0, &mut Region::from_slab(&mut [])).unwrap();
}

#[test]
fn an_unrolled_literal_count_keeps_its_update_in_place() {
    // Written out, the new row is a literal of six values, all computed and then stored
    // over row k: no scratch. At a size name the row is a loop reading `acc[k][k]`, an
    // element it overwrites: the new row goes through one row of the frame.
    assert_eq!(rows_literal::SCRATCH_LEN, 0);
    assert_eq!(rows_sized::scratch_len(6), 6);
    let a: Vec<f64> = (0..36).map(|k| 1.0 + k as f64).collect();
    let mut want = a.clone();
    for k in 0..6 {
        let d = 1.0 / want[k * 6 + k];
        for j in 0..6 {
            want[k * 6 + j] *= d;
        }
    }
    let (mut x, mut y) = (vec![0.0; 36], vec![0.0; 36]);
    let mut slab = [0.0; 6];
    rows_literal(&mut x, &a, &mut Region::from_slab(&mut slab)).unwrap();
    rows_sized(&mut y, &a, &mut Region::from_slab(&mut slab)).unwrap();
    assert_eq!(x, want);
    assert_eq!(y, want);
}

#[test]
fn a_tested_index_and_a_test_that_may_fail_run_only_for_bins() {
    assert_eq!(hist_flagged::scratch_len(5, 4), 0);
    let x = [3usize, 1, 9, 3, 0, 6];
    let mut h = [0usize; 4];
    hist_flagged(&mut h, &x, 4, &mut Region::from_slab(&mut [])).unwrap();
    let mut want = [0usize; 4];
    for v in x {
        want[if v % 4 < 2 { 0 } else { v % 4 }] += 1;
    }
    assert_eq!(h, want);
    // No bins: `% b` by zero is never computed.
    let mut none: [usize; 0] = [];
    hist_flagged(&mut none, &x, 0, &mut Region::from_slab(&mut [])).unwrap();
}
