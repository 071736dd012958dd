#![deny(warnings)]
use fsmooth::fsmooth;

fsmooth! {
    // The hidden layer is computed, then the output layer reads `x` instead of `a1`.
    pub fn mlp(w1: [[f64; n]; n], b1: [f64; n], w2: [[f64; n]; n], b2: [f64; n], x: [f64; n]) -> [f64; n] {
        let a1 = map(add(matvec(w1, x), b1), |v| v.max(0.0));
        add(matvec(w2, x), b2)
    }
}

fn main() {}
