//! Reverse mode (LANGUAGE.md section 12's `vjp` and `grad`) through the real macros, on each
//! way the reverse sweep handles a loop, against derivatives by hand in plain Rust: a sum over
//! data read through an index array (repeated indexes add up), a fold whose state carries
//! (its states kept), a `scan`, a map, and a carried fold inside a loop that bounds its count
//! (computed by forward mode instead).

use fsmooth::Region;

fsmooth::fsmooth! {
    /// A sum of squares of gathered elements: `x[idx[i]]` read once per `i`.
    pub fn gathered(x: [f64; n], idx: [usize; p]) -> (f64, [f64; n]) {
        grad(|v| ifold(p, 0.0, |acc, i| acc + v[idx[i]] * v[idx[i]]), x)
    }

    /// A mesh's edge energy: two rows of `v` per step, at the edge's ends.
    pub fn edges(v: [[f64; 2]; m], e: [[usize; 2]; p]) -> (f64, [[f64; 2]; m]) {
        grad(|v2| sum(build(p, |j| sqnorm(sub(v2[e[j][0]], v2[e[j][1]])))), v)
    }

    /// The same as a fold; over scalars; one end only; a triangle's three corners.
    pub fn edges_fold(v: [[f64; 2]; m], e: [[usize; 2]; p]) -> (f64, [[f64; 2]; m]) {
        grad(|v2| ifold(p, 0.0, |acc, j| {
            let d = sub(v2[e[j][0]], v2[e[j][1]]);
            acc + dot(d, d)
        }), v)
    }
    pub fn pair_products(x: [f64; m], e: [[usize; 2]; p]) -> (f64, [f64; m]) {
        grad(|v| sum(build(p, |j| v[e[j][0]] * v[e[j][1]])), x)
    }
    pub fn one_end(v: [[f64; 2]; m], e: [[usize; 2]; p]) -> (f64, [[f64; 2]; m]) {
        grad(|v2| sum(build(p, |j| sqnorm(v2[e[j][0]]))), v)
    }
    pub fn triangles(v: [[f64; 3]; m], f: [[usize; 3]; p]) -> (f64, [[f64; 3]; m]) {
        grad(|v2| sum(build(p, |j| {
            let [a, b, c] = f[j];
            sqnorm(sub(v2[a], v2[b])) + 0.5 * dot(v2[b], v2[c])
        })), v)
    }

    /// Users' spellings of the same energies: an element of a row per coordinate; a face's
    /// edges by a loop over its corners; the terms added to the fold's state one by one.
    pub fn edge_coords(v: [[f64; 3]; m], e: [[usize; 2]; p]) -> (f64, [[f64; 3]; m]) {
        grad(|x| ifold(p, 0.0, |acc, j| acc + sum(build(3, |k| {
            let d = x[e[j][0]][k] - x[e[j][1]][k];
            d * d
        }))), v)
    }
    pub fn face_cycle(v: [[f64; 3]; m], f: [[usize; 3]; p]) -> (f64, [[f64; 3]; m]) {
        grad(|x| ifold(p, 0.0, |acc, j| {
            acc + sum(build(3, |k| sqnorm(sub(x[f[j][k]], x[f[j][(k + 1) % 3]]))))
        }), v)
    }
    pub fn face_sum(v: [[f64; 3]; m], f: [[usize; 3]; p]) -> (f64, [[f64; 3]; m]) {
        grad(|x| sum(build(p, |j| {
            let [a, b, c] = f[j];
            sqnorm(sub(x[a], x[b])) + sqnorm(sub(x[b], x[c])) + sqnorm(sub(x[c], x[a]))
        })), v)
    }
    pub fn face_chain(v: [[f64; 3]; m], f: [[usize; 3]; p]) -> (f64, [[f64; 3]; m]) {
        grad(|x| ifold(p, 0.0, |acc, j| acc + sqnorm(sub(x[f[j][0]], x[f[j][1]]))
            + sqnorm(sub(x[f[j][1]], x[f[j][2]])) - dot(x[f[j][2]], x[f[j][0]])), v)
    }

    /// A sum over a `concat`: each part's adjoint computed where it goes, nothing stored.
    pub fn concat_parts(a: [f64; n], b: [f64; m]) -> (f64, [f64; n], [f64; m]) {
        grad(|x, y| sum(concat(map(x, |t| t * t), map(y, |t| t.sin()))), a, b)
    }

    /// One gathered row read twice by a row operation, by a sum and by a fold.
    pub fn row_twice(t: [[f64; 3]; m], idx: [usize; p]) -> (f64, [[f64; 3]; m]) {
        grad(|t2| sum(build(p, |j| dot(t2[idx[j]], t2[idx[j]]))), t)
    }
    pub fn row_twice_fold(t: [[f64; 3]; m], idx: [usize; p]) -> (f64, [[f64; 3]; m]) {
        grad(|t2| ifold(p, 0.0, |acc, j| acc + sum(emul(t2[idx[j]], t2[idx[j]]))), t)
    }

    /// A product: the state carries from step to step.
    pub fn product(x: [f64; n]) -> (f64, [f64; n]) {
        grad(|v| ifold(n, 1.0, |acc, i| acc * v[i]), x)
    }

    /// Running sums, weighted by the seed.
    pub fn running(x: [f64; n], s: [f64; n]) -> ([f64; n], [f64; n]) {
        vjp(|v| scan(n, 0.0, |acc, i| acc * 0.5 + v[i]), x, s)
    }

    /// A map: element `i` of the gradient from element `i` alone.
    pub fn squares(x: [f64; n], s: [f64; n]) -> ([f64; n], [f64; n]) {
        vjp(|v| map(v, |a| a * a.sin()), x, s)
    }

    /// Products of prefixes: a carried fold whose count is the enclosing loop's index.
    pub fn prefixes(x: [f64; n], s: [f64; n]) -> ([f64; n], [f64; n]) {
        vjp(|v| build(n, |i| ifold(i + 1, 1.0, |acc, j| acc * v[j])), x, s)
    }

    /// Each row's prefix sums of `w[c] * x[.. + s]`, squared and summed: `t` (a sum per
    /// element) is kept for the sweep, which reads it instead of computing it again.
    pub fn prefix_energy(n: usize, w: [[f64; n]; m], x: [f64; q], s: usize) -> (f64, [[f64; n]; m]) {
        grad(|v| sum(build(m, |c| {
            let t = build(n, |j| ifold(j + 1, 0.0, |a, e| a + v[c][e] * x[e + s]));
            sqnorm(t)
        })), w)
    }

    /// A scan started from `a`, read once per step of a loop around it: the loop's sum of
    /// `a`'s adjoint must not run through the scan's sweep, which multiplies what it carries.
    pub fn scanned(a: f64, p: usize, s: [f64; n]) -> ([f64; n], f64) {
        vjp(|x| build(n, |_i| scan(n, x, |acc, _k| acc * 0.5 + acc)[p % n]), a, s)
    }
}

