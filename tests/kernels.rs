//! End-to-end kernels: generated code against plain Rust.

#[macro_use]
mod common;
use common::*;
use fsmooth::{Error, Region};

mod paper {
    block! {
        /// The paper's add3.
        pub fn add3(a: [f64; n], b: [f64; n], c: [f64; n]) -> [f64; n] {
            add(add(a, b), c)
        }

        pub fn cross3(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
            cross(a, b)
        }

        pub fn norm_add(a: [f64; n], b: [f64; n]) -> f64 {
            norm(add(a, b))
        }

        pub fn centre(v: [f64; n]) -> [f64; n] {
            let mean = sum(v) / (n as f64);
            build(n, |i| v[i] - mean)
        }
    }
}

#[test]
fn add3_matches_plain_rust() {
    let mut rng = Rng::new(1);
    let mut region = Region::new();
    for n in [0, 1, 7, 100] {
        let (a, b, c) = (rng.vec(n), rng.vec(n), rng.vec(n));
        let mut out = vec![0.0; n];
        paper::add3(&mut out, &a, &b, &c, &mut region).unwrap();
        let want: Vec<f64> = (0..n).map(|i| a[i] + b[i] + c[i]).collect();
        assert_eq!(out, want);
        let args = [Value::vec(&a), Value::vec(&b), Value::vec(&c)];
        assert_eq!(out, reference(paper::SRC, "add3", &args));
        assert_eq!(paper::add3::out_len(n), n);
        assert_eq!(paper::add3::scratch_len(n), 0);
    }
}

#[test]
fn cross_and_norm() {
    let mut region = Region::new();
    let mut out = [0.0; 3];
    paper::cross3(&mut out, &[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0], &mut region).unwrap();
    assert_eq!(out, [-3.0, 6.0, -3.0]);
    assert_eq!(paper::cross3::SCRATCH_LEN, 0);
    assert_eq!(paper::cross3::OUT_LEN, 3);
    let r = paper::norm_add(&[3.0, 0.0], &[0.0, 4.0], &mut region).unwrap();
    assert_eq!(r, 5.0);
    assert_eq!(paper::norm_add::scratch_len(2), 0);
    let mut out = [0.0; 4];
    paper::centre(&mut out, &[1.0, 2.0, 3.0, 6.0], &mut region).unwrap();
    assert_eq!(out, [-2.0, -1.0, 0.0, 3.0]);
}

#[test]
fn wrong_lengths_are_errors_and_leave_out_untouched() {
    let mut region = Region::new();
    let mut out = [7.0; 3];
    let e = paper::add3(&mut out, &[1.0; 3], &[1.0; 4], &[1.0; 3], &mut region).unwrap_err();
    assert_eq!(
        e,
        Error::Shape {
            arg: "b",
            expected: 3,
            found: 4
        }
    );
    let msg = e.to_string();
    assert!(
        msg.contains("`b`") && msg.contains('3') && msg.contains('4'),
        "{msg}"
    );
    assert_eq!(out, [7.0; 3]);
    let mut short = [7.0; 2];
    let e = paper::add3(&mut short, &[1.0; 3], &[1.0; 3], &[1.0; 3], &mut region).unwrap_err();
    assert_eq!(
        e,
        Error::Shape {
            arg: "out",
            expected: 3,
            found: 2
        }
    );
    assert_eq!(short, [7.0; 2]);
}

mod linalg {
    block! {
        pub fn chain(a: [[f64; n]; n], b: [[f64; n]; n], c: [[f64; n]; n]) -> [[f64; n]; n] {
            matmul(matmul(a, b), c)
        }

        pub fn mv(a: [[f64; m]; n], v: [f64; m]) -> [f64; n] {
            matvec(a, v)
        }

        pub fn gram(a: [[f64; m]; n], m: usize) -> [[f64; n]; n] {
            matmul(a, transpose(a))
        }

        pub fn outer_sum(a: [f64; n], b: [f64; m], s: f64) -> [[f64; m]; n] {
            msmul(madd(outer(a, b), outer(a, b)), s)
        }
    }
}

fn matmul_ref(a: &[f64], b: &[f64], n: usize, k: usize, m: usize) -> Vec<f64> {
    let mut c = vec![0.0; n * m];
    for i in 0..n {
        for j in 0..m {
            let mut s = 0.0;
            for l in 0..k {
                s += a[i * k + l] * b[l * m + j];
            }
            c[i * m + j] = s;
        }
    }
    c
}

