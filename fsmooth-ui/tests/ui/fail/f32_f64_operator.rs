use fsmooth::fsmooth;

fsmooth! {
    // A gain kept in f64 applied to an f32 signal.
    pub fn k(x: [f32; n], gain: f64) -> [f32; n] {
        build(n, |i| x[i] * gain)
    }
}

fn main() {}
