// `min`, `max` and `clamp` on usize (LANGUAGE.md section 10): neighbours clamped at the edges.
// `clamp` is `x.max(lo).min(hi)`: it never panics, even when lo > hi.
use fsmooth::{Error, Region, fsmooth};

fsmooth! {
    /// A three-point average with the edges repeated.
    pub fn smooth(v: [f64; n]) -> [f64; n] {
        build(n, |i| (v[i.max(1) - 1] + v[i] + v[(i + 1).min(n - 1)]) / 3.0)
    }

    /// The element at `i` clamped into `lo..=hi`.
    pub fn pick(v: [f64; n], i: usize, lo: usize, hi: usize) -> f64 {
        v[i.clamp(lo, hi).min(n - 1)]
    }
}

fn main() -> Result<(), Error> {
    let mut region = Region::new();
    let v = [3.0, 6.0, 9.0, 12.0];
    let mut s = [0.0; 4];
    smooth(&mut s, &v, &mut region)?;
    assert_eq!(s, [(3.0 + 3.0 + 6.0) / 3.0, 6.0, 9.0, (9.0 + 12.0 + 12.0) / 3.0]);
    assert_eq!(pick(&v, 0, 2, 3, &mut region)?, 9.0);
    assert_eq!(pick(&v, 9, 0, 2, &mut region)?, 9.0);
    // lo > hi: `max(lo)` then `min(hi)` gives hi, no panic.
    assert_eq!(pick(&v, 0, 3, 1, &mut region)?, 6.0);
    Ok(())
}
