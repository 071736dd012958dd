// Tuples through helpers and patterns, and kernels with several results, run against
// plain Rust loops.
use fsmooth::{Error, Region, fsmooth};

fsmooth! {
    /// Mean and variance in one pass (Welford), a helper returning a tuple.
    fn moments(x: [f64; n]) -> (f64, f64) {
        let (mean, m2) = ifold(n, (0.0, 0.0), |(mean, m2), i| {
            let d = x[i] - mean;
            let mean1 = mean + d / ((i + 1) as f64);
            (mean1, m2 + d * (x[i] - mean1))
        });
        (mean, m2 / (n as f64))
    }

    /// A helper taking a tuple and giving its components back in the other order.
    fn swap(t: ([f64; n], f64)) -> (f64, [f64; n]) {
        (t.1, t.0)
    }

    /// Only scalar results: returned as a Rust tuple.
    pub fn mean_var(x: [f64; n]) -> (f64, f64) {
        moments(x)
    }

    /// Two scalars and an array: the array is `out2`.
    pub fn stats(v: [f64; n]) -> (f64, f64, [f64; n]) {
        let (mean, var) = moments(v);
        let sd = var.sqrt();
        (mean, sd, build(n, |i| (v[i] - mean) / sd))
    }

    /// Two arrays: `out0` and `out1`.
    pub fn signs(x: [f64; n]) -> ([f64; n], [f64; n]) {
        (map(x, |v| v.max(0.0)), map(x, |v| v.min(0.0)))
    }

    /// Nested patterns, `_`, `if` between tuples, a tuple argument to a helper.
    pub fn range_scaled(a: [f64; n], s: f64) -> ([f64; n], f64, f64) {
        let ((lo, hi), _) = ifold(n, ((a[0], a[0]), 0.0), |((lo, hi), c), i| {
            ((lo.min(a[i]), hi.max(a[i])), c + 1.0)
        });
        let (w, scaled) = swap((smul(a, s), hi - lo));
        let (p, q) = if s > 0.0 { (lo, hi) } else { (hi, lo) };
        (scaled, w + p, q)
    }

    /// A matrix and a vector from one kernel, different shapes per component.
    pub fn row_col_sums(m: [[f64; c]; r], c: usize) -> ([f64; r], [f64; c], f64) {
        let rows = build(r, |i| sum(m[i]));
        let cols = build(c, |j| sum(build(r, |i| m[i][j])));
        (rows, cols, sum(rows))
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + a.abs().max(b.abs()))
}

fn main() -> Result<(), Error> {
    let mut region = Region::new();
    let x = [1.5, -2.0, 4.25, 0.5, 3.0];
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;

    let (m, v) = mean_var(&x, &mut region)?;
    assert!(close(m, mean) && close(v, var), "mean_var: {m} {v}");

    let mut z = [0.0; 5];
    assert_eq!(stats::out2_len(5), 5);
    let (m, sd) = stats(&mut z, &x, &mut region)?;
    assert!(close(m, mean) && close(sd, var.sqrt()));
    for i in 0..5 {
        assert!(
            close(z[i], (x[i] - mean) / var.sqrt()),
            "stats out2[{i}] = {}",
            z[i]
        );
    }

    let (mut pos, mut neg) = ([9.0; 5], [9.0; 5]);
    signs(&mut pos, &mut neg, &x, &mut region)?;
    for i in 0..5 {
        assert!(pos[i] == x[i].max(0.0) && neg[i] == x[i].min(0.0));
    }
    // A wrong out1 is named, and neither output is touched.
    let (mut pos, mut short) = ([9.0; 5], [9.0; 4]);
    let e = signs(&mut pos, &mut short, &x, &mut region);
    assert!(
        matches!(
            e,
            Err(Error::Shape {
                arg: "out1",
                expected: 5,
                found: 4
            })
        ),
        "{e:?}"
    );
    assert!(pos == [9.0; 5] && short == [9.0; 4]);

    let (lo, hi) = x
        .iter()
        .fold((x[0], x[0]), |(l, h), &v| (l.min(v), h.max(v)));
    for s in [2.0, -0.5] {
        let mut out = [0.0; 5];
        let (a, b) = range_scaled(&mut out, &x, s, &mut region)?;
        for i in 0..5 {
            assert!(out[i] == x[i] * s);
        }
        let (p, q) = if s > 0.0 { (lo, hi) } else { (hi, lo) };
        assert!(
            close(a, hi - lo + p) && b == q,
            "range_scaled({s}): {a} {b}"
        );
    }

    let m = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
    let (mut rows, mut cols) = ([0.0; 2], [0.0; 3]);
    assert_eq!(
        (row_col_sums::out0_len(3, 2), row_col_sums::out1_len(3, 2)),
        (2, 3)
    );
    let total = row_col_sums(&mut rows, &mut cols, m.as_flattened(), 3, &mut region)?;
    for i in 0..2 {
        assert!(rows[i] == m[i].iter().sum::<f64>());
    }
    for j in 0..3 {
        assert!(cols[j] == m[0][j] + m[1][j]);
    }
    assert!(total == 21.0);
    Ok(())
}
