// An import names a function the block does not have.
fsmooth::fsmooth! {
    pub mod geometry;
    pub fn project(x: [f64; 3]) -> [f64; 2] { [x[0] / x[2], x[1] / x[2]] }
}

fsmooth::fsmooth! {
    use crate::geometry::{projet};
    pub fn k(x: [f64; 3]) -> [f64; 2] { projet(x) }
}

fn main() {}