fn close(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len());
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-12 * w.abs().max(1.0),
            "element {k}: {g} against {w}"
        );
    }
}

#[test]
fn a_scan_swept_inside_a_loop_adds_its_adjoint_once() {
    // Element i is a * 1.5^(p % n + 1), whatever i: the adjoint of a is that factor times
    // the sum of the seed.
    for p in 0..4 {
        let mut out = [0.0; 3];
        let da = scanned(&mut out, 0.8, p, &S[..3], &mut Region::new()).unwrap();
        let factor = 1.5f64.powi(p as i32 % 3 + 1);
        let want = factor * S[..3].iter().sum::<f64>();
        assert!((da - want).abs() <= 1e-12, "p = {p}: {da} against {want}");
        close(&out, &[0.8 * factor; 3]);
    }
}

const X: [f64; 5] = [0.7, -1.3, 2.1, 0.4, -0.9];
const S: [f64; 5] = [0.3, -0.2, 1.1, 0.5, -0.7];

#[test]
fn a_gathered_element_read_twice_gets_both_contributions() {
    let idx = [2usize, 0, 2, 4, 2, 1];
    let mut g = [0.0; 5];
    let value = gathered(&mut g, &X, &idx, &mut Region::new()).unwrap();
    let mut want = [0.0; 5];
    for &k in &idx {
        want[k] += 2.0 * X[k];
    }
    let sum: f64 = idx.iter().map(|&k| X[k] * X[k]).sum();
    assert!((value - sum).abs() <= 1e-12);
    close(&g, &want);
}

