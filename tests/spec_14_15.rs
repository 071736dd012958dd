//! LANGUAGE.md sections 14 (`iterate`) and 15 (`scatter_add`, `reduce_by_index`) as a user
//! reads them: each kernel against plain Rust, with the scratch and the errors the contract
//! names.

use fsmooth::{Error, Region, fsmooth};

mod k {
    use super::fsmooth;

    fsmooth! {
        /// Section 14's example: systematic resampling, a search inside a `scan`.
        pub fn resample(w: [f64; n], u0: f64) -> [usize; n] {
            let c = scan(n, 0.0, |acc, i| acc + w[i]);        // cumulative weights
            let total = c[n - 1];
            scan(n, 0, |k, j| {
                let u = (u0 + (j as f64) / (n as f64)) * total;
                iterate(k, |k| k + 1 < n && c[k] < u, |k| k + 1)
            })
        }

        /// A float state: halve until at most one.
        pub fn halve(x: f64) -> f64 {
            iterate(x, |s| s > 1.0, |s| s * 0.5)
        }

        /// A tuple state: Newton's square root, with its step count.
        pub fn newton_sqrt(a: f64) -> (f64, usize) {
            iterate((a.max(1.0), 0), |(x, k)| k < 50 && (x * x - a).abs() > 1e-12 * a, |(x, k)| {
                (0.5 * (x + a / x), k + 1)
            })
        }

        /// In f32, the state's literal taking its type from the step.
        pub fn halve32(x: f32) -> f32 {
            iterate(x, |s| s > 1.0, |s| s * 0.5)
        }

        /// An `iterate` in a `build`: the number of halvings of each element.
        pub fn halvings(x: [f64; n]) -> [usize; n] {
            build(n, |i| iterate((x[i], 0), |(v, _)| v > 1.0, |(v, k)| (v * 0.5, k + 1)).1)
        }

        /// An `iterate` in an `ifold`: a sum of the first index where each row passes a bound.
        pub fn first_above(m: [[f64; 4]; n], t: f64) -> usize {
            ifold(n, 0, |acc, r| acc + iterate(0, |j| j < 4 && m[r][j] <= t, |j| j + 1))
        }

        /// Section 15's histogram.
        pub fn histogram(x: [f64; n], b: usize) -> [usize; b] {
            scatter_add(b, n, |i| (((x[i] * (b as f64)) as usize).min(b - 1), 1))
        }

        /// Section 15's centroid sums: rows as values.
        pub fn centroid_sums(pts: [[f64; 8]; n], labels: [usize; n], k: usize) -> [[f64; 8]; k] {
            scatter_add(k, n, |i| (labels[i], pts[i]))
        }

        /// A computed index, rows as values: the index checked where the step computes it.
        pub fn shifted_sums(pts: [[f64; 3]; n], labels: [usize; n], k: usize) -> [[f64; 3]; k] {
            scatter_add(k, n, |i| (labels[i] + 1, pts[i]))
        }

        /// A computed index, scalar values.
        pub fn shifted_counts(x: [f64; n], m: usize) -> [f64; m] {
            scatter_add(m, n, |i| ((x[i] * 2.0) as usize, x[i]))
        }

        /// Float counts in f32, from a literal value.
        pub fn weights32(idx: [usize; n], m: usize) -> [f32; m] {
            scatter_add(m, n, |i| (idx[i], 0.5))
        }

        /// A maximum by index.
        pub fn maxes(x: [f64; n], idx: [usize; n], m: usize) -> [f64; m] {
            reduce_by_index(m, -1.0e300, |a, b| a.max(b), n, |i| (idx[i], x[i]))
        }

        /// A product by index, of rows.
        pub fn row_products(x: [[f64; 2]; n], idx: [usize; n], m: usize) -> [[f64; 2]; m] {
            reduce_by_index(m, [1.0, 1.0], |a, b| build(2, |e| a[e] * b[e]), n, |i| (idx[i], x[i]))
        }

        /// A scatter that is not the result, read again.
        pub fn normalised_histogram(x: [usize; n], b: usize) -> [f64; b] {
            let h = scatter_add(b, n, |i| (x[i], 1));
            build(b, |j| (h[j] as f64) / (n as f64))
        }

        /// `jvp` through an `iterate`: d/dx of x halved until at most one.
        pub fn halve_jvp(x: f64) -> (f64, f64) {
            jvp(|x| iterate(x, |s| s > 1.0, |s| s * 0.5), x, 1.0)
        }

        /// `grad` through `scatter_add` (a gather back) and an index search inside.
        pub fn scatter_grad(x: [f64; n], idx: [usize; n], m: usize) -> (f64, [f64; n]) {
            grad(|x| {
                let s = scatter_add(m, n, |i| (idx[i], x[i] * x[i]));
                ifold(m, 0.0, |acc, j| acc + (j as f64 + 1.0) * s[j])
            }, x)
        }

        /// `grad` and `vjp` with an `iterate` over a captured value: it carries no
        /// differentiated float, so the sweep takes it for a constant (section 14).
        pub fn grad_const_iterate(w: [f64; n], u: f64) -> (f64, [f64; n]) {
            grad(|w| { let t = iterate(u, |s| s > 1.0, |s| s * 0.5); t * sum(w) }, w)
        }
        pub fn vjp_const_iterate(w: [f64; n], x: [f64; n], s: [f64; n]) -> ([f64; n], [f64; n]) {
            vjp(|w| build(n, |i| w[i] * iterate(x[i], |y| y > 1.0, |y| y * 0.5)), w, s)
        }
        /// ... and `reduce_by_index` with `max` over values not differentiated.
        pub fn grad_const_maxes(w: [f64; m], x: [f64; n], idx: [usize; n]) -> (f64, [f64; m]) {
            grad(|w| {
                let top = reduce_by_index(m, -1e30, |a, b| a.max(b), n, |i| (idx[i], x[i]));
                dot(w, top)
            }, w)
        }

        /// `jvp` through `reduce_by_index` with `max`.
        pub fn maxes_jvp(x: [f64; n], dx: [f64; n], idx: [usize; n], m: usize) -> ([f64; m], [f64; m]) {
            jvp(|x| reduce_by_index(m, -1e30, |a, b| a.max(b), n, |i| (idx[i], x[i])), x, dx)
        }
    }
}

