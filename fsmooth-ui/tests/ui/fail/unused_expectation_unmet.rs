#![deny(warnings)]
use fsmooth::fsmooth;

fsmooth! {
    // The expectation moved to the helper item is met: no warning for `b`.
    #[expect(unused_variables, reason = "b is for a later version")]
    pub fn first(a: f64, b: f64) -> f64 {
        a
    }

    // Nothing is unused here: the expectation is not met.
    #[expect(unused_variables)]
    pub fn second(a: f64) -> f64 {
        a
    }
}

fn main() {}
