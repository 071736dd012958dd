#![deny(deprecated)]
use fsmooth::fsmooth;

fsmooth! {
    #![fsmooth(remarks = true)]
    // A product's gradient: the sweep back runs the steps from the last, so reverse mode
    // keeps the fold's states, one per step (n).
    pub fn product_grad(a: [f64; n]) -> (f64, [f64; n]) {
        grad(|x| ifold(n, 1.0, |p, i| p * x[i].sin()), a)
    }

    // `s` steps over `n` elements: reverse mode keeps every step's state (n * s) and an
    // adjoint of n. Neither is a token of the block: they stand on the `grad` asking for them.
    pub fn relaxed_grad(a: [f64; n], s: usize) -> (f64, [f64; n]) {
        grad(|x| sum(ifold(s, x, |st, _| map(st, |y| y.sin()))), a)
    }
}

fn main() {}