#[test]
fn resampling_lands_each_pointer_in_its_particle() {
    let w = [0.1, 0.4, 0.0, 0.3, 0.2];
    let mut out = [9usize; 5];
    k::resample(&mut out, &w, 0.05, &mut Region::new()).unwrap();
    // By hand: cumulative weights, then for each pointer the first particle reaching it.
    let mut c = [0.0; 5];
    let mut acc = 0.0;
    for i in 0..5 {
        acc += w[i];
        c[i] = acc;
    }
    let mut want = [0usize; 5];
    let mut k = 0;
    for (j, slot) in want.iter_mut().enumerate() {
        let u = (0.05 + j as f64 / 5.0) * c[4];
        while k + 1 < 5 && c[k] < u {
            k += 1;
        }
        *slot = k;
    }
    assert_eq!(out, want);
    assert_eq!(out, [0, 1, 1, 3, 4]);
    // The cumulative weights are the only scratch: n slots, nothing per step.
    assert_eq!(k::resample::scratch_len(5), 5);
}

#[test]
fn iterate_with_scalar_tuple_and_f32_states() {
    let mut r = Region::new();
    assert_eq!(k::halve(10.0, &mut r).unwrap(), 0.625);
    assert_eq!(
        k::halve(0.5, &mut r).unwrap(),
        0.5,
        "no step when the condition is false"
    );
    assert_eq!(k::halve32(10.0, &mut r).unwrap(), 0.625f32);
    let (x, steps) = k::newton_sqrt(2.0, &mut r).unwrap();
    assert!((x - 2f64.sqrt()).abs() < 1e-12, "{x}");
    assert!(steps > 0 && steps < 50);
    let mut h = [0usize; 4];
    k::halvings(&mut h, &[0.5, 2.0, 3.0, 1000.0], &mut r).unwrap();
    assert_eq!(h, [0, 1, 2, 10]);
    let m = [
        [0.0, 1.0, 2.0, 3.0],
        [5.0, 5.0, 5.0, 5.0],
        [0.0, 0.0, 0.0, 0.0],
    ];
    // Row 0 passes 1.5 at 2, row 1 at 0, row 2 never (4).
    assert_eq!(k::first_above(m.as_flattened(), 1.5, &mut r).unwrap(), 6);
}

