// A scan of a usize state (LANGUAGE.md section 10: usize arrays are first-class): the running
// count of positive samples, as an intermediate and as a result.
use fsmooth::{Error, Region, fsmooth};

fsmooth! {
    pub fn positives(x: [f64; n]) -> [usize; n] {
        scan(n, 0, |c, i| if x[i] > 0.0 { c + 1 } else { c })
    }

    /// The fraction of positive samples so far.
    pub fn fraction(x: [f64; n]) -> [f64; n] {
        let c = scan(n, 0, |c, i| if x[i] > 0.0 { c + 1 } else { c });
        build(n, |i| c[i] as f64 / ((i + 1) as f64))
    }
}

fn main() -> Result<(), Error> {
    let mut region = Region::new();
    let x = [0.5, -1.0, 2.0, 0.0, 3.0];
    let mut counts = [0usize; 5];
    positives(&mut counts, &x, &mut region)?;
    assert_eq!(counts, [1, 1, 2, 2, 3]);
    let mut frac = [0.0; 5];
    fraction(&mut frac, &x, &mut region)?;
    for i in 0..5 {
        assert_eq!(frac[i], counts[i] as f64 / (i + 1) as f64);
    }
    Ok(())
}
