//! A fold whose step is a fold started from its state (Gauss-Seidel's sweeps): the inner
//! fold runs in the outer state's own buffer, with no second buffer and no copy per sweep,
//! in every spelling a user trial wrote, and values as plain Rust's.

use fsmooth::{Region, fsmooth};

fsmooth! {
    /// Sweeps of Gauss-Seidel for `-u'' = f` on a grid of n points, the new value by `==`.
    pub fn gs_eq(f: [f64; n], h2: f64, steps: usize) -> [f64; n] {
        ifold(steps, build(n, |_| 0.0), |u, _| ifold(n, u, |v, i| {
            let l = if i > 0 { v[i - 1] } else { 0.0 };
            let r = if i + 1 < n { v[i + 1] } else { 0.0 };
            let nv = 0.5 * (l + r + h2 * f[i]);
            build(n, |j| if j == i { nv } else { v[j] })
        }))
    }

    /// The test flipped, the value computed in the branch.
    pub fn gs_ne(f: [f64; n], h2: f64, steps: usize) -> [f64; n] {
        ifold(steps, build(n, |_| 0.0), |u, _| ifold(n, u, |v, i| {
            build(n, |j| if j != i {
                v[j]
            } else {
                0.5 * ((if i > 0 { v[i - 1] } else { 0.0 }) + (if i + 1 < n { v[i + 1] } else { 0.0 }) + h2 * f[i])
            })
        }))
    }

    /// One flat fold over `steps * n` steps, the point `t % n`: the nested sweeps.
    pub fn gs_flat(f: [f64; n], h2: f64, steps: usize) -> [f64; n] {
        ifold(steps * n, build(n, |_| 0.0), |v, t| {
            let i = t % n;
            let l = if i > 0 { v[i - 1] } else { 0.0 };
            let r = if i + 1 < n { v[i + 1] } else { 0.0 };
            build(n, |j| if j == i { 0.5 * (l + r + h2 * f[i]) } else { v[j] })
        })
    }

    /// A sweep as a helper.
    fn sweep(u: [f64; n], f: [f64; n], h2: f64) -> [f64; n] {
        ifold(n, u, |v, i| {
            let l = if i > 0 { v[i - 1] } else { 0.0 };
            let r = if i + 1 < n { v[i + 1] } else { 0.0 };
            build(n, |j| if j == i { 0.5 * (l + r + h2 * f[i]) } else { v[j] })
        })
    }

    pub fn gs_helper(f: [f64; n], h2: f64, steps: usize) -> [f64; n] {
        ifold(steps, build(n, |_| 0.0), |u, _| sweep(u, f, h2))
    }

    /// An inner fold that keeps two buffers (each step reads its neighbours' old values)
    /// started from the outer state.
    pub fn smooth_rounds(x: [f64; n], rounds: usize, k: usize) -> [f64; n] {
        ifold(rounds, x, |u, _| ifold(k, u, |v, _| build(n, |j| 0.5 * v[j] + 0.25 * v[(j + 1) % n])))
    }
}

fn gs_ref(f: &[f64], h2: f64, steps: usize) -> Vec<f64> {
    let n = f.len();
    let mut u = vec![0.0; n];
    for _ in 0..steps {
        for i in 0..n {
            let l = if i > 0 { u[i - 1] } else { 0.0 };
            let r = if i + 1 < n { u[i + 1] } else { 0.0 };
            u[i] = 0.5 * (l + r + h2 * f[i]);
        }
    }
    u
}

fn smooth_ref(x: &[f64], rounds: usize, k: usize) -> Vec<f64> {
    let n = x.len();
    let mut u = x.to_vec();
    for _ in 0..rounds * k {
        u = (0..n).map(|j| 0.5 * u[j] + 0.25 * u[(j + 1) % n]).collect();
    }
    u
}

#[test]
fn sweeps_agree_with_plain_rust() {
    for n in [1usize, 2, 7, 30] {
        let f: Vec<f64> = (0..n).map(|i| ((i * 5) % 7) as f64 - 2.5).collect();
        for steps in [0usize, 1, 2, 5] {
            let want = gs_ref(&f, 0.01, steps);
            let mut out = vec![f64::NAN; n];
            gs_eq(&mut out, &f, 0.01, steps, &mut Region::new()).unwrap();
            assert_eq!(out, want, "n = {n}, steps = {steps}");
            gs_ne(&mut out, &f, 0.01, steps, &mut Region::new()).unwrap();
            assert_eq!(out, want, "n = {n}, steps = {steps}");
            gs_helper(&mut out, &f, 0.01, steps, &mut Region::new()).unwrap();
            assert_eq!(out, want, "n = {n}, steps = {steps}");
            gs_flat(&mut out, &f, 0.01, steps, &mut Region::new()).unwrap();
            assert_eq!(out, want, "n = {n}, steps = {steps}");
            for k in [0usize, 1, 2, 3] {
                smooth_rounds(&mut out, &f, steps, k, &mut Region::new()).unwrap();
                assert_eq!(
                    out,
                    smooth_ref(&f, steps, k),
                    "n = {n}, rounds = {steps}, k = {k}"
                );
            }
        }
    }
}

#[test]
fn sweeps_take_no_scratch() {
    for n in [10usize, 10_000] {
        assert_eq!(gs_eq::scratch_len(n), 0);
        assert_eq!(gs_ne::scratch_len(n), 0);
        assert_eq!(gs_helper::scratch_len(n), 0);
        assert_eq!(gs_flat::scratch_len(n), 0);
    }
}
