//! Kernels over ndarray data (feature `ndarray`, LANGUAGE.md section 17): a matrix and a
//! batch of points held in `Array2`s go to a kernel as they are, `&a` or `&a.view()`, and the
//! result lands in an `Array2` (`&mut out`). An array not in standard layout (a transpose) is
//! `Error::Layout`; `as_standard_layout()` makes the row-major copy.
//!
//! Run with `cargo run --example ndarray --features ndarray`.

use fsmooth::{Error, Region, fsmooth};
use ndarray::{Array2, array, s};

fsmooth! {
    /// Each point of `pts` (one per row) moved by the affine map x -> A x + b.
    pub fn transform(a: [[f64; 3]; 3], b: [f64; 3], pts: [[f64; 3]; n]) -> [[f64; 3]; n] {
        map(pts, |p| add(matvec(a, p), b))
    }

    /// The centroid of the rows of `pts`.
    pub fn centroid(pts: [[f64; 3]; n]) -> [f64; 3] {
        let total = ifold(n, build(3, |_| 0.0), |acc, i| add(acc, pts[i]));
        smul(total, 1.0 / (n as f64))
    }
}

fn main() -> Result<(), Error> {
    // A quarter turn about z, then a shift along x.
    let a: Array2<f64> = array![[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
    let b = array![10.0, 0.0, 0.0];
    let pts: Array2<f64> = Array2::from_shape_fn((4, 3), |(i, j)| (i * 3 + j) as f64);

    let mut region = Region::new();
    let mut moved = Array2::<f64>::zeros(pts.raw_dim());
    transform(&mut moved, &a, &b, &pts, &mut region)?;
    println!("moved:\n{moved}");

    // Views in standard layout are taken as they are: the last two points only.
    let mut c = [0.0; 3];
    centroid(&mut c, &moved.slice(s![2.., ..]), &mut region)?;
    println!("centroid of the last two: {c:?}");
    assert_eq!(c, [1.5, 7.5, 9.5]);

    // The transpose of `a` (the inverse turn) is column-major: the kernel says so, untouched.
    let before = moved.clone();
    let err = transform(&mut moved, &a.t(), &b, &pts, &mut region);
    println!("a.t(): {}", err.unwrap_err());
    assert_eq!(err, Err(Error::Layout { arg: "a" }));
    assert_eq!(moved, before);
    // A row-major copy of it works.
    transform(
        &mut moved,
        &a.t().as_standard_layout(),
        &b,
        &pts,
        &mut region,
    )?;
    println!("moved by the inverse turn:\n{moved}");
    Ok(())
}