#[test]
fn histogram_counts_in_one_pass_and_needs_no_scratch() {
    let x = [0.05, 0.95, 0.5, 0.51, 1.0, 0.0, 0.25];
    let mut out = [7usize; 4];
    k::histogram(&mut out, &x, 4, &mut Region::new()).unwrap();
    let mut want = [0usize; 4];
    for v in x {
        want[((v * 4.0) as usize).min(3)] += 1;
    }
    assert_eq!(out, want);
    assert_eq!(k::histogram::scratch_len(7, 4), 0);
    assert_eq!(k::histogram::scratch_len(100_000, 64), 0);
}

#[test]
fn centroid_sums_add_rows() {
    let n = 20;
    let pts: Vec<[f64; 8]> = (0..n)
        .map(|i| core::array::from_fn(|e| (i * 8 + e) as f64 * 0.25))
        .collect();
    let labels: Vec<usize> = (0..n).map(|i| (i * 7) % 3).collect();
    let mut out = vec![[f64::NAN; 8]; 3];
    k::centroid_sums(
        out.as_flattened_mut(),
        pts.as_flattened(),
        &labels,
        3,
        &mut Region::new(),
    )
    .unwrap();
    let mut want = vec![[0.0; 8]; 3];
    for i in 0..n {
        for e in 0..8 {
            want[labels[i]][e] += pts[i][e];
        }
    }
    assert_eq!(out, want);
}

#[test]
fn scatter_past_the_end_is_an_index_error() {
    let mut r = Region::new();
    let mut out = [0usize; 3];
    let e = k::histogram(&mut out, &[0.5, 2.0], 3, &mut r);
    // 2.0 * 3 = 6 is clamped by `min(b - 1)`: no error.
    assert!(e.is_ok());
    let mut sums = [0.0; 16];
    let e = k::centroid_sums(&mut sums, &[1.0; 24], &[0, 1, 2], 2, &mut r);
    assert_eq!(e, Err(Error::Index { index: 2, len: 2 }));
    let mut m = [0.0; 2];
    let e = k::maxes(&mut m, &[1.0, 2.0], &[1, 5], 2, &mut r);
    assert_eq!(e, Err(Error::Index { index: 5, len: 2 }));
    let mut h = [0.0; 2];
    let e = k::normalised_histogram(&mut h, &[0, 7], 2, &mut r);
    assert_eq!(e, Err(Error::Index { index: 7, len: 2 }));
}

#[test]
fn computed_indexes_past_the_end_are_index_errors() {
    let mut r = Region::new();
    let mut sums = [0.0; 6];
    k::shifted_sums(&mut sums, &[1.0; 6], &[0, 0], 2, &mut r).unwrap();
    assert_eq!(sums, [0.0, 0.0, 0.0, 2.0, 2.0, 2.0]);
    let e = k::shifted_sums(&mut sums, &[1.0; 6], &[0, 1], 2, &mut r);
    assert_eq!(e, Err(Error::Index { index: 2, len: 2 }));
    let mut c = [0.0; 3];
    k::shifted_counts(&mut c, &[0.25, 0.75, 1.0], 3, &mut r).unwrap();
    assert_eq!(c, [0.25, 0.75, 1.0]);
    let e = k::shifted_counts(&mut c, &[0.25, 1.5], 3, &mut r);
    assert_eq!(e, Err(Error::Index { index: 3, len: 3 }));
    assert_eq!(k::shifted_sums::scratch_len(100, 7), 0);
    assert_eq!(
        k::centroid_sums::scratch_len(10_000, 16),
        0,
        "rows added where they live"
    );
}

