//! A `build` that reads a scan's states only at its own index is the scan's own output
//! (LANGUAGE.md section 13): one loop, the states in locals, no scratch however the scan's
//! states are bound (one state, a tuple, a state nothing reads but the step). And an
//! `ifold` whose step is a scan reading the old state at its own index runs in place, as a
//! `map` step does.

use fsmooth::{Region, fsmooth};

fsmooth! {
    /// A running mean: the scan of (sum, count), then their ratio per element.
    pub fn mean_pair(x: [f64; n]) -> [f64; n] {
        let (s, c) = scan(n, (0.0, 0.0), |(s, c), i| (s + x[i], c + 1.0));
        build(n, |i| s[i] / c[i])
    }

    /// The same, the count from the index and the sums alone scanned.
    pub fn mean_one(x: [f64; n]) -> [f64; n] {
        let s = scan(n, 0.0, |s, i| s + x[i]);
        build(n, |i| s[i] / ((i + 1) as f64))
    }

    /// The same with a state only the step reads (`_`), as a user binds it.
    pub fn mean_three(x: [f64; n]) -> [f64; n] {
        let (_, s, c) = scan(n, (0.0, 0.0, 0.0), |(t, s, c), i| (t + x[i], s + x[i], c + 1.0));
        build(n, |i| s[i] / c[i])
    }

    /// A smoothing filter run again over its own output, `p` passes.
    pub fn passes(x: [f64; n], p: usize, a: f64) -> [f64; n] {
        ifold(p, x, |v, _| scan(n, v[0], |s, i| a * s + (1.0 - a) * v[i]))
    }

    /// Read at another index: the states are stored, as written.
    pub fn shifted(x: [f64; n]) -> [f64; n] {
        let (s, c) = scan(n, (0.0, 0.0), |(s, c), i| (s + x[i], c + 1.0));
        build(n, |i| s[n - 1 - i] / c[i])
    }
}

fn data(n: usize) -> Vec<f64> {
    (0..n).map(|k| ((k * 7) % 13) as f64 * 0.5 - 2.0).collect()
}

#[test]
fn scan_outputs_agree_with_plain_rust_and_need_no_scratch() {
    for n in [1usize, 2, 7, 40] {
        let x = data(n);
        let (mut want, mut s, mut c) = (vec![0.0; n], 0.0, 0.0);
        for i in 0..n {
            s += x[i];
            c += 1.0;
            want[i] = s / c;
        }
        type Kernel = fn(&mut [f64], &[f64], &mut Region<'_>) -> Result<(), fsmooth::Error>;
        let kernels: [(&str, Kernel); 3] = [
            ("mean_pair", |o, x, r| mean_pair(o, x, r)),
            ("mean_one", |o, x, r| mean_one(o, x, r)),
            ("mean_three", |o, x, r| mean_three(o, x, r)),
        ];
        for (name, k) in kernels {
            let mut got = vec![f64::NAN; n];
            k(&mut got, &x, &mut Region::new()).unwrap();
            assert_eq!(got, want, "{name}, n = {n}");
        }
        let mut sums = vec![0.0; n];
        let mut acc = 0.0;
        for i in 0..n {
            acc += x[i];
            sums[i] = acc;
        }
        let mut got = vec![f64::NAN; n];
        shifted(&mut got, &x, &mut Region::new()).unwrap();
        let want: Vec<f64> = (0..n).map(|i| sums[n - 1 - i] / (i + 1) as f64).collect();
        assert_eq!(got, want, "shifted, n = {n}");
    }
    for n in [10, 10_000] {
        assert_eq!(mean_pair::scratch_len(n), 0);
        assert_eq!(mean_one::scratch_len(n), 0);
        assert_eq!(mean_three::scratch_len(n), 0);
        // Read elsewhere than at its own index: the states are kept.
        assert!(shifted::scratch_len(n) >= n);
    }
}

#[test]
fn a_fold_of_scans_runs_in_place() {
    for n in [1usize, 5, 16, 17, 300] {
        let x = data(n);
        for p in [0usize, 1, 4] {
            let a = 0.75;
            let mut want = x.clone();
            for _ in 0..p {
                let mut s = want[0];
                for t in want.iter_mut() {
                    s = a * s + (1.0 - a) * *t;
                    *t = s;
                }
            }
            let mut got = vec![f64::NAN; n];
            passes(&mut got, &x, p, a, &mut Region::new()).unwrap();
            assert_eq!(got, want, "n = {n}, p = {p}");
        }
    }
    // One buffer, the output: was n slots (two buffers, the output and one of the frame).
    assert_eq!(passes::scratch_len(10), 0);
    assert_eq!(passes::scratch_len(10_000), 0);
}