#[test]
fn rows_of_one_array_read_twice_in_a_step_get_both_contributions() {
    // Each step's two rows feed the same adjoint: one of the two was lost (a user's trial).
    let v = [[0.0, 0.0], [1.0, 0.0], [1.0, 2.0]];
    let e = [[0usize, 1], [1, 2], [2, 0]];
    let mut g = [[0.0; 2]; 3];
    let value = edges(&mut g, &v, &e, &mut Region::new()).unwrap();
    let mut want = [[0.0; 2]; 3];
    for [a, b] in e {
        for d in 0..2 {
            let diff = v[a][d] - v[b][d];
            want[a][d] += 2.0 * diff;
            want[b][d] -= 2.0 * diff;
        }
    }
    assert_eq!(value, 1.0 + 4.0 + 5.0);
    assert_eq!(g, want);
    assert_eq!(want, [[-4.0, -4.0], [2.0, -4.0], [2.0, 8.0]]);
    let t = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
    let idx = [0usize, 1, 1];
    let want = [[2.0, 4.0, 6.0], [16.0, 20.0, 24.0]];
    // One row read twice is one row: its adjoint added in place, nothing stored.
    assert_eq!(row_twice::scratch_len(2, 3), 0);
    assert_eq!(row_twice::scratch_len(1000, 3000), 0);
    assert_eq!(row_twice_fold::scratch_len(1000, 3000), 0);
    for k in [row_twice, row_twice_fold] {
        let mut g = [[0.0; 3]; 2];
        let value = k(&mut g, &t, &idx, &mut Region::new()).unwrap();
        assert_eq!((value, g), (14.0 + 2.0 * 77.0, want));
    }
}

#[test]
fn rows_of_one_array_each_step_reads_are_added_where_they_lie() {
    // Two or three rows of one array per step, in any spelling: each row's adjoint added to
    // its row in place (O(row) a step, no dense array), nothing stored.
    for (m, p) in [(3, 3), (1000, 3000)] {
        assert_eq!(edges::scratch_len(m, p), 0);
        assert_eq!(edges_fold::scratch_len(m, p), 0);
        assert_eq!(pair_products::scratch_len(m, p), 0);
        assert_eq!(one_end::scratch_len(m, p), 0);
        assert_eq!(triangles::scratch_len(m, p), 0);
    }
    // A loop edge (both ends one vertex) adds both contributions to that row.
    let v = [[0.0, 0.0], [1.0, 0.0], [1.0, 2.0]];
    let e = [[0usize, 1], [1, 2], [2, 0], [1, 1]];
    let mut want = [[0.0; 2]; 3];
    let mut ends = [[0.0; 2]; 3];
    let mut pairs = [0.0; 3];
    let x = [1.5, -2.0, 0.25];
    for [a, b] in e {
        for d in 0..2 {
            let diff = v[a][d] - v[b][d];
            want[a][d] += 2.0 * diff;
            want[b][d] -= 2.0 * diff;
            ends[a][d] += 2.0 * v[a][d];
        }
        pairs[a] += x[b];
        pairs[b] += x[a];
    }
    for k in [edges, edges_fold] {
        let mut g = [[9.0; 2]; 3];
        assert_eq!(k(&mut g, &v, &e, &mut Region::new()), Ok(10.0));
        assert_eq!(g, want);
    }
    let mut g = [[9.0; 2]; 3];
    assert_eq!(
        one_end(&mut g, &v, &e, &mut Region::new()),
        Ok(0.0 + 1.0 + 5.0 + 1.0)
    );
    assert_eq!(g, ends);
    let mut g = [9.0; 3];
    let value = pair_products(&mut g, &x, &e, &mut Region::new()).unwrap();
    assert_eq!(value, x[0] * x[1] + x[1] * x[2] + x[2] * x[0] + x[1] * x[1]);
    assert_eq!(g, pairs);
    let v3 = [
        [0.0, 1.0, 2.0],
        [1.0, -1.0, 0.5],
        [2.0, 0.0, 1.0],
        [0.5, 0.5, 0.5],
    ];
    let f = [[0usize, 1, 2], [1, 2, 3], [3, 3, 0]];
    let mut want = [[0.0; 3]; 4];
    let mut value = 0.0;
    for [a, b, c] in f {
        for d in 0..3 {
            let diff = v3[a][d] - v3[b][d];
            value += diff * diff + 0.5 * v3[b][d] * v3[c][d];
            want[a][d] += 2.0 * diff;
            want[b][d] += -2.0 * diff + 0.5 * v3[c][d];
            want[c][d] += 0.5 * v3[b][d];
        }
    }
    let mut g = [[9.0; 3]; 4];
    let got = triangles(&mut g, &v3, &f, &mut Region::new()).unwrap();
    assert!((got - value).abs() <= 1e-12 * value.abs());
    close(&g.concat(), &want.concat());
    // An index past the end: an error, the gradient untouched.
    let mut g = [[9.0; 2]; 3];
    assert!(edges(&mut g, &v, &[[0, 3]], &mut Region::new()).is_err());
    assert_eq!(g, [[9.0; 2]; 3]);
}

