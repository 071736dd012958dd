use fsmooth::fsmooth;

fsmooth! {
    // A count added to the body but not to the starting state.
    pub fn k(x: [f64; n]) -> f64 {
        let (s, q) = ifold(n, (0.0, 0.0), |(s, q), i| (s + x[i], q + x[i] * x[i], 1.0));
        q / s
    }
}

fn main() {}
