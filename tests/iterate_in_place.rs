//! An `iterate` whose next state reads, of the old array state, only the same element runs
//! in the state's one place, as the `ifold` of the same step does (LANGUAGE.md sections 13
//! and 14): an `iterate` used as a counted loop costs what the `ifold` costs.

use fsmooth::{Region, fsmooth};

fsmooth! {
    /// `p` damped steps as an `iterate` counting them.
    pub fn counted(x: [f64; n], p: usize) -> [f64; n] {
        iterate((x, 0), |(_, k)| k < p, |(v, k)| (map(v, |t| t * 0.5 + 1.0), k + 1)).0
    }

    /// The same as an `ifold`.
    pub fn folded(x: [f64; n], p: usize) -> [f64; n] {
        ifold(p, x, |v, _| map(v, |t| t * 0.5 + 1.0))
    }

    /// Halved until the first element is at most 1, and the number of halvings.
    pub fn until(x: [f64; n]) -> ([f64; n], usize) {
        iterate((x, 0), |(v, _)| v[0] > 1.0, |(v, k)| (build(n, |i| v[i] * 0.5), k + 1))
    }

    /// A step reading the neighbours: its output and one buffer, as an `ifold` of it keeps.
    pub fn smoothed(x: [f64; n], p: usize) -> [f64; n] {
        iterate((x, 0), |(_, k)| k < p, |(v, k)| {
            (build(n, |i| (v[i] + v[(i + 1).min(n - 1)]) * 0.5), k + 1)
        }).0
    }
}

fn data(n: usize) -> Vec<f64> {
    (0..n).map(|k| ((k * 5) % 11) as f64 * 1.5 + 0.25).collect()
}

#[test]
fn iterate_steps_in_place_agree_with_plain_rust() {
    for n in [1usize, 4, 16, 17, 100] {
        let x = data(n);
        for p in [0usize, 1, 3] {
            let mut want = x.clone();
            for _ in 0..p {
                want.iter_mut().for_each(|t| *t = *t * 0.5 + 1.0);
            }
            let mut got = vec![f64::NAN; n];
            counted(&mut got, &x, p, &mut Region::new()).unwrap();
            assert_eq!(got, want, "counted, n = {n}, p = {p}");
            folded(&mut got, &x, p, &mut Region::new()).unwrap();
            assert_eq!(got, want, "folded, n = {n}, p = {p}");

            let mut want = x.clone();
            for _ in 0..p {
                let old = want.clone();
                for i in 0..n {
                    want[i] = (old[i] + old[(i + 1).min(n - 1)]) * 0.5;
                }
            }
            smoothed(&mut got, &x, p, &mut Region::new()).unwrap();
            assert_eq!(got, want, "smoothed, n = {n}, p = {p}");
        }
        let (mut want, mut k) = (x.clone(), 0);
        while want[0] > 1.0 {
            want.iter_mut().for_each(|t| *t *= 0.5);
            k += 1;
        }
        let mut got = vec![f64::NAN; n];
        let steps = until(&mut got, &x, &mut Region::new()).unwrap();
        assert_eq!((got, steps), (want, k), "until, n = {n}");
    }
    for n in [10, 10_000] {
        // In the output: no scratch (it was two buffers of n, then a copy).
        assert_eq!(counted::scratch_len(n), 0);
        assert_eq!(folded::scratch_len(n), 0);
        assert_eq!(until::scratch_len(n), 0);
        // Reading its neighbours: the output and one buffer, taken in turn (was two buffers
        // and a copy).
        assert_eq!(smoothed::scratch_len(n), n);
    }
}

#[test]
fn a_stencil_iterate_ends_in_its_output_after_even_and_odd_step_counts() {
    // Two steps a turn: an even count ends in the output, an odd one copies back once.
    let n = 9;
    let x = data(n);
    for p in 0usize..6 {
        let mut want = x.clone();
        for _ in 0..p {
            let old = want.clone();
            for i in 0..n {
                want[i] = (old[i] + old[(i + 1).min(n - 1)]) * 0.5;
            }
        }
        let mut got = vec![f64::NAN; n];
        smoothed(&mut got, &x, p, &mut Region::new()).unwrap();
        assert_eq!(got, want, "p = {p}");
    }
}
