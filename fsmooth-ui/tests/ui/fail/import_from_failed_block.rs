// A block with an error: its error is reported where it is written, and the block that
// imports from it adds none of its own.
fsmooth::fsmooth! {
    pub mod geometry;
    pub fn project(x: [f64; 3]) -> [f64; 2] { [x[0] / x[2], x[1] / x[3]] }
}

fsmooth::fsmooth! {
    use crate::geometry::project;
    pub fn k(x: [f64; 3]) -> [f64; 2] { project(x) }
}

fn main() {
    let mut out = [0.0; 2];
    let _ = k(&mut out, &[1.0, 2.0, 3.0], &mut fsmooth::Region::new());
}
