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

    /// Welford over `d` features, the variance its second result: the M2 state iterates in
    /// that output (no scratch), in local arrays when `d <= 16`.
    pub fn welford_dyn(x: [[f64; d]; n], d: usize) -> ([f64; d], [f64; d]) {
        let zero = build(d, |_| 0.0);
        let (mean, m2) = ifold(n, (zero, zero), |(mean, m2), i| {
            let delta = sub(x[i], mean);
            let mean1 = add(mean, map(delta, |v| v / ((i + 1) as f64)));
            (mean1, add(m2, emul(delta, sub(x[i], mean1))))
        });
        (mean, map(m2, |v| v / (n as f64)))
    }

    /// The variance a `let` read by a third result, the standard deviation: M2 iterates in
    /// the variance's output, which the third reads (no scratch, as `welford_dyn`).
    pub fn welford_std(x: [[f64; d]; n], d: usize) -> ([f64; d], [f64; d], [f64; d]) {
        let zero = build(d, |_| 0.0);
        let (mean, m2) = ifold(n, (zero, zero), |(mean, m2), i| {
            let delta = sub(x[i], mean);
            let mean1 = add(mean, map(delta, |v| v / ((i + 1) as f64)));
            (mean1, add(m2, emul(delta, sub(x[i], mean1))))
        });
        let var = map(m2, |v| v / (n as f64));
        (mean, var, map(var, |v| v.sqrt()))
    }

    /// The same, the variance written in both places it is read.
    pub fn welford_std_inline(x: [[f64; d]; n], d: usize) -> ([f64; d], [f64; d], [f64; d]) {
        let zero = build(d, |_| 0.0);
        let (mean, m2) = ifold(n, (zero, zero), |(mean, m2), i| {
            let delta = sub(x[i], mean);
            let mean1 = add(mean, map(delta, |v| v / ((i + 1) as f64)));
            (mean1, add(m2, emul(delta, sub(x[i], mean1))))
        });
        (mean, map(m2, |v| v / (n as f64)), map(map(m2, |v| v / (n as f64)), |v| v.sqrt()))
    }

    /// A state in its output, updated in place, whose step combines the old state with a
    /// component of an inner fold element by element (the shape of the executor
    /// differential's program 300, which caught a component put where the old state lives).
    pub fn inner_into_state(x: [f64; p], steps: usize) -> [f64; p] {
        ifold(steps, x, |v, _| {
            let (g, w) = ifold(p, (1.0, build(p, |_| 0.5)), |(g, w), k| {
                (g * 0.5 + v[0], build(p, |j| w[p - 1 - j] * 0.5 - (k as f64) * 0.125))
            });
            build(p, |j| v[j] * 0.5 + (w[j] + w[j] * g.tanh()))
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

fn welford_dyn_ref(x: &[f64], d: usize) -> (Vec<f64>, Vec<f64>) {
    let (mut mean, mut m2) = (vec![0.0; d], vec![0.0; d]);
    for (i, row) in x.chunks_exact(d).enumerate() {
        let k = (i + 1) as f64;
        for j in 0..d {
            let delta = row[j] - mean[j];
            let m1 = mean[j] + delta / k;
            m2[j] += delta * (row[j] - m1);
            mean[j] = m1;
        }
    }
    let n = (x.len() / d) as f64;
    (mean, m2.iter().map(|v| v / n).collect())
}

#[test]
fn a_size_generic_state_is_right_in_locals_and_in_its_outputs() {
    // d <= 16 runs the state in local arrays, d > 16 in the outputs.
    for d in [1usize, 3, 16, 17, 40] {
        for n in [1usize, 2, 7] {
            let x: Vec<f64> = (0..n * d)
                .map(|k| ((k * 7) % 13) as f64 * 0.5 - 2.0)
                .collect();
            let (mut mean, mut var) = (vec![f64::NAN; d], vec![f64::NAN; d]);
            welford_dyn(&mut mean, &mut var, &x, d, &mut Region::new()).unwrap();
            let (rm, rv) = welford_dyn_ref(&x, d);
            assert_eq!((mean, var), (rm, rv), "d = {d}, n = {n}");
        }
        assert_eq!(welford_dyn::scratch_len(d, 5), 0);
        assert_eq!(welford_dyn::scratch_len(d, 5000), 0);
    }
    // A bad length changes nothing.
    let (mut mean, mut var) = (vec![7.0; 3], vec![7.0; 3]);
    let e = welford_dyn(&mut mean, &mut var, &[1.0; 7], 3, &mut Region::new());
    assert!(e.is_err());
    assert_eq!((mean, var), (vec![7.0; 3], vec![7.0; 3]));
}

fn inner_into_state_ref(x: &[f64], steps: usize) -> Vec<f64> {
    let p = x.len();
    let mut v = x.to_vec();
    for _ in 0..steps {
        let (mut g, mut w) = (1.0f64, vec![0.5; p]);
        for k in 0..p {
            let w1: Vec<f64> = (0..p)
                .map(|j| w[p - 1 - j] * 0.5 - (k as f64) * 0.125)
                .collect();
            g = g * 0.5 + v[0];
            w = w1;
        }
        v = (0..p)
            .map(|j| v[j] * 0.5 + (w[j] + w[j] * g.tanh()))
            .collect();
    }
    v
}

#[test]
fn an_inner_fold_does_not_take_the_place_of_the_old_state() {
    for (p, steps) in [(1usize, 1usize), (3, 2), (5, 3)] {
        let x: Vec<f64> = (0..p).map(|j| j as f64 - 1.0).collect();
        let mut out = vec![f64::NAN; p];
        inner_into_state(&mut out, &x, steps, &mut Region::new()).unwrap();
        let want = inner_into_state_ref(&x, steps);
        for (a, b) in out.iter().zip(&want) {
            assert!(
                (a - b).abs() <= 1e-12 * b.abs().max(1.0),
                "p = {p}: {out:?} {want:?}"
            );
        }
    }
}

#[test]
fn a_let_over_a_state_read_by_a_later_result_needs_no_scratch() {
    for d in [1usize, 3, 16, 17, 40] {
        for n in [1usize, 2, 7] {
            let x: Vec<f64> = (0..n * d)
                .map(|k| ((k * 5) % 11) as f64 * 0.75 - 3.0)
                .collect();
            let (rm, rv) = welford_dyn_ref(&x, d);
            let rs: Vec<f64> = rv.iter().map(|v| v.sqrt()).collect();
            type Kernel = fn(
                &mut Vec<f64>,
                &mut Vec<f64>,
                &mut Vec<f64>,
                &Vec<f64>,
                usize,
                &mut Region<'_>,
            ) -> Result<(), fsmooth::Error>;
            let kernels: [Kernel; 2] = [
                |a, b, c, x, d, r| welford_std(a, b, c, x, d, r),
                |a, b, c, x, d, r| welford_std_inline(a, b, c, x, d, r),
            ];
            for k in kernels {
                let mut o = (vec![f64::NAN; d], vec![f64::NAN; d], vec![f64::NAN; d]);
                k(&mut o.0, &mut o.1, &mut o.2, &x, d, &mut Region::new()).unwrap();
                assert_eq!(o, (rm.clone(), rv.clone(), rs.clone()), "d = {d}, n = {n}");
            }
        }
        for n in [5, 5000] {
            assert_eq!(welford_std::scratch_len(d, n), 0);
            assert_eq!(welford_std_inline::scratch_len(d, n), 0);
        }
    }
}
