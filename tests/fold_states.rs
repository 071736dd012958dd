//! Folds whose state is a tuple holding arrays (issue 38): two steps a turn over fixed
//! buffers, small `f64` states in local arrays, every count's parity, against plain Rust.

use fsmooth::{Region, fsmooth};

fsmooth! {
    /// Welford's mean and M2 of 16 features: two `[f64; 16]` states (local arrays).
    pub fn welford(x: [[f64; 16]; n]) -> ([f64; 16], [f64; 16]) {
        ifold(n, (build(16, |_| 0.0), build(16, |_| 0.0)), |(mean, m2), i| {
            let k = (i + 1) as f64;
            let mean1 = build(16, |j| mean[j] + (x[i][j] - mean[j]) / k);
            (mean1, build(16, |j| m2[j] + (x[i][j] - mean[j]) * (x[i][j] - mean1[j])))
        })
    }

    /// A sized array, a scalar and a counter in one state (the frame's buffers, the
    /// scalars in locals): each step reads the other components' old values.
    pub fn mixed(a: [f64; m], steps: usize) -> ([f64; m], f64, usize) {
        ifold(steps, (a, 1.0, 0), |(v, s, c), t| {
            (build(m, |j| v[(j + 1) % m] * s + (t as f64)), s * 0.5 + sum(v), c + t)
        })
    }
}

fn welford_ref(x: &[[f64; 16]]) -> ([f64; 16], [f64; 16]) {
    let (mut mean, mut m2) = ([0.0; 16], [0.0; 16]);
    for (i, row) in x.iter().enumerate() {
        let k = (i + 1) as f64;
        for j in 0..16 {
            let m1 = mean[j] + (row[j] - mean[j]) / k;
            m2[j] += (row[j] - mean[j]) * (row[j] - m1);
            mean[j] = m1;
        }
    }
    (mean, m2)
}

fn mixed_ref(a: &[f64], steps: usize) -> (Vec<f64>, f64, usize) {
    let (mut v, mut s, mut c) = (a.to_vec(), 1.0, 0);
    let m = a.len();
    for t in 0..steps {
        let next: Vec<f64> = (0..m).map(|j| v[(j + 1) % m] * s + t as f64).collect();
        s = s * 0.5 + v.iter().fold(0.0, |acc, x| acc + x);
        c += t;
        v = next;
    }
    (v, s, c)
}

#[test]
fn tuple_states_with_arrays_step_right_at_every_count() {
    for n in [0usize, 1, 2, 3, 8, 11] {
        let x: Vec<[f64; 16]> = (0..n)
            .map(|i| std::array::from_fn(|j| ((i * 7 + j * 3) % 11) as f64 + 0.25 * j as f64))
            .collect();
        let (mut mean, mut m2) = (vec![f64::NAN; 16], vec![f64::NAN; 16]);
        welford(&mut mean, &mut m2, x.as_flattened(), &mut Region::new()).unwrap();
        let (rm, r2) = welford_ref(&x);
        assert_eq!(mean, rm, "n = {n}");
        assert_eq!(m2, r2, "n = {n}");
        assert_eq!(welford::scratch_len(n), welford::scratch_len(10 * n + 1));
    }
    let a = [1.0, -2.0, 0.5, 3.0, 4.5];
    for steps in [0usize, 1, 2, 3, 6, 9] {
        let mut v = vec![f64::NAN; a.len()];
        let (s, c) = mixed(&mut v, &a, steps, &mut Region::new()).unwrap();
        let (rv, rs, rc) = mixed_ref(&a, steps);
        assert_eq!((v, s, c), (rv, rs, rc), "steps = {steps}");
    }
}
