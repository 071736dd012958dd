// A block defines a function of the name it imports.
fsmooth::fsmooth! {
    pub mod geometry;
    pub fn scale(x: [f64; 3], s: f64) -> [f64; 3] { smul(x, s) }
}

fsmooth::fsmooth! {
    use crate::geometry::scale;
    fn scale(x: [f64; 3]) -> [f64; 3] { smul(x, 2.0) }
    pub fn k(x: [f64; 3]) -> [f64; 3] { scale(x) }
}

fn main() {}
