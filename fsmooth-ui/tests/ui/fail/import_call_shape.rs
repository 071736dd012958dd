// A call of an imported function with the wrong shape: the error is at the call, in the
// importing block, as for a function of the block itself.
fsmooth::fsmooth! {
    pub mod geometry;
    pub fn project(x: [f64; 3]) -> [f64; 2] { [x[0] / x[2], x[1] / x[2]] }
}

fsmooth::fsmooth! {
    use crate::geometry::project;
    pub fn k(x: [f64; 4]) -> [f64; 2] { project(x) }
}

fn main() {}
