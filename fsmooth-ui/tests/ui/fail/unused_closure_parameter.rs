#![deny(warnings)]
use fsmooth::fsmooth;

fsmooth! {
    pub fn ones(n: usize) -> [f64; n] {
        build(n, |i| 1.0)
    }

    pub fn count(a: [f64; n]) -> f64 {
        ifold(n, 0.0, |acc, i| acc + a[0])
    }
}

fn main() {}
