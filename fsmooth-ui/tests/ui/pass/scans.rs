// Scans with scalar, array and tuple states, as results and as intermediates, run against
// plain Rust loops.
use fsmooth::{Error, Region, fsmooth};

fsmooth! {
    pub fn cumsum(x: [f64; n]) -> [f64; n] {
        scan(n, 0.0, |acc, i| acc + x[i])
    }

    /// Exponential moving average seeded with the first sample.
    pub fn ema(x: [f64; n], alpha: f64) -> [f64; n] {
        scan(n, 0.0, |s, i| if i == 0 { x[0] } else { s + alpha * (x[i] - s) })
    }

    /// An array state: the EMA of every channel, one row per step.
    pub fn ema_rows(x: [[f64; c]; n], c: usize, alpha: f64) -> [[f64; c]; n] {
        scan(n, x[0], |s, i| add(smul(s, 1.0 - alpha), smul(x[i], alpha)))
    }

    /// A tuple scan returned whole: two results, the running sum and running maximum.
    pub fn running(x: [f64; n]) -> ([f64; n], [f64; n]) {
        scan(n, (0.0, -1.0 / 0.0), |(s, m), i| {
            let v = x[i];
            (s + v, m.max(v))
        })
    }

    /// A scan used inside an expression: the total of the prefix sums.
    pub fn prefix_total(x: [f64; n]) -> f64 {
        sum(scan(n, 0.0, |acc, i| acc + x[i]))
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + a.abs().max(b.abs()))
}

fn main() -> Result<(), Error> {
    let mut region = Region::new();
    let x = [0.5, -1.25, 2.0, 3.5, -0.75, 1.0];
    let n = x.len();

    let mut out = [0.0; 6];
    cumsum(&mut out, &x, &mut region)?;
    let mut acc = 0.0;
    for i in 0..n {
        acc += x[i];
        assert!(close(out[i], acc), "cumsum[{i}] = {}", out[i]);
    }

    let alpha = 0.3;
    ema(&mut out, &x, alpha, &mut region)?;
    let mut s = 0.0;
    for i in 0..n {
        s = if i == 0 { x[0] } else { s + alpha * (x[i] - s) };
        assert!(close(out[i], s), "ema[{i}] = {}", out[i]);
    }

    let rows = [[1.0, 2.0], [3.0, -1.0], [0.0, 4.0]];
    let mut got = [[0.0; 2]; 3];
    ema_rows(
        got.as_flattened_mut(),
        rows.as_flattened(),
        2,
        alpha,
        &mut region,
    )?;
    let mut st = rows[0];
    for i in 0..3 {
        for c in 0..2 {
            st[c] = st[c] * (1.0 - alpha) + rows[i][c] * alpha;
            assert!(close(got[i][c], st[c]), "ema_rows[{i}][{c}]");
        }
    }

    let (mut sums, mut maxes) = ([0.0; 6], [0.0; 6]);
    running(&mut sums, &mut maxes, &x, &mut region)?;
    let (mut s, mut m) = (0.0, f64::NEG_INFINITY);
    for i in 0..n {
        s += x[i];
        m = m.max(x[i]);
        assert!(close(sums[i], s) && maxes[i] == m, "running[{i}]");
    }

    let total = prefix_total(&x, &mut region)?;
    let want: f64 = (0..n).map(|i| x[..=i].iter().sum::<f64>()).sum();
    assert!(close(total, want), "prefix_total {total} {want}");
    // LANGUAGE.md section 8: a scalar scan written into the result needs no scratch.
    assert_eq!(cumsum::scratch_len(6), 0);
    Ok(())
}
