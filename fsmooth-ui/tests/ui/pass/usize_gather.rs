// Index arrays (LANGUAGE.md section 10): usize parameters, rows of indexes, a gather through
// an element of an index array, local usize arrays, usize results, and `map` to and from
// usize.
use fsmooth::{Error, Region, fsmooth};

fsmooth! {
    /// The first coordinate of the camera each observation names.
    pub fn gather(cams: [[f64; 3]; c], obs: [[usize; 2]; p]) -> [f64; p] {
        build(p, |j| cams[obs[j][0]][0])
    }

    /// A weighted sum through an index vector.
    pub fn weighted(v: [f64; n], idx: [usize; p], w: [f64; p]) -> f64 {
        ifold(p, 0.0, |acc, j| acc + w[j] * v[idx[j]])
    }

    /// The column of each row's largest element.
    pub fn argmax(m: [[f64; k]; r], k: usize) -> [usize; r] {
        build(r, |i| ifold(k, 0, |b, j| if m[i][j] > m[i][b] { j } else { b }))
    }

    /// Buckets of values (truncating, as `as usize` does), and back.
    pub fn buckets(v: [f64; n]) -> [usize; n] {
        map(v, |x| x as usize)
    }

    pub fn back(b: [usize; n]) -> [f64; n] {
        let shifted = build(n, |i| b[(i + 1) % n]);
        map(shifted, |x| x as f64)
    }
}

fn main() -> Result<(), Error> {
    let mut region = Region::new();
    let cams = [1.0, 2.0, 3.0, 10.0, 20.0, 30.0];
    let obs = [1usize, 0, 0, 1, 1, 1];
    let mut g = [0.0; 3];
    gather(&mut g, &cams, &obs, &mut region)?;
    assert_eq!(g, [10.0, 1.0, 10.0]);

    let v = [1.0, 2.0, 4.0];
    let s = weighted(&v, &[2, 0], &[0.5, 3.0], &mut region)?;
    assert_eq!(s, 0.5 * 4.0 + 3.0 * 1.0);

    let m = [0.0, 5.0, 1.0, 9.0, -1.0, 2.0];
    let mut am = [7usize; 2];
    argmax(&mut am, &m, 3, &mut region)?;
    assert_eq!(am, [1, 0]);

    let mut b = [0usize; 3];
    buckets(&mut b, &[0.5, 2.75, 7.0], &mut region)?;
    assert_eq!(b, [0, 2, 7]);
    let mut f = [0.0; 3];
    back(&mut f, &b, &mut region)?;
    assert_eq!(f, [2.0, 7.0, 0.0]);
    Ok(())
}
