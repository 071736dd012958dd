#![deny(unused)]
use fsmooth::fsmooth;

fsmooth! {
    fn blend(a: f64, b: f64, t: f64) -> f64 {
        a * (1.0 - t) + a * t
    }

    // `n` fixes the shape of `x`: it is used.
    pub fn lerp(x: [f64; n], y: [f64; n], t: f64, n: usize, scale: f64) -> [f64; n] {
        build(n, |i| blend(x[i], y[i], t))
    }
}

fn main() {}