#[test]
fn mesh_energies_in_users_spellings_keep_nothing_and_agree() {
    // Before: the state's adjoint rebuilt at every step, 3m or more slots and O(m) a step.
    for (m, p) in [(4, 3), (1000, 3000)] {
        assert_eq!(edge_coords::scratch_len(m, p), 0);
        assert_eq!(face_cycle::scratch_len(m, p), 0);
        assert_eq!(face_chain::scratch_len(m, p), 0);
        assert_eq!(face_sum::scratch_len(m, p), 0);
    }
    let v = [
        [0.0, 1.0, 2.0],
        [1.0, -1.0, 0.5],
        [2.0, 0.0, 1.0],
        [0.5, 0.5, 0.5],
    ];
    let e = [[0usize, 1], [1, 2], [3, 3], [2, 0]];
    let f = [[0usize, 1, 2], [1, 2, 3], [3, 3, 0]];
    let d = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let dot3 = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let (mut value, mut want) = (0.0, [[0.0; 3]; 4]);
    for [a, b] in e {
        let t = d(v[a], v[b]);
        value += dot3(t, t);
        for k in 0..3 {
            want[a][k] += 2.0 * t[k];
            want[b][k] -= 2.0 * t[k];
        }
    }
    let mut g = [[9.0; 3]; 4];
    let got = edge_coords(&mut g, &v, &e, &mut Region::new()).unwrap();
    assert!((got - value).abs() <= 1e-12 * value);
    close(&g.concat(), &want.concat());
    let (mut cycle, mut want_cycle) = (0.0, [[0.0; 3]; 4]);
    let (mut chain, mut want_chain) = (0.0, [[0.0; 3]; 4]);
    for [a, b, c] in f {
        for (x, y) in [(a, b), (b, c), (c, a)] {
            let t = d(v[x], v[y]);
            cycle += dot3(t, t);
            for k in 0..3 {
                want_cycle[x][k] += 2.0 * t[k];
                want_cycle[y][k] -= 2.0 * t[k];
            }
        }
        for (x, y) in [(a, b), (b, c)] {
            let t = d(v[x], v[y]);
            chain += dot3(t, t);
            for k in 0..3 {
                want_chain[x][k] += 2.0 * t[k];
                want_chain[y][k] -= 2.0 * t[k];
            }
        }
        chain -= dot3(v[c], v[a]);
        for k in 0..3 {
            want_chain[c][k] -= v[a][k];
            want_chain[a][k] -= v[c][k];
        }
    }
    for k in [face_cycle, face_sum] {
        let mut g = [[9.0; 3]; 4];
        let got = k(&mut g, &v, &f, &mut Region::new()).unwrap();
        assert!((got - cycle).abs() <= 1e-12 * cycle);
        close(&g.concat(), &want_cycle.concat());
    }
    let mut g = [[9.0; 3]; 4];
    let got = face_chain(&mut g, &v, &f, &mut Region::new()).unwrap();
    assert!((got - chain).abs() <= 1e-12 * chain.abs());
    close(&g.concat(), &want_chain.concat());
}

#[test]
fn the_adjoint_of_a_concat_goes_to_its_parts_unstored() {
    assert_eq!(concat_parts::scratch_len(3, 2), 0);
    assert_eq!(concat_parts::scratch_len(3000, 2000), 0);
    let (a, b) = ([1.0, -2.0, 0.5], [0.25, 3.0]);
    let (mut ga, mut gb) = ([9.0; 3], [9.0; 2]);
    let value = concat_parts(&mut ga, &mut gb, &a, &b, &mut Region::new()).unwrap();
    let want: f64 = a.iter().map(|t| t * t).sum::<f64>() + b.iter().map(|t| t.sin()).sum::<f64>();
    assert!((value - want).abs() <= 1e-12);
    close(&ga, &a.map(|t| 2.0 * t));
    close(&gb, &b.map(f64::cos));
}

#[test]
fn a_bad_gather_index_is_an_error_and_the_gradient_is_untouched() {
    let mut g = [9.0; 5];
    let r = gathered(&mut g, &X, &[0, 5], &mut Region::new());
    assert!(r.is_err());
    assert_eq!(g, [9.0; 5]);
}

#[test]
fn a_bad_corner_in_any_column_is_an_entry_error_and_the_gradient_is_untouched() {
    // Every column of the faces is checked in one pass over them: a bad index in the
    // second or third column, in the first face or the last, is reported before anything
    // is written, the first bad value in the array's order.
    let v = [[0.5, 1.0, 2.0], [1.5, -1.0, 0.25], [3.0, 0.0, -2.0]];
    for (f, bad) in [
        ([[0, 3, 1], [1, 2, 0]], 3),
        ([[0, 1, 2], [2, 1, 7]], 7),
        ([[9, 1, 2], [2, 8, 0]], 9),
    ] {
        for kernel in [triangles, face_cycle, face_chain] {
            let mut g = [[-4.0; 3]; 3];
            assert_eq!(
                kernel(&mut g, &v, &f, &mut Region::new()),
                Err(fsmooth::Error::Index { index: bad, len: 3 })
            );
            assert_eq!(g, [[-4.0; 3]; 3]);
        }
    }
}