#[test]
fn matrix_chain_matches_plain_rust() {
    let mut rng = Rng::new(2);
    let mut region = Region::new();
    for n in [1, 3, 16] {
        let (a, b, c) = (rng.vec(n * n), rng.vec(n * n), rng.vec(n * n));
        let mut out = vec![0.0; n * n];
        linalg::chain(&mut out, &a, &b, &c, &mut region).unwrap();
        let want = matmul_ref(&matmul_ref(&a, &b, n, n, n), &c, n, n, n);
        assert_close(&out, &want, 1e-12);
        let args = [
            Value::matrix(&a, n),
            Value::matrix(&b, n),
            Value::matrix(&c, n),
        ];
        assert_close(&out, &reference(linalg::SRC, "chain", &args), 1e-12);
        // One n*n intermediate (a*b) is stored; b's transpose is fused into its reads.
        assert_eq!(linalg::chain::scratch_len(n), n * n);
    }
}

#[test]
fn matvec_gram_outer() {
    let mut rng = Rng::new(3);
    let mut region = Region::new();
    let (n, m) = (4, 3);
    let a = rng.vec(n * m);
    let v = rng.vec(m);
    let mut out = vec![0.0; n];
    linalg::mv(&mut out, &a, &v, &mut region).unwrap();
    assert_close(&out, &matmul_ref(&a, &v, n, m, 1), 1e-12);
    let mut g = vec![0.0; n * n];
    linalg::gram(&mut g, &a, m, &mut region).unwrap();
    let at: Vec<f64> = (0..m * n).map(|k| a[(k % n) * m + k / n]).collect();
    assert_close(&g, &matmul_ref(&a, &at, n, m, n), 1e-12);
    let b = rng.vec(m);
    let a4 = rng.vec(n);
    let mut o = vec![0.0; n * m];
    linalg::outer_sum(&mut o, &a4, &b, 0.5, &mut region).unwrap();
    let want: Vec<f64> = (0..n * m).map(|k| a4[k / m] * b[k % m]).collect();
    assert_close(&o, &want, 1e-12);
    let args = [Value::vec(&a4), Value::vec(&b), Value::F64(0.5)];
    assert_close(&o, &reference(linalg::SRC, "outer_sum", &args), 1e-12);
}

#[test]
fn interchanged_matmul_is_bit_identical_to_the_interpreter() {
    // The generated loops take 16, then 4, then 1 column at a time, each element's sum in a
    // local over k; each element still sums its terms in order from -0.0. Sizes with every
    // mix of tile widths.
    let mut rng = Rng::new(5);
    let mut region = Region::new();
    for n in [1, 3, 4, 5, 9, 16, 17, 21, 36, 37] {
        let (a, b, c) = (rng.vec(n * n), rng.vec(n * n), rng.vec(n * n));
        let mut out = vec![0.0; n * n];
        linalg::chain(&mut out, &a, &b, &c, &mut region).unwrap();
        let args = [
            Value::matrix(&a, n),
            Value::matrix(&b, n),
            Value::matrix(&c, n),
        ];
        assert_close(&out, &reference(linalg::SRC, "chain", &args), 0.0);
    }
}

#[test]
fn matrix_vector_rows_in_groups_are_bit_identical_to_the_interpreter() {
    // `mv` runs eight rows per pass of its inner loop, then four, then the rows left over
    // one at a time; each row still sums its terms in order. Every remainder of n / 8, and
    // rows of 1 to 17 terms.
    let mut rng = Rng::new(8);
    let mut region = Region::new();
    for n in 0..18 {
        for m in [1, 2, 5, 17] {
            let (a, v) = (rng.vec(n * m), rng.vec(m));
            let mut out = vec![0.0; n];
            linalg::mv(&mut out, &a, &v, &mut region).unwrap();
            let args = [Value::matrix(&a, m), Value::vec(&v)];
            assert_close(&out, &reference(linalg::SRC, "mv", &args), 0.0);
        }
    }
}

mod counted {
    block! {
        /// An `ifold` counted by another `ifold`'s result (the hand objective's walk up the
        /// bone chain): the count is a block in the generated code.
        pub fn steps(v: [f64; n]) -> [f64; n] {
            build(n, |i| {
                let (k, _) = ifold(i, (0, 0.0), |(c, s), j| if v[j] > 0.0 { (c + 1, s) } else { (c, s + v[j]) });
                ifold(k, v[i], |acc, _| acc * 2.0)
            })
        }
    }
}

