//! A `build` of scans read transposed (running sums or filters per feature, by columns) is
//! one scan of rows: scratch that does not grow with the number of rows, values as written.

use fsmooth::{Region, fsmooth};

fsmooth! {
    /// Running sums per feature, by columns, transposed.
    pub fn cum_cols(x: [[f64; d]; n], d: usize) -> [[f64; d]; n] {
        transpose(build(d, |j| scan(n, 0.0, |s, i| s + x[i][j])))
    }

    /// The same as one scan of rows.
    pub fn cum_rows(x: [[f64; d]; n], d: usize) -> [[f64; d]; n] {
        scan(n, build(d, |_| 0.0), |s, i| add(s, x[i]))
    }

    /// A filter per feature started at the first row, its columns bound and read
    /// element by element, and their sums.
    pub fn smooth_cols(x: [[f64; d]; n], d: usize, a: f64) -> ([[f64; d]; n], [f64; d]) {
        let cols = build(d, |j| scan(n, x[0][j], |s, i| a * s + (1.0 - a) * x[i][j]));
        (build(n, |i| build(d, |j| cols[j][i])), build(d, |j| sum(cols[j])))
    }
}

fn data(n: usize, d: usize) -> Vec<f64> {
    (0..n * d)
        .map(|k| ((k * 7) % 17) as f64 * 0.25 - 1.5)
        .collect()
}

#[test]
fn transposed_scans_agree_with_plain_rust() {
    for d in [1usize, 3, 8] {
        for n in [1usize, 2, 9] {
            let x = data(n, d);
            let mut want = vec![0.0; n * d];
            for j in 0..d {
                let mut s = 0.0;
                for i in 0..n {
                    s += x[i * d + j];
                    want[i * d + j] = s;
                }
            }
            let mut got = vec![f64::NAN; n * d];
            cum_cols(&mut got, &x, d, &mut Region::new()).unwrap();
            assert_eq!(got, want, "d = {d}, n = {n}");
            cum_rows(&mut got, &x, d, &mut Region::new()).unwrap();
            assert_eq!(got, want, "d = {d}, n = {n}");

            let a = 0.75;
            let (mut want, mut sums) = (vec![0.0; n * d], vec![0.0; d]);
            for j in 0..d {
                let mut s = x[j];
                let mut total = -0.0;
                for i in 0..n {
                    s = a * s + (1.0 - a) * x[i * d + j];
                    want[i * d + j] = s;
                    total += s;
                }
                sums[j] = total;
            }
            let (mut got, mut got_sums) = (vec![f64::NAN; n * d], vec![f64::NAN; d]);
            smooth_cols(&mut got, &mut got_sums, &x, d, a, &mut Region::new()).unwrap();
            assert_eq!((got, got_sums), (want, sums), "d = {d}, n = {n}");
        }
    }
}

#[test]
fn transposed_scans_take_the_scratch_of_the_scan_of_rows() {
    for d in [1usize, 8] {
        for n in [10usize, 10_000] {
            assert_eq!(cum_cols::scratch_len(d, n), cum_rows::scratch_len(d, n));
            assert_eq!(cum_cols::scratch_len(d, n), cum_cols::scratch_len(d, 10));
        }
    }
}
