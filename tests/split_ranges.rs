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

fsmooth! {
    /// A Kalman prediction packed into 20 elements by a test of the index.
    pub fn packed(x: [f64; 4], p: [[f64; 4]; 4], f: [[f64; 4]; 4], q: [[f64; 4]; 4]) -> [f64; 20] {
        let xn = matvec(f, x);
        let pn = madd(matmul(matmul(f, p), transpose(f)), q);
        build(20, |i| if i < 4 { xn[i] } else { pn[(i - 4) / 4][(i - 4) % 4] })
    }

    /// Three ranges of a size: `i < m`, `m <= i < 2 * m`, the rest.
    pub fn three(a: [f64; m], k: usize) -> [f64; 2 * m + k] {
        build(2 * m + k, |i| if i < m { a[i] } else if i < 2 * m { 2.0 * a[i - m] } else { -1.0 })
    }
}

#[test]
fn packed_and_three_ranges_compute_every_element() {
    let x = [1.0, 2.0, 3.0, 4.0];
    let m4 = |s: f64| -> Vec<f64> { (0..16).map(|t| s * t as f64 + 1.0).collect() };
    let (p, f, q) = (m4(0.5), m4(0.25), m4(1.0));
    let mut out = vec![f64::NAN; 20];
    packed(&mut out, &x, &p, &f, &q, &mut Region::new()).unwrap();
    let fx: Vec<f64> = (0..4)
        .map(|i| (0..4).map(|k| f[i * 4 + k] * x[k]).sum())
        .collect();
    assert_eq!(out[..4], fx[..]);
    for i in 0..4 {
        for j in 0..4 {
            let fp = |r: usize, c: usize| (0..4).map(|k| f[r * 4 + k] * p[k * 4 + c]).sum::<f64>();
            let fpf: f64 = (0..4).map(|k| fp(i, k) * f[j * 4 + k]).sum();
            assert_eq!(out[4 + 4 * i + j], fpf + q[i * 4 + j], "({i}, {j})");
        }
    }
    for (m, k) in [(0, 0), (0, 3), (3, 0), (4, 2)] {
        let a: Vec<f64> = (0..m).map(|v| v as f64 + 0.5).collect();
        let mut out = vec![f64::NAN; 2 * m + k];
        three(&mut out, &a, k, &mut Region::new()).unwrap();
        let want: Vec<f64> = (0..2 * m + k)
            .map(|i| {
                if i < m {
                    a[i]
                } else if i < 2 * m {
                    2.0 * a[i - m]
                } else {
                    -1.0
                }
            })
            .collect();
        assert_eq!(out, want, "m = {m}, k = {k}");
    }
}
