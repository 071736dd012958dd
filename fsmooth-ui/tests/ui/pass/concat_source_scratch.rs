// `sum(concat(a, b))` is the first example LANGUAGE.md section 9 says needs no scratch at
// all (a source view reads `a`, then `b`); today the concat is copied into an `n + m` frame.
// Move this file to `pass/` once it reads in place.
use fsmooth::{Error, Region, fsmooth};

fsmooth! {
    pub fn total(a: [f64; n], b: [f64; m]) -> f64 {
        sum(concat(a, b))
    }
}

fn main() -> Result<(), Error> {
    let (a, b) = ([1.0, -2.0, 3.0, -4.0], [0.5, 1.5, -2.5]);
    let got = total(&a, &b, &mut Region::from_slab(&mut []))?;
    assert!(got == a.iter().chain(&b).sum::<f64>());
    assert_eq!(total::scratch_len(4, 3), 0);
    Ok(())
}
