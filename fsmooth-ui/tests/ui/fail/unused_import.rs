#![deny(warnings)]
use fsmooth::fsmooth;

fsmooth! {
    pub mod geometry;

    pub fn rotate2(c: f64, s: f64, v: [f64; 2]) -> [f64; 2] {
        [c * v[0] - s * v[1], s * v[0] + c * v[1]]
    }

    fn cross2(a: [f64; 2], b: [f64; 2]) -> f64 {
        a[0] * b[1] - a[1] * b[0]
    }
}

fsmooth! {
    use crate::geometry::{rotate2, cross2 as wedge};

    pub fn scaled(v: [f64; 2], s: f64) -> [f64; 2] {
        build(2, |i| s * v[i])
    }
}

fn main() {}
