use fsmooth::fsmooth;

fsmooth! {
    // The state has three components and the closure's pattern names two: Rust rejects it;
    // fsmooth accepts it. Move to `fail/` once it is an error.
    pub fn k(x: [f64; n]) -> f64 {
        let (s, q, c) = ifold(n, (0.0, 0.0, 0.0), |(s, q), i| (s + x[i], q + x[i] * x[i], 1.0));
        q / s + c
    }
}

fn main() {}
