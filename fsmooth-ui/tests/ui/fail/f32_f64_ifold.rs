use fsmooth::fsmooth;

fsmooth! {
    // The largest weight, started at the first sample (an f32) but the weights are f64.
    pub fn k(x: [f32; n], w: [f64; n]) -> f32 {
        ifold(n, x[0], |best, i| w[i].max(best as f64))
    }
}

fn main() {}
