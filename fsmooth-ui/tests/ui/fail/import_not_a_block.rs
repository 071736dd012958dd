// An import from a module that is not an fsmooth block declaring `pub mod`.
pub mod geometry {
    pub fn project(x: &[f64]) -> f64 {
        x[0]
    }
}

fsmooth::fsmooth! {
    use crate::geometry::project;
    pub fn k(x: [f64; 3]) -> [f64; 2] { project(x) }
}

fn main() {}
