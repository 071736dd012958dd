//! Builds whose element tests its index against sizes and constants (`i < m` in a count of
//! `m + m`, `i < 4` in 20): every step computed, the test decided per range.

use fsmooth::{Region, fsmooth};

fsmooth! {
    /// Rows of `q` read only on the first half: the loop still runs all `m + m` steps.
    pub fn rows_then_constant(x: [f64; m], q: [[f64; m]; m]) -> [f64; m + m] {
        build(m + m, |i| if i < m { matvec(q, x)[i] } else { 3.0 })
    }

    /// The same, the test turned around and the product a fold.
    pub fn constant_then_rows(x: [f64; m], q: [[f64; m]; m]) -> [f64; 2 * m] {
        build(2 * m, |i| if i >= m { ifold(m, 0.0, |s, k| s + q[i - m][k] * x[k]) } else { 3.0 })
    }
}

fn inputs(m: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let x: Vec<f64> = (0..m).map(|j| j as f64 + 1.0).collect();
    let q: Vec<f64> = (0..m * m).map(|t| t as f64).collect();
    let qx = (0..m)
        .map(|i| (0..m).map(|k| q[i * m + k] * x[k]).sum())
        .collect();
    (x, q, qx)
}

#[test]
fn rows_read_on_some_steps_do_not_end_the_loop() {
    for m in [1, 4, 5] {
        let (x, q, qx) = inputs(m);
        let mut out = vec![f64::NAN; 2 * m];
        rows_then_constant(&mut out, &x, &q, &mut Region::new()).unwrap();
        assert_eq!(out[..m], qx[..], "m = {m}");
        assert!(out[m..].iter().all(|&v| v == 3.0), "m = {m}: {out:?}");
        let mut out = vec![f64::NAN; 2 * m];
        constant_then_rows(&mut out, &x, &q, &mut Region::new()).unwrap();
        assert!(out[..m].iter().all(|&v| v == 3.0), "m = {m}: {out:?}");
        assert_eq!(out[m..], qx[..], "m = {m}");
    }
}
