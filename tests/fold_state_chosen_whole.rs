//! A fold step choosing its new array state whole (`if i == 0 { x[0] } else { add(s, x[i])
//! }`) costs what the choice written inside a `build` costs (LANGUAGE.md section 13: one
//! program, one cost; a fold's state updated in place): no buffer of its own. Found by a user
//! trial (the choice whole took a buffer of the state's length).

use fsmooth::{Region, fsmooth};

fsmooth! {
    fn ema_step(s: [f64; c], xi: [f64; c], alpha: f64) -> [f64; c] {
        add(smul(s, 1.0 - alpha), smul(xi, alpha))
    }
    /// The choice whole, `x[0]` against a helper's array.
    pub fn last_whole(x: [[f64; c]; n], c: usize, alpha: f64) -> [f64; c] {
        ifold(n, build(c, |_| 0.0), |s, i| if i == 0 { x[0] } else { ema_step(s, x[i], alpha) })
    }
    /// The choice by element.
    pub fn last_inside(x: [[f64; c]; n], c: usize, alpha: f64) -> [f64; c] {
        ifold(n, build(c, |_| 0.0), |s, i| {
            build(c, |j| if i == 0 { x[0][j] } else { s[j] * (1.0 - alpha) + x[i][j] * alpha })
        })
    }
    /// Between two helper calls, the result summed (the state in the frame).
    pub fn two_rates(x: [[f64; c]; n], s0: [f64; c], alpha: f64) -> f64 {
        sum(ifold(n, s0, |s, i| {
            if i % 2 == 0 { ema_step(s, x[i], alpha) } else { ema_step(s, x[i], 0.5) }
        }))
    }
    /// The running sum restarted at a row, one state of a tuple.
    pub fn restart(x: [[f64; c]; n], c: usize, r: usize) -> ([f64; c], f64) {
        ifold(n, (build(c, |_| 0.0), 0.0), |(s, t), i| {
            (if i == r { x[i] } else { add(s, x[i]) }, t + x[i][0])
        })
    }
}

#[test]
fn a_state_chosen_whole_is_updated_in_place() {
    let c = 3;
    for n in [1usize, 2, 5] {
        let x: Vec<f64> = (0..n * c).map(|k| (k % 7) as f64 - 2.5).collect();
        let (mut a, mut b) = (vec![f64::NAN; c], vec![f64::NAN; c]);
        last_whole(&mut a, &x, c, 0.25, &mut Region::new()).unwrap();
        last_inside(&mut b, &x, c, 0.25, &mut Region::new()).unwrap();
        assert_eq!(a, b, "n = {n}");
        let mut want = x[..c].to_vec();
        for row in x.chunks(c).skip(1) {
            for (w, v) in want.iter_mut().zip(row) {
                *w = *w * 0.75 + v * 0.25;
            }
        }
        assert_eq!(a, want, "n = {n}");
        // Rates alternating, summed.
        let s0 = [1.0, 2.0, 3.0];
        let mut s = s0.to_vec();
        for (i, row) in x.chunks(c).enumerate() {
            let al = if i % 2 == 0 { 0.25 } else { 0.5 };
            for (w, v) in s.iter_mut().zip(row) {
                *w = *w * (1.0 - al) + v * al;
            }
        }
        let got = two_rates(&x, &s0, 0.25, &mut Region::new()).unwrap();
        assert!((got - s.iter().sum::<f64>()).abs() < 1e-12, "n = {n}");
        let mut rs = vec![f64::NAN; c];
        let t = restart(&mut rs, &x, c, n / 2, &mut Region::new()).unwrap();
        let mut want = vec![0.0; c];
        for (i, row) in x.chunks(c).enumerate() {
            for (w, v) in want.iter_mut().zip(row) {
                *w = if i == n / 2 { *v } else { *w + v };
            }
        }
        assert_eq!(rs, want, "n = {n}");
        assert_eq!(t, x.chunks(c).map(|r| r[0]).sum::<f64>());
    }
    for n in [1usize, 100] {
        assert_eq!(
            last_whole::scratch_len(3, n),
            last_inside::scratch_len(3, n)
        );
        assert_eq!(last_whole::scratch_len(3, n), 0);
        assert_eq!(two_rates::scratch_len(3, n), 3, "the state in the frame");
        assert_eq!(restart::scratch_len(3, n), 0);
    }
}
