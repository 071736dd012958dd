#![deny(warnings)]
use fsmooth::fsmooth;

fsmooth! {
    pub fn mean(a: [f64; n]) -> f64 {
        let (s, q) = ifold(n, (0.0, 0.0), |(s, q), i| (s + a[i], q + a[i] * a[i]));
        s / (n as f64)
    }
}

fn main() {}