#[test]
fn ifold_counted_by_an_ifold_compiles_and_agrees() {
    let v = [1.0, -1.0, 2.0, 3.0, -4.0, 0.5];
    let mut out = [0.0; 6];
    counted::steps(&mut out, &v, &mut fsmooth::Region::new()).unwrap();
    // Element i doubles v[i] once per positive element before it.
    assert_eq!(
        out,
        [1.0, -2.0, 2.0 * 2.0, 3.0 * 4.0, -4.0 * 8.0, 0.5 * 8.0]
    );
    let want = common::reference(counted::SRC, "steps", &[Value::vec(&v)]);
    assert_eq!(out.to_vec(), want);
}

mod in_place {
    fsmooth::fsmooth! {
        /// Rows summed into one vector: a fold that only adds to its array state, run in
        /// place (no second buffer).
        pub fn column_sums(m: usize, x: [[f64; m]; n]) -> [f64; m] {
            ifold(n, build(m, |_j| 0.0), |acc, i| add(acc, x[i]))
        }

        /// A histogram: each step adds to one element.
        pub fn histogram(m: usize, w: [f64; p], bin: [usize; p]) -> [f64; m] {
            ifold(p, build(m, |_j| 0.0), |acc, i| build(m, |j| acc[j] + if j == bin[i] { w[i] } else { 0.0 }))
        }
    }
}

#[test]
fn folds_that_add_to_an_array_give_the_fold_s_sums_to_the_bit() {
    let (n, m) = (7, 5);
    let x: Vec<f64> = (0..n * m)
        .map(|k| ((k * 37 % 23) as f64 - 11.0) / 7.0)
        .collect();
    let mut want = vec![0.0; m];
    for i in 0..n {
        for j in 0..m {
            want[j] += x[i * m + j];
        }
    }
    let mut got = vec![9.0; m];
    in_place::column_sums(&mut got, m, &x, &mut Region::new()).unwrap();
    assert_eq!(got, want);

    let w = [0.3, -1.25, 2.0, 0.1, 7.5, -0.4];
    let bin = [2usize, 0, 2, 4, 2, 1];
    let mut want = vec![0.0; m];
    for (k, &b) in bin.iter().enumerate() {
        want[b] += w[k];
    }
    let mut got = vec![9.0; m];
    in_place::histogram(&mut got, m, &w, &bin, &mut Region::new()).unwrap();
    assert_eq!(got, want);
    // A bin outside the state is no error (no element is read there): it matches nothing.
    let bin = [2usize, 0, 9, 4, 2, 1];
    let mut want = vec![0.0; m];
    for (k, &b) in bin.iter().enumerate().filter(|(_, b)| **b < m) {
        want[b] += w[k];
    }
    let mut got = vec![9.0; m];
    in_place::histogram(&mut got, m, &w, &bin, &mut Region::new()).unwrap();
    assert_eq!(got, want);
}

mod stencils {
    fsmooth::fsmooth! {
        /// Fixed ends.
        pub fn fixed(a: [f64; n]) -> [f64; n] {
            build(n, |i| if i == 0 || i == n - 1 { a[i] } else { (a[i - 1] + a[i] + a[i + 1]) / 3.0 })
        }
        /// Two steps at the start, one at the end, written with `<` and `>=`.
        pub fn wide(a: [f64; n]) -> [f64; n] {
            build(n, |i| if i < 2 || i >= n - 1 { -a[i] } else { a[i - 2] * a[i + 1] })
        }
        /// The interior in the `then` branch, through `!`. (`n - 2` would fail for n = 1, where
        /// the test never reaches it; the interior runs only for n >= 4, and the ends test it.)
        pub fn inside(a: [f64; n]) -> [f64; n] {
            build(n, |i| if !(i == 0 || n - 2 <= i) { a[i - 1] + a[i + 1] } else { 0.5 })
        }
        /// Fixed ends, the interior tested with `&&` and a strict `<` (true up to `n - 2`).
        pub fn between(a: [f64; n]) -> [f64; n] {
            build(n, |i| if i >= 1 && i < n - 1 { a[i - 1] - a[i + 1] } else { a[i] })
        }
        /// A 3 x 3 filter with clamped borders, the clamps written with `max` and `min`.
        pub fn clamped(img: [[f64; w]; h], w: usize) -> [[f64; w]; h] {
            build(h, |y| build(w, |x| {
                let y0 = y.max(1) - 1;
                let y2 = (y + 1).min(h - 1);
                let x0 = x.max(1) - 1;
                let x2 = (x + 1).min(w - 1);
                img[y0][x0] - 2.0 * img[y0][x2] + 3.0 * img[y][x] + 5.0 * img[y2][x0] + 7.0 * img[y2][x2]
            }))
        }
        /// The same weights as a table, the clamps written with `clamp` in folds.
        pub fn clamped_folds(img: [[f64; w]; h], k: [[f64; 3]; 3], w: usize) -> [[f64; w]; h] {
            build(h, |y| build(w, |x| {
                ifold(3, 0.0, |acc, dy| ifold(3, acc, |acc, dx| {
                    acc + k[dy][dx] * img[(y + dy).clamp(1, h) - 1][(x + dx).clamp(1, w) - 1]
                }))
            }))
        }
        /// Sweeps of `fixed`, the state in the output and one buffer.
        pub fn sweeps(a0: [f64; n], steps: usize) -> [f64; n] {
            ifold(steps, a0, |a, _t| build(n, |i| {
                if i == 0 || i == n - 1 { a[i] } else { (a[i - 1] + a[i] + a[i + 1]) / 3.0 }
            }))
        }
    }
}

