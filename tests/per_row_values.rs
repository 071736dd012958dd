//! A value per row bound first as a vector (`let means = map(x, |row| sum(row) / d)`) and
//! read inside each row's loop: computed once per row at the head of the step, as when
//! written there, with no vector stored (LANGUAGE.md section 13: a `let` or the expression
//! written where it is read).

use fsmooth::{Region, fsmooth};

fsmooth! {
    /// Each row minus its mean, the means bound first.
    pub fn centre_vec(x: [[f64; d]; n], d: usize) -> [[f64; d]; n] {
        let means = map(x, |row| sum(row) / (d as f64));
        build(n, |i| map(x[i], |t| t - means[i]))
    }

    /// The same, the mean computed in the row's step.
    pub fn centre_row(x: [[f64; d]; n], d: usize) -> [[f64; d]; n] {
        build(n, |i| {
            let m = sum(x[i]) / (d as f64);
            map(x[i], |t| t - m)
        })
    }

    /// Rows standardised numpy-style: means, centred rows, deviations, each a whole array.
    pub fn standardise(x: [[f64; d]; n], d: usize, eps: f64) -> [[f64; d]; n] {
        let means = map(x, |row| sum(row) / (d as f64));
        let cen = build(n, |i| map(x[i], |t| t - means[i]));
        let sds = map(cen, |row| (sqnorm(row) / (d as f64) + eps).sqrt());
        build(n, |i| map(cen[i], |t| t / sds[i]))
    }

    /// An integral image, each row's running sums bound first as a matrix.
    pub fn integral_bound(img: [[f64; w]; h], w: usize) -> [[f64; w]; h] {
        let rows = build(h, |r| scan(w, 0.0, |s, c| s + img[r][c]));
        scan(h, build(w, |_| 0.0), |prev, r| add(prev, rows[r]))
    }

    /// The same with each row's running sums written in the step.
    pub fn integral_inline(img: [[f64; w]; h], w: usize) -> [[f64; w]; h] {
        scan(h, build(w, |_| 0.0), |prev, r| add(prev, scan(w, 0.0, |s, c| s + img[r][c])))
    }

    /// A softmax per row in the same style.
    pub fn softmax_rows(x: [[f64; c]; n], c: usize) -> [[f64; c]; n] {
        let m = map(x, |row| ifold(c, row[0], |a, j| a.max(row[j])));
        let e = build(n, |i| map(x[i], |t| (t - m[i]).exp()));
        let s = map(e, |row| sum(row));
        build(n, |i| map(e[i], |t| t / s[i]))
    }
}

fn data(n: usize, d: usize) -> Vec<f64> {
    (0..n * d)
        .map(|k| ((k * 13) % 19) as f64 * 0.3 - 2.0)
        .collect()
}

fn sum(v: &[f64]) -> f64 {
    v.iter().fold(-0.0, |a, b| a + b)
}

#[test]
fn per_row_values_agree_with_plain_rust() {
    for (n, d) in [(1usize, 1usize), (3, 4), (6, 5)] {
        let x = data(n, d);
        let mut want = vec![0.0; n * d];
        let mut std = vec![0.0; n * d];
        let mut soft = vec![0.0; n * d];
        for (i, row) in x.chunks(d).enumerate() {
            let m = sum(row) / d as f64;
            let cen: Vec<f64> = row.iter().map(|t| t - m).collect();
            let sd = (sum(&cen.iter().map(|t| t * t).collect::<Vec<_>>()) / d as f64 + 1e-3).sqrt();
            let mx = row.iter().fold(row[0], |a, &b| a.max(b));
            let e: Vec<f64> = row.iter().map(|t| (t - mx).exp()).collect();
            let s = sum(&e);
            for j in 0..d {
                want[i * d + j] = cen[j];
                std[i * d + j] = cen[j] / sd;
                soft[i * d + j] = e[j] / s;
            }
        }
        let mut out = vec![f64::NAN; n * d];
        centre_vec(&mut out, &x, d, &mut Region::new()).unwrap();
        assert_eq!(out, want);
        centre_row(&mut out, &x, d, &mut Region::new()).unwrap();
        assert_eq!(out, want);
        standardise(&mut out, &x, d, 1e-3, &mut Region::new()).unwrap();
        assert_eq!(out, std);
        softmax_rows(&mut out, &x, d, &mut Region::new()).unwrap();
        assert_eq!(out, soft);
    }
}

#[test]
fn an_integral_image_bound_by_rows_is_the_one_written_inline() {
    for (h, w) in [(1usize, 1usize), (3, 4), (5, 2)] {
        let img = data(h, w);
        let mut want = vec![0.0; h * w];
        for r in 0..h {
            let mut s = 0.0;
            for c in 0..w {
                s += img[r * w + c];
                want[r * w + c] = s + if r > 0 { want[(r - 1) * w + c] } else { 0.0 };
            }
        }
        let mut out = vec![f64::NAN; h * w];
        integral_bound(&mut out, &img, w, &mut Region::new()).unwrap();
        assert_eq!(out, want);
        integral_inline(&mut out, &img, w, &mut Region::new()).unwrap();
        assert_eq!(out, want);
    }
    for h in [10usize, 10_000] {
        assert_eq!(
            integral_bound::scratch_len(8, h),
            integral_inline::scratch_len(8, h)
        );
        assert_eq!(
            integral_bound::scratch_len(8, h),
            integral_bound::scratch_len(8, 10)
        );
    }
}

#[test]
fn per_row_values_take_no_scratch() {
    for d in [1usize, 16] {
        for n in [10usize, 10_000] {
            assert_eq!(centre_vec::scratch_len(d, n), 0);
            assert_eq!(centre_row::scratch_len(d, n), 0);
            assert_eq!(standardise::scratch_len(d, n), 0);
            assert_eq!(softmax_rows::scratch_len(d, n), 0);
        }
    }
}
