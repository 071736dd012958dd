use fsmooth::{fsmooth, Error, Region};

fsmooth! {
    pub fn stats(v: [f64; n]) -> (f64, f64, [f64; n]) {
        let m = sum(v) / (n as f64);
        let sd = (dot(v, v) / (n as f64) - m * m).sqrt();
        (m, sd, build(n, |i| (v[i] - m) / sd))
    }
}

fn main() -> Result<(), Error> {
    let mut region = Region::new();
    let v = [1.0, 2.0, 4.0];
    let mut z = [0.0; 3];
    // Expects all three components back, but the array went into `z` (it is `out2`).
    let (m, sd, _z) = stats(&mut z, &v, &mut region)?;
    assert!(m > 0.0 && sd > 0.0);
    Ok(())
}
