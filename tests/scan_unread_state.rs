//! A `scan` whose array state is not read after it (LANGUAGE.md section 8: components
//! nothing reads are not stored): its rows are not kept, the steps take two rows in turn,
//! so the scratch does not grow with the step count. Found by a user trial: a filter's
//! `let (y, _) = scan(n, (0.0, [0.0, 0.0]), ..)` took 2n + 2 slots, a Kalman filter
//! returning its estimates and dropping its covariances d^2 per step.

use fsmooth::{Region, fsmooth};

fsmooth! {
    /// A second-order filter, its two past outputs an array state.
    pub fn ts1(x: [f64; n]) -> [f64; n] {
        let (y, _) = scan(n, (0.0, [0.0, 0.0]), |(_, st), i| {
            let v = x[i] + 0.5 * st[0] - 0.1 * st[1];
            (v, [v, st[0]])
        });
        y
    }

    /// The same with scalar states.
    pub fn ts2(x: [f64; n]) -> [f64; n] {
        let (y, _, _) = scan(n, (0.0, 0.0, 0.0), |(_, s0, s1), i| {
            let v = x[i] + 0.5 * s0 - 0.1 * s1;
            (v, v, s0)
        });
        y
    }

    /// A bank of k one-pole states, only their first read out each step.
    pub fn ts3(x: [f64; n], c: [f64; k]) -> [f64; n] {
        let (y, _) = scan(n, (0.0, build(k, |_| 0.0)), |(_, st), i| {
            (x[i] + st[0], build(k, |j| st[j] * c[j] + x[i]))
        });
        y
    }

    /// The states returned too.
    pub fn ts4(x: [f64; n], c: [f64; k]) -> ([f64; n], [[f64; k]; n]) {
        scan(n, (0.0, build(k, |_| 0.0)), |(_, st), i| {
            (x[i] + st[0], build(k, |j| st[j] * c[j] + x[i]))
        })
    }
}

fn filter_ref(x: &[f64]) -> Vec<f64> {
    let (mut s0, mut s1) = (0.0, 0.0);
    x.iter()
        .map(|xi| {
            let v = xi + 0.5 * s0 - 0.1 * s1;
            (s0, s1) = (v, s0);
            v
        })
        .collect()
}

#[test]
fn an_unread_array_state_keeps_two_rows() {
    for n in [0usize, 1, 2, 3, 10, 101] {
        let x: Vec<f64> = (0..n).map(|i| ((i * 7) % 5) as f64 - 1.5).collect();
        let want = filter_ref(&x);
        let (mut y1, mut y2) = (vec![f64::NAN; n], vec![f64::NAN; n]);
        ts1(&mut y1, &x, &mut Region::new()).unwrap();
        ts2(&mut y2, &x, &mut Region::new()).unwrap();
        assert_eq!(y1, want, "n = {n}");
        assert_eq!(y2, want, "n = {n}");
        // Two rows of the two-element state and its start: not growing with n.
        assert_eq!(ts1::scratch_len(n), ts1::scratch_len(1000));
        assert_eq!(ts2::scratch_len(n), 0);
    }
    let c = [0.5, -0.25, 0.75];
    for n in [0usize, 1, 2, 5, 40] {
        let x: Vec<f64> = (0..n).map(|i| ((i * 3) % 7) as f64 * 0.5).collect();
        let (mut y3, mut y4) = (vec![f64::NAN; n], vec![f64::NAN; n]);
        let mut st = vec![f64::NAN; 3 * n];
        ts3(&mut y3, &x, &c, &mut Region::new()).unwrap();
        ts4(&mut y4, &mut st, &x, &c, &mut Region::new()).unwrap();
        assert_eq!(y3, y4, "n = {n}");
        assert_eq!(ts3::scratch_len(n, 3), ts3::scratch_len(1000, 3), "n = {n}");
        assert!(
            ts3::scratch_len(n, 3) <= 3 * 3,
            "{}",
            ts3::scratch_len(n, 3)
        );
    }
}