#[test]
fn a_product_s_gradient_is_the_product_of_the_others() {
    let mut g = [0.0; 5];
    let value = product(&mut g, &X, &mut Region::new()).unwrap();
    let want: Vec<f64> = (0..5)
        .map(|k| (0..5).filter(|&j| j != k).map(|j| X[j]).product())
        .collect();
    assert!((value - X.iter().product::<f64>()).abs() <= 1e-12);
    close(&g, &want);
}

#[test]
fn running_sums_pull_back_each_later_seed() {
    let (mut v, mut g) = ([0.0; 5], [0.0; 5]);
    running(&mut v, &mut g, &X, &S, &mut Region::new()).unwrap();
    // state i = sum over j <= i of x[j] 0.5^(i - j): d state_i / d x_j = 0.5^(i - j).
    let want: Vec<f64> = (0..5)
        .map(|j| (j..5).map(|i| S[i] * 0.5f64.powi((i - j) as i32)).sum())
        .collect();
    close(&g, &want);
}

#[test]
fn a_map_s_pullback_is_elementwise() {
    let (mut v, mut g) = ([0.0; 5], [0.0; 5]);
    squares(&mut v, &mut g, &X, &S, &mut Region::new()).unwrap();
    let want: Vec<f64> = (0..5)
        .map(|k| S[k] * (X[k].sin() + X[k] * X[k].cos()))
        .collect();
    close(&g, &want);
}

#[test]
fn a_carried_fold_inside_a_loop_is_differentiated_too() {
    let (mut v, mut g) = ([0.0; 5], [0.0; 5]);
    prefixes(&mut v, &mut g, &X, &S, &mut Region::new()).unwrap();
    // value_i = prod_{j <= i} x[j]; d value_i / d x_k = value_i / x[k] for k <= i.
    let value = |i: usize| (0..=i).map(|j| X[j]).product::<f64>();
    let want: Vec<f64> = (0..5)
        .map(|k| (k..5).map(|i| S[i] * value(i) / X[k]).sum())
        .collect();
    close(&g, &want);
}

#[test]
fn gradients_of_sums_need_no_scratch_per_point() {
    // The gathered sum's reverse sweep recomputes each step: its scratch does not depend on
    // the number of points.
    assert_eq!(
        gathered::scratch_len(5, 10),
        gathered::scratch_len(5, 100_000)
    );
}

#[test]
fn a_kept_row_s_gradient_matches_the_hand_derivative_and_a_bad_index_is_an_error() {
    // E = sum_c sum_j t_cj^2, t_cj = sum_{e <= j} w[c][e] x[e + s]: dE/dw[c][e] = sum_{j >= e}
    // 2 t_cj x[e + s].
    let (m, n) = (3, 4);
    let w: Vec<f64> = (0..m * n).map(|k| 0.3 * k as f64 - 1.1).collect();
    let x = [0.5, -0.25, 1.5, 2.0, -0.75, 0.125];
    for s in 0..=2 {
        let mut g = vec![0.0; m * n];
        let value = prefix_energy(&mut g, n, &w, &x, s, &mut Region::new()).unwrap();
        let (mut want_value, mut want) = (0.0, vec![0.0; m * n]);
        for c in 0..m {
            let t: Vec<f64> = (0..n)
                .map(|j| (0..=j).map(|e| w[c * n + e] * x[e + s]).sum())
                .collect();
            want_value += t.iter().map(|v| v * v).sum::<f64>();
            for e in 0..n {
                want[c * n + e] = (e..n).map(|j| 2.0 * t[j] * x[e + s]).sum();
            }
        }
        assert!(
            (value - want_value).abs() <= 1e-12 * want_value.abs(),
            "s = {s}"
        );
        close(&g, &want);
    }
    // x[e + 3] is past the end for e = 3: an error, found inside the loops (the gradient
    // is accumulated in its output, as the `ifold` spelling's always was, so it may be
    // partly written: LANGUAGE.md sections 13 and 15).
    let mut g = vec![7.0; m * n];
    assert_eq!(
        prefix_energy(&mut g, n, &w, &x, 3, &mut Region::new()),
        Err(fsmooth::Error::Index { index: 6, len: 6 })
    );
}
