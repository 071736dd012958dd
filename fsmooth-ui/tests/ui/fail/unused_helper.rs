#![deny(unused)]
use fsmooth::fsmooth;

fsmooth! {
    fn square(x: f64) -> f64 {
        x * x
    }

    // Called only by `norm2`, which no kernel calls.
    fn sum_of_squares(v: [f64; n]) -> f64 {
        sum(map(v, square))
    }

    // A dead helper's unused bindings are reported too, each on its own token.
    fn norm2(v: [f64; n], w: f64) -> f64 {
        sum_of_squares(v).sqrt()
    }

    pub fn total(v: [f64; n]) -> f64 {
        sum(v)
    }
}

fn main() {}
