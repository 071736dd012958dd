// Tuple-state scans whose steps compute more than one operation per component: the
// biquad filters of docs/language.md section 9, written as a user would. These stop the
// macro with an internal error after the `anf` pass; move this file to `pass/` once fixed.
use fsmooth::{Error, Region, fsmooth};

fsmooth! {
    /// y[i] = b0 x[i] + b1 x[i-1] + b2 x[i-2] - a1 y[i-1] - a2 y[i-2], zero initial state.
    pub fn biquad_df1(x: [f64; n], b: [f64; 3], a: [f64; 2]) -> [f64; n] {
        let xp = pad(x, 2, 0, 0.0);
        let (y, _) = scan(n, (0.0, 0.0), |(y1, y2), i| {
            let yi = b[0] * xp[i + 2] + b[1] * xp[i + 1] + b[2] * xp[i] - a[0] * y1 - a[1] * y2;
            (yi, y1)
        });
        y
    }

    /// The same filter in direct form II transposed.
    pub fn biquad_df2t(x: [f64; n], b: [f64; 3], a: [f64; 2]) -> [f64; n] {
        let (y, _, _) = scan(n, (0.0, 0.0, 0.0), |(_, s1, s2), i| {
            let yi = b[0] * x[i] + s1;
            (yi, b[1] * x[i] - a[0] * yi + s2, b[2] * x[i] - a[1] * yi)
        });
        y
    }

    /// Running sum and running maximum, both results.
    pub fn running(x: [f64; n]) -> ([f64; n], [f64; n]) {
        scan(n, (0.0, -1.0 / 0.0), |(s, m), i| (s + x[i], m.max(x[i])))
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + a.abs().max(b.abs()))
}

fn main() -> Result<(), Error> {
    let mut region = Region::new();
    let x = [0.5, -1.25, 2.0, 3.5, -0.75, 1.0];
    let n = x.len();
    let (b, a) = ([0.2, 0.3, 0.1], [-0.4, 0.15]);

    let (mut df1, mut df2t) = ([0.0; 6], [0.0; 6]);
    biquad_df1(&mut df1, &x, &b, &a, &mut region)?;
    biquad_df2t(&mut df2t, &x, &b, &a, &mut region)?;
    let (mut y1, mut y2) = (0.0, 0.0);
    for i in 0..n {
        let xm1 = if i >= 1 { x[i - 1] } else { 0.0 };
        let xm2 = if i >= 2 { x[i - 2] } else { 0.0 };
        let yi = b[0] * x[i] + b[1] * xm1 + b[2] * xm2 - a[0] * y1 - a[1] * y2;
        assert!(close(df1[i], yi), "biquad_df1[{i}] = {}, want {yi}", df1[i]);
        assert!(
            close(df2t[i], yi),
            "biquad_df2t[{i}] = {}, want {yi}",
            df2t[i]
        );
        (y1, y2) = (yi, y1);
    }
    // docs/language.md section 9: the unread second component is not stored.
    assert_eq!(biquad_df1::scratch_len(6), 0);
    assert_eq!(biquad_df2t::scratch_len(6), 0);

    let (mut sums, mut maxes) = ([0.0; 6], [0.0; 6]);
    running(&mut sums, &mut maxes, &x, &mut region)?;
    let (mut s, mut m) = (0.0, f64::NEG_INFINITY);
    for i in 0..n {
        s += x[i];
        m = m.max(x[i]);
        assert!(close(sums[i], s) && maxes[i] == m, "running[{i}]");
    }
    Ok(())
}