#[test]
fn reduce_by_index_with_other_operations() {
    let mut r = Region::new();
    let mut m = [0.0; 3];
    k::maxes(&mut m, &[1.0, -2.0, 5.0, 3.0], &[0, 2, 0, 2], 3, &mut r).unwrap();
    assert_eq!(m, [5.0, -1.0e300, 3.0]);
    let mut p = [0.0; 4];
    k::row_products(
        &mut p,
        &[2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
        &[1, 1, 0],
        2,
        &mut r,
    )
    .unwrap();
    assert_eq!(p, [6.0, 7.0, 8.0, 15.0]);
    let mut w = [9.0f32; 3];
    k::weights32(&mut w, &[0, 0, 2, 0], 3, &mut r).unwrap();
    assert_eq!(w, [1.5, 0.0, 0.5]);
    let mut h = [0.0; 3];
    k::normalised_histogram(&mut h, &[0, 2, 2, 2], 3, &mut r).unwrap();
    assert_eq!(h, [0.25, 0.0, 0.75]);
}

#[test]
fn derivatives_through_iterate_and_scatter() {
    let mut r = Region::new();
    assert_eq!(k::halve_jvp(10.0, &mut r).unwrap(), (0.625, 0.0625));
    let x = [1.0, 2.0, 3.0];
    let idx = [1, 0, 1];
    let mut g = [0.0; 3];
    let v = k::scatter_grad(&mut g, &x, &idx, 2, &mut r).unwrap();
    // s = [4, 1 + 9]; value 1 * 4 + 2 * 10; d/dx_i = (idx_i + 1) * 2 x_i.
    assert_eq!(v, 24.0);
    assert_eq!(g, [4.0, 4.0, 12.0]);
    let (mut m, mut dm) = ([0.0; 2], [0.0; 2]);
    k::maxes_jvp(
        &mut m,
        &mut dm,
        &[1.0, 4.0, 3.0],
        &[0.5, 2.0, 7.0],
        &[0, 0, 1],
        2,
        &mut r,
    )
    .unwrap();
    assert_eq!(m, [4.0, 3.0]);
    assert_eq!(dm, [2.0, 7.0]);
    // An `iterate` and a `reduce_by_index` no differentiated value goes through.
    let mut gw = [9.0; 3];
    let v = k::grad_const_iterate(&mut gw, &[1.0, 2.0, 3.0], 5.0, &mut r).unwrap();
    assert_eq!((v, gw), (0.625 * 6.0, [0.625; 3]));
    let (mut y, mut gw) = ([0.0; 3], [0.0; 3]);
    k::vjp_const_iterate(
        &mut y,
        &mut gw,
        &[1.0, 2.0, 3.0],
        &[4.0, 0.5, 3.0],
        &[1.0, 1.0, 2.0],
        &mut r,
    )
    .unwrap();
    assert_eq!((y, gw), ([1.0, 1.0, 2.25], [1.0, 0.5, 1.5]));
    let mut gw = [0.0; 2];
    let v =
        k::grad_const_maxes(&mut gw, &[2.0, 3.0], &[1.0, 4.0, 3.0], &[0, 0, 1], &mut r).unwrap();
    assert_eq!((v, gw), (17.0, [4.0, 3.0]));
}

mod shadowing {
    use fsmooth::fsmooth;

    fsmooth! {
        /// A `let` named as its `iterate`'s state (section 14's example names both `k`).
        pub fn first_ge(a: [f64; n], q: f64) -> usize {
            let k = iterate(0, |k| k < n && a[k] < q, |k| k + 1);
            k
        }

        /// A row start written as an array literal of negated constants: no frame row.
        pub fn row_maxes(p: [[f64; 3]; n], idx: [usize; n], m: usize) -> [[f64; 3]; m] {
            reduce_by_index(m, [-1.0e300, -1.0e300, -1.0e300], |a, b| map2(a, b, |x, y| x.max(y)), n, |i| (idx[i], p[i]))
        }
    }
}

#[test]
fn a_let_named_as_its_iterates_state_and_a_literal_row_start() {
    let mut r = Region::new();
    assert_eq!(
        shadowing::first_ge(&[1.0, 2.0, 3.0], 2.5, &mut r).unwrap(),
        2
    );
    assert_eq!(
        shadowing::first_ge(&[1.0, 2.0, 3.0], 9.0, &mut r).unwrap(),
        3
    );
    let mut out = [0.0; 6];
    shadowing::row_maxes(
        &mut out,
        &[1.0, 5.0, 2.0, 3.0, 4.0, 0.0],
        &[1, 1],
        2,
        &mut r,
    )
    .unwrap();
    assert_eq!(out, [-1.0e300, -1.0e300, -1.0e300, 3.0, 5.0, 2.0]);
    assert_eq!(shadowing::row_maxes::scratch_len(10, 4), 0);
}

mod in_place {
    use fsmooth::fsmooth;

    fsmooth! {
        /// docs/language.md section 14's forward substitution.
        pub fn forward_subst(l: [[f64; n]; n], b: [f64; n]) -> [f64; n] {
            ifold(n, build(n, |_| 0.0), |x, i| {
                let s = ifold(i, 0.0, |acc, j| acc + l[i][j] * x[j]);
                build(n, |r| if r == i { (b[i] - s) / l[i][i] } else { x[r] })
            })
        }

        /// docs/language.md section 14's Cholesky factor, row by row.
        pub fn cholesky(a: [[f64; n]; n]) -> [[f64; n]; n] {
            ifold(n, build(n, |_| build(n, |_| 0.0)), |l, i| {
                let row = ifold(i + 1, build(n, |_| 0.0), |row, j| {
                    // Row j of the state is final for j < i; row i is `row`, being built.
                    let s = ifold(j, 0.0, |acc, k| acc + row[k] * (if j == i { row[k] } else { l[j][k] }));
                    let v = if j == i { (a[i][i] - s).sqrt() } else { (a[i][j] - s) / l[j][j] };
                    build(n, |c| if c == j { v } else { row[c] })
                });
                build(n, |r| if r == i { row } else { l[r] })
            })
        }
    }
}

#[test]
fn the_docs_triangular_solve_and_cholesky_factor_agree_with_rust() {
    let a = [[4.0, 2.0, 0.4], [2.0, 5.0, 1.0], [0.4, 1.0, 3.0]];
    let mut l = [[0.0f64; 3]; 3];
    for i in 0..3 {
        for j in 0..=i {
            let s: f64 = (0..j).map(|k| l[i][k] * l[j][k]).sum();
            l[i][j] = if i == j {
                (a[i][i] - s).sqrt()
            } else {
                (a[i][j] - s) / l[j][j]
            };
        }
    }
    let mut r = Region::new();
    let mut got = [[9.0; 3]; 3];
    in_place::cholesky(&mut got, &a, &mut r).unwrap();
    for i in 0..3 {
        for j in 0..3 {
            assert!((got[i][j] - l[i][j]).abs() < 1e-12, "{got:?} {l:?}");
        }
    }
    // The new row, computed apart and copied over row i (the `let` costs nothing more).
    assert_eq!(in_place::cholesky::scratch_len(3), 3);
    let b = [1.0, 2.0, 3.0];
    let mut x = [0.0; 3];
    in_place::forward_subst(&mut x, &l, &b, &mut r).unwrap();
    for i in 0..3 {
        let lx: f64 = (0..3).map(|j| l[i][j] * x[j]).sum();
        assert!((lx - b[i]).abs() < 1e-12);
    }
    assert_eq!(in_place::forward_subst::scratch_len(3), 0);
}

mod states {
    use fsmooth::fsmooth;

    fsmooth! {
        /// docs/language.md section 14's conjugate gradient: `x` in `out`, `A p`, `r` and `p`
        /// one buffer each.
        pub fn cg(b: [f64; n], steps: usize) -> [f64; n] {
            let (x, _, _, _) = ifold(steps, (build(n, |_| 0.0), b, b, dot(b, b)), |(x, r, p, rs), _| {
                let ap = build(n, |i| {
                    let l = if i > 0 { p[i - 1] } else { 0.0 };
                    let h = if i + 1 < n { p[i + 1] } else { 0.0 };
                    2.0 * p[i] - l - h
                });
                let alpha = rs / dot(p, ap);
                let x1 = add(x, smul(p, alpha));
                let r1 = sub(r, smul(ap, alpha));
                let rs1 = dot(r1, r1);
                (x1, r1, add(r1, smul(p, rs1 / rs)), rs1)
            });
            x
        }

        /// Welford's mean and M2 with a size name, the step a helper: both in their outputs,
        /// one loop over the features, `delta` never stored.
        pub fn welford(x: [[f64; d]; m], d: usize) -> ([f64; d], [f64; d]) {
            ifold(m, (build(d, |_| 0.0), build(d, |_| 0.0)), |(mean, m2), i| {
                let delta = sub(x[i], mean);
                let mean1 = add(mean, map(delta, |v| v / ((i + 1) as f64)));
                (mean1, add(m2, emul(delta, sub(x[i], mean1))))
            })
        }
    }
}

#[test]
fn fold_states_are_updated_in_place_as_the_docs_say() {
    // CG on the 1-D Poisson matrix against the same iteration in Rust.
    let n = 7;
    let b: Vec<f64> = (0..n).map(|i| (i as f64 * 0.7).sin() + 1.0).collect();
    let (mut x, mut r, mut p) = (vec![0.0; n], b.clone(), b.clone());
    let mut rs: f64 = b.iter().map(|v| v * v).sum();
    for _ in 0..4 {
        let ap: Vec<f64> = (0..n)
            .map(|i| {
                let l = if i > 0 { p[i - 1] } else { 0.0 };
                let h = if i + 1 < n { p[i + 1] } else { 0.0 };
                2.0 * p[i] - l - h
            })
            .collect();
        let alpha = rs / p.iter().zip(&ap).map(|(a, b)| a * b).sum::<f64>();
        for i in 0..n {
            x[i] += alpha * p[i];
            r[i] -= alpha * ap[i];
        }
        let rs1: f64 = r.iter().map(|v| v * v).sum();
        for i in 0..n {
            p[i] = r[i] + rs1 / rs * p[i];
        }
        rs = rs1;
    }
    let mut reg = Region::new();
    let mut got = vec![0.0; n];
    states::cg(&mut got, &b, 4, &mut reg).unwrap();
    for i in 0..n {
        assert!((got[i] - x[i]).abs() < 1e-10, "{got:?} {x:?}");
    }
    assert_eq!(states::cg::scratch_len(10), 30);
    assert_eq!(states::cg::scratch_len(1000), 3000);
    // Welford: no scratch at any size.
    let xs = [[1.0, 2.0], [3.0, 6.0], [5.0, 4.0]];
    let (mut mean, mut m2) = ([0.0; 2], [0.0; 2]);
    states::welford(&mut mean, &mut m2, &xs, 2, &mut reg).unwrap();
    assert_eq!(mean, [3.0, 4.0]);
    assert_eq!(m2, [8.0, 8.0]);
    assert_eq!(states::welford::scratch_len(2, 3), 0);
    assert_eq!(states::welford::scratch_len(64, 1000), 0);
}