#[test]
fn clamped_filters_peeled_in_both_dimensions_give_every_pixel_for_every_size() {
    let k = [[1.0, 0.0, -2.0], [0.0, 3.0, 0.0], [5.0, 0.0, 7.0]];
    for w in 1..7 {
        for h in 0..7 {
            let img: Vec<f64> = (0..w * h)
                .map(|i| 1.0 + (i * i % 11) as f64 * 0.5)
                .collect();
            let at = |y: usize, x: usize| img[y * w + x];
            let mut want = Vec::new();
            for y in 0..h {
                let ys = [y.max(1) - 1, y, (y + 1).min(h - 1)];
                for x in 0..w {
                    let xs = [x.max(1) - 1, x, (x + 1).min(w - 1)];
                    let mut s = 0.0;
                    for (dy, kr) in k.iter().enumerate() {
                        for (dx, kv) in kr.iter().enumerate() {
                            s += kv * at(ys[dy], xs[dx]);
                        }
                    }
                    want.push(s);
                }
            }
            let mut out = vec![f64::NAN; w * h];
            stencils::clamped(&mut out, &img, w, &mut Region::new()).unwrap();
            assert_eq!(out, want, "w = {w}, h = {h}");
            let mut out = vec![f64::NAN; w * h];
            let flat: Vec<f64> = k.iter().flatten().copied().collect();
            stencils::clamped_folds(&mut out, &img, &flat, w, &mut Region::new()).unwrap();
            assert_eq!(out, want, "folds: w = {w}, h = {h}");
        }
    }
}

#[test]
fn stencils_peeled_at_their_ends_give_every_element_for_every_length() {
    type Kernel = fn(&mut [f64], &[f64], &mut Region) -> Result<(), Error>;
    type Element = fn(&[f64], usize) -> f64;
    let by_hand: [(Kernel, Element); 4] = [
        (stencils::fixed, |a, i| {
            let n = a.len();
            if i == 0 || i == n - 1 {
                a[i]
            } else {
                (a[i - 1] + a[i] + a[i + 1]) / 3.0
            }
        }),
        (stencils::wide, |a, i| {
            let n = a.len();
            if i < 2 || i + 1 >= n {
                -a[i]
            } else {
                a[i - 2] * a[i + 1]
            }
        }),
        (stencils::inside, |a, i| {
            let n = a.len();
            if !(i == 0 || n < 2 || n - 2 <= i) {
                a[i - 1] + a[i + 1]
            } else {
                0.5
            }
        }),
        (stencils::between, |a, i| {
            if i >= 1 && i + 1 < a.len() {
                a[i - 1] - a[i + 1]
            } else {
                a[i]
            }
        }),
    ];
    for n in 0..9 {
        let a: Vec<f64> = (0..n).map(|i| 1.5 + i as f64 * 0.25).collect();
        for (k, (kernel, elem)) in by_hand.iter().enumerate() {
            let mut out = vec![f64::NAN; n];
            kernel(&mut out, &a, &mut Region::new()).unwrap();
            let want: Vec<f64> = (0..n).map(|i| elem(&a, i)).collect();
            assert_eq!(out, want, "kernel {k}, n = {n}");
        }
        for steps in 0..4 {
            let mut want = a.clone();
            for _ in 0..steps {
                want = (0..n).map(|i| by_hand[0].1(&want, i)).collect();
            }
            let mut out = vec![f64::NAN; n];
            stencils::sweeps(&mut out, &a, steps, &mut Region::new()).unwrap();
            assert_eq!(out, want, "sweeps, n = {n}, steps = {steps}");
        }
    }
}
